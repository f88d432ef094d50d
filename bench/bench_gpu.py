"""Benchmark: kernel launch overhead on a GPU -- cgraph eager vs CUDA graphs, beside PyTorch.

    python bench/bench_gpu.py [--device 0] [--lengths 10,100,1000] [--decode FILE]
                              [--warmup 50] [--iters 500] [--no-torch] [--write FILE]
                              [--json FILE] [--simulate]

Workloads: a chain of N tiny elementwise kernels (`cgraph gen chain --length N`: add_one over
1024 float32, N = 10, 100, 1000) and the 32-layer decode sample (samples/models/decode_32.relax).

cgraph: `run_on_gpu` (what `cgraph run --device N` does): the outputs of eager (one launch per
kernel) and graph (the rewrite, real CUDA graphs) are first checked against the reference
executor, bit for bit; then one call of each is traced into its launch list and replayed,
each call timed with CUDA events from an idle stream, median of --iters after --warmup.

PyTorch, in the same process on the same GPU, with the same timing: the same chain eagerly
(one `torch.add(prev, 1, out=next)` per kernel) and captured once with `torch.cuda.graph`,
replayed. For the decode sample, a stand-in with the same launches: one `torch.add` per
kernel of cgraph's eager list, writing as many bytes as that kernel writes (uint8).

Goals (issue 6): cgraph's graph replay per call <= PyTorch's; cgraph's eager->graph speedup
>= PyTorch's. --simulate runs the cgraph side on the simulated driver of the tests (no GPU,
no PyTorch; the timings then mean nothing): a check that this script still runs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cudagraph_cli.cuda.gpu_run import RunOptions, run_on_gpu  # noqa: E402
from cudagraph_cli.gen import chain_module  # noqa: E402
from cudagraph_cli.text.reader import parse_module  # noqa: E402
from bench.report import gpu_heading, write_section  # noqa: E402


def torch_times(fn, warmup: int, iters: int) -> float:
    """Median microseconds per call of fn, CUDA events, each call from an idle device."""
    import statistics

    import torch

    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    ms = []
    for _ in range(iters):
        torch.cuda.synchronize()
        start.record()
        fn()
        end.record()
        end.synchronize()
        ms.append(start.elapsed_time(end))
    return statistics.median(ms) * 1e3


def torch_pair(make_step, warmup: int, iters: int) -> tuple[float, float]:
    """(eager us, graph replay us) for the launches `make_step()` returns as a function."""
    import torch

    step = make_step()
    eager = torch_times(step, warmup, iters)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            step()
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        step()
    graph = torch_times(g.replay, warmup, iters)
    return eager, graph


def torch_chain(n: int, device: int):
    import torch

    def make():
        x = torch.randn(1024, device=f"cuda:{device}")
        bufs = [torch.empty_like(x), torch.empty_like(x)]
        out = torch.empty_like(x)

        def step():
            prev = x
            for i in range(n - 1):
                torch.add(prev, 1, out=bufs[i % 2])
                prev = bufs[i % 2]
            torch.add(prev, 1, out=out)
        return step
    return make


def torch_standin(kernel_bytes: list, device: int):
    import torch

    def make():
        size = max(kernel_bytes)
        src = torch.randint(0, 255, (size,), dtype=torch.uint8, device=f"cuda:{device}")
        dst = torch.empty_like(src)
        views = [(src[:b], dst[:b]) for b in kernel_bytes]

        def step():
            for a, b in views:
                torch.add(a, 1, out=b)
        return step
    return make


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", type=int, default=0)
    ap.add_argument("--lengths", default="10,100,1000")
    ap.add_argument("--decode", default=str(ROOT / "samples" / "models" / "decode_32.relax"))
    ap.add_argument("--warmup", type=int, default=50)
    ap.add_argument("--iters", type=int, default=500)
    ap.add_argument("--no-torch", action="store_true")
    ap.add_argument("--simulate", action="store_true")
    ap.add_argument("--write", metavar="FILE")
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args()

    open_device = None
    if args.simulate:
        sys.path.insert(0, str(ROOT / "tests" / "helpers"))
        from host_driver import HostDriver
        open_device = HostDriver
        args.no_torch = True
    workloads = [(f"chain {n}", parse_module(chain_module(int(n))), None)
                 for n in args.lengths.split(",") if n]
    if args.decode:
        workloads.append((Path(args.decode).stem, parse_module(Path(args.decode).read_text()),
                          "standin"))
    rows, device = [], {}
    for label, mod, kind in workloads:
        r = run_on_gpu(mod, label, RunOptions(device=args.device, calls=3, warmup=args.warmup,
                                              iters=args.iters), open_device)
        if not r.ok:
            sys.exit(f"{label}: outputs differ ({r.difference_between}): {r.difference}")
        device = r.device
        (t,) = r.timings
        row = {"workload": label, "kernels": t.launches_eager,
               "host_launches_graph": t.launches_graph,
               "cgraph_eager_us": t.eager.median_us, "cgraph_graph_us": t.graph.median_us,
               "cgraph_speedup": t.speedup, "capture_ms": sum(r.capture_ms),
               "cgraph_one_graph_us": t.one_graph.median_us if t.one_graph else None}
        if not args.no_torch:
            make = torch_chain(int(label.split()[1]), args.device) if kind is None else \
                torch_standin([b for b in t.kernel_bytes if b], args.device)
            te, tg = torch_pair(make, args.warmup, args.iters)
            row.update({"torch_eager_us": te, "torch_graph_us": tg, "torch_speedup": te / tg})
        rows.append(row)
        print(json.dumps(row), flush=True)

    head = gpu_heading(device, args.simulate)
    lines = [f"\n### cgraph run vs PyTorch, launch overhead ({head})\n",
             f"`python bench/bench_gpu.py --warmup {args.warmup} --iters {args.iters}`; "
             "per call, CUDA events from an idle stream, median; outputs checked against the "
             "reference executor first.\n",
             "| workload | kernels | cgraph eager µs | cgraph graph µs | speedup | "
             "PyTorch eager µs | PyTorch graph µs | speedup | graph ≤ PyTorch | "
             "speedup ≥ PyTorch |",
             "|---|---:|---:|---:|---:|---:|---:|---:|:-:|:-:|"]
    for row in rows:
        te, tg, ts = (row.get(k) for k in ("torch_eager_us", "torch_graph_us", "torch_speedup"))
        fmt = (lambda v: f"{v:.1f}" if v is not None else "-")
        ok1 = "-" if tg is None else ("yes" if row["cgraph_graph_us"] <= tg else "no")
        ok2 = "-" if ts is None else ("yes" if row["cgraph_speedup"] >= ts else "no")
        lines.append(f"| {row['workload']} | {row['kernels']} | {row['cgraph_eager_us']:.1f} | "
                     f"{row['cgraph_graph_us']:.1f} | {row['cgraph_speedup']:.2f}x | {fmt(te)} | "
                     f"{fmt(tg)} | " + (f"{ts:.2f}x" if ts else "-") + f" | {ok1} | {ok2} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.json:
        Path(args.json).write_text(json.dumps({"device": device, "rows": rows}, indent=2))
    if args.write:
        write_section(args.write, "bench_gpu", text)


if __name__ == "__main__":
    main()
