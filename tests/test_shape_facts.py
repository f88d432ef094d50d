"""What the text proves for every value within the bounds (proof/facts.py): each fact
kind on a small module, wrong (caught, at the smallest values derived by hand in the
comment) and right (proved); the issue's example on the 1B's prefill through `cgraph verify`;
and cgraph's own rewrite of every sample proves all its facts."""

from __future__ import annotations

import json
from pathlib import Path

from cudagraph_cli import api
from cudagraph_cli.proof.facts import shape_facts

from conftest import ROOT, run_cli

# n in 1..64 (tir_var_upper_bound); a (n, 1024) float16 tensor is 2048 * n bytes.
FITS = """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, 1024), dtype="float16")) -> R.Tensor((n, 1024), dtype="float16"):
        n = T.int64()
        R.func_attr({{"relax.force_pure": True{bound}}})
        storage: R.Any = R.memory.alloc_storage(R.shape([{size}]), 0, R.str("global"), R.dtype("float16"))
        a: R.Tensor((n, 1024), dtype="float16") = R.memory.alloc_tensor(storage, 0, R.shape([n, 1024]), R.dtype("float16"), 0)
        _1: R.Any = R.call_packed("kern", x, a)
        y: R.Tensor((n, 1024), dtype="float16") = R.builtin.alloc_tensor(R.shape([n, 1024]), R.dtype("float16"), 0, R.str("global"))
        _2: R.Any = R.call_packed("kern", a, y)
        return y
"""

BOUND = ', "tir_var_upper_bound": {"n": 64}'


def facts(text: str):
    return shape_facts(api.loads(text))


def test_fits_wrong_names_the_smallest_value():
    # 65,536 bytes hold 2048 * n bytes for n <= 32: n = 33 is the first that breaks it
    # (33 * 2048 = 67,584).
    got = facts(FITS.format(bound=BOUND, size=65536))
    [bad] = got.failed
    assert bad.kind == "fits" and bad.values == {"n": 33}
    assert bad.message.startswith(
        "at n = 33: a tensor of 67,584 bytes at offset 0 in a storage of 65,536 bytes")
    assert bad.loc.line == 9


def test_fits_right_is_proved():
    # 131,072 bytes = 64 * 2048: fits at the bound, so at every n.
    got = facts(FITS.format(bound=BOUND, size=131072))
    assert got.count("proved") == 1 and not got.failed and not got.unproven


def test_unbounded_variable_is_unproven_never_proved():
    got = facts(FITS.format(bound="", size=131072))
    assert got.count("proved") == 0 and not got.failed
    [u] = got.unproven
    assert "n has no upper bound" in u.message and "2048 * n <= 131072" in u.message


def test_lower_bound_attribute():
    # n in 40..64 (tir_var_lower_bound): a storage of 65,536 breaks at the least value, 40.
    text = FITS.format(bound=', "tir_var_upper_bound": {"n": 64}, '
                             '"tir_var_lower_bound": {"n": 40}', size=65536)
    assert facts(text).failed[0].values == {"n": 40}


GUARDED = """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, 1024), dtype="float16")) -> R.Tensor((n, 1024), dtype="float16"):
        n = T.int64()
        R.func_attr({"relax.force_pure": True, "tir_var_upper_bound": {"n": 64}})
        storage: R.Any = R.memory.alloc_storage(R.shape([65536]), 0, R.str("global"), R.dtype("float16"))
        cond: R.Prim("bool") = R.prim_value(n <= LIMIT)
        if cond:
            a: R.Tensor((n, 1024), dtype="float16") = R.memory.alloc_tensor(storage, 0, R.shape([n, 1024]), R.dtype("float16"), 0)
            _1: R.Any = R.call_packed("kern", x, a)
            r: R.Tensor((n, 1024), dtype="float16") = a
        else:
            b: R.Tensor((n, 1024), dtype="float16") = R.builtin.alloc_tensor(R.shape([n, 1024]), R.dtype("float16"), 0, R.str("global"))
            _2: R.Any = R.call_packed("kern", x, b)
            r: R.Tensor((n, 1024), dtype="float16") = b
        y: R.Tensor((n, 1024), dtype="float16") = R.builtin.alloc_tensor(R.shape([n, 1024]), R.dtype("float16"), 0, R.str("global"))
        _3: R.Any = R.call_packed("kern", r, y)
        return y
"""


