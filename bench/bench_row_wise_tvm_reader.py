"""cgraph's row-wise verdicts against TVM's reading of the same kernels, on every module
(issue 50): tests/test_row_wise_tvm_reader.py's comparison with the four families it leaves out
(conftest's BENCH_ONLY_FAMILIES: Gemma-2-2B, OLMoE-1B-7B with and without thrust, Phi-2,
GPT-2-medium) put back.

    python bench/bench_row_wise_tvm_reader.py [--models mlc_llama_1b,...]

Prints, per module and symbolic variable, how many kernels cgraph decides on, how many it calls
row-wise and how many of those TVM's reader (tests/helpers/tvm_row_wise.py) confirms; then every
disagreement with TVM's reason, and the kernels only TVM's reader accepts. Exit status 1 when
cgraph calls a kernel row-wise that TVM's reader does not. Needs apache-tvm.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "helpers"))  # the TVM reader and the comparison

from row_wise_corpus import compare_module, summary  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", help="comma-separated file name prefixes (default: every module)")
    args = ap.parse_args()
    files = sorted((ROOT / "samples").rglob("*.relax")) + \
        sorted((ROOT / "tests" / "buckets").glob("*.relax"))
    if args.models:
        files = [f for f in files if f.name.startswith(tuple(args.models.split(",")))]
    start = time.perf_counter()
    kernels: dict = {}
    unread: dict = {}
    rows = []
    for path in files:
        rows += compare_module(path.relative_to(ROOT).as_posix(), path.read_text(), kernels,
                               unread)
    per_module, tvm_only = summary(rows)
    for (file, var), c in sorted(per_module.items()):
        print(f"{file} {var}: {c['kernels']} kernels, cgraph row-wise {c['cgraph']}, "
              f"TVM confirms {c['both']}")
    disagree = [r for r in rows if r[3] and not r[4]]
    print(f"{len(files)} modules, {len(rows)} verdicts, {sum(r[3] for r in rows)} row-wise by "
          f"cgraph, {len(disagree)} not by TVM's reader; {len(unread)} modules TVM did not "
          f"read; {time.perf_counter() - start:.1f} s")
    for file, var, kernel, _, _, reason in disagree:
        print(f"  cgraph row-wise, TVM not: {file}: {kernel} in {var}: {reason}")
    for file, error in unread.items():
        print(f"  TVM did not read {file}: {error}")
    print(f"TVM's reader only ({len(tvm_only)}):", *tvm_only, sep="\n  ")
    return 1 if disagree else 0


if __name__ == "__main__":
    sys.exit(main())
