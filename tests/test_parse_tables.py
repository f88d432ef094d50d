"""The parser tables shipped in the package (cudagraph_cli/text/parse_tables.json) are the ones
Lark builds from grammar/relax.lark today, and reading a module does not import Lark.

When the first test fails, the grammar (or the Transformer's methods) changed without the
tables: regenerate them with `python -m cudagraph_cli.text.tables` (or `make tables`)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import ROOT
from cudagraph_cli.text import tables


def test_shipped_tables_match_the_grammar():
    shipped = tables.GENERATED.read_text(encoding="utf-8")
    rebuilt = tables.current_text()
    assert shipped == rebuilt, ("parse_tables.json is stale: run `python -m "
                                "cudagraph_cli.text.tables` (or `make tables`)")


def test_check_mode_refuses_stale_tables(tmp_path, monkeypatch):
    stale = tmp_path / "parse_tables.json"
    stale.write_text("{}\n", encoding="utf-8")
    monkeypatch.setattr(tables, "GENERATED", stale)
    assert tables.main(["--check"]) == 1
    assert tables.main([]) == 0  # regenerates it ...
    assert tables.main(["--check"]) == 0  # ... and then it matches


def test_tables_describe_the_grammar():
    """Spot checks derived by hand from grammar/relax.lark."""
    t = json.loads(tables.GENERATED.read_text(encoding="utf-8"))
    assert t["LITERALS"]["def"] == "DEF" and t["LITERALS"]["("] == "LPAR"
    rules = {tuple(r[:3]): r for r in t["RULES"]}
    # `assign: exprlist "=" exprlist`: the `=` is anonymous punctuation, dropped.
    assert rules[(3, "assign", "assign")][4] == [[0, False], [2, False]]
    # `?unary: primary`: a lone child is passed through, no method.
    assert rules[(1, "unary", None)][3] is True
    # `_binop: PLUS`: inlined into its parent, no method.
    assert rules[(1, "_binop", None)][4] is None
    # `!empty_tuple: "(" ")"`: kept whole.
    assert rules[(2, "empty_tuple", "empty_tuple")][4] is None
    assert t["START"] == 0 and 0 < t["END"] < len(t["STATES"])


def test_unknown_rule_shape_is_refused():
    """A rule that would need a Lark Tree (no Transformer method, not inlined, not a lone
    child) is refused when the tables are built, not met while reading."""
    grammar = tables.grammar_path().read_text(encoding="utf-8")
    grammar += "\nmystery: NAME NUMBER\n"
    grammar = grammar.replace("| import_stmt\n", "| import_stmt\n            | mystery\n", 1)
    with pytest.raises(ValueError, match="mystery"):
        tables.build_tables(grammar)


def test_reading_does_not_import_lark():
    code = ("import sys; from cudagraph_cli.text.reader import parse_module; "
            f"parse_module(open({str(ROOT / 'samples/tvm/tuple_before.relax')!r}).read()); "
            "print('lark' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True)
    assert out.stdout.strip() == "False"


def test_name_classes_are_pythons():
    """The lexer writes its name classes as the ASCII characters they leave out (cheaper to
    compile); over every code point they are the sets they stand for."""
    import re

    from cudagraph_cli.text import lexer

    start, char = re.compile(lexer.NAME_START), re.compile(lexer.NAME_CHAR)
    for code in range(0x110000):
        ch = chr(code)
        ascii_start = ch.isascii() and (ch.isalpha() or ch == "_")
        assert bool(start.match(ch)) == (ascii_start or not ch.isascii()), hex(code)
        assert bool(char.match(ch)) == (ascii_start or ch.isdigit() and ch.isascii()
                                        or not ch.isascii()), hex(code)
