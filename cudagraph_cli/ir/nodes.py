"""The IR: a Relax module after memory planning, as plain slots classes with named fields.

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

Containers are tuples, whatever iterable a node is built with (its `__init__` converts), so
that a pass cannot change a module another stage still holds: it builds a new node
(`ir.replace`). Two kinds of node:

* compared by value (frozen, eq=True: IntImm, the struct infos, Op, Literal, ...): equal nodes
  hash equal, so they are never keys that mean "this node";
* compared by identity (eq=False: Var, SymVar, Call, bindings, functions, ...): they hash by
  identity, so maps keyed by them tell two same-named vars apart. Most are frozen too. Var,
  Constant, VarBinding, SeqExpr, Function and Module stay assignable because the builder
  completes them after making them (a var's dataflow flag is known once its block ends, a
  function's body after every signature is read, since calls need them). Call, PrimValue,
  ShapeExpr and DataTypeImm stay assignable for speed: they are made for nearly every binding
  read, and a frozen slots class on CPython 3.11 pays an object.__setattr__ per field. No
  code assigns their fields: passes build new ones.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ..diagnostics import Loc, NO_LOC

# ---- how the node classes are made --------------------------------------------------------
#
# Every node class is a slots dataclass with its own __init__ (the tuple conversions included):
# `node` for a node compared by identity (eq=False; frozen when it derives from FrozenNode),
# `value_node` for one compared by value (frozen, eq and hash on its fields). The three bases
# only say which kind a class is. `replace` is dataclasses.replace.


class Node:
    """A node compared by identity."""

    __slots__ = ()


class FrozenNode(Node):
    """A node whose fields cannot be assigned."""

    __slots__ = ()


class ValueNode(FrozenNode):
    """A frozen node compared by value (its fields'), hashing as it compares."""

    __slots__ = ()


def node(cls):
    """The identity-compared node class `cls` as a slots dataclass of its annotations."""
    return dataclass(init=False, eq=False, frozen=issubclass(cls, FrozenNode), slots=True)(cls)


def value_node(cls):
    """The value-compared node class `cls` as a frozen slots dataclass (eq and hash on the
    tuple of its fields)."""
    return dataclass(init=False, eq=True, frozen=True, slots=True)(cls)


def field_names(n) -> tuple:
    """The names of a node's (or node class's) fields, in order."""
    return n.__match_args__


# A new node of `n`'s class with some fields changed, through the class's __init__.
replace = dataclasses.replace
set_field = object.__setattr__  # how a frozen node's __init__ sets its fields


# ---- primitive (TIR-level) expressions: shapes and prim values ---------------------------


@value_node
class IntImm(ValueNode):
    """An integer constant of a PrimExpr (`T.int64(4)`, or a bare `4` in a shape)."""

    value: int
    dtype: str = "int64"

    def __init__(self, value: int, dtype: str = "int64"):
        set_field(self, "value", value)
        set_field(self, "dtype", dtype)


@value_node
class FloatImm(ValueNode):
    """A float constant of a PrimExpr (`T.float32(0.5)`)."""

    value: float
    dtype: str = "float64"

    def __init__(self, value: float, dtype: str = "float64"):
        set_field(self, "value", value)
        set_field(self, "dtype", dtype)


@node
class SymVar(FrozenNode):
    """A symbolic integer (`m = T.int64()`, or `"m"` in a shape annotation). Identity-compared."""

    name: str
    dtype: str = "int64"

    def __init__(self, name: str, dtype: str = "int64"):
        set_field(self, "name", name)
        set_field(self, "dtype", dtype)

    def __repr__(self) -> str:
        return f"SymVar({self.name})"


@value_node
class PrimBinOp(ValueNode):
    """A binary PrimExpr (`n * 2`), kept with its operator's text."""

    op: str  # + - * // % /, and (bool results) <= < >= > == != and
    lhs: "PrimExpr"
    rhs: "PrimExpr"

    def __init__(self, op: str, lhs: PrimExpr, rhs: PrimExpr):
        set_field(self, "op", op)
        set_field(self, "lhs", lhs)
        set_field(self, "rhs", rhs)


@value_node
class PrimCall(ValueNode):
    """`T.max(a, b)`, `T.min`, `T.floordiv`, `T.Select(c, a, b)`, ... kept by name.
    `T.Cast(dtype, x)` holds its dtype as a `Literal` (a str), its first argument."""

    func: str
    args: tuple[PrimExpr, ...]

    def __init__(self, func: str, args: tuple[PrimExpr, ...]):
        set_field(self, "func", func)
        set_field(self, "args", args if type(args) is tuple else tuple(args))


PrimExpr = IntImm | FloatImm | SymVar | PrimBinOp | PrimCall

# The PrimBinOp operators whose result is a bool: the guard of a graph launch bounded by
# `--capture-symbolic VAR:MAX` (`seq_len <= 256`, docs/REWRITE.md) is written with them.
BOOL_OPS = frozenset({"<=", "<", ">=", ">", "==", "!=", "and"})


# The PrimCalls whose value has the dtype of one of their arguments (its index): a choice has
# its branches' dtype, the others their operands'.
SAME_DTYPE_AS_ARG = {"T.Select": 1, "T.if_then_else": 1, "T.max": 0, "T.min": 0,
                     "T.floordiv": 0, "T.floormod": 0, "T.truncdiv": 0, "T.truncmod": 0,
                     "T.ceildiv": 0, "T.shift_left": 0, "T.shift_right": 0,
                     "T.bitwise_and": 0, "T.bitwise_or": 0, "T.bitwise_xor": 0,
                     "T.bitwise_not": 0}


def prim_dtype(e) -> str:
    """The dtype of a PrimExpr: a leaf's own, bool for a comparison or `not`, a cast's
    target, arithmetic's, a choice's or a T.max's that of its operands, int64 otherwise."""
    if isinstance(e, (IntImm, FloatImm, SymVar)):
        return e.dtype
    if isinstance(e, PrimBinOp):
        if e.op in BOOL_OPS:
            return "bool"
        # TVM's arithmetic: both operands of one dtype, a bare integer (int64 here) taking the
        # other's (`T.Cast("int32", n) * 2` is an int32)
        a, b = prim_dtype(e.lhs), prim_dtype(e.rhs)
        if a == b or _is_bare_int(e.rhs):
            return a
        if _is_bare_int(e.lhs):
            return b
        return "int64"
    if isinstance(e, PrimCall):
        if e.func == "T.Cast" and e.args and isinstance(e.args[0], Literal):
            return str(e.args[0].value)
        if e.func in ("T.Not", "T.Or", "T.And"):
            return "bool"
        at = SAME_DTYPE_AS_ARG.get(e.func)
        if at is not None and at < len(e.args):
            return prim_dtype(e.args[at])
    return "int64"


def _is_bare_int(e) -> bool:
    return isinstance(e, IntImm) and e.dtype == "int64"

# ---- struct info --------------------------------------------------------------------------


@value_node
class ObjectSInfo(ValueNode):
    """`R.Any` (current TVM) / `R.Object` (legacy)."""

    def __init__(self):
        pass


@value_node
class TensorSInfo(ValueNode):
    """`R.Tensor(shape, dtype)`, each part possibly unknown; `vdevice="cuda:0:global"`: on
    which of the module's virtual devices (`Module.global_infos`) the tensor lives."""

    shape: tuple[PrimExpr, ...] | None = None  # None when unknown
    dtype: str = ""  # "" = unknown (void)
    ndim: int = -1  # -1 = unknown; len(shape) when the shape is known
    # "" = none; else the name TVM 0.27 prints for one entry of the module's vdevices,
    # "<target kind>:<index among that kind's entries>:<memory scope>" (vdevice_names): in
    # one module a name is one entry, and modules compare their global infos too, so the
    # name stands for TVM's VDevice object in equality.
    vdevice: str = ""

    def __init__(self, shape: tuple[PrimExpr, ...] | None = None, dtype: str = "",
                 ndim: int = -1, vdevice: str = ""):
        set_field(self, "shape", shape if shape is None or type(shape) is tuple
                  else tuple(shape))
        set_field(self, "dtype", dtype)
        set_field(self, "ndim", ndim)
        set_field(self, "vdevice", vdevice)


@value_node
class ShapeSInfo(ValueNode):
    """`R.Shape([...])` or `R.Shape(ndim=N)`."""

    values: tuple[PrimExpr, ...] | None = None  # None when unknown
    ndim: int = -1

    def __init__(self, values: tuple[PrimExpr, ...] | None = None, ndim: int = -1):
        set_field(self, "values", values if values is None or type(values) is tuple
                  else tuple(values))
        set_field(self, "ndim", ndim)


@value_node
class TupleSInfo(ValueNode):
    """`R.Tuple(...)` of struct infos."""

    fields: tuple[StructInfo, ...] = ()

    def __init__(self, fields: tuple[StructInfo, ...] = ()):
        set_field(self, "fields", fields if type(fields) is tuple else tuple(fields))


@value_node
class PrimSInfo(ValueNode):
    """`R.Prim(dtype)` or `R.Prim(value=...)`."""

    dtype: str = "int64"
    value: PrimExpr | None = None

    def __init__(self, dtype: str = "int64", value: PrimExpr | None = None):
        set_field(self, "dtype", dtype)
        set_field(self, "value", value)


@value_node
class FuncSInfo(ValueNode):
    """`R.Callable(params, ret, purity)`."""

    params: tuple[StructInfo, ...] | None  # None: opaque function (R.Callable without params)
    ret: StructInfo
    purity: bool = True

    def __init__(self, params: tuple[StructInfo, ...] | None, ret: StructInfo,
                 purity: bool = True):
        set_field(self, "params", params if params is None or type(params) is tuple
                  else tuple(params))
        set_field(self, "ret", ret)
        set_field(self, "purity", purity)


StructInfo = ObjectSInfo | TensorSInfo | ShapeSInfo | TupleSInfo | PrimSInfo | FuncSInfo

# ---- Relax expressions --------------------------------------------------------------------


@node
class Var(Node):
    """A Relax variable. `sinfo` is the annotated struct info, else the deduced one, else None."""

    name: str
    sinfo: StructInfo | None = None
    is_dataflow: bool = False
    loc: Loc = NO_LOC
    annotated: bool = False  # the source wrote `name: sinfo = ...`

    def __init__(self, name: str, sinfo: StructInfo | None = None, is_dataflow: bool = False,
                 loc: Loc = NO_LOC, annotated: bool = False):
        self.name = name
        self.sinfo = sinfo
        self.is_dataflow = is_dataflow
        self.loc = loc
        self.annotated = annotated

    def __repr__(self) -> str:
        return f"Var({self.name})"


@value_node
class GlobalVarRef(ValueNode):
    """A module-level function, written `cls.name` or `Module.name`."""

    name: str

    def __init__(self, name: str):
        set_field(self, "name", name)


@value_node
class ExternFunc(ValueNode):
    """A packed function by name (`R.call_packed("name", ...)`, `R.ExternFunc("name")`)."""

    name: str

    def __init__(self, name: str):
        set_field(self, "name", name)


@value_node
class Op(ValueNode):
    """A Relax operator, by its TVM name (`relax.memory.alloc_storage`)."""

    name: str

    def __init__(self, name: str):
        set_field(self, "name", name)


@value_node
class Literal(ValueNode):
    """A Python literal kept as written: attribute values, and arguments of operators cgraph
    does not model (their meaning is TVM's business; they are printed back unchanged).
    `value` is int/float/str/bool/None, or a tuple ("tuple"|"list", items) / ("dict", pairs)."""

    value: object

    def __init__(self, value: object):
        set_field(self, "value", value)


@node
class Call(Node):
    """A call of an operator, a global or extern function, or a var, with its attributes
    and struct-info arguments (`ty_args=` / `sinfo_args=`)."""

    op: Op | GlobalVarRef | ExternFunc | Var
    args: tuple[Expr, ...] = ()
    attrs: tuple[tuple[str, Expr], ...] = ()  # (key, Literal | Expr) in source order
    sinfo_args: tuple[StructInfo, ...] = ()
    loc: Loc = NO_LOC

    def __init__(self, op: Op | GlobalVarRef | ExternFunc | Var, args: tuple[Expr, ...] = (),
                 attrs: tuple[tuple[str, Expr], ...] = (),
                 sinfo_args: tuple[StructInfo, ...] = (), loc: Loc = NO_LOC):
        self.op = op
        self.args = args if type(args) is tuple else tuple(args)
        self.attrs = attrs if type(attrs) is tuple else tuple(attrs)
        self.sinfo_args = sinfo_args if type(sinfo_args) is tuple else tuple(sinfo_args)
        self.loc = loc


@node
class Tuple(FrozenNode):
    """`(a, b)` in Relax position."""

    fields: tuple[Expr, ...] = ()
    loc: Loc = NO_LOC

    def __init__(self, fields: tuple[Expr, ...] = (), loc: Loc = NO_LOC):
        set_field(self, "fields", fields if type(fields) is tuple else tuple(fields))
        set_field(self, "loc", loc)


@node
class TupleGetItem(FrozenNode):
    """`t[i]`."""

    tuple_value: "Expr"
    index: int
    loc: Loc = NO_LOC

    def __init__(self, tuple_value: Expr, index: int, loc: Loc = NO_LOC):
        set_field(self, "tuple_value", tuple_value)
        set_field(self, "index", index)
        set_field(self, "loc", loc)


@node
class ShapeExpr(Node):
    """`R.shape([...])`: a shape value."""

    values: tuple[PrimExpr, ...] = ()
    loc: Loc = NO_LOC

    def __init__(self, values: tuple[PrimExpr, ...] = (), loc: Loc = NO_LOC):
        self.values = values if type(values) is tuple else tuple(values)
        self.loc = loc


@node
class PrimValue(Node):
    """A PrimExpr in Relax position (`R.prim_value(n)`)."""

    value: PrimExpr
    loc: Loc = NO_LOC

    def __init__(self, value: PrimExpr, loc: Loc = NO_LOC):
        self.value = value
        self.loc = loc


@node
class StringImm(FrozenNode):
    """`R.str("...")`."""

    value: str
    loc: Loc = NO_LOC

    def __init__(self, value: str, loc: Loc = NO_LOC):
        set_field(self, "value", value)
        set_field(self, "loc", loc)


@node
class DataTypeImm(Node):
    """`R.dtype("float32")`."""

    value: str
    loc: Loc = NO_LOC

    def __init__(self, value: str, loc: Loc = NO_LOC):
        self.value = value
        self.loc = loc


@node
class Constant(Node):
    """`R.const(value, dtype)`: a scalar constant; or, with `meta` = (kind, index), one of the
    module's metadata constants, `metadata["ir.GenericConst"][0]`: TVM prints those by
    reference with their data omitted, so `value` is None and `sinfo` (a TensorSInfo with a
    static shape) comes from the kernel parameter it is passed to or from an annotation."""

    value: object
    dtype: str
    loc: Loc = NO_LOC
    meta: tuple[str, int] | None = None
    sinfo: TensorSInfo | None = None

    def __init__(self, value: object, dtype: str, loc: Loc = NO_LOC,
                 meta: tuple[str, int] | None = None, sinfo: TensorSInfo | None = None):
        self.value = value
        self.dtype = dtype
        self.loc = loc
        self.meta = meta if meta is None or type(meta) is tuple else tuple(meta)
        self.sinfo = sinfo


@node
class SeqExpr(Node):
    """Binding blocks, then a result: the branch of an `If` (TVM's relax.SeqExpr)."""

    blocks: tuple[BindingBlock, ...]
    body: Expr
    loc: Loc = NO_LOC

    def __init__(self, blocks: tuple[BindingBlock, ...], body: Expr, loc: Loc = NO_LOC):
        self.blocks = blocks if type(blocks) is tuple else tuple(blocks)
        self.body = body
        self.loc = loc


@node
class If(FrozenNode):
    """`if cond: ... else: ...` bound to one var (TVM's relax.If): each branch a SeqExpr
    whose result is what the source assigns to that var last in the branch."""

    cond: "Expr"
    true_branch: SeqExpr
    false_branch: SeqExpr
    loc: Loc = NO_LOC

    def __init__(self, cond: Expr, true_branch: SeqExpr, false_branch: SeqExpr,
                 loc: Loc = NO_LOC):
        set_field(self, "cond", cond)
        set_field(self, "true_branch", true_branch)
        set_field(self, "false_branch", false_branch)
        set_field(self, "loc", loc)


# ---- bindings, functions, module ---------------------------------------------------------


@value_node
class VDevice(ValueNode):
    """`I.vdevice(target, vdevice_id, memory_scope)`: a virtual device of the module's global
    infos (TVM's relax.VDevice). `target` is a Literal value as written, a dict (its keys
    sorted, as TVM prints a target) or a string; cgraph does not complete a target as TVM's
    Target does (`"llvm"` stays `"llvm"`)."""

    target: object
    vdevice_id: int = 0
    memory_scope: str = "global"

    def __init__(self, target: object, vdevice_id: int = 0, memory_scope: str = "global"):
        set_field(self, "target", target)
        set_field(self, "vdevice_id", vdevice_id)
        set_field(self, "memory_scope", memory_scope)

    @property
    def kind(self) -> str:
        """The target's kind: a dict's "kind", or a string's first word (`"llvm -mcpu=x"`)."""
        t = self.target
        if isinstance(t, tuple) and t[0] == "dict":
            for k, v in t[1]:
                if k == "kind" and isinstance(v, str):
                    return v
            return ""
        return t.split()[0] if isinstance(t, str) and t.split() else ""


def vdevice_names(global_infos) -> list[str]:
    """The name TVM 0.27 prints for each vdevice of a module's global infos, in order:
    `kind:i:scope`, where i counts the entries of that kind before it (TVM's printer; its
    reader looks `kind:i` up the same way and ignores the scope written)."""
    seen: dict[str, int] = {}
    names = []
    for key, entries in global_infos:
        if key != "vdevice":
            continue
        for v in entries:
            i = seen.get(v.kind, 0)
            seen[v.kind] = i + 1
            names.append(f"{v.kind}:{i}:{v.memory_scope}")
    return names


@node
class VarBinding(Node):
    """`var = value` (or a bare expression statement)."""

    var: Var
    value: Expr
    loc: Loc = NO_LOC
    bare: bool = False  # written as a bare expression statement (no `name =`)

    def __init__(self, var: Var, value: Expr, loc: Loc = NO_LOC, bare: bool = False):
        self.var = var
        self.value = value
        self.loc = loc
        self.bare = bare


@node
class MatchCast(FrozenNode):
    """`var = R.match_cast(value, sinfo)`."""

    var: Var
    value: Expr
    sinfo: StructInfo
    loc: Loc = NO_LOC

    def __init__(self, var: Var, value: Expr, sinfo: StructInfo, loc: Loc = NO_LOC):
        set_field(self, "var", var)
        set_field(self, "value", value)
        set_field(self, "sinfo", sinfo)
        set_field(self, "loc", loc)


Binding = VarBinding | MatchCast


@node
class BindingBlock(FrozenNode):
    """A run of bindings: a `with R.dataflow():` block, or the bindings between two."""

    bindings: tuple[Binding, ...] = ()
    is_dataflow: bool = False
    loc: Loc = NO_LOC

    def __init__(self, bindings: tuple[Binding, ...] = (), is_dataflow: bool = False,
                 loc: Loc = NO_LOC):
        set_field(self, "bindings", bindings if type(bindings) is tuple else tuple(bindings))
        set_field(self, "is_dataflow", is_dataflow)
        set_field(self, "loc", loc)


@node
class Function(Node):
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

    def __init__(self, name: str, params: tuple[Var, ...], ret_sinfo: StructInfo | None,
                 blocks: tuple[BindingBlock, ...], body: Expr,
                 attrs: tuple[tuple[str, Literal], ...] = (), is_private: bool = False,
                 is_pure: bool = True, sym_vars: tuple[SymVar, ...] = (), loc: Loc = NO_LOC,
                 ret_loc: Loc = NO_LOC, ret_deduced: bool = False):
        self.name = name
        self.params = params if type(params) is tuple else tuple(params)
        self.ret_sinfo = ret_sinfo
        self.blocks = blocks if type(blocks) is tuple else tuple(blocks)
        self.body = body
        self.attrs = attrs if type(attrs) is tuple else tuple(attrs)
        self.is_private = is_private
        self.is_pure = is_pure
        self.sym_vars = sym_vars if type(sym_vars) is tuple else tuple(sym_vars)
        self.loc = loc
        self.ret_loc = ret_loc
        self.ret_deduced = ret_deduced

    def attr(self, key: str, default=None):
        for k, v in self.attrs:
            if k == key:
                return v.value if isinstance(v, Literal) else v
        return default

    def upper_bounds(self) -> dict[str, int]:
        """The `tir_var_upper_bound` attribute (variable name -> its largest value, for which
        memory planning sized the storages), {} when it has none."""
        return self.int_dict("tir_var_upper_bound")

    def lower_bounds(self) -> dict[str, int]:
        """The `tir_var_lower_bound` attribute (variable name -> its least value), {} when it
        has none."""
        return self.int_dict("tir_var_lower_bound")

    def int_dict(self, key: str) -> dict[str, int]:
        """A dict attribute of name -> integer, {} when absent or of another kind."""
        value = self.attr(key)
        if not (isinstance(value, tuple) and len(value) == 2 and value[0] == "dict"):
            return {}
        return {k: v for k, v in value[1]
                if isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool)}

    @property
    def num_input(self) -> int:
        """How many leading parameters are inputs (the rest are weights): the `num_input`
        attribute, or every parameter when it is absent or not an integer, as TVM reads it."""
        n = self.attr("num_input", len(self.params))
        return n if isinstance(n, int) else len(self.params)


