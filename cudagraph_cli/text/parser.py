"""grammar/relax.lark -> syntax tree (syntax.py).

`parse_syntax(text)`: Lark's LALR(1) tables for the grammar (built ahead of time by tables.py
into parse_tables.json, so that no run builds them or imports Lark), driven by the loop of
`_drive` over the tokens of lexer.py, with the Transformer below applied on each reduction.
Every failure is a located `SourceError`. reader.py hands the tree to builder/.
"""

from __future__ import annotations

import ast
import functools
import json
import os
import sys

from ..diagnostics import Loc, SourceError
from . import syntax as S
from .lexer import Token, normalize_source, tokenize


def grammar_path():
    """The grammar (a pathlib.Path): inside the installed package, or grammar/ of a source
    checkout."""
    # Imported here: a run reads only the shipped tables, and pathlib would cost every start.
    from pathlib import Path

    packaged = Path(__file__).with_name("grammar") / "relax.lark"
    if packaged.is_file():
        return packaged
    return Path(__file__).resolve().parents[2] / "grammar" / "relax.lark"


_INT_PREFIXES = frozenset({"0x", "0X", "0o", "0O", "0b", "0B"})
# `and` and the comparisons (below the arithmetic, as in Python) write the guard of a
# bounded graph launch (--capture-symbolic VAR:MAX).
_PRECEDENCE = {"and": -1, "<=": 0, "<": 0, ">=": 0, ">": 0, "==": 0, "!=": 0,
               "+": 1, "-": 1, "*": 2, "/": 2, "//": 2, "%": 2}


def _tok_pos(children) -> tuple[int, int]:
    for c in children:
        if isinstance(c, Token):
            return c.line, c.column
        if isinstance(c, S.Node):
            return c.line, c.col
    return 0, 0


def _literal(tok: Token, text: str) -> str:
    try:
        return ast.literal_eval(text)
    except (SyntaxError, ValueError) as e:  # a bad escape: "\x.", "\N{nothing}"
        msg = getattr(e, "msg", None) or str(e)
        raise SourceError(f"bad string literal: {msg}", Loc(tok.line, tok.column)) from None


def _string_value(tok: Token) -> str:
    """The value of a string literal token, as Python reads it."""
    text = tok.value
    if text[0] in "\"'":
        if "\\" not in text:
            return text[3:-3] if text.startswith(text[0] * 3) and len(text) >= 6 else text[1:-1]
        return _literal(tok, text)
    i = min(p for p in (text.find('"'), text.find("'")) if p >= 0)
    prefix = text[:i].lower()
    if "b" in prefix:
        # TVM refuses bytes wherever Relax takes a string (R.str, a dtype, an attribute).
        raise SourceError("bytes literals are not supported in Relax text",
                          Loc(tok.line, tok.column))
    if "f" in prefix:
        if "{" in text or "}" in text:
            raise SourceError("f-string replacement fields are not supported in Relax text",
                              Loc(tok.line, tok.column))
        text = prefix.replace("f", "") + text[i:]
    return _literal(tok, text)


