"""Two modules compared as `tvm.ir.assert_structural_equal` compares them, the first difference
located in both and put in words.

Above ir/equality.py, which matches Relax functions but knows no text: here the printer names
what differs, and PrimFuncs, which cgraph keeps as text, compare by signature and by the
normalized text of their bodies (comments, blank lines and `T.reads`/`T.writes` lines ignored,
either dialect read as the current one), or by signature alone with `prim_bodies="ignore"`,
each as the printer writes it (a variable clashing with a module TypeVar renamed:
tir_names.py).
"""

from __future__ import annotations

import re
from collections import namedtuple

from .. import ir
from ..ir.equality import Matcher, Mismatch, Wording
from .printer import FunctionPrinter, Printer, convert_tir, global_infos_text, vdevice_text
from .tir_names import module_type_vars, without_shadowing


class Difference(namedtuple("Difference", "message loc_a loc_b function", defaults=(None,))):
    """The first difference: what differs, where in each module (Locs), and in which function
    (None: at module level)."""

    __slots__ = ()


class PrinterWording(Wording):
    """The `ir.equality.Wording` of messages: expressions as the printer writes them, in the
    current dialect, calls to module functions through the module's class name."""

    def __init__(self, sides: tuple = Wording.sides):
        self.sides = sides
        self.printer = Printer("current")
        self.function_printers: dict[str, FunctionPrinter] = {}

    def _function_printer(self, mod: ir.Module) -> FunctionPrinter:
        p = self.function_printers.get(mod.name)
        if p is None:
            p = self.function_printers[mod.name] = FunctionPrinter(self.printer, mod.name)
        return p

    def expr(self, e, mod: ir.Module) -> str:
        return self._function_printer(mod).expr(e)

    def literal(self, v, mod: ir.Module) -> str:
        return self._function_printer(mod).literal(v)

    def sinfo(self, s) -> str:
        return self.printer.sinfo(s)


SIDES = ("the first module", "the second module")


def module_difference(a: ir.Module, b: ir.Module, prim_bodies: str = "text",
                      sides: tuple = SIDES) -> Difference | None:
    """The first structural difference between modules `a` and `b`, or None if equal. `sides`:
    what the words call them, as the user named them (`got` and `the golden x.relax`; two
    paths)."""
    names_b = {f.name: f for f in b.functions}
    names_a = {f.name: f for f in a.functions}
    for f in a.functions:
        if f.name not in names_b:
            return Difference(f"function '{f.name}' is only in {sides[0]}, not in {sides[1]}",
                              f.loc, b.loc, f.name)
    for f in b.functions:
        if f.name not in names_a:
            return Difference(f"function '{f.name}' is only in {sides[1]}, not in {sides[0]}",
                              a.loc, f.loc, f.name)
    if a.global_infos != b.global_infos:
        # TVM compares a module's global infos; within one module a vdevice name is one entry
        # of them, so with equal global infos equal names are equal VDevices.
        return Difference(f"module global infos differ: {_global_infos_difference(a, b)}",
                          a.global_infos_loc if a.global_infos_loc.line else a.loc,
                          b.global_infos_loc if b.global_infos_loc.line else b.loc)
    for fa in a.functions:
        d = function_difference(a, fa, b, names_b[fa.name], prim_bodies, sides)
        if d is not None:
            return d
    return None


def function_difference(a: ir.Module, fa, b: ir.Module, fb, prim_bodies: str = "text",
                        sides: tuple = SIDES) -> Difference | None:
    """The first difference between function `fa` of module `a` and `fb` of `b` (either may
    be a PrimFunc), or None."""
    try:
        if isinstance(fa, ir.PrimFunc) != isinstance(fb, ir.PrimFunc):
            raise Mismatch("one is a PrimFunc, the other a Relax function", fa.loc, fb.loc)
        if isinstance(fa, ir.PrimFunc):
            # as printed: a variable renamed away from a module TypeVar is the same one
            _prim_funcs(without_shadowing(fa, module_type_vars(a.globals_text)), a.dialect,
                        without_shadowing(fb, module_type_vars(b.globals_text)), b.dialect,
                        prim_bodies)
        else:
            Matcher(a, b, PrinterWording(sides)).function(fa, fb)
    except Mismatch as d:
        return Difference(f"function '{fa.name}': {d.message}",
                          d.loc_a if d.loc_a.line else fa.loc,
                          d.loc_b if d.loc_b.line else fb.loc, fa.name)
    return None


def _global_infos_difference(a: ir.Module, b: ir.Module) -> str:
    """The first entry that differs, as printed, or the two wholes when the keys differ."""
    if [k for k, _ in a.global_infos] == [k for k, _ in b.global_infos]:
        for (key, xs), (_, ys) in zip(a.global_infos, b.global_infos):
            if len(xs) != len(ys):
                return f"{key!r} has {len(xs)} entries vs {len(ys)}"
            for i, (x, y) in enumerate(zip(xs, ys)):
                if x != y:
                    return f"{key!r} entry {i}: {vdevice_text(x)} vs {vdevice_text(y)}"
    return " vs ".join(global_infos_text(m.global_infos) if m.global_infos else "none"
                       for m in (a, b))


# ---- PrimFuncs ----------------------------------------------------------------------------

_IGNORED_TIR_LINE = re.compile(r"^\s*(?:#.*|T\.reads\(.*\)|T\.writes\(.*\))?\s*$")


def _normalized_body(body: str, dialect: str) -> list[str]:
    body = convert_tir(body, dialect, "current")
    return [" ".join(line.split()) for line in body.split("\n")
            if not _IGNORED_TIR_LINE.match(line)]


def _prim_funcs(a: ir.PrimFunc, da: str, b: ir.PrimFunc, db: str, prim_bodies: str):
    if len(a.params) != len(b.params):
        raise Mismatch(f"PrimFunc has {len(a.params)} parameters vs {len(b.params)}", a.loc,
                       b.loc)
    for pa, pb in zip(a.params, b.params):
        if (pa.kind, pa.shape, pa.dtype) != (pb.kind, pb.shape, pb.dtype) or \
                (pa.kind == "other" and pa.annotation != pb.annotation):
            raise Mismatch(f"PrimFunc parameter '{pa.name}': {pa.annotation} vs "
                           f"{pb.annotation}", a.loc, b.loc)
    if prim_bodies == "ignore":
        return
    la, lb = _normalized_body(a.body, da), _normalized_body(b.body, db)
    for x, y in zip(la, lb):
        if x != y:
            raise Mismatch(f"PrimFunc body differs: `{x}` vs `{y}`", a.loc, b.loc)
    if len(la) != len(lb):
        raise Mismatch("PrimFunc body differs in length", a.loc, b.loc)
