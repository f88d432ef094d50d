"""The facts issue 44 added to proof/facts.py: the graph key (proof/keys.py), the one
storage unit of a verify, the facts matched to the original's by position, and what the
prover does not read listed as unproven. Each expected pair of values is derived by hand in
the comment beside it."""

from __future__ import annotations

import pytest

from cudagraph_cli import api
from cudagraph_cli.proof.facts import prove_modules, shape_facts
from cudagraph_cli.exec.verify import verify
from cudagraph_cli.report.verify_view import verify_json, verify_text

# b in 1..64, s in 1..512. The graph is given x (b, s) and y (DIM, 16): it depends on b, s
# and whatever DIM holds.
KEYED = """
@I.ir_module
class Module:
    @R.function(private=True)
    def cap(x: R.Tensor(("b", "s"), dtype="float16"), y: R.Tensor((DIM, 16), dtype="float16")) -> R.Tuple:
        b = T.int64()
        s = T.int64()
        R.func_attr({"relax.force_pure": True})
        _: R.Any = R.call_packed("kern", x, y)
        gv: R.Tuple = R.tuple()
        return gv

    @R.function
    def main(x: R.Tensor(("b", "s"), dtype="float16")) -> R.Tuple:
        b = T.int64()
        s = T.int64()
        R.func_attr({"relax.force_pure": True, "tir_var_upper_bound": {"b": 64, "s": 512}})
        cls = Module
        y: R.Tensor((DIM, 16), dtype="float16") = R.builtin.alloc_tensor(R.shape([DIM, 16]), R.dtype("float16"), R.prim_value(0))
        g: R.Tuple = R.call_builtin_with_ctx("vm.builtin.cuda_graph.run_or_capture", (cls.cap, (x, y), R.prim_value(0), KEY), ty_args=(R.Tuple,))
        return g
"""


def key_facts(key: str, dim: str = "b"):
    text = KEYED.replace("KEY", key).replace("DIM", dim)
    facts = shape_facts(api.loads(text))
    return [f for f in facts.facts if f.kind == "key"]


@pytest.mark.parametrize("key", ["R.shape([b, s])", "R.shape([s, b])", "R.shape([b + 1, s])",
                                 "R.shape([b * 2 + 3, 4 * s])",
                                 # b from its own component, then s from b * 512 + s
                                 "R.shape([b, b * 512 + s])"])
def test_a_one_to_one_key_is_proved(key):
    [f] = key_facts(key)
    assert f.status == "proved", f.message
    assert f.loc.line == 20


@pytest.mark.parametrize("key,pair", [
    # b // 2: 1 -> 0, 2 -> 1, 3 -> 1: 2 and 3 are the first two with one key.
    ("R.shape([b // 2, s])", "at b = 2 and 3 (s = 1): one key (1, 1), a graph captured at 2 "
                             "replayed at 3"),
    # T.min(b, 8): 8 and 9 both give 8.
    ("R.shape([T.min(b, 8), s])", "at b = 8 and 9 (s = 1): one key (8, 1)"),
    # s missing: b = 1, s = 1 and b = 1, s = 2 share the key (1).
    ("R.shape([b])", "at s = 1 and 2 (b = 1): one key (1), a graph captured at 1 replayed at 2"),
    # no key at all: the same two values.
    ("R.shape([])", "at s = 1 and 2 (b = 1): one key ()"),
    # a bucketed key, (b + 7) // 8 * 8: b = 1 and 2 both give 8, while x is (b, s).
    ("R.shape([(b + 7) // 8 * 8, s])", "at b = 1 and 2 (s = 1): one key (8, 1)"),
])
def test_a_key_two_values_share_fails_at_the_smallest_two(key, pair):
    [f] = key_facts(key)
    assert f.status == "failed"
    assert f.message.startswith(pair), f.message
    assert "depends on b, s" in f.message


