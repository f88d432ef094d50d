"""Bucketed capture (`--capture-buckets VAR:B1,...,Bn`, `VAR:auto`; passes/buckets.py): a region
keyed by VAR whose kernels keep VAR's rows apart runs in a graph keyed by the bucket of VAR, its
VAR-sized inputs carved again at the bucket's rows and its outputs handed on as the real rows;
a region that cannot is cut at the kernel that cannot, which runs as before.

tests/buckets/rows.relax is the small case (its header says which kernel is what); the real
models check the verdicts at size, TVM reads and builds what comes out."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from cli_runner import cgraph
from cudagraph_cli import api, ir
from cudagraph_cli.exec.prim import eval_prim
from cudagraph_cli.passes.buckets import bucket_expr, declared_buckets
from cudagraph_cli.passes.options import RewriteOptions, auto_buckets
from cudagraph_cli.text.printer import print_module

ROOT = Path(__file__).resolve().parent.parent
ROWS = ROOT / "tests" / "buckets" / "rows.relax"
REAL = ROOT / "samples" / "real"


def rewritten(path: Path, **options):
    return api.rewrite(api.load(path), RewriteOptions(**options))


def main_text(out) -> str:
    text = print_module(out)
    return text[text.index("    def main("):]


# ---- the bucket lists ------------------------------------------------------------------------


@pytest.mark.parametrize("bound, count", [(16, 5), (32, 7), (128, 15), (2048, 31), (8192, 39)])
def test_auto_buckets_cover_every_value_with_few_graphs(bound, count):
    sizes = auto_buckets(bound)
    assert len(sizes) == count and sizes[-1] == bound and list(sizes) == sorted(set(sizes))
    for v in range(1, bound + 1):
        b = min(s for s in sizes if s >= v)
        # 1, 2, 4, 8 and steps of 8 below 64; a quarter at most above it
        assert b - v < 8 or b <= 1.25 * v, (v, b)


def test_auto_buckets_meet_the_goals():
    assert len(auto_buckets(128)) <= 24  # batch_decode at a server's bound
    assert len(auto_buckets(2048)) <= 40  # prefill to 2,048 tokens


@pytest.mark.parametrize("sizes, upper", [((2, 4, 8), 16), ((1, 2, 4, 8, 16), 16),
                                          (auto_buckets(2048), 2048), ((7,), 9)])
def test_the_bucket_expression_is_the_least_bucket_at_least_the_value(sizes, upper):
    n = ir.SymVar("n")
    e = bucket_expr(n, sizes, upper)
    for v in range(0, upper + 1):
        # the last bucket above it: the values over the whole range are the bucket list
        want = min([s for s in sizes if s >= v] or [sizes[-1]])
        assert eval_prim(e, {n: v}.__getitem__) == want, v


# ---- the rewrite of the small case -----------------------------------------------------------


def test_row_wise_runs_at_a_bucket_the_rest_as_before():
    out, report = rewritten(ROWS, capture_buckets=("n:2,4,8",))
    text = main_text(out)
    # n's bucket, once at the top of the function
    assert "n_bucket_shape: R.Shape([n_bucket]) = R.match_cast(n_bucket_value, " \
        "R.Shape([n_bucket]))" in text
    # the graph runs while n <= 8, keyed by the bucket, on its inputs carved at the bucket's rows
    assert text.count("R.prim_value(n <= 8)") == 2
    assert "a_b: R.Tensor((n_bucket, 8), dtype=\"float32\") = R.memory.alloc_tensor(s, " \
        "R.prim_value(0), R.shape([n_bucket, 8])" in text
    assert "(cls.main_cuda_graph_capture, (a_b, w, b_b, s3, s, R.shape([n_bucket])), " \
        "R.prim_value(0), R.shape([n_bucket]))" in text
    # what it leaves to others: the real rows, carved at the same storage and offset
    assert "c_view: R.Tensor((n, 8), dtype=\"float32\") = R.memory.alloc_tensor(s3, " \
        "R.prim_value(0), R.shape([n, 8])" in text
    # the scan and the last row run eagerly, as they did, between the two graphs
    assert "        cls.cumsum(c, d)\n" in text and "        cls.last_row(d, e)\n" in text
    reasons = {r.binding.value.op.name: r for r in report.reasons if r.code == "not-row-wise"}
    assert set(reasons) == {"cumsum", "last_row"}
    assert "the reduction iterator vk runs over a loop whose extent uses n" in \
        reasons["cumsum"].message
    assert reasons["cumsum"].names == ("n",)
    [fb] = report.buckets
    assert fb.sizes == (2, 4, 8) and len(fb.bucketed) == 2 and len(fb.not_bucketed) == 1
    assert "indexes the rows of a by n - 1, which uses n" in reasons["last_row"].message


def test_what_cannot_be_bucketed_stays_an_exact_graph_when_the_variable_is_captured():
    out, report = rewritten(ROWS, capture_buckets=("n:2,4,8",), capture_symbolic=("n",))
    text = main_text(out)
    assert not [r for r in report.reasons if r.code == "not-row-wise"]
    # three graphs: the two bucketed ones, and [cumsum, last_row] keyed by n itself
    assert text.count("vm.builtin.cuda_graph.run_or_capture") == 3
    assert text.count("R.shape([n]))") == 2  # its shape argument and its key


def test_buckets_up_to_the_bound_need_no_guard():
    out, report = rewritten(ROWS, capture_buckets=("n:auto",))
    assert report.buckets[0].sizes == (1, 2, 4, 8, 16)
    text = main_text(out)
    assert "<= 16" not in text and "if " not in text  # every n fits a graph
    assert text.count("R.shape([n_bucket]))") == 4  # two launches, each argument and key


def test_a_last_bucket_above_the_bound_is_refused(tmp_path):
    r = cgraph("rewrite", ROWS, "--capture-buckets", "n:4,32", "-o", tmp_path / "o.relax")
    assert r.exit_code == 2 and "Traceback" not in r.stderr
    assert "the last bucket of n, 32, is above main's tir_var_upper_bound of n, 16" in r.stderr
    assert r.stderr.startswith(f"{ROWS}:")


def test_an_unknown_variable_is_refused(tmp_path):
    r = cgraph("rewrite", ROWS, "--capture-buckets", "m:auto", "-o", tmp_path / "o.relax")
    assert r.exit_code == 2 and "no function of the module has a symbolic variable named m" \
        in r.stderr


# ---- TVM reads and builds it -----------------------------------------------------------------


@pytest.mark.tvm
def test_tvm_reads_the_small_case_and_lowers_its_shapes(tvm):
    """TVM's reader with the well-formedness check, then VMShapeLower, which computes the bucket
    in the VM's shape heap (a composite shape in a match_cast's value, not named by any struct
    info, fails there: buckets.py binds it to a var first)."""
    from tvm import relax
    from tvm_oracle import tvm_parse_with_constants

    out, _ = rewritten(ROWS, capture_buckets=("n:2,4,8",))
    mod = tvm_parse_with_constants(print_module(out), {}, check_well_formed=True)
    # the declared bucket list (the bucket fact's) read by TVM, printed, and read back
    assert declared_buckets(out.function("main")) == {"n": (2, 4, 8)}
    assert declared_buckets(api.loads(mod.script()).function("main")) == {"n": (2, 4, 8)}
    assert print_module(api.loads(print_module(out))) == print_module(out)
    lower = tvm.transform.Sequential([
        relax.transform.LegalizeOps(), relax.transform.LowerAllocTensor(),
        relax.transform.CallTIRRewrite(), relax.transform.VMBuiltinLower(),
        relax.transform.VMShapeLower()])
    lower(mod)


@pytest.mark.tvm
def test_llama_builds_for_cuda_with_buckets(tvm):
    """One relax.build of the 1B model with cuda_pipeline(capture_buckets=[...]) (about 20 s):
    it completes, its output is well formed, prefill's graphs are keyed by the bucket."""
    from tvm import relax
    from tvm.s_tir import dlight as dl

    from bench.corpus import mlc_models, tvm_capture
    from cudagraph_cli.tvm import cuda_pipeline
    from cudagraph_cli.tvm.rewrite_pass import TextRouteWarning

    target = tvm.target.Target(tvm_capture.TARGET)
    recorder = tvm_capture.Capture()
    pipeline = cuda_pipeline(before_schedule=[dl.ApplyDefaultSchedule(dl.gpu.LowBatchGEMV(4))],
                             capture_buckets=["seq_len:auto", "batch_size:auto"])
    with tvm.transform.PassContext(opt_level=3, config=tvm_capture.CONFIG,
                                   instruments=[recorder.instrument()]), \
            warnings.catch_warnings():
        # the bucket lists are built back in memory: no text route
        warnings.simplefilter("error", TextRouteWarning)
        ex = relax.build(mlc_models.build("mlc_llama_1b", target), target=target,
                         relax_pipeline=pipeline)
    ours = recorder.after_modules[0]
    relax.analysis.well_formed(ours)
    prefill = ours["prefill"].script()
    assert "seq_len_bucket" in prefill and "R.shape([seq_len_bucket])" in prefill
    # the declared bucket list, as TVM holds it
    listed = ours["prefill"].attrs["relax.rewrite_cuda_graph.buckets"]["seq_len"]
    assert tuple(int(x) for x in listed) == auto_buckets(2048)
    assert "batch_size_bucket" in ours["batch_decode"].script()
    assert "vm.builtin.cuda_graph.run_or_capture" in ex.as_text()


