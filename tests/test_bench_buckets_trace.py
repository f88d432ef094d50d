"""bench/bench_buckets_trace.py's model of TVM's graph cache, checked: on a small module against
the reference executor's own cache (captures and replays, call by call), on the 1B dump against
`cgraph diff`'s launches per call."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.bench_buckets_trace import GraphCache, raised_bound, run_call, trace
from cudagraph_cli import api, ir
from cudagraph_cli.passes.options import RewriteOptions

ROOT = Path(__file__).resolve().parent.parent
ROWS = ROOT / "tests" / "buckets" / "rows.relax"
LLAMA = ROOT / "samples" / "real" / "mlc_llama_1b.before.relax"


@pytest.mark.parametrize("options", [dict(capture_buckets=("n:2,4,8",)),
                                     dict(capture_symbolic=("n:8",)),
                                     dict(capture_buckets=("n:auto",))])
def test_the_model_captures_and_replays_as_the_executor_does(options):
    out, _ = api.rewrite(api.load(ROWS), RewriteOptions(**options))
    sizes = (3, 4, 1, 9, 16, 2, 5, 3)
    run = api.run_cpu(out, calls=len(sizes), shapes={"n": sizes})
    cache = GraphCache()
    graph_launches = 0
    for n in sizes:
        graph_launches += run_call(out, out.function("main"), {"n": n}, cache,
                                   _prims(out)).graphs
    assert run.graph_captures > 0
    assert cache.captures == run.graph_captures
    assert graph_launches - cache.captures == run.graph_replays


def _prims(module) -> set:
    return {f.name for f in module.functions if isinstance(f, ir.PrimFunc)}


def test_launches_per_call_are_diffs():
    """The model's launches per call, at any size within the bounds, are what `cgraph diff`
    counts on the graph path, for each rewrite of the trace."""
    src = raised_bound(LLAMA.read_text(), 128)
    assert src.count('"tir_var_upper_bound": {"batch_size": 128') == 5
    original = api.loads(src, name="llama")
    prims = _prims(original)
    for options, seq_len in ((RewriteOptions.tvm_compat(), 1000),
                             (RewriteOptions(capture_symbolic=("seq_len:256",)), 200),
                             (RewriteOptions(capture_buckets=("seq_len:auto",
                                                              "batch_size:auto")), 1000)):
        out, report = api.rewrite(original, options)
        facts = {f["name"]: f for f in _diff(original, out, report)["functions"]}
        for fname, sizes in (("prefill", {"seq_len": seq_len}),
                             ("batch_decode", {"batch_size": 13})):
            c = run_call(out, out.function(fname), sizes, GraphCache(), prims)
            assert c.launches == facts[fname]["host_launches_after"], (options, fname)
            assert c.launches + c.builtins == facts[fname]["host_work_after"]


def _diff(original, out, report) -> dict:
    from cudagraph_cli.report.analysis import analyze
    from cudagraph_cli.report.views import to_json

    return json.loads(json.dumps(to_json(analyze(original, out, report), "m")))


def test_the_trace_is_seeded_and_within_its_ranges():
    steps = trace(500, 0, 128)
    assert steps == trace(500, 0, 128) and steps != trace(500, 1, 128)
    assert all(16 <= n <= 2048 and 1 <= b <= 128 for n, b in steps)
    assert min(n for n, _ in steps) < 32 and max(n for n, _ in steps) > 1024
