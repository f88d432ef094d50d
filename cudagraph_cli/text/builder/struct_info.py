"""Struct info and prim values: annotations and symbolic integer expressions.

`R.Tensor(...)`, `R.Tuple(...)`, `R.Shape(...)`, `R.Prim(...)`, `R.Callable(...)`, `R.Any`; the
dimensions of a shape (int64, as TVM holds them); symbolic integer expressions, folded as TVM's
PrimExpr operators fold them (`2 * 4` is 8, `m * 1` is `m`), a shape written as a string read
with the grammar driver. Also what the other parts ask of struct info: can a value ever match
an annotation, is it a constant's, how it reads in a message. Builds struct info and PrimExprs.
"""

from __future__ import annotations

import re

from ... import ir
from ...diagnostics import SourceError
from ...ir.sinfo import static_mismatch
from .. import syntax as S
from ..parser import parse_syntax
from .checks import bind_args, check_dtype, dtype_name, int_imm, no_kwargs, python_float
from .scopes import FunctionScope


class StructInfoBuilder:
    """The struct info and prim value part of ModuleBuilder; of the shared state, reads
    `in_binding_annotation` and (through vdevices.py) the module's vdevices, votes in
    `dialect`."""

    # ---- shapes and symbolic integer expressions ------------------------------------------

    def dims(self, items: list, fctx: FunctionScope, define: bool = False) -> tuple:
        """The dimensions of a shape: TVM holds every one to int64 (`the value in ShapeType
        can only have dtype of int64`): it widens an integer constant (`T.int32(3)` is 3), and
        refuses a float or a variable of another type."""
        out = []
        for x in items:
            e = self.prim(x, fctx, define)
            if isinstance(e, ir.IntImm) and e.dtype not in ("int64", "bool"):
                e = int_imm(e.value, "int64", x.loc)
            bad = _non_int64_leaf(e)
            if bad is not None:
                if isinstance(bad, ir.SymVar):
                    decl = fctx.sym_decl_loc.get(bad.name)
                    where = f" (declared at line {decl.line})" if decl is not None else ""
                    what = f"'{bad.name}' is {bad.dtype}{where}"
                else:
                    what = f"{bad.value!r} is {bad.dtype}"
                raise SourceError(f"a shape dimension must be an int64 integer; {what}", x.loc)
            out.append(e)
        return tuple(out)

    def prim(self, node, fctx: FunctionScope, define: bool = False):
        t = type(node)
        if t is S.Num:
            if isinstance(node.value, int):
                return int_imm(node.value, "int64", node.loc)
            return ir.FloatImm(node.value, "float64")
        if t is S.Name:
            if "." in node.id:
                raise SourceError(f"'{node.id}' is not a symbolic integer", node.loc)
            if node.id in fctx.syms or node.id in fctx.sym_decl:
                return fctx.sym(node.id, node.loc)
            raise SourceError(f"undefined symbolic variable '{node.id}'", node.loc)
        if t is S.Str:
            if self.in_binding_annotation:
                raise SourceError("a shape written as a string is only allowed in function "
                                  "parameters and return annotations (declare `m = "
                                  "T.int64()` and write `m`)", node.loc)
            text = node.value.strip()
            if re.fullmatch(r"[A-Za-z_]\w*", text):
                if not define and text not in fctx.syms and text not in fctx.sym_decl:
                    fctx.sym_decl[text] = "int64"
                return fctx.sym(text, node.loc)
            try:
                stmts = parse_syntax(text + "\n")
            except SourceError:
                raise SourceError(f"cannot read shape expression {text!r}", node.loc) from None
            if len(stmts) != 1 or not isinstance(stmts[0], S.ExprStmt):
                raise SourceError(f"cannot read shape expression {text!r}", node.loc)
            _relocate(stmts[0].value, node.line, node.col)
            return self.prim(_names_to_strs(stmts[0].value), fctx, define)
        if t is S.BinOp:
            e = fold(node.op, self.prim(node.lhs, fctx, define),
                     self.prim(node.rhs, fctx, define))
            if isinstance(e, ir.IntImm):
                int_imm(e.value, e.dtype, node.loc)  # Python folds literals before TVM sees them
            return e
        if t is S.Neg:
            if isinstance(node.operand, S.Num) and isinstance(node.operand.value, int):
                return int_imm(-node.operand.value, "int64", node.loc)  # -2**63 is in range
            return fold("*", ir.IntImm(-1), self.prim(node.operand, fctx, define))
        if t is S.Const and isinstance(node.value, bool):
            return ir.IntImm(int(node.value), "bool")
        if t is S.Call:
            name = S.dotted(node.func)
            if name in PRIM_TYPE_CALLS:
                if len(node.args) != 1 or node.kwargs:
                    raise SourceError(f"{name} takes one value", node.loc)
                dtype = name[2:]
                a = node.args[0]
                if isinstance(a, S.Const) and isinstance(a.value, bool):
                    return ir.IntImm(int(a.value), dtype)
                if isinstance(a, S.Num):
                    if dtype.startswith(("int", "uint", "bool")):
                        if not isinstance(a.value, int):
                            raise SourceError(f"{name} needs an integer", a.loc)
                        return int_imm(a.value, dtype, a.loc)
                    return ir.FloatImm(float(a.value), dtype)
                value = python_float(a)
                if value is not None and not dtype.startswith(("int", "uint", "bool")):
                    return ir.FloatImm(value, dtype)  # T.float64("inf"), as TVM prints it
                raise SourceError(f"{name} takes a literal", a.loc)
            if name == "float":
                value = python_float(node)
                if value is None:
                    raise SourceError("float() takes a number or a string such as \"inf\"",
                                      node.loc)
                return ir.FloatImm(value, "float64")
            if name in _PRIM_FUNCS:
                if node.kwargs:
                    raise SourceError(f"{name} takes no keyword arguments", node.kwargs[0].loc)
                if name == "T.Cast":
                    return self.cast(node, fctx, define)
                arity = _PRIM_FUNCS[name]
                if len(node.args) != arity:
                    raise SourceError(f"{name} takes {arity} arguments, {len(node.args)} "
                                      "given", node.loc)
                return ir.PrimCall(name, tuple(self.prim(a, fctx, define) for a in node.args))
            raise SourceError(f"'{name}' is not a symbolic integer expression", node.loc)
        raise SourceError("expected a symbolic integer expression", node.loc)

    def cast(self, node: S.Call, fctx: FunctionScope, define: bool):
        """`T.Cast("int32", x)`: the dtype kept as a Literal, the PrimCall's first argument
        (its dtype is the cast's, ir.prim_dtype)."""
        if len(node.args) != 2:
            raise SourceError(f"T.Cast takes a dtype and a value, {len(node.args)} "
                              "argument(s) given", node.loc)
        dtype, value = node.args
        if not isinstance(dtype, S.Str):
            raise SourceError("T.Cast takes a dtype string first", dtype.loc)
        return ir.PrimCall("T.Cast", (ir.Literal(check_dtype(dtype.value, dtype.loc)),
                                      self.prim(value, fctx, define)))

    # ---- struct info ---------------------------------------------------------------------

    def sinfo(self, node, fctx: FunctionScope, define: bool = False):
        t = type(node)
        if t is S.Name:
            name = node.id
            if name in ("R.Any", "R.Object"):
                if name == "R.Object":
                    self.dialect.legacy += 1
                else:
                    self.dialect.current += 1
                return ir.ObjectSInfo()
            if name == "R.Tensor":
                return ir.TensorSInfo()
            if name == "R.Tuple":
                return ir.TupleSInfo(())
            if name == "R.Shape":
                return ir.ShapeSInfo()
            if name in PRIM_TYPE_CALLS:
                return ir.PrimSInfo(name[2:])
            raise SourceError(f"unknown struct info '{name}'", node.loc)
        if t is S.Call:
            name = S.dotted(node.func)
            if name in ("R.Any", "R.Object"):
                bind_args(node, [], {}, 0)
                return ir.ObjectSInfo()
            if name == "R.Tensor":
                # TVM 0.27's R.Tensor(shape, dtype, vdevice, ndim)
                shape, dtype, vdevice, ndim = bind_args(
                    node, ["shape", "dtype", "vdevice", "ndim"], {}, 0)
                for k in node.kwargs:
                    if k.name not in ("shape", "dtype", "vdevice", "ndim"):
                        raise SourceError(f"unexpected keyword argument '{k.name}'", k.loc)
                dims = None
                if isinstance(shape, S.Str) and dtype is None:  # R.Tensor("float32", ndim=2)
                    shape, dtype = None, shape
                if shape is not None and not (isinstance(shape, S.Const) and shape.value is None):
                    if not isinstance(shape, (S.TupleLit, S.ListLit)):
                        raise SourceError("tensor shape must be a tuple", shape.loc)
                    dims = self.dims(shape.items, fctx, define)
                dt = ""
                if dtype is not None:
                    if not isinstance(dtype, S.Str):
                        raise SourceError("dtype must be a string", dtype.loc)
                    dt = dtype_name(check_dtype(dtype.value, dtype.loc))
                nd = -1
                if ndim is not None:
                    if not isinstance(ndim, S.Num) or not isinstance(ndim.value, int):
                        raise SourceError("ndim must be an integer", ndim.loc)
                    nd = int_imm(ndim.value, "int64", ndim.loc).value
                if dims is not None:
                    if nd not in (-1, len(dims)):
                        raise SourceError("ndim does not match the shape", node.loc)
                    nd = len(dims)
                vd = ""
                if vdevice is not None and not (isinstance(vdevice, S.Const) and
                                                vdevice.value is None):
                    vd = self.resolve_vdevice(vdevice)
                return ir.TensorSInfo(dims, dt, nd, vd)
            if name == "R.Tuple":
                no_kwargs(node, name)
                return ir.TupleSInfo(tuple(self.sinfo(a, fctx, define) for a in node.args))
            if name == "R.Shape":
                values, ndim = bind_args(node, ["values", "ndim"], {}, 0)
                if values is not None:
                    if not isinstance(values, (S.TupleLit, S.ListLit)):
                        raise SourceError("R.Shape takes a list of dimensions", values.loc)
                    dims = self.dims(values.items, fctx, define)
                    return ir.ShapeSInfo(dims, len(dims))
                nd = ndim.value if isinstance(ndim, S.Num) else -1
                return ir.ShapeSInfo(None, nd)
            if name == "R.Prim":
                dtype, value = bind_args(node, ["dtype", "value"], {}, 0)
                if value is not None:
                    pv = self.prim(value, fctx, define)
                    return ir.PrimSInfo(_prim_dtype(pv), pv)
                if not isinstance(dtype, S.Str):
                    raise SourceError("R.Prim takes a dtype string", node.loc)
                return ir.PrimSInfo(check_dtype(dtype.value, dtype.loc))
            if name == "R.Callable":
                params, ret, purity = bind_args(node, ["params", "ret", "purity"], {}, 0)
                ps = None
                if params is not None:
                    if not isinstance(params, (S.TupleLit, S.ListLit)):
                        raise SourceError("R.Callable takes a tuple of parameters", params.loc)
                    ps = tuple(self.sinfo(p, fctx, define) for p in params.items)
                r = self.sinfo(ret, fctx, define) if ret is not None else ir.ObjectSInfo()
                pure = True
                if purity is not None:
                    pure = bool(getattr(purity, "value", True))
                return ir.FuncSInfo(ps, r, pure)
            raise SourceError(f"unknown struct info '{name or S.unparse(node.func)}'", node.loc)
        raise SourceError("expected a struct info (R.Tensor, R.Tuple, R.Any, ...)", node.loc)


