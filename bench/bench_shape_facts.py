"""Benchmark: what verify's shape facts cost (proof/facts.py), on the largest real dumps.

    python bench/bench_shape_facts.py [--model mlc_gemma2_2b --model mlc_llama_8b]
                                      [--repeat 5] [--write docs/BENCHMARKS.md]

For each samples/real/MODEL, both modules read once, then `prove_modules(original,
rewritten, None)` -- every fact of every public function of both, what `cgraph verify` adds
before it runs -- timed in CPU seconds (time.process_time), median of --repeat. The facts are
linear in the module: one walk of each public function, each capture function's body walked
at each of its launches.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.report import machine, write_section  # noqa: E402
from cudagraph_cli import api  # noqa: E402
from cudagraph_cli.proof.facts import prove_modules  # noqa: E402

MODELS = ("mlc_gemma2_2b", "mlc_llama_8b")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", action="append")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--write", metavar="DOC")
    args = ap.parse_args()
    rows = []
    for model in args.model or MODELS:
        before = api.load(ROOT / f"samples/real/{model}.before.relax")
        after = api.load(ROOT / f"samples/real/{model}.after.relax")
        times, walls = [], []
        for _ in range(args.repeat):
            t, w = time.process_time(), time.perf_counter()
            shapes = prove_modules(before, after, None)
            times.append(time.process_time() - t)
            walls.append(time.perf_counter() - w)
        rows.append(f"| {model} | {statistics.median(times):.2f} s | "
                    f"{statistics.median(walls):.2f} s | "
                    f"{shapes.count('proved')} | {shapes.count('failed')} | "
                    f"{len(shapes.unproven())} |")
        print(rows[-1], flush=True)
    text = (f"### verify's shape facts ({machine()})\n\n"
            "What `cgraph verify` adds before it runs (issue 39: default verify time about the "
            "same): `prove_modules`, every fact of every public function of both modules, "
            "the modules already read.\n\n"
            f"`python bench/bench_shape_facts.py --repeat {args.repeat}`: medians, CPU and "
            "wall seconds (wall on a shared machine: the load of others' jobs included)\n\n"
            "| model | CPU | wall | proved | failed | unproven |\n"
            "|---|---|---|---|---|---|\n" +
            "\n".join(rows))
    if args.write:
        write_section(args.write, "bench_shape_facts", text)
    print(text)


if __name__ == "__main__":
    main()