def test_a_bucketed_key_whose_shapes_are_bucketed_is_proved():
    # The graph is given only y ((b + 7) // 8 * 8, 16) and s: every b of one bucket has one
    # graph. b is not recovered from the key; all 64 of its values are tried.
    text = KEYED.replace("KEY", "R.shape([(b + 7) // 8 * 8, s])").replace(
        "DIM", "(b + 7) // 8 * 8").replace(
        '(cls.cap, (x, y)', '(cls.cap2, (y, R.shape([s]))').replace(
        '    @R.function\n    def main', '''    @R.function(private=True)
    def cap2(y: R.Tensor(("c", 16), dtype="float16"), s: R.Shape(["s"])) -> R.Tuple:
        c = T.int64()
        s = T.int64()
        R.func_attr({"relax.force_pure": True})
        gv: R.Tuple = R.tuple()
        return gv

    @R.function
    def main''')
    [f] = [f for f in shape_facts(api.loads(text)).facts if f.kind == "key"]
    assert f.status == "proved", f.message
    assert f.claim[0] == "key"


def test_a_key_too_large_to_search_is_unproven():
    # 512 * b + s is one-to-one on s in 1..512, but it recovers neither variable alone, and
    # 64 * 512 values are more than the search tries: unproven, never proved.
    [f] = key_facts("R.shape([b * 512 + s])")
    assert f.status == "unproven"
    assert "does not recover b, s" in f.message


def test_an_unbounded_variable_still_shows_a_shared_key():
    # Without a bound on b the search tries its first values: 2 and 3 share b // 2.
    text = KEYED.replace("KEY", "R.shape([b // 2, s])").replace("DIM", "b").replace(
        '"b": 64, ', "")
    [f] = [f for f in shape_facts(api.loads(text)).facts if f.kind == "key"]
    assert f.status == "failed" and f.values == {"b": 3, "s": 1}


def test_the_key_fact_is_the_verify_difference_and_in_the_json():
    ok = api.loads(KEYED.replace("KEY", "R.shape([b, s])").replace("DIM", "b"))
    bad = api.loads(KEYED.replace("KEY", "R.shape([b // 2, s])").replace("DIM", "b"))
    report = verify(ok, bad, calls=1, shapes={"b": [1], "s": [1]})
    d = report.difference
    assert d.kind == "shape" and d.loc.line == 20 and d.site == "the key fact that fails"
    assert d.message.startswith("at b = 2 and 3 (s = 1): one key (1, 1), a graph captured "
                                "at 2 replayed at 3")
    same = verify(ok, ok, calls=1, shapes={"b": [1], "s": [1]})
    counts = verify_json(same, "a", "a")["shape_facts"]
    assert counts["by_kind"] == {"key": {"proved": 1, "failed": 0, "unproven": 0}}
    assert "; 1 graph key tells apart every value its graph depends on), 0 unproven" in \
        verify_text(same, "a", "a")


# ---- the prover is total: what it does not read is unproven -----------------------------

def test_a_launch_whose_arguments_are_not_a_tuple_is_unproven():
    text = KEYED.replace("KEY", "R.shape([b, s])").replace("DIM", "b").replace(
        "        g: R.Tuple = R.call_builtin_with_ctx(\"vm.builtin.cuda_graph.run_or_capture\", "
        "(cls.cap, (x, y),",
        "        args: R.Tuple(R.Tensor((b, s), dtype=\"float16\"), R.Tensor((b, 16), "
        "dtype=\"float16\")) = (x, y)\n"
        "        g: R.Tuple = R.call_builtin_with_ctx(\"vm.builtin.cuda_graph.run_or_capture\", "
        "(cls.cap, args,")
    facts = shape_facts(api.loads(text)).facts
    [d] = [f for f in facts if f.kind == "disjoint"]
    assert d.status == "unproven" and d.loc.line == 21
    assert "not followed: its arguments are not a tuple written at the launch" in d.message
    # the key is still read, from the arguments' type
    [k] = [f for f in facts if f.kind == "key"]
    assert k.status == "proved"


