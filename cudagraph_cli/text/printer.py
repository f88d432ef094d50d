"""IR -> canonical TVMScript, in the current (TVM 0.27) or the legacy dialect.

Canonical means: one binding per line; literal sugar spelled out (`R.prim_value(0)`,
`R.str("global")`, `R.dtype("float32")`); default arguments left out; symbolic dimensions
as strings in signatures (`R.Tensor(("m",), ...)`) and as names in bodies, with
`m = T.int64()` declared first. An annotation is printed where the source (or the pass) gave
one; elsewhere TVM deduces the same struct info on reading. PrimFunc bodies come out as they
were read; with a change of dialect a few TIR spellings are mapped (`T.block` <-> `T.sblock`).

Names: a variable keeps its name unless that would hide another variable still in use, then
it gets a suffix (`x_1`), as TVM's printer does.
"""

from __future__ import annotations

import math
import re

from .. import ir
from .syntax import quote
from .tir_names import module_type_vars, without_shadowing

DIALECTS = ("current", "legacy")

# TIR spellings that differ between the dialects, for PrimFunc bodies (pattern, replacement).
_TIR_TO_CURRENT = (
    (r"\bT\.block\(", "T.sblock("),
    (r"\bT\.alloc_buffer\(", "T.sblock_alloc_buffer("),
    (r"\bT\.block_attr\(", "T.sblock_attr("),
    (r"\bT\.block\b", "T.sblock"),  # in comments: # with T.block("root"):
    (r'"tir\.noalias"', '"tirx.noalias"'),
)
_TIR_TO_LEGACY = (
    (r"\bT\.sblock\(", "T.block("),
    (r"\bT\.sblock_alloc_buffer\(", "T.alloc_buffer("),
    (r"\bT\.sblock_attr\(", "T.block_attr("),
    (r"\bT\.sblock\b", "T.block"),
    (r'"tirx\.noalias"', '"tir.noalias"'),
)
_RESERVED = {"R", "T", "I", "cls", "tvm", "None", "True", "False"}
_PRECEDENCE = {"and": -1, "<=": 0, "<": 0, ">=": 0, ">": 0, "==": 0, "!=": 0,
               "+": 1, "-": 1, "*": 2, "/": 2, "//": 2, "%": 2}


def convert_tir(body: str, source: str, target: str) -> str:
    """Map a PrimFunc body's TIR spellings from one dialect to the other."""
    if source == target:
        return body
    for pattern, replacement in (_TIR_TO_CURRENT if target == "current" else _TIR_TO_LEGACY):
        body = re.sub(pattern, replacement, body)
    return body