# What an expression can be (Function: a nested function's value).
Expr = (Var | GlobalVarRef | ExternFunc | Op | Call | Tuple | TupleGetItem | ShapeExpr
        | PrimValue | StringImm | DataTypeImm | Constant | Literal | If | SeqExpr | Function)


@node
class PrimParam(FrozenNode):
    """A PrimFunc parameter, with what its annotation says when it is a buffer."""

    name: str
    annotation: str  # canonical text of the annotation (`T.Buffer((T.int64(2),), "float32")`)
    kind: str  # "buffer", "handle", "scalar", or "other"
    shape: tuple[str, ...] | None = None  # texts of the buffer's dimensions, where given
    dtype: str | None = None

    def __init__(self, name: str, annotation: str, kind: str,
                 shape: tuple[str, ...] | None = None, dtype: str | None = None):
        set_field(self, "name", name)
        set_field(self, "annotation", annotation)
        set_field(self, "kind", kind)
        set_field(self, "shape", shape if shape is None or type(shape) is tuple
                  else tuple(shape))
        set_field(self, "dtype", dtype)


@node
class PrimFunc(FrozenNode):
    """A TIR function, kept as text. `decorator` is the text inside `@T.prim_func(...)`."""

    name: str
    params: tuple[PrimParam, ...]
    body: str  # the body's text, dedented, as read
    decorator_args: str = ""
    ret: str | None = None
    loc: Loc = NO_LOC

    def __init__(self, name: str, params: tuple[PrimParam, ...], body: str,
                 decorator_args: str = "", ret: str | None = None, loc: Loc = NO_LOC):
        set_field(self, "name", name)
        set_field(self, "params", params if type(params) is tuple else tuple(params))
        set_field(self, "body", body)
        set_field(self, "decorator_args", decorator_args)
        set_field(self, "ret", ret)
        set_field(self, "loc", loc)


