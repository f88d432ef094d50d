"""verify on bucketed rewrites (exec/rows.py): rows kept apart, so a right bucketed rewrite is
equal on the real rows at every size, padded or not; and wrong ones, each beside its control,
are caught: a kernel that mixes rows padded, a graph keyed by the bucket whose shapes are the
real size, a view of the real rows that is not a prefix, a last bucket past its storage.

tests/buckets/rows.relax (its header says which kernel is what)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cudagraph_cli import api
from cudagraph_cli.passes import buckets
from cudagraph_cli.passes.options import RewriteOptions
from cudagraph_cli.passes.row_wise import RowVerdict
from cudagraph_cli.text.printer import print_module

ROWS = Path(__file__).resolve().parent / "buckets" / "rows.relax"


@pytest.fixture(scope="module")
def original():
    return api.load(ROWS)


def bucketed_text(original, spec: str = "n:2,4,8") -> str:
    out, _ = api.rewrite(original, RewriteOptions(capture_buckets=(spec,)))
    return print_module(out)


def verdict(original, text: str, **kw):
    return api.verify(original, api.loads(text), **kw)


def edited(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


@pytest.mark.parametrize("sizes", [None, (3, 5, 1, 7), (6, 2, 9, 4)])
def test_a_bucketed_rewrite_is_equal_on_the_real_rows(original, sizes):
    result = verdict(original, bucketed_text(original),
                     shapes=None if sizes is None else {"n": sizes})
    assert result.equal, result.difference


def test_default_verify_replays_one_graph_at_two_sizes(original):
    result = verdict(original, bucketed_text(original, "n:auto"))
    assert result.equal, result.difference
    # the first bucket that serves two sizes is 4 (3 and 4): a capture at 3, a replay at 4
    assert result.replays > 0


def test_a_kernel_that_mixes_rows_padded_is_caught(original, monkeypatch):
    def every_kernel_row_wise(self, call):
        return RowVerdict(call.op.name, self.var, None)

    # the rewrite's verdicts only: verify reads the kernels' TIR itself
    monkeypatch.setattr(buckets.LaunchVerdicts, "of", every_kernel_row_wise)
    wrong = bucketed_text(original)
    monkeypatch.undo()
    # the whole region in one bucketed graph, last_row and cumsum included
    assert wrong.split("def main(")[1].count("vm.builtin.cuda_graph.run_or_capture") == 1
    result = verdict(original, wrong)
    assert not result.equal
    assert verdict(original, bucketed_text(original)).equal  # the control


def test_a_graph_keyed_by_the_bucket_at_the_real_size_is_caught(original):
    text = bucketed_text(original)
    launch = "(cls.main_cuda_graph_capture, (a_b, w, b_b, s3, s, R.shape([n_bucket])), "
    # the capture function runs at the real rows; the key is still the bucket
    wrong = edited(text, launch, "(cls.main_cuda_graph_capture, (a, w, b, s3, s, "
                                 "R.shape([n])), ")
    result = verdict(original, wrong)
    assert not result.equal and result.difference.function == "main"
    # control: the real size as the key too (one graph per value): right
    right = edited(wrong, "R.shape([n])), R.prim_value(0), R.shape([n_bucket]))",
                   "R.shape([n])), R.prim_value(0), R.shape([n]))")
    assert verdict(original, right).equal


def test_a_view_that_is_not_a_prefix_is_caught(original):
    text = bucketed_text(original)
    view = ("c_view: R.Tensor((n, 8), dtype=\"float32\") = R.memory.alloc_tensor(s3, "
            "R.prim_value(0), ")
    wrong = edited(text, view, view.replace("R.prim_value(0)", "R.prim_value(32)"))
    assert not verdict(original, wrong).equal
    assert verdict(original, text).equal


def test_a_last_bucket_past_its_storage_is_caught(original):
    text = bucketed_text(original, "n:auto")  # up to 16 rows, no guard
    storage = 's: R.Any = R.memory.alloc_storage(R.shape([512]), '
    wrong = edited(text, storage, storage.replace("512", "256"))  # 8 rows of float32 x 8
    result = verdict(original, wrong)
    assert not result.equal and result.difference.kind == "shape"
    assert verdict(original, text).equal


def test_the_bounds_run_takes_every_buckets_two_ends(original, tmp_path):
    """n:auto with n's upper bound 16: buckets 1, 2, 4, 8, 16, which serve 1, 2, 3..4, 5..8 and
    9..16; the run at the bounds captures each graph at its lowest size and replays it at its
    highest (3 then 4, 5 then 8, 9 then 16: the most pad rows), between 2 and 1 as before."""
    from cli_runner import cgraph

    path = tmp_path / "rows.auto.relax"
    path.write_text(bucketed_text(original, "n:auto"))
    r = cgraph("verify", ROWS, path)
    assert r.exit_code == 0, r.stdout
    assert "at the upper bounds: n = 2, 3, 4, 5, 8, 9, 16, 1 (" in r.stdout


def test_a_function_runs_as_many_bounds_calls_as_its_own_values_need():
    # prefill's seq_len takes 8 values in the bounds run; decode takes none of them: 3 calls
    from cudagraph_cli.exec.verify import BOUND_CALLS, own_calls

    module = api.loads("""
