"""Statement templates: the parse of a body line, cached by the line's shape.

A big module is a few shapes of line written thousands of times: the 78k lines of a 2048-layer
decode module have 14 shapes between them, and six templates read 77,825 of them. A line's
*shape* is its text with every run of name characters and dots (a name, a dotted name, a
number) and every plain string taken out: what stays is punctuation, blanks and layout. The
grammar reads every shape the first time it repeats: the line alone goes through the lexer and
the LALR driver like any other text, and the statement they make becomes a template, a small
function (generated Python source) that makes the same syntax nodes from another line's runs,
with their columns. Every later line of that shape is made by the template, and reaches the
driver as one finished `stmt`.

Why that is the grammar's own reading (tests/test_line_templates.py checks it on every
sample, on generated modules and on random lines, comparing with the plain reading):
- Each run of the line a template is made from is one token, a name, an integer or a plain string, which the
  template takes from any later line's run in that place after checking that it is of the same
  kind (a name that is not a keyword, an integer without leading zeros, a string without
  escapes); or it is part of a token that stays as it is (`1.5`, `True`), which a later line
  must repeat exactly. The text between runs is the same in every line of a shape, so the
  tokens are the same kinds in the same order. Any doubt (a run in a comment or an escaped
  string, a run touching a quote, a `;`, a backslash, a bracket left open) and the shape is
  never templated.
- The LALR parse of a statement depends on its token kinds only; the syntax nodes depend on
  the token values only where a node copies its own token (`Name`, `Num`, `Str`, `Kwarg`),
  which the template copies from the line's own runs. A node of any other kind, or a value
  that cannot be traced to one token, and the shape is never templated. The template, run on
  the runs of the line it is made from, must give back the nodes the grammar made, or it is
  dropped.
- Only a line that starts a logical line outside brackets, and ends at its newline, is taken.
  If the driver then cannot take the statement where it stands, or anything fails, parser.py
  reads the whole text again the plain way: errors are always the plain reading's.
"""

from __future__ import annotations

import re
import sys
from itertools import accumulate

from . import syntax as S
from .lexer import KEYWORDS, tokenize

# Runs: a plain string (no escape, one line), or name characters and dots. Only ASCII lines
# are templated. The ASCII class is written out: `\w` costs a third more per line.
_RUNS_RE = re.compile("(\"[^\"\\\\\\n]*\"|'[^'\\\\\\n]*'|[A-Za-z0-9_.]+)")
_NAME = "[A-Za-z_][A-Za-z0-9_]*(?:\\.[A-Za-z_][A-Za-z0-9_]*)*"
_INT = "0|[1-9][0-9]*"
_NAME_RE = re.compile(_NAME)
_INT_RE = re.compile(_INT)
# A template checks its line's runs by kind, all names (or integers) at once.
_NAMES = re.compile(f"{_NAME}(?: {_NAME})*").fullmatch
_INTS = re.compile(f"(?:{_INT})(?: (?:{_INT}))*").fullmatch
_QUOTES = ("\"", "'")
# What `_line_pattern` writes for a run: a string; a name that is not a keyword; and the
# characters the text between runs must not hold.
_STRING = "(\"[^\"\\\\\\n]*\"|'[^'\\\\\\n]*')"
_NOT_KEYWORD = "(?!(?:" + "|".join(sorted(KEYWORDS)) + ")(?![A-Za-z0-9_.]))"
_RUN_CHARS = re.compile("[A-Za-z0-9_.\"']")
# Templates tried on each line before its shape is looked up (`statement`), once each has
# made PATTERN_AT lines (compiling a pattern costs what reading a few dozen lines does).
RECENT = 16
PATTERN_AT = 8

# The syntax nodes a template may make, and the field each leaf copies from its own token
# (the other kinds copy none). Constructors take the slots in order, then line and column.
_LEAF_FIELD = {S.Name: "id", S.Num: "value", S.Str: "value", S.Kwarg: "name"}
_LEAF_TOKEN = {S.Name: "NAME", S.Num: "NUMBER", S.Str: "STRING", S.Kwarg: "NAME"}
_NODES = (S.Name, S.Num, S.Str, S.Kwarg, S.Call, S.GetItem, S.Const, S.TupleLit, S.ListLit,
          S.DictLit, S.BinOp, S.Neg, S.Assign, S.ExprStmt, S.Return, S.Pass)