@node
class Module(Node):
    """An `@I.ir_module` class: its functions in source order and what cgraph keeps to
    print it back."""

    name: str
    functions: tuple[Function | PrimFunc, ...]  # in source order
    decorator_args: str = ""  # inside @I.ir_module(...), e.g. "s_tir=True"
    globals_text: tuple[str, ...] = ()  # module-level lines (`m = TypeVar("m")`)
    leading_comments: tuple[str, ...] = ()
    dialect: str = "current"  # "current" | "legacy": what the input was written in
    loc: Loc = NO_LOC
    # `I.module_global_infos({"vdevice": [I.vdevice(...), ...]})`: (key, entries) in source
    # order; cgraph reads the "vdevice" key only (entries: VDevice)
    global_infos: tuple[tuple[str, tuple[VDevice, ...]], ...] = ()
    global_infos_loc: Loc = NO_LOC

    def __init__(self, name: str, functions: tuple[Function | PrimFunc, ...],
                 decorator_args: str = "", globals_text: tuple[str, ...] = (),
                 leading_comments: tuple[str, ...] = (), dialect: str = "current",
                 loc: Loc = NO_LOC, global_infos: tuple = (), global_infos_loc: Loc = NO_LOC):
        self.name = name
        self.functions = functions if type(functions) is tuple else tuple(functions)
        self.decorator_args = decorator_args
        self.globals_text = (globals_text if type(globals_text) is tuple
                             else tuple(globals_text))
        self.leading_comments = (leading_comments if type(leading_comments) is tuple
                                 else tuple(leading_comments))
        self.dialect = dialect
        self.loc = loc
        self.global_infos = tuple((k, tuple(v)) for k, v in global_infos)
        self.global_infos_loc = global_infos_loc

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


