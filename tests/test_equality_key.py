"""One encoding of structural equality: `structural_key` and the `Matcher` cannot disagree.

Both come from one description (ir/equality.py: `Encoder` for expressions, PrimExprs and struct
info, the Matcher's walk for functions, which the key runs noting instead of comparing). These
tests hold them to it over every pair of Relax functions the samples give, read twice (so that
equal functions made of different objects meet) and rewritten (capture and allocation functions
that recur across samples).
"""

from __future__ import annotations

import itertools
import re

import pytest

from conftest import SAMPLES, for_every_sample_test
from cudagraph_cli import ir
from cudagraph_cli.ir.equality import functions_equal, structural_key
from cudagraph_cli.passes.pipeline import rewrite
from cudagraph_cli.text.reader import parse_module

# decode_32 alone is a thousand bindings; its smaller kin cover the same constructs.
SKIP = {"decode_32.relax"}


def sample_functions() -> list:
    fs = []
    for path in for_every_sample_test(sorted(SAMPLES.rglob("*.relax"))):
        if path.name in SKIP:
            continue
        text = path.read_text()
        try:
            first = parse_module(text)
        except Exception:  # samples of bad input are not what this is about
            continue
        second = parse_module(text)
        fs += [(f"{path.name}:{f.name}", f) for f in first.relax_functions()]
        fs += [(f"{path.name}:{f.name}'", f) for f in second.relax_functions()]
        try:
            out, _ = rewrite(first)
        except Exception:
            continue
        fs += [(f"{path.name}:{f.name} rewritten", f) for f in out.relax_functions()]
    return fs


@pytest.fixture(scope="module")
def functions():
    return sample_functions()


def test_keys_are_equal_exactly_when_the_matcher_finds_no_difference(functions):
    keys = [structural_key(f) for _, f in functions]
    equal_pairs = unequal_pairs = 0
    for (i, (na, a)), (j, (nb, b)) in itertools.combinations(enumerate(functions), 2):
        same_key = keys[i] == keys[j]
        equal = functions_equal(a, b)
        assert same_key == equal, (na, nb, same_key, equal)
        if equal:
            equal_pairs += 1
        else:
            unequal_pairs += 1
    # Both answers were put to the test, and not only on a function and its twin read.
    assert unequal_pairs > 1000
    assert equal_pairs > len(functions) // 2


def test_equal_keys_hash_equal(functions):
    by_key: dict = {}
    for _, f in functions:
        by_key.setdefault(structural_key(f), []).append(f)
    assert any(len(v) > 2 for v in by_key.values())  # not only twins: shared capture functions


TWO_SYMS = ('@I.ir_module\nclass Module:\n    @R.function\n'
            '    def main(x: R.Tensor(("m", "n"), "float32")) -> R.Tensor(("m", "n"), "float32"):\n'
            '        m = T.int64()\n'
            '        n = T.int64()\n'
            '        y: R.Tensor((m, n), "float32") = R.add(x, x)\n'
            '        return y\n')


@pytest.mark.parametrize("old,new", [
    ('-> R.Tensor(("m", "n")', '-> R.Tensor(("n", "m")'),  # symbolic vars map one to one
    ("R.add(x, x)", "R.multiply(x, x)"),
    ("y: R.Tensor((m, n)", "y: R.Tensor((m, m)"),
])
def test_one_difference_changes_the_key(old, new):
    a = parse_module(TWO_SYMS).function("main")
    b = parse_module(TWO_SYMS.replace(old, new, 1)).function("main")
    assert not functions_equal(a, b)
    assert structural_key(a) != structural_key(b)
    renamed_text = re.sub(r"\bm\b", "p", re.sub(r"\bn\b", "q", re.sub(r"\by\b", "z", TWO_SYMS)))
    assert "z: R.Tensor((p, q)" in renamed_text
    renamed = parse_module(renamed_text).function("main")
    assert functions_equal(a, renamed) and structural_key(a) == structural_key(renamed)


def test_unknown_struct_info_on_one_side_is_the_one_exception():
    # The Matcher leaves a place open where cgraph could not deduce struct info (None), and
    # that relation is not transitive (None matches both R.Tensor((2,)) and R.Tensor((3,)),
    # which differ), so no key can say it: the key says "unknown" and differs.
    a = parse_module(TWO_SYMS).function("main")
    b = parse_module(TWO_SYMS).function("main")
    b.blocks[0].bindings[0].var.sinfo = None
    assert functions_equal(a, b)
    assert structural_key(a) != structural_key(b)
    # Unknown on both sides: equal both ways.
    a.blocks[0].bindings[0].var.sinfo = None
    assert functions_equal(a, b) and structural_key(a) == structural_key(b)


def test_free_vars_are_themselves():
    # A var defined in neither function (the rewriter builds functions from shared parts):
    # equal when it is the same var, whatever the name.
    free, other = ir.Var("v"), ir.Var("v")

    def returning(v):
        return ir.Function("f", (), None, (), v)

    assert functions_equal(returning(free), returning(free))
    assert structural_key(returning(free)) == structural_key(returning(free))
    assert not functions_equal(returning(free), returning(other))
    assert structural_key(returning(free)) != structural_key(returning(other))
