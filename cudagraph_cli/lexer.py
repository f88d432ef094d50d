"""Tokenizer for TVMScript text: one compiled regex, Python-style indentation.

Lark's stock lexer tries one regex per terminal; this one runs a single alternation in C and
hands Lark ready tokens. It also produces the layout tokens Lark cannot infer on its own:
`_NEWLINE` at the end of each logical line (newlines inside brackets are spaces), `_INDENT` /
`_DEDENT` when the indentation changes, and `PRIMBODY`: the body of a `@T.prim_func` taken
whole, as text. cgraph never looks inside TIR, so it never tokenizes it.
"""

from __future__ import annotations

import re
from typing import Iterator

from lark.lexer import Lexer

from .diagnostics import Loc, SourceError

_TOKEN_RE = re.compile(
    r"""
    (?P<ws>[ \t\f]+|\\\r?\n)
    |(?P<nl>(?:\r?\n[ \t\f]*(?:\#[^\n]*)?)+)
    |(?P<comment>\#[^\n]*)
    |(?P<name>[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)
    |(?P<number>0[xX][0-9a-fA-F]+|(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?)
    |(?P<string>(?:"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'))
    |(?P<op>\*\*|//|->|==|!=|<=|>=|[-+*/%@()\[\]{},:.=<>])
    |(?P<err>.)
    """,
    re.VERBOSE | re.DOTALL,
)

_PRIM_DECORATOR_RE = re.compile(r"[ \t]*(?:T|tir|tirx|tvm\.script\.tir|tvm\.script\.tirx)"
                                r"[ \t]*\.[ \t]*prim_func\b")
# What a line of TIR looks like to the body scanner: strings and comments removed, brackets kept.
_STRIP_RE = re.compile(r"""\#[^\n]*|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'""")

class Token:
    """A token as Lark's LALR parser needs it (type, value, position), without the cost of
    `lark.Token` (a str subclass with eight fields), which dominated lexing time."""

    __slots__ = ("type", "value", "line", "column", "start_pos")
    end_line = end_column = end_pos = None

    def __init__(self, type: str, value: str, start_pos: int, line: int, column: int):
        self.type, self.value, self.start_pos = type, value, start_pos
        self.line, self.column = line, column

    def __repr__(self) -> str:
        return f"Token({self.type!r}, {self.value!r}, {self.line}:{self.column})"


KEYWORDS = frozenset({"def", "class", "return", "with", "as", "pass", "import", "from",
                      "True", "False", "None", "and", "or", "not", "in", "is", "if", "else",
                      "elif", "for", "while", "lambda", "yield", "del", "global", "assert"})
# Python's own parser stops at 200 nested brackets; real modules never come close, and every
# later stage (builder, printer, equality) recurses over the nesting.
MAX_NESTING = 100
_OPEN = {"(": ")", "[": "]", "{": "}"}
_CLOSE = {")": "(", "]": "[", "}": "{"}


class RelaxLexer(Lexer):
    """Lark custom lexer (`Lark(..., lexer=RelaxLexer)`)."""

    def __init__(self, lexer_conf):
        # Lark names the grammar's anonymous literals ("def", "(") itself: map text -> name.
        self.literal_types: dict[str, str] = {}
        for term in lexer_conf.terminals:
            if term.pattern.type == "str":
                self.literal_types[str(term.pattern.value)] = str(term.name)

    def lex(self, text: str) -> Iterator[Token]:
        return tokenize(text, self.literal_types)


def _line_col(text: str, pos: int) -> Loc:
    line = text.count("\n", 0, pos) + 1
    return Loc(line, pos - (text.rfind("\n", 0, pos) + 1) + 1)


def _prim_body_end(text: str, start: int, def_indent: int) -> int:
    """End of a PrimFunc body that starts at `start` (a line start): the first line outside
    brackets that is neither blank nor a comment and is indented no deeper than the `def`."""
    depth = 0
    pos = start
    n = len(text)
    last_code_end = start
    while pos < n:
        eol = text.find("\n", pos)
        if eol < 0:
            eol = n
        line = text[pos:eol]
        stripped = line.lstrip(" \t\f")
        if stripped and not stripped.startswith("#"):
            indent = len(line) - len(stripped)
            if depth == 0 and indent <= def_indent:
                break
            code = _STRIP_RE.sub("", stripped)
            for ch in code:
                if ch in _OPEN:
                    depth += 1
                elif ch in _CLOSE and depth > 0:
                    depth -= 1
            last_code_end = eol
        pos = eol + 1
    # Trailing blank and comment lines belong to what follows, not to the body.
    return min(last_code_end + 1, n) if last_code_end > start else start


