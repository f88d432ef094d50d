"""Dump a model at the wrong stages: the inputs of cgraph's stage warning (samples/stages/).

cgraph reads the module TVM's RewriteCUDAGraph is given, after StaticPlanBlockMemory. Users
dump it elsewhere by mistake; these files are such mistakes, made by TVM itself: the nn_mlp
model of build_corpus.py (relax.frontend.nn, two Linear layers and a ReLU), built by
`relax.build(mod, target="cuda")` under `relax.backend.use_cuda_graph`, with a pass instrument
that prints the module right before LegalizeOps and right before StaticPlanBlockMemory.

    python bench/corpus/build_stages.py [--out samples/stages]

Writes OUT/nn_mlp.before_legalize.relax and OUT/nn_mlp.before_static_plan.relax: a header
saying where the file came from, then TVM's text, except that `ty_args=...` is removed from
`R.builtin.alloc_tensor` calls (TVM 0.27 prints it there but cannot read it back; the call's
struct info is the binding's annotation anyway), so that TVM can read the file in the tests.
Running it twice gives identical files.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT))  # the bench package, run as a script

from bench.corpus import build_corpus  # noqa: E402
from bench.corpus.tvm_capture import CONFIG, TARGET  # noqa: E402

STAGES = {"LegalizeOps": "before_legalize", "StaticPlanBlockMemory": "before_static_plan"}
COMMAND = "python bench/corpus/build_stages.py"


def drop_alloc_ty_args(text: str) -> str:
    """`text` without the `, ty_args=(...)` of each R.builtin.alloc_tensor call."""
    out = []
    for line in text.split("\n"):
        at = line.find(", ty_args=(", line.find("R.builtin.alloc_tensor("))
        if "R.builtin.alloc_tensor(" in line and at >= 0:
            depth, end = 0, at + len(", ty_args=")
            for end in range(end, len(line)):
                depth += {"(": 1, ")": -1}.get(line[end], 0)
                if depth == 0:
                    break
            line = line[:at] + line[end + 1:]
        out.append(line)
    return "\n".join(out)


def dump_before(mod, passes) -> dict[str, str]:
    """The text of `mod` right before each pass named in `passes`, inside relax.build."""
    import tvm
    from tvm import relax

    dumps: dict[str, str] = {}

    @tvm.ir.instrument.pass_instrument
    class DumpBefore:
        def run_before_pass(self, module, info):
            if info.name in passes and info.name not in dumps:
                dumps[info.name] = module.script()

    with tvm.transform.PassContext(opt_level=3, config=CONFIG,
                                   instruments=[DumpBefore()]):
        relax.build(mod, target=tvm.target.Target(TARGET))
    missing = set(passes) - set(dumps)
    if missing:
        # relax.build's pipeline changed under us: better no file than a wrong one
        raise RuntimeError(f"relax.build ran no {', '.join(sorted(missing))}")
    return dumps


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "samples" / "stages")
    args = parser.parse_args(argv)
    try:
        import tvm
    except ImportError:
        print("apache-tvm is required: pip install -e '.[corpus]'", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    dumps = dump_before(build_corpus.nn_mlp(), tuple(STAGES))
    for pass_name, suffix in STAGES.items():
        text = drop_alloc_ty_args(dumps[pass_name])
        if not text.endswith("\n"):
            text += "\n"
        head = [
            f"cgraph stage sample: nn_mlp.{suffix}.relax, the module right before TVM's "
            f"{pass_name},",
            "NOT what cgraph reads (that is the module after StaticPlanBlockMemory, right before",
            "RewriteCUDAGraph): the input of cgraph's wrong-stage warning",
            "model: an MLP (Linear 16->32, ReLU, Linear 32->8), relax.frontend.nn",
            "(bench/corpus/build_corpus.py nn_mlp); dumped inside relax.build(mod, "
            "target=\"cuda\")",
            "under PassContext(config={\"relax.backend.use_cuda_graph\": True}) by a pass "
            "instrument's",
            f"run_before_pass; target {TARGET}",
            f"TVM: apache-tvm {tvm.__version__}, printed by mod.script(); below this header the "
            "text is",
            "TVM's, but for `ty_args=` removed from R.builtin.alloc_tensor (TVM cannot read it "
            "back)",
            f"made by: {COMMAND}",
        ]
        path = args.out / f"nn_mlp.{suffix}.relax"
        path.write_text("".join(f"# {line}\n" for line in head) + text)
        print(f"wrote {path} ({len(text.splitlines())} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
