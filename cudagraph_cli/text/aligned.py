"""Two modules as texts for a review (`cgraph check --diff`, the pytest plugin): a unified
diff in which what `cgraph check` finds equal does not show.

Both are printed canonically (text/printer.py, current dialect), EXPECTED as it is and GOT
as EXPECTED would print it wherever the structure matches:
- a function equal to EXPECTED's (up to local names; PrimFuncs by their normalized bodies)
  is printed from EXPECTED's own IR, so it shows no line at all, whatever its names;
- a Relax function that differs takes EXPECTED's names for its variables, each paired with
  one of EXPECTED's: parameters by place, and in each block the bindings that
  difflib's longest matching runs pair by what they compute (the operator or function
  called), a changed binding with the one it replaces. This pairing only names: equality
  is ir/equality.py's, and a wrong pairing shows a wrong name, never hides a change;
- GOT's functions come in EXPECTED's order (order is not compared), its own ones last, and
  the module's class name, header comments and decorator are EXPECTED's.
So a golden equal up to renames gives an empty diff, and a real change shows as itself.
"""

from __future__ import annotations

import difflib

from .. import ir
from .difference import function_difference
from .printer import Printer

CONTEXT = 3  # lines of context around each change, as `diff -u`


def aligned_texts(got: ir.Module, expected: ir.Module,
                  prim_bodies: str = "text") -> tuple[str, str]:
    """(EXPECTED's canonical text, GOT's canonical text with EXPECTED's names and order)."""
    got_by_name = {f.name: f for f in got.functions}
    expected_names = {f.name for f in expected.functions}
    printer = Printer("current")
    functions = []
    for fe in expected.functions:
        fg = got_by_name.get(fe.name)
        if fg is None:
            continue
        if function_difference(got, fg, expected, fe, prim_bodies) is None and \
                (not isinstance(fg, ir.PrimFunc) or got.dialect == expected.dialect):
            # (a PrimFunc body is printed from its module's dialect: one of EXPECTED's in
            # GOT's module would be converted from the wrong one)
            functions.append(fe)
            continue
        if isinstance(fg, ir.Function) and isinstance(fe, ir.Function):
            pair_function(fg, fe, printer.renamed)
        functions.append(fg)
    functions.extend(f for f in got.functions if f.name not in expected_names)
    same_dialect = got.dialect == expected.dialect
    shown = ir.Module(expected.name, functions,
                      decorator_args=(expected if same_dialect else got).decorator_args,
                      globals_text=got.globals_text,
                      leading_comments=expected.leading_comments, dialect=got.dialect,
                      global_infos=got.global_infos)
    return Printer("current").module(expected), printer.module(shown)


def aligned_diff(got: ir.Module, expected: ir.Module, got_name: str, expected_name: str,
                 prim_bodies: str = "text") -> list[str]:
    """The unified diff (lines, without line ends) that turns EXPECTED's canonical text into
    GOT's (`aligned_texts`): what `cgraph check --update` would change, in substance. Empty
    when the texts are equal (modules that differ only in what the text leaves out)."""
    before, after = aligned_texts(got, expected, prim_bodies)
    return list(difflib.unified_diff(before.splitlines(), after.splitlines(),
                                     fromfile=expected_name, tofile=got_name, n=CONTEXT,
                                     lineterm=""))


# ---- naming GOT's variables after EXPECTED's ------------------------------------------------

def pair_function(got: ir.Function, expected: ir.Function, names: dict) -> None:
    """Add to `names` (GOT's var -> EXPECTED's name) the pairs of two Relax functions."""
    for vg, ve in zip(got.params, expected.params):
        names[vg] = ve.name
    pair_blocks(got.blocks, expected.blocks, names)


def pair_blocks(got_blocks, expected_blocks, names: dict) -> None:
    for bg, be in zip(got_blocks, expected_blocks):
        got_bindings, expected_bindings = bg.bindings, be.bindings
        matcher = difflib.SequenceMatcher(None, [what(b) for b in got_bindings],
                                          [what(b) for b in expected_bindings],
                                          autojunk=False)
        for tag, g0, g1, e0, e1 in matcher.get_opcodes():
            if tag == "equal" or (tag == "replace" and g1 - g0 == e1 - e0):
                for b, c in zip(got_bindings[g0:g1], expected_bindings[e0:e1]):
                    pair_binding(b, c, names)


def pair_binding(got, expected, names: dict) -> None:
    names[got.var] = expected.var.name
    vg, ve = got.value, expected.value
    if type(vg) is ir.If and type(ve) is ir.If:
        for sg, se in ((vg.true_branch, ve.true_branch), (vg.false_branch, ve.false_branch)):
            pair_blocks(sg.blocks, se.blocks, names)
    elif type(vg) is ir.Function and type(ve) is ir.Function:
        pair_function(vg, ve, names)


def what(binding) -> tuple:
    """What a binding computes, roughly and without names: its kind and the operator,
    global function or packed function it calls."""
    value = binding.value
    callee = None
    if type(value) is ir.Call:
        op = value.op
        callee = op.name if type(op) in (ir.Op, ir.ExternFunc, ir.GlobalVarRef) else None
        if callee is not None and value.args and type(value.args[0]) in (
                ir.StringImm, ir.GlobalVarRef, ir.ExternFunc):
            # call_packed("name", ...), call_tir(cls.f, ...): the callee is the first argument
            first = value.args[0]
            callee = (callee, first.value if type(first) is ir.StringImm else first.name)
    return (type(binding), type(value), callee, binding.bare)
