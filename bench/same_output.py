"""Do two versions of cgraph say the same thing on every file of samples/?

    python bench/same_output.py --base DIR [--new DIR] [--cache FILE] [--only SUBSTRING]

Each version is a source tree (DIR/cudagraph_cli and DIR/samples): `git archive COMMIT | tar -x
-C DIR` makes one of an older commit. Every command below runs as a process of its own (`python
-m cudagraph_cli` in DIR, whose cudagraph_cli `-m` finds first, with samples/ paths relative to
DIR, so that file names in messages are the same), standard output and error pipes (no
terminal), and the two versions' standard output, standard error and exit status must be
byte-identical. The samples of both trees must be the same files. For each .relax file F of samples/, with
P its partner (X.before <-> X.after, X_before <-> X_expected) or F itself:

    rewrite F                  check F P                 check F P --format json
    diff F                     diff F --format json      diff F P --format json (P != F)
    verify F P

--cache FILE keeps the base version's results (JSON) so that a second comparison runs only the
new version; with --fill, only the base version runs (to fill the cache). Exit 0 when every result is identical, 1 otherwise (the differing commands listed).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def partner(path: Path) -> Path:
    name = path.name
    for a, b in ((".before.relax", ".after.relax"), ("_before.relax", "_expected.relax")):
        for x, y in ((a, b), (b, a)):
            if name.endswith(x):
                other = path.with_name(name[: -len(x)] + y)
                if other.exists():
                    return other
    return path


def commands(samples: Path) -> list[list[str]]:
    out = []
    for f in sorted(samples.rglob("*.relax")):
        rel = str(f.relative_to(ROOT))
        p = str(partner(f).relative_to(ROOT))
        out += [["rewrite", rel], ["check", rel, p], ["check", rel, p, "--format", "json"],
                ["diff", rel], ["diff", rel, "--format", "json"], ["verify", rel, p]]
        if p != rel:
            out.append(["diff", rel, p, "--format", "json"])
    return out


def run(tree: Path, args: list[str]) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "NO_COLOR", "TERM")}
    env.pop("PYTHONPATH", None)
    proc = subprocess.run([sys.executable, "-m", "cudagraph_cli", *args], cwd=tree, env=env,
                          capture_output=True)
    return {"stdout": proc.stdout.decode("utf-8", "backslashreplace"),
            "stderr": proc.stderr.decode("utf-8", "backslashreplace"),
            "status": proc.returncode}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", required=True, type=Path)
    ap.add_argument("--new", type=Path, default=ROOT)
    ap.add_argument("--cache", type=Path, default=None)
    ap.add_argument("--only", default=None, help="only commands whose text holds this")
    ap.add_argument("--fill", action="store_true", help="run the base version only")
    ap.add_argument("--show", type=int, default=0, metavar="N",
                    help="print the first N characters of both results of a difference")
    args = ap.parse_args()
    cmds = commands(ROOT / "samples")
    if any(not (args.base / c[1]).is_file() for c in cmds):
        raise SystemExit(f"{args.base} lacks some of samples/")
    if args.only:
        cmds = [c for c in cmds if args.only in " ".join(c)]
    cached = json.loads(args.cache.read_text()) if args.cache and args.cache.exists() else {}
    differ, statuses = [], {}
    start = time.perf_counter()
    for cmd in cmds:
        key = " ".join(cmd)
        if key not in cached:
            cached[key] = run(args.base, cmd)
        if args.fill:
            continue
        new = run(args.new, cmd)
        statuses[new["status"]] = statuses.get(new["status"], 0) + 1
        if new != cached[key]:
            differ.append(key)
            what = [k for k in ("stdout", "stderr", "status") if new[k] != cached[key][k]]
            print(f"DIFFERS ({', '.join(what)}): cgraph {key}", flush=True)
            if args.show:
                print(json.dumps({"base": cached[key], "new": new}, indent=1)[:args.show])
    if args.cache:
        args.cache.write_text(json.dumps(cached))
    if args.fill:
        print(f"{len(cmds)} commands of {args.base} run ({time.perf_counter() - start:.0f} s)")
        return 0
    print(f"{len(cmds)} commands, {len(cmds) - len(differ)} identical, {len(differ)} differ "
          f"(exit statuses {dict(sorted(statuses.items()))}; {time.perf_counter() - start:.0f} s)")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
