"""Benchmark: start-up, what every run on a small file pays (issue 14).

`cgraph check small.relax small.relax` on a 19-line module as a fresh process, run as the
`cgraph` script pip installs runs it (the checkout's console-script entry point, read from its
pyproject.toml: `from cudagraph_cli.__main__ import main; main()`): CPU time
(user + sys of the child, from os.wait4), median of --repeat runs, beside `python -c pass`
(the interpreter's own floor) and `python -c "import click"`; then `python -X importtime` of
the same command: its imports by cumulative time, medians of --repeat runs.

Two settings, because they differ by tens of milliseconds: with bytecode caches (as an
installed wheel has them; written under a temporary PYTHONPYCACHEPREFIX by a warm-up run, so
no checkout is touched), and compiling every source (PYTHONDONTWRITEBYTECODE=1, as the
development venv of this project runs; a checkout holding __pycache__ folders is refused,
since their bytecode would be read).

The batch form: --pairs (200) pairs of copies of the small module, checked by one `cgraph
check GOT_DIR EXPECTED_DIR` process, against one process per pair (CPU summed).

    python bench/bench_startup.py [--repeat 9] [--pairs 200] [--tree DIR ...] [--write docs/BENCHMARKS.md]

--tree runs the cgraph of another checkout too (main, to compare before and after in one
run; measurements on a shared machine are only comparable within one run): the single runs
of all checkouts are interleaved, one of each in turn.

Goal (issue 14): at most 60 ms of CPU for that command.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.report import machine, write_section  # noqa: E402

SMALL = ROOT / "samples" / "tvm" / "static_input_with_symbolic_shape_before.relax"


def child_env(tree: Path, cache: str | None) -> dict:
    """The environment of a child run of `tree`'s cgraph: its bytecode cache under `cache`,
    or (None) none written, every source of the checkout compiled at each run."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("PYTHONPYCACHEPREFIX", None)
    if cache is None:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    else:
        env["PYTHONPYCACHEPREFIX"] = cache
    return env


def refuse_stale_bytecode(tree: Path) -> None:
    """The "compiling sources" runs read the bytecode of any __pycache__ folder left in the
    checkout (PYTHONDONTWRITEBYTECODE stops writing, not reading): they would measure a
    cached start."""
    stale = sorted(str(p) for p in (tree / "cudagraph_cli").rglob("__pycache__"))
    if stale:
        raise SystemExit(f"{tree} has __pycache__ folders ({stale[0]}, ...): the runs that "
                         "compile every source would read them instead; remove them first "
                         f"(find {tree / 'cudagraph_cli'} -name __pycache__ -exec rm -r {{}} +)")


def script(tree: Path) -> str:
    """What the `cgraph` script pip writes for the checkout `tree` does: import re, then call
    its console-script entry point (`[project.scripts] cgraph = "module:function"`)."""
    import tomllib

    entry = tomllib.loads((tree / "pyproject.toml").read_text())["project"]["scripts"]["cgraph"]
    module, function = entry.split(":")
    return (f"import re, sys\nfrom {module} import {function}\n"
            f"sys.argv[0] = 'cgraph'\nsys.exit({function}())")