def test_guard_narrows_the_range():
    # Under `n <= 32` the 65,536 bytes hold 2048 * n: proved. Under `n <= 40`, n = 33 breaks.
    assert facts(GUARDED.replace("LIMIT", "32")).count("proved") == 1
    assert not facts(GUARDED.replace("LIMIT", "32")).failed
    assert facts(GUARDED.replace("LIMIT", "40")).failed[0].values == {"n": 33}


# a: (n + 16, 1024) float16, 2048 * n + 32,768 bytes, in a storage of 80 * 2048 = 163,840.
VIEW = """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, 1024), dtype="float16")) -> R.Tensor(dtype="float16", ndim=2):
        n = T.int64()
        R.func_attr({"relax.force_pure": True, "tir_var_upper_bound": {"n": 64}})
        storage: R.Any = R.memory.alloc_storage(R.shape([163840]), 0, R.str("global"), R.dtype("float16"))
        a: R.Tensor((n + 16, 1024), dtype="float16") = R.memory.alloc_tensor(storage, 0, R.shape([n + 16, 1024]), R.dtype("float16"), 0)
        _1: R.Any = R.call_packed("kern", x, a)
        v: R.Tensor((ROWS, 1024), dtype="float16") = R.memory.view(a, R.shape([ROWS, 1024]), R.dtype("float16"), R.prim_value(OFFSET))
        y: R.Tensor((ROWS, 1024), dtype="float16") = R.builtin.alloc_tensor(R.shape([ROWS, 1024]), R.dtype("float16"), 0, R.str("global"))
        _2: R.Any = R.call_packed("kern", v, y)
        return y
"""


def test_view_wrong_at_large_sizes():
    # A (2n, 1024) view at offset 0: 4096 * n <= 2048 * n + 32,768 holds for n <= 16;
    # n = 17 breaks it: 69,632 bytes in a tensor of 67,584.
    got = facts(VIEW.replace("ROWS", "2 * n").replace("OFFSET", "0"))
    [bad] = got.failed
    assert bad.kind == "view" and bad.values == {"n": 17}
    assert bad.message.startswith(
        "at n = 17: a view of 69,632 bytes at offset 0 of a tensor of 67,584 bytes")


def test_view_right_is_proved():
    # A (n, 1024) view at offset 32,768: 2048 * n + 32,768 bytes, exactly the tensor's.
    got = facts(VIEW.replace("ROWS", "n").replace("OFFSET", "32768"))
    assert not got.failed and not got.unproven and got.count("proved") == 2  # fits, view


# a at offset 0 and b at offset OFFSET of one storage, both alive at `kern(a, b)` and after.
DISJOINT = """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, 1024), dtype="float16")) -> R.Tensor((n, 1024), dtype="float16"):
        n = T.int64()
        R.func_attr({"relax.force_pure": True, "tir_var_upper_bound": {"n": 64}})
        storage: R.Any = R.memory.alloc_storage(R.shape([262144]), 0, R.str("global"), R.dtype("float16"))
        a: R.Tensor((n, 1024), dtype="float16") = R.memory.alloc_tensor(storage, 0, R.shape([n, 1024]), R.dtype("float16"), 0)
        _1: R.Any = R.call_packed("kern", x, a)
        b: R.Tensor((n, 1024), dtype="float16") = R.memory.alloc_tensor(storage, OFFSET, R.shape([n, 1024]), R.dtype("float16"), 0)
        _2: R.Any = R.call_packed("kern", a, b)
        y: R.Tensor((n, 1024), dtype="float16") = R.builtin.alloc_tensor(R.shape([n, 1024]), R.dtype("float16"), 0, R.str("global"))
        _3: R.Any = R.call_packed("kern", a, b, y)
        return y
"""