PRIM_TYPE_CALLS = {"T.int64", "T.int32", "T.int16", "T.int8", "T.uint64", "T.uint32",
                    "T.uint16", "T.uint8", "T.float64", "T.float32", "T.float16", "T.bfloat16",
                    "T.bool"}
# The T.* calls a symbolic expression may hold, and their number of arguments (each one the
# executor evaluates: exec/).
_PRIM_FUNCS = {"T.max": 2, "T.min": 2, "T.floordiv": 2, "T.floormod": 2, "T.truncdiv": 2,
               "T.truncmod": 2, "T.ceildiv": 2, "T.if_then_else": 3, "T.Select": 3,
               "T.Cast": 2}


def static_tensor(s) -> bool:
    """A tensor struct info of known dtype and constant shape: what a constant has."""
    return isinstance(s, ir.TensorSInfo) and bool(s.dtype) and s.shape is not None and \
        all(isinstance(d, ir.IntImm) for d in s.shape)


def impossible_match(annotation, given) -> bool:
    """True where no value of struct info `given` can have struct info `annotation`: TVM's
    level-0 failure. An object (R.Any) or unknown value may turn out to be anything."""
    if given is None or isinstance(given, ir.ObjectSInfo):
        return False
    if isinstance(annotation, ir.TupleSInfo) and isinstance(given, ir.TupleSInfo):
        return len(annotation.fields) != len(given.fields) or \
            any(impossible_match(a, g) for a, g in zip(annotation.fields, given.fields))
    return static_mismatch(annotation, given)