# ---- the real models -------------------------------------------------------------------------


def _buckets(sample: str, **options):
    out, report = rewritten(REAL / f"mlc_{sample}.before.relax", **options)
    return out, report, {(fb.function, fb.var): fb for fb in report.buckets}


def test_llama_1b_buckets_all_but_the_last_token():
    out, report, fbs = _buckets("llama_1b", capture_buckets=("seq_len:auto", "batch_size:auto"))
    prefill = fbs[("prefill", "seq_len")]
    assert prefill.sizes == auto_buckets(2048)
    # only the last token's row (kernel index) is left as it was; every other region of prefill
    # runs at a bucket
    assert [reason for _, reason, _ in prefill.not_bucketed] == [
        "kernel index is not row-wise: block 'index' indexes the rows of rms_norm32 by "
        "seq_len - 1, which uses seq_len"]
    assert len(prefill.bucketed) == 18  # 18 regions keyed by seq_len, the last one cut
    decode = fbs[("batch_decode", "batch_size")]
    assert decode.sizes == (1, 2, 4, 8, 16, 24, 32) and not decode.not_bucketed
    left = [r for r in report.reasons if r.function == "prefill" and r.code == "not-row-wise"]
    assert [r.binding.value.op.name for r in left] == ["index"]


def test_olmoe_routing_runs_as_before_and_the_rest_at_a_bucket():
    _, report, fbs = _buckets("olmoe_1b_7b", capture_buckets=("seq_len:auto",))
    prefill = fbs[("prefill", "seq_len")]
    assert len(prefill.bucketed) >= 16  # the attention-side and dense regions of 16 layers
    reasons = " ".join(reason for _, reason, _ in prefill.not_bucketed)
    assert "kernel top8 is not row-wise" in reasons
    left = {r.binding.value.op.name for r in report.reasons
            if r.function == "prefill" and r.code == "not-row-wise"}
    assert {"top8", "take", "group_gemm", "scatter_output"} <= left
    assert not left & {"rms_norm1", "matmul4", "fused_softmax_cast1"}


