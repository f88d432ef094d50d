"""`cgraph run --device N`: a module on a GPU, eager and with CUDA graphs, checked and timed.

1. The module is rewritten (cgraph's pass, default options), unless a rewrite is given.
2. Check: every public function is called `calls` times in turn with the same fresh random
   inputs on three executors -- the reference (cpu, the original), eager (GPU, the original:
   one launch per kernel) and graph (GPU, the rewrite: get_cached_alloc / run_or_capture with
   real CUDA graphs) -- and each call's outputs must be equal bit for bit, reference = eager
   = graph. With user kernels (--kernels) the reference does not know them, so eager = graph
   is checked alone.
3. Time: for each function and each symbolic-shape value the check ran, one call on each GPU
   executor is traced into its launch list (cuda/cuda_backend.py) and the lists are replayed:
   `warmup` calls, then `iters` calls, each timed with CUDA events from an idle stream
   (so a call's time includes the host's launch gaps, which is what graphs remove).
4. The floor: the eager list captured whole into one CUDA graph and replayed the same way
   (`one_graph_times`): the call with every launch in a graph, which the rewrite's graphs
   approach (the launches a rewrite must leave outside its graphs cost the difference).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import ir
from ..exec.backend import CpuBackend, ExecError, Tensor
from ..exec.handlers.cuda_graph import GraphRuntime
from ..exec.handlers.memory import read_storages_as
from ..exec.interpreter import Executor
from ..exec.values import leaves
from ..exec.compare import Difference, compare_snapshots
from ..exec.driver import CallDriver
from ..exec.functions import check_correspondence, public_functions
from ..exec.inputs import to_backend
from ..passes.pipeline import is_rewritten, rewrite
from .cuda_backend import CudaBackend, DeviceStorage, KernelLibrary, LaunchList
from .cuda_driver import DriverError, device_facts, open_driver


@dataclass
class RunOptions:
    device: int = 0
    calls: int | None = None  # None: default_calls(shapes), `cgraph run --device N`'s default
    seed: int = 0
    shapes: dict = field(default_factory=dict)
    warmup: int = 20
    iters: int = 200
    functions: list | None = None
    kernels_source: str | None = None
    kernels_name: str = "user-kernels.cu"
    progress: bool = False

    def __post_init__(self):
        if self.calls is None:
            self.calls = default_calls(self.shapes)


def default_calls(shapes: dict | None) -> int:
    """Calls of each function on a GPU when none are asked for: 3, or twice the longest list
    of --shape values, so that every value is captured and then replayed at least once."""
    values = max((len(v) for v in (shapes or {}).values()), default=1)
    return max(3, 2 * values)


@dataclass
class Timing:
    median_us: float
    p10_us: float
    p90_us: float
    samples: int

    @staticmethod
    def of(ms: list[float]) -> "Timing":
        us = np.asarray(ms, dtype=np.float64) * 1e3
        return Timing(float(np.median(us)), float(np.percentile(us, 10)),
                      float(np.percentile(us, 90)), len(us))


@dataclass
class FunctionTiming:
    function: str
    shape: dict
    eager: Timing
    graph: Timing
    launches_eager: int  # host launches per call (kernels and copies)
    launches_graph: int  # host launches per call (graph launches, kernels and copies left out)
    graph_launches: int
    # Bytes written by each kernel of the eager list, in order (what a stand-in must write).
    kernel_bytes: list = field(default_factory=list, repr=False)
    # Per call: the eager call captured whole into one graph (`one_graph_times`), or why it
    # could not be.
    one_graph: Timing | None = None
    one_graph_note: str = ""

    @property
    def speedup(self) -> float:
        return self.eager.median_us / self.graph.median_us if self.graph.median_us else 0.0

    @property
    def graph_over_one_graph(self) -> float:
        """Graph time per call over the one-graph call's (1.0: nothing left to gain)."""
        return self.graph.median_us / self.one_graph.median_us \
            if self.one_graph and self.one_graph.median_us else 0.0