class ToSyntax:
    """Lark-style Transformer: a method per rule (or alias) makes its syntax node from the
    rule's children, called by `_drive` on each reduction (no intermediate tree)."""

    # ---- atoms
    # The hot atoms unpack their token (a tuple, lexer.Token) rather than read its fields by
    # name: a property call each, for the commonest reductions.
    def name(self, c):
        _, value, _, line, column = c[0]
        return S.Name(value, line, column)

    def number(self, c):
        _, text, _, line, column = c[0]
        # The lexer admits only Python's number forms: prefixed or without . e E is an int.
        if text.isdigit():
            value = int(text)
        elif text[:2] in _INT_PREFIXES or not ("." in text or "e" in text or "E" in text):
            value = int(text, 0)
        else:
            value = float(text)
        return S.Num(value, line, column)

    def string(self, c):
        t = c[0]
        value = "".join(_string_value(x) for x in c) if len(c) > 1 else _string_value(t)
        # Few distinct strings in a module ("float16", "global"), each written thousands of
        # times; one copy of each (sys.intern, as the lexer does for names).
        return S.Str(sys.intern(value), t.line, t.column)

    def true(self, c):
        return S.Const(True, c[0].line, c[0].column)

    def false(self, c):
        return S.Const(False, c[0].line, c[0].column)

    def none(self, c):
        return S.Const(None, c[0].line, c[0].column)

    def empty_tuple(self, c):
        return S.TupleLit([], True, c[0].line, c[0].column)

    def paren_tuple(self, c):
        items = [c[0]] + (c[1] if len(c) > 1 else [])
        return S.TupleLit(items, True, items[0].line, items[0].col)

    def bare_tuple(self, c):
        items = [c[0]] + (c[1] if len(c) > 1 else [])
        return S.TupleLit(items, False, items[0].line, items[0].col)

    def subscript_tuple(self, c):
        return self.bare_tuple(c)

    def empty_list(self, c):
        return S.ListLit([], c[0].line, c[0].column)

    def list(self, c):
        items = c[0]
        return S.ListLit(items, items[0].line, items[0].col)

    def exprs(self, c):
        if len(c) == 1:
            return [c[0]]
        c[0].append(c[1])
        return c[0]

    def empty_dict(self, c):
        return S.DictLit([], c[0].line, c[0].column)

    def dict_items(self, c):
        if len(c) == 2:
            return [(c[0], c[1])]
        c[0].append((c[1], c[2]))
        return c[0]

    def dict(self, c):
        items = c[0]
        return S.DictLit(items, items[0][0].line, items[0][0].col)

    # ---- operators and trailers
    def binop(self, c):
        # c = [operand, op, operand, op, ...]: apply precedence (shunting-yard).
        operands = [c[0]]
        ops: list[str] = []
        for i in range(1, len(c), 2):
            op = c[i].value
            if _PRECEDENCE[op] == 0 and any(_PRECEDENCE[o] == 0 for o in ops):
                # Python chains `a <= b <= c` (a <= b and b <= c); TVM never writes one.
                raise SourceError("chained comparisons are not supported in Relax text",
                                  Loc(c[i].line, c[i].column))
            while ops and _PRECEDENCE[ops[-1]] >= _PRECEDENCE[op]:
                rhs = operands.pop()
                lhs = operands.pop()
                operands.append(S.BinOp(ops.pop(), lhs, rhs, lhs.line, lhs.col))
            ops.append(op)
            operands.append(c[i + 1])
        while ops:
            rhs = operands.pop()
            lhs = operands.pop()
            operands.append(S.BinOp(ops.pop(), lhs, rhs, lhs.line, lhs.col))
        return operands[0]

    def neg(self, c):
        minus, x = c
        if isinstance(x, S.Num):
            return S.Num(-x.value, minus.line, minus.column)
        return S.Neg(x, minus.line, minus.column)

    def lambda_expr(self, c):
        kw = c[0]
        params = c[1] if len(c) > 2 else []
        return S.Lambda(params, c[-1], kw.line, kw.column)

    def lambda_params(self, c):
        names = [t.value for t in c]
        if len(set(names)) != len(names):
            dup = next(t for i, t in enumerate(c) if t.value in names[:i])
            raise SourceError(f"duplicate argument '{dup.value}' in lambda",
                              Loc(dup.line, dup.column))
        return names

    def getattr(self, c):
        obj, t = c
        return S.Attr(obj, t.value, obj.line, obj.col)

    def call(self, c):
        func = c[0]
        if len(c) > 1:
            args, kwargs = c[1]
        else:
            args, kwargs = [], ()
        # Most calls have no keyword arguments: one shared empty tuple rather than an empty
        # list each.
        return S.Call(func, args, kwargs or (), func.line, func.col)

    def first_arg(self, c):
        a = c[0]
        if isinstance(a, S.Kwarg):
            return [], [a]
        return [a], []

    def more_arg(self, c):
        acc, a = c
        if isinstance(a, S.Kwarg):
            acc[1].append(a)
        elif acc[1]:
            raise SourceError("positional argument follows keyword argument", a.loc)
        else:
            acc[0].append(a)
        return acc

    def kwarg(self, c):
        (_, name, _, line, column), value = c
        return S.Kwarg(name, value, line, column)

    def getitem(self, c):
        obj, index = c
        return S.GetItem(obj, index, obj.line, obj.col)

    # ---- statements
    def assign(self, c):
        target, value = c
        return S.Assign(target, None, value, target.line, target.col)

    def ann_assign(self, c):
        target, ann, value = c
        return S.Assign(target, ann, value, target.line, target.col)

    def expr_stmt(self, c):
        value = c[0]
        return S.ExprStmt(value, value.line, value.col)

    def return_stmt(self, c):
        kw = c[0]
        value = c[1] if len(c) > 1 else None
        return S.Return(value, kw.line, kw.column)

    def pass_stmt(self, c):
        return S.Pass(c[0].line, c[0].column)

    def import_stmt(self, c):
        line, col = _tok_pos(c)
        return S.Import(" ".join(t.value for t in c), line, col)

    def decorator(self, c):
        return c[0]

    def decorated(self, c):
        target = c[-1]
        target.decorators = list(c[:-1])
        return target

    def classdef(self, c):
        name = c[0]
        return S.ClassDef(name.value, c[-1], name.line, name.column)

    def param(self, c):
        name = c[0]
        annotation = c[1] if len(c) > 1 else None
        default = c[2] if len(c) > 2 else None
        return S.Param(name.value, annotation, default, name.line, name.column)

    def params(self, c):
        return list(c)

    def funcdef(self, c):
        name = c[0]
        params: list = []
        ret = None
        body = c[-1]
        for part in c[1:-1]:
            if isinstance(part, list):
                params = part
            else:
                ret = part
        body_line = name.line + 1
        if isinstance(body, Token):  # PRIMBODY
            body_line = body.line
            body = body.value
        return S.FuncDef(name.value, params, ret, body, name.line, name.column, body_line)

    def with_stmt(self, c):
        ctx = c[0]
        as_name = c[1].value if len(c) > 2 else None
        return S.With(ctx, as_name, c[-1], ctx.line, ctx.col)

    def if_stmt(self, c):
        kw, cond, body = c[0], c[1], c[2]
        rest = c[3:]
        orelse = None
        if rest and isinstance(rest[-1], list):  # `else:` suite (ELSE token before it)
            orelse = rest[-1]
            rest = rest[:-2]
        for clause in reversed(rest):  # elif chain, innermost last
            orelse = [S.If(clause.cond, clause.body, orelse, clause.line, clause.col)]
        return S.If(cond, body, orelse, kw.line, kw.column)

    def elif_clause(self, c):
        kw, cond, body = c
        return S.If(cond, body, None, kw.line, kw.column)

    def small_stmts(self, c):
        return list(c)

    def stmts(self, c):
        # A statement is one node, or a list of them for `a = x; b = a`.
        if len(c) == 1:
            return c[0] if isinstance(c[0], list) else [c[0]]
        acc, s = c
        if isinstance(s, list):
            acc.extend(s)
        else:
            acc.append(s)
        return acc

    def suite(self, c):
        return c[0]

    def start(self, c):
        out = []
        for s in c:
            if isinstance(s, S.Node):
                out.append(s)
            elif isinstance(s, list):
                out.extend(s)
        return out


