"""Benchmark: `cgraph verify` at MLC-LLM's largest shapes, on every MLC-LLM model of the corpus
(issue 34, deliverable 3).

    python bench/bench_verify_bounds.py [--models mlc_llama_1b,...] [--dir samples/real]
                                        [--write docs/BENCHMARKS.md]

For each samples/real/mlc_*.before.relax (or --models), runs as a process of its own

    cgraph verify NAME.before.relax NAME.after.relax --shape seq_len=2048,1,2048
                  --shape batch_size=32,1,32 --calls 3

(MLC-LLM's prefill_chunk_size 2048 and max_batch_size 32, its bounds on those variables; each
variable at the module's own tir_var_upper_bound: GPT-2-medium's seq_len is 1024) and
gives its exit status, verdict (the first line verify prints), wall seconds and peak resident
memory (getrusage of the child; a run past --stop-above-gib, 6.5 by default, is stopped
there: the machine is shared). A model whose functions lack one of the variables gets only
the other's --shape. One model at a time: the runs are big.

With --default-against DIR, instead: default `cgraph verify NAME.before.relax NAME.after.relax`
(no --shape, all functions: since issue 39 a second run at the variables' upper bounds, in
terms alone where the host reads no computed bytes) of this checkout against the checkout DIR
(today's main, run by --base-python from DIR's directory, so that `python -m` finds DIR's
cudagraph_cli), interleaved model by model, --repeat times each. Goal (issue 39): at most 2x
DIR's time and at most 3 GiB.

Goal (issue 34): every family within 6 GiB and 180 s on the 2-core machine. Gemma-2-2B's
batch_verify returns logits of [1, 2048, 256000] float32, 2 GiB a call: verify keeps outputs
as watched byte ranges (exec/verify.py, Kept), so memory grows with what is alive, not with
every call's outputs.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.report import machine, write_section  # noqa: E402

# MLC-LLM's largest shapes: each variable at its bound (the module's tir_var_upper_bound, as
# MLC-LLM derives it from the model's config: a prefill chunk of 2048 tokens, 1024 for GPT-2's
# context; a batch of 32 sequences), then 1, then the bound again (a graph captured at one
# value replays after another).
VARIABLES = ("seq_len", "batch_size")
CALLS = 3


def models(directory: Path) -> list[str]:
    return sorted(p.name[:-len(".before.relax")] for p in directory.glob("mlc_*.before.relax")
                  if (directory / p.name.replace(".before.", ".after.")).exists())


def shape_args(before: Path) -> list[str]:
    """--shape for each of VARIABLES the module's functions have (verify refuses a name no
    function has), at the least bound its functions' tir_var_upper_bound give it."""
    text = before.read_text()
    out = []
    for name in VARIABLES:
        bounds = [int(b) for b in re.findall(
            rf'"tir_var_upper_bound": {{[^}}]*"{name}": (\d+)', text)]
        if bounds:
            top = min(bounds)
            out += ["--shape", f"{name}={top},1,{top}"]
    return out


