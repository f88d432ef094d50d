"""TVM reads cgraph's text of the real-size models: tests/test_real_size_tvm.py's text check on
every model (the test runs it on the 1B model only: TVM takes 10 to 25 s a reading of these
1 MB modules, four readings a model).

    python bench/bench_real_size_tvm.py [--only mlc_olmoe_1b_7b ...]

For each samples/real/NAME: `cgraph fmt` of the before file and `cgraph rewrite` of it load in
TVM with its well-formedness check on, and equal TVM's readings of the before and after dumps
(those with the fix-ups of tests/helpers/tvm_oracle.py that TVM's reader needs for its own
dumps: `without_alloc_ty_args`, `tvm_parse_own_dump`; tuples holding a GlobalVar get their
types derived again on both sides, `with_tuple_types_rederived`). `rewrite --compat tvm`
gives the same text as the default rewrite (no correction of docs/REWRITE.md applies). Prints
one JSON line a model with the checks and the seconds each step took; exits 1 if a check
fails.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "helpers"))  # tvm_oracle: TVM's reading of its dumps

MODELS = ["mlc_llama_1b", "mlc_qwen2_0_5b", "mlc_llama_8b", "mlc_olmoe_1b_7b",
          "mlc_olmoe_1b_7b_thrust"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="*", default=MODELS)
    args = ap.parse_args()

    from click.testing import CliRunner
    from tvm_oracle import (tvm_equal, tvm_parse_own_dump, tvm_parse_with_constants,
                            with_tuple_types_rederived, without_alloc_ty_args)

    from cudagraph_cli.cli import main as cli_main
    from cudagraph_cli.tvm import on_a_short_stack

    def cli(*argv: str) -> str:
        result = CliRunner(env={"NO_COLOR": "1"}).invoke(cli_main, list(argv),
                                                         catch_exceptions=False)
        if result.exit_code != 0:
            raise SystemExit(f"cgraph {' '.join(argv)}: exit {result.exit_code}\n"
                             f"{result.output}")
        return result.output

    failed = False
    for name in args.only:
        before = ROOT / "samples" / "real" / f"{name}.before.relax"
        after = ROOT / "samples" / "real" / f"{name}.after.relax"
        seconds, checks = {}, {}

        def timed(step, function, *a, **kw):
            start = time.perf_counter()
            value = function(*a, **kw)
            seconds[step] = round(time.perf_counter() - start, 1)
            return value

        formatted = timed("fmt", cli, "fmt", str(before))
        rewritten = timed("rewrite", cli, "rewrite", str(before))
        checks["compat_tvm_same_text"] = cli("rewrite", str(before), "--compat", "tvm") == \
            rewritten
        reference_before = timed("tvm_reads_before_dump", on_a_short_stack, tvm_parse_own_dump,
                                 without_alloc_ty_args(before.read_text()))
        reference_after = timed("tvm_reads_after_dump", on_a_short_stack, tvm_parse_own_dump,
                                without_alloc_ty_args(after.read_text()))
        mine_fmt = timed("tvm_reads_fmt_well_formed", on_a_short_stack,
                         tvm_parse_with_constants, formatted, {}, check_well_formed=True)
        mine_rewrite = timed("tvm_reads_rewrite_well_formed", on_a_short_stack,
                             tvm_parse_with_constants, rewritten, {}, check_well_formed=True)
        checks["fmt_equals_tvm_reading"] = tvm_equal(mine_fmt, reference_before) is None
        checks["rewrite_equals_tvm_reading"] = tvm_equal(
            with_tuple_types_rederived(mine_rewrite),
            with_tuple_types_rederived(reference_after)) is None
        failed |= not all(checks.values())
        print(json.dumps({"model": name, **checks, "seconds": seconds}), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