@I.ir_module
class Module:
    @R.function
    def prefill(x: R.Tensor(("seq_len", 8), dtype="float32")) -> R.Tensor(("seq_len", 8), dtype="float32"):
        seq_len = T.int64()
        return x

    @R.function
    def decode(x: R.Tensor(("batch_size", 8), dtype="float32")) -> R.Tensor(("batch_size", 8), dtype="float32"):
        batch_size = T.int64()
        return x
""")
    shapes = {"seq_len": [2, 3, 4, 5, 8, 9, 16, 1], "batch_size": [2, 4, 1]}
    assert own_calls(module, ["prefill", "decode"], shapes) == {"prefill": 8,
                                                                "decode": BOUND_CALLS}


TWO_BUCKETS = """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", "m"), dtype="float32")) -> R.Tensor(("n", "m"), dtype="float32"):
        n = T.int64()
        m = T.int64()
        nb = T.int64()
        mb = T.int64()
        R.func_attr({"tir_var_upper_bound": {"n": 16, "m": 16}})
        nb_shape: R.Shape([nb]) = R.match_cast(R.shape([(n + 3) // 4 * 4]), R.Shape([nb]))
        MB
        return x
"""


@pytest.mark.parametrize("both,n_values", [
    # n's buckets of 4 serve 1..4, 5..8, 9..12, 13..16: every one's two ends before 16
    (False, [2, 1, 4, 5, 8, 9, 12, 13, 16]),
    # bucketed beside m in one function: every bucket's two ends too (RowSplit tells a
    # launch's real rows by the variable its row dimension is, not by its row count)
    (True, [2, 1, 4, 5, 8, 9, 12, 13, 16]),
])
def test_the_bounds_run_values_of_a_bucketed_variable(both, n_values):
    from cudagraph_cli.exec.rows import every_bucket_ends

    mb = 'mb_shape: R.Shape([mb]) = R.match_cast(R.shape([(m + 3) // 4 * 4]), R.Shape([mb]))'
    module = api.loads(TWO_BUCKETS.replace("MB", mb if both else ""))
    got = every_bucket_ends(module, ["main"], {"n": [2, 16]})
    assert got["n"] == n_values


# Issue 50's reproduction: `scale` changed to b[i] = sum over k < n of a[i] * w[j], whose
# declared regions look row-wise. Its real rows are n * a * w at the real size and B * a * w at
# a bucket. The rewrite refuses to bucket it (read from the body); a rewrite that buckets it
# anyway (the verdict forced) is caught by verify, which reads the kernel itself.
SUM_OVER_N = '''    def scale(a: T.Buffer((n, T.int64(8)), "float32"), w: T.Buffer((T.int64(8),), "float32"), b: T.Buffer((n, T.int64(8)), "float32")):
        for i, j, k in T.grid(n, T.int64(8), n):
            with T.sblock("scale"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(a[vi, vj], w[vj])
                T.writes(b[vi, vj])
                with T.init():
                    b[vi, vj] = T.float32(0.0)
                b[vi, vj] = b[vi, vj] + a[vi, vj] * w[vj]
'''


def test_a_kernel_whose_rows_depend_on_the_row_count_is_never_bucketed(monkeypatch):
    text = ROWS.read_text()
    start = text.index("    def scale(")
    end = text.index("    @T.prim_func", start)
    original = api.loads(text[:start] + SUM_OVER_N + "\n" + text[end:])
    out, report = api.rewrite(original, RewriteOptions(capture_buckets=("n:2,4,8",)))
    reasons = [r.message for r in report.reasons if r.code == "not-row-wise"]
    assert any("kernel scale is not row-wise" in m and "iterator vk" in m for m in reasons)
    assert verdict(original, print_module(out)).equal  # the rewrite as made: a control

    def every_kernel_row_wise(self, call):
        return RowVerdict(call.op.name, self.var, None)

    monkeypatch.setattr(buckets.LaunchVerdicts, "of", every_kernel_row_wise)
    wrong = bucketed_text(original)
    monkeypatch.undo()
    assert "n_bucket" in wrong
    result = verdict(original, wrong)
    assert not result.equal


READ_AGAIN = Path(__file__).resolve().parent / "buckets" / "reread.relax"


def test_an_input_read_again_after_its_bucketed_region_is_one_tensor_with_its_carve():
    """reread.relax: `a`, the input of the bucketed region [scale, add], is read by eager code
    after it; the rewrite's `a_b` (the same storage, offset and rows, at the bucket) is `a`,
    not a second tensor alive beside it (issue 50: "'a_b' (0 bytes ...) overlaps 'a'")."""
    reread = api.load(READ_AGAIN)
    text = bucketed_text(reread, "n:auto")
    assert "a_b: R.Tensor((n_bucket, 8)" in text
    result = verdict(reread, text)
    assert result.equal, result.difference
    assert result.shapes.count("failed") == 0 and result.shapes.count("unproven") == 0
    # control: a carve of other rows at that offset, written while `a` is alive, is a tensor
    # of its own, and overlaps it
    wrong = edited(text, 'R.call_packed("copy", a, a2',
                   'a9: R.Tensor((3, 8), dtype="float32") = R.memory.alloc_tensor(s, '
                   'R.prim_value(0), R.shape([3, 8]), R.dtype("float32"))\n'
                   '        R.call_packed("k_in", x, a9, ty_args=(R.Tuple,))\n'
                   '        R.call_packed("copy", a, a2')
    result = verdict(reread, wrong)
    _, fact = result.shapes.failure()
    assert not result.equal and fact.kind == "disjoint"
    assert "'a9' (96 bytes at offset 0) overlaps 'a' (32 bytes at offset 0)" in fact.message


def refused(text: str, spec: str = "n:auto") -> tuple:
    """(the rewrite's text, its explain lines) of `text`."""
    out, report = api.rewrite(api.loads(text), RewriteOptions(capture_buckets=(spec,)))
    reasons = [r for fb in report.buckets for _, r, _ in fb.not_bucketed]
    return print_module(out), reasons


def test_a_region_that_leaves_a_tuple_of_rows_is_not_bucketed(original):
    text = ROWS.read_text().replace("        cls.add(a, b, c)\n", """        cls.add(a, b, c)
        tp: R.Tuple(R.Tensor((n, 8), "float32"), R.Tensor((n, 8), "float32")) = (b, c)
        R.call_packed("k_use", a, ty_args=(R.Tuple,))
        t1: R.Tensor((n, 8), "float32") = tp[1]
        R.call_packed("k_use", t1, ty_args=(R.Tuple,))
""")
    out, reasons = refused(text)
    assert "it leaves tp, a tuple with n-sized items, which cannot be carved again at the " \
           "real rows" in reasons
    assert "a_b" not in out  # [scale, add] left as without buckets; [scale2] is bucketed
    assert verdict(api.loads(text), out).equal


def test_a_view_whose_offset_is_computed_from_the_variable_is_not_bucketed(original):
    text = ROWS.read_text().replace("        cls.add(a, b, c)\n", """        bv: R.Tensor((1, 8), "float32") = R.memory.view(b, R.shape([1, 8]), R.dtype("float32"), R.prim_value(n * 32 - 32))
        cls.add(a, b, c)
""")
    out, reasons = refused(text)
    assert "the offset of bv is computed from n: at a bucket it would start elsewhere" \
        in reasons
    assert "a_b" not in out  # [scale, add] left as without buckets; [scale2] is bucketed
    # the same view at a constant offset: bucketed, as before
    _, reasons = refused(text.replace("R.prim_value(n * 32 - 32)", "R.prim_value(0)"))
    assert not [r for r in reasons if "offset" in r]


def test_verify_says_what_rests_on_static_analysis(original, tmp_path):
    from cli_runner import cgraph

    path = tmp_path / "rows.b.relax"
    path.write_text(bucketed_text(original, "n:auto"))
    r = cgraph("verify", ROWS, path)
    assert r.exit_code == 0, r.stdout
    assert ("not proved by the runs or the proof: row independence of 2 kernels, read from "
            "their TIR (add, scale)") in r.stdout
    r = cgraph("verify", ROWS, path, "--format", "json")
    report = json.loads(r.stdout)
    assert report["static_analysis"] == {
        "text": "row independence of 2 kernels, read from their TIR",
        "row_wise_kernels": ["add", "scale"]}
    assert report["shape_facts"]["by_kind"]["bucket"] == {"proved": 1, "failed": 0,
                                                          "unproven": 0}
    # without buckets nothing is split: no such line
    r = cgraph("verify", ROWS, ROWS)
    assert "not proved by the runs" not in r.stdout
