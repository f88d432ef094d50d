"""Located diagnostics: `FILE:LINE:COL: error: message`, the source line and a caret.

Every error that bad input can cause is a `SourceError`; the CLI prints it and exits 2.
"""

from __future__ import annotations

import re
import unicodedata
from operator import itemgetter

# How to get apache-tvm, in every message that needs it (the TVM pass, `cgraph kernels`): the
# version pyproject.toml's `tvm` extra pins, or that extra from cgraph's checkout. cgraph is
# not on a package index: its own name with the extra finds nothing there
# (tests/test_install_commands.py holds every install command to pyproject.toml).
INSTALL_TVM = ("pip install apache-tvm==0.27.0.post1, or pip install '.[tvm]' in cgraph's "
               "checkout")


class Loc(tuple):
    """A position in a source file: 1-based line and column. Immutable and compared by value
    as a frozen dataclass would be, but made by `tuple.__new__`: every syntax node and IR node
    has one, and a frozen dataclass's `__init__` costs several times as much
    (docs/BENCHMARKS.md)."""

    __slots__ = ()

    def __new__(cls, line: int, col: int):
        return tuple.__new__(cls, (line, col))

    line = property(itemgetter(0))
    col = property(itemgetter(1))

    def __getnewargs__(self):
        return tuple(self)

    def __repr__(self) -> str:
        return f"Loc(line={self[0]!r}, col={self[1]!r})"

    def __str__(self) -> str:
        return f"{self[0]}:{self[1]}"


NO_LOC = Loc(0, 0)


class SourceError(Exception):
    """An error in an input file, located at `loc` (line 0 means the file as a whole)."""

    def __init__(self, message: str, loc: Loc = NO_LOC, filename: str | None = None,
                 source: str | None = None):
        super().__init__(message)
        self.message = message
        self.loc = loc
        self.filename = filename
        self.source = source

    def __str__(self) -> str:
        """`FILE:LINE:COL: message` (`FILE: message` for the file as a whole) once it is
        attached to a file, else the message alone (`.message` is always that): a missing
        file's error names the file (issue 52: `str()` said "no such file" alone)."""
        if self.filename is None:
            return self.message
        where = f"{self.filename}:{self.loc.line}:{self.loc.col}" if self.loc.line > 0 \
            else self.filename
        return f"{where}: {self.message}"

    def located(self, filename: str, source: str | None) -> "SourceError":
        """The same error, attached to a file (kept if already attached)."""
        if self.filename is None:
            self.filename = filename
            self.source = source
        return self

    def render(self) -> str:
        """One line `FILE:LINE:COL: error: msg`, then the source line and a caret."""
        first_line = one_line(self.message.split("\n")[0] if self.message else "error")
        return located_message(one_line(self.filename or "<input>"), self.source, self.loc,
                               "error", first_line)


def located_message(name: str, source: str | None, loc: Loc, kind: str, message: str) -> str:
    """`FILE:LINE:COL: KIND: message`, then the source line and a caret; `FILE: KIND: message`
    for the file as a whole (line 0). What errors, warnings and notes all look like."""
    if loc.line <= 0:
        return f"{name}: {kind}: {message}"
    head = f"{name}:{loc.line}:{loc.col}: {kind}: {message}"
    shown = excerpt(source, loc)
    return head if shown is None else f"{head}\n{shown}"


# Python's (and so TVMScript's) line breaks: a lone CR ends a line too.
LINE_BREAK_RE = re.compile(r"\r\n|\r|\n")

# Columns of source shown around the caret; a minified or binary line is clipped to this.
EXCERPT_WIDTH = 200

ESCAPES = {"\r": "\\r", "\n": "\\n"}

# The longest message line shown: a message quoting a 1 MB token stays readable.
MESSAGE_WIDTH = 400


