"""Two modules as texts for a review (`cgraph check --diff`, the pytest plugin): a unified
diff in which what `cgraph check` finds equal does not show.

Both are printed canonically (text/printer.py, current dialect), EXPECTED as it is and GOT
as EXPECTED would print it wherever the structure matches:
- a function equal to EXPECTED's (up to local names; PrimFuncs by their normalized bodies)
  is printed from EXPECTED's own IR, so it shows no line at all, whatever its names;
- a function that differs is printed as GOT has it, its own names included: each side keeps
  its own names, so that a line of the diff can be found in its file (naming GOT's
  variables after EXPECTED's, by place, gave a renumbered function the names of another:
  issue 52);
- GOT's functions come in EXPECTED's order (order is not compared), its own ones last, and
  the module's class name, header comments and decorator are EXPECTED's.
So a golden equal up to renames gives an empty diff, and a change shows as GOT has it.
"""

from __future__ import annotations

import difflib

from .. import ir
from .difference import function_difference
from .printer import Printer

CONTEXT = 3  # lines of context around each change, as `diff -u`


def aligned_texts(got: ir.Module, expected: ir.Module,
                  prim_bodies: str = "text") -> tuple[str, str]:
    """(EXPECTED's canonical text, GOT's canonical text in EXPECTED's order: its functions
    equal to EXPECTED's as EXPECTED's, the others as its own)."""
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