class Printer:
    def __init__(self, dialect: str = "current"):
        if dialect not in DIALECTS:
            raise ValueError(f"unknown dialect {dialect!r}")
        self.dialect = dialect
        self.any = "R.Any" if dialect == "current" else "R.Object"
        self.ty_args = "ty_args" if dialect == "current" else "sinfo_args"
        # call_tir's and call_dps_packed's output struct info: TVM 0.27 reads only `out_ty`
        self.out_ty = "out_ty" if dialect == "current" else "out_sinfo"

    # ---- module --------------------------------------------------------------------------

    def module(self, mod: ir.Module) -> str:
        out: list[str] = []
        has_prim = any(isinstance(f, ir.PrimFunc) for f in mod.functions)
        if mod.leading_comments:
            out.extend(mod.leading_comments)
            out.append("")
        # TVM 0.27's header, line for line: `TypeVar` first when module-level TypeVars
        # follow, and the layout `Axis` with the tirx import.
        if any("TypeVar(" in line for line in mod.globals_text):
            out.append("# from typing import TypeVar")
        out.append("# from tvm.script import ir as I")
        if has_prim or any(f.sym_vars for f in mod.relax_functions()):
            if self.dialect == "current":
                out.append("# from tvm.script import tirx as T")
                out.append("# from tvm.tirx.layout import Axis")
            else:
                out.append("# from tvm.script import tir as T")
        out.append("# from tvm.script import relax as R")
        out.append("")
        if mod.globals_text:
            out.extend(mod.globals_text)
            out.append("")
        out.append("@I.ir_module" + self._decorator_args(mod.decorator_args, has_prim, mod))
        out.append(f"class {mod.name}:")
        if mod.global_infos:
            out.append(f"    {global_infos_text(mod.global_infos)}")
        type_vars = module_type_vars(mod.globals_text)
        first = True
        for f in mod.functions:
            if not first:
                out.append("")
            first = False
            if isinstance(f, ir.PrimFunc):
                # A PrimFunc variable named like a module TypeVar is renamed, else TVM's
                # reader takes it for the TypeVar and rejects the text (tir_names.py).
                self._prim_func(without_shadowing(f, type_vars), mod, out)
            else:
                FunctionPrinter(self, mod.name).function(f, out)
        if not mod.functions:
            out.append("    pass")
        if _has_metadata(mod):
            out.extend(["", "# Metadata omitted. Use show_meta=True in script() method to show it."])
        return "\n".join(out) + "\n"

    def _decorator_args(self, args: str, has_prim: bool, mod: ir.Module) -> str:
        """In the input's dialect, as written: `s_tir` is a PrimFunc attribute TVM keeps (a
        module may mix dialects, `s_tir=True` with `R.Object`). Converting, the target's
        spelling: the current dialect's `T.sblock` needs `s_tir=True`, legacy TVM has none."""
        if self.dialect == mod.dialect:
            return f"({args})" if args else ""
        parts = [a.strip() for a in args.split(",") if a.strip()] if args else []
        parts = [a for a in parts if not a.startswith("s_tir")]
        if self.dialect == "current" and has_prim:
            parts.append("s_tir=True")
        return f"({', '.join(parts)})" if parts else ""

    def _prim_func(self, f: ir.PrimFunc, mod: ir.Module, out: list[str]):
        out.append("    @T.prim_func" + self._decorator_args(f.decorator_args, True, mod))
        params = ", ".join(f"{p.name}: {p.annotation}" if p.annotation else p.name
                           for p in f.params)
        ret = f" -> {f.ret}" if f.ret else ""
        out.append(f"    def {f.name}({params}){ret}:")
        body = convert_tir(f.body, mod.dialect, self.dialect)
        for line in body.split("\n"):
            out.append("        " + line if line else "")

    # ---- struct info and primitive expressions -------------------------------------------

    def sinfo(self, s, sig: bool = False) -> str:
        """Struct info; `sig`: in a signature, where symbolic dims are written as strings."""
        t = type(s)
        if t is ir.ObjectSInfo:
            return self.any
        if t is ir.TensorSInfo:
            parts = []
            if s.shape is not None:
                parts.append(self.dims(s.shape, sig, "tuple"))
            elif s.ndim >= 0:
                parts.append(f"ndim={s.ndim}")
            if s.dtype:
                parts.append(f'dtype="{s.dtype}"')
            if s.vdevice:
                parts.append(f"vdevice={quote(s.vdevice)}")
            return f"R.Tensor({', '.join(parts)})" if parts else "R.Tensor"
        if t is ir.TupleSInfo:
            if not s.fields:
                return "R.Tuple"
            return "R.Tuple(" + ", ".join(self.sinfo(f, sig) for f in s.fields) + ")"
        if t is ir.ShapeSInfo:
            if s.values is not None:
                return f"R.Shape({self.dims(s.values, sig, 'list')})"
            return f"R.Shape(ndim={s.ndim})" if s.ndim >= 0 else "R.Shape"
        if t is ir.PrimSInfo:
            if s.value is not None:
                v = self.prim(s.value)
                return f'R.Prim(value="{v}")' if sig and not _is_const(s.value) else \
                    f"R.Prim(value={v})"
            return f'R.Prim("{s.dtype}")'
        if t is ir.FuncSInfo:
            ret = self.sinfo(s.ret, sig)
            purity = "" if s.purity else ", purity=False"
            if s.params is None:
                return f"R.Callable(ret={ret}{purity})" if purity else f"R.Callable(ret={ret})"
            ps = ", ".join(self.sinfo(p, sig) for p in s.params)
            if len(s.params) == 1:
                ps += ","
            return f"R.Callable(({ps}), {ret}{purity})"
        raise TypeError(f"cannot print struct info {s!r}")

    def dims(self, values, sig: bool, brackets: str) -> str:
        items = []
        for d in values:
            text = self.prim(d)
            if sig and not _is_const(d):
                text = f'"{text}"'
            items.append(text)
        if brackets == "list":
            return "[" + ", ".join(items) + "]"
        if len(items) == 1:
            return f"({items[0]},)"
        return "(" + ", ".join(items) + ")"

    def prim(self, e) -> str:
        t = type(e)
        if t is ir.IntImm:
            if e.dtype == "int64":
                return str(e.value)
            if e.dtype == "bool":
                return f"T.bool({bool(e.value)})"
            return f"T.{e.dtype}({e.value})"
        if t is ir.SymVar:
            return e.name
        if t is ir.FloatImm:
            if not math.isfinite(e.value):
                # TVM reads `T.float64("inf")` (and prints it so); a bare `inf` is a name.
                return f'T.{e.dtype}("{e.value!r}")'
            return f"T.{e.dtype}({e.value!r})"
        if t is ir.PrimBinOp:
            lhs = self._operand(e.lhs, e.op, False, e.rhs)
            return f"{lhs} {e.op} {self._operand(e.rhs, e.op, True, e.lhs)}"
        if t is ir.PrimCall:
            return f"{e.func}({', '.join(self.prim(a) for a in e.args)})"
        if t is ir.Literal and isinstance(e.value, str):  # T.Cast's dtype
            return f'"{e.value}"'
        raise TypeError(f"cannot print {e!r}")

    def _operand(self, e, op: str, right: bool, other) -> str:
        if isinstance(e, ir.IntImm) and e.dtype not in ("int64", "bool") and \
                not isinstance(other, ir.IntImm) and ir.prim_dtype(other) == e.dtype:
            # a bare integer takes the other operand's dtype (`T.Cast("int32", n) * 2`), as
            # TVM prints it and the reader reads it back
            text = str(e.value)
            return f"({text})" if e.value < 0 else text
        text = self.prim(e)
        if isinstance(e, ir.PrimBinOp):
            inner, outer = _PRECEDENCE[e.op], _PRECEDENCE[op]
            # A comparison inside a comparison is bracketed either side: Python chains
            # `a <= b <= c`.
            if inner < outer or (inner == outer and (right or inner == 0)):
                return f"({text})"
        elif isinstance(e, ir.IntImm) and e.value < 0 and e.dtype == "int64":
            return f"({text})"
        return text