def tokenize(text: str, literal_types: dict[str, str]) -> Iterator[Token]:
    """Yield Lark tokens for `text`; raise SourceError on characters or layout Python rejects."""
    indents = [0]
    brackets: list[tuple[str, int]] = []
    line = 1
    line_start = 0
    at_line_start = True  # no token yet on this logical line
    prim_pending = False  # saw `@T.prim_func`; its `def` line comes
    prim_def_indent = -1  # >= 0: inside a prim_func `def` header; capture its body at the NEWLINE
    lit = literal_types
    n = len(text)

    def indentation(pos: int) -> Iterator[Token]:
        """Layout tokens for a code line that starts (after its indentation) at `pos`."""
        indent = pos - line_start
        if indent > indents[-1]:
            indents.append(indent)
            yield Token("_INDENT", "", pos, line, indent + 1)
        elif indent < indents[-1]:
            while indent < indents[-1]:
                indents.pop()
                yield Token("_DEDENT", "", pos, line, indent + 1)
            if indent != indents[-1]:
                raise SourceError("unindent does not match any outer indentation level",
                                  Loc(line, indent + 1))

    it = _TOKEN_RE.finditer(text)
    while True:
        m = next(it, None)
        if m is None:
            break
        kind = m.lastgroup
        start = m.start()
        if kind == "ws":
            if m.group()[0] == "\\":
                line += 1
                line_start = m.end()
            continue
        if kind == "nl":
            value = m.group()
            newline_line = line
            newline_col = start - line_start + 1
            line += value.count("\n")
            line_start = start + value.rfind("\n") + 1
            if brackets:
                continue
            if not at_line_start:
                yield Token("_NEWLINE", "\n", start, newline_line, newline_col)
            at_line_start = True
            if prim_def_indent >= 0:
                # The header's newline: take the body whole, then lex on after it.
                body_start = start + value.find("\n") + 1
                body_line = newline_line + 1
                body_end = _prim_body_end(text, body_start, prim_def_indent)
                if body_end <= body_start:
                    raise SourceError("expected an indented PrimFunc body", Loc(body_line, 1))
                yield Token("PRIMBODY", text[body_start:body_end], body_start, body_line, 1)
                prim_def_indent = -1
                skip = _BLANK_LINES_RE.match(text, body_end)
                code = skip.end()
                line = text.count("\n", 0, code) + 1
                line_start = code
                while code < n and text[code] in " \t\f":
                    code += 1
                if code >= n:
                    break
                yield from indentation(code)
                it = _TOKEN_RE.finditer(text, code)
                continue
            if m.end() >= n:
                break
            yield from indentation(m.end())
            continue
        if kind == "comment":
            continue
        col = start - line_start + 1
        if at_line_start:
            at_line_start = False
            if col != 1 and line_start == 0 and not brackets and indents == [0]:
                raise SourceError("unexpected indent", Loc(line, col))
        value = m.group()
        if kind == "name":
            # Dotted names (`R.memory.alloc_storage`) are one token: far fewer tokens and
            # reductions than NAME "." NAME "." NAME, for the commonest thing in the text.
            if value in KEYWORDS:
                t = lit.get(value)
                if t is None:
                    raise SourceError(f"'{value}' is not supported in Relax text", Loc(line, col))
                if value == "def" and prim_pending:
                    prim_pending = False
                    prim_def_indent = indents[-1]
                yield Token(t, value, start, line, col)
            else:
                yield Token("NAME", value, start, line, col)
        elif kind == "op":
            if value in _OPEN:
                brackets.append((value, start))
                if len(brackets) > MAX_NESTING:
                    raise SourceError(f"brackets nested more than {MAX_NESTING} deep",
                                      Loc(line, col))
            elif value in _CLOSE:
                if not brackets or brackets[-1][0] != _CLOSE[value]:
                    raise SourceError(f"unmatched '{value}'", Loc(line, col))
                brackets.pop()
            elif value == "@" and not brackets and _PRIM_DECORATOR_RE.match(text, m.end()):
                prim_pending = True
            t = lit.get(value)
            if t is None:
                raise SourceError(f"unexpected '{value}'", Loc(line, col))
            yield Token(t, value, start, line, col)
        elif kind == "number":
            yield Token("NUMBER", value, start, line, col)
        elif kind == "string":
            yield Token("STRING", value, start, line, col)
        else:
            if value in "\"'":
                raise SourceError("unterminated string", Loc(line, col))
            shown = value if value.isprintable() else repr(value)[1:-1]
            raise SourceError(f"unexpected character '{shown}'", Loc(line, col))
    if brackets:
        ch, p = brackets[-1]
        raise SourceError(f"'{ch}' was never closed", _line_col(text, p))
    if prim_def_indent >= 0:
        raise SourceError("PrimFunc has no body", Loc(line, 1))
    if not at_line_start:
        yield Token("_NEWLINE", "\n", n, line, n - line_start + 1)
    while len(indents) > 1:
        indents.pop()
        yield Token("_DEDENT", "", n, line, 1)


_BLANK_LINES_RE = re.compile(r"(?:[ \t\f]*(?:\#[^\n]*)?\r?\n)*")