@dataclass
class GpuRunReport:
    module: str
    device: dict
    checked: list = field(default_factory=list)  # (function, call, outputs compared)
    compared: str = "reference (cpu) = eager (GPU) = graph (GPU)"
    difference: Difference | None = None
    difference_between: str = ""
    timings: list = field(default_factory=list)
    captures: int = 0
    capture_ms: list = field(default_factory=list)
    graph_nodes: list = field(default_factory=list)
    static_bytes: int = 0
    device_bytes_eager: int = 0
    device_bytes_graph: int = 0
    library_seconds: float = 0.0
    library_cached: bool = False
    user_kernels_used: list = field(default_factory=list)
    user_kernels_unused: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    warmup: int = 0
    iters: int = 0

    @property
    def ok(self) -> bool:
        return self.difference is None


def run_on_gpu(original: ir.Module, name: str, options: RunOptions,
               open_device=None, rewritten: ir.Module | None = None,
               rewritten_source: tuple | None = None) -> GpuRunReport:
    """`rewritten`: a given rewrite of `original` (TVM's, say) instead of cgraph's; an error
    while running it is located in `rewritten_source` (file name, text)."""
    if is_rewritten(original):
        raise ExecError("this module already launches CUDA graphs (vm.builtin.cuda_graph.*): "
                        "give cgraph run the module before the rewrite, so that it can run "
                        "both")
    if rewritten is None:
        rewritten, _ = rewrite(original)
    else:
        check_correspondence(original, rewritten)
    names = [f.name for f in public_functions(original)]
    if options.functions:
        missing = [n for n in options.functions if n not in names]
        if missing:
            raise ExecError(f"no public function {', '.join(missing)} in the module "
                            f"(it has {', '.join(names) or 'none'})")
        names = [n for n in names if n in options.functions]
    driver = (open_device or open_driver)(options.device)
    try:
        return _run(original, rewritten, name, names, options, driver, rewritten_source)
    finally:
        driver.release()


def _run(original, rewritten, name, names, options, driver,
         rewritten_source) -> GpuRunReport:
    facts = {"ordinal": options.device, "name": driver.name, "arch": driver.arch,
             "multiprocessors": driver.sm_count, "cuda_driver": driver.driver_version}
    if driver.kind == "cuda":
        facts.update({k: v for k, v in device_facts(
            options.device, getattr(driver, "pci_bus_id", None)).items() if k != "name"})
    report = GpuRunReport(name, facts, warmup=options.warmup, iters=options.iters)
    lib = KernelLibrary(driver, options.kernels_source, options.kernels_name)
    report.library_seconds, report.library_cached = lib.load_seconds, lib.cached
    eager = CudaBackend(driver, lib)
    graph = CudaBackend(driver, lib)
    try:
        ex_e, ex_g = Executor(original, eager), Executor(rewritten, graph)
        user = set(lib.user_names) & kernel_names(original)
        with_reference = not user
        ex_r = Executor(original, CpuBackend(track_init=True)) if with_reference else None
        if not with_reference:
            report.compared = "eager (GPU) = graph (GPU); the reference does not know user " \
                              "kernels"
        if options.kernels_source is not None and not lib.user_names:
            report.notes.append(f"{options.kernels_name}: its launch manifest lists no PrimFunc"
                                if lib.manifest is not None else
                                f"{options.kernels_name} defines no extern \"C\" __global__ "
                                "kernel")
        report.notes.extend(manifest_notes(lib.manifest, original, options.kernels_name))
        executors = [ex for ex in (ex_r, ex_e, ex_g) if ex is not None]
        read_storages_as(original, *executors)  # one unit, the original's, as verify reads
        labels = [lb for lb, ex in zip(("reference (cpu)", "eager (GPU)", "graph (GPU)"),
                                       (ex_r, ex_e, ex_g)) if ex is not None]
        caller = CallDriver(executors, options.seed, options.shapes)
        timed: dict = {}  # (function, shape key) -> host inputs
        for call, f in caller.schedule([original.function(n) for n in names], options.calls):
            fname = f.name
            prepared = caller.prepare(f, call)
            outs = []
            for k, ex in enumerate(executors):
                try:
                    outs.append(caller.run(prepared, k))
                except ExecError as e:
                    if ex is ex_g and rewritten_source is not None:
                        e.located(*rewritten_source)
                    raise
            snaps = [caller.keep(k, o) for k, o in enumerate(outs)]
            for i in range(len(snaps) - 1):
                found = compare_snapshots(snaps[i], snaps[i + 1])
                if found:
                    path, element, va, vb, words = found
                    report.difference = Difference(fname, call, path,
                                                   f"{fname}, call {call + 1}", element,
                                                   va, vb, words)
                    report.difference_between = f"{labels[i]} vs {labels[i + 1]}"
                    return _finish(report, eager, graph, ex_g, lib)
            report.checked.append((fname, call, sum(isinstance(v, Tensor)
                                                    for v in leaves(outs[-1]))))
            key = (fname, tuple(sorted(prepared.syms.items())))
            timed.setdefault(key, (prepared.fresh, prepared.weights))
        _time_all(report, driver, timed, ex_e, ex_g, eager, graph, options, lib)
        return _finish(report, eager, graph, ex_g, lib)
    finally:
        eager.close()
        graph.close()


