"""Line templates (text/line_templates.py) read exactly what the grammar reads.

Every check compares two readings of one text: the plain one (every token through the LALR
driver) and the one where repeated line shapes are made by templates. They must give the same
syntax tree, positions included, or the same located error. Texts: every sample, generated
modules, seeded mutants of both (tests/fuzz.py's mutations), and random statements whose
names, numbers and strings are swapped for runs of every kind, so that lines of one shape
differ in what a template must check.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

import fuzz
from cudagraph_cli.diagnostics import SourceError
from cudagraph_cli.gen import chain_module, decode_module
from cudagraph_cli.text import lexer, line_templates, parser, printer, syntax
from cudagraph_cli.text.builder import ModuleBuilder
from cudagraph_cli.text.line_templates import LineTemplates, same_syntax

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted((ROOT / "samples").rglob("*.relax"))


@pytest.fixture(autouse=True)
def patterns_at_once(monkeypatch):
    # Each template tries its whole-line pattern from its first line on (in use, from
    # line_templates.PATTERN_AT lines on): the texts here are short.
    monkeypatch.setattr(line_templates, "PATTERN_AT", 1)


def read(text: str, templates: bool):
    """(syntax tree, None) or (None, the error as a user sees it)."""
    try:
        return parser.parse_syntax(text, templates=templates), None
    except SourceError as e:
        return None, e.located("f.relax", text).render()


def assert_same_reading(text: str) -> None:
    plain, plain_error = read(text, False)
    made, made_error = read(text, True)
    assert made_error == plain_error
    if plain_error is None:
        assert same_syntax(made, plain)


def templates_of(text: str) -> LineTemplates:
    """The templates a reading of `text` made and used (the text must read)."""
    tables = parser._tables()
    made = LineTemplates(lambda tokens: parser._drive(tables, tokens), tables.literals)
    parser._drive(tables, lexer.tokenize(lexer.normalize_source(text), tables.literals, made))
    return made


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_sample_reads_the_same(path):
    assert_same_reading(path.read_text())


def built(text: str, templates: bool, lazy: bool):
    """The module's printed text, or the error as a user sees it."""
    try:
        stmts = parser.parse_syntax(text, templates=templates, lazy=lazy)
        module = ModuleBuilder().build(stmts, [])
        return printer.print_module(module), None
    except SourceError as e:
        return None, e.located("f.relax", text).render()


@pytest.mark.parametrize("path", SAMPLES + ["decode-8", "prefill-decode-3", "chain-50"],
                         ids=lambda p: p if isinstance(p, str) else str(p.relative_to(ROOT)))
def test_the_builder_builds_the_same_from_pending_statements(path):
    # reader.py reads big texts lazily: the builder makes each templated statement's nodes
    # when it binds it (syntax.Pending), in every place a statement can stand.
    text = GENERATED[path] if isinstance(path, str) else path.read_text()
    plain = built(text, False, False)
    assert built(text, True, True) == plain
    if isinstance(path, str):
        stmts = parser.parse_syntax(text, templates=True, lazy=True)
        body = [f for f in stmts[0].body if isinstance(f.body, list)][-1].body
        assert sum(type(s) is syntax.Pending for s in body) > len(body) // 2


def test_pending_statements_in_branches_dataflow_and_declarations():
    # Shapes repeated inside an if, a dataflow block and a nested function, a `n = T.int64()`
    # declaration of a templated shape used before it: all read the same lazily.
    text = """@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32"), c: R.Tensor((), "bool")) -> R.Tensor((4,), "float32"):
        a = R.add(x, x)
        m = T.int64()
        y: R.Tensor((n,), "float32") = R.match_cast(a, R.Tensor((n,), "float32"))
        n = T.int64()
        with R.dataflow():
            b = R.add(a, a)
            d = R.add(b, b)
            R.output(d)
        if c:
            e = R.add(d, d)
            g = R.add(e, e)
        else:
            e = R.add(d, x)
            g = R.add(e, x)
        @R.function
        def inner(z: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            h = R.add(z, z)
            k = R.add(h, h)
            return k
        r = inner(g)
        return r
"""
    plain = built(text, False, False)
    assert plain[1] is None
    assert built(text, True, True) == plain
    assert "n = T.int64()" in plain[0] and "R.Tensor((n,)" in plain[0]
    # Everything but the first line of each shape is Pending, `n = T.int64()` among them.
    main = parser.parse_syntax(text, templates=True, lazy=True)[0].body[0]
    assert [type(s).__name__ for s in main.body[:4]] == ["Assign", "Assign", "Assign",
                                                         "Pending"]


GENERATED = {
    "decode-8": decode_module(8),
    "prefill-decode-3": decode_module(3, functions=("prefill", "decode"), hidden=64),
    "chain-50": chain_module(50),
}


@pytest.mark.parametrize("name", sorted(GENERATED))
def test_generated_modules_read_the_same_and_mostly_by_template(name):
    text = GENERATED[name]
    assert_same_reading(text)
    made = templates_of(text)
    module = parser.parse_syntax(text, templates=False)[0]
    statements = sum(len(f.body) for f in module.body if isinstance(f.body, list))
    assert made.made >= 2
    assert made.used >= 0.8 * statements


