"""Benchmark: host launches per call on the real-size corpus, before and after each rewrite
(issue 25: prefill captured over symbolic shapes, bounded).

    python bench/bench_symbolic.py [--models mlc_llama_1b,...] [--bound 256] [--write FILE]

For each MLC-LLM-style model of samples/real and each of its functions, the host launches per
call (kernel launches plus graph launches, the attention builtins aside) and the host work per
call (those plus the builtin calls that launch device work: docs/DIFF.md) of

- the model as TVM dumps it before RewriteCUDAGraph (`before`),
- TVM's own pass inside relax.build (the committed `.after.relax` dump),
- `cgraph rewrite` with its defaults (TVM's planning and cgraph's corrections),
- `cgraph rewrite --capture-symbolic seq_len:BOUND` on its graph path (seq_len <= BOUND;
  above it, the guarded regions run their launches eagerly: the `before` figure),

with the most graphs the function can make, and the shared allocation's bytes. Every figure is
read from `cgraph diff --format json` of the pair; no GPU is needed. Goal (issue 25): on the 1B
model, prefill at most 25 kernel and graph launches per call on the graph path, decode
unchanged.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.report import machine, write_section  # noqa: E402

MODELS = ["mlc_llama_1b", "mlc_qwen2_0_5b", "mlc_llama_8b"]


def cgraph(*args: str) -> str:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-m", "cudagraph_cli", *args], env=env,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"cgraph {' '.join(args)}: exit {proc.returncode}\n{proc.stderr}")
    return proc.stdout


def facts(before: str, after: str) -> dict:
    """diff's JSON facts, by function name."""
    data = json.loads(cgraph("diff", before, after, "--format", "json"))
    return {f["name"]: f for f in data["functions"]} | {"": data}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--bound", type=int, default=256)
    ap.add_argument("--write", metavar="FILE")
    args = ap.parse_args()
    option = f"seq_len:{args.bound}"
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models.split(","):
            before = str(ROOT / "samples" / "real" / f"{name}.before.relax")
            tvm_after = str(ROOT / "samples" / "real" / f"{name}.after.relax")
            default = str(Path(tmp) / f"{name}.graph.relax")
            bounded = str(Path(tmp) / f"{name}.{args.bound}.relax")
            cgraph("rewrite", before, "-o", default)
            cgraph("rewrite", before, "--capture-symbolic", option, "-o", bounded)
            runs = {"tvm": facts(before, tvm_after), "default": facts(before, default),
                    "bounded": facts(before, bounded)}
            for fn in sorted(k for k in runs["tvm"] if k):
                t, d, b = runs["tvm"][fn], runs["default"][fn], runs["bounded"][fn]
                if t["host_work_before"] == 0:
                    continue
                rows.append(
                    f"| {name} | {fn} | {t['host_launches_before']} ({t['host_work_before']}) "
                    f"| {t['host_launches_after']} ({t['host_work_after']}) "
                    f"| {d['host_launches_after']} ({d['host_work_after']}) "
                    f"| {b['host_launches_after']} ({b['host_work_after']}) "
                    f"| {b.get('graphs_at_most', '-')} |")
                print(rows[-1], flush=True)
            memory = [runs[k][""]["memory"] for k in ("tvm", "default", "bounded")]
            rows_memory = ", ".join(
                f"{label} {sum(m['static_bytes'] for m in mem.values()):,}"
                for label, mem in zip(("TVM", "cgraph", f"--capture-symbolic {option}"), memory))
            rows.append(f"| {name} | shared allocation, bytes | {rows_memory} | | | | |")
    text = "\n".join([
        "### Host launches per call: before, TVM's pass, cgraph, cgraph --capture-symbolic "
        "(bench/bench_symbolic.py)",
        "",
        f"Measured {machine()}, from `cgraph diff --format json` of each pair (no GPU). Each "
        "cell: kernel and graph launches per call, and in brackets the host work per call "
        "(those plus the builtin calls that launch device work, such as the 16 attention calls "
        "of the paged KV cache; docs/DIFF.md). The last column: the most graphs the function "
        f"can make with `--capture-symbolic {option}` (one per graph launch and distinct value "
        "of its key: batch_decode's up to `tir_var_upper_bound` batch_size 32, prefill's up to "
        f"the bound {args.bound}). Above the bound, prefill's guarded regions run their "
        "launches eagerly: the `before` figure.",
        "",
        f"| model | function | before | TVM's pass | cgraph | cgraph `--capture-symbolic "
        f"{option}` (graph path) | graphs at most |",
        "|---|---|---|---|---|---|---|",
        *rows,
    ])
    if args.write:
        write_section(args.write, "bench_symbolic", text)
    print(text)


if __name__ == "__main__":
    main()
