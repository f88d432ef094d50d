"""cgraph's TVM pass next to TVM's, in one process, on the real-size MLC-style modules.

    python bench/bench_tvm_pass.py [--runs 5] [--only mlc_llama_1b ...] [--no-text-route]

Each samples/real/mlc_*.before.relax is read by TVM (tvm.script.from_source; these dumps need
the two fix-ups of tests/tvm_oracle.py, done here the same way: `without_alloc_ty_args`, TVM's
reader rejects the ty_args it prints on R.builtin.alloc_tensor; `tvm_parse_own_dump`, a kernel
does not see the module TypeVar of a name its body declares, what TVM's printer meant), then
three passes run on that in-memory module under `relax.backend.use_cuda_graph`, interleaved,
`--runs` times each: TVM's `relax.transform.RewriteCUDAGraph()`, cgraph's
`cudagraph_cli.tvm.RewriteCUDAGraph()` (in memory both ways), and cgraph's pass through text
(`rewrite_module_through_text`, the route it falls back to with a TextRouteWarning:
mod.script(), cgraph's reader, its printer, TVM's reader; `--no-text-route` leaves it out).
Prints one JSON line a model: medians and minimums (seconds) of each, the ratios of cgraph's
medians to TVM's, the checks (cgraph's pass with its corrections off,
RewriteOptions.tvm_compat(), structurally equal to TVM's; its default output equal to the text
route's and well-formed), and what cgraph's pass warned of (`warnings`: none on these models).
`--profile` prints cProfile's top entries of one in-memory run to stderr.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "helpers"))  # tvm_oracle: TVM's reading of its dumps

MODELS = ["mlc_llama_1b", "mlc_qwen2_0_5b", "mlc_llama_8b", "mlc_gemma2_2b", "mlc_llama_8b_tp2",
          "mlc_olmoe_1b_7b", "mlc_olmoe_1b_7b_thrust", "mlc_phi2", "mlc_gpt2_medium"]


def read_tvm(text: str):
    """TVM's reading of its own dump (see the module docstring): the tests' reader, with
    the two fix-ups TVM 0.27's reader needs (tests/helpers/tvm_oracle.py), on a thread of
    its own (TVM's reader calls inspect.stack() per function)."""
    from tvm_oracle import tvm_parse_own_dump, without_alloc_ty_args

    from cudagraph_cli.tvm import on_a_short_stack

    return on_a_short_stack(tvm_parse_own_dump, without_alloc_ty_args(text))


def equal(tvm, a, b) -> bool:
    try:
        tvm.ir.assert_structural_equal(a, b)
    except (ValueError, AssertionError):
        return False
    return True


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only", nargs="*", default=MODELS)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--no-text-route", action="store_true",
                    help="leave out the text route (the slowest of the three by far): TVM's "
                         "pass and cgraph's in memory only, and no check against the text route")
    args = ap.parse_args()

    import tvm
    from tvm import relax

    from cudagraph_cli.passes.options import RewriteOptions
    from cudagraph_cli.tvm import RewriteCUDAGraph, rewrite_module_through_text

    for name in args.only:
        text = (ROOT / "samples" / "real" / f"{name}.before.relax").read_text()
        mod = read_tvm(text)
        theirs_pass = relax.transform.RewriteCUDAGraph()
        ours_pass = RewriteCUDAGraph()
        ours, theirs, before = [], [], []
        said: set = set()  # what cgraph's pass warned of (a text route taken, a wrong stage)
        with tvm.transform.PassContext(config={"relax.backend.use_cuda_graph": True}):
            for _ in range(args.runs):
                start = time.perf_counter()
                tvm_out = theirs_pass(mod)
                theirs.append(time.perf_counter() - start)
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    start = time.perf_counter()
                    out = ours_pass(mod)
                    ours.append(time.perf_counter() - start)
                said.update(str(w.message) for w in caught)
                if args.no_text_route:
                    continue
                start = time.perf_counter()
                text_out = rewrite_module_through_text(mod)
                before.append(time.perf_counter() - start)
            exact = RewriteCUDAGraph(RewriteOptions.tvm_compat())(mod)
            checks = {"tvm_compat_equals_tvm": equal(tvm, exact, tvm_out)}
            if not args.no_text_route:
                checks["equals_text_route"] = equal(tvm, out, text_out)
            relax.analysis.well_formed(out)  # raises on a violation
            checks["well_formed"] = True
            if args.profile:
                import cProfile
                import io
                import pstats

                prof = cProfile.Profile()
                prof.enable()
                ours_pass(mod)
                prof.disable()
                out = io.StringIO()
                pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(25)
                print(out.getvalue(), file=sys.stderr)
        tvm_median = statistics.median(theirs)
        row = {"model": name, "runs": args.runs,
               "tvm_median": tvm_median, "tvm_min": min(theirs),
               "cgraph_median": statistics.median(ours), "cgraph_min": min(ours),
               "ratio": statistics.median(ours) / tvm_median, **checks,
               "warnings": sorted(said)}
        if before:
            row.update(text_route_median=statistics.median(before), text_route_min=min(before),
                       text_route_ratio=statistics.median(before) / tvm_median)
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
