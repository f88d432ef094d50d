"""Sizes and offsets as the text writes them, for proof/facts.py: the PrimExpr of an
integer argument, a dtype's width, a tensor's bytes, and the words of a fact's message."""

from __future__ import annotations

from .. import ir
from ..exec.backend import ExecError, numpy_dtype
from ..text.printer import Printer
from .bound import polynomial


def prim_arg(e):
    """The PrimExpr an integer argument is written as (`0`, `R.prim_value(n)`, `T.int64(8)`),
    or None."""
    if type(e) is ir.Literal and type(e.value) is int:
        return ir.IntImm(e.value)
    if type(e) is ir.PrimValue:
        return e.value
    if isinstance(e, (ir.IntImm, ir.SymVar, ir.PrimBinOp, ir.PrimCall)):
        return e
    return None


def dtype_arg(e) -> str | None:
    if type(e) is ir.DataTypeImm:
        return e.value
    if type(e) in (ir.StringImm, ir.Literal) and isinstance(e.value, str):
        return e.value
    return None


def itemsize(dtype: str | None) -> int | None:
    if not dtype:
        return None
    try:
        return numpy_dtype(dtype).itemsize
    except ExecError:
        return None


def product(values, itemsize: int):
    e = ir.IntImm(itemsize)
    for d in values:
        e = ir.PrimBinOp("*", e, d)
    return e


def tensor_bytes(sinfo):
    """The bytes of a tensor of struct info `sinfo`, as a PrimExpr, or None."""
    if type(sinfo) is not ir.TensorSInfo or sinfo.shape is None:
        return None
    size = itemsize(sinfo.dtype)
    return None if size is None else product(sinfo.shape, size)


def call_arg(call: ir.Call, i: int, name: str):
    if i < len(call.args):
        return call.args[i]
    return next((v for k, v in call.attrs if k == name), None)


def show(e) -> str:
    """`e` as a sum of products when it is a polynomial (`8192 * seq_len`), else as TVMScript
    prints it."""
    poly = polynomial(e)
    if poly is None:
        return Printer().prim(e)
    if not poly:
        return "0"
    terms = []
    for m, c in sorted(poly.items(), key=lambda mc: (-len(mc[0]), mc[0])):
        names = " * ".join(m)
        terms.append(f"{c}" if not m else names if c == 1 else f"{c} * {names}")
    return " + ".join(terms).replace("+ -", "- ")


def values_text(values: dict) -> str:
    return ", ".join(f"{k} = {v:,}" for k, v in values.items())


def launch_key(launch: ir.GraphLaunch, defs: dict) -> tuple | None:
    """The key of a graph launch as PrimExprs: () when it has none (one graph for every
    value), the values of its `R.shape([...])` (written there, bound to a var, or the var's
    struct info), or None when the text does not give them."""
    key = launch.shape
    if key is None:
        return ()
    key = ir.resolve(key, defs)
    if type(key) is ir.ShapeExpr:
        return tuple(key.values)
    sinfo = getattr(key, "sinfo", None)
    if type(sinfo) is ir.ShapeSInfo and sinfo.values is not None:
        return tuple(sinfo.values)
    return None


def launch_dependencies(args) -> tuple[list, str | None]:
    """(the PrimExprs a graph launch's arguments carry: the dimensions of its tensors, the
    values of its shapes and scalars -- what its capture bakes in --, why not when the text
    does not give one of them)."""
    out: list = []
    why = _carried(args, out)
    seen: dict = {}
    for e in out:
        seen.setdefault(Printer().prim(e), e)
    return list(seen.values()), why


def _carried(e, out: list) -> str | None:
    t = type(e)
    if t is ir.Tuple:
        return next((w for w in (_carried(x, out) for x in e.fields) if w), None)
    if t is ir.ShapeExpr:
        out.extend(e.values)
        return None
    if t is ir.PrimValue:
        out.append(e.value)
        return None
    if t in (ir.Literal, ir.StringImm, ir.DataTypeImm, ir.GlobalVarRef, ir.ExternFunc,
             ir.Constant):
        return None  # no symbolic value
    sinfo = getattr(e, "sinfo", None)
    if sinfo is not None:
        return _carried_by(sinfo, getattr(e, "name", "an argument"), out)
    return "an argument whose type the text does not give"


def _carried_by(s, name: str, out: list) -> str | None:
    """The PrimExprs struct info `s` of argument `name` gives, appended to `out`."""
    t = type(s)
    if t is ir.TensorSInfo:
        if s.shape is None:
            return f"the shape of '{name}' is not in its type"
        out.extend(s.shape)
    elif t is ir.ShapeSInfo:
        if s.values is None:
            return f"the values of shape '{name}' are not in its type"
        out.extend(s.values)
    elif t is ir.PrimSInfo:
        if s.value is None:
            return f"the value of scalar '{name}' is not in its type"
        out.append(s.value)
    elif t is ir.TupleSInfo:
        return next((w for w in (_carried_by(f, name, out) for f in s.fields) if w), None)
    return None  # an object (a storage, a KV cache): no shape of its own
