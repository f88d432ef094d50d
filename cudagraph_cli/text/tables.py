"""grammar/relax.lark -> parse_tables.json: Lark's LALR(1) tables, built ahead and shipped.

    python -m cudagraph_cli.text.tables          # rewrite cudagraph_cli/text/parse_tables.json
    python -m cudagraph_cli.text.tables --check  # exit 1 if it does not match the grammar

Building the tables from the grammar and importing Lark would cost every run more than the rest
of a small command's start; parser.py instead reads parse_tables.json and never imports Lark.
JSON rather than a Python module of literals: compiling that module is slow wherever no
bytecode cache can be written, reading the JSON costs the same everywhere.
The grammar stays the definition of the language: this module (run by `make tables`, checked
by tests/test_parse_tables.py) is the only place the tables come from.

What is written is everything parser.py's driver needs, in a canonical order (states numbered
as a breadth-first walk from the start state reaches them, rules as the walk first reduces
them), so that the file changes only when the language does:

* LITERALS: the text of each literal terminal -> its name (`"def"` -> `DEF`, `"("` -> `LPAR`).
* GRAMMAR_SHA256: of the grammar it was built from (for a reader; the test rebuilds).
* RULES: per rule, [number of symbols, rule name, Transformer method or None, expand1,
  children kept]: Lark's parse-tree shaping, precomputed. `expand1` (a `?rule` without alias)
  returns a lone child as it is; children kept is null when all are, else [index, splice]
  pairs: anonymous punctuation is dropped, and the children of an inlined rule (`_binop`, and
  the helper rules Lark makes for `*` and `+`) are spliced into their parent's.
* STATES: per state, terminal or rule name -> action: `n >= 0` shifts (or, after a reduction
  to a rule, goes) to state n; `n < 0` reduces by rule `-1 - n`.
* START, END: the start state and the state reached when the whole input is accepted.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections import deque
from pathlib import Path

from .parser import ToSyntax, grammar_path

GENERATED = Path(__file__).with_name("parse_tables.json")


def build_tables(grammar: str) -> dict:
    """Lark's LALR(1) analysis of `grammar`, in the canonical layout described above."""
    try:
        from lark import Lark
        from lark.lexer import Lexer
        from lark.parsers.lalr_analysis import Shift
    except ImportError:
        raise SystemExit("building the parser tables needs Lark: pip install 'lark>=1.1.9,<2' "
                         "(a dependency of cgraph; `make tables` installs it)") from None

    class DeclaredOnly(Lexer):
        """Tokens come from lexer.py; Lark needs a lexer class only to accept the grammar's
        %declare'd terminals."""

        def __init__(self, lexer_conf):
            pass

        def lex(self, text):
            raise NotImplementedError

    lark = Lark(grammar, parser="lalr", lexer=DeclaredOnly, maybe_placeholders=False,
                propagate_positions=False, cache=False)
    table = lark.parser.parser.parser.parse_table
    literals = {str(t.pattern.value): str(t.name) for t in lark.terminals
                if t.pattern.type == "str"}

    start = table.start_states["start"]
    numbering = {start: 0}
    order = deque([start])
    rule_index: dict = {}
    rules: list = []
    states: list = []
    while order:
        old = order.popleft()
        row = {}
        for symbol, (action, arg) in sorted(table.states[old].items(), key=lambda kv: str(kv[0])):
            if action is Shift:
                if arg not in numbering:
                    numbering[arg] = len(numbering)
                    order.append(arg)
                row[str(symbol)] = numbering[arg]
            else:
                if id(arg) not in rule_index:
                    rule_index[id(arg)] = len(rules)
                    rules.append(_rule_entry(arg, ToSyntax))
                row[str(symbol)] = -1 - rule_index[id(arg)]
        states.append(row)
    end = table.end_states["start"]
    if end not in numbering:
        raise ValueError("the grammar's accepting state is unreachable")
    return {"GRAMMAR_SHA256": hashlib.sha256(grammar.encode("utf-8")).hexdigest(),
            "LITERALS": dict(sorted(literals.items())), "RULES": rules,
            "STATES": states, "START": 0, "END": numbering[end]}


def _rule_entry(rule, transformer: type) -> tuple:
    """One rule as the driver runs it; see the module docstring. A rule must have a method
    in the Transformer, be inlined, or be a `?rule` that always keeps one child: anything
    else would build a Lark Tree, which the driver does not."""
    name = str(rule.origin.name)
    method = rule.alias or name
    keep_all = rule.options.keep_all_tokens
    # As Lark shapes its trees: a rule named `_x` (or made by Lark for `*`, `+`) is spliced.
    kept = [(i, not sym.is_term and sym.name.startswith("_"))
            for i, sym in enumerate(rule.expansion)
            if keep_all or not (sym.is_term and sym.filter_out)]
    expand1 = bool(rule.options.expand1 and not rule.alias)
    if not hasattr(transformer, method):
        if name.startswith("_"):
            method = None
        elif expand1 and len(kept) == 1 and not kept[0][1]:
            method = None
        else:
            raise ValueError(f"rule {rule} needs a method {method!r} in {transformer.__name__}")
    children = None if len(kept) == len(rule.expansion) and not any(s for _, s in kept) \
        else [list(k) for k in kept]
    return [len(rule.expansion), name, method, expand1, children]


def render(tables: dict) -> str:
    """The text of parse_tables.json: a rule or a state a line, so that a change of the
    grammar shows in a diff as the rows it changes."""
    def dump(value) -> str:
        return json.dumps(value, separators=(",", ":"))

    out = []
    for name, value in tables.items():
        if isinstance(value, list):
            rows = ",\n".join(f"  {dump(row)}" for row in value)
            out.append(f"{dump(name)}: [\n{rows}\n]")
        else:
            out.append(f"{dump(name)}: {dump(value)}")
    return "{\n" + ",\n".join(out) + "\n}\n"


def current_text() -> str:
    """parse_tables.py as the grammar now says it should be."""
    return render(build_tables(grammar_path().read_text(encoding="utf-8")))


def main(argv: list[str]) -> int:
    text = current_text()
    if "--check" in argv:
        shipped = GENERATED.read_text(encoding="utf-8") if GENERATED.exists() else ""
        if shipped != text:
            print(f"{GENERATED} does not match {grammar_path()}: "
                  "run `python -m cudagraph_cli.text.tables` (or `make tables`)", file=sys.stderr)
            return 1
        return 0
    GENERATED.write_text(text, encoding="utf-8")
    print(f"wrote {GENERATED}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
