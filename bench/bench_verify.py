"""Benchmark: `cgraph verify` of the 512-layer decode module and its rewrite, 4 calls.

    python bench/bench_verify.py [--layers 512] [--calls 4] [--repeat 3] [--write FILE]

Whole process (parsing both modules included), median of --repeat runs, peak memory.
Goal (issue 4): at most 10 s on the 2-core dev machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_fmt import run  # noqa: E402
from cudagraph_cli.gen import decode_module  # noqa: E402
from bench.report import machine, write_section  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--layers", type=int, default=512)
    ap.add_argument("--calls", type=int, default=4)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--write", metavar="FILE")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "decode.relax"
        out = Path(tmp) / "decode.graph.relax"
        src.write_text(decode_module(args.layers))
        run([sys.executable, "-m", "cudagraph_cli", "rewrite", str(src), "-o", str(out)])
        runs = [run([sys.executable, "-m", "cudagraph_cli", "verify", str(src), str(out),
                     "--calls", str(args.calls)]) for _ in range(args.repeat)]
    wall = statistics.median(w for w, _ in runs)
    rss = max(m for _, m in runs) / 1024
    report = (f"\n### cgraph verify ({machine()})\n\n"
              f"`python bench/bench_verify.py --layers {args.layers} --calls {args.calls}`: "
              f"{wall:.2f} s median of {args.repeat} (whole process, both modules parsed), "
              f"peak RSS {rss:.0f} MiB\n")
    print(report)
    if args.write:
        write_section(args.write, "bench_verify", report)


if __name__ == "__main__":
    main()
