"""The TVM side of the real-size workflow on every MLC-LLM-style model, where tests sample it.

    python bench/bench_corpus_workflow.py [--models mlc_gemma2_2b,mlc_llama_8b_tp2] [--text-only]

tests/test_real_size_tvm.py runs these checks on a few models (TVM reads cgraph's text of the
1B; the pass inside TVM's pipeline on the first three, the tensor-parallel 8B and Phi-2): each
costs 20 to 70 s of CPU a model on the 2-core machine. This script runs both on every
samples/real/mlc_* model (or those named), as the tests run them, and prints one JSON line a
model with each check's result (true, or the error) and wall seconds:

* `text`: tests/helpers/tvm_oracle.py's check_cgraph_text_of_mlc_dump: `cgraph fmt` and
  `cgraph rewrite` outputs of the before file load in TVM with its well-formedness check on,
  and equal TVM's reading of its own before and after files; `rewrite --compat tvm` prints
  the same (no correction of docs/REWRITE.md applies);
* `pass_in_pipeline`: `relax.build` with cgraph's pass in TVM's cuda pipeline (MLC-LLM's
  LowBatchGEMV first, as the corpus is built) completes; the module it hands on is
  well-formed and structurally equal to TVM's RewriteCUDAGraph on the same in-memory module,
  which prints as the corpus file (`module_is_the_corpus_file`).

cgraph's own verbs on these models (rewrite equals TVM's after file, verify, run, kernels) are
bench/bench_real_size.py's; TVM's pass in memory both ways is bench/bench_tvm_pass.py's.
Exit status 1 when a check fails.
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

from bench.corpus import build_corpus, tvm_capture  # noqa: E402

REAL = ROOT / "samples" / "real"
MODELS = sorted(p.name.split(".")[0] for p in REAL.glob("mlc_*.before.relax"))


def text_checks(name: str) -> dict:
    """TVM reads cgraph's fmt and rewrite outputs, well-formed, equal to its own readings."""
    from tvm_oracle import check_cgraph_text_of_mlc_dump

    try:
        check_cgraph_text_of_mlc_dump(REAL / f"{name}.before.relax", REAL / f"{name}.after.relax")
    except AssertionError as e:
        return {"text": str(e).splitlines()[0] if str(e) else "AssertionError"}
    return {"text": True}


def pipeline_check(name: str) -> dict:
    """cgraph's pass inside relax.build: well-formed, TVM's pass on the same module."""
    import tvm
    from tvm import relax
    from tvm.s_tir import dlight as dl
    from tvm_oracle import tvm_equal

    from cudagraph_cli.tvm import cuda_pipeline

    target = tvm.target.Target(tvm_capture.TARGET)
    recorder = tvm_capture.Capture()
    pipeline = cuda_pipeline(before_schedule=[dl.ApplyDefaultSchedule(dl.gpu.LowBatchGEMV(4))])
    with tvm.transform.PassContext(opt_level=3, config=tvm_capture.CONFIG,
                                   instruments=[recorder.instrument()]):
        relax.build(build_corpus.mlc_family(name).build(name, target), target=target,
                    relax_pipeline=pipeline)
    recorder.single(name)
    before, ours = recorder.before_modules[0], recorder.after_modules[0]
    text = (REAL / f"{name}.before.relax").read_text()
    relax.analysis.well_formed(ours)  # raises on the first violation
    with tvm.transform.PassContext(config=tvm_capture.CONFIG):
        theirs = relax.transform.RewriteCUDAGraph()(before)
    return {"pass_in_pipeline": tvm_equal(ours, theirs) is None,
            "module_is_the_corpus_file":
                text[text.index("\n", text.index("# made by:")) + 1:] == before.script() + "\n"}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--text-only", action="store_true", help="only the text check")
    args = ap.parse_args()
    failed = False
    for name in args.models.split(","):
        row: dict = {"model": name}
        checks = [("text", lambda: text_checks(name))]
        if not args.text_only:
            checks.append(("pipeline", lambda: pipeline_check(name)))
        for label, check in checks:
            start = time.perf_counter()
            row.update(check())
            row[f"{label}_s"] = round(time.perf_counter() - start, 1)
        failed |= any(v is not True for k, v in row.items() if not k.endswith("_s")
                      and k != "model")
        print(json.dumps(row), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
