"""Located diagnostics: `FILE:LINE:COL: error: message`, the source line and a caret.

Every error that bad input can cause is a `SourceError`; the CLI prints it and exits 2.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Loc:
    """A position in a source file: 1-based line and column."""

    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.line}:{self.col}"


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

    def located(self, filename: str, source: str | None) -> "SourceError":
        """The same error, attached to a file (kept if already attached)."""
        if self.filename is None:
            self.filename = filename
            self.source = source
        return self

    def render(self) -> str:
        """One line `FILE:LINE:COL: error: msg`, then the source line and a caret."""
        name = self.filename or "<input>"
        first_line = self.message.splitlines()[0] if self.message else "error"
        if self.loc.line <= 0:
            return f"{name}: error: {first_line}"
        head = f"{name}:{self.loc.line}:{self.loc.col}: error: {first_line}"
        if self.source is None:
            return head
        lines = self.source.split("\n")
        if self.loc.line > len(lines):
            return head
        text = lines[self.loc.line - 1].rstrip("\r").expandtabs(1)
        caret = " " * max(self.loc.col - 1, 0) + "^"
        return f"{head}\n{text}\n{caret}"


def error(message: str, loc: Loc = NO_LOC) -> SourceError:
    return SourceError(message, loc)