def test_a_big_text_uses_templates_by_default_and_a_small_one_does_not(monkeypatch):
    calls = []
    real = LineTemplates.statement

    def counting(self, *args):
        calls.append(1)
        return real(self, *args)

    monkeypatch.setattr(LineTemplates, "statement", counting)
    small = GENERATED["decode-8"]
    assert len(small) < parser.TEMPLATES_FROM_BYTES
    parser.parse_syntax(small)
    assert not calls
    big = decode_module(64)
    assert len(big) >= parser.TEMPLATES_FROM_BYTES
    parser.parse_syntax(big)
    assert calls


def test_an_error_in_a_templated_line_is_the_plain_reading_error():
    text = GENERATED["decode-8"]
    lines = text.split("\n")
    # A line of a templated shape, broken three ways: a keyword where a name was (the same
    # shape), an integer with a leading zero (the same shape), a bracket closed twice.
    i = max(i for i, s in enumerate(lines) if "R.memory.kill_tensor(" in s)
    for broken in (re.sub(r"\(alloc\d+\)", "(return)", lines[i]),
                   re.sub(r"\(alloc\d+\)", "(007)", lines[i]),
                   lines[i] + ")"):
        bad = "\n".join(lines[:i] + [broken] + lines[i + 1:])
        plain, error = read(bad, False)
        assert error is not None, broken
        assert read(bad, True) == (None, error)


def test_a_line_of_the_shape_but_not_the_kinds_is_read_the_plain_way():
    # Same shape as the lines before it (runs in the same places), but a run of another kind:
    # a keyword, a float, a number where a name was, a string where a number was.
    base = ["@I.ir_module", "class Module:", "    @R.function", "    def main(x: R.Any):"]
    body = ["        a = R.f(x, 1)", "        b = R.f(a, 2)", "        c = R.f(None, 3)",
            "        d = R.f(b, 4.5)", "        e = R.f(7, 5)", "        g = R.f(b, \"s\")",
            "        h = R.f(b, 0)", "        return h"]
    text = "\n".join(base + body) + "\n"
    assert_same_reading(text)
    made = templates_of(text)
    assert made.made == 1
    assert made.used == 2  # b = ... and h = ...; a is the first of its shape, c to g differ
    nodes = parser.parse_syntax(text, templates=True)
    stmts = nodes[0].body[0].body
    assert [type(s.value.args[1]).__name__ for s in stmts[:7]] == [
        "Num", "Num", "Num", "Num", "Num", "Str", "Num"]
    assert stmts[3].value.args[1].value == 4.5
    # 8 blanks + len("e = R.f(") + 1
    assert (stmts[4].value.args[0].line, stmts[4].value.args[0].col) == (9, 17)


def test_columns_follow_the_lengths_of_the_runs():
    text = ("@I.ir_module\nclass Module:\n    @R.function\n    def main(x: R.Any):\n"
            "        a = R.ff(x, 1, k=\"v\")\n"
            "        longer_name = R.ff(a, 12345, k=\"a much longer string\")\n"
            "        return longer_name\n")
    stmts = parser.parse_syntax(text, templates=True)[0].body[0].body
    assert templates_of(text).used == 1
    call = stmts[1].value
    # Counted by hand: 8 blanks, `longer_name` at offsets 8-18, ` = `, `R.ff` at 22, `(` at
    # 26, `a` at 27, `, `, `12345` at 30-34, `, `, `k` at 37, `=`, the string at 39; a column
    # is the offset plus one.
    assert (stmts[1].line, stmts[1].col) == (6, 9)
    assert (call.line, call.col) == (6, 23)
    assert [(a.line, a.col) for a in call.args] == [(6, 28), (6, 31)]
    assert (call.kwargs[0].col, call.kwargs[0].value.col) == (38, 40)
    assert call.kwargs[0].value.value == "a much longer string"
    assert_same_reading(text)


