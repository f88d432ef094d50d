"""Benchmark: `cgraph rewrite` against TVM 0.27's RewriteCUDAGraph on decode-style modules.

For 8, 32, 128 and 512 layers (cudagraph_cli.gen.decode_module, 12 kernels a layer):
* whole process: `cgraph rewrite IN -o OUT` in a fresh process (median of --repeat runs),
  peak memory; and, with apache-tvm installed, the same job through TVM in a fresh process
  (from_source, the pass with relax.backend.use_cuda_graph=True, script()).
* the pass alone (bench/pass_alone.py: one process, the two interleaved, median of 9):
  cgraph's pipeline on the parsed module (planner, merger, rewriter, and the well-formedness
  check of the rewritten functions) and TVM's C++ pass on TVM's parse of the same text.

    python bench/bench_rewrite.py [--repeat 3] [--no-tvm] [--write docs/BENCHMARKS.md]

Goals (issue 3): 512 layers <= 3 s whole process on the 2-core dev machine; the pass alone no
slower than TVM's; time grows linearly with the number of layers.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_fmt import run  # noqa: E402
from cudagraph_cli.gen import decode_module  # noqa: E402
from bench.report import machine, write_section  # noqa: E402

TVM_JOB = """
import sys, tvm
from tvm import relax
from tvm.script import from_source
mod = from_source(open(sys.argv[1]).read())
with tvm.transform.PassContext(config={"relax.backend.use_cuda_graph": True}):
    mod = relax.transform.RewriteCUDAGraph()(mod)
open(sys.argv[2], "w").write(mod.script())
"""


def pass_alone(path: Path, use_tvm: bool) -> dict:
    """bench/pass_alone.py in a child process (TVM stays out of this one, whose children's
    peak memory is measured)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cmd = [sys.executable, str(ROOT / "bench" / "pass_alone.py"), str(path)]
    if not use_tvm:
        env["CGRAPH_BENCH_NO_TVM"] = "1"
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--layers", default="8,32,128,512")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-tvm", action="store_true")
    ap.add_argument("--write", metavar="FILE")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for layers in (int(x) for x in args.layers.split(",")):
            text = decode_module(layers)
            src = Path(tmp) / f"decode{layers}.relax"
            src.write_text(text)
            out = Path(tmp) / "out.relax"
            runs = [run([sys.executable, "-m", "cudagraph_cli", "rewrite", str(src), "-o",
                         str(out)]) for _ in range(args.repeat)]
            whole = statistics.median(w for w, _ in runs)
            rss = max(m for _, m in runs) / 1024
            alone = pass_alone(src, not args.no_tvm)
            ours, tvm_alone = alone["cgraph_median"], alone["tvm_median"]
            tvm_whole = None
            if tvm_alone is not None:
                tvm_whole, _ = run([sys.executable, "-c", TVM_JOB, str(src), str(out)])
            lines = text.count("\n")
            rows.append((layers, lines, whole, lines / whole, rss, tvm_whole, ours, tvm_alone))
            print(f"{layers:4d} layers: rewrite {whole:.2f} s ({rss:.0f} MiB), pass {ours:.3f} s"
                  + (f"; TVM {tvm_whole:.1f} s, pass {tvm_alone:.3f} s" if tvm_alone else ""),
                  flush=True)
    fmt = lambda v, f: (f % v) if v is not None else "not run"  # noqa: E731
    head = ("| layers | lines | cgraph rewrite, whole process (s) | lines/s | peak RSS (MiB) | "
            "TVM parse+pass+print (s) | ratio | cgraph pass alone (s) | TVM pass alone (s) |\n"
            "|---|---|---|---|---|---|---|---|---|")
    body = "\n".join(
        f"| {l} | {n} | {w:.2f} | {r:,.0f} | {m:.0f} | {fmt(tw, '%.1f')} | "
        f"{fmt(tw / w if tw else None, '%.1fx')} | {o:.3f} | {fmt(ta, '%.3f')} |"
        for l, n, w, r, m, tw, o, ta in rows)
    growth = ""
    if len(rows) >= 2:
        growth = (f"\ntime({rows[-1][0]}) / time({rows[-2][0]}): whole process "
                  f"{rows[-1][2] / rows[-2][2]:.2f}, pass alone {rows[-1][6] / rows[-2][6]:.2f}\n")
    report = (f"\n### cgraph rewrite vs TVM RewriteCUDAGraph ({machine()})\n\n"
              f"`python bench/bench_rewrite.py --repeat {args.repeat}`\n\n{head}\n{body}\n"
              f"{growth}")
    print(report)
    if args.write:
        write_section(args.write, "bench_rewrite", report)


if __name__ == "__main__":
    main()