def _non_int64_leaf(e):
    """The first constant or variable of a shape dimension that is not an int64, or None."""
    if isinstance(e, ir.PrimBinOp):
        return _non_int64_leaf(e.lhs) or _non_int64_leaf(e.rhs)
    if isinstance(e, ir.IntImm) and e.dtype == "bool":
        return None  # Python's True and False are ints; TVM takes them as 1 and 0
    if isinstance(e, (ir.IntImm, ir.FloatImm, ir.SymVar)) and e.dtype != "int64":
        return e
    return None


def _prim_dtype(e) -> str:
    return ir.prim_dtype(e)


def fold(op: str, a, b):
    """Build `a op b` as TVM's PrimExpr operators do: a bare integer takes the other operand's
    integer dtype (`T.Cast("int32", n) * 2` multiplies by an int32 2), constants folded,
    identities removed."""
    a, b = _matched_int(a, b), _matched_int(b, a)
    ai = isinstance(a, ir.IntImm) and a.dtype != "bool"
    bi = isinstance(b, ir.IntImm) and b.dtype != "bool"
    if ai and bi and a.dtype == b.dtype:
        x, y = a.value, b.value
        if op == "+":
            return ir.IntImm(x + y, a.dtype)
        if op == "-":
            return ir.IntImm(x - y, a.dtype)
        if op == "*":
            return ir.IntImm(x * y, a.dtype)
        if op == "//" and y != 0:
            return ir.IntImm(x // y, a.dtype)
        if op == "%" and y != 0:
            return ir.IntImm(x % y, a.dtype)
    if op == "+":
        if bi and b.value == 0:
            return a
        if ai and a.value == 0:
            return b
    elif op == "-":
        if bi and b.value == 0:
            return a
    elif op == "*":
        if bi and b.value == 1:
            return a
        if ai and a.value == 1:
            return b
    elif op == "//":
        if bi and b.value == 1:
            return a
    return ir.PrimBinOp(op, a, b)


def _matched_int(e, other):
    """`e`, a bare integer (read as an int64), in `other`'s integer dtype when that is not
    int64; `e` otherwise."""
    if not (isinstance(e, ir.IntImm) and e.dtype == "int64"):
        return e
    dtype = _prim_dtype(other)
    if dtype != "int64" and dtype.startswith(("int", "uint")):
        return ir.IntImm(e.value, dtype)
    return e


def _relocate(node, line: int, col: int):
    """Give a sub-parsed node (from a string) the location of the string."""
    if isinstance(node, S.Node):
        node.line, node.col = line, col
        for attr in ("lhs", "rhs", "operand", "func", "obj"):
            child = getattr(node, attr, None)
            if child is not None:
                _relocate(child, line, col)
        for child in getattr(node, "args", ()) or ():
            _relocate(child, line, col)


def _names_to_strs(node):
    """Names inside a string shape ("m * 2") define symbolic vars like "m" does."""
    if isinstance(node, S.Name) and "." not in node.id:
        return S.Str(node.id, node.line, node.col)
    if isinstance(node, S.BinOp):
        node.lhs, node.rhs = _names_to_strs(node.lhs), _names_to_strs(node.rhs)
    elif isinstance(node, S.Neg):
        node.operand = _names_to_strs(node.operand)
    return node


def sinfo_text(s) -> str:
    from ..printer import Printer

    if s is None:
        return "unknown"
    try:
        return Printer().sinfo(s)
    except TypeError:
        return type(s).__name__
