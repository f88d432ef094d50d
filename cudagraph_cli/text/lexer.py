"""Tokenizer for TVMScript text: one compiled regex, Python-style indentation.

Lark's stock lexer tries one regex per terminal; this one runs a single alternation in C and
hands the parser (parser.py) ready tokens. It also produces the layout tokens of the grammar:
`_NEWLINE` at the end of each logical line (newlines inside brackets are spaces), `_INDENT` /
`_DEDENT` when the indentation changes, and `PRIMBODY`: the body of a `@T.prim_func` taken
whole, as text. cgraph never looks inside TIR, so it never tokenizes it; but TVMScript is
Python, so each PrimFunc is checked with Python's own parser (as TVM's reader does first).

What counts as a line, whitespace, a name, a number or a string is Python's: TVM 0.27's reader
is `ast.parse` followed by evaluation, so anything Python's tokenizer refuses TVM refuses.
"""

from __future__ import annotations

import ast
import functools
import re
import sys
import unicodedata
import warnings
from operator import itemgetter
from collections.abc import Iterator

from ..diagnostics import Loc, SourceError

# PEP 515 underscores, 0x/0o/0b, floats; a `j` suffix is matched so it can be refused by name.
_DIGITS = r"\d(?:_?\d)*"
_EXPONENT = rf"[eE][+-]?{_DIGITS}"
_NUMBER = (rf"(?:0[xX](?:_?[0-9a-fA-F])+|0[oO](?:_?[0-7])+|0[bB](?:_?[01])+"
           rf"|(?:{_DIGITS})?\.{_DIGITS}(?:{_EXPONENT})?"
           rf"|{_DIGITS}(?:\.(?:{_EXPONENT})?|{_EXPONENT})?)[jJ]?")
# As in CPython's tokenizer, every non-ASCII character may belong to a name; the whole name is
# then checked (and NFKC-normalized) as Python does, in `_identifier`. The classes are written
# as the ASCII characters they leave out: `[A-Za-z_\x80-\U0010FFFF]` is the same set, but
# compiling it is slow, at every start (tests/test_parse_tables.py checks they agree).
NAME_START = r"[^\x00-\x40\x5b-\x5e\x60\x7b-\x7f]"  # A-Z a-z _ and non-ASCII
NAME_CHAR = r"[^\x00-\x2f\x3a-\x40\x5b-\x5e\x60\x7b-\x7f]"  # and 0-9
_NAME = f"{NAME_START}{NAME_CHAR}*"
_STRING_PREFIX = "(?:[rRuU]|[fF][rR]?|[rR][fF]|[bB][rR]?|[rR][bB])?"
_STRING_BODY = ('"""(?:[^"\\\\]|\\\\.|"(?!""))*"""'
                "|'''(?:[^'\\\\]|\\\\.|'(?!''))*'''"
                '|"(?:[^"\\\\\\n]|\\\\.)*"'
                "|'(?:[^'\\\\\\n]|\\\\.)*'")

# A prefixed string (`r"..."`) is found by its prefix alone (`prefix`) and then read whole by
# `_PREFIXED_STRING_RE`: matching whole prefixed strings before names would slow every name.
# The blanks after a name, number, string or operator are part of its match (`_BLANKS`, the
# token itself is its group): one match per token instead of two where a blank follows, as
# after every `,` and around every `=` (a loop turn fewer for most tokens). Brackets
# have groups of their own, so that the commonest tokens are told apart by the regex, in C.
_BLANKS = "[ \\t\\f]*"
_TOKEN_RE = re.compile(
    f"(?P<open>[(\\[{{]){_BLANKS}"
    f"|(?P<close>[)\\]}}]){_BLANKS}"
    "|(?P<prefix>(?:[rRuUfFbB]|[fFbB][rR]|[rR][fFbB])(?=[\"']))"
    f"|(?P<name>{_NAME}(?:\\.{_NAME})*){_BLANKS}"
    f"|(?P<string>{_STRING_BODY}){_BLANKS}"
    f"|(?P<number>{_NUMBER}){_BLANKS}"
    f"|(?P<op>\\*\\*|//|->|==|!=|<=|>=|[-+*/%@,:.=<>;]){_BLANKS}"
    "|(?P<nl>(?:\\n[ \\t\\f]*(?:#[^\\n]*)?)+)"
    "|(?P<ws>[ \\t\\f]+|\\\\\\n)"
    "|(?P<comment>#[^\\n]*)"
    "|(?P<err>.)",
    re.DOTALL,
)
_NAME_CHAR_RE = re.compile(NAME_CHAR)
_PREFIXED_STRING_RE = re.compile(f"{_STRING_PREFIX}(?:{_STRING_BODY})", re.DOTALL)

