"""cgraph's text of every MLC-LLM-style dump of samples/real, through TVM's reader.

    python bench/bench_tvm_text.py [--only mlc_phi2 ...]

For each samples/real/mlc_*.before.relax: `cgraph fmt` and `cgraph rewrite` outputs load in
TVM 0.27 with its well-formedness check on and equal TVM's readings of the before and after
files (tests/helpers/tvm_oracle.py `check_cgraph_text_of_mlc_dump`, the check
tests/test_real_size_tvm.py runs on the 1B model only: TVM reads each 1 MB text in 5 to 10 s,
four readings a model). Prints one JSON line a model: whether the check held (or its
error) and the CPU seconds it took in this process. Exit status 1 if any model fails.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "helpers"))  # tvm_oracle: the tests' check

REAL = ROOT / "samples" / "real"


def main() -> int:
    models = sorted(p.name.split(".")[0] for p in REAL.glob("mlc_*.before.relax"))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", default=models)
    args = ap.parse_args()

    from tvm_oracle import check_cgraph_text_of_mlc_dump

    failed = False
    for name in args.only:
        start = time.process_time()
        try:
            check_cgraph_text_of_mlc_dump(REAL / f"{name}.before.relax",
                                          REAL / f"{name}.after.relax")
            result = {"model": name, "holds": True}
        except AssertionError as e:
            failed = True
            result = {"model": name, "holds": False, "error": str(e)[:2000]}
        result["cpu_s"] = round(time.process_time() - start, 1)
        print(json.dumps(result), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