COLLECTIVE = Path(__file__).resolve().parent / "buckets" / "collective.relax"


def test_an_all_reduce_keeps_rows_apart_and_its_layer_runs_whole():
    # Issue 51: a tensor-parallel layer (scale, all-reduce, add) runs at a bucket as one graph,
    # as the layer without the collective would; capture_safety.toml says why (rows =
    # "elementwise", with TVM's source). verify runs the collective itself (a copy on one
    # worker) over the bucket's rows: equal on the real rows.
    original = api.load(COLLECTIVE)
    out, report = api.rewrite(original, RewriteOptions(capture_buckets=("n:2,4,8,16",)))
    text = print_module(out)
    main = text.split("def main(")[1]
    assert main.count("vm.builtin.cuda_graph.run_or_capture") == 1
    assert "n_bucket" in main
    capture = text.split("def main_cuda_graph_capture(")[1].split("@R.function")[0]
    assert '"runtime.disco.allreduce"' in capture
    assert not [r for r in report.reasons if r.code == "not-row-wise"]
    assert api.verify(original, out).equal


def test_an_all_gather_moves_rows_and_cuts_the_layer():
    # The control: all-gather concatenates the ranks' buffers in their flat order, so the
    # leading rows move; it stays outside the bucketed graphs, with the reason.
    text = COLLECTIVE.read_text().replace(
        'R.call_packed("runtime.disco.allreduce", b, R.shape([0]), R.prim_value(T.bool(True)), c,',
        'R.call_packed("runtime.disco.allgather", b, R.prim_value(T.bool(True)), c,')
    original = api.loads(text)
    out, report = api.rewrite(original, RewriteOptions(capture_buckets=("n:2,4,8,16",)))
    reasons = [r.message for r in report.reasons if r.code == "not-row-wise"]
    assert any("'runtime.disco.allgather' has no TIR to read its rows from" in m
               for m in reasons), reasons
    main = print_module(out).split("def main(")[1]
    assert 'R.call_packed("runtime.disco.allgather"' in main