_STATEMENTS = (S.Assign, S.ExprStmt, S.Return, S.Pass)
# A shape seen this many times is templated; a line seen once is read the plain way.
TEMPLATE_AT = 2
# Making a template costs what reading 10 to 25 of its lines does (compiling its source is
# most of it), so a text whose shapes each come a few times would read slower with them (2,400
# lines, every shape twice: 0.23 s plain, 1.2 s templating each). At most TRIES_FREE attempts,
# then one more per TRIES_EVERY lines read, bound that cost (0.29 s there); a 2048-layer
# decode module needs 8 attempts in all.
TRIES_FREE = 8
TRIES_EVERY = 64


class _NotTemplated(Exception):
    """The line a template was to be made from is not one this module can copy (see the
    module's notes); its shape is read the plain way."""


class LineTemplates:
    """The templates of one text being read; `tokenize` asks `statement` at each line start.

    `parse_line(tokens)` is the driver on one line's tokens (parser.py), returning what its
    `start` rule makes; `literals` the lexer's table of literal terminals."""

    __slots__ = ("_parse_line", "_literals", "_lazy", "_templates", "_seen", "_recent", "_after",
                 "_last", "lines", "tries", "made", "used")

    def __init__(self, parse_line, literals: dict[str, str], lazy: bool = False):
        self._parse_line = parse_line
        self._literals = literals
        self._lazy = lazy  # make each statement's nodes when the builder takes it (Pending)
        self._templates: dict = {}  # shape -> _Template, or None: read the plain way
        self._seen: dict[str, int] = {}
        self._recent: tuple = ()  # the templates last used that have a line pattern
        self._after: dict = {}  # template -> the template of the line after its last line
        self._last = None  # the template of the last line a template made
        self.lines = 0  # lines asked about
        self.tries = 0  # templates attempted
        self.made = 0  # templates made (for tests and benchmarks)
        self.used = 0  # lines made by a template

    def statement(self, text: str, start: int, end: int, line: int, col: int):
        """The finished statement for the line `text[start:end]` (a whole logical line at
        line `line`, column `col`), as the driver's pseudo-token `("$LINE", node, first
        token kind, line, col)`; None to read the line the plain way."""
        self.lines += 1
        # First the template that came after the last line's the last time, then the recent
        # ones: each tries the whole line at once (see `_line_pattern`).
        guess = self._after.get(self._last)
        if guess is not None:
            m = guess.match(text, start, end)
            if m is not None:
                return self._made(guess, m.groups(), line, col)
        for template in self._recent:
            if template is not guess:
                m = template.match(text, start, end)
                if m is not None:
                    self._after[self._last] = template
                    return self._made(template, m.groups(), line, col)
        src = text[start:end]
        if not src.isascii():
            return None
        parts = _RUNS_RE.split(src)
        key = "\0".join(parts[0::2])
        template = self._templates.get(key)
        if template is None:
            if key in self._templates:
                return None
            seen = self._seen.get(key, 0) + 1
            self._seen[key] = seen
            if seen < TEMPLATE_AT or self.tries >= TRIES_FREE + self.lines // TRIES_EVERY:
                return None
            self.tries += 1
            try:
                template = self._make(src, parts)
            except _NotTemplated:
                template = None
            self._templates[key] = template
            if template is None:
                return None
            self.made += 1
        values = parts[1::2]
        if not template.check(values):  # a run of another kind than the template's
            return None
        template.uses += 1
        if template.uses >= PATTERN_AT and template.pattern is not None:
            # Used often enough to be worth its pattern: tried first from now on.
            if template.match is None:
                template.match = re.compile(template.pattern).fullmatch
            self._after[self._last] = template
            if template not in self._recent:
                self._recent = (self._recent + (template,))[-RECENT:]
        return self._made(template, values, line, col)

    def _made(self, template: "_Template", values, line: int, col: int):
        self.used += 1
        self._last = template
        if self._lazy:
            node = S.Pending(template.make, tuple(map(sys.intern, values)), line, col)
        else:
            node = template.make(values, line, col - 1)
        return ("$LINE", node, template.first, line, col)

    # ---- making a template from the line where its shape repeats

    def _make(self, src: str, parts: list[str]):
        seps, values = parts[0::2], parts[1::2]
        if any(";" in x or "\\" in x for x in seps):  # several statements, a continued line
            raise _NotTemplated
        for i, sep in enumerate(seps):  # runs touching each other or a quote
            last = len(seps) - 1
            if ((0 < i < last and not sep) or (i > 0 and sep[:1] in _QUOTES)
                    or (i < last and sep[-1:] in _QUOTES)):
                raise _NotTemplated
        try:
            tokens = list(tokenize(src + "\n", self._literals))
            stmts = self._parse_line(tokens)
        except Exception:  # the line alone is not a statement (a header, a decorator, ...)
            raise _NotTemplated from None
        if len(stmts) != 1 or type(stmts[0]) not in _STATEMENTS or tokens[-1][0] != "_NEWLINE":
            raise _NotTemplated
        tokens = tokens[:-1]
        spans = [m.span() for m in _RUNS_RE.finditer(src)]
        # Each run is one token; each other token lies outside every run.
        kinds = []  # per run: "NAME", "NUMBER", "STRING" (taken from the line) or None (kept)
        by_start = {}  # token start -> (token, run index or None)
        j = 0
        for tok in tokens:
            start, end = tok[2], tok[2] + len(tok[1])
            if j < len(spans) and spans[j][1] <= start:
                raise _NotTemplated  # a run no token starts at (in a comment, ...)
            if j < len(spans) and spans[j][0] == start:
                value = values[j]
                if spans[j][1] != end or tok[1] != value:
                    raise _NotTemplated
                if value[0] in _QUOTES:
                    kind = "STRING"
                elif _INT_RE.fullmatch(value):
                    kind = "NUMBER"
                elif _NAME_RE.fullmatch(value) and value not in KEYWORDS:
                    kind = "NAME"
                else:
                    kind = None
                if kind is not None and tok[0] != kind:
                    raise _NotTemplated
                kinds.append(kind)
                by_start[start] = (tok, j if kind else None)
                j += 1
            else:
                if j < len(spans) and spans[j][0] < end:
                    raise _NotTemplated
                by_start[start] = (tok, None)
        if j != len(spans):
            raise _NotTemplated
        if any(a[0] == b[0] == "STRING" for a, b in zip(tokens, tokens[1:])):
            raise _NotTemplated  # "a" "b": one Str made of two tokens
        writer = _Writer(by_start, spans, kinds, values)
        body = writer.node(stmts[0])
        lengths = "    a = [0, *_acc(map(len, v))]\n" if "a[" in body else ""
        source = (f"def check(v):\n    return {writer.checks()}\n\n"
                  f"def make(v, ln, c):\n{lengths}    return {body}\n")
        namespace = {"S": S, "_i": sys.intern, "k": writer.constants, "_acc": accumulate,
                     "_names": _NAMES, "_ints": _INTS, "_kw": KEYWORDS, "_q": _QUOTES}
        exec(compile(source, "<line template>", "exec"), namespace)
        check, make = namespace["check"], namespace["make"]
        if not check(values) or not same_syntax(make(values, 1, 0), stmts[0]):
            raise _NotTemplated
        make.declares = _declares(stmts[0])
        make.seps = tuple(map(len, seps))  # where its runs lie (builder/binding_memo.py)
        return _Template(check, make, tokens[0][0], _line_pattern(seps, values, kinds))