def shown_char(ch: str) -> str:
    """How one source character appears in an excerpt: never as a terminal control."""
    if ch == "\t":
        return " "  # a tab counts as one column, as the lexer counts it
    if ch in ESCAPES:
        return ESCAPES[ch]
    if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"):
        code = ord(ch)
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 \
            else f"\\U{code:08x}"
    return ch


def one_line(text: str) -> str:
    """`text` with its control characters escaped, clipped to MESSAGE_WIDTH."""
    clipped = text[:MESSAGE_WIDTH + 1]
    shown = "".join("\t" if ch == "\t" else shown_char(ch) for ch in clipped)
    if len(text) > MESSAGE_WIDTH:
        shown = shown[:MESSAGE_WIDTH] + "..."
    return shown


def excerpt(source: str | None, loc: Loc) -> str | None:
    """The source line at `loc` and a caret under its column, or None when there is none.

    Control characters are escaped and a long line is clipped to about EXCERPT_WIDTH columns
    around the caret, with `...` where it was cut, so a message stays one screen of text.
    """
    if source is None or loc.line <= 0:
        return None
    lines = LINE_BREAK_RE.split(source, maxsplit=loc.line)
    if loc.line > len(lines):
        return None
    line = lines[loc.line - 1]
    caret_at = min(max(loc.col - 1, 0), len(line))
    # Only the characters that can be shown are looked at: a 1 MB line costs 2 * WIDTH.
    half = EXCERPT_WIDTH // 2
    left = [shown_char(ch) for ch in reversed(line[max(0, caret_at - EXCERPT_WIDTH):caret_at])]
    right = [shown_char(ch) for ch in line[caret_at:caret_at + EXCERPT_WIDTH]]
    width_left = sum(len(p) for p in left)
    width_right = sum(len(p) for p in right)
    budget_left = max(half, EXCERPT_WIDTH - width_right)
    budget_right = max(half, EXCERPT_WIDTH - width_left)
    kept_left = pieces_within(left, budget_left)
    kept_right = pieces_within(right, budget_right)
    cut_left = len(kept_left) < caret_at
    cut_right = caret_at + len(kept_right) < len(line)
    before = ("..." if cut_left else "") + "".join(reversed(kept_left))
    after = "".join(kept_right) + ("..." if cut_right else "")
    return f"{before}{after}\n{' ' * len(before)}^"


def pieces_within(pieces: list[str], budget: int) -> list[str]:
    """The leading pieces whose total width stays within `budget` columns."""
    kept, used = [], 0
    for piece in pieces:
        if used + len(piece) > budget:
            break
        kept.append(piece)
        used += len(piece)
    return kept


def out_of_memory(e: MemoryError) -> str:
    """The message of a MemoryError: the machine (or its limit, `ulimit -v`) cannot hold
    the run -- an input-level error, not a bug. NumPy's (`numpy._core._exceptions.
    _ArrayMemoryError`) says what it asked for in `.shape` and `.dtype`; read here without
    importing NumPy."""
    shape, dtype = getattr(e, "shape", None), getattr(e, "dtype", None)
    itemsize = getattr(dtype, "itemsize", None)
    if isinstance(shape, tuple) and isinstance(itemsize, int):
        nbytes = itemsize
        for n in shape:
            nbytes *= int(n)
        what = f"could not allocate {memory_size(nbytes)} more (an array {shape} {dtype})"
    else:
        what = f"could not allocate more ({e})" if str(e) else "could not allocate more"
    return f"out of memory: {what}; the run needs more memory than this machine, or its " \
           "limit, gives"


def memory_size(nbytes: int) -> str:
    """224 MiB, 1.5 GiB, 64 TiB, 900 bytes: the size a person reads."""
    for shift, unit in ((40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")):
        if nbytes >= 1 << shift:
            value = nbytes / (1 << shift)
            return f"{value:.0f} {unit}" if value >= 100 else f"{value:.3g} {unit}"
    return f"{nbytes} bytes"
