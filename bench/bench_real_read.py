"""Benchmark: reading and rewriting the largest real dump, this checkout against another tree,
interleaved.

    python bench/bench_real_read.py [--tree DIR] [--repeat 9] [--model mlc_llama_8b]
                                    [--write docs/BENCHMARKS.md]

Two figures for samples/real/MODEL.before.relax (Llama-3.1-8B dimensions by default, 7.2k
lines), for this checkout and, with --tree DIR, for another source tree too (`git archive
COMMIT | tar -x -C DIR`), one run of each alternately, so that a shared machine's load falls on
both alike:

* `cgraph rewrite IN -o OUT`, a whole process: wall and CPU seconds (user + sys of the child);
* building the module (`cudagraph_cli.loads`: reading to syntax and building the IR), in a
  child process of its own after one warm-up read: CPU seconds (time.process_time).

Medians of --repeat runs, and (with --tree) each median's ratio to the other tree's. Bytecode caches are kept
under a temporary PYTHONPYCACHEPREFIX (as an installed wheel has them), so no tree is touched.
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

from bench.report import machine, write_section  # noqa: E402

BUILD = """
import json, sys, time
import cudagraph_cli
text = open(sys.argv[1]).read()
cudagraph_cli.loads(text)
t = time.process_time()
cudagraph_cli.loads(text)
print(json.dumps({"build": time.process_time() - t}))
"""


def child_env(tree: Path, cache: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree), PYTHONPYCACHEPREFIX=cache)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def rewrite_once(tree: Path, env: dict, src: Path, out: Path) -> tuple[float, float]:
    """Wall and CPU seconds of one `cgraph rewrite` process."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "cudagraph_cli", "rewrite", str(src), "-o",
                             str(out)], env=env, cwd=tree, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"rewrite failed in {tree}:\n{proc.stderr.read().decode()}")
    return wall, usage.ru_utime + usage.ru_stime


def build_once(tree: Path, env: dict, src: Path) -> float:
    out = subprocess.run([sys.executable, "-c", BUILD, str(src)], env=env, cwd=tree,
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"build failed in {tree}:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])["build"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", type=Path, default=None)
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--model", default="mlc_llama_8b")
    ap.add_argument("--write", metavar="FILE")
    args = ap.parse_args()
    src = ROOT / "samples" / "real" / f"{args.model}.before.relax"
    trees = {"this checkout": ROOT}
    if args.tree is not None:
        trees[f"`{args.tree}`"] = args.tree.resolve()
    load_before = os.getloadavg()[0]
    runs: dict = {name: {"wall": [], "cpu": [], "build": []} for name in trees}
    with tempfile.TemporaryDirectory() as tmp:
        envs = {name: child_env(tree, str(Path(tmp) / f"pyc{i}"))
                for i, (name, tree) in enumerate(trees.items())}
        out = Path(tmp) / "out.relax"
        for name, tree in trees.items():  # warm-up: bytecode and file caches
            rewrite_once(tree, envs[name], src, out)
        for i in range(args.repeat):
            order = list(trees.items()) if i % 2 == 0 else list(trees.items())[::-1]
            for name, tree in order:
                wall, cpu = rewrite_once(tree, envs[name], src, out)
                runs[name]["wall"].append(wall)
                runs[name]["cpu"].append(cpu)
                runs[name]["build"].append(build_once(tree, envs[name], src))
            print(f"run {i + 1}: " + "; ".join(
                f"{n} rewrite {r['wall'][-1]:.2f} s wall {r['cpu'][-1]:.2f} s CPU, build "
                f"{r['build'][-1]:.3f} s" for n, r in runs.items()), flush=True)
    med = {n: {k: statistics.median(v) for k, v in r.items()} for n, r in runs.items()}
    rows = ["| cgraph | `rewrite`, wall (s) | `rewrite`, CPU (s) | building the module, CPU (s) |",
            "|---|---|---|---|"]
    rows += [f"| {n} | {m['wall']:.2f} | {m['cpu']:.2f} | {m['build']:.3f} |"
             for n, m in med.items()]
    if args.tree is not None:
        mine, other = med["this checkout"], med[f"`{args.tree}`"]
        rows.append(f"| ratio | {mine['wall'] / other['wall']:.3f} | "
                    f"{mine['cpu'] / other['cpu']:.3f} | {mine['build'] / other['build']:.3f} |")
    tree_arg = f" --tree {args.tree}" if args.tree is not None else ""
    alternately = ", the two trees run alternately" if args.tree is not None else ""
    load = f"load average {load_before:.1f} at the start, {os.getloadavg()[0]:.1f} at the end"
    report = (f"\n### The largest real dump: `cgraph rewrite` and reading ({machine()})\n\n"
              f"`python bench/bench_real_read.py{tree_arg} --repeat {args.repeat} "
              f"--model {args.model}`: samples/real/{args.model}.before.relax "
              f"({src.read_text().count(chr(10))} lines){alternately}, "
              f"medians of {args.repeat} ({load}; {os.cpu_count()} cores).\n\n"
              + "\n".join(rows) + "\n")
    print(report)
    if args.write:
        write_section(args.write, "bench_real_read", report)


if __name__ == "__main__":
    main()