class _Tables:
    """parse_tables.json (Lark's LALR(1) tables for the grammar, built ahead by tables.py)
    with each rule's Transformer method bound: what `_drive` runs."""

    __slots__ = ("states", "rules", "start", "end", "literals")

    def __init__(self):
        with open(os.path.join(os.path.dirname(__file__), "parse_tables.json"),
                  encoding="utf-8") as fh:
            shipped = json.load(fh)
        transformer = ToSyntax()
        self.states = tuple(shipped["STATES"])
        self.literals = shipped["LITERALS"]
        self.start, self.end = shipped["START"], shipped["END"]
        # Per rule: (size, name, method, expand1, children kept). Two shapes of one child,
        # half of all reductions, are marked for the driver to rewrite the top of its stacks
        # in place: size -1, the child passed through (`?unary: primary`); size -2, the child
        # given to the method (`primary: NAME -> name`).
        rules = []
        for size, name, method, expand1, kept in shipped["RULES"]:
            callback = getattr(transformer, method) if method else None
            if size == 1 and kept is None:
                if expand1:
                    size = -1
                elif callback is not None:
                    size = -2
            rules.append((size, name, callback, expand1,
                          tuple(map(tuple, kept)) if kept is not None else None))
        self.rules = tuple(rules)


@functools.lru_cache(maxsize=1)
def _tables() -> _Tables:
    return _Tables()


def literal_types() -> dict[str, str]:
    """The token table `tokenize` takes: the text of each literal terminal -> its name."""
    return _tables().literals


class _Unexpected(Exception):
    def __init__(self, token, expected):
        self.token, self.expected = token, expected


def _reduce(rule: tuple, values: list, state_stack: list, states: tuple) -> None:
    """Pop the rule's children, shape them as Lark would (tables.py), push what its method
    returns and go to the state after the rule."""
    size, name, callback, expand1, kept = rule
    if size < 0:  # one child, in place (see _Tables)
        if size == -2:
            values[-1] = callback([values[-1]])
        state_stack[-1] = states[state_stack[-2]][name]
        return
    if size:
        children = values[-size:]
        del values[-size:]
        del state_stack[-size:]
    else:
        children = []
    if kept is not None:
        shaped: list = []
        for i, splice in kept:
            if not splice:
                shaped.append(children[i])
            elif shaped:
                shaped += children[i]
            else:  # left recursion (`__x: __x y`): extend the list it built, not a copy
                shaped = children[i]
        children = shaped
    if callback is None:
        values.append(children[0] if expand1 else children)
    elif expand1 and len(children) == 1:
        values.append(children[0])
    else:
        values.append(callback(children))
    state_stack.append(states[state_stack[-1]][name])


