"""The lexer takes the blanks after a token in the token's own match (text/lexer.py): what
follows a token must still be read as Python reads it, and every column must stay the token's
own. Expected tokens are derived by hand from the text (columns 1-based, as Python's tokenizer
counts them plus one); the error cases are Python's own verdicts, checked beside them with
`compile`."""

from __future__ import annotations

import pytest

from cudagraph_cli.diagnostics import Loc, SourceError
from cudagraph_cli.text import syntax as S
from cudagraph_cli.text.lexer import tokenize
from cudagraph_cli.text.parser import literal_types, parse_syntax


def tokens(text: str) -> list[tuple]:
    """(type, value, line, column) of each token, the literal terminals by their text."""
    names = {v: k for k, v in literal_types().items()}
    out = []
    for t in tokenize(text, literal_types()):
        out.append((names.get(t.type, t.type), t.value, t.line, t.column))
    return out


def test_blanks_after_tokens_keep_each_token_its_column() -> None:
    # a = f( x ,  1 )   -> columns: a 1, = 3, f 5, ( 6, x 8, , 10, 1 13, ) 15
    assert tokens("a = f( x ,  1 )\n") == [
        ("NAME", "a", 1, 1), ("=", "=", 1, 3), ("NAME", "f", 1, 5), ("(", "(", 1, 6),
        ("NAME", "x", 1, 8), (",", ",", 1, 10), ("NUMBER", "1", 1, 13), (")", ")", 1, 15),
        ("_NEWLINE", "\n", 1, 16)]


def test_tabs_and_form_feeds_after_a_token_are_blanks() -> None:
    assert tokens("a\t=\f1\n") == [("NAME", "a", 1, 1), ("=", "=", 1, 3),
                                   ("NUMBER", "1", 1, 5), ("_NEWLINE", "\n", 1, 6)]


def test_a_number_followed_by_a_blank_and_a_name_is_two_tokens() -> None:
    # `1 x` is a number then a name to Python's tokenizer (a syntax error later, not an
    # "invalid number literal"); `1x` is the tokenizer's own error.
    assert [t[0] for t in tokens("a = 1 x\n")] == ["NAME", "=", "NUMBER", "NAME", "_NEWLINE"]
    with pytest.raises(SyntaxError):
        compile("a = 1x\n", "<t>", "exec")
    with pytest.raises(SourceError) as e:
        tokens("a = 1x\n")
    assert e.value.loc == Loc(1, 5)


def test_a_dot_after_blanks_starts_a_number_or_is_an_attribute() -> None:
    # `.5` is a float; `a .b` is the attribute b of a (Python reads both so).
    assert tokens("x = .5\n")[2] == ("NUMBER", ".5", 1, 5)
    assert [t[:2] for t in tokens("x = a .b\n")][2:5] == [("NAME", "a"), (".", "."),
                                                        ("NAME", "b")]


def test_a_string_prefix_is_not_a_name() -> None:
    assert [t[:2] for t in tokens('x = r"a\\b" rb\n')][2:4] == [("STRING", 'r"a\\b"'),
                                                                ("NAME", "rb")]


def test_a_line_continuation_after_a_blank() -> None:
    # x = 1 \ (newline) + 2: one logical line; the `+` is on line 2, column 2.
    assert tokens("x = 1 \\\n + 2\n") == [
        ("NAME", "x", 1, 1), ("=", "=", 1, 3), ("NUMBER", "1", 1, 5), ("+", "+", 2, 2),
        ("NUMBER", "2", 2, 4), ("_NEWLINE", "\n", 2, 5)]


def test_a_comment_after_blanks_ends_the_line() -> None:
    assert tokens("x = 1   # one\ny = 2\n")[3] == ("_NEWLINE", "\n", 1, 14)


def test_a_decorator_with_blanks_still_marks_a_primfunc() -> None:
    # `@ T.prim_func` is the PrimFunc decorator: its body is taken whole (PRIMBODY).
    text = "@ T.prim_func\ndef f():\n    T.evaluate(0)\n"
    assert ("PRIMBODY", "    T.evaluate(0)\n", 3, 1) in tokens(text)


@pytest.mark.parametrize("text, loc", [
    ("  x = 1\n", Loc(1, 3)),  # indented first line
    ("\f x = 1\n", Loc(1, 3)),  # a form feed resets the column; the blank after it counts
    ("  \\x\n", Loc(1, 3)),  # a stray backslash is still first of all an indented token
])
def test_an_indented_first_line_is_refused(text: str, loc: Loc) -> None:
    with pytest.raises(SyntaxError):
        compile(text, "<t>", "exec")
    with pytest.raises(SourceError, match="unexpected indent") as e:
        tokens(text)
    assert e.value.loc == loc


@pytest.mark.parametrize("text", ["  # a comment\nx = 1\n", "  \nx = 1\n", "\fx = 1\n"])
def test_blank_or_continued_first_lines_are_not_indentation(text: str) -> None:
    compile(text, "<t>", "exec")  # Python reads them
    stmts = parse_syntax(text)
    assert len(stmts) == 1 and isinstance(stmts[0], S.Assign)
