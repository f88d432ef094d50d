"""verify on bucketed rewrites (exec/rows.py): rows kept apart, so a right bucketed rewrite is
equal on the real rows at every size, padded or not; and wrong ones, each beside its control,
are caught: a kernel that mixes rows padded, a graph keyed by the bucket whose shapes are the
real size, a view of the real rows that is not a prefix, a last bucket past its storage.

tests/buckets/rows.relax (its header says which kernel is what)."""

from __future__ import annotations

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
    def every_kernel_row_wise(module, var, functions=None):
        return {k: RowVerdict(k, var, None) for k in ("scale", "add", "cumsum", "last_row")}

    monkeypatch.setattr(buckets, "kernel_verdicts", every_kernel_row_wise)
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
    # bucketed beside m in one function: the last bucket's lowest size alone
    (True, [2, 13, 16]),
])
def test_the_bounds_run_values_of_a_bucketed_variable(both, n_values):
    from cudagraph_cli.exec.rows import every_bucket_ends

    mb = 'mb_shape: R.Shape([mb]) = R.match_cast(R.shape([(m + 3) // 4 * 4]), R.Shape([mb]))'
    module = api.loads(TWO_BUCKETS.replace("MB", mb if both else ""))
    got = every_bucket_ends(module, ["main"], {"n": [2, 16]})
    assert got["n"] == n_values
