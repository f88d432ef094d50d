"""Benchmark: what cgraph's pytest plugin costs a project that does not use it (issue 41).

pytest loads every `pytest11` entry point of its environment at start-up, so installing cgraph
adds cudagraph_cli/pytest_plugin.py to every pytest session there. In a temporary project
with one empty test, `python -m pytest -q` as a fresh process, three ways, interleaved round
after round (bench_startup.interleaved_ms: CPU of the child, user + sys, and wall, medians
of --repeat runs):

- without the plugin: `-p no:cgraph` (pytest's own switch for an entry-point plugin);
- with it, unused: the default, the plugin loaded;
- with it, used: the one test calls `cgraph_golden` on a 19-line module and its golden
  (what the library costs once a test asks for it; not paid by the two runs above).

Also `python -X importtime -c "import pytest; import cudagraph_cli.pytest_plugin"`: what the
plugin's import itself costs (the modules it adds, their own times), a figure the noise of
whole pytest runs on a shared machine hides.

    python bench/bench_pytest_startup.py [--repeat 15] [--write docs/BENCHMARKS.md]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from bench_startup import interleaved_ms  # noqa: E402
from report import machine, write_section  # noqa: E402

SMALL = ROOT / "samples" / "tvm" / "static_input_with_symbolic_shape_expected.relax"


def project(top: Path, uses_fixture: bool) -> Path:
    d = top / ("uses" if uses_fixture else "plain")
    d.mkdir()
    if uses_fixture:
        shutil.copy(SMALL, d / "golden.relax")
        (d / "test_it.py").write_text(
            "import pathlib\n\n"
            "def test_it(cgraph_golden):\n"
            "    text = (pathlib.Path(__file__).parent / 'golden.relax').read_text()\n"
            "    cgraph_golden(text, 'golden.relax')\n")
    else:
        (d / "test_it.py").write_text("def test_it():\n    pass\n")
    return d


def plugin_import_us(cwd: Path, repeat: int) -> float:
    """Microseconds `python -X importtime` gives the plugin's import after pytest's: the self
    times of the modules it adds, median of `repeat` runs."""
    import re
    import statistics

    totals = []
    for _ in range(repeat):
        err = subprocess.run([sys.executable, "-X", "importtime", "-c",
                              "import pytest; import cudagraph_cli.pytest_plugin"],
                             capture_output=True, text=True, check=True, cwd=cwd).stderr
        totals.append(sum(int(m.group(1)) for m in re.finditer(
            r"import time:\s+(\d+) \|\s+\d+ \|\s*(cudagraph_cli\S*)", err)))
    return statistics.median(totals)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--write", metavar="DOC", help="replace this section of DOC (markdown)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        top = Path(tmp)
        plain, uses = project(top, False), project(top, True)
        env = {k: v for k, v in os.environ.items()
               if k not in ("PYTEST_ADDOPTS", "PYTEST_DISABLE_PLUGIN_AUTOLOAD")}
        pytest = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        runs = [(pytest + ["-p", "no:cgraph"], dict(env, PYTHONPATH=str(plain))),
                (pytest, dict(env, PYTHONPATH=str(plain))),
                (pytest, dict(env, PYTHONPATH=str(uses)))]
        (off, on, used) = interleaved_ms(runs, args.repeat)
        added = subprocess.run(
            [sys.executable, "-c",
             "import sys, pytest; before = set(sys.modules)\n"
             "import cudagraph_cli.pytest_plugin\n"
             "print(len(set(sys.modules) - before))"],
            capture_output=True, text=True, check=True, cwd=top).stdout.strip()
        own = plugin_import_us(top, args.repeat)
    rows = [("without the plugin (`-p no:cgraph`)", off),
            ("with the plugin, unused", on),
            ("with the plugin, one test using `cgraph_golden`", used)]
    lines = [f"pytest start-up, a project with one test ({machine()}; median of "
             f"{args.repeat} runs, interleaved; `python -m pytest` of the project venv, its "
             "plugins included)", "",
             "| run | CPU ms | wall ms |", "|---|---:|---:|"]
    lines += [f"| {name} | {cpu:.0f} | {wall:.0f} |" for name, (cpu, wall) in rows]
    lines += ["", f"The plugin unused: {on[0] - off[0]:+.0f} ms of CPU between the medians "
              f"({(on[0] - off[0]) / off[0] * 100:+.1f} %, within the noise of a shared "
              f"machine); importing it adds {added} modules (cudagraph_cli's light __init__ "
              f"and the plugin), {own / 1000:.2f} ms by `python -X importtime` (their own "
              f"times, median of {args.repeat})."]
    text = "\n".join(lines)
    print(text)
    if args.write:
        write_section(args.write, "bench_pytest_startup", text)


if __name__ == "__main__":
    main()