_PRIM_DECORATOR_RE = re.compile(r"[ \t]*(?:T|tir|tirx|tvm\.script\.tir|tvm\.script\.tirx)"
                                r"[ \t]*\.[ \t]*prim_func\b")
# What a line of TIR looks like to the body scanner: strings and comments removed, brackets kept.
_STRIP_RE = re.compile(r"""\#[^\n]*|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'""")
_ON_LINE_RE = re.compile(r"\bon line (\d+)")


def normalize_source(text: str, strip_bom: bool = True) -> str:
    """The text as Python's tokenizer sees it: no byte-order mark, every line break (`\\r\\n`,
    a lone `\\r`, `\\n`) a `\\n`; so line numbers are counted as Python (and TVM) count them.
    Only one byte-order mark is the file's: normalize once (`strip_bom=False` after that), so
    that a second is read as the character it is, which Python refuses."""
    if strip_bom and text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


class Token(tuple):
    """A token as the LALR driver needs it: (type, value, start_pos, line, column), read by
    name. A tuple made by `tuple.__new__` costs less than a slotted object's `__init__`, and a
    model has a token or more per character of its function bodies; `lark.Token` (a str
    subclass with eight fields) cost more."""

    __slots__ = ()

    def __new__(cls, type: str, value: str, start_pos: int, line: int, column: int):
        return tuple.__new__(cls, (type, value, start_pos, line, column))

    type = property(itemgetter(0))
    value = property(itemgetter(1))
    start_pos = property(itemgetter(2))
    line = property(itemgetter(3))
    column = property(itemgetter(4))

    def __repr__(self) -> str:
        return f"Token({self.type!r}, {self.value!r}, {self.line}:{self.column})"


# Where a token is made per match: the tuple constructor itself, without `Token.__new__`.
_make = tuple.__new__


KEYWORDS = frozenset({"def", "class", "return", "with", "as", "pass", "import", "from",
                      "True", "False", "None", "and", "or", "not", "in", "is", "if", "else",
                      "elif", "for", "while", "lambda", "yield", "del", "global", "assert"})
# Python's own parser stops at 200 nested brackets; real modules never come close, and every
# later stage (builder, printer, equality) recurses over the nesting.
MAX_NESTING = 100
_OPEN = {"(": ")", "[": "]", "{": "}"}
_CLOSE = {")": "(", "]": "[", "}": "{"}


def _line_col(text: str, pos: int) -> Loc:
    line = text.count("\n", 0, pos) + 1
    return Loc(line, pos - (text.rfind("\n", 0, pos) + 1) + 1)