def _drive(tables: _Tables, tokens) -> list:
    """Run the LALR(1) automaton over `tokens`, calling the Transformer on each reduction.
    The one-child reductions, half of all, are made in place here; the others by `_reduce`."""
    states = tables.states
    rules = tables.rules
    state_stack = [tables.start]
    values: list = []
    push_state = state_stack.append
    push_value = values.append
    row = states[tables.start]
    for tok in tokens:
        ttype = tok[0]
        try:
            action = row[ttype]
            while action < 0:
                rule = rules[~action]
                if rule[0] < 0:  # one child, in place: half of all reductions, kept inline
                    if rule[0] == -2:
                        values[-1] = rule[2]([values[-1]])
                    state_stack[-1] = states[state_stack[-2]][rule[1]]
                else:
                    _reduce(rule, values, state_stack, states)
                action = states[state_stack[-1]][ttype]
        except KeyError:
            if ttype in states[state_stack[-1]]:  # not the table's: a bug in a callback
                raise
            raise _Unexpected(tok, set(states[state_stack[-1]])) from None
        push_state(action)
        push_value(tok)
        row = states[action]
    end = tables.end
    while state_stack[-1] != end:
        try:
            action = states[state_stack[-1]]["$END"]
        except KeyError:
            raise _Unexpected(Token("$END", "", 0, 0, 0), set(states[state_stack[-1]])) from None
        _reduce(rules[~action], values, state_stack, states)
    return values[-1]


# How a terminal is named in a message: the text it stands for where it stands for one.
_TERMINAL_WORDS = {"_NEWLINE": "end of line", "_INDENT": "an indented block",
                   "_DEDENT": "end of block", "$END": "end of file",
                   "PRIMBODY": "a PrimFunc body", "NAME": "a name", "NUMBER": "a number",
                   "STRING": "a string"}
# Listing every way an expression can start says less than "an expression".
_EXPRESSION_STARTS = ("NAME", "NUMBER", "STRING", "(", "[", "{", "-", "True", "False", "None",
                      "lambda")
_MAX_EXPECTED_SHOWN = 6


@functools.lru_cache(maxsize=1)
def _terminal_text() -> dict[str, str]:
    return {name: text for text, name in literal_types().items()}


def _describe(tok: Token) -> str:
    """The unexpected token, in plain words: name 'foo', number 3, `,`, end of line."""
    if tok.type == "NAME":
        return f"name '{tok.value}'"
    if tok.type == "NUMBER":
        return f"number {tok.value}"
    if tok.type == "STRING":
        shown = tok.value if len(tok.value) <= 40 else tok.value[:37] + "..."
        return f"string {shown}"
    if tok.type in _TERMINAL_WORDS:
        return _TERMINAL_WORDS[tok.type].removeprefix("a ").removeprefix("an ")
    return f"`{tok.value}`"


def _expected_words(expected: set[str]) -> list[str]:
    """What the parser would have accepted, in plain words (empty: too many to be useful)."""
    texts = _terminal_text()
    lits = literal_types()
    starts = {lits.get(x, x) for x in _EXPRESSION_STARTS}
    words = []
    if starts <= expected:
        expected = expected - starts
        words.append("an expression")
    for name in sorted(expected):
        if name in _TERMINAL_WORDS:
            words.append(_TERMINAL_WORDS[name])
        elif name in texts:
            words.append(f"`{texts[name]}`")
    return words if len(words) <= _MAX_EXPECTED_SHOWN else []


def _one_of(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def parse_syntax(text: str, strip_bom: bool = True) -> list:
    """Text -> list of top-level syntax statements (`strip_bom`: see `normalize_source`)."""
    text = normalize_source(text, strip_bom)
    tables = _tables()
    try:
        return _drive(tables, tokenize(text, tables.literals))
    except SourceError:
        raise
    except _Unexpected as e:
        tok = e.token
        if tok.type == "$END":
            lines = text.split("\n")
            raise SourceError("unexpected end of file (truncated module?)",
                              Loc(len(lines), len(lines[-1]) + 1)) from None
        if tok.type == "_INDENT":
            raise SourceError("unexpected indent", Loc(tok.line, tok.column)) from None
        if tok.type == "_DEDENT":
            raise SourceError("unexpected end of block", Loc(tok.line, tok.column)) from None
        words = _expected_words({x for x in e.expected if x.isupper() or x.startswith("_")})
        hint = f"; expected {_one_of(words)}" if words else ""
        raise SourceError(f"unexpected {_describe(tok)}{hint}", Loc(tok.line, tok.column)) from None
    except RecursionError:
        raise SourceError("expression nested too deeply") from None