def test_a_tensor_in_a_storage_the_text_does_not_resolve_is_unproven():
    text = """
@I.ir_module
class Module:
    @R.function
    def main(storage: R.Any) -> R.Tensor((4,), dtype="float32"):
        R.func_attr({"relax.force_pure": True})
        a: R.Tensor((4,), dtype="float32") = R.memory.alloc_tensor(storage, R.prim_value(0), R.shape([4]), R.dtype("float32"))
        return a
"""
    [f] = shape_facts(api.loads(text)).facts
    assert (f.kind, f.status, f.loc.line) == ("fits", "unproven", 7)
    assert "its storage is not one the text resolves" in f.message


# ---- facts matched by what they are, not by name -----------------------------------------

# a and b overlap at offset 0 of one storage on purpose (both alive at the kern call); c is
# placed at 64, after them.
SHARED = """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((16,), dtype="float32")) -> R.Tensor((16,), dtype="float32"):
        R.func_attr({"relax.force_pure": True})
        storage: R.Any = R.memory.alloc_storage(R.shape([128]), R.prim_value(0), R.str("global"), R.dtype("float32"))
        A: R.Tensor((16,), dtype="float32") = R.memory.alloc_tensor(storage, R.prim_value(OA), R.shape([16]), R.dtype("float32"))
        B: R.Tensor((16,), dtype="float32") = R.memory.alloc_tensor(storage, R.prim_value(OB), R.shape([16]), R.dtype("float32"))
        C: R.Tensor((16,), dtype="float32") = R.memory.alloc_tensor(storage, R.prim_value(OC), R.shape([16]), R.dtype("float32"))
        _: R.Any = R.call_packed("kern", x, A, B, C)
        y: R.Tensor((16,), dtype="float32") = R.builtin.alloc_tensor(R.shape([16]), R.dtype("float32"), R.prim_value(0))
        _1: R.Any = R.call_packed("kern", A, B, C, y)
        return y
"""


def shared(oa, ob, oc, names=("a", "b", "c")):
    text = SHARED.replace("OA", str(oa)).replace("OB", str(ob)).replace("OC", str(oc))
    for old, new in zip("ABC", names):
        text = text.replace(f"{old}: R.Tensor", f"{new}: R.Tensor").replace(
            f"{old},", f"{new},").replace(f"{old})", f"{new})")
    return api.loads(text)


def test_an_overlap_the_original_has_too_is_no_difference():
    original = shared(0, 0, 64)
    shapes = prove_modules(original, shared(0, 0, 64, ("p", "q", "r")), None)
    assert shapes.failure() is None and len(shapes.kept()) == 2


def test_an_overlap_of_other_tensors_with_the_original_names_is_a_difference():
    # The original overlaps its 1st and 2nd tensors (a, b). The rewrite overlaps its 1st and
    # 3rd, named a and b (the 2nd is c): by name the same pair, by position another.
    original = shared(0, 0, 64)
    rewritten = shared(0, 64, 0, ("a", "c", "b"))
    shapes = prove_modules(original, rewritten, None)
    which, fact = shapes.failure()
    assert (which, fact.kind, fact.subject) == ("rewritten", "disjoint", (1, 3))
    assert "'b' (64 bytes at offset 0) overlaps 'a'" in fact.message


# ---- one unit for both modules --------------------------------------------------------------

# One float16 tensor of 1024 elements (2048 bytes) at offset 0 of a storage of SIZE.
UNIT = """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1024,), dtype="float16")) -> R.Tensor((1024,), dtype="float16"):
        R.func_attr({"relax.force_pure": True})
        storage: R.Any = R.memory.alloc_storage(R.shape([SIZE]), R.prim_value(0), R.str("global"), R.dtype("float16"))
        a: R.Tensor((1024,), dtype="float16") = R.memory.alloc_tensor(storage, R.prim_value(0), R.shape([1024]), R.dtype("float16"))
        _: R.Any = R.call_packed("vm.builtin.copy", x, a)
        y: R.Tensor((1024,), dtype="float16") = R.builtin.alloc_tensor(R.shape([1024]), R.dtype("float16"), R.prim_value(0))
        _1: R.Any = R.call_packed("vm.builtin.copy", a, y)
        return y
"""