def indent_width(ws: str) -> tuple[int, int]:
    """Python's two measures of an indentation: tabs to the next multiple of 8, and tabs as
    one column; a form feed starts both again at 0. A block is consistent only if both agree."""
    if "\t" not in ws and "\f" not in ws:
        return len(ws), len(ws)
    col = alt = 0
    for ch in ws:
        if ch == " ":
            col += 1
            alt += 1
        elif ch == "\t":
            col = (col // 8 + 1) * 8
            alt += 1
        else:
            col = alt = 0
    return col, alt


def _identifier(value: str, text: str, start: int, line: int, col: int) -> str:
    """A name with non-ASCII characters, as Python reads it (NFKC), or a located error at the
    first character that cannot be part of it."""
    parts = []
    offset = 0
    for part in value.split("."):
        name = unicodedata.normalize("NFKC", part)
        if not name.isidentifier():
            k = 1
            while unicodedata.normalize("NFKC", part[:k]).isidentifier():
                k += 1
            ch = part[k - 1]
            where = Loc(line, col + offset + k - 1)
            if not ch.isprintable():
                raise SourceError(f"invalid non-printable character U+{ord(ch):04X}", where)
            raise SourceError(f"invalid character '{ch}' (U+{ord(ch):04X})", where)
        parts.append(name)
        offset += len(part) + 1
    return ".".join(parts)


def _check_number(value: str, text: str, end: int, loc: Loc) -> None:
    """Python's tokenizer rules a number token must follow beyond the regex."""
    if end < len(text) and _NAME_CHAR_RE.match(text, end):
        raise SourceError("invalid number literal", loc)
    if value[-1] in "jJ":
        raise SourceError(f"complex number {value} is not supported in Relax text", loc)
    if value[0] == "0" and value.strip("0_") and not any(c in value for c in ".eExXoObB"):
        raise SourceError("leading zeros in decimal integer literals are not permitted; use an "
                          "0o prefix for octal integers", loc)


def _prim_func_end(text: str, start: int, def_indent: int) -> int:
    """End of the PrimFunc whose `def` line starts at `start`: the first line after it outside
    brackets that is neither blank nor a comment and is indented no deeper than the `def`."""
    depth = 0
    pos = start
    n = len(text)
    last_code_end = start
    continued = True  # the `def` line itself is not the end
    while pos < n:
        eol = text.find("\n", pos)
        if eol < 0:
            eol = n
        line = text[pos:eol]
        stripped = line.lstrip(" \t\f")
        if stripped and not stripped.startswith("#"):
            if (depth == 0 and not continued
                    and indent_width(line[:len(line) - len(stripped)])[0] <= def_indent):
                break
            code = _STRIP_RE.sub("", stripped)
            for ch in code:
                if ch in _OPEN:
                    depth += 1
                elif ch in _CLOSE and depth > 0:
                    depth -= 1
            continued = code.endswith("\\")
            last_code_end = eol
        pos = eol + 1
    # Trailing blank and comment lines belong to what follows, not to the body.
    return min(last_code_end + 1, n) if last_code_end > start else start


def _line_end(text: str, start: int, lines: int) -> int:
    """The position after the `lines`-th line that begins at `start`."""
    pos = start
    for _ in range(lines):
        eol = text.find("\n", pos)
        if eol < 0:
            return len(text)
        pos = eol + 1
    return pos


def check_prim_func(text: str, def_start: int, def_line: int, def_indent: int) -> int:
    """Check the PrimFunc whose `def` line starts at `def_start`, header and body, with
    Python's parser (TVM's reader runs `ast.parse` over the whole file first, so a PrimFunc
    that is not Python is refused there); a SyntaxError is located in the file as Python
    locates it. Returns where the function ends as Python sees it (the line scanner can only
    overrun that end, on a string it does not understand, never stop short of it)."""
    body_end = _prim_func_end(text, def_start, def_indent)
    indented = def_indent > 0
    # An indented `def` parses as the body of an `if`: columns stay those of the file, and
    # only the line numbers shift by the one added line.
    prefix = "if 1:\n" if indented else ""
    shift = def_line - 1 - (1 if indented else 0)

    try:
        statements, first_end = _python_statements(prefix + text[def_start:body_end])
    except SyntaxError as error:
        e = error
        # Python reports a bracket its tokenizer finds unmatched anywhere after the error in
        # preference to it; read on to the end of the file to locate the error as TVM does.
        try:
            _python_statements(prefix + text[def_start:])
        except SyntaxError as whole:
            e = whole
        body_end = len(text)
        message = _ON_LINE_RE.sub(lambda m: f"on line {int(m.group(1)) + shift}",
                                  e.msg or "invalid syntax")
        line = max((e.lineno or 1) + shift, def_line)
        lines = text[:body_end].split("\n")
        if len(lines) > 1 and not lines[-1]:
            lines.pop()
        if line > len(lines):  # at the end of the file: just after its last character
            line = len(lines)
            col = len(lines[-1]) + 1
        else:
            col = min(max(e.offset or 1, 1), len(lines[line - 1]) + 1)
        raise SourceError(message, Loc(line, col)) from None
    if statements == 1:
        return body_end
    return _line_end(text, def_start, first_end - (1 if indented else 0))


@functools.lru_cache(maxsize=512)
def _python_statements(source: str) -> tuple[int, int]:
    """How many statements Python reads at the top level of `source` (under the `if 1:` of an
    indented PrimFunc, that one's), and the line the first ends on; SyntaxError if it is not
    Python. Cached by text: the two modules a `check` or a `verify` reads (a model and its
    rewrite, or its expected output) share most PrimFuncs, and parsing them is a third of
    reading a real model's dump."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. "invalid escape sequence": not ours to say
        tree = compile(source, "<PrimFunc>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    body = tree.body[0].body if source.startswith("if 1:\n") else tree.body
    return len(body), body[0].end_lineno


def tokenize(text: str, literal_types: dict[str, str]) -> Iterator[Token]:
    """Yield the tokens of `text` (Token tuples typed by the grammar's terminal names, what the
    parser's tables read; line breaks already `\\n`, see `normalize_source`); raise
    SourceError on characters or layout Python rejects."""
    indents = [0]  # Python's indentation columns (tabs to multiples of 8) ...
    alt_indents = [0]  # ... and the same with tabs as one column; the two must agree
    brackets: list[tuple[str, int]] = []
    line = 1
    line_start = 0
    at_line_start = True  # no token yet on this logical line
    prim_pending = False  # saw `@T.prim_func`; its `def` line comes
    prim_def_indent = -1  # >= 0: inside a prim_func `def` header; capture its body at the NEWLINE
    prim_end = 0  # where the PrimFunc being read ends
    lit = literal_types
    n = len(text)
    same_indent = None  # the indentation of the last line measured (see the `nl` case)

    def indentation(pos: int) -> Iterator[Token]:
        """Layout tokens for a code line that starts (after its indentation) at `pos`."""
        col = pos - line_start + 1
        indent, alt = indent_width(text[line_start:pos])
        if indent > indents[-1]:
            if alt <= alt_indents[-1]:
                raise SourceError("inconsistent use of tabs and spaces in indentation",
                                  Loc(line, col))
            indents.append(indent)
            alt_indents.append(alt)
            yield Token("_INDENT", "", pos, line, col)
            return
        while indent < indents[-1]:
            indents.pop()
            alt_indents.pop()
            yield Token("_DEDENT", "", pos, line, col)
        if indent != indents[-1]:
            raise SourceError("unindent does not match any outer indentation level",
                              Loc(line, col))
        if alt != alt_indents[-1]:
            raise SourceError("inconsistent use of tabs and spaces in indentation",
                              Loc(line, col))

    # The first token of the file is the one that can be indented where nothing was opened;
    # later lines are measured against `indents` (indentation()).
    lead = _LEADING_BLANKS_RE.match(text).end()
    if (lead and lead < n and text[lead] not in "\n#" and text[lead:lead + 2] != "\\\n"
            and indent_width(text[:lead])[0]):
        raise SourceError("unexpected indent", Loc(1, lead + 1))
    it = _TOKEN_RE.finditer(text)
    while True:
        m = next(it, None)
        if m is None:
            break
        kind = m.lastgroup
        # Tokens first, the commonest first; `value` is the token without the blanks after it.
        if kind == "open":
            start = m.start()
            value = m.group(kind)
            brackets.append((value, start))
            if len(brackets) > MAX_NESTING:
                raise SourceError(f"brackets nested more than {MAX_NESTING} deep",
                                  Loc(line, start - line_start + 1))
            at_line_start = False
            yield _make(Token, (lit[value], value, start, line, start - line_start + 1))
            continue
        if kind == "close":
            start = m.start()
            value = m.group(kind)
            if not brackets or brackets[-1][0] != _CLOSE[value]:
                raise SourceError(f"unmatched '{value}'", Loc(line, start - line_start + 1))
            brackets.pop()
            at_line_start = False
            yield _make(Token, (lit[value], value, start, line, start - line_start + 1))
            continue
        if kind == "name":
            start = m.start()
            value = m.group(kind)
            col = start - line_start + 1
            at_line_start = False
            if not value.isascii():
                value = _identifier(value, text, start, line, col)
            # Dotted names (`R.memory.alloc_storage`) are one token: far fewer tokens and
            # reductions than NAME "." NAME "." NAME, for the commonest thing in the text.
            if value in KEYWORDS:
                t = lit.get(value)
                if t is None:
                    raise SourceError(f"'{value}' is not supported in Relax text", Loc(line, col))
                if value == "def" and prim_pending:
                    prim_pending = False
                    prim_def_indent = indents[-1]
                    # Checked whole before its header is parsed, so that a bracket problem
                    # in the header is reported where Python (and TVM) report it.
                    prim_end = check_prim_func(text, line_start, line, prim_def_indent)
                yield _make(Token, (t, value, start, line, col))
            else:
                # A model repeats the same few names many times over (its layers); one string
                # each keeps the syntax tree and the IR smaller.
                yield _make(Token, ("NAME", sys.intern(value), start, line, col))
            continue
        if kind == "op":
            start = m.start()
            value = m.group(kind)
            at_line_start = False
            if value == "@" and not brackets and _PRIM_DECORATOR_RE.match(text, m.end(kind)):
                prim_pending = True
            t = lit.get(value)
            if t is None:
                raise SourceError(f"unexpected `{value}`", Loc(line, start - line_start + 1))
            yield _make(Token, (t, value, start, line, start - line_start + 1))
            continue
        start = m.start()
        if kind == "nl":
            value = m.group()
            newline_line = line
            newline_col = start - line_start + 1
            line += value.count("\n")
            line_start = start + value.rfind("\n") + 1
            if brackets:
                continue
            if not at_line_start:
                yield _make(Token, ("_NEWLINE", "\n", start, newline_line, newline_col))
            at_line_start = True
            if prim_def_indent >= 0:
                # The header's newline: take the body whole, then lex on after it.
                body_start = start + 1
                body_line = newline_line + 1
                body_end = prim_end
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
                same_indent = text[line_start:code]
                it = _TOKEN_RE.finditer(text, code)
                continue
            code = m.end()
            if code >= n:
                break
            # A line indented as the one before it (by the same characters) changes nothing.
            if text[line_start:code] != same_indent:
                yield from indentation(code)
                same_indent = text[line_start:code]
            continue
        if kind == "ws":
            if m.group()[0] == "\\":
                line += 1
                line_start = m.end()
            continue
        if kind == "comment":
            continue
        col = start - line_start + 1
        at_line_start = False
        if kind == "number":
            value = m.group(kind)
            end = m.end(kind)
            nxt = text[end:end + 1]
            if value[0] == "0" or value[-1] in "jJ" or nxt.isalnum() or nxt == "_":
                _check_number(value, text, end, Loc(line, col))
            yield _make(Token, ("NUMBER", value, start, line, col))
        elif kind == "string" or kind == "prefix":
            if kind == "prefix":
                sm = _PREFIXED_STRING_RE.match(text, start)
                if sm is None:
                    raise SourceError("unterminated string", Loc(line, col + len(m.group())))
                value = sm.group()
                it = _TOKEN_RE.finditer(text, sm.end())
            else:
                value = m.group(kind)
            yield _make(Token, ("STRING", value, start, line, col))
            if "\n" in value:  # a triple-quoted string, or a backslash-continued one
                line += value.count("\n")
                line_start = start + value.rfind("\n") + 1
        else:
            value = m.group()
            if value in "\"'":
                raise SourceError("unterminated string", Loc(line, col))
            if value == "\\":
                raise SourceError("unexpected character after line continuation character",
                                  Loc(line, col))
            if not value.isprintable():
                raise SourceError(f"invalid non-printable character U+{ord(value):04X}",
                                  Loc(line, col))
            raise SourceError(f"unexpected character '{value}'", Loc(line, col))
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


_BLANK_LINES_RE = re.compile(r"(?:[ \t\f]*(?:\#[^\n]*)?\n)*")
_LEADING_BLANKS_RE = re.compile(r"[ \t\f]*")