def kernel_names(mod: ir.Module) -> set[str]:
    """The names a launch in `mod` can have: its PrimFuncs and the packed functions it calls."""
    names = {f.name for f in mod.functions if isinstance(f, ir.PrimFunc)}
    for f in mod.relax_functions():
        for block in f.blocks:
            for b in block.bindings:
                names.update(x.name for x in ir.walk(b.value) if type(x) is ir.ExternFunc)
    return names


def manifest_notes(manifest, mod: ir.Module, kernels_name: str) -> list[str]:
    """What a `cgraph kernels` file leaves to cgraph's stand-ins, or launches nothing for."""
    if manifest is None:
        return []
    notes = []
    prims = [f.name for f in mod.functions if isinstance(f, ir.PrimFunc)]
    missing = [n for n in prims if n not in manifest.prim_funcs]
    if missing:
        notes.append(f"{kernels_name} has no kernels for {', '.join(missing)}: cgraph's "
                     "stand-in kernels run them")
    library = [n for n in prims if n in manifest.prim_funcs and manifest.prim_funcs[n].host_calls]
    if library:
        calls = sorted({c for n in library for c in manifest.prim_funcs[n].host_calls})
        notes.append(f"the host code of {', '.join(library)} calls {', '.join(calls)}, which "
                     f"{kernels_name} cannot hold: cgraph's stand-in kernels run them")
    empty = [n for n in prims if n in manifest.prim_funcs and not manifest.prim_funcs[n].kernels
             and n not in library]
    if empty:
        notes.append(f"TVM generated no kernel for {', '.join(empty)}: a call launches nothing "
                     "and leaves its outputs as they were")
    return notes


