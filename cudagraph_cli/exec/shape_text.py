"""Sizes and offsets as the text writes them, for exec/shape_facts.py: the PrimExpr of an
integer argument, a dtype's width, a tensor's bytes, and the words of a fact's message."""

from __future__ import annotations

from .. import ir
from ..text.printer import Printer
from .backend import ExecError, numpy_dtype
from .shape_bound import polynomial


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