def definable_sym_vars(s, out: list | None = None) -> list:
    """Symbolic vars that stand alone as a dimension in `s` (TVM: DefinableTIRVarsInType),
    appended to `out`. Recursive itself, not through a closure: a closure that calls itself
    is a reference cycle, freed only by the garbage collector."""
    out = [] if out is None else out
    if isinstance(s, TensorSInfo) and s.shape is not None:
        dims = s.shape
    elif isinstance(s, ShapeSInfo) and s.values is not None:
        dims = s.values
    elif isinstance(s, TupleSInfo):
        for f in s.fields:
            definable_sym_vars(f, out)
        return out
    elif isinstance(s, PrimSInfo) and isinstance(s.value, SymVar):
        dims = (s.value,)
    else:
        return out
    for d in dims:
        if isinstance(d, SymVar) and not any(d is o for o in out):
            out.append(d)
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


class BuiltinArgs:
    """The arguments of a CUDA-graph builtin, by position: as the IR writes them (`of`, from
    `R.call_builtin_with_ctx("<builtin>", (items...))`) or as the executor evaluated them (the
    items given). The one place that knows their layout, and the one that writes such a call
    (`build`); `function` and `index` are the items at those positions, None where there are
    too few."""

    BUILTIN = ""
    INDEX = 1  # the position of the graph's (or the allocation's) index

    __slots__ = ("items", "call", "defs")

    def __init__(self, items: tuple, call: "Call | None" = None, defs: dict | None = None):
        self.items = items
        self.call = call  # the IR call read, for `of`
        self.defs = defs  # var -> the value bound to it: the items read through aliases

    @classmethod
    def of(cls, value, defs: dict | None = None):
        """The view of `value` when it calls this builtin with a tuple of arguments, else
        None. With `defs` (var -> the value bound to it, as `resolve` takes), the tuple and
        each item may be a var bound to it (`args = (x, y)`, `key = R.shape([n])`): read
        through the aliases to what they stand for."""
        if builtin_called(value) != cls.BUILTIN or len(value.args) < 2:
            return None
        packed = resolve(value.args[1], defs) if defs else value.args[1]
        return cls(packed.fields, value, defs) if type(packed) is Tuple else None

    @classmethod
    def build(cls, items: tuple, ret: StructInfo) -> Call:
        """The call of this builtin with `items`, returning `ret`: what the rewrite writes."""
        return Call(Op("relax.call_builtin_with_ctx"), (ExternFunc(cls.BUILTIN), Tuple(items)),
                    (), (ret,))

    def item(self, i: int):
        x = self.items[i] if i < len(self.items) else None
        return resolve(x, self.defs) if self.defs else x

    @property
    def function(self):
        return self.item(0)

    @property
    def index(self):
        return self.item(self.INDEX)

    @property
    def function_name(self) -> str | None:
        """The name of the module function the builtin runs (IR: a GlobalVarRef), or None."""
        f = self.function
        return f.name if type(f) is GlobalVarRef else None

    @property
    def index_value(self) -> int | None:
        """The index, when the IR writes it as a constant (`R.prim_value(0)`, `0`)."""
        return literal_int(self.index)