def test_overlap_of_live_tensors_past_some_value():
    # a is [0, 2048 n), b starts at 65,536: they share bytes once 2048 * n > 65,536, n = 33.
    got = facts(DISJOINT.replace("OFFSET", "65536"))
    [bad] = got.failed
    assert bad.kind == "disjoint" and bad.values == {"n": 33} and bad.loc.line == 11
    assert bad.message.startswith("at n = 33: 'b' (67,584 bytes at offset 65,536) overlaps "
                                  "'a' (67,584 bytes at offset 0) in storage")


def test_disjoint_right_is_proved():
    # b at 131,072 = 64 * 2048: a ends before it at the bound.
    got = facts(DISJOINT.replace("OFFSET", "131072"))
    assert not got.failed and not got.unproven
    assert [f.kind for f in got.facts].count("disjoint") == 1


def test_tensors_not_alive_together_share_bytes_freely():
    # b at offset 0 too, but placed after a's last use (`kern(x, a)`, then a read by
    # `kern(a, x)`): no two tensors are alive together, no disjoint fact to prove.
    text = DISJOINT.replace("OFFSET", "0").replace(
        '_1: R.Any = R.call_packed("kern", x, a)',
        '_1: R.Any = R.call_packed("kern", x, a)\n        _0: R.Any = R.call_packed("kern", a, x)'
    ).replace('R.call_packed("kern", a, b)', 'R.call_packed("kern", x, b)').replace(
        'R.call_packed("kern", a, b, y)', 'R.call_packed("kern", b, y)')
    # ... where the kill of a comes late: a kill is no use.
    text = text.replace('_3: R.Any', '_k: R.Any = R.memory.kill_tensor(a)\n        _3: R.Any')
    got = facts(text)
    assert not got.failed and "disjoint" not in [f.kind for f in got.facts]
    assert got.count("proved") == 2  # the two fits


# A tensor returned from a slot of the shared allocation: the next call overwrites it.
RETURNED = """
@I.ir_module
class Module:
    @R.function(private=True)
    def cuda_graph_alloc() -> R.Tuple(R.Any):
        R.func_attr({"relax.force_pure": True})
        storage: R.Any = R.memory.alloc_storage(R.shape([4096]), 0, R.str("global"), R.dtype("float32"))
        gv: R.Tuple(R.Any) = (storage,)
        return gv

    @R.function
    def main(x: R.Tensor((16,), dtype="float32")) -> R.Tensor((16,), dtype="float32"):
        R.func_attr({"relax.force_pure": True})
        cls = Module
        gv: R.Tuple(R.Any) = R.call_builtin_with_ctx("vm.builtin.cuda_graph.get_cached_alloc", (cls.cuda_graph_alloc, 0), ty_args=(R.Tuple(R.Any),))
        storage: R.Any = gv[0]
        a: R.Tensor((16,), dtype="float32") = R.memory.alloc_tensor(storage, 0, R.shape([16]), R.dtype("float32"), 0)
        _1: R.Any = R.call_packed("kern", x, a)
        OUT
"""


def test_returned_tensor_in_a_shared_slot():
    got = facts(RETURNED.replace("OUT", "return a"))
    [bad] = got.failed
    assert bad.kind == "returned" and "'a' is returned by main" in bad.message
    copy = ('y: R.Tensor((16,), dtype="float32") = R.builtin.alloc_tensor(R.shape([16]), '
            'R.dtype("float32"), 0, R.str("global"))\n'
            '        _2: R.Any = R.call_packed("kern", a, y)\n        return y')
    assert not facts(RETURNED.replace("OUT", copy)).failed


# ---- the example: the 1B's prefill with its shared slot 3 shrunk to 32 KiB ----------

ONE_B = ROOT / "samples/real/mlc_llama_1b.after.relax"
SLOT3 = "storage8: R.Any = R.memory.alloc_storage(R.shape([8388608])"


