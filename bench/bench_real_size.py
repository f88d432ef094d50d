"""Benchmark: every verb on the real-size corpus (issue 24), as a user runs it.

    python bench/bench_real_size.py [--models mlc_llama_1b,...] [--write FILE]

For each MLC-LLM-style model of samples/real (bench/corpus/mlc_models.py: Llama-3.2-1B,
Qwen2-0.5B, Llama-3.1-8B dimensions; the families of issue 34 beside it: Gemma-2-2B, the
tensor-parallel Llama-3.1-8B, OLMoE-1B-7B with and without thrust, Phi-2, GPT-2-medium), each
command runs as a process of its own; the table gives its exit status, wall seconds and peak
resident memory (getrusage of the child). `kernels`
needs apache-tvm (the `tvm` extra); without it that row says so.

Goals (issue 24): verify of the 8B model's public functions, 4 calls each, within 4 GiB and
120 s on the 2-core machine; the 1B model within 2 GiB and 30 s.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.report import machine, write_section  # noqa: E402

MODELS = ["mlc_llama_1b", "mlc_qwen2_0_5b", "mlc_llama_8b", "mlc_gemma2_2b", "mlc_llama_8b_tp2",
          "mlc_olmoe_1b_7b", "mlc_olmoe_1b_7b_thrust", "mlc_phi2", "mlc_gpt2_medium"]


def measure(args: list[str]) -> tuple[int, float, float]:
    """(exit status, wall seconds, peak RSS in MiB) of `cgraph ARGS`."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "cudagraph_cli", *args], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    return os.waitstatus_to_exitcode(status), time.perf_counter() - start, usage.ru_maxrss / 1024


def verbs(name: str, tmp: Path) -> list[tuple[str, list[str]]]:
    before = str(ROOT / "samples" / "real" / f"{name}.before.relax")
    after = str(ROOT / "samples" / "real" / f"{name}.after.relax")
    mine = str(tmp / f"{name}.graph.relax")
    return [
        ("fmt", ["fmt", before, "-o", str(tmp / f"{name}.fmt.relax")]),
        ("rewrite", ["rewrite", before, "-o", mine]),
        ("check (rewrite vs TVM's)", ["check", mine, after]),
        ("diff --summary", ["diff", before, mine, "--summary"]),
        ("verify (vs cgraph's rewrite)", ["verify", before, mine]),
        ("verify (vs TVM's after file)", ["verify", before, after]),
        ("run --device cpu (before)", ["run", before, "--device", "cpu"]),
        ("run --device cpu (rewritten)", ["run", mine, "--device", "cpu"]),
        ("kernels", ["kernels", before, "-o", str(tmp / f"{name}.cu")]),
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--write", metavar="FILE")
    ap.add_argument("--section", default="bench_real_size",
                    help="the marked section of FILE to replace (a run of some models only "
                         "can keep its own)")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models.split(","):
            lines = len((ROOT / "samples" / "real" / f"{name}.before.relax").read_text()
                        .splitlines())
            for verb, cmd in verbs(name, Path(tmp)):
                code, wall, peak = measure(cmd)
                rows.append(f"| {name} | {lines} | {verb} | {code} | {wall:.1f} | {peak:.0f} |")
                print(rows[-1], flush=True)
    text = "\n".join([
        "### Every verb on the real-size corpus (bench/bench_real_size.py"
        + (f" --models {args.models})" if args.models != ",".join(MODELS) else ")"),
        "",
        f"Measured {machine()}. One process a command; peak resident memory of that process.",
        "",
        "| model | lines | command | exit | wall s | peak MiB |",
        "|---|---|---|---|---|---|",
        *rows,
    ])
    if args.write:
        write_section(args.write, args.section, text)
    print(text)


if __name__ == "__main__":
    main()
