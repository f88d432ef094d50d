"""Stress test: `cgraph rewrite` of generated modules of 512, 1024 and 2048 decode layers.

* whole process: `cgraph rewrite IN -o OUT` in a fresh process, --repeat runs: median wall
  time, median CPU time (user + sys) and median peak RSS (ru_maxrss of the child, from
  os.wait4: the same figure as resource.getrusage(RUSAGE_CHILDREN), but per child); and
  time(largest) / time(smallest), which is 4 for linear growth from 512 to 2048.
* stage split, on the largest module, in one child process with the GC paused as the
  reader pauses it: reading the text to syntax (lexing and parsing), building the IR from it; then the well-formedness check, the pipeline and printing. CPU
  seconds (time.process_time), which the load of a shared machine disturbs less than wall
  time.
* against TVM on the smallest module (bench/pass_alone.py, one process): TVM's
  tvm.script.from_source and its C++ RewriteCUDAGraph pass each timed alone, beside cgraph's
  parse_module and its pipeline (planner, merger, rewriter, well-formedness check; median of
  9 interleaved with TVM's pass).

    python bench/bench_big.py [--repeat 5] [--layers 512,1024,2048] [--tree DIR ...]
                              [--no-tvm] [--write docs/BENCHMARKS.md]

--tree measures the cgraph of another checkout too (main, for before and after in one run;
on a shared machine only figures from one run compare). Bytecode caches are kept under a
temporary PYTHONPYCACHEPREFIX, as an installed wheel has them, so no checkout is touched.

What it watches: that time grows linearly with the module (time(2048) / time(512) about 4)
and that the pipeline stays no slower than TVM's pass at 512 layers. Issue 14's goal of 2048
layers in 2.5 s is retired (issue 33): no user has such a module, and the speed machinery it
needed went; the figures that count are the real dumps' (bench/bench_real_read.py,
bench/bench_real_size.py; docs/BENCHMARKS.md).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cudagraph_cli.gen import decode_module  # noqa: E402
from bench.report import machine, write_section  # noqa: E402

# Run in the measured checkout: the syntax as reader.py reads it there (lazily in a checkout
# from before issue 33, which had line templates).
READING_SPLIT = """
import gc, inspect, json, sys, time
from cudagraph_cli.text import parser
try:
    from cudagraph_cli.text.builder import ModuleBuilder
except ImportError:  # a checkout before the builder was split
    from cudagraph_cli.text.ir_builder import ModuleBuilder
text = open(sys.argv[1]).read()
parser.parse_syntax("x = 1\\n")
lazy = {"lazy": True} if "lazy" in inspect.signature(parser.parse_syntax).parameters else {}
gc.disable()
t1 = time.process_time()
stmts = parser.parse_syntax(text, **lazy)
t2 = time.process_time()
module = ModuleBuilder().build(stmts, [])
t3 = time.process_time()
del stmts
from cudagraph_cli.ir.wellformed import check_module
from cudagraph_cli.passes.pipeline import rewrite
from cudagraph_cli.text.printer import print_module
check_module(module)
t4 = time.process_time()
out, _ = rewrite(module)
t5 = time.process_time()
print_module(out)
t6 = time.process_time()
print(json.dumps({"read": t2 - t1, "build": t3 - t2, "check": t4 - t3,
                  "pipeline": t5 - t4, "print": t6 - t5}))