def test_a_text_of_shapes_that_each_come_twice_makes_few_templates():
    # Making a template costs what reading a dozen of its lines does: a text whose shapes
    # each come twice would read several times slower if each were templated. Attempts are
    # bounded by the lines read (line_templates.TRIES_FREE, TRIES_EVERY).
    from cudagraph_cli.text import line_templates

    body = []
    for k in range(300):
        inner = "x"
        for _ in range(1 + k % 6):
            inner = "(" + ", ".join([inner] + ["x"] * ((k // 6) % 8)) + ",)"
        line = f"        v{{}} ={' ' * (k // 48)} R.tuple({inner})"
        body += [line.format(2 * k), line.format(2 * k + 1)]
    text = "\n".join(["@I.ir_module", "class Module:", "    @R.function",
                      "    def main(x: R.Any):"] + body + ["        return x"]) + "\n"
    made = templates_of(text)
    assert made.lines >= 600
    budget = line_templates.TRIES_FREE + made.lines // line_templates.TRIES_EVERY
    assert budget - 1 <= made.tries <= budget < 300
    assert made.made == made.tries  # each shape a template, but only so many were tried
    assert_same_reading(text)


# ---- mutants: tests/fuzz.py's token and line edits, on texts full of repeated shapes

MUTATED = [GENERATED["decode-8"], GENERATED["prefill-decode-3"]] + [
    p.read_text() for p in SAMPLES if p.stat().st_size < 20_000][:12]


@pytest.mark.parametrize("seed", range(4))
def test_mutants_read_the_same(seed):
    for i in range(150):
        rng = random.Random(f"templates:{seed}:{i}")
        text = MUTATED[i % len(MUTATED)]
        for _ in range(rng.choice([1, 2, 3])):
            mutate = fuzz.mutate_tokens if rng.random() < 0.6 else fuzz.mutate_lines
            text, _ = mutate(text, rng)
        assert_same_reading(text)


# ---- random statements, each shape written several times with runs of every kind

# Runs a template takes, and runs it must refuse (of another kind, or not one token alone).
RUNS = {"name": ["x", "alloc1", "R.memory.alloc_tensor", "cls.f", "a.b.c", "_"],
        "int": ["0", "7", "42"],
        "string": ['"s"', "'t'", '""', '"a b"', '"a#b"']}
ODD_RUNS = ["None", "True", "lambda", "not", "if", "return", "x.5", "a..b", "a.", "007",
            "1.5", "1e5", "1_000", "0x1F", "1j", "3.", ".5", '"\\n"', 'r"x"', 'b"x"', 'f"x"',
            '"""d"""']
ATOMS = ["x", "y1", "R.prim_value(0)", "4096", "-1", '"float16"', "None", "True", "1.5",
         "R.shape([1, 4096])", "()", "[]", "{}", "(x,)", "[x, 2]", '{"k": 1}', "x[0]",
         "f(x).y", "-x", "x + 1 * y", "lambda a: a", "\"a\" 'b'"]


def random_expr(rng: random.Random, depth: int = 0) -> str:
    if depth > 2 or rng.random() < 0.35:
        return rng.choice(ATOMS)
    args = [random_expr(rng, depth + 1) for _ in range(rng.randrange(4))]
    if rng.random() < 0.4:
        args.append(f"{rng.choice(['dtype', 'out_sinfo', 'k'])}={random_expr(rng, depth + 1)}")
    head = rng.choice(["R.call_tir", "cls.kernel", "R.Tensor", "f", "R.tuple"])
    return f"{head}({', '.join(args)})"


def random_statement(rng: random.Random, odd: bool) -> str:
    kind = rng.random()
    if kind < 0.45:
        ann = f": {random_expr(rng, 1)}" if rng.random() < 0.5 else ""
        return f"v{rng.randrange(9)}{ann} = {random_expr(rng)}"
    if kind < 0.8:
        return random_expr(rng)
    if kind < 0.9:
        return f"return {random_expr(rng)}"
    if not odd or rng.random() < 0.7:
        return rng.choice(["pass", "x = y; z = x", "y = x  # note 3"])
    return rng.choice(["x = \\", "x = (1,", "else:", "with R.dataflow():", "@R.function"])


def _kind(run: str) -> str:
    if run[0] in "\"'":
        return "string"
    return "int" if run.isdigit() else "name"


def respell(line: str, rng: random.Random, odd: bool) -> str:
    """The line with some of its runs replaced by runs of any kind."""
    from cudagraph_cli.text.lexer import KEYWORDS
    from cudagraph_cli.text.line_templates import _RUNS_RE

    parts = _RUNS_RE.split(line)
    for j in range(1, len(parts), 2):
        if rng.random() < 0.3:
            if odd:  # any run, odd ones too
                parts[j] = rng.choice(ODD_RUNS if rng.random() < 0.2 else sum(RUNS.values(), []))
            elif parts[j] not in KEYWORDS:  # a run of the same kind
                runs = RUNS[_kind(parts[j])]
                if parts[j + 1].startswith("=") or parts[j - 1].endswith("lambda "):
                    runs = [r for r in runs if "." not in r]  # a keyword or a parameter
                parts[j] = rng.choice(runs)
    return "".join(parts)


@pytest.mark.parametrize("seed", range(6))
def test_random_statements_read_the_same(seed):
    rng = random.Random(f"statements:{seed}")
    for _ in range(40):
        odd = rng.random() < 0.3  # odd runs and statements: mostly a text that does not read
        head = ["@I.ir_module", "class Module:", "    @R.function", "    def main(x: R.Any):"]
        body = []
        for _ in range(rng.randrange(1, 6)):
            line = random_statement(rng, odd)
            for _ in range(rng.randrange(2, 5)):
                body.append("        " + (respell(line, rng, odd) if rng.random() < 0.6 else line))
        rng.shuffle(body)
        assert_same_reading("\n".join(head + body + ["        return x"]) + "\n")