class _Template:
    """A shape's template: `check(runs)`, `make(runs, line, col)` -> the statement, the kind
    of its first token; the source of its line pattern (None if it has none), compiled once
    the template has made PATTERN_AT lines."""

    __slots__ = ("check", "make", "first", "pattern", "match", "uses")

    def __init__(self, check, make, first: str, pattern: str | None):
        self.check, self.make, self.first, self.pattern = check, make, first, pattern
        self.match = None
        self.uses = 0


def _line_pattern(seps: list[str], values: list[str], kinds: list) -> str | None:
    """A regular expression that matches exactly the lines of the shape whose runs pass the
    template's check, its groups the runs; None if the shape has text between runs that could
    be read as a run.

    Why exactly those lines: the text between runs holds no run character (name characters,
    dots) and no quote, and every piece between two runs is not empty. So in a line the
    pattern matches, the split into runs finds each group as one run (a group of name
    characters cannot stop short of the text after it, which starts with no name character),
    and the same text between them: the line has the template's shape. Each group is what the
    check asks of its run (a name that is no keyword, an integer without leading zeros, a
    string without escapes, or the kept text itself), in ASCII only."""
    if any(_RUN_CHARS.search(sep) for sep in seps):
        return None
    pattern = [re.escape(seps[0])]
    for value, kind, sep in zip(values, kinds, seps[1:]):
        if kind == "NAME":
            pattern.append(f"({_NOT_KEYWORD}{_NAME})")
        elif kind == "NUMBER":
            pattern.append(f"({_INT})")
        elif kind == "STRING":
            pattern.append(_STRING)
        else:
            pattern.append(f"({re.escape(value)})")
        pattern.append(re.escape(sep))
    return "".join(pattern)


