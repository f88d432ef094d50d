"""Benchmark: the mutation suite (bench/mutants/) against `cgraph verify`, in one process.

    python bench/bench_mutants.py [--models NAME,...] [--calls 3] [--write docs/EXECUTOR.md]
                                  [--details FILE.json]

For every model of samples/real (the real-size MLC models first, then the small ones) it
rewrites the model with cgraph, builds each class of wrong rewrite at the early, middle and late
layer, and gives each to the library's verify (`cudagraph_cli.api.verify`, `--calls 3`, the
mutated function only); then the controls, which must verify equal. A mutant is caught when
verify reports a difference, missed when it reports none, an error when verify raises (the
mutant did not run: counted apart, it is no catch). The table (class x position; controls)
goes into docs/EXECUTOR.md between `<!-- bench_mutants -->` markers (bench/report.py).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import mutants  # noqa: E402
from bench.report import machine, write_section  # noqa: E402
from cudagraph_cli import api  # noqa: E402


def verdict(original, module, function, calls):
    """("caught" | "missed" | "error", the difference's kind or the error, seconds)."""
    start = time.perf_counter()
    try:
        report = api.verify(original, module, calls=calls,
                            functions=[function] if function else None)
    except Exception as e:  # noqa: BLE001 -- any failure to run is an error, not a catch
        return "error", f"{type(e).__name__}: {str(e).splitlines()[0]}", \
            time.perf_counter() - start
    if report.equal:
        return "missed", "", time.perf_counter() - start
    return "caught", report.difference.kind, time.perf_counter() - start


def peak_rss() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def commit() -> str:
    try:
        return subprocess.run(["git", "-C", str(ROOT), "log", "-1", "--format=%h %s"],
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", help="comma-separated model names (default: all)")
    ap.add_argument("--calls", type=int, default=3)
    ap.add_argument("--write", metavar="FILE")
    ap.add_argument("--details", metavar="FILE", help="one JSON record per mutant and control")
    args = ap.parse_args()
    wanted = set(args.models.split(",")) if args.models else None
    rows = defaultdict(lambda: {"mutants": 0, "caught": 0, "missed": 0, "errors": 0,
                                "time": 0.0})
    not_built = defaultdict(set)
    ctl = defaultdict(lambda: {"count": 0, "flagged": 0, "errors": 0, "time": 0.0})
    records = []
    started = time.perf_counter()
    for group, model, path in mutants.real_models(ROOT):
        if wanted and model not in wanted:
            continue
        original = api.load(path)
        print(f"{model}:", flush=True)
        for m in mutants.mutants_of(model, original):
            if isinstance(m, tuple):
                kind, position, fn, why = m
                not_built[(group, kind, position)].add(f"{model}: {why}")
                continue
            outcome, detail, seconds = verdict(m.original or original, m.module, m.function, args.calls)
            row = rows[(group, m.kind, m.position)]
            row["mutants"] += 1
            row[{"caught": "caught", "missed": "missed", "error": "errors"}[outcome]] += 1
            row["time"] += seconds
            records.append({"model": model, "function": m.function, "class": m.kind,
                            "position": m.position, "layer": m.layer, "site": m.site,
                            "proof": m.proof, "outcome": outcome, "detail": detail,
                            "seconds": round(seconds, 2)})
            print(f"  {m.kind:18} {m.position:6} layer {m.layer}: {outcome} {detail} "
                  f"({seconds:.1f} s) -- {m.site}", flush=True)
        after = path.replace(".before.relax", ".after.relax")
        for c in mutants.controls_of(model, original, after):
            if isinstance(c, tuple):
                name, why = c
                not_built[(group, "control " + name, "")].add(f"{model}: {why}")
                continue
            outcome, detail, seconds = verdict(c.original or original, c.module, c.function,
                                               args.calls)
            kind = c.name.split(".")[0]
            row = ctl[(group, kind)]
            row["count"] += 1
            row["flagged"] += outcome == "caught"
            row["errors"] += outcome == "error"
            row["time"] += seconds
            records.append({"model": model, "function": c.function, "control": c.name,
                            "proof": c.proof, "outcome": outcome, "detail": detail,
                            "seconds": round(seconds, 2)})
            said = {"caught": "FLAGGED", "missed": "equal"}.get(outcome, outcome)
            print(f"  control {c.name:28}: {said} {detail} ({seconds:.1f} s)", flush=True)
    total = time.perf_counter() - started
    text = table(rows, ctl, not_built, args, total)
    print(text)
    if args.details:
        Path(args.details).write_text(json.dumps(records, indent=1) + "\n", encoding="utf-8")
    if args.write:
        write_section(args.write, "bench_mutants", text)


def table(rows, ctl, not_built, args, total) -> str:
    out = [f"### Mutation suite ({machine()}, shared machine)", "",
           f"`python bench/bench_mutants.py --calls {args.calls}"
           + (f" --models {args.models}" if args.models else "") + f"` at {commit()}: "
           f"{total:.0f} s in all, peak RSS {peak_rss():.1f} GiB. Caught: verify reported a difference; missed: it found the "
           "modules equal; errors: verify raised (the mutant did not run; no catch). Time: "
           "verify's, summed.", ""]
    for group in ("real-size", "small"):
        keys = [k for k in rows if k[0] == group]
        if not keys:
            continue
        scope = ("mlc_llama_1b, mlc_qwen2_0_5b, mlc_llama_8b: decode; the guard classes: "
                 "prefill, --capture-symbolic seq_len:256") if group == "real-size" else (
            "samples/real/*.before.relax and capture_safety/*: every function with a kernel; "
            "the guard classes: the first symbolic input bounded at 2")
        out += [f"**{group}** ({scope})", "",
                "| class | position | mutants | caught | missed | errors | time (s) |",
                "|---|---|---|---|---|---|---|"]
        for kind in mutants.CLASSES:
            for position in mutants.POSITIONS:
                r = rows.get((group, kind, position))
                if r is None:
                    if (group, kind, position) in not_built:
                        out.append(f"| {kind} | {position} | 0 | - | - | - | - |")
                    continue
                out.append(f"| {kind} | {position} | {r['mutants']} | {r['caught']} | "
                           f"{r['missed']} | {r['errors']} | {r['time']:.1f} |")
        sums = {k: sum(r[k] for key, r in rows.items() if key[0] == group)
                for k in ("mutants", "caught", "missed", "errors", "time")}
        out.append(f"| **all** | | {sums['mutants']} | {sums['caught']} | {sums['missed']} | "
                   f"{sums['errors']} | {sums['time']:.1f} |")
        out.append("")
    out += ["**Controls** (must verify equal)", "",
            "| group | control | count | flagged | errors | time (s) |",
            "|---|---|---|---|---|---|"]
    for (group, kind), r in sorted(ctl.items()):
        out.append(f"| {group} | {kind} | {r['count']} | {r['flagged']} | {r['errors']} | "
                   f"{r['time']:.1f} |")
    out += ["", "Not built, by class and reason (models; positions):", ""]
    why_models = defaultdict(lambda: defaultdict(set))
    for (group, kind, position), whys in not_built.items():
        for w in whys:
            model, _, why = w.partition(": ")
            if why.startswith("same site as another position"):
                why = "the same site as another position (too few layers or launches)"
            why_models[(kind, why)][model].add(position or "-")
    for (kind, why), models in sorted(why_models.items()):
        real = [f"{m} ({'/'.join(sorted(p))})" for m, p in sorted(models.items())
                if m in mutants.REAL_SIZE]
        small = len([m for m in models if m not in mutants.REAL_SIZE])
        where = ", ".join(real + ([f"{small} small model{'s' * (small > 1)}"] if small else []))
        out.append(f"- {kind}: {why}: {where}")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    main()