def unit_module(size: int, extra: str = ""):
    return api.loads(UNIT.replace("SIZE", str(size)).replace("        return y", extra +
                                                               "        return y"))


def test_a_rewrite_alone_sized_in_elements_is_a_shape_difference():
    # The original sizes in bytes (2048 for 1024 float16); the rewrite's storage of 1024
    # reads as 1024 elements alone, but in the original's unit it is 1024 bytes short.
    report = verify(unit_module(2048), unit_module(1024), calls=1)
    d = report.difference
    assert d.kind == "shape" and d.loc.line == 8 and d.site == "the unit fact that fails"
    assert d.message.startswith("'a' (1,024 float16 elements, 2,048 bytes) at offset 0 in a "
                                "storage of 1,024: the rewritten module sizes this storage in "
                                "elements, the original sizes every storage in bytes")
    assert not report.warnings  # read in bytes: no storage grown, no warning


def test_a_rewrite_alone_sized_in_elements_fails_its_runs_too():
    report = verify(unit_module(2048), unit_module(1024), calls=1, facts=False)
    assert report.difference.kind == "shape"
    assert "a tensor of 2048 bytes at offset 0 does not fit its storage of 1024 bytes" in \
        report.difference.message


def test_both_modules_sized_in_elements_verify_equal():
    # Both hold 1024 float16 in a storage of 1024: in elements, as TVM's test modules are.
    report = verify(unit_module(1024), unit_module(1024, "        # same\n"), calls=1)
    assert report.equal, report.difference
    assert report.shapes.count("failed") == 0


def test_a_rewrite_of_a_module_sized_in_elements_is_read_in_elements():
    # The original sizes in elements; a rewrite that gives the storage 2048 is read as 2048
    # elements too (more than needed), not as another unit: equal.
    report = verify(unit_module(1024), unit_module(2048), calls=1)
    assert report.equal, report.difference


def test_a_call_that_may_return_an_alias_of_a_placed_tensor_is_unproven():
    # samples/branches/nested_function_before.relax: `y = inner(alloc)` calls a closure
    # given the placed tensor `alloc`: whether y aliases alloc is not read.
    from conftest import ROOT
    module = api.load(ROOT / "samples" / "branches" / "nested_function_before.relax")
    [f] = [f for f in shape_facts(module).unproven if f.kind == "disjoint"]
    assert f.loc.line == 34
    assert f.message.startswith("'y' is the result of a call the prover does not read, "
                                "given 'alloc'")


def test_cgraph_verify_exits_1_at_a_shared_key_and_at_a_rewrite_sized_in_elements(tmp_path):
    from conftest import run_cli
    pairs = {"key": (KEYED.replace("KEY", "R.shape([b, s])").replace("DIM", "b"),
                     KEYED.replace("KEY", "R.shape([b // 2, s])").replace("DIM", "b"),
                     "rewritten.relax:20:9: note: the key fact that fails"),
             "unit": (UNIT.replace("SIZE", "2048"), UNIT.replace("SIZE", "1024"),
                      "rewritten.relax:8:9: note: the unit fact that fails")}
    for name, (a, b, note) in pairs.items():
        (tmp_path / "original.relax").write_text(a)
        (tmp_path / "rewritten.relax").write_text(b)
        r = run_cli("verify", str(tmp_path / "original.relax"),
                    str(tmp_path / "rewritten.relax"), "--calls", "1")
        out = r.stdout.decode()
        assert r.returncode == 1, (name, out, r.stderr.decode())
        assert out.startswith("differ: shape in the rewritten module"), out
        assert note in out, out