"""


def child_env(tree: Path, cache: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree), PYTHONPYCACHEPREFIX=cache)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def measure(cmd: list[str], env: dict) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds and peak RSS (MiB) of one child process."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, cwd=env["PYTHONPATH"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{proc.stderr.read().decode()}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def commit_of(tree: Path) -> str:
    out = subprocess.run(["git", "-C", str(tree), "rev-parse", "--short", "HEAD"],
                         capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", str(tree), "status", "--porcelain",
                            "--untracked-files=no"], capture_output=True, text=True).stdout.strip()
    return (out.stdout.strip() or "unknown commit") + (", modified" if dirty else "")


def json_child(cmd: list[str], env: dict) -> dict:
    out = subprocess.run(cmd, env=env, cwd=env["PYTHONPATH"], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--layers", default="512,1024,2048")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--tree", action="append", default=[], type=Path)
    ap.add_argument("--no-tvm", action="store_true")
    ap.add_argument("--write", metavar="FILE")
    args = ap.parse_args()
    layers = [int(x) for x in args.layers.split(",")]
    trees = [ROOT, *args.tree]
    # Each checkout is named by its commit, so that the section says what before and after were.
    label = lambda t: (("this checkout" if t == ROOT else f"`{t}`")  # noqa: E731
                       + f" ({commit_of(t)})")
    load_before = os.getloadavg()[0]
    rewrite_rows, split_rows, growth = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        files = {}
        for n in layers:
            files[n] = Path(tmp) / f"decode{n}.relax"
            files[n].write_text(decode_module(n))
        out = Path(tmp) / "out.relax"
        for k, tree in enumerate(trees):
            env = child_env(tree, str(Path(tmp) / f"pyc{k}"))
            medians = {}
            for n in layers:
                cmd = [sys.executable, "-m", "cudagraph_cli", "rewrite", str(files[n]),
                       "-o", str(out)]
                measure(cmd, env)  # warm-up: bytecode and file caches
                runs = [measure(cmd, env) for _ in range(args.repeat)]
                wall, cpu, rss = (statistics.median(r[i] for r in runs) for i in range(3))
                medians[n] = (wall, cpu)
                lines = files[n].read_text().count("\n")
                rewrite_rows.append((label(tree), n, lines, wall, cpu, rss))
                print(f"{tree}: {n} layers: {wall:.2f} s wall, {cpu:.2f} s CPU, {rss:.0f} MiB",
                      flush=True)
            growth.append((label(tree), medians[layers[-1]][0] / medians[layers[0]][0],
                           medians[layers[-1]][1] / medians[layers[0]][1]))
            split = json_child([sys.executable, "-c", READING_SPLIT, str(files[layers[-1]])],
                               env)
            split_rows.append((label(tree), split))
            print(f"{tree}: reading {split}", flush=True)
        env = child_env(ROOT, str(Path(tmp) / "pyc0"))
        if args.no_tvm:
            env["CGRAPH_BENCH_NO_TVM"] = "1"
        alone = json_child([sys.executable, str(ROOT / "bench" / "pass_alone.py"),
                            str(files[layers[0]])], env)
        print(f"pass alone: {alone}", flush=True)

    table = ["| cgraph | layers | lines | wall (s) | CPU (s) | peak RSS (MiB) |",
             "|---|---|---|---|---|---|"]
    table += [f"| {who} | {n} | {lines} | {wall:.2f} | {cpu:.2f} | {rss:.0f} |"
              for who, n, lines, wall, cpu, rss in rewrite_rows]
    ratios = "; ".join(f"{who} {wall:.2f} wall, {cpu:.2f} CPU" for who, wall, cpu in growth)
    split = ["| cgraph | reading to syntax | building the IR | well-formedness | pipeline | "
             "printing |", "|---|---|---|---|---|---|"]
    split += [f"| {who} | {s['read']:.2f} | {s['build']:.2f} | "
              f"{s['check']:.2f} | {s['pipeline']:.2f} | {s['print']:.2f} |"
              for who, s in split_rows]
    load = f"load average {load_before:.1f} at the start, {os.getloadavg()[0]:.1f} at the end"
    fmt = lambda v: f"{v:.3f}" if v is not None else "not run"  # noqa: E731
    versus = ("| at " + str(layers[0]) + " layers | cgraph (s) | TVM 0.27 (s) |\n|---|---|---|\n"
              f"| reading the text (parse_module / from_source, once) | "
              f"{fmt(alone['cgraph_parse'])} | {fmt(alone['tvm_parse'])} |\n"
              f"| the pass alone (pipeline / RewriteCUDAGraph, median of 9) | "
              f"{fmt(alone['cgraph_median'])} | {fmt(alone['tvm_median'])} |")
    trees_arg = "".join(f" --tree {t}" for t in args.tree)
    report = (f"\n### Big modules: `cgraph rewrite` ({machine()})\n\n"
              f"`python bench/bench_big.py --repeat {args.repeat} --layers {args.layers}"
              f"{trees_arg}`: whole process, medians of {args.repeat} ({load}; "
              f"{os.cpu_count()} cores).\n\n"
              + "\n".join(table)
              + f"\n\ntime({layers[-1]}) / time({layers[0]}): {ratios}\n\n"
              f"The {layers[-1]}-layer module, stage by stage (CPU seconds, one run, GC paused "
              "while reading):\n\n"
              + "\n".join(split) + "\n\nAgainst TVM, in one process (bench/pass_alone.py):\n\n"
              + versus + "\n")
    print(report)
    if args.write:
        write_section(args.write, "bench_big", report)


if __name__ == "__main__":
    main()