def cpu_and_wall(cmd: list[str], env: dict, ok=(0,)) -> tuple[float, float]:
    """CPU seconds (user + sys) and wall seconds of one child process, run in the checkout
    it measures (`python -c` imports from the working directory first)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            cwd=env["PYTHONPATH"])
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) not in ok:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{proc.stderr.read().decode()}")
    return usage.ru_utime + usage.ru_stime, wall


def median_ms(cmd: list[str], env: dict, repeat: int) -> tuple[float, float]:
    return interleaved_ms([(cmd, env)], repeat)[0]


def interleaved_ms(runs: list[tuple[list[str], dict]], repeat: int) -> list[tuple[float, float]]:
    """(CPU ms, wall ms), medians of `repeat`, of each (command, environment), run in turn
    round after round: a slow spell of the shared machine falls on all of them alike."""
    for cmd, env in runs:
        cpu_and_wall(cmd, env)  # warm-up: the file cache, and the bytecode cache where kept
    times = [[] for _ in runs]
    for _ in range(repeat):
        for (cmd, env), out in zip(runs, times):
            out.append(cpu_and_wall(cmd, env))
    return [(statistics.median(c for c, _ in out) * 1000,
             statistics.median(w for _, w in out) * 1000) for out in times]


_IMPORTTIME = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")


def import_times(env: dict, command: list[str], repeat: int):
    """(top-level imports by cumulative ms, modules by self ms), medians of `repeat` runs of
    `python -X importtime`: the first say which import pulls in what, the second where the
    time is spent."""
    cumulative: dict[str, list[float]] = {}
    own: dict[str, list[float]] = {}
    top_level: set[str] = set()
    for _ in range(repeat):
        out = subprocess.run([sys.executable, "-X", "importtime", *command], env=env,
                             capture_output=True, text=True, cwd=env["PYTHONPATH"])
        rows = [(m.group(4), int(m.group(1)) / 1000, int(m.group(2)) / 1000, len(m.group(3)))
                for m in map(_IMPORTTIME.match, out.stderr.splitlines()) if m]
        top = min((depth for *_, depth in rows), default=1)
        for name, self_ms, cum_ms, depth in rows:
            own.setdefault(name, []).append(self_ms)
            if depth == top:
                top_level.add(name)
                cumulative.setdefault(name, []).append(cum_ms)
    firsts = sorted(((n, statistics.median(v)) for n, v in cumulative.items()),
                    key=lambda r: -r[1])
    selfs = sorted(((n, statistics.median(v)) for n, v in own.items()), key=lambda r: -r[1])
    return firsts, selfs


def batch_ms(tree: Path, cache: str, pairs: int, tmp: str) -> tuple[float, float] | None:
    """CPU ms of `cgraph check GOT_DIR EXPECTED_DIR` over `pairs` copies of the small module
    (median of 3), and of one process per pair (summed); None where the checkout has no
    batch form."""
    env = child_env(tree, cache)
    got, expected = Path(tmp) / "got", Path(tmp) / "expected"
    if not got.exists():
        for d in (got, expected):
            d.mkdir()
            for i in range(pairs):
                shutil.copyfile(SMALL, d / f"m{i:04d}.relax")
    code = script(tree)
    singles = 0.0
    for i in range(pairs):
        singles += cpu_and_wall([sys.executable, "-c", code, "check", str(got / f"m{i:04d}.relax"),
                                 str(expected / f"m{i:04d}.relax")], env)[0]
    help_text = subprocess.run([sys.executable, "-c", code, "check", "--help"], env=env,
                               capture_output=True, text=True, cwd=str(tree)).stdout
    if "--list" not in help_text:
        return None, singles * 1000
    batch = [cpu_and_wall([sys.executable, "-c", code, "check", str(got), str(expected)],
                          env)[0] for _ in range(3)]
    return statistics.median(batch) * 1000, singles * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--pairs", type=int, default=200)
    ap.add_argument("--tree", action="append", default=[], type=Path,
                    help="also measure the cgraph of this checkout")
    ap.add_argument("--write", metavar="FILE")
    args = ap.parse_args()
    lines = SMALL.read_text().count("\n")
    trees = [ROOT, *args.tree]
    for tree in trees:
        refuse_stale_bytecode(tree)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        floor = median_ms([sys.executable, "-c", "pass"], child_env(ROOT, tmp), args.repeat)
        click = median_ms([sys.executable, "-c", "import click"], child_env(ROOT, tmp),
                          args.repeat)
        commands = {tree: ["-c", script(tree), "check", str(SMALL), str(SMALL)]
                    for tree in trees}
        caches = {tree: str(Path(tmp) / f"pyc{i}") for i, tree in enumerate(trees)}
        # The checkouts in turn, run by run (interleaved_ms).
        all_cached = interleaved_ms([([sys.executable, *commands[t]], child_env(t, caches[t]))
                                     for t in trees], args.repeat)
        all_compiling = interleaved_ms([([sys.executable, *commands[t]], child_env(t, None))
                                        for t in trees], args.repeat)
        for tree, cached, compiling in zip(trees, all_cached, all_compiling):
            command, cache = commands[tree], caches[tree]
            imports = import_times(child_env(tree, cache), command, args.repeat)
            batch, singles = batch_ms(tree, cache, args.pairs, tmp)
            rows.append((tree, cached, compiling, imports, batch, singles))
            print(f"{tree}: {cached[0]:.0f} ms CPU with bytecode caches, {compiling[0]:.0f} ms "
                  f"compiling; {args.pairs} pairs: {singles:.0f} ms in single processes, "
                  f"{'-' if batch is None else f'{batch:.0f} ms'} in one", flush=True)
    label = {ROOT: "this checkout"}
    table = ["| cgraph | CPU, bytecode cached (ms) | wall (ms) | CPU, compiling sources (ms) "
             "| wall (ms) |", "|---|---|---|---|---|"]
    for tree, (c_cpu, c_wall), (s_cpu, s_wall), *_ in rows:
        table.append(f"| {label.get(tree, f'`{tree}`')} | {c_cpu:.0f} | {c_wall:.0f} | "
                     f"{s_cpu:.0f} | {s_wall:.0f} |")
    table.append(f"| `python -c pass` | {floor[0]:.0f} | {floor[1]:.0f} | | |")
    table.append(f"| `python -c \"import click\"` | {click[0]:.0f} | {click[1]:.0f} | | |")
    batch_table = [f"| cgraph | {args.pairs} processes, one pair each (CPU ms, summed) | one "
                   "process, `cgraph check GOT_DIR EXPECTED_DIR` (CPU ms) | per pair (ms) |",
                   "|---|---|---|---|"]
    for tree, _, _, _, batch, singles in rows:
        batch_table.append(
            f"| {label.get(tree, f'`{tree}`')} | {singles:.0f} | "
            + ("no batch form | |" if batch is None else
               f"{batch:.0f} | {batch / args.pairs:.1f} |"))
    imports = "\n".join(
        f"- {label.get(tree, f'`{tree}`')}: "
        + ", ".join(f"{name} {ms:.1f}" for name, ms in firsts[:10])
        for tree, _, _, (firsts, _), *_ in rows)
    selfs = rows[0][3][1]
    self_table = ["| module | self (ms) |", "|---|---|"] + [
        f"| {name} | {ms:.1f} |" for name, ms in selfs[:20]]
    report = (f"\n### Start-up: `cgraph check` of a {lines}-line module ({machine()})\n\n"
              f"`python bench/bench_startup.py --repeat {args.repeat} --pairs {args.pairs}"
              + "".join(f" --tree {t}" for t in args.tree) + "`: whole process, run as the "
              "installed `cgraph` script runs, "
              f"median of {args.repeat}, CPU = user + sys.\n\n" + "\n".join(table)
              + f"\n\nThe batch form, {args.pairs} pairs of copies of the module:\n\n"
              + "\n".join(batch_table)
              + "\n\nImports by cumulative time (ms, `-X importtime`, bytecode cached, "
              f"medians of {args.repeat}; the tracing itself slows each import):\n\n{imports}\n"
              f"\nThis checkout, the 20 modules that take longest to import themselves (self "
              f"time, ms, same runs):\n\n" + "\n".join(self_table) + "\n")
    print(report)
    if args.write:
        write_section(args.write, "bench_startup", report)


if __name__ == "__main__":
    main()