def _is_const(e) -> bool:
    return isinstance(e, (ir.IntImm, ir.FloatImm))


class FunctionPrinter:
    """Prints one Relax function; owns the var -> name assignment."""

    def __init__(self, p: Printer, class_name: str):
        self.p = p
        self.class_name = class_name
        self.names: dict[ir.Var, str] = {}
        self.fn_syms: list = []
        self.outer_syms: set[str] = set()

    def function(self, f: ir.Function, out: list[str], base: str = "    ",
                 nested: bool = False):
        p = self.p
        flags = []
        if f.is_private and not nested:  # a nested function is private without saying so
            flags.append("private=True")
        if not f.is_pure:
            flags.append("pure=False")
        out.append(f"{base}@R.function" + (f"({', '.join(flags)})" if flags else ""))
        self.assign_names(f)
        params = ", ".join(f"{self.names[v]}: {p.sinfo(v.sinfo, sig=True)}"
                           for v in f.params)
        ret = ""
        if f.ret_sinfo is not None and not f.ret_deduced:
            ret = f" -> {p.sinfo(f.ret_sinfo, sig=True)}"
        out.append(f"{base}def {f.name}({params}){ret}:")
        ind = base + "    "
        for v in f.sym_vars:
            if not nested or v.name not in self.outer_syms:
                out.append(f"{ind}{v.name} = T.{v.dtype}()")
        if f.attrs:
            items = ", ".join(f"{quote(k)}: {self.literal(v)}" for k, v in f.attrs)
            out.append(f"{ind}R.func_attr({{{items}}})")
        if not nested and self._uses_globals(f):
            out.append(f"{ind}cls = {self.class_name}")
        self.blocks(f.blocks, ind, out)
        out.append(f"{ind}return {self.expr(f.body)}")

    def blocks(self, blocks: list, ind: str, out: list[str]):
        for block in blocks:
            if block.is_dataflow:
                out.append(f"{ind}with R.dataflow():")
                for b in block.bindings:
                    self.emit_binding(b, ind + "    ", out)
                outs = [self.names[b.var] for b in block.bindings if not b.var.is_dataflow]
                out.append(f"{ind}    R.output({', '.join(outs)})")
            else:
                for b in block.bindings:
                    self.emit_binding(b, ind, out)

    def emit_binding(self, b, ind: str, out: list[str]):
        t = type(b.value)
        if t is ir.If:
            self.if_binding(b, ind, out)
        elif t is ir.Function:
            sub = FunctionPrinter(self.p, self.class_name)
            sub.names = dict(self.names)  # a closure prints the enclosing function's names
            sub.outer_syms = {v.name for v in self.fn_syms}
            sub.function(b.value, out, ind, nested=True)
            out.append("")
        else:
            out.append(self.binding(b, ind))

    def if_binding(self, b, ind: str, out: list[str]):
        """As TVM prints an If: each branch's bindings, then `name = <branch result>`."""
        v = b.value
        name = self.names[b.var]
        ann = f": {self.p.sinfo(b.var.sinfo)}" if b.var.sinfo is not None else ""
        out.append(f"{ind}if {self.expr(v.cond)}:")
        for head, seq in ((None, v.true_branch), ("else:", v.false_branch)):
            if head:
                out.append(f"{ind}{head}")
            self.blocks(seq.blocks, ind + "    ", out)
            out.append(f"{ind}    {name}{ann} = {self.expr(seq.body)}")

    # ---- names ---------------------------------------------------------------------------

    def assign_names(self, f: ir.Function):
        """Keep source names, renaming a definition that would hide a var used later."""
        self.fn_syms = list(f.sym_vars)
        order = list(_text_order(f.blocks))
        last_use: dict[ir.Var, int] = {}
        for pos, (var, value) in enumerate(order, 1):
            _uses(value, last_use, pos)
        _uses(f.body, last_use, len(order) + 1)
        reserved = set(_RESERVED) | {v.name for v in f.sym_vars}
        taken: set[str] = set(reserved) | set(self.names.values())
        current: dict[str, ir.Var] = {}
        names = self.names

        def define(v: ir.Var, at: int):
            base = v.name or "_"
            name = base
            if base in reserved:
                name = _fresh(base, taken)
            else:
                holder = current.get(base)
                if holder is not None and holder is not v and last_use.get(holder, -1) > at:
                    name = _fresh(base, taken)
            taken.add(name)
            names[v] = name
            current[name] = v

        for v in f.params:
            define(v, 0)
        for pos, (var, value) in enumerate(order, 1):
            if var is not None:
                define(var, pos)

    # ---- bindings and expressions --------------------------------------------------------

    def binding(self, b, ind: str) -> str:
        var = b.var
        if isinstance(b, ir.MatchCast):
            value = f"R.match_cast({self.expr(b.value)}, {self.p.sinfo(b.sinfo)})"
        else:
            value = self.expr(b.value)
            if b.bare:
                return ind + value
        name = self.names[var]
        if var.annotated and var.sinfo is not None:
            return f"{ind}{name}: {self.p.sinfo(var.sinfo)} = {value}"
        return f"{ind}{name} = {value}"

    def expr(self, e) -> str:
        t = type(e)
        if t is ir.Var:
            name = self.names.get(e)
            return name if name is not None else e.name
        if t is ir.Call:
            return self.call(e)
        if t is ir.Tuple:
            if not e.fields:
                return "R.tuple()"
            if len(e.fields) == 1:
                return f"({self.expr(e.fields[0])},)"
            return "(" + ", ".join(self.expr(x) for x in e.fields) + ")"
        if t is ir.TupleGetItem:
            return f"{self.expr(e.tuple_value)}[{e.index}]"
        if t is ir.ShapeExpr:
            return f"R.shape([{', '.join(self.p.prim(v) for v in e.values)}])"
        if t is ir.PrimValue:
            return f"R.prim_value({self.p.prim(e.value)})"
        if t is ir.StringImm:
            return f"R.str({quote(e.value)})"
        if t is ir.DataTypeImm:
            return f'R.dtype("{e.value}")'
        if t is ir.GlobalVarRef:
            return f"cls.{e.name}"
        if t is ir.ExternFunc:
            return f"R.ExternFunc({quote(e.name)})"
        if t is ir.Constant:
            if e.meta is not None:
                return f"metadata[{quote(e.meta[0])}][{e.meta[1]}]"
            return f'R.const({e.value!r}, "{e.dtype}")'
        if t is ir.Literal:
            return self.literal(e)
        # One-line summaries, for messages: the bindings print these in full (emit_binding).
        if t is ir.If:
            return f"if {self.expr(e.cond)}: ... else: ..."
        if t is ir.Function:
            return f"R.function {e.name}(...)"
        raise TypeError(f"cannot print {e!r}")

    def call(self, c: ir.Call) -> str:
        op = c.op
        args = c.args
        if isinstance(op, ir.Op):
            name = op.name
            if name == "relax.memory.alloc_tensor" and len(args) == 5 and _is_zero(args[4]):
                args = args[:4]
            elif name == "relax.builtin.alloc_tensor" and len(args) == 4 and \
                    isinstance(args[3], ir.StringImm) and args[3].value == "global":
                args = args[:3]
            elif name == "relax.call_builtin_with_ctx":
                parts = [self._callee_str(args[0]), self.expr(args[1])]
                return f"R.call_builtin_with_ctx({', '.join(parts)}{self._sinfo_args(c)})"
            elif name == "relax.call_pure_packed":
                parts = [self._callee_str(args[0])] + [self.expr(a) for a in args[1:]]
                parts += [f"{k}={self._attr(v)}" for k, v in c.attrs]
                return f"R.call_pure_packed({', '.join(parts)}{self._sinfo_args(c)})"
            elif name in ("relax.call_tir", "relax.call_dps_packed"):
                parts = [self._callee_str(args[0]), self.expr(args[1])]
                if c.sinfo_args:
                    parts.append(f"{self.p.out_ty}={self.p.sinfo(c.sinfo_args[0])}")
                if len(args) > 2:
                    parts.append(f"tir_vars={self.expr(args[2])}")
                return f"R.{name[6:]}({', '.join(parts)})"
            parts = [self.expr(a) for a in args]
            parts += [f"{k}={self._attr(v)}" for k, v in c.attrs]
            return f"R.{name[6:]}({', '.join(parts)}{self._sinfo_args(c)})"
        if isinstance(op, ir.ExternFunc):
            parts = [quote(op.name)] + [self.expr(a) for a in args]
            parts += [f"{k}={self._attr(v)}" for k, v in c.attrs]
            return f"R.call_packed({', '.join(parts)}{self._sinfo_args(c)})"
        callee = f"cls.{op.name}" if isinstance(op, ir.GlobalVarRef) else self.expr(op)
        return f"{callee}({', '.join(self.expr(a) for a in args)})"

    def _callee_str(self, e) -> str:
        if isinstance(e, ir.ExternFunc):
            return quote(e.name)
        return self.expr(e)

    def _sinfo_args(self, c: ir.Call) -> str:
        if not c.sinfo_args:
            return ""
        items = ", ".join(self.p.sinfo(s) for s in c.sinfo_args)
        if len(c.sinfo_args) == 1:
            items += ","
        return f", {self.p.ty_args}=({items})"

    def _attr(self, v) -> str:
        return self.literal(v) if isinstance(v, ir.Literal) else self.expr(v)

    def literal(self, lit) -> str:
        return _literal_text(lit.value if isinstance(lit, ir.Literal) else lit)

    def _uses_globals(self, f: ir.Function) -> bool:
        for _, value in _text_order(f.blocks):
            if _has_global(value):
                return True
        return _has_global(f.body)