class CachedAlloc(BuiltinArgs):
    """`vm.builtin.cuda_graph.get_cached_alloc(alloc_function, index)`."""

    BUILTIN = GET_CACHED_ALLOC
    INDEX = 1

    @classmethod
    def write(cls, function: str, index: int, ret: StructInfo) -> Call:
        """The fetch of the storages allocation function `function` makes, by index."""
        return cls.build((GlobalVarRef(function), PrimValue(IntImm(index))), ret)


class GraphLaunch(BuiltinArgs):
    """`vm.builtin.cuda_graph.run_or_capture(capture_function, args, index[, shape])`."""

    BUILTIN = RUN_OR_CAPTURE
    INDEX = 2

    @classmethod
    def write(cls, function: str, args: tuple, index: int, key: tuple | None,
              ret: StructInfo) -> Call:
        """The launch of capture function `function` with `args`, as graph `index`, keyed by
        the symbolic values `key` (`R.shape([...])`; None: no key)."""
        items = (GlobalVarRef(function), Tuple(args), PrimValue(IntImm(index)))
        return cls.build(items + ((ShapeExpr(key),) if key is not None else ()), ret)

    @property
    def args(self):
        return self.item(1)

    @property
    def shape(self):
        return self.item(3)


def builtin_call(value, name: str) -> bool:
    """Is `value` a call of the builtin `name` (with its arguments' tuple)?"""
    return builtin_called(value) == name and len(value.args) >= 2


def builtin_target(value) -> str:
    """The function a CUDA-graph builtin call names (its arguments' first item), or ""."""
    view = GraphLaunch.of(value) or CachedAlloc.of(value)
    return (view.function_name if view is not None else None) or ""


def resolve(e, defs: dict, depth: int = 0):
    """What a var stands for, through aliases: the expression at the end of the chain
    (`defs`: var -> the value bound to it)."""
    while type(e) is Var and e in defs and depth < 50:
        e, depth = defs[e], depth + 1
    return e


def literal_int(e) -> int | None:
    """The value of an integer constant written in Relax (`R.prim_value(3)`, `3`), or None."""
    if type(e) is PrimValue and type(e.value) is IntImm:
        return e.value.value
    if type(e) is Literal and type(e.value) is int:
        return e.value
    return None


def storage_size(call: Call) -> int | None:
    """The size of `R.memory.alloc_storage(R.shape([n]), ...)` when n is a constant (what static
    memory planning writes), else None."""
    shape = call.args[0] if call.args else None
    if type(shape) is ShapeExpr and len(shape.values) == 1 and type(shape.values[0]) is IntImm:
        return shape.values[0].value
    return None
