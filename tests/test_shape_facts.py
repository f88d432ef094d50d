"""What the text proves for every value within the bounds (exec/shape_facts.py): each fact
kind on a small module, wrong (caught, at the smallest values derived by hand in the
comment) and right (proved); the issue's example on the 1B's prefill through `cgraph verify`;
and cgraph's own rewrite of every sample proves all its facts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cudagraph_cli import api
from cudagraph_cli.exec.shape_facts import shape_facts

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


def test_lower_bound_attribute_and_non_negative_var():
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
    # b at offset 0 too, but a's last use (`kern(x, a)` ... `kern(a, b)`) is b's writer:
    # drop the last kernel's read of a and a dies before b is placed.
    text = DISJOINT.replace("OFFSET", "0").replace(
        '_2: R.Any = R.call_packed("kern", a, b)', '_2: R.Any = R.call_packed("kern", x, b)'
    ).replace('R.call_packed("kern", a, b, y)', 'R.call_packed("kern", b, y)')
    got = facts(text.replace('_1: R.Any = R.call_packed("kern", x, a)',
                             '_1: R.Any = R.call_packed("kern", x, a)\n'
                             '        _0: R.Any = R.call_packed("kern", a, x)'))
    assert not got.failed and "disjoint" not in [f.kind for f in got.facts]


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
    # breaks it, although seq_len 1 and 2 run.
    short = _one_b(tmp_path, 32768)
    before = str(ROOT / "samples/real/mlc_llama_1b.before.relax")
    r = run_cli("verify", before, str(short), "--function", "prefill", "--calls", "1",
                "--format", "json")
    assert r.returncode == 1, r.stderr
    d = json.loads(r.stdout)["difference"]
    assert d["kind"] == "shape" and d["module"] == "rewritten"
    assert d["message"].startswith("at seq_len = 9: a tensor of 36,864 bytes at offset 0 in "
                                   "a storage of 32,768 bytes")
    assert d["line"] == 3676 and d["file"] == str(short)


@pytest.mark.parametrize("size", [16777216])
def test_larger_storage_is_proved(tmp_path, size):
    # 16 MiB > 2048 * 4096: every fact of prefill proved.
    got = shape_facts(api.load(_one_b(tmp_path, size)), ["prefill"])
    assert not got.failed and not got.unproven and got.count("proved") > 200


def test_verify_at_the_bound_is_the_shape_finding_not_exit_2(tmp_path):
    # At seq_len = 2048 the rewritten module cannot run its storage: the fact, exit 1.
    from cudagraph_cli.exec.verify import verify
    mod = api.load(ROOT / "samples/real/mlc_llama_1b.before.relax")
    short = api.load(_one_b(tmp_path, 32768))
    report = verify(mod, short, calls=1, functions=["prefill"], shapes={"seq_len": [2048]})
    assert report.difference.kind == "shape"
    assert report.difference.message.startswith("at seq_len = 9:")


def test_the_1b_slot_within_a_narrowed_range():
    # The short slot within seq_len <= 8 (what a guard `seq_len <= 8` leaves) is proved:
    # 32,768 = 8 * 4096; over 1..2048 it breaks at 9.
    from cudagraph_cli.exec.shape_bound import prove_le
    from cudagraph_cli.passes.ranges import Range
    from cudagraph_cli import ir
    n = ir.SymVar("seq_len")
    nbytes = ir.PrimBinOp("*", ir.IntImm(4096), n)
    assert prove_le(nbytes, ir.IntImm(32768), lambda _: Range(1, 8)).status == "proved"
    assert prove_le(nbytes, ir.IntImm(32768), lambda _: Range(1, 2048)).at == {"seq_len": 9}


# ---- cgraph's own rewrite of every sample proves its facts ---------------------------------

# Unproven, and why (the text does not bound them): variables with no tir_var_upper_bound
# (dynamic_shape, prefill_decode, dynamic_capture, static_plan_add's vocab_size,
# partially_dynamic's m), and `4 * n * m * T.max(n - m, 1)`, not monotone in m
# (static_plan_tir_var_decreasing_monotone).
UNPROVEN = {"dynamic_shape", "prefill_decode", "static_plan_add",
            "static_plan_call_tir_dyn_plan_partially_dynamic",
            "static_plan_tir_var_decreasing_monotone", "dynamic_capture_before",
            "dynamic_capture_expected"}


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
