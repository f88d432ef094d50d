"""PrimFunc signatures: what cgraph reads of a TIR function, which it keeps as text.

A PrimFunc's parameters (buffers, handles, scalars, with their shapes and dtypes) as Relax
sees them when it calls the kernel, its decorator arguments, and its body as text (dedented,
its `T.<dtype>` names checked as TVM's parser would). Touches only the PrimFunc it builds and
the dialect evidence.
"""

from __future__ import annotations

import re

from ... import ir
from ...diagnostics import Loc, SourceError
from ...ir.dtypes import NAMED_FLOATS
from .. import syntax as S
from .checks import KNOWN_DTYPES, check_dtype
from .struct_info import PRIM_TYPE_CALLS


class PrimFuncBuilder:
    """The PrimFunc part of ModuleBuilder; of the shared state, votes in `dialect`."""

    def prim_func(self, fd: S.FuncDef, d) -> ir.PrimFunc:
        if not isinstance(fd.body, str):
            raise SourceError("internal: PrimFunc body not captured", fd.loc)
        dargs = ""
        if isinstance(d, S.Call):
            dargs = ", ".join([S.unparse(a) for a in d.args] +
                              [f"{k.name}={S.unparse(k.value)}" for k in d.kwargs])
            self.dialect.decorator(d)
        for p in fd.params:
            if p.annotation is not None:
                check_tir_dtype_names(p.annotation)
        if fd.ret is not None:
            check_tir_dtype_names(fd.ret)
        check_tir_dtype_names_in_body(fd.body, fd.body_line)
        self.dialect.prim_body(fd.body)
        params = []
        for p in fd.params:
            if p.annotation is None:
                params.append(ir.PrimParam(p.name, "", "other"))
                continue
            ann = p.annotation
            text = S.unparse(ann)
            head = S.dotted(ann.func) if isinstance(ann, S.Call) else S.dotted(ann)
            shape = dtype = None
            kind = "other"
            if head in ("T.Buffer", "T.buffer", "T.handle", "T.Ptr"):
                kind = "buffer" if head.lower() == "t.buffer" else "handle"
            elif head in PRIM_TYPE_CALLS:
                kind = "scalar"
                dtype = head[2:]
            if kind == "buffer" and isinstance(ann, S.Call):
                if ann.args:
                    dims = ann.args[0]
                    if isinstance(dims, (S.TupleLit, S.ListLit)):
                        shape = tuple(S.unparse(x) for x in dims.items)
                    else:
                        shape = (S.unparse(dims),)
                if len(ann.args) > 1 and isinstance(ann.args[1], S.Str):
                    dtype = check_dtype(ann.args[1].value, ann.args[1].loc)
                for k in ann.kwargs:
                    if k.name == "dtype" and isinstance(k.value, S.Str):
                        dtype = check_dtype(k.value.value, k.value.loc)
                if dtype is None:
                    dtype = "float32"
            params.append(ir.PrimParam(p.name, text, kind, shape, dtype))
        ret = S.unparse(fd.ret) if fd.ret is not None else None
        return ir.PrimFunc(fd.name, params, _dedent_body(fd.body), dargs, ret, loc=fd.loc)


PRIM_DECORATORS = {"T.prim_func", "tir.prim_func", "tirx.prim_func", "tvm.script.tir.prim_func",
                    "tvm.script.tirx.prim_func"}


def _dedent_body(text: str) -> str:
    """A PrimFunc body with its block indentation removed (relative indentation kept)."""
    lines = text.split("\n")
    indent = None
    for ln in lines:
        stripped = ln.lstrip(" \t")
        if stripped and not stripped.startswith("#"):
            indent = len(ln) - len(stripped)
            break
    if indent is None:
        indent = 0
    out = []
    for ln in lines:
        ln = ln.rstrip()
        lead = len(ln) - len(ln.lstrip(" \t"))
        out.append(ln[min(lead, indent):])
    while out and not out[-1]:
        out.pop()
    while out and not out[0]:
        out.pop(0)
    return "\n".join(out)


