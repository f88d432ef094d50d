"""Benchmark: the memory of a long-running process that calls verify again and again.

    python bench/bench_verify_memory.py [--model mlc_llama_1b] [--function decode]
                                        [--runs 20] [--calls 4] [--limit 64]

Loads samples/real/MODEL's original and rewrite once, then calls `cudagraph_cli.verify` on
them `--runs` times in one process, without `gc.collect()`, and prints the resident memory
after each call (VmRSS, MiB). Before each reading, glibc's `malloc_trim(0)` returns the heap
pages that freed memory left (without it the reading swings by the size of the largest
buffer, which the allocator keeps for the next call: 47 and 178 MiB in turn for the 1B
decode), so that the figure is what the process holds. Exit status 1 when memory after a
later call exceeds memory after the first by more than `--limit` MiB.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cudagraph_cli import api  # noqa: E402


def rss_mib() -> float:
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass  # not glibc: the reading includes freed heap pages
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default="mlc_llama_1b")
    ap.add_argument("--function", default="decode")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--calls", type=int, default=4)
    ap.add_argument("--limit", type=float, default=64.0, help="MiB")
    args = ap.parse_args()
    original = api.load(ROOT / "samples/real" / f"{args.model}.before.relax")
    rewritten = api.load(ROOT / "samples/real" / f"{args.model}.after.relax")
    readings, seconds = [], []
    for i in range(args.runs):
        start = time.perf_counter()
        report = api.verify(original, rewritten, calls=args.calls, functions=[args.function])
        assert report.equal, report.difference
        del report
        seconds.append(time.perf_counter() - start)
        readings.append(rss_mib())
        print(f"call {i + 1}: {readings[-1]:.0f} MiB ({seconds[-1]:.1f} s)", flush=True)
    growth = max(readings) - readings[0]
    print(json.dumps({"model": args.model, "function": args.function, "runs": args.runs,
                      "rss_mib": [round(r, 1) for r in readings],
                      "growth_after_first_mib": round(growth, 1)}))
    sys.exit(1 if growth > args.limit else 0)


if __name__ == "__main__":
    main()
