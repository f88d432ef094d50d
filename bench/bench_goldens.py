"""Benchmark: the golden-file workflow of issue 41 on the real corpus, as a user runs it.

Every samples/real/*.before.relax and samples/models/*.relax is rewritten into golden/ by
`cgraph rewrite`, then again into out/ with a deliberate change (`--min-kernels 2`); then, one
process each, timed (wall and CPU of the child):

    cgraph check out/ golden/            # how many differ
    cgraph check out/ golden/ --diff     # the review: diff lines, the largest diff
    cgraph check out/ golden/ --update   # what is written; then check passes
    cgraph check out/ golden/ --update   # again: nothing to write

and checks what the issue asks: `--update` writes exactly the pairs `check` found different,
each becomes out/'s bytes, the others keep theirs, and `check` then passes.

    python bench/bench_goldens.py [--write docs/BENCHMARKS.md]
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
sys.path.insert(0, str(ROOT / "bench"))

from report import machine, write_section  # noqa: E402

INPUTS = sorted((ROOT / "samples" / "real").glob("*.before.relax")) + \
    sorted((ROOT / "samples" / "models").glob("*.relax"))


def cgraph(*args, ok=(0, 1)) -> tuple[subprocess.CompletedProcess, float, float]:
    """The completed `cgraph ARGS` process, its wall and CPU seconds."""
    start = time.perf_counter()
    before = os.times()
    got = subprocess.run([sys.executable, "-m", "cudagraph_cli", *map(str, args)],
                         capture_output=True, text=True)
    after = os.times()
    wall = time.perf_counter() - start
    cpu = (after.children_user - before.children_user) + \
        (after.children_system - before.children_system)
    if got.returncode not in ok:
        raise SystemExit(f"cgraph {' '.join(map(str, args))}: exit {got.returncode}\n"
                         f"{got.stderr[-2000:]}")
    return got, wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", metavar="DOC", help="replace this section of DOC (markdown)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        golden, out = Path(tmp) / "golden", Path(tmp) / "out"
        golden.mkdir()
        out.mkdir()
        for path in INPUTS:
            name = path.name.replace(".before", "")
            cgraph("rewrite", path, "-o", golden / name, ok=(0,))
            cgraph("rewrite", path, "--min-kernels", "2", "-o", out / name, ok=(0,))
        before = {p.name: p.read_bytes() for p in golden.iterdir()}
        rows = []
        check, wall, cpu = cgraph("check", out, golden)
        summary = check.stdout.splitlines()[-1]
        differ = {Path(re.match(r"(.*?\.relax)", line.split()[1]).group(1)).name
                  for line in check.stdout.splitlines() if line.startswith("differs ")}
        rows.append(("", wall, cpu, summary))
        review, wall, cpu = cgraph("check", out, golden, "--diff")
        hunks = [line for line in review.stdout.splitlines() if line.startswith("@@")]
        changed = [line for line in review.stdout.splitlines()
                   if re.match(r"[-+](?![-+]{2} )", line)]
        rows.append((" --diff", wall, cpu,
                     f"{len(hunks)} hunks, {len(changed)} lines removed or added"))
        update, wall, cpu = cgraph("check", out, golden, "--update", ok=(0,))
        rows.append((" --update", wall, cpu, update.stdout.splitlines()[-1]))
        written = {p.name for p in golden.iterdir() if p.read_bytes() != before[p.name]}
        assert written == differ, (written ^ differ)
        for p in golden.iterdir():
            expected = (out / p.name).read_bytes() if p.name in differ else before[p.name]
            assert p.read_bytes() == expected, p.name
        again, wall, cpu = cgraph("check", out, golden, "--update", ok=(0,))
        rows.append((" --update (again)", wall, cpu, again.stdout.splitlines()[-1]))
        final, wall, cpu = cgraph("check", out, golden, ok=(0,))
        rows.append(("", wall, cpu, final.stdout.splitlines()[-1]))
    lines = [f"The golden workflow on samples/real and samples/models ({len(INPUTS)} modules "
             f"rewritten into golden/, then with `--min-kernels 2` into out/; {machine()}; one "
             "run each, as a process):", "",
             "| command | wall s | CPU s | result |", "|---|---:|---:|---|"]
    lines += [f"| `cgraph check out/ golden/{flags}` | {wall:.1f} | {cpu:.1f} | {result} |"
              for flags, wall, cpu, result in rows]
    lines += ["", f"`--update` wrote exactly the {len(differ)} pairs `check` found different "
              "(each now out/'s bytes); the others kept theirs."]
    text = "\n".join(lines)
    print(text)
    if args.write:
        write_section(args.write, "bench_goldens", text)


if __name__ == "__main__":
    main()
