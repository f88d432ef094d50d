"""Benchmark and check: `cgraph kernels` and NVRTC on every MLC-style model of samples/real.

    python bench/bench_kernels_corpus.py [--archs sm_80,sm_90] [--models mlc_llama_1b,...]
                                         [--json OUT] [--write docs/BENCHMARKS.md]
                                         [--note TEXT] [FILE ...]

For each model (every samples/real/mlc_*.before.relax, or --models NAME,... -- `--models ""`
for none -- and any FILE given, e.g. a dump not committed yet), in this process:

1. cgraph reads it (`parse_module`) and lowers its PrimFuncs as `cgraph kernels` does
   (`tvm_kernels.lower_module`, docs/KERNELS.md): the seconds to lower (tvm's import, done once
   first, excluded), PrimFuncs, kernels, PrimFuncs whose host code loops (host loops),
   PrimFuncs with blocks cgraph bound to GPU threads, workspaces, the library functions TVM's
   host code calls (which `run --kernels` leaves to cgraph's stand-ins); the manifest is read
   back by `read_manifest` as `cgraph run --kernels` reads it.
2. NVRTC compiles the file for each architecture (default sm_80 and sm_90), with an empty
   cache (nothing is reused between runs): the seconds, and every kernel of the manifest must
   be in the cubin.

A model that fails says where and why (the located error `cgraph kernels` would print) and the
run goes on; the exit status is 1 if any model failed. The table goes to stdout; --write puts
it in docs/BENCHMARKS.md (section `bench_kernels_corpus`). Times are wall seconds on whatever
machine runs it (say whether it was shared); peak memory is the process's, so it grows
with the largest model so far.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.report import machine, write_section  # noqa: E402

from cudagraph_cli.diagnostics import SourceError  # noqa: E402

SAMPLES = ROOT / "samples" / "real"
SECTION = "bench_kernels_corpus"


def models(names: list[str] | None, files: list[str]) -> list[Path]:
    found = sorted(SAMPLES.glob("mlc_*.before.relax"))
    if names is not None:  # `--models ""`: none, only the FILEs
        found = [SAMPLES / f"{n}.before.relax" for n in names if n]
    return found + [Path(f) for f in files]


def one_model(path: Path, archs: list[str]) -> dict:
    from cudagraph_cli.cuda import nvrtc
    from cudagraph_cli.cuda.launch_manifest import read_manifest
    from cudagraph_cli.cuda.tvm_kernels import lower_module
    from cudagraph_cli.text.reader import parse_module

    row = {"model": path.name.removesuffix(".before.relax"), "file": str(path)}
    try:
        mod = parse_module(path.read_text(), str(path))
        t = time.perf_counter()
        ks = lower_module(mod, path.name)
        row["lower_s"] = round(time.perf_counter() - t, 2)
        manifest = read_manifest(ks.source, path.name.replace(".relax", ".cu"))
    except SourceError as e:
        row["error"] = f"kernels: {e.render().splitlines()[0]}"
        return row
    prims = list(manifest.prim_funcs.values())
    row.update(prim_funcs=len(prims), kernels=sum(len(p.kernels) for p in prims),
               host_loops=sum(p.has_loops for p in prims),
               bound=sum(bool(p.bound_blocks) for p in prims),
               workspaces=sum(len(p.workspaces) for p in prims),
               library_calls=sorted({c for p in prims for c in p.host_calls}))
    names = manifest.kernel_names()
    for arch in archs:
        with tempfile.TemporaryDirectory(prefix="cgraph-nvrtc-") as cache:
            os.environ["CGRAPH_CACHE_DIR"] = cache
            t = time.perf_counter()
            try:
                cubin, _ = nvrtc.compile_cubin(ks.source, arch, path.name.replace(".relax",
                                                                                  ".cu"))
            except (SourceError, nvrtc.NvrtcUnavailable) as e:
                row[arch] = f"error: {str(e).splitlines()[0]}"
                continue
            missing = [k for k in names if k.encode() + b"\0" not in cubin]
            row[arch] = f"missing {', '.join(missing)}" if missing else "ok"
            row[f"{arch}_s"] = round(time.perf_counter() - t, 2)
    return row


def table(rows: list[dict], archs: list[str]) -> str:
    head = ["model", "PrimFuncs", "kernels", "host loops", "bound", "workspaces",
            "library calls", "lower s"] + [f"NVRTC {a}" for a in archs]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['model']} | {r['error']} |" + " |" * (len(head) - 2))
            continue
        cells = [r["model"], r["prim_funcs"], r["kernels"], r["host_loops"], r["bound"],
                 r["workspaces"], ", ".join(r["library_calls"]) or "-", f"{r['lower_s']:.2f}"]
        cells += [f"{r[a]} {r[a + '_s']:.1f} s" if r[a] == "ok" else r[a] for a in archs]
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    return "\n".join(lines)


def section(rows: list[dict], archs: list[str], tvm_version: str, tvm_import_s: float) -> str:
    return (f"### `cgraph kernels` and NVRTC on the MLC-style models ({machine()}, TVM "
            f"{tvm_version})\n\n`python bench/bench_kernels_corpus.py`. Wall seconds; tvm's "
            f"import ({tvm_import_s:.1f} s) excluded; NVRTC with an empty cache. host loops: "
            "PrimFuncs whose host code launches in a loop (docs/KERNELS.md); bound: PrimFuncs "
            "with blocks cgraph bound to GPU threads; library calls: packed functions TVM's "
            "host code calls (run on cgraph's stand-ins).\n\n" + table(rows, archs))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", help="more .before.relax files")
    ap.add_argument("--models", help="samples/real models, comma-separated (default: mlc_*)")
    ap.add_argument("--archs", default="sm_80,sm_90")
    ap.add_argument("--json")
    ap.add_argument("--write", help="docs/BENCHMARKS.md: replace this benchmark's section")
    ap.add_argument("--note", default="", help="a line under the table (say if the machine "
                    "was shared)")
    args = ap.parse_args(argv)
    archs = [a for a in args.archs.split(",") if a]
    from cudagraph_cli.cuda.tvm_kernels import import_tvm

    t = time.perf_counter()
    tvm = import_tvm()
    tvm_import_s = time.perf_counter() - t
    rows = []
    for path in models(args.models.split(",") if args.models is not None else None,
                       args.files):
        row = one_model(path, archs)
        row["peak_rss_gib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20,
                                    2)
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
        gc.collect()
    text = section(rows, archs, str(tvm.__version__), tvm_import_s)
    if args.note:
        text += "\n\n" + args.note
    print(text)
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "archs": archs,
                                               "tvm": str(tvm.__version__),
                                               "tvm_import_s": tvm_import_s}, indent=1))
    if args.write:
        write_section(args.write, SECTION, text)
    failed = [r for r in rows if "error" in r or any(r.get(a) != "ok" for a in archs)]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