def _one_b(tmp_path: Path, size: int) -> Path:
    text = ONE_B.read_text()
    assert text.count(SLOT3) == 1
    out = tmp_path / f"short{size}.relax"
    out.write_text(text.replace(SLOT3, SLOT3.replace("8388608", str(size))))
    return out


def test_short_shared_slot_in_prefill_is_a_shape_difference(tmp_path):
    # prefill places (1, seq_len, 2048) float16 tensors, 4096 * seq_len bytes, in slot 3:
    # 32,768 bytes hold seq_len <= 8, so seq_len = 9 (36,864 bytes) is the smallest that
    # breaks it, although the values verify runs (seq_len 1 and 2) fit.
    from click.testing import CliRunner
    from cudagraph_cli.cli import main
    short = _one_b(tmp_path, 32768)
    before = str(ROOT / "samples/real/mlc_llama_1b.before.relax")
    r = CliRunner().invoke(main, ["verify", before, str(short), "--function", "prefill",
                                  "--calls", "1", "--format", "json"])
    assert r.exit_code == 1, r.output
    report = json.loads(r.output)
    d = report["difference"]
    assert d["kind"] == "shape" and d["module"] == "rewritten" and d["call"] is None
    assert d["message"].startswith("at seq_len = 9: a tensor of 36,864 bytes at offset 0 in "
                                   "a storage of 32,768 bytes")
    assert d["line"] == 3676 and d["column"] == 9 and d["file"] == str(short)
    assert report["symbolic_values"] == {"seq_len": [1]}  # not a value that breaks it


def test_larger_storage_is_proved(tmp_path):
    # 16 MiB > 2048 * 4096: every fact of prefill proved. (The run at the values verify picks
    # is the short-slot test's, equal there: only the facts tell the two apart.)
    got = shape_facts(api.load(_one_b(tmp_path, 16777216)), ["prefill"])
    assert not got.failed and not got.unproven and got.count("proved") > 200


def test_a_value_the_rewrite_cannot_run_is_the_shape_finding_not_exit_2():
    # At n = 64 the rewritten module's 65,536 bytes cannot hold `a` (131,072 bytes): the run
    # fails there, and the fact (first broken at n = 33) is the finding, not an input error.
    from cudagraph_cli.exec.verify import verify
    original = api.loads(FITS.format(bound=BOUND, size=131072))
    short = api.loads(FITS.format(bound=BOUND, size=65536))
    report = verify(original, short, calls=1, shapes={"n": [64]})
    assert report.difference.kind == "shape"
    assert report.difference.message.startswith("at n = 33: a tensor of 67,584 bytes")
    r = run_cli_text_pair(FITS.format(bound=BOUND, size=65536),
                          FITS.format(bound=BOUND, size=131072))
    assert r.returncode == 2  # the original short: it cannot run at n = 64


def run_cli_text_pair(original: str, rewritten: str):
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        a, b = Path(d) / "a.relax", Path(d) / "b.relax"
        a.write_text(original)
        b.write_text(rewritten)
        return run_cli("verify", str(a), str(b), "--shape", "n=64", "--calls", "1")


def test_guard_that_narrows_the_range_verifies_equal():
    # The graph path under `n <= 32` fits 65,536 bytes; the eager path above it allocates
    # fresh memory: proved, and equal at n = 1 (graph path), 33 and 64 (eager).
    from cudagraph_cli.exec.verify import verify
    text = GUARDED.replace("LIMIT", "32")
    report = verify(api.loads(text), api.loads(text), calls=3, shapes={"n": [1, 33, 64]})
    assert report.equal, report.difference
    assert report.shapes.count("proved") == 2 and not report.shapes.unproven()


# ---- cgraph's own rewrite of every sample proves its facts ---------------------------------

# Unproven, and why (the text does not bound them): variables with no tir_var_upper_bound
# (dynamic_shape, prefill_decode, dynamic_capture, static_plan_add's vocab_size,
# partially_dynamic's m), and `4 * n * m * T.max(n - m, 1)`, not monotone in m
# (static_plan_tir_var_decreasing_monotone); and a closure's result given a placed tensor
# (nested_function_before: whether it aliases it is not read).
UNPROVEN = {"dynamic_shape", "prefill_decode", "static_plan_add",
            "static_plan_call_tir_dyn_plan_partially_dynamic",
            "static_plan_tir_var_decreasing_monotone", "dynamic_capture_before",
            "dynamic_capture_expected", "nested_function_before"}


