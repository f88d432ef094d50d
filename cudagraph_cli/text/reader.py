"""TVMScript text -> IR: the grammar driver (parser.py) then the builder (builder/).

Here, above both, so that the builder can read a shape written as a string ("m * 2") with the
grammar driver without the driver needing the builder: no import cycle between them.
"""

from __future__ import annotations

import gc

from ..diagnostics import Loc, SourceError
from .builder import ModuleBuilder
from .lexer import normalize_source
from .parser import parse_syntax

# From this size on, what reading built is frozen (see parse_module): a real model's dump is
# hundreds of KB; the samples and the test cases are a few KB, and stay out of it.
FREEZE_FROM_BYTES = 256 * 1024

_IMPORT_HEADER = ("# from tvm.script import", "# from typing import", "# from tvm.tirx.layout")


def _leading_comments(text: str) -> list[str]:
    """Comment lines at the top of the file, except the import header cgraph regenerates."""
    out = []
    for line in text.split("\n"):
        s = line.strip()
        if not s:
            if out:
                out.append("")
            continue
        if not s.startswith("#"):
            break
        if not s.startswith(_IMPORT_HEADER):
            out.append(s)
    while out and not out[-1]:
        out.pop()
    return out


def parse_module(text: str, filename: str = "<input>"):
    """Read TVMScript text into an `ir.Module`; raise a located SourceError on bad input."""

    # The syntax tree and the IR are hundreds of thousands of small objects with no cycles
    # worth collecting; the cyclic GC rescanning them while they are built costs about a
    # third of the parse time, so it is paused until the module is built.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    text = normalize_source(text)
    try:
        if not text.strip():
            raise SourceError("empty input: no module found", Loc(1, 1))
        if "\x00" in text:
            i = text.index("\x00")
            line = text.count("\n", 0, i) + 1
            col = i - (text.rfind("\n", 0, i) + 1) + 1
            raise SourceError("binary data (NUL byte) in input", Loc(line, col))
        stmts = parse_syntax(text, strip_bom=False)
        module = ModuleBuilder().build(stmts, _leading_comments(text))
        del stmts
        if gc_was_enabled and len(text) >= FREEZE_FROM_BYTES:
            # The module lives as long as the command, and has no cycles to collect: left
            # tracked, its objects are rescanned by every full collection after this one (the
            # passes, the printer). Frozen, they are
            # still freed by reference counting; only cyclic garbage that already exists now
            # would stay, hence not for the small modules that tests read by the thousand.
            gc.freeze()
        return module
    except SourceError as e:
        raise e.located(filename, text)
    except RecursionError:
        raise SourceError("input nested too deeply").located(filename, text) from None
    finally:
        if gc_was_enabled:
            gc.enable()