def _literal_text(v) -> str:
    if isinstance(v, tuple) and len(v) == 2 and v[0] in ("tuple", "list", "dict", "expr"):
        kind, items = v
        if kind == "expr":
            return items
        if kind == "dict":
            return "{" + ", ".join(f"{_literal_text(k)}: {_literal_text(x)}"
                                   for k, x in items) + "}"
        inner = ", ".join(_literal_text(x) for x in items)
        if kind == "list":
            return f"[{inner}]"
        return f"({inner},)" if len(items) == 1 else f"({inner})"
    if isinstance(v, str):
        return quote(v)
    if isinstance(v, float) and not math.isfinite(v):
        return f'float("{v!r}")'
    return repr(v)


def global_infos_text(global_infos) -> str:
    """`I.module_global_infos({...})` as TVM 0.27 prints it, one line in the class."""
    items = [f"{quote(key)}: [{', '.join(vdevice_text(v) for v in entries)}]"
             for key, entries in global_infos]
    return "I.module_global_infos({" + ", ".join(items) + "})"


def vdevice_text(v: ir.VDevice) -> str:
    return f"I.vdevice({_literal_text(v.target)}, {v.vdevice_id}, {quote(v.memory_scope)})"


def _has_metadata(mod: ir.Module) -> bool:
    for f in mod.relax_functions():
        for _, value in _text_order(f.blocks):
            if any(type(x) is ir.Constant and x.meta is not None for x in ir.walk(value)):
                return True
        if any(type(x) is ir.Constant and x.meta is not None for x in ir.walk(f.body)):
            return True
    return False


