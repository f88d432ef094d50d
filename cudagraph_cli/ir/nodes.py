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

Containers are tuples, whatever iterable a node is built with (a `__post_init__` converts), so
that a pass cannot change a module another stage still holds: it builds a new node
(`dataclasses.replace`). Two kinds of node:

* compared by value (frozen, eq=True: IntImm, the struct infos, Op, Literal, ...): equal nodes
  hash equal, so they are never keys that mean "this node";
* compared by identity (eq=False: Var, SymVar, Call, bindings, functions, ...): they hash by
  identity, so maps keyed by them tell two same-named vars apart. Most are frozen too. Var,
  Constant, VarBinding, SeqExpr, Function and Module stay assignable because the builder
  completes them after making them (a var's dataflow flag is known once its block ends, a
  function's body after every signature is read, since calls need them). Call, PrimValue,
  ShapeExpr and DataTypeImm stay assignable for speed: they are made for nearly every binding
  read, and a frozen slots dataclass on CPython 3.11 pays an object.__setattr__ per field
  (about 1 us more per Call, 1.5% of reading a 512-layer decode module). No code assigns
  their fields: passes build new ones.
"""

from __future__ import annotations

from dataclasses import dataclass
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


@dataclass(eq=False, frozen=True, slots=True)
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
    args: tuple[PrimExpr, ...]

    def __post_init__(self):
        if type(self.args) is not tuple:
            object.__setattr__(self, "args", tuple(self.args))


PrimExpr = Union[IntImm, FloatImm, SymVar, PrimBinOp, PrimCall]

# ---- struct info --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ObjectSInfo:
    """`R.Any` (current TVM) / `R.Object` (legacy)."""


@dataclass(frozen=True, slots=True)
class TensorSInfo:
    shape: tuple[PrimExpr, ...] | None = None  # None when unknown
    dtype: str = ""  # "" = unknown (void)
    ndim: int = -1  # -1 = unknown; len(shape) when the shape is known

    def __post_init__(self):
        if self.shape is not None and type(self.shape) is not tuple:
            object.__setattr__(self, "shape", tuple(self.shape))


@dataclass(frozen=True, slots=True)
class ShapeSInfo:
    values: tuple[PrimExpr, ...] | None = None  # None when unknown
    ndim: int = -1

    def __post_init__(self):
        if self.values is not None and type(self.values) is not tuple:
            object.__setattr__(self, "values", tuple(self.values))


@dataclass(frozen=True, slots=True)
class TupleSInfo:
    fields: tuple[StructInfo, ...] = ()

    def __post_init__(self):
        if type(self.fields) is not tuple:
            object.__setattr__(self, "fields", tuple(self.fields))


@dataclass(frozen=True, slots=True)
class PrimSInfo:
    dtype: str = "int64"
    value: PrimExpr | None = None


@dataclass(frozen=True, slots=True)
class FuncSInfo:
    params: tuple[StructInfo, ...] | None  # None: opaque function (R.Callable without params)
    ret: StructInfo
    purity: bool = True

    def __post_init__(self):
        if self.params is not None and type(self.params) is not tuple:
            object.__setattr__(self, "params", tuple(self.params))


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
    args: tuple[Expr, ...] = ()
    attrs: tuple[tuple[str, Expr], ...] = ()  # (key, Literal | Expr) in source order
    sinfo_args: tuple[StructInfo, ...] = ()
    loc: Loc = NO_LOC

    def __post_init__(self):
        if type(self.args) is not tuple:
            self.args = tuple(self.args)
        if type(self.attrs) is not tuple:
            self.attrs = tuple(self.attrs)
        if type(self.sinfo_args) is not tuple:
            self.sinfo_args = tuple(self.sinfo_args)


@dataclass(eq=False, frozen=True, slots=True)
class Tuple:
    fields: tuple[Expr, ...] = ()
    loc: Loc = NO_LOC

    def __post_init__(self):
        if type(self.fields) is not tuple:
            object.__setattr__(self, "fields", tuple(self.fields))


@dataclass(eq=False, frozen=True, slots=True)
class TupleGetItem:
    tuple_value: "Expr"
    index: int
    loc: Loc = NO_LOC


@dataclass(eq=False, slots=True)
class ShapeExpr:
    values: tuple[PrimExpr, ...] = ()
    loc: Loc = NO_LOC

    def __post_init__(self):
        if type(self.values) is not tuple:
            self.values = tuple(self.values)


@dataclass(eq=False, slots=True)
class PrimValue:
    value: PrimExpr
    loc: Loc = NO_LOC


@dataclass(eq=False, frozen=True, slots=True)
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
    meta: tuple[str, int] | None = None
    sinfo: TensorSInfo | None = None

    def __post_init__(self):
        if self.meta is not None and type(self.meta) is not tuple:
            self.meta = tuple(self.meta)


@dataclass(eq=False, slots=True)
class SeqExpr:
    """Binding blocks, then a result: the branch of an `If` (TVM's relax.SeqExpr)."""

    blocks: tuple[BindingBlock, ...]
    body: Expr
    loc: Loc = NO_LOC

    def __post_init__(self):
        if type(self.blocks) is not tuple:
            self.blocks = tuple(self.blocks)


@dataclass(eq=False, frozen=True, slots=True)
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


@dataclass(eq=False, frozen=True, slots=True)
class MatchCast:
    var: Var
    value: Expr
    sinfo: StructInfo
    loc: Loc = NO_LOC


Binding = Union[VarBinding, MatchCast]


@dataclass(eq=False, frozen=True, slots=True)
class BindingBlock:
    bindings: tuple[Binding, ...] = ()
    is_dataflow: bool = False
    loc: Loc = NO_LOC

    def __post_init__(self):
        if type(self.bindings) is not tuple:
            object.__setattr__(self, "bindings", tuple(self.bindings))


@dataclass(eq=False, slots=True)
class Function:
    """A Relax function. `attrs` keeps R.func_attr's entries in source order."""

    name: str
    params: tuple[Var, ...]
    ret_sinfo: StructInfo | None
    blocks: tuple[BindingBlock, ...]
    body: Expr
    attrs: tuple[tuple[str, Literal], ...] = ()
    is_private: bool = False
    is_pure: bool = True
    sym_vars: tuple[SymVar, ...] = ()  # declared symbolic vars, in order
    loc: Loc = NO_LOC
    ret_loc: Loc = NO_LOC
    ret_deduced: bool = False  # the source gave no `-> ...`; ret_sinfo was deduced (or None)

    def __post_init__(self):
        if type(self.params) is not tuple:
            self.params = tuple(self.params)
        if type(self.blocks) is not tuple:
            self.blocks = tuple(self.blocks)
        if type(self.attrs) is not tuple:
            self.attrs = tuple(self.attrs)
        if type(self.sym_vars) is not tuple:
            self.sym_vars = tuple(self.sym_vars)

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


@dataclass(eq=False, frozen=True, slots=True)
class PrimParam:
    name: str
    annotation: str  # canonical text of the annotation (`T.Buffer((T.int64(2),), "float32")`)
    kind: str  # "buffer", "handle", "scalar", or "other"
    shape: tuple[str, ...] | None = None  # texts of the buffer's dimensions, where given
    dtype: str | None = None

    def __post_init__(self):
        if self.shape is not None and type(self.shape) is not tuple:
            object.__setattr__(self, "shape", tuple(self.shape))


@dataclass(eq=False, frozen=True, slots=True)
class PrimFunc:
    """A TIR function, kept as text. `decorator` is the text inside `@T.prim_func(...)`."""

    name: str
    params: tuple[PrimParam, ...]
    body: str  # the body's text, dedented, as read
    decorator_args: str = ""
    ret: str | None = None
    loc: Loc = NO_LOC

    def __post_init__(self):
        if type(self.params) is not tuple:
            object.__setattr__(self, "params", tuple(self.params))


@dataclass(eq=False, slots=True)
class Module:
    name: str
    functions: tuple[Function | PrimFunc, ...]  # in source order
    decorator_args: str = ""  # inside @I.ir_module(...), e.g. "s_tir=True"
    globals_text: tuple[str, ...] = ()  # module-level lines (`m = TypeVar("m")`)
    leading_comments: tuple[str, ...] = ()
    dialect: str = "current"  # "current" | "legacy": what the input was written in
    loc: Loc = NO_LOC

    def __post_init__(self):
        if type(self.functions) is not tuple:
            self.functions = tuple(self.functions)
        if type(self.globals_text) is not tuple:
            self.globals_text = tuple(self.globals_text)
        if type(self.leading_comments) is not tuple:
            self.leading_comments = tuple(self.leading_comments)

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
