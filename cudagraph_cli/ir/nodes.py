"""The IR: a Relax module after memory planning, as plain dataclasses.

Mirrors TVM's Relax IR closely enough that structural equality here means structural
equality there (`tvm.ir.assert_structural_equal`), with TVM 0.27's conventions:

* a primitive value in Relax position is a `PrimValue` holding a `PrimExpr` (TVM 0.27 uses the
  PrimExpr itself; older TVM wrapped it; the meaning is the same);
* `R.str("global")` is a `StringImm`, `R.dtype("float32")` a `DataTypeImm`;
* a call's callee is an `Op` (`relax.memory.alloc_storage`), a `GlobalVarRef` (`cls.f`), an
  `ExternFunc` (`R.call_packed("f", ...)`) or a `Var`.

Vars have identity: two bindings of the same name are two `Var`s (TVMScript lets a name be bound
again, shadowing the first). Symbolic shape variables (`SymVar`) have identity too.
PrimFunc bodies are kept as text: cgraph never looks inside TIR.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

from ..diagnostics import Loc, NO_LOC

# ---- primitive (TIR-level) expressions: shapes and prim values ---------------------------


@dataclass(frozen=True, slots=True)
class IntImm:
    value: int
    dtype: str = "int64"


@dataclass(frozen=True, slots=True)
class FloatImm:
    value: float
    dtype: str = "float64"


@dataclass(eq=False, slots=True)
class SymVar:
    """A symbolic integer (`m = T.int64()`, or `"m"` in a shape annotation). Identity-compared."""

    name: str
    dtype: str = "int64"

    def __repr__(self) -> str:
        return f"SymVar({self.name})"


@dataclass(frozen=True, slots=True)
class PrimBinOp:
    op: str  # + - * // % /
    lhs: "PrimExpr"
    rhs: "PrimExpr"


@dataclass(frozen=True, slots=True)
class PrimCall:
    """`T.max(a, b)`, `T.min`, `T.floordiv`, ... kept by name."""

    func: str
    args: tuple


PrimExpr = Union[IntImm, FloatImm, SymVar, PrimBinOp, PrimCall]

# ---- struct info --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ObjectSInfo:
    """`R.Any` (current TVM) / `R.Object` (legacy)."""


@dataclass(frozen=True, slots=True)
class TensorSInfo:
    shape: tuple | None = None  # PrimExprs, or None when unknown
    dtype: str = ""  # "" = unknown (void)
    ndim: int = -1  # -1 = unknown; len(shape) when the shape is known


@dataclass(frozen=True, slots=True)
class ShapeSInfo:
    values: tuple | None = None
    ndim: int = -1


@dataclass(frozen=True, slots=True)
class TupleSInfo:
    fields: tuple = ()


@dataclass(frozen=True, slots=True)
class PrimSInfo:
    dtype: str = "int64"
    value: PrimExpr | None = None


@dataclass(frozen=True, slots=True)
class FuncSInfo:
    params: tuple | None  # None: opaque function (R.Callable without params)
    ret: "StructInfo"
    purity: bool = True


StructInfo = Union[ObjectSInfo, TensorSInfo, ShapeSInfo, TupleSInfo, PrimSInfo, FuncSInfo]

# ---- Relax expressions --------------------------------------------------------------------


@dataclass(eq=False, slots=True)
class Var:
    """A Relax variable. `sinfo` is the annotated struct info, else the deduced one, else None."""

    name: str
    sinfo: StructInfo | None = None
    is_dataflow: bool = False
    loc: Loc = NO_LOC
    annotated: bool = False  # the source wrote `name: sinfo = ...`

    def __repr__(self) -> str:
        return f"Var({self.name})"


@dataclass(frozen=True, slots=True)
class GlobalVarRef:
    """A module-level function, written `cls.name` or `Module.name`."""

    name: str


@dataclass(frozen=True, slots=True)
class ExternFunc:
    """A packed function by name (`R.call_packed("name", ...)`, `R.ExternFunc("name")`)."""

    name: str


@dataclass(frozen=True, slots=True)
class Op:
    """A Relax operator, by its TVM name (`relax.memory.alloc_storage`)."""

    name: str


@dataclass(frozen=True, slots=True)
class Literal:
    """A Python literal kept as written: attribute values, and arguments of operators cgraph
    does not model (their meaning is TVM's business; they are printed back unchanged).
    `value` is int/float/str/bool/None, or a tuple ("tuple"|"list", items) / ("dict", pairs)."""

    value: object


@dataclass(eq=False, slots=True)
class Call:
    op: Union[Op, GlobalVarRef, ExternFunc, Var]
    args: tuple = ()
    attrs: tuple = ()  # ((key, Literal | Expr), ...) in source order
    sinfo_args: tuple = ()
    loc: Loc = NO_LOC


@dataclass(eq=False, slots=True)
class Tuple:
    fields: tuple = ()
    loc: Loc = NO_LOC


@dataclass(eq=False, slots=True)
class TupleGetItem:
    tuple_value: "Expr"
    index: int
    loc: Loc = NO_LOC


@dataclass(eq=False, slots=True)
class ShapeExpr:
    values: tuple = ()
    loc: Loc = NO_LOC


@dataclass(eq=False, slots=True)
class PrimValue:
    value: PrimExpr
    loc: Loc = NO_LOC


@dataclass(eq=False, slots=True)
class StringImm:
    value: str
    loc: Loc = NO_LOC


@dataclass(eq=False, slots=True)
class DataTypeImm:
    value: str
    loc: Loc = NO_LOC


@dataclass(eq=False, slots=True)
class Constant:
    """`R.const(value, dtype)`: a scalar constant; or, with `meta` = (kind, index), one of the
    module's metadata constants, `metadata["ir.GenericConst"][0]`: TVM prints those by
    reference with their data omitted, so `value` is None and `sinfo` (a TensorSInfo with a
    static shape) comes from the kernel parameter it is passed to or from an annotation."""

    value: object
    dtype: str
    loc: Loc = NO_LOC
    meta: tuple | None = None
    sinfo: TensorSInfo | None = None


@dataclass(eq=False, slots=True)
class SeqExpr:
    """Binding blocks, then a result: the branch of an `If` (TVM's relax.SeqExpr)."""

    blocks: list
    body: "Expr"
    loc: Loc = NO_LOC


@dataclass(eq=False, slots=True)
class If:
    """`if cond: ... else: ...` bound to one var (TVM's relax.If): each branch a SeqExpr
    whose result is what the source assigns to that var last in the branch."""

    cond: "Expr"
    true_branch: SeqExpr
    false_branch: SeqExpr
    loc: Loc = NO_LOC


Expr = Union[Var, GlobalVarRef, ExternFunc, Op, Call, Tuple, TupleGetItem, ShapeExpr,
             PrimValue, StringImm, DataTypeImm, Constant, Literal, If, SeqExpr,
             "Function"]

# ---- bindings, functions, module ---------------------------------------------------------


@dataclass(eq=False, slots=True)
class VarBinding:
    var: Var
    value: Expr
    loc: Loc = NO_LOC
    bare: bool = False  # written as a bare expression statement (no `name =`)


@dataclass(eq=False, slots=True)
class MatchCast:
    var: Var
    value: Expr
    sinfo: StructInfo
    loc: Loc = NO_LOC


Binding = Union[VarBinding, MatchCast]


@dataclass(eq=False, slots=True)
class BindingBlock:
    bindings: list = field(default_factory=list)
    is_dataflow: bool = False
    loc: Loc = NO_LOC


@dataclass(eq=False, slots=True)
class Function:
    """A Relax function. `attrs` keeps R.func_attr's entries in source order."""

    name: str
    params: list
    ret_sinfo: StructInfo | None
    blocks: list
    body: Expr
    attrs: list = field(default_factory=list)  # [(key, Literal)]
    is_private: bool = False
    is_pure: bool = True
    sym_vars: list = field(default_factory=list)  # declared symbolic vars, in order
    loc: Loc = NO_LOC
    ret_loc: Loc = NO_LOC
    ret_deduced: bool = False  # the source gave no `-> ...`; ret_sinfo was deduced (or None)

    def attr(self, key: str, default=None):
        for k, v in self.attrs:
            if k == key:
                return v.value if isinstance(v, Literal) else v
        return default

    @property
    def num_input(self) -> int:
        """How many leading parameters are inputs (the rest are weights): the `num_input`
        attribute, or every parameter when it is absent or not an integer, as TVM reads it."""
        n = self.attr("num_input", len(self.params))
        return n if isinstance(n, int) else len(self.params)


@dataclass(eq=False, slots=True)
class PrimParam:
    name: str
    annotation: str  # canonical text of the annotation (`T.Buffer((T.int64(2),), "float32")`)
    kind: str  # "buffer", "handle", "scalar", or "other"
    shape: tuple | None = None  # texts of the buffer's dimensions, where given
    dtype: str | None = None


@dataclass(eq=False, slots=True)
class PrimFunc:
    """A TIR function, kept as text. `decorator` is the text inside `@T.prim_func(...)`."""

    name: str
    params: list
    body: str  # the body's text, dedented, as read
    decorator_args: str = ""
    ret: str | None = None
    loc: Loc = NO_LOC


@dataclass(eq=False, slots=True)
class Module:
    name: str
    functions: list  # Function | PrimFunc, in source order
    decorator_args: str = ""  # inside @I.ir_module(...), e.g. "s_tir=True"
    globals_text: list = field(default_factory=list)  # module-level lines (`m = TypeVar("m")`)
    leading_comments: list = field(default_factory=list)
    dialect: str = "current"  # "current" | "legacy": what the input was written in
    loc: Loc = NO_LOC

    def function(self, name: str):
        for f in self.functions:
            if f.name == name:
                return f
        return None

    def relax_functions(self) -> list:
        return [f for f in self.functions if isinstance(f, Function)]


# ---- helpers ------------------------------------------------------------------------------

# The VM builtins of a CUDA-graph rewrite, one home for their names: passes/ writes them, exec/
# runs them, report/ reads them back.
GET_CACHED_ALLOC = "vm.builtin.cuda_graph.get_cached_alloc"
RUN_OR_CAPTURE = "vm.builtin.cuda_graph.run_or_capture"
CUDA_GRAPH_BUILTINS = (GET_CACHED_ALLOC, RUN_OR_CAPTURE)

MEMORY_OPS = frozenset({"relax.memory.alloc_storage", "relax.memory.alloc_tensor",
                        "relax.memory.kill_storage", "relax.memory.kill_tensor"})


def walk(e):
    """The Relax expression `e` and every expression inside it, depth first: a call's callee,
    arguments and attribute values, tuple fields, a get-item's tuple."""
    stack = [e]
    while stack:
        x = stack.pop()
        yield x
        t = type(x)
        if t is Call:
            stack.extend(reversed([v for _, v in x.attrs]))
            stack.extend(reversed(x.args))
            stack.append(x.op)
        elif t is Tuple:
            stack.extend(reversed(x.fields))
        elif t is TupleGetItem:
            stack.append(x.tuple_value)


def prim_vars(e, out: list | None = None) -> list:
    """Symbolic vars in a PrimExpr, in order of first appearance."""
    if out is None:
        out = []
    if isinstance(e, SymVar):
        if not any(v is e for v in out):
            out.append(e)
    elif isinstance(e, PrimBinOp):
        prim_vars(e.lhs, out)
        prim_vars(e.rhs, out)
    elif isinstance(e, PrimCall):
        for a in e.args:
            prim_vars(a, out)
    return out


def sinfo_prim_vars(s, out: list | None = None) -> list:
    """Symbolic vars in a struct info, in order of first appearance."""
    if out is None:
        out = []
    if isinstance(s, TensorSInfo) and s.shape is not None:
        for d in s.shape:
            prim_vars(d, out)
    elif isinstance(s, ShapeSInfo) and s.values is not None:
        for d in s.values:
            prim_vars(d, out)
    elif isinstance(s, TupleSInfo):
        for f in s.fields:
            sinfo_prim_vars(f, out)
    elif isinstance(s, PrimSInfo) and s.value is not None:
        prim_vars(s.value, out)
    elif isinstance(s, FuncSInfo):
        for p in s.params or ():
            sinfo_prim_vars(p, out)
        sinfo_prim_vars(s.ret, out)
    return out


def definable_sym_vars(s) -> list:
    """Symbolic vars that stand alone as a dimension in `s` (TVM: DefinableTIRVarsInType)."""
    out: list = []

    def visit(x):
        if isinstance(x, TensorSInfo) and x.shape is not None:
            dims = x.shape
        elif isinstance(x, ShapeSInfo) and x.values is not None:
            dims = x.values
        elif isinstance(x, TupleSInfo):
            for f in x.fields:
                visit(f)
            return
        elif isinstance(x, PrimSInfo) and isinstance(x.value, SymVar):
            dims = (x.value,)
        else:
            return
        for d in dims:
            if isinstance(d, SymVar) and not any(d is o for o in out):
                out.append(d)

    visit(s)
    return out


def nested_bindings(blocks):
    """Every binding in `blocks` and inside the branches of their `If`s, depth first, in
    source order (a nested function's body is its own scope: not entered)."""
    for block in blocks:
        for b in block.bindings:
            yield b
            v = b.value
            if type(v) is If:
                yield from nested_bindings(v.true_branch.blocks)
                yield from nested_bindings(v.false_branch.blocks)


def callee_name(call: Call) -> str:
    """The name of what a call calls (an operator, a global or extern function, a var), for
    messages, `--exclude` patterns and matching; "?" for a callee with no name."""
    return getattr(call.op, "name", "?")


def builtin_called(value) -> str | None:
    """The builtin that `R.call_builtin_with_ctx("name", args)` calls, or None when `value` is
    not such a call."""
    if type(value) is Call and type(value.op) is Op and \
            value.op.name == "relax.call_builtin_with_ctx" and value.args and \
            type(value.args[0]) is ExternFunc:
        return value.args[0].name
    return None


def storage_size(call: Call) -> int | None:
    """The size of `R.memory.alloc_storage(R.shape([n]), ...)` when n is a constant (what static
    memory planning writes), else None."""
    shape = call.args[0] if call.args else None
    if type(shape) is ShapeExpr and len(shape.values) == 1 and type(shape.values[0]) is IntImm:
        return shape.values[0].value
    return None