def _is_zero(e) -> bool:
    return isinstance(e, ir.PrimValue) and isinstance(e.value, ir.IntImm) and \
        e.value.value == 0 and e.value.dtype == "int64"


def _fresh(base: str, taken: set[str]) -> str:
    i = 1
    while f"{base}_{i}" in taken:
        i += 1
    return f"{base}_{i}"


def _uses(e, last_use: dict, pos: int):
    """Record `pos` as the last use of every Var in `e`."""
    t = type(e)
    if t is ir.Var:
        last_use[e] = pos
    elif t is ir.Call:
        if type(e.op) is ir.Var:
            last_use[e.op] = pos
        for a in e.args:
            _uses(a, last_use, pos)
        for _, v in e.attrs:
            _uses(v, last_use, pos)
    elif t is ir.Tuple:
        for a in e.fields:
            _uses(a, last_use, pos)
    elif t is ir.TupleGetItem:
        _uses(e.tuple_value, last_use, pos)


def _text_order(blocks):
    """(var, value) pairs in the order the text shows them: a branch's bindings and its
    result before the var of its `if`; a nested function's body (with var None) before its
    var. Values are the expressions that use vars (calls, tuples; an If's condition)."""
    for block in blocks:
        for b in block.bindings:
            v = b.value
            t = type(v)
            if t is ir.If:
                yield None, v.cond
                for seq in (v.true_branch, v.false_branch):
                    yield from _text_order(seq.blocks)
                    yield None, seq.body
                yield b.var, ir.Tuple(())
            elif t is ir.Function:
                for p in v.params:
                    yield p, ir.Tuple(())
                yield from _text_order(v.blocks)
                yield None, v.body
                yield b.var, ir.Tuple(())
            else:
                yield b.var, v


def _has_global(e) -> bool:
    return any(type(x) is ir.GlobalVarRef for x in ir.walk(e))


def print_module(mod: ir.Module, dialect: str | None = None) -> str:
    """The module as canonical TVMScript; `dialect` defaults to the input's."""
    return Printer(dialect or mod.dialect).module(mod)
