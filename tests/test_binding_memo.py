"""The binding memo (text/builder/binding_memo.py) builds what the general way builds.

Every check reads one text twice, both times through line templates and lazily (as reader.py
reads a big text): once with the memo, once without. The two modules must be the same node for
node: same classes, equal fields and positions, and the same sharing (where one module has one
object, a var, a call, a symbolic var, in two places, the other has one object there too);
nodes compared by value (struct infos, integers, ops) only compare equal. Or both readings fail
with the same located error. Texts: every sample, TVM's model dumps, generated modules,
seeded mutants, and random function bodies built from a few line shapes whose names are vars
of different struct info, symbolic variables, repeated names and undefined ones.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import fuzz
from cudagraph_cli import ir
from cudagraph_cli.diagnostics import SourceError
from cudagraph_cli.gen import chain_module, decode_module
from cudagraph_cli.ir.nodes import ValueNode
from cudagraph_cli.text import parser, printer
from cudagraph_cli.text.builder import ModuleBuilder, binding_memo

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted((ROOT / "samples").rglob("*.relax"))


@pytest.fixture(autouse=True)
def learn_at_once(monkeypatch):
    # The bodies here are short: the memo learns from the first line on (in use, from
    # binding_memo.LEARN_FROM lines on, where learning starts to pay).
    monkeypatch.setattr(binding_memo, "LEARN_FROM", 0)


def build(text: str, memo: bool):
    """(module, None), or (None, the error as a user sees it); `memos` the memos used."""
    builder = ModuleBuilder()
    builder.binding_memo = memo
    try:
        stmts = parser.parse_syntax(text, templates=True, lazy=True)
        return builder.build(stmts, []), None
    except SourceError as e:
        return None, e.located("f.relax", text).render()


class Mismatch(AssertionError):
    pass


def same_ir(a, b, pairs: dict, back: dict, path: str = "module") -> None:
    """Raise Mismatch (with the path to it) unless `a` and `b` are the same IR."""
    if type(a) is not type(b):
        raise Mismatch(f"{path}: {type(a).__name__} vs {type(b).__name__}")
    if isinstance(a, ValueNode):  # by value, but its symbolic vars by the pairing
        for f in ir.field_names(a):
            same_ir(getattr(a, f), getattr(b, f), pairs, back, f"{path}.{f}")
        return
    if isinstance(a, ir.nodes.Node):
        seen = pairs.get(id(a))
        if seen is not None or id(b) in back:
            if seen is not b or back.get(id(b)) is not a:
                raise Mismatch(f"{path}: shared differently")
            return
        pairs[id(a)], back[id(b)] = b, a
        for f in ir.field_names(a):
            same_ir(getattr(a, f), getattr(b, f), pairs, back, f"{path}.{f}")
        return
    if type(a) in (tuple, list):
        if len(a) != len(b):
            raise Mismatch(f"{path}: {len(a)} vs {len(b)} items")
        for i, (x, y) in enumerate(zip(a, b)):
            same_ir(x, y, pairs, back, f"{path}[{i}]")
        return
    if a != b:
        raise Mismatch(f"{path}: {a!r} vs {b!r}")


def assert_same_build(text: str) -> ir.Module | None:
    with_memo, error = build(text, True)
    without, plain_error = build(text, False)
    assert error == plain_error
    if plain_error is None:
        same_ir(with_memo, without, {}, {})
        assert printer.print_module(with_memo) == printer.print_module(without)
    return with_memo


class Counting:
    """The memos a reading makes, for their counts."""

    def __init__(self, monkeypatch):
        self.memos = []
        real = binding_memo.BindingMemo.__init__

        def init(memo, *args):
            real(memo, *args)
            self.memos.append(memo)

        monkeypatch.setattr(binding_memo.BindingMemo, "__init__", init)


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_sample_builds_the_same(path):
    assert_same_build(path.read_text())


GENERATED = {
    "decode-64": decode_module(64),
    "prefill-decode-8": decode_module(8, functions=("prefill", "decode"), hidden=64),
    "chain-200": chain_module(200),
}


@pytest.mark.parametrize("name", sorted(GENERATED))
def test_generated_modules_build_the_same_and_mostly_by_copy(name, monkeypatch):
    counting = Counting(monkeypatch)
    assert_same_build(GENERATED[name])
    memos = [m for m in counting.memos if m.lines]
    lines = sum(m.lines for m in memos) // 2  # each text is built twice, once with memos
    copied = sum(m.copied for m in memos)
    assert copied >= 0.8 * lines, (copied, lines)


def test_the_llama_dump_builds_the_same_and_partly_by_copy(monkeypatch):
    counting = Counting(monkeypatch)
    assert_same_build((ROOT / "samples/real/nn_llama_kv.before.relax").read_text())
    assert sum(m.copied for m in counting.memos) > 0


# ---- random bodies: a few shapes of line, the names in them drawn from a pool

HEADER = """@I.ir_module
class Module:
    @T.prim_func
    def k(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32")):
        T.evaluate(0)

    @R.function
    def main(x: R.Tensor((4,), "float32"), y: R.Tensor((8,), "float32"), o: R.Any, sh: R.Shape([4]), p: R.Prim("int64"), n: R.Prim("int64")):
        m = T.int64()
        R.func_attr({"num_input": 1})
        cls = Module
        st = R.memory.alloc_storage(R.shape([16]), 0, "global", "float32")
        tu = R.tuple(x, sh)
"""

# (line, the kinds of {a} and {b}, the kind of {t}): {t} the name bound, {a} and {b} names
# used. Kinds: t4, t8 (tensors of 4 and 8 floats), any, shape, prim, sym (a symbolic variable),
# storage, tuple; "same" is the kind of {a}.
SHAPES = [
    ("{t} = R.add({a}, {b})", ("t4", "t4"), "t4"),
    ("{t} = R.add({a}, {b})", ("t8", "t8"), "t8"),
    ("{t}: R.Tensor((4,), \"float32\") = R.add({a}, {b})", ("t4", "t4"), "t4"),
    ("{t}: R.Any = {a}", ("t4", None), "same"),
    ("{t} = {a}", ("t8", None), "same"),
    ("cls.k({a}, {b})", ("t4", "t4"), None),
    ("Module.k({a}, {b})", ("t4", "t4"), None),
    ("R.memory.kill_tensor({a})", ("t4", None), None),
    ("{t} = R.prim_value({a})", ("sym", None), "prim"),
    ("{t} = R.shape([{a}, 4])", ("sym", None), "shape"),
    ("{t}: R.Tensor((m,), \"float32\") = R.match_cast({a}, R.Tensor((m,), \"float32\"))",
     ("t8", None), "tm"),
    ("{t} = R.call_packed(\"f\", {a}, {b}, sinfo_args=(R.Object,))", ("t4", "prim"), "any"),
    ("{t} = R.call_packed(\"f\", {a}, {b}, ty_args=(R.Any,))", ("t8", "shape"), "any"),
    ("{t} = R.memory.alloc_tensor({a}, 0, R.shape([4]), \"float32\")", ("storage", None),
     "t4"),
    ("{t}: R.Tensor((4,), \"float32\") = R.memory.alloc_tensor({a}, 0, R.shape([4]), "
     "\"float32\")", ("storage", None), "t4"),
    ("{t} = R.memory.alloc_storage(R.shape([16]), 0, \"global\", \"float32\")", (None, None),
     "storage"),
    ("{t} = R.tuple({a}, {b})", ("t4", "shape"), "tuple"),
    ("{t} = {a}[0]", ("tuple", None), "t4"),
]
RARE = ["cls = Module", "q = T.int64()", "R.func_attr({{\"k\": 1}})", "f = lambda z: z",
        "{t}, {u} = R.tuple({a}, {b})", "r = f(x)"]
KINDS = {"t4": ["x"], "t8": ["y"], "any": ["o"], "shape": ["sh"], "prim": ["p", "n"],
         "sym": ["m"], "storage": ["st"], "tuple": ["tu"], "tm": []}
OTHER_NAMES = ["q", "nope", "R", "cls", "f"]


def random_body(rng: random.Random) -> str:
    """A body of a few shapes of line, its names mostly of the kind each place wants."""
    shapes = rng.sample(SHAPES, rng.randint(2, 7))
    if not any(line.startswith("{t} = R.memory.alloc_storage") for line, _, _ in shapes):
        shapes.append(SHAPES[-3])
    kinds = {k: list(v) for k, v in KINDS.items()}
    everything = [n for v in kinds.values() for n in v] + OTHER_NAMES

    def pick(kind):
        if kind is None:
            return "x"
        if rng.random() < 0.98 and kinds[kind]:
            return rng.choice(kinds[kind][-4:])
        return rng.choice(everything)

    lines = []
    for i in range(rng.randint(10, 60)):
        if rng.random() < 0.02:
            line, (ka, kb), kt = rng.choice(RARE), ("t4", "t4"), None
        else:
            line, (ka, kb), kt = rng.choice(shapes)
        target = f"v{i}" if rng.random() < 0.9 else rng.choice(everything)
        a = pick(ka)
        b = a if kb == ka and rng.random() < 0.3 else pick(kb)
        lines.append("        " + line.format(t=target, u=f"w{i}", a=a, b=b))
        if kt is not None and "{t}" in line:
            kind = next((k for k, v in kinds.items() if a in v), "any") if kt == "same" else kt
            for v in kinds.values():
                if target in v:
                    v.remove(target)
            kinds[kind].append(target)
            everything.append(target)
    lines.append(f"        return {rng.choice(everything)}")
    return HEADER + "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", range(6))
def test_random_bodies_build_the_same(seed):
    built = 0
    for i in range(120):
        text = random_body(random.Random(f"memo:{seed}:{i}"))
        built += assert_same_build(text) is not None
    assert built >= 5  # some bodies build (most refer to a name of the wrong kind somewhere)


@pytest.mark.parametrize("seed", range(3))
def test_mutants_build_the_same(seed):
    texts = [GENERATED["prefill-decode-8"], decode_module(16)]
    for i in range(40):
        rng = random.Random(f"memo-mutant:{seed}:{i}")
        text = texts[i % len(texts)]
        for _ in range(rng.choice([1, 2, 3])):
            mutate = fuzz.mutate_tokens if rng.random() < 0.6 else fuzz.mutate_lines
            text, _ = mutate(text, rng)
        assert_same_build(text)


# ---- what a key must tell apart


def body(*lines: str) -> str:
    return HEADER + "\n".join("        " + s for s in lines) + "\n"


def test_a_repeated_var_and_two_vars_are_two_keys():
    # add(a, a) and add(b, c), with b and c of a's struct info: a copy of the first would
    # give add(b, b).
    module = assert_same_build(body(
        "a = R.add(x, x)", "b = R.add(x, x)", "c = R.add(x, x)", "d = R.add(a, a)",
        "e = R.add(a, a)", "g = R.add(b, c)", "return g"))
    g = module.functions[-1].blocks[0].bindings[-1]
    assert [v.name for v in g.value.args] == ["b", "c"]


def test_a_name_read_as_a_symbolic_variable_is_not_copied_as_a_var():
    # `m` is a symbolic variable and, once bound, a Relax var too: R.prim_value(m) reads the
    # symbolic variable; R.prim_value(v) of another var of the same struct info is an error.
    text = body("m = R.prim_value(1)", "a = R.prim_value(m)", "b = R.prim_value(m)",
                "c = R.prim_value(m)", "v = R.prim_value(2)", "d = R.prim_value(v)",
                "return d")
    module, error = build(text, True)
    assert module is None and "undefined symbolic variable 'v'" in error
    assert build(text, False) == (None, error)


def test_a_struct_info_that_differs_is_another_key():
    # After copies of cls.k(x, x), the same line with a var of another shape: the general
    # way's error, at its own line and column (the body starts at line 14).
    text = body("cls.k(x, x)", "cls.k(x, x)", "cls.k(x, x)", "cls.k(y, y)", "return x")
    module, error = build(text, True)
    assert module is None and ":17:15: error: argument 0 of 'cls.k'" in error
    assert build(text, False) == (None, error)


def test_declarations_and_aliases_empty_the_memo(monkeypatch):
    counting = Counting(monkeypatch)
    adds = [f"{{}}{i} = R.add(x, x)" for i in range(4)]
    assert_same_build(body(*[a.format("a") for a in adds], "q = T.int64()",
                           *[a.format("b") for a in adds], "cls2 = Module",
                           *[a.format("c") for a in adds], "return x"))
    memo = counting.memos[0]
    # The header's `tu = R.tuple(x, sh)` is the first line of the adds' shape: every add is
    # a template's, and so are `q = ...` and `cls2 = ...` (the header has the first of their
    # shapes). Each run of four adds: the first seen, the second learnt, two copied.
    assert (memo.lines, memo.learnt, memo.copied) == (14, 3, 6)


def test_votes_value_struct_info_and_positions_are_those_of_the_general_way():
    # sinfo_args and R.Object are legacy spellings, R.Any a current one: the legacy votes of
    # the copied lines decide the dialect. An annotated R.Any keeps its value's struct info:
    # without it, cls.k would refuse o5.
    lines = [f"s{i} = R.call_packed(\"f\", x, sinfo_args=(R.Object,))" for i in range(8)]
    lines += [f"o{i}: R.Any = x" for i in range(6)]
    lines += [f"cls.k(o{i}, x)" for i in range(6)] + ["return x"]
    module = assert_same_build(body(*lines))
    assert module.dialect == "legacy"
    last = module.functions[-1].blocks[0].bindings[-1]
    o5 = module.functions[-1].blocks[0].bindings[-7].var
    assert o5.name == "o5" and last.value.args[0] is o5
    # The body starts at line 14: the last call is at line 33.
    assert (last.loc, last.value.loc, last.var.loc) == ((33, 9), (33, 9), (33, 9))
    assert o5.loc == (27, 9)


def test_a_line_whose_key_comes_once_is_built_the_general_way(monkeypatch):
    # kv_cache_append's layer index differs on every line: never learnt, never copied.
    counting = Counting(monkeypatch)
    lines = [f"R.call_packed(\"append\", x, R.prim_value({i}), ty_args=(R.Tuple,))"
             for i in range(40)]
    assert_same_build(body(*lines, "return x"))
    memo = counting.memos[0]
    assert memo.lines == 39 and memo.copied == 0 and memo.tries == 0  # the first: plain


def test_learning_is_bounded_by_the_lines_read(monkeypatch):
    # Keys that each come twice: at most TRIES_FREE, then one per TRIES_EVERY lines, learnt.
    counting = Counting(monkeypatch)
    lines = []
    for i in range(200):
        lines += [f"a{i}_{j} = R.call_packed(\"f\", x, R.prim_value({i}), ty_args=(R.Tuple,))"
                  for j in range(2)]
    assert_same_build(body(*lines, "return x"))
    memo = counting.memos[0]
    budget = binding_memo.TRIES_FREE + memo.lines // binding_memo.TRIES_EVERY
    assert memo.lines == 399 and budget - 1 <= memo.tries <= budget < 200
