"""The CUDA-graph runtime: the two VM builtins of a rewritten module, as TVM's runtime runs
them (src/runtime/relax_vm/cuda/cuda_graph_builtin.cc).

* `vm.builtin.cuda_graph.get_cached_alloc(f, index)` runs the allocation function once and
  returns the same storages for that index on every later call;
* `vm.builtin.cuda_graph.run_or_capture(f, args, index[, shape])`: the first call for an
  (index, shape) runs `f` once while the backend records its launches, and returns its outputs;
  every later call replays the recorded launches on the recorded buffers and returns the same
  outputs, ignoring the arguments passed now -- exactly what a CUDA graph does.

What it keeps is a `GraphRuntime` (`executor.state(GraphRuntime)`), which verify reads (the
counts, the graph log, the host calls a replay did not run again) and watches through its
declared listeners (exec/ownership.py)."""

from __future__ import annotations

from ... import ir
from ..backend import ExecError
from ..launches import LaunchState
from ..registry import FunctionCall, function
from ..values import FuncRef, as_shape, describe, integer


class GraphRuntime:
    """The graphs and cached allocations of one executor."""

    def __init__(self):
        self.alloc_cache: dict[int, object] = {}
        # Indices whose allocation function is running: one that asks for its own index again
        # would recurse forever (TVM's pass writes such a module when it is run twice).
        self.allocating: set[int] = set()
        self.graphs: dict[tuple, tuple] = {}  # (index, shape) -> (graph, outputs)
        # What each graph was captured with: a replay reads these buffers, whatever it is
        # given. Holding them also keeps their addresses from being reused.
        self.graph_inputs: dict[tuple, tuple] = {}
        self.captures = 0
        self.replays = 0
        # The index of each graph launched (captured or replayed), when a list: verify checks
        # against it that a graph bounded by --capture-symbolic ran exactly within its bound.
        self.log: list | None = None
        self.host_calls: dict[tuple, list] = {}  # graph key -> (loc, symbol) captured
        # (loc, symbol) of every host-work call a replay ran with its captured state
        self.replayed_host_calls: dict[tuple, None] = {}
        # The key of the graph being replayed, while the listeners are told.
        self.replaying: tuple | None = None
        # Told `capturing(runtime, capture_function, index, args)` before each capture and
        # `replayed(runtime, capture_function, index, captured_args, given_args)` before each
        # replay (verify's ownership check). A listener is handed the runtime, not kept by
        # it: a listener holding the executor would make a reference cycle.
        self.listeners: list = []


def capture_function(ex, value, builtin: str) -> str:
    if not isinstance(value, FuncRef):
        raise ExecError(f"{builtin}'s first argument is {describe(value)}, not a function")
    if not isinstance(ex.functions.get(value.name), ir.Function):
        raise ExecError(f"{builtin} calls '{value.name}', which is not a Relax function of "
                        "the module")
    return value.name


@function(ir.GET_CACHED_ALLOC)
def get_cached_alloc(ex, call: FunctionCall):
    if len(call.values) != 2:
        raise ExecError(f"{ir.GET_CACHED_ALLOC} takes (function, index), {len(call.values)} "
                        "argument(s) given")
    alloc = ir.CachedAlloc(tuple(call.values))
    func = capture_function(ex, alloc.function, ir.GET_CACHED_ALLOC)
    index = integer(alloc.index, f"{ir.GET_CACHED_ALLOC}'s index")
    runtime = ex.state(GraphRuntime)
    cached = runtime.alloc_cache.get(index)
    if cached is None:
        if index in runtime.allocating:
            raise ExecError(f"{ir.GET_CACHED_ALLOC} asks for index {index} while '{func}' "
                            "is computing it: the allocation would recurse forever")
        runtime.allocating.add(index)
        try:
            cached = runtime.alloc_cache[index] = ex.call_global(func, [])
        finally:
            runtime.allocating.discard(index)
    return cached


@function(ir.RUN_OR_CAPTURE)
def run_or_capture(ex, call: FunctionCall):
    if len(call.values) not in (3, 4):
        raise ExecError(f"{ir.RUN_OR_CAPTURE} takes (function, arguments, index[, shape]), "
                        f"{len(call.values)} argument(s) given")
    launch = ir.GraphLaunch(tuple(call.values))
    func = capture_function(ex, launch.function, ir.RUN_OR_CAPTURE)
    if not isinstance(launch.args, tuple):
        raise ExecError(f"{ir.RUN_OR_CAPTURE}'s arguments are {describe(launch.args)}, not a "
                        "tuple")
    index = integer(launch.index, f"{ir.RUN_OR_CAPTURE}'s index")
    shape = as_shape(launch.shape, f"{ir.RUN_OR_CAPTURE}'s shape") \
        if len(call.values) == 4 else None
    key = (index, shape)
    runtime = ex.state(GraphRuntime)
    if runtime.log is not None:
        runtime.log.append(index)
    entry = runtime.graphs.get(key)
    if entry is not None:
        graph, outputs = entry
        if runtime.listeners:
            runtime.replaying = key
            try:
                for listener in runtime.listeners:
                    listener.replayed(runtime, func, index, runtime.graph_inputs[key],
                                      launch.args)
            finally:
                runtime.replaying = None
        for host_call in runtime.host_calls.get(key, ()):
            runtime.replayed_host_calls.setdefault(host_call, None)
        ex.backend.replay(graph)
        runtime.replays += 1
        return outputs
    ex.load_constants(ex.functions[func])
    for listener in runtime.listeners:
        listener.capturing(runtime, func, index, launch.args)
    ex.backend.begin_capture()
    launches = ex.state(LaunchState)
    launches.noting = []
    try:
        outputs = ex.call_global(func, list(launch.args))
    except BaseException:
        try:  # end the capture, but report what broke it, not what ending it says
            ex.backend.end_capture()
        except Exception:
            pass
        raise
    finally:
        host_calls, launches.noting = launches.noting, None
    if host_calls:
        runtime.host_calls[key] = host_calls
    graph = ex.backend.end_capture()
    runtime.graphs[key] = (graph, outputs)
    runtime.graph_inputs[key] = launch.args
    runtime.captures += 1
    return outputs