def resident_mib(pid: int) -> float:
    """The resident memory of process `pid` now (VmRSS), 0 once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def measure(args: list[str], stop_mib: float | None, root: Path = ROOT,
            python: str = sys.executable) -> tuple[int, str, float, float, float]:
    """(exit status, first line of output, wall seconds, CPU seconds, peak RSS in MiB) of
    `cgraph ARGS`. CPU seconds (user + system) say what the run costs on a shared machine,
    where the wall clock also counts the others' work. With `stop_mib`, a run whose resident
    memory passes it is stopped (exit status None; first line says so): on a shared machine
    a run far over the goal must not take the others' memory. `root`: the checkout whose
    cudagraph_cli runs (the working directory and PYTHONPATH), by `python`."""
    env = dict(os.environ, PYTHONPATH=str(root))
    with tempfile.TemporaryFile("w+") as out:
        start = time.perf_counter()
        proc = subprocess.Popen([python, "-m", "cudagraph_cli", *args], env=env, cwd=root,
                                stdout=out, stderr=subprocess.STDOUT)
        stopped = False
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG if stop_mib else 0)
            if pid:
                break
            if not stopped and resident_mib(proc.pid) > stop_mib:
                proc.kill()
                stopped = True
            time.sleep(0.2)
        wall = time.perf_counter() - start
        out.seek(0)
        first = next((line.strip() for line in out if line.strip()), "")
    if stopped:
        return (None, f"stopped: over {stop_mib / 1024:.1f} GiB resident", wall,
                usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)
    return (os.waitstatus_to_exitcode(status), first, wall, usage.ru_utime + usage.ru_stime,
            usage.ru_maxrss / 1024)


def verdict(code: int | None, first: str) -> str:
    """The verdict in a few words: `equal`, or what verify said."""
    if code == 0 and first.startswith("equal"):
        return "equal"
    if code is None:
        return first
    return f"exit {code}: {first[:120]}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dir", default=str(ROOT / "samples" / "real"))
    ap.add_argument("--models", help="comma-separated names (default: every mlc_* pair)")
    ap.add_argument("--write", metavar="FILE")
    ap.add_argument("--stop-above-gib", type=float, default=6.5,
                    help="stop a run whose resident memory passes this (default 6.5; 0: never)")
    ap.add_argument("--default-against", metavar="DIR",
                    help="default verify here vs in the checkout DIR, interleaved")
    ap.add_argument("--base-python", default=sys.executable,
                    help="the Python that runs DIR's cgraph (default: this one)")
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    stop_mib = args.stop_above_gib * 1024 if args.stop_above_gib else None
    directory = Path(args.dir).resolve()
    names = args.models.split(",") if args.models else models(directory)
    if args.default_against:
        default_against(args, Path(args.default_against).resolve(), directory, names,
                        stop_mib)
        return
    rows = []
    for name in names:
        before, after = directory / f"{name}.before.relax", directory / f"{name}.after.relax"
        cmd = ["verify", str(before), str(after), *shape_args(before), "--calls", str(CALLS)]
        code, first, wall, cpu, peak = measure(cmd, stop_mib)
        within = "yes" if code == 0 and wall <= 180 and peak <= 6 * 1024 else "no"
        rows.append(f"| {name} | {verdict(code, first)} | {wall:.0f} | {cpu:.0f} | "
                    f"{peak / 1024:.2f} | {within} |")
        print(rows[-1], flush=True)
    text = "\n".join([
        "### verify at MLC-LLM's largest shapes (bench/bench_verify_bounds.py)",
        "",
        f"Measured {machine()}. `cgraph verify NAME.before.relax NAME.after.relax --shape "
        f"seq_len=B,1,B --shape batch_size=B,1,B --calls {CALLS}`, B each variable's "
        "tir_var_upper_bound in the model (seq_len 2048, GPT-2-medium's 1024; batch_size 32), "
        "one process a model, one model at a time; peak resident memory of that "
        f"process (a run past {args.stop_above_gib:g} GiB is stopped there; CPU s: user + system, what the run costs where the machine is shared). "
        "Goal (issue 34): within 6 GiB and 180 s on the 2-core machine.",
        "",
        "| model | verdict | wall s | CPU s | peak GiB | within the goal |",
        "|---|---|---|---|---|---|",
        *rows,
    ])
    if args.write:
        write_section(args.write, "bench_verify_bounds", text)
    print(text)


def default_against(args, base: Path, directory: Path, names: list[str],
                    stop_mib: float | None) -> None:
    """Default verify of each model, base checkout then this one, --repeat times, one process
    at a time; the table of medians (wall, CPU) and peak RSS (the largest)."""
    import statistics

    rows = []
    for name in names:
        cmd = ["verify", str(directory / f"{name}.before.relax"),
               str(directory / f"{name}.after.relax")]
        got: dict = {"base": [], "here": []}
        for _ in range(args.repeat):
            got["base"].append(measure(cmd, stop_mib, base, args.base_python))
            got["here"].append(measure(cmd, stop_mib, ROOT))
            print(name, {k: [(c, round(w), round(u), round(m)) for c, _, w, u, m in v]
                         for k, v in got.items()}, flush=True)
        (wall_b, cpu_b, peak_b), (wall_h, cpu_h, peak_h) = (
            (statistics.median(r[2] for r in got[k]), statistics.median(r[3] for r in got[k]),
             max(r[4] for r in got[k])) for k in ("base", "here"))
        within = "yes" if (cpu_h <= 2 * cpu_b and peak_h <= 3 * 1024 and
                           all(r[0] == 0 for r in got["here"])) else "no"
        rows.append(f"| {name} | {verdict(got['base'][0][0], got['base'][0][1])} | "
                    f"{verdict(got['here'][0][0], got['here'][0][1])} | {wall_b:.0f} | "
                    f"{wall_h:.0f} | {cpu_b:.0f} | {cpu_h:.0f} | {cpu_h / cpu_b:.2f} | "
                    f"{peak_b / 1024:.2f} | {peak_h / 1024:.2f} | {within} |")
        print(rows[-1], flush=True)
    text = "\n".join([
        "### Default verify with the run at the bounds, against main (bench/bench_verify_bounds.py --default-against)",
        "",
        f"Measured {machine()}, load average at the start {os.getloadavg()[0]:.1f} (the "
        "machine is shared with other sessions: wall seconds count their work too, CPU "
        f"seconds, user + system of the process, less so). `cgraph verify NAME.before.relax "
        f"NAME.after.relax`, all functions, no --shape; main ({base}) then this branch, one "
        f"process at a time, model by model, median of {args.repeat}; peak RSS the largest. "
        "Goal (issue 39): CPU time at most 2x main's, peak at most 3 GiB.",
        "",
        "| model | main | this branch | main wall s | wall s | main CPU s | CPU s | CPU ratio "
        "| main peak GiB | peak GiB | within the goal |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
        *rows,
    ])
    if args.write:
        write_section(args.write, "bench_verify_default_bounds", text)
    print(text)


if __name__ == "__main__":
    main()
