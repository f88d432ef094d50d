"""Benchmark: cgraph's row-wise verdicts against TVM's runs of generated kernels (issue 50, 2).

    python bench/bench_row_wise_differential.py [--per-class 50] [--write docs/EXECUTOR.md]
                                                [--save tests/data/row_wise_false]

`--per-class` kernels of each pattern class of tests/helpers/row_kernels.py (seeds 0, 1, ...;
22 classes, so 1,100 kernels by default), each built by TVM 0.27 for llvm and run at n rows and
at B > n rows with random pad rows (n = 1, B = 9, and two seeded pairs with n in 1..5, B in
n+1..9; two draws of the pad each): the kernel is truly row-wise when its real rows and its
non-row buffers agree. Each is also judged by cgraph (`passes/row_wise.row_wise(prim, "n")`;
for the class of one kernel launched twice, `kernel_verdicts(module, "seq")`).

Per class: kernels generated, truly row-wise, cgraph says row-wise, **false row-wise** (cgraph
says row-wise, the runs disagree: must be 0), row-wise refused (truly row-wise, cgraph refuses).
Exit status 1 if any false row-wise. `--save DIR` writes the first false row-wise kernel of
each (class, variant) as DIR/CLASS-SEED.tir.relax (of the compositions, the first 4), the
module cgraph judged with a comment line on top naming the class, the seed, the variant and
where the runs disagreed (tests/test_row_wise_differential.py runs them again).
`--write` replaces the `<!-- bench_row_wise_differential -->` section of the file
(bench/report.py).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "helpers"))

from bench.report import machine, write_section  # noqa: E402
from row_kernels import CLASSES, COMPOSITION, cgraph_verdict, generate, judge_sizes  # noqa: E402

COLUMNS = ("generated", "truly row-wise", "cgraph row-wise", "false row-wise", "row-wise refused")


def slug(cls: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", cls.lower()).strip("_")


def saved_text(kernel, detail: str) -> str:
    """The module of a false row-wise kernel, its comment line first (read back by
    tests/test_row_wise_differential.py)."""
    return (f"# row_wise_false: class={kernel.cls}; seed={kernel.seed}; variant={kernel.variant}; "
            f"disagreed at {detail}\n" + kernel.cgraph_text)


def measure(per_class: int) -> tuple:
    """(counts per class, the false row-wise kernels with the runs' detail)."""
    counts = {cls: Counter() for cls in CLASSES}
    false = []
    for cls in CLASSES:
        for seed in range(per_class):
            kernel = generate(cls, seed)
            truth = judge_sizes(kernel, seed)
            says = cgraph_verdict(kernel).row_wise
            row = counts[cls]
            row["generated"] += 1
            row["truly row-wise"] += truth.row_wise
            row["cgraph row-wise"] += says
            row["false row-wise"] += says and not truth.row_wise
            row["row-wise refused"] += truth.row_wise and not says
            if says and not truth.row_wise:
                false.append((kernel, truth.detail))
    return counts, false


def table(counts: dict) -> list:
    lines = ["| class | " + " | ".join(COLUMNS) + " |", "|---|" + "---:|" * len(COLUMNS)]
    total = Counter()
    for cls, row in counts.items():
        total.update(row)
        lines.append(f"| {cls} | " + " | ".join(str(row[c]) for c in COLUMNS) + " |")
    lines.append("| **all** | " + " | ".join(f"**{total[c]}**" for c in COLUMNS) + " |")
    return lines


COMPOSITIONS_KEPT = 4  # a composition's variant is nearly always new; its parts are kept alone


def save(false: list, directory: Path) -> list:
    """The first false kernel of each (class, variant), written to `directory` (the first
    COMPOSITIONS_KEPT of the compositions)."""
    directory.mkdir(parents=True, exist_ok=True)
    seen, paths = set(), []
    for kernel, detail in false:
        composed = sum(1 for cls, _ in seen if cls == COMPOSITION)
        if (kernel.cls, kernel.variant) in seen or (kernel.cls == COMPOSITION
                                                    and composed >= COMPOSITIONS_KEPT):
            continue
        seen.add((kernel.cls, kernel.variant))
        path = directory / f"{slug(kernel.cls)}-{kernel.seed}.tir.relax"
        path.write_text(saved_text(kernel, detail), encoding="utf-8")
        paths.append(path)
    return paths


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--per-class", type=int, default=50)
    ap.add_argument("--write", metavar="FILE")
    ap.add_argument("--save", metavar="DIR")
    args = ap.parse_args()
    start = time.perf_counter()
    counts, false = measure(args.per_class)
    seconds = time.perf_counter() - start
    total = sum(row["generated"] for row in counts.values())
    lines = [f"Row independence, cgraph's verdict against TVM's runs ({machine()}; "
             f"`python bench/bench_row_wise_differential.py --per-class {args.per_class}`, "
             f"{total} kernels in {seconds:.0f} s). False row-wise must be 0.", ""] + table(counts)
    text = "\n".join(lines)
    print(text)
    if args.save:
        for path in save(false, Path(args.save)):
            print("saved", path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
    if args.write:
        write_section(args.write, "bench_row_wise_differential", text)
    return 1 if false else 0


if __name__ == "__main__":
    sys.exit(main())
