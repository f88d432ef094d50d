"""Benchmark: `cgraph fmt` as a whole process on LLM-decode-style modules.

Generates modules of 8, 32, 128 and 512 layers of 12 kernels (cudagraph_cli.gen, the text as
TVM 0.27's printer writes it), runs `cgraph fmt IN -o OUT` as a fresh process several times
each, and reports the median wall time, lines/s and peak memory. With --tvm it also times
TVM's reader (`tvm.script.from_source`) on the same text, in a fresh process too.

    python bench/bench_fmt.py [--repeat 5] [--tvm] [--write docs/BENCHMARKS.md]

Goal (issue 2): the 512-layer module (about 12,800 lines) in under 2.5 s on the 2-core dev
machine.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import subprocess
import sys
import tempfile
import time
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cudagraph_cli.gen import decode_module  # noqa: E402
from bench.report import machine, write_section  # noqa: E402


def run(cmd: list[str]) -> tuple[float, int]:
    """Wall seconds and peak RSS (KiB) of one child process."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{proc.stderr.read().decode()}")
    return wall, usage.ru_maxrss


def python_tokens(text: str) -> int:
    """Tokens as Python's tokenizer counts them (a stock lexer's view: R . memory . ...)."""
    skip = {tokenize.NL, tokenize.COMMENT, tokenize.ENCODING}
    return sum(1 for t in tokenize.generate_tokens(io.StringIO(text).readline)
               if t.type not in skip)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--layers", default="8,32,128,512")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--tvm", action="store_true", help="also time apache-tvm's reader")
    ap.add_argument("--write", metavar="FILE", help="write the table into this Markdown file (its own section)")
    args = ap.parse_args()

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for layers in (int(x) for x in args.layers.split(",")):
            src = Path(tmp) / f"decode{layers}.relax"
            text = decode_module(layers)
            src.write_text(text)
            out = Path(tmp) / f"decode{layers}.out.relax"
            runs = [run([sys.executable, "-m", "cudagraph_cli", "fmt", str(src), "-o", str(out)])
                    for _ in range(args.repeat)]
            wall = statistics.median(w for w, _ in runs)
            rss = max(m for _, m in runs)
            tvm_wall = None
            if args.tvm:
                code = ("import sys; from tvm.script import from_source; "
                        "from_source(open(sys.argv[1]).read())")
                tvm_wall, _ = run([sys.executable, "-c", code, str(src)])
            lines = text.count("\n")
            rows.append((layers, lines, len(text), python_tokens(text), wall, lines / wall,
                         rss / 1024, tvm_wall))
            print(f"{layers:4d} layers: {lines:6d} lines, {wall:.2f} s, {rss / 1024:.0f} MiB"
                  + (f", TVM reader {tvm_wall:.1f} s" if tvm_wall else ""), flush=True)

    head = ("| layers | lines | bytes | Python tokens | cgraph fmt (s, median) | lines/s | "
            "peak RSS (MiB) | TVM 0.27 from_source (s) |\n|---|---|---|---|---|---|---|---|")
    body = "\n".join(
        f"| {l} | {n} | {b} | {t} | {w:.2f} | {r:,.0f} | {m:.0f} | "
        f"{'%.1f' % tw if tw else 'not run'} |" for l, n, b, t, w, r, m, tw in rows)
    ratio = ""
    if len(rows) >= 2 and rows[-1][0] == 4 * rows[-2][0]:
        ratio = f"\ntime({rows[-1][0]}) / time({rows[-2][0]}) = {rows[-1][4] / rows[-2][4]:.2f}\n"
    report = (f"\n### cgraph fmt, whole process ({machine()})\n\n"
              f"`python bench/bench_fmt.py --repeat {args.repeat}{' --tvm' if args.tvm else ''}`"
              f"\n\n{head}\n{body}\n{ratio}")
    print(report)
    if args.write:
        write_section(args.write, "bench_fmt", report)


if __name__ == "__main__":
    main()