def _declares(stmt) -> bool:
    """Whether a statement of this shape may declare a symbolic var (`m = T.int64()`): the
    builder looks for those before it binds a body (builder/functions.py)."""
    return (type(stmt) is S.Assign and type(stmt.target) is S.Name and
            type(stmt.value) is S.Call and not stmt.value.args and not stmt.value.kwargs)


class _Writer:
    """Python source for a template: `v` the line's runs, `a` their running lengths, `ln` the
    line, `c` the column before the line's first character."""

    def __init__(self, by_start: dict, spans: list, kinds: list, values: list[str]):
        self.by_start = by_start
        self.spans = spans
        self.kinds = kinds
        self.values = values
        self.taken = {v for v, kind in zip(values, kinds) if kind}
        self.constants: list = []

    def checks(self) -> str:
        """The template's test of a line's runs (an expression): kept runs as they were,
        taken ones of their kind; a line that fails it is read the plain way."""
        tests = []
        for j, (value, kind) in enumerate(zip(self.values, self.kinds)):
            if kind is None:
                tests.append(f"v[{j}] != {self.constant(value, check=False)}")
            elif kind == "STRING":
                tests.append(f"v[{j}][0] not in _q")
        names = [f"v[{j}]" for j, kind in enumerate(self.kinds) if kind == "NAME"]
        if names:
            listed = ", ".join(names) + ("," if len(names) == 1 else "")
            tests.append(f"not _names(' '.join(({listed}))) or not _kw.isdisjoint(({listed}))")
        ints = [f"v[{j}]" for j, kind in enumerate(self.kinds) if kind == "NUMBER"]
        if ints:
            listed = ", ".join(ints) + ("," if len(ints) == 1 else "")
            tests.append(f"not _ints(' '.join(({listed})))")
        return f"not ({' or '.join(tests)})" if tests else "True"

    def column(self, col: int) -> str:
        """The column of the token that starts at `col` on the first line, on any line."""
        start = col - 1
        if start not in self.by_start:
            raise _NotTemplated
        before = sum(1 for s, _ in self.spans if s < start)
        fixed = start + 1 - sum(e - s for s, e in self.spans[:before])
        return f"c + {fixed} + a[{before}]" if before else f"c + {fixed}"

    def constant(self, value, check: bool = True) -> str:
        if check and isinstance(value, str) and value in self.taken:
            raise _NotTemplated  # could be one of the line's runs: cannot tell
        self.constants.append(value)
        return f"k[{len(self.constants) - 1}]"

    def leaf(self, node) -> str:
        tok, j = self.by_start.get(node.col - 1, (None, None))
        if tok is None or tok[0] != _LEAF_TOKEN[type(node)] or node.line != 1:
            raise _NotTemplated
        if j is None:
            return self.constant(getattr(node, _LEAF_FIELD[type(node)]), check=False)
        if type(node) is S.Num:
            return f"int(v[{j}])"
        if type(node) is S.Str:
            return f"_i(v[{j}][1:-1])"
        return f"_i(v[{j}])"

    def value(self, x) -> str:
        if isinstance(x, S.Node):
            return self.node(x)
        if type(x) is list:
            return "[" + ", ".join(self.value(i) for i in x) + "]"
        if type(x) is tuple:
            return "(" + "".join(self.value(i) + ", " for i in x) + ")"
        if x is None or type(x) in (bool, int, float, str):
            return self.constant(x)
        raise _NotTemplated

    def node(self, node) -> str:
        cls = type(node)
        if cls not in _NODES or node.line != 1:
            raise _NotTemplated
        leaf_field = _LEAF_FIELD.get(cls)
        args = []
        for field in cls.__slots__:
            if field == leaf_field:
                args.append(self.leaf(node))
            else:
                args.append(self.value(getattr(node, field)))
        args += ["ln", self.column(node.col)]
        return f"S.{cls.__name__}({', '.join(args)})"


def same_syntax(a, b) -> bool:
    """Syntax trees equal field by field, positions included (lists and tuples apart)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, S.Node):
        fields = [f for c in type(a).__mro__ for f in getattr(c, "__slots__", ())]
        return all(same_syntax(getattr(a, f), getattr(b, f)) for f in fields)
    if type(a) in (list, tuple):
        return len(a) == len(b) and all(same_syntax(x, y) for x, y in zip(a, b))
    return a == b
