"""Benchmark: start-up, what every run on a small file pays (issue 14).

`cgraph check small.relax small.relax` on a 19-line module as a fresh process: CPU time (user +
sys of the child, from os.wait4), median of --repeat runs, beside `python -c pass` (the
interpreter's own floor); then `python -X importtime` of the same command, its top-level
imports by cumulative time.

Two settings, because they differ by tens of milliseconds: with bytecode caches (as an
installed wheel has them; written under a temporary PYTHONPYCACHEPREFIX by a warm-up run, so
no checkout is touched), and compiling every source (PYTHONDONTWRITEBYTECODE=1, as the
development venv of this project runs).

    python bench/bench_startup.py [--repeat 9] [--tree DIR ...] [--write docs/BENCHMARKS.md]

--tree runs the cgraph of another checkout too (main, to compare before and after in one
run; measurements on a shared machine are only comparable within one run).

Goal (issue 14): at most 60 ms of CPU for that command.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from report import machine, write_section  # noqa: E402

SMALL = ROOT / "samples" / "tvm" / "static_input_with_symbolic_shape_before.relax"


def child_env(tree: Path, cache: str | None) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("PYTHONPYCACHEPREFIX", None)
    if cache is None:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    else:
        env["PYTHONPYCACHEPREFIX"] = cache
    return env


def cpu_and_wall(cmd: list[str], env: dict) -> tuple[float, float]:
    """CPU seconds (user + sys) and wall seconds of one child process, run in the checkout
    it measures (`python -m` imports from the working directory first)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            cwd=env["PYTHONPATH"])
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{proc.stderr.read().decode()}")
    return usage.ru_utime + usage.ru_stime, wall


def median_ms(cmd: list[str], env: dict, repeat: int) -> tuple[float, float]:
    cpu_and_wall(cmd, env)  # warm-up: the file cache, and the bytecode cache where one is kept
    runs = [cpu_and_wall(cmd, env) for _ in range(repeat)]
    return (statistics.median(c for c, _ in runs) * 1000,
            statistics.median(w for _, w in runs) * 1000)


_IMPORTTIME = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")


def top_imports(env: dict, command: list[str], count: int = 8) -> list[tuple[str, float]]:
    """The command's top-level imports (those it makes itself, with what they import) by
    cumulative milliseconds."""
    out = subprocess.run([sys.executable, "-X", "importtime", *command], env=env,
                         capture_output=True, text=True, cwd=env["PYTHONPATH"])
    rows = [(m.group(4), int(m.group(2)) / 1000, len(m.group(3)))
            for m in map(_IMPORTTIME.match, out.stderr.splitlines()) if m]
    top = min((depth for _, _, depth in rows), default=1)
    firsts = [(name, ms) for name, ms, depth in rows if depth == top]
    return sorted(firsts, key=lambda r: -r[1])[:count]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--tree", action="append", default=[], type=Path,
                    help="also measure the cgraph of this checkout")
    ap.add_argument("--write", metavar="FILE")
    args = ap.parse_args()
    lines = SMALL.read_text().count("\n")
    command = ["-m", "cudagraph_cli", "check", str(SMALL), str(SMALL)]
    trees = [ROOT, *args.tree]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        floor = median_ms([sys.executable, "-c", "pass"], child_env(ROOT, tmp), args.repeat)
        for tree in trees:
            cache = str(Path(tmp) / f"pyc{len(rows)}")
            cached = median_ms([sys.executable, *command], child_env(tree, cache), args.repeat)
            compiling = median_ms([sys.executable, *command], child_env(tree, None), args.repeat)
            imports = top_imports(child_env(tree, cache), command)
            rows.append((tree, cached, compiling, imports))
            print(f"{tree}: {cached[0]:.0f} ms CPU with bytecode caches, {compiling[0]:.0f} ms "
                  "compiling", flush=True)
    label = {ROOT: "this checkout"}
    table = ["| cgraph | CPU, bytecode cached (ms) | wall (ms) | CPU, compiling sources (ms) "
             "| wall (ms) |", "|---|---|---|---|---|"]
    for tree, (c_cpu, c_wall), (s_cpu, s_wall), _ in rows:
        table.append(f"| {label.get(tree, f'`{tree}`')} | {c_cpu:.0f} | {c_wall:.0f} | "
                     f"{s_cpu:.0f} | {s_wall:.0f} |")
    table.append(f"| `python -c pass` | {floor[0]:.0f} | {floor[1]:.0f} | | |")
    imports = "\n".join(
        f"- {label.get(tree, f'`{tree}`')}: "
        + ", ".join(f"{name} {ms:.1f}" for name, ms in found)
        for tree, _, _, found in rows)
    report = (f"\n### Start-up: `cgraph check` of a {lines}-line module ({machine()})\n\n"
              f"`python bench/bench_startup.py --repeat {args.repeat}"
              + "".join(f" --tree {t}" for t in args.tree) + "`: whole process, "
              f"median of {args.repeat}, CPU = user + sys.\n\n" + "\n".join(table)
              + "\n\nTop-level imports by cumulative time (ms, `-X importtime`, bytecode "
              f"cached, one run):\n\n{imports}\n")
    print(report)
    if args.write:
        write_section(args.write, "bench_startup", report)


if __name__ == "__main__":
    main()
