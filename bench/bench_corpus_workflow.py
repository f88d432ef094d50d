"""The TVM side of the real-size workflow on every MLC-LLM-style model, where tests sample it.

    python bench/bench_corpus_workflow.py [--models mlc_gemma2_2b,mlc_llama_8b_tp2]

tests/test_real_size_tvm.py runs these checks on the 1B model (TVM reads cgraph's text) and on
one model of issue 34's families, the largest (the pass inside TVM's pipeline): each costs 20 to
40 s a model on the 2-core machine. This script runs both on every model named, as the tests
run them, and prints one JSON line a model with each check's result and wall seconds:

* `tvm_reads_fmt`, `tvm_reads_rewrite`: `cgraph fmt` and `cgraph rewrite` outputs of the
  before file load in TVM with its well-formedness check on, and equal TVM's reading of its
  own before and after files (tests/helpers/tvm_oracle.py's fix-ups, as the tests use them);
  `rewrite_is_tvm_compat`: no correction of docs/REWRITE.md applies (`--compat tvm` prints the
  same);
* `pass_in_pipeline`: `relax.build` with cgraph's pass in TVM's cuda pipeline (MLC-LLM's
  LowBatchGEMV first, as the corpus is built) completes; the module it hands on is
  well-formed and structurally equal to TVM's RewriteCUDAGraph on the same in-memory module,
  which prints as the corpus file.

cgraph's own verbs on these models (rewrite equals TVM's after file, verify, run, kernels) are
bench/bench_real_size.py's; TVM's pass in memory both ways is bench/bench_tvm_pass.py's.
Exit status 1 when a check fails.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "helpers"))  # tvm_oracle: TVM's reading of its dumps

MODELS = ["mlc_gemma2_2b", "mlc_llama_8b_tp2"]
REAL = ROOT / "samples" / "real"


def load_build_corpus():
    spec = importlib.util.spec_from_file_location(
        "build_corpus", ROOT / "bench" / "corpus" / "build_corpus.py")
    build_corpus = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build_corpus)  # puts bench/corpus on sys.path
    return build_corpus


def cgraph_text(*args: str) -> str:
    from click.testing import CliRunner

    from cudagraph_cli.cli import main

    result = CliRunner(env={"NO_COLOR": "1"}).invoke(main, list(args), catch_exceptions=False)
    if result.exit_code != 0:
        raise RuntimeError(f"cgraph {' '.join(args)}: exit {result.exit_code}\n{result.output}")
    return result.output


def text_checks(name: str) -> dict:
    """TVM reads cgraph's fmt and rewrite outputs, well-formed, equal to its own readings."""
    from tvm_oracle import (tvm_equal, tvm_parse_own_dump, tvm_parse_with_constants,
                            with_tuple_types_rederived, without_alloc_ty_args)

    from cudagraph_cli.tvm import on_a_short_stack

    before = str(REAL / f"{name}.before.relax")

    def own(stage):
        text = (REAL / f"{name}.{stage}.relax").read_text()
        return on_a_short_stack(tvm_parse_own_dump, without_alloc_ty_args(text))

    def tvm_reads(text):
        return on_a_short_stack(tvm_parse_with_constants, text, {}, check_well_formed=True)

    formatted = tvm_reads(cgraph_text("fmt", before))
    rewritten = cgraph_text("rewrite", before)
    mine = tvm_reads(rewritten)
    return {
        "tvm_reads_fmt": tvm_equal(formatted, own("before")) is None,
        "rewrite_is_tvm_compat": cgraph_text("rewrite", before, "--compat", "tvm") == rewritten,
        "tvm_reads_rewrite": tvm_equal(with_tuple_types_rederived(mine),
                                       with_tuple_types_rederived(own("after"))) is None,
    }


def pipeline_check(name: str, build_corpus) -> dict:
    """cgraph's pass inside relax.build: well-formed, TVM's pass on the same module."""
    import tvm
    from tvm import relax
    from tvm.s_tir import dlight as dl
    from tvm_oracle import tvm_equal

    from cudagraph_cli.tvm import cuda_pipeline

    target = tvm.target.Target(build_corpus.TARGET)
    recorder = build_corpus.Capture()
    pipeline = cuda_pipeline(before_schedule=[dl.ApplyDefaultSchedule(dl.gpu.LowBatchGEMV(4))])
    with tvm.transform.PassContext(opt_level=3, config=build_corpus.CONFIG,
                                   instruments=[recorder.instrument()]):
        relax.build(build_corpus.mlc_family(name).build(name, target), target=target,
                    relax_pipeline=pipeline)
    recorder.single(name)
    before, ours = recorder.before_modules[0], recorder.after_modules[0]
    text = (REAL / f"{name}.before.relax").read_text()
    relax.analysis.well_formed(ours)  # raises on the first violation
    with tvm.transform.PassContext(config=build_corpus.CONFIG):
        theirs = relax.transform.RewriteCUDAGraph()(before)
    return {"pass_in_pipeline": tvm_equal(ours, theirs) is None,
            "module_is_the_corpus_file":
                text[text.index("\n", text.index("# made by:")) + 1:] == before.script() + "\n"}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default=",".join(MODELS))
    args = ap.parse_args()
    build_corpus = load_build_corpus()
    failed = False
    for name in args.models.split(","):
        row: dict = {"model": name}
        for label, check in (("text", lambda: text_checks(name)),
                             ("pipeline", lambda: pipeline_check(name, build_corpus))):
            start = time.perf_counter()
            row.update(check())
            row[f"{label}_s"] = round(time.perf_counter() - start, 1)
        failed |= not all(v for k, v in row.items() if isinstance(v, bool))
        print(json.dumps(row), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