# `T.int64`, `T.float32x4`, `T.int65`: a TIR name that reads as a dtype, which TVM looks up
# as an attribute of T. T has fewer of them than the dtype parser reads (no `T.int65`, though
# "int65" is a dtype): these are all of them in TVM 0.27 (`dir(tvm.script.parser.tirx)`).
_TIR_DTYPE_CANDIDATE = re.compile(r"(?:u?int|b?float|bool)\d+\w*")
_TIR_DTYPE_IN_TEXT = re.compile(r"\bT\.((?:u?int|b?float|bool)\d+\w*)")
_TIR_DTYPE_ATTRS = frozenset(
    [base + lanes
     for base in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                  "float16", "float32", "float64", *NAMED_FLOATS)
     for lanes in ("", "x2", "x4", "x8", "x16", "x32", "x64")] + ["bfloat16"])


def check_tir_dtype_names(node) -> None:
    """A located error at the first `T.<dtype>` in a PrimFunc signature whose dtype is not one."""
    if isinstance(node, S.Attr):
        if isinstance(node.obj, S.Name) and node.obj.id == "T":
            _check_tir_dtype_name(node.attr, node.loc)
        check_tir_dtype_names(node.obj)
    elif isinstance(node, S.Name):
        head, _, rest = node.id.partition(".")
        if head == "T" and rest:
            _check_tir_dtype_name(rest, node.loc)
    elif isinstance(node, S.Call):
        check_tir_dtype_names(node.func)
        for a in node.args:
            check_tir_dtype_names(a)
        for k in node.kwargs:
            check_tir_dtype_names(k.value)
    elif isinstance(node, (S.TupleLit, S.ListLit)):
        for x in node.items:
            check_tir_dtype_names(x)
    elif isinstance(node, S.GetItem):
        check_tir_dtype_names(node.obj)
        check_tir_dtype_names(node.index)
    elif isinstance(node, S.BinOp):
        check_tir_dtype_names(node.lhs)
        check_tir_dtype_names(node.rhs)
    elif isinstance(node, S.Neg):
        check_tir_dtype_names(node.operand)


def check_tir_dtype_names_in_body(body: str, first_line: int) -> None:
    """The same for a PrimFunc body, which cgraph keeps as text (comments skipped; a string
    naming `T.int65` would be refused too, a price worth not tokenizing every body)."""
    for m in _TIR_DTYPE_IN_TEXT.finditer(body):
        if m.group(1) in _TIR_DTYPE_ATTRS:
            continue
        line_start = body.rfind("\n", 0, m.start()) + 1
        if "#" in body[line_start:m.start()]:
            continue
        loc = Loc(first_line + body.count("\n", 0, m.start()), m.start() - line_start + 1)
        _check_tir_dtype_name(m.group(1), loc)


def _check_tir_dtype_name(name: str, loc: Loc) -> None:
    if _TIR_DTYPE_CANDIDATE.fullmatch(name) and name not in _TIR_DTYPE_ATTRS:
        import difflib  # an error's hint only: not loaded by every start

        close = difflib.get_close_matches(name, KNOWN_DTYPES, n=1)
        hint = f" (did you mean T.{close[0]}?)" if close else ""
        raise SourceError(f"unknown TIR dtype 'T.{name}'{hint}", loc)


def _static_int(text: str) -> int | None:
    """A buffer dimension written as a constant (`4`, `T.int64(4)`), else None (symbolic)."""
    m = re.fullmatch(r"(?:T\.u?int(?:8|16|32|64)\()?\s*(-?\d+)\s*\)?", text.strip())
    if m is None or (text.strip().startswith("T.") != text.strip().endswith(")")):
        return None
    return int(m.group(1))


def prim_param_sinfo(p: ir.PrimParam):
    """The struct info TVM gives a PrimFunc parameter when Relax calls it: a buffer is a
    tensor of its dtype and shape, a handle any object, a scalar a primitive of its dtype;
    None where cgraph cannot tell."""
    if p.kind == "handle":
        return ir.ObjectSInfo()
    if p.kind == "scalar" and p.dtype:
        return ir.PrimSInfo(p.dtype)
    if p.kind == "buffer":
        if p.shape is None:
            return ir.TensorSInfo(None, p.dtype or "", -1)
        dims = []
        for d in p.shape:
            v = _static_int(d)
            dims.append(ir.IntImm(v, "int64") if v is not None else ir.SymVar(d, "int64"))
        return ir.TensorSInfo(tuple(dims), p.dtype or "", len(dims))
    return None