def _time_all(report, driver, timed, ex_e, ex_g, eager, graph, options, lib) -> None:
    progress = None
    total = len(timed) * 2 * (options.warmup + options.iters)
    if options.progress and total:
        from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

        progress = Progress(TextColumn("timing {task.description}"), BarColumn(),
                            TextColumn("{task.completed}/{task.total} calls"),
                            TimeRemainingColumn(), transient=True)
        progress.start()
        task = progress.add_task("", total=total)
    try:
        for (fname, key), (fresh, ws) in timed.items():
            lists = []
            for ex, backend, w in ((ex_e, eager, ws[-2]), (ex_g, graph, ws[-1])):
                args = [to_backend(backend, v) for v in fresh] + w
                ex.call(fname, args)  # warm: captures already made; the pool holds the blocks
                backend.trace = LaunchList()
                try:
                    ex.call(fname, args)
                finally:
                    lst, backend.trace = backend.trace, None
                if progress is not None:
                    progress.update(task, description=f"{fname} {dict(key) or ''}")
                ms = time_list(driver, backend.stream, lst, options.warmup, options.iters,
                               (lambda: progress.advance(task)) if progress else None)
                lists.append((lst, ms))
            (le, me), (lg, mg) = lists
            one, note = None, ""
            try:
                one = Timing.of(one_graph_times(driver, eager.stream, le, options.warmup,
                                                options.iters))
            except DriverError as e:
                note = f"the eager call could not be captured whole: {e}"
            report.timings.append(FunctionTiming(fname, dict(key), Timing.of(me), Timing.of(mg),
                                                 le.launches, lg.launches,
                                                 lg.count("cuGraphLaunch"),
                                                 [op.output_bytes for op in le.keepalive],
                                                 one, note))
    finally:
        if progress is not None:
            progress.stop()


def time_list(driver, stream, lst: LaunchList, warmup: int, iters: int, tick=None) -> list:
    """Milliseconds per call of a launch list, from CUDA events; each call starts on an idle
    stream."""
    start, end = driver.event_create(), driver.event_create()
    try:
        for _ in range(warmup):
            lst.run(driver)
            driver.stream_sync(stream)
            if tick:
                tick()
        times = []
        for _ in range(iters):
            driver.stream_sync(stream)
            driver.event_record(start, stream)
            lst.run(driver)
            driver.event_record(end, stream)
            times.append(driver.event_elapsed_ms(start, end))
            if tick:
                tick()
        return times
    finally:
        driver.event_destroy(start)
        driver.event_destroy(end)


def one_graph_times(driver, stream, lst: LaunchList, warmup: int, iters: int) -> list:
    """Milliseconds per call of `lst` captured whole into one CUDA graph, replayed as
    `time_list` replays (each call from an idle stream).

    The floor a rewrite's graphs are measured against. Not CUDA events around each eager
    launch, summed: on an H100 those came to 4.4 us per launch for a chain of 100 kernels that
    a graph runs in 1.25 us each (the events' own cost); nor the eager call queued whole
    before the GPU starts it: 2.1 us per launch (the stream's dispatch, slower than a
    graph's)."""
    driver.stream_sync(stream)
    driver.begin_capture(stream)
    try:
        lst.run(driver)
    except BaseException:
        try:  # end the capture, but report what broke it
            driver.end_capture(stream)
        except Exception:
            pass
        raise
    graph = driver.end_capture(stream)
    exec_ = driver.instantiate(graph)
    try:
        one = LaunchList([("cuGraphLaunch", driver.graph_thunk(exec_, stream))])
        return time_list(driver, stream, one, warmup, iters)
    finally:
        driver.stream_sync(stream)
        driver.graph_destroy(graph, exec_)


def _finish(report, eager, graph, ex_g, lib) -> GpuRunReport:
    runtime = ex_g.state(GraphRuntime)
    report.captures = runtime.captures
    report.capture_ms = [g.capture_seconds * 1e3 for g in graph.graphs]
    report.graph_nodes = [g.nodes for g in graph.graphs]
    seen: set = set()
    for value in runtime.alloc_cache.values():
        for v in leaves(value):
            s = v if isinstance(v, DeviceStorage) else getattr(v, "storage", None)
            if isinstance(s, DeviceStorage) and s not in seen:
                seen.add(s)
                report.static_bytes += s.nbytes
    report.device_bytes_eager = eager.bytes_allocated
    report.device_bytes_graph = graph.bytes_allocated
    report.user_kernels_used = sorted(lib.user_used)
    report.user_kernels_unused = sorted(set(lib.user_names) - lib.user_used)
    return report