def test_cgraph_rewrite_of_every_sample_proves_its_facts():
    from conftest import for_every_sample_test
    failed, unproven = [], set()
    paths = for_every_sample_test(sorted((ROOT / "samples").rglob("*.relax")))
    for p in paths:
        if "after" in p.name:
            continue
        try:
            mod = api.load(p)
            out = api.rewrite(mod)[0]
        except Exception:  # a sample that is not a rewrite's input (tests/ say which)
            continue
        got = shape_facts(out)
        failed += [(p.name, f.message) for f in got.failed]
        if got.unproven:
            unproven.add(p.stem.replace(".before", ""))
    assert not failed
    assert unproven <= UNPROVEN


# ---- rewrite --verify uses the same facts ----------------------------------------------------

def test_rewrite_verify_refuses_a_pool_too_small_for_its_bounds(monkeypatch, tmp_path):
    # cgraph's rewrite of static_plan_tir_var_upper_bound (n <= 4) gives slot 1 of its pool
    # 32 bytes for `alloc`, (2, n) float32 = 8 * n bytes. Shrunk to 16 bytes it still holds
    # the values verify runs (n = 1, 2), and n = 3 (24 bytes) is the smallest that breaks it.
    from click.testing import CliRunner
    from cudagraph_cli.cli import main
    real = api.rewrite

    def short_pool(mod, options=None, *, source=None):
        out, report = real(mod, options, source=source)
        text = api.print_module(out)
        slot = 'storage: R.Any = R.memory.alloc_storage(R.shape([32])'
        assert text.count(slot) == 1
        return api.loads(text.replace(slot, slot.replace("32", "16"))), report

    sample = str(ROOT / "samples/real/static_plan_tir_var_upper_bound.before.relax")
    out = tmp_path / "out.relax"
    ok = CliRunner().invoke(main, ["rewrite", sample, "--verify", "-o", str(out)])
    assert ok.exit_code == 0, ok.output
    assert "shape fact(s) proved for every value within the bounds, 0 unproven" in ok.output
    out.unlink()
    monkeypatch.setattr(api, "rewrite", short_pool)
    r = CliRunner().invoke(main, ["rewrite", sample, "--verify", "-o", str(out)])
    assert r.exit_code == 1 and not out.exists()
    assert "differ: shape in the rewritten module: function 'main': at n = 3: a tensor of 24 " \
           "bytes at offset 0 in a storage of 16 bytes" in r.output


# ---- the prover of one inequality (proof/bound.py) --------------------------------------

def _expr(text: str):
    """A PrimExpr as the reader reads it in a shape."""
    mod = api.loads(f"""
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((b, v, n, m), dtype="float32")) -> R.Shape:
        b = T.int64()
        v = T.int64()
        n = T.int64()
        m = T.int64()
        s: R.Shape([{text}]) = R.shape([{text}])
        return s
""")
    return mod.functions[0].blocks[0].bindings[0].value.values[0]


