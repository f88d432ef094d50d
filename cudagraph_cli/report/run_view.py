"""`cgraph run`'s report, on a GPU (`--device N`) and on the reference executor (`--device
cpu`): a view for people, JSON for machines.

On the CPU (cpu_to_json, cpu_text): one row per tensor output of each call (its shape, dtype
and the crc32 of its bytes) and the executor's counts. JSON:
  {"module", "device": "cpu", "functions": [...], "calls", "outputs": [{"function", "call",
   "output", "shape", "dtype", "crc32"}], "kernel_launches", "graph_captures",
   "graph_replays"}

On a GPU (to_json, render), JSON schema (version 1):
  {"schema": "cgraph-run/1", "module", "ok", "device": {...NVML and driver facts},
   "check": {"compared", "calls": [{"function", "call", "outputs"}], "difference": null |
             {"between", "function", "call", "output", "element", "original", "rewritten",
              "message"}},
   "timings": [{"function", "shape", "eager_us": {"median", "p10", "p90", "samples"},
                "graph_us": {...}, "speedup", "host_launches_eager", "host_launches_graph",
                "graph_launches", "one_graph_us": {...} | null, "graph_over_one_graph",
                "one_graph_note"}],
   (one_graph_us: the eager call captured whole into one CUDA graph, replayed the same way;
   graph_over_one_graph: graph median over one-graph median; one_graph_note: why
   one_graph_us is null)
   "graphs": {"captures", "capture_ms": [...], "nodes": [...], "static_bytes"},
   "memory": {"eager_bytes", "graph_bytes"}, "kernels": {"compile_or_load_s", "cached",
   "user_used", "user_unused"}, "warmup", "iters", "notes": [...]}
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.table import Table

if TYPE_CHECKING:  # the CPU report is read without the CUDA modules
    from ..cuda.gpu_run import GpuRunReport


def _mib(n: int) -> str:
    return f"{n / (1 << 20):.1f} MiB"


def _num(v):
    if v is None:
        return None
    try:
        return v.item()
    except AttributeError:
        return v if isinstance(v, (int, float, str)) else repr(v)


def to_json(r: GpuRunReport) -> dict:
    d = r.difference
    return {
        "schema": "cgraph-run/1",
        "module": r.module,
        "ok": r.ok,
        "device": r.device,
        "check": {
            "compared": r.compared,
            "calls": [{"function": f, "call": c + 1, "outputs": n} for f, c, n in r.checked],
            "difference": None if d is None else {
                "between": r.difference_between, "function": d.function, "call": d.call + 1,
                "output": d.output, "element": list(d.element) if d.element else None,
                "original": _num(d.original), "rewritten": _num(d.rewritten),
                "message": d.message},
        },
        "timings": [{
            "function": t.function, "shape": t.shape,
            "eager_us": {"median": t.eager.median_us, "p10": t.eager.p10_us,
                         "p90": t.eager.p90_us, "samples": t.eager.samples},
            "graph_us": {"median": t.graph.median_us, "p10": t.graph.p10_us,
                         "p90": t.graph.p90_us, "samples": t.graph.samples},
            "speedup": t.speedup, "host_launches_eager": t.launches_eager,
            "host_launches_graph": t.launches_graph, "graph_launches": t.graph_launches,
            "one_graph_us": None if t.one_graph is None else {
                "median": t.one_graph.median_us, "p10": t.one_graph.p10_us,
                "p90": t.one_graph.p90_us, "samples": t.one_graph.samples},
            "graph_over_one_graph": t.graph_over_one_graph,
            "one_graph_note": t.one_graph_note,
        } for t in r.timings],
        "graphs": {"captures": r.captures, "capture_ms": r.capture_ms, "nodes": r.graph_nodes,
                   "static_bytes": r.static_bytes},
        "memory": {"eager_bytes": r.device_bytes_eager, "graph_bytes": r.device_bytes_graph},
        "kernels": {"compile_or_load_s": r.library_seconds, "cached": r.library_cached,
                    "user_used": r.user_kernels_used, "user_unused": r.user_kernels_unused},
        "warmup": r.warmup, "iters": r.iters,
        "notes": r.notes,
    }


def render(r: GpuRunReport, console) -> None:
    dev = r.device
    line = f"[bold]{dev.get('name', '?')}[/] ({dev.get('arch', '?')}"
    if "multiprocessors" in dev:
        line += f", {dev['multiprocessors']} SMs"
    line += ")"
    if "driver" in dev:
        line += f"  driver {dev['driver']}"
    console.print(line)
    facts = []
    if "sm_clock_mhz" in dev:
        facts.append(f"SM {dev['sm_clock_mhz']} MHz"
                     + (f" (max {dev['sm_clock_max_mhz']})" if "sm_clock_max_mhz" in dev else ""))
    if "mem_clock_mhz" in dev:
        facts.append(f"memory {dev['mem_clock_mhz']} MHz")
    if "memory_used_mib" in dev:
        facts.append(f"{dev['memory_used_mib']} / {dev.get('memory_total_mib', '?')} MiB used")
    if "temperature_c" in dev:
        facts.append(f"{dev['temperature_c']} °C")
    if "power_w" in dev:
        facts.append(f"{dev['power_w']:.0f} W"
                     + (f" of {dev['power_limit_w']:.0f}" if "power_limit_w" in dev else ""))
    if "nvml" in dev:
        facts.append(f"NVML {dev['nvml']}")
    if facts:
        console.print("  " + ", ".join(facts))
    kernels = "kernels: loaded from the cache" if r.library_cached else \
        f"kernels: compiled by NVRTC in {r.library_seconds:.2f} s"
    console.print(f"  {kernels}")
    if r.user_kernels_used or r.user_kernels_unused:
        console.print(f"  user kernels used: {', '.join(r.user_kernels_used) or 'none'}"
                      + (f"; defined but never launched: {', '.join(r.user_kernels_unused)}"
                         if r.user_kernels_unused else ""))
    calls = len(r.checked)
    if r.difference is None:
        console.print(f"[green]check[/]: {calls} call(s), outputs equal bit for bit: "
                      f"{r.compared}")
    else:
        d = r.difference
        where = f"output{d.output}" + (f", element {list(d.element)}" if d.element else "")
        console.print(f"[red]check failed[/]: {r.difference_between} differ: {d.function} call "
                      f"{d.call + 1}, {where}: {d.original!r} vs {d.rewritten!r} ({d.message})")
        return
    if r.timings:
        t = Table(title=f"per call, CUDA events, median of {r.iters} after {r.warmup} warm-up "
                        "(p10-p90)", title_justify="left")
        for col in ("function", "shape", "eager µs", "graph µs", "speedup",
                    "host launches", "one graph µs", "graph/one"):
            t.add_column(col, justify="left" if col in ("function", "shape") else "right")
        for x in r.timings:
            shape = ", ".join(f"{k}={v}" for k, v in x.shape.items()) or "-"
            t.add_row(x.function, shape,
                      f"{x.eager.median_us:.1f} ({x.eager.p10_us:.1f}-{x.eager.p90_us:.1f})",
                      f"{x.graph.median_us:.1f} ({x.graph.p10_us:.1f}-{x.graph.p90_us:.1f})",
                      f"{x.speedup:.2f}x", f"{x.launches_eager} -> {x.launches_graph}",
                      "-" if x.one_graph is None else f"{x.one_graph.median_us:.1f}",
                      "-" if x.one_graph is None else f"{x.graph_over_one_graph:.2f}")
        console.print(t)
        console.print("one graph µs: the eager call captured whole into one CUDA graph, the "
                      "floor the rewrite's graphs approach")
        for x in r.timings:
            if x.one_graph_note:
                console.print(f"note: {x.function}: {x.one_graph_note}")
    cap = ""
    if r.capture_ms:
        cap = f", capture {min(r.capture_ms):.2f}-{max(r.capture_ms):.2f} ms each " \
              f"({sum(r.graph_nodes)} nodes)"
    console.print(f"graphs: {r.captures} captured{cap}; static memory held: "
                  f"{_mib(r.static_bytes)}; device memory taken: eager {_mib(r.device_bytes_eager)}, "
                  f"graph {_mib(r.device_bytes_graph)}")
    for n in r.notes:
        console.print(f"note: {n}")


def cpu_to_json(run, module: str, calls: int) -> dict:
    """`run` (an api.CpuRun of `calls` calls of each function) as `--format json` gives it."""
    return {"module": module, "device": "cpu", "functions": run.functions, "calls": calls,
            "outputs": run.rows, "kernel_launches": run.kernel_launches,
            "graph_captures": run.graph_captures, "graph_replays": run.graph_replays}


def cpu_text(run, calls: int) -> str:
    """`run` (an api.CpuRun) for people: a line per output, then the counts."""
    lines = [f"{r['function']} call {r['call']} output{r['output']}: "
             f"{tuple(r['shape'])} {r['dtype']} crc32 {r['crc32']}" for r in run.rows]
    lines.append(f"{', '.join(run.functions)}: {calls} call(s) each; {run.kernel_launches} "
                 f"kernel launches, {run.graph_captures} graph capture(s), "
                 f"{run.graph_replays} replay(s)")
    return "".join(line + "\n" for line in lines)
