"""Benchmark: the real corpus on a GPU with each model's own kernels -- eager vs CUDA graphs.

    python bench/bench_real_gpu.py --kernels-dir DIR [--device 0] [--warmup 20] [--iters 200]
                                   [--models nn_mlp,...] [--write FILE] [--json FILE]
                                   [--simulate]

Models: samples/real/*.before.relax whose kernels file (DIR/<model>.cu, written by `cgraph
kernels samples/real/<model>.before.relax --arch sm_XY -o DIR/<model>.cu`, which needs TVM)
has at least one kernel: TVM's test modules have `T.evaluate(0)` PrimFuncs and no kernel, so
they time nothing of a model. A missing file is written here when TVM can be imported (the GPU
machine has no TVM: write the files beside it and carry them).

Each model runs as `cgraph run MODEL --device N --kernels DIR/MODEL.cu` does (`run_on_gpu`),
then with TVM's own rewrite of it (`cgraph run MODEL MODEL.after --kernels ...`):
every public function is called 3 times on eager (one launch per kernel) and graph (cgraph's
rewrite, real CUDA graphs) and the outputs must be equal bit for bit; then one call of each is
traced into its launch list and replayed, each call timed with CUDA events from an idle
stream, median of --iters after --warmup. "one graph" is the eager call captured whole into
one CUDA graph and replayed the same way (gpu_run.one_graph_times): its kernels back to back
with no host launch between them, the floor the rewrite's graphs approach.

Goal (issue 15): a real model's graph time within 10% of that (graph/one graph <= 1.10).
--simulate runs on the recording driver of the tests (no GPU; TVM's kernels are recorded,
not run; the timings mean nothing): a check that this script still runs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cudagraph_cli.cuda.gpu_run import RunOptions, run_on_gpu  # noqa: E402
from cudagraph_cli.cuda.launch_manifest import read_manifest  # noqa: E402
from cudagraph_cli.text.reader import parse_module  # noqa: E402
from bench.report import gpu_heading, write_section  # noqa: E402

REAL = ROOT / "samples" / "real"
GOAL = 1.10


def kernels_file(kernels_dir: Path, name: str, arch: str) -> Path | None:
    """DIR/<name>.cu, written with TVM if it is missing and TVM can be imported."""
    path = kernels_dir / f"{name}.cu"
    if not path.exists():
        try:
            from cudagraph_cli.cuda.tvm_kernels import TvmUnavailable, lower_module
        except ImportError:
            return None
        src = REAL / f"{name}.before.relax"
        try:
            ks = lower_module(parse_module(src.read_text(), str(src)), src.name, arch)
        except TvmUnavailable:
            return None
        kernels_dir.mkdir(parents=True, exist_ok=True)
        path.write_text(ks.source)
    return path


def has_kernels(source: str, name: str) -> bool:
    manifest = read_manifest(source, name)
    return manifest is not None and any(p.kernels for p in manifest.prim_funcs.values())


def simulated_driver(ordinal: int):
    """The tests' recording driver (TVM's kernels recorded, not run; what they would touch
    zeroed, so that eager and graph agree)."""
    sys.path.insert(0, str(ROOT / "tests" / "helpers"))
    from host_driver import RecordingDriver

    drv = RecordingDriver(ordinal)
    drv.zero_buffers = True
    return drv


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kernels-dir", required=True, type=Path)
    ap.add_argument("--arch", default="sm_90", help="for kernels files written here")
    ap.add_argument("--device", type=int, default=0)
    ap.add_argument("--models", default="", help="comma-separated names (default: all)")
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--iters", type=int, default=200)
    ap.add_argument("--simulate", action="store_true")
    ap.add_argument("--write", metavar="FILE")
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args()

    open_device = simulated_driver if args.simulate else None

    names = [n for n in args.models.split(",") if n] or \
        sorted(p.name[:-len(".before.relax")] for p in REAL.glob("*.before.relax"))
    rows, device, skipped = [], {}, []
    for name in names:
        cu = kernels_file(args.kernels_dir, name, args.arch)
        if cu is None:
            skipped.append(("no kernels file, and no TVM to write one", name))
            continue
        source = cu.read_text()
        if not has_kernels(source, cu.name):
            skipped.append(("no kernel: stub PrimFuncs", name))
            continue
        src = REAL / f"{name}.before.relax"
        mod = parse_module(src.read_text(), str(src))
        options = RunOptions(device=args.device, calls=3, warmup=args.warmup, iters=args.iters,
                             kernels_source=source, kernels_name=cu.name)
        r = run_on_gpu(mod, name, options, open_device)
        if not r.ok:
            sys.exit(f"{name}: outputs differ ({r.difference_between}): {r.difference}")
        # TVM's own rewrite of the same module (the corpus's after file), run the same way.
        after = REAL / f"{name}.after.relax"
        tvm = run_on_gpu(mod, name, options, open_device,
                         parse_module(after.read_text(), str(after)),
                         (str(after), after.read_text()))
        if not tvm.ok:
            sys.exit(f"{name}, TVM's rewrite: outputs differ ({tvm.difference_between}): "
                     f"{tvm.difference}")
        tvm_graph = {(t.function, tuple(sorted(t.shape.items()))): t for t in tvm.timings}
        device = r.device
        for t in r.timings:
            tt = tvm_graph.get((t.function, tuple(sorted(t.shape.items()))))
            row = {"model": name, "function": t.function, "shape": t.shape,
                   "eager_us": t.eager.median_us, "graph_us": t.graph.median_us,
                   "speedup": t.speedup, "host_launches_eager": t.launches_eager,
                   "host_launches_graph": t.launches_graph, "graph_launches": t.graph_launches,
                   "one_graph_us": t.one_graph.median_us if t.one_graph else None,
                   "graph_over_one_graph": t.graph_over_one_graph, "captures": r.captures,
                   "tvm_graph_us": tt.graph.median_us if tt else None,
                   "tvm_host_launches": tt.launches_graph if tt else None}
            rows.append(row)
            print(json.dumps(row), flush=True)

    head = gpu_heading(device, args.simulate)
    lines = [f"\n### The real corpus with its own kernels ({head})\n",
             f"`python bench/bench_real_gpu.py --kernels-dir DIR --warmup {args.warmup} "
             f"--iters {args.iters}` (kernels: `cgraph kernels --arch {args.arch}`); per call, "
             "CUDA events from an idle stream, median; eager = graph checked bit for bit "
             "first. one graph: the eager call captured whole into one CUDA graph, replayed "
             f"the same way. Goal: graph/one ≤ {GOAL:.2f}.\n",
             "TVM: TVM's RewriteCUDAGraph output for the same module (the corpus's after "
             "file), run and timed the same way.\n",
             "| model | function | shape | eager µs | graph µs | speedup | host launches "
             "| TVM graph µs | TVM host launches | one graph µs | graph/one | ≤ goal |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|:-:|"]
    for row in rows:
        shape = ", ".join(f"{k}={v}" for k, v in row["shape"].items()) or "-"
        one = row["one_graph_us"]
        lines.append(
            f"| {row['model']} | {row['function']} | {shape} | {row['eager_us']:.1f} | "
            f"{row['graph_us']:.1f} | {row['speedup']:.2f}x | {row['host_launches_eager']} → "
            f"{row['host_launches_graph']} | "
            + ("-" if row["tvm_graph_us"] is None else f"{row['tvm_graph_us']:.1f}") + " | "
            + str(row["tvm_host_launches"] if row["tvm_host_launches"] is not None else "-")
            + " | " + ("-" if one is None else f"{one:.1f}")
            + f" | {row['graph_over_one_graph']:.2f} | "
            + ("yes" if one and row["graph_over_one_graph"] <= GOAL else "no") + " |")
    for why in dict.fromkeys(w for w, _ in skipped):
        which = [n for w, n in skipped if w == why]
        lines.append(f"\nNot timed ({why}): {len(which)} module(s), {', '.join(which)}.")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.json:
        Path(args.json).write_text(json.dumps({"device": device, "rows": rows, "skipped": [
            {"model": n, "why": w} for w, n in skipped]}, indent=2))
    if args.write:
        write_section(args.write, "bench_real_gpu", text)


if __name__ == "__main__":
    main()