def test_prover_cases():
    from cudagraph_cli.proof.bound import prove_le
    from cudagraph_cli.proof.ranges import Range
    from cudagraph_cli import ir
    ranges = {"b": Range(1, 32), "v": Range(0, 1000), "n": Range(1, 20), "m": Range(1, 5)}
    le = lambda a, c: prove_le(_expr(a), _expr(c), ranges.__getitem__)  # noqa: E731
    # 4 b v <= 128 v moves both ways in v only through b: at the vertices, 4 * 32 * v <= 128 v.
    assert le("4 * b * v", "128 * v").status == "proved"
    # 4 b v <= 100 v: worst at b = 32, v = 1000; the least failing b there is 26 (104 > 100),
    # then the least failing v with b = 26 is 1 (v = 0 gives 0 <= 0).
    got = le("4 * b * v", "100 * v")
    assert got.status == "failed" and got.at == {"b": 26, "v": 1}
    # floordiv and min/max move one way: (n + 3) // 4 * 16 <= 80 holds at n = 20 (5 * 16).
    assert le("T.floordiv(n + 3, 4) * 16", "80").status == "proved"
    assert le("T.max(n, m) * 4", "80").status == "proved"
    assert le("T.min(n, 10) * 8", "80").status == "proved"
    # n * m * T.max(n - m, 1) is not monotone in m: decided at every one of the 20 * 5
    # values (its largest, 20 * 5 * 15 = 1,500 at n = 20, m = 5; n = 19 gives at most
    # 19 * 5 * 14 = 1,330), and failed at the one value that breaks 1,499.
    assert le("n * m * T.max(n - m, 1)", "1500").status == "proved"
    got = le("n * m * T.max(n - m, 1)", "1499")
    assert got.status == "failed" and got.at == {"n": 20, "m": 5} and got.lhs == 1500
    # b * v * T.max(b - v, 1) moves both ways in v, over 32 * 1,001 values, more than are
    # tried one by one: unproven, never proved.
    got = le("b * v * T.max(b - v, 1)", "8000")
    assert got.status == "unproven" and "not monotone in v" in got.why
    # A non-negative variable (0 in its range) is tried at 0 where that is worst: 100 - v
    # <= 99 fails at v = 0.
    got = le("100 - v", "99")
    assert got.status == "failed" and got.at["v"] == 0
    # Unbounded: unproven.
    got = prove_le(ir.SymVar("k"), ir.IntImm(9), lambda _: Range(1, None))
    assert got.status == "unproven" and "k has no upper bound" in got.why


def test_verify_report_says_up_to_which_values_it_proved():
    """In plain words (issue 47): the bound each variable was proved up to, and how many
    facts; the JSON keeps its fields."""
    from cudagraph_cli.exec.verify import verify
    from cudagraph_cli.report.verify_view import verify_json, verify_text
    text = FITS.format(bound=BOUND, size=131072)  # n <= 64: 2048 * 64 = 131,072 fits
    report = verify(api.loads(text), api.loads(text), calls=1, shapes={"n": [3]})
    words = verify_text(report, "a.relax", "b.relax")
    proved = report.shapes.count("proved")
    assert proved > 0 and report.shapes.count("unproven") == 0
    assert f"memory: sizes and overlaps proved for every n ≤ 64 ({proved} shape facts" in words
    assert verify_json(report, "a.relax", "b.relax")["shape_facts"] == {
        "proved": proved, "failed": 0, "by_kind": {"fits": {"proved": 2, "failed": 0,
                                                           "unproven": 0}},
        "unproven": [], "failed_as_in_the_original": []}


def test_unproven_facts_are_listed_in_the_verify_report():
    # n unbounded: the fit of `a` is unproven, listed in the text and the JSON with its
    # expression and why, counted apart from the proved ones; the verdict stays "equal".
    from cudagraph_cli.exec.verify import verify
    from cudagraph_cli.report.verify_view import verify_json, verify_text
    text = FITS.format(bound="", size=131072)
    report = verify(api.loads(text), api.loads(text), calls=1, shapes={"n": [3]})
    assert report.equal
    words = verify_text(report, "a.relax", "b.relax")
    assert "memory: sizes and overlaps proved for every value of n (0 " \
        "shape facts: every tensor fits its storage, every view its tensor, no two live " \
        "tensors share a byte), 2 unproven" in words
    assert "b.relax:9:9: unproven (fits, main): offset + bytes of 'a' <= size of storage: " \
           "2048 * n <= 131072 (n has no upper bound)" in words
    facts_json = verify_json(report, "a.relax", "b.relax")["shape_facts"]
    assert facts_json["proved"] == 0 and facts_json["failed"] == 0
    assert [(u["module"], u["line"]) for u in facts_json["unproven"]] == \
        [("rewritten", 9), ("original", 9)]
