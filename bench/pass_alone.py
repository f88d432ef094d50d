"""The pass alone, cgraph's and TVM's, interleaved in one process on the same module.

    python bench/pass_alone.py FILE [--runs 9]

Prints a JSON line: medians and minimums (seconds) of cgraph's pipeline on the parsed module
(planner, merger, rewriter, and its well-formedness check of the rewritten functions, GC paused
as the CLI does) and of TVM's C++ RewriteCUDAGraph on TVM's parse of the same text (null when
apache-tvm is not installed); and, once each, the reading of the text: cgraph's parse_module
and TVM's tvm.script.from_source. Run as its own process by bench_rewrite.py and bench_big.py.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cudagraph_cli.text.reader import parse_module  # noqa: E402
from cudagraph_cli.passes.pipeline import rewrite  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--runs", type=int, default=9)
    args = ap.parse_args()
    text = Path(args.file).read_text()
    start = time.perf_counter()
    module = parse_module(text)
    cgraph_parse = time.perf_counter() - start
    tvm_parse = None
    tvm_job = None
    try:
        if os.environ.get("CGRAPH_BENCH_NO_TVM"):
            raise ImportError("TVM left out on request")
        import tvm
        from tvm import relax
        from tvm.script import from_source

        start = time.perf_counter()
        tvm_mod = from_source(text)
        tvm_parse = time.perf_counter() - start

        def _tvm_job():
            with tvm.transform.PassContext(config={"relax.backend.use_cuda_graph": True}):
                relax.transform.RewriteCUDAGraph()(tvm_mod)
        tvm_job = _tvm_job
    except ImportError:
        pass
    ours, theirs = [], []
    for _ in range(args.runs):
        start = time.perf_counter()
        rewrite(module)
        ours.append(time.perf_counter() - start)
        if tvm_job is not None:
            start = time.perf_counter()
            tvm_job()
            theirs.append(time.perf_counter() - start)
    result = {"cgraph_median": statistics.median(ours), "cgraph_min": min(ours),
              "tvm_median": statistics.median(theirs) if theirs else None,
              "tvm_min": min(theirs) if theirs else None,
              "cgraph_parse": cgraph_parse, "tvm_parse": tvm_parse}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
