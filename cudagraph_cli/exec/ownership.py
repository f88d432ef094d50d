"""Ownership: what verify checks beyond values (docs/EXECUTOR.md, "Ownership").

Equal values do not make a rewrite correct. Two things a CUDA graph makes wrong can compute
the very values the original computes, call after call:

* a value a public function returns (anything reachable from it through tuples) that lives in
  a storage of `vm.builtin.cuda_graph.get_cached_alloc` -- owned by the allocation function,
  shared by every call -- or in a graph's output is overwritten by the next call's graph;
  when that call writes the same values (a result that depends only on weights), comparing
  values sees nothing;
* a graph input (an argument of `vm.builtin.cuda_graph.run_or_capture`) at an address other
  than the one the graph was captured with is ignored: the replay reads the captured buffer.
  When the two hold the same values, the replay computes the right result by chance;
* an object captured in a graph (a KV cache) that the allocation function did not make may be
  another object on the next call, and a graph that replays host logic (a `vm.builtin.*` call,
  or one the capture-safety table marks never or host-state) does not run it again: both are
  found whatever the values (docs/EXECUTOR.md, "Objects and host logic inside graphs").

Addresses are the backend's: a NumPy array's data pointer on the CPU backend, the device
pointer on the CUDA backend. Two buffers alive at once never share an address, and the
graph runtime keeps every captured input alive (`GraphRuntime.graph_inputs`), so a different
address is a different buffer.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import ir
from ..diagnostics import NO_LOC, Loc
from ..passes.capture_safety import rule_for
from .backend import Tensor
from .handlers.cuda_graph import GraphRuntime
from .values import HostObject, leaves_with_paths


@dataclass
class OwnershipFinding:
    function: str  # the public function being called
    call: int  # 0-based call number of that function
    output: str  # path in the returned value ("" when the finding is about a graph input)
    graph_input: str | None  # path in run_or_capture's arguments, for a graph input
    loc: Loc
    site: str  # what `loc` points at, in words
    message: str


def extent(value) -> tuple[int, int] | None:
    """(address, size in bytes) of a tensor's or a storage's memory, or None for a value that
    has none (a shape, a number, an opaque object)."""
    ptr = getattr(value, "ptr", None)
    if isinstance(ptr, int):  # the CUDA backend's tensors and storages
        return ptr, int(getattr(value, "nbytes", 0))
    arr = value.array if isinstance(value, Tensor) else getattr(value, "data", None)
    if isinstance(arr, np.ndarray):
        return arr.__array_interface__["data"][0], arr.nbytes
    return None


def overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[1] > 0 and b[1] > 0 and a[0] < b[0] + b[1] and b[0] < a[0] + a[1]


def describe(value) -> str:
    if isinstance(value, Tensor):
        return f"a tensor {tuple(value.shape)} {value.dtype}"
    if hasattr(value, "nbytes"):
        return f"a storage of {value.nbytes} bytes"
    return "a value"


class OwnershipCheck:
    """Watches one module's graph runtime (a listener of it, handed the runtime at each
    event: it keeps neither the runtime nor the executor, so nothing makes a reference
    cycle); `first` is the first finding, in the order of the run."""

    def __init__(self, module: ir.Module, runtime: GraphRuntime):
        self.module = module
        self.first: OwnershipFinding | None = None
        self.function = ""
        self.call = 0
        runtime.listeners.append(self)

    def calling(self, function: str, call: int) -> None:
        self.function, self.call = function, call

    # ---- returned values ---------------------------------------------------------------

    def returned(self, runtime: GraphRuntime, value) -> None:
        """After a call of a public function: its result against the memory graphs own."""
        ex = runtime
        if self.first is not None or not (ex.alloc_cache or ex.graphs):
            return
        owned = [(index, e) for index, cached in ex.alloc_cache.items()
                 for _, leaf in leaves_with_paths(cached)
                 if (e := extent(leaf)) is not None]
        # An output of a graph is written by every replay of it, wherever it was allocated
        # (say by R.builtin.alloc_tensor inside the capture function).
        written = [(key[0], e) for key, (_, outputs) in ex.graphs.items()
                   for _, leaf in leaves_with_paths(outputs)
                   if (e := extent(leaf)) is not None]
        for path, leaf in leaves_with_paths(value):
            e = extent(leaf)
            if e is None:
                continue
            index = next((i for i, o in owned if overlaps(e, o)), None)
            if index is not None:
                alloc = self.builtin_site(ir.GET_CACHED_ALLOC, index)
                owner = alloc[1] if alloc is not None else "the allocation function"
                where = f"in a storage owned by {owner} ({ir.GET_CACHED_ALLOC}, index {index})"
            else:
                index = next((i for i, o in written if overlaps(e, o)), None)
                if index is None:
                    continue
                where = f"in memory that graph {index} writes on every replay (its output)"
            self.first = OwnershipFinding(
                self.function, self.call, path, None, *self.made_at(path),
                f"{describe(leaf)} {where}: every call shares it, so the next call "
                "overwrites what this one returned, even where the values agree")
            return

    def made_at(self, path: str) -> tuple[Loc, str]:
        """The binding that made the returned value at `path` of the function being called,
        followed through vars and tuple literals; else the return value, else the function
        (and what the location is, in words)."""
        f = self.module.function(self.function)
        bound = {b.var: b for b in ir.nested_bindings(f.blocks)}
        expr, made = f.body, None
        steps = [int(s) for s in path.strip("[]").split("][")] if path else []
        while True:
            if isinstance(expr, ir.Var):
                binding = bound.get(expr)
                if binding is None:
                    break  # a parameter: nothing in the function made it
                made = binding
                if isinstance(binding.value, ir.Var) or \
                        (isinstance(binding.value, ir.Tuple) and steps):
                    expr = binding.value
                    continue
                break
            if isinstance(expr, ir.Tuple) and steps and 0 <= steps[0] < len(expr.fields):
                expr = expr.fields[steps.pop(0)]
                continue
            break
        if made is not None and made.loc.line > 0:
            return made.loc, "the binding that made the returned value"
        body = getattr(f.body, "loc", NO_LOC)
        if body.line > 0:
            return body, "the returned value"
        return f.loc, f"the function '{f.name}'"

    # ---- graph inputs ------------------------------------------------------------------

    def replayed(self, runtime: GraphRuntime, capture: str, index: int, captured: tuple,
                 given: tuple) -> None:
        if self.first is not None:
            return
        self.replayed_inputs(capture, index, captured, given)
        if self.first is None:
            self.replayed_host_work(runtime, capture, index)

    def replayed_inputs(self, capture: str, index: int, captured: tuple, given: tuple) -> None:
        captured_leaves = list(leaves_with_paths(captured))
        given_leaves = list(leaves_with_paths(given))
        if [p for p, _ in captured_leaves] != [p for p, _ in given_leaves]:
            return  # another structure: not an address question (a key with another shape)
        pairs = [(p, a, b) for (p, a), (_, b) in zip(captured_leaves, given_leaves)]
        for path, was, now in pairs:
            if type(was) is int and type(now) is int and was != now:
                # A symbolic shape value (the capture function's shape_expr): the graph was
                # captured for another value and replays that one's launches. Its key, the
                # trailing R.shape([...]), must hold every variable the graph is given.
                # Looked at first: the tensors' extents then differ too, as a consequence.
                return self.graph_input(
                    capture, index, path,
                    f"symbolic shape value {now} ({capture}, graph {index}) where the graph "
                    f"was captured with {was}: the replay runs the launches captured for {was}; "
                    "the graph's key (run_or_capture's trailing R.shape([...])) must hold every "
                    "symbolic variable the graph is given")
        for path, was, now in pairs:
            if isinstance(was, HostObject) and was != now:
                return self.graph_input(
                    capture, index, path,
                    f"another object ({self.parameter(capture, path)}{capture}, graph {index}) "
                    "than the one the graph was captured with: the replay runs on the "
                    "captured object and ignores this one")
        for position, (path, was, now) in enumerate(pairs):
            e_was, e_now = extent(was), extent(now)
            if e_was is None or e_now is None or e_was == e_now:
                continue
            f = self.module.function(capture)
            params = f.params if isinstance(f, ir.Function) else []
            named = f"parameter '{params[position].name}' of " if position < len(params) \
                and len(params) == len(captured_leaves) else ""
            return self.graph_input(
                capture, index, path,
                f"{describe(now)} ({named}{capture}, graph {index}) at another address than "
                "the one the graph was captured with: the replay reads the captured buffer "
                "and ignores this one, even where the values agree")

    def graph_input(self, capture: str, index: int, path: str, message: str) -> None:
        """The finding for graph input `path` of a replay, located at its run_or_capture."""
        site = self.builtin_site(ir.RUN_OR_CAPTURE, index, capture)
        self.first = OwnershipFinding(self.function, self.call, "", path,
                                      site[0] if site else NO_LOC, "the run_or_capture call",
                                      message)

    # ---- objects and host work inside graphs ---------------------------------------------

    def capturing(self, runtime: GraphRuntime, capture: str, index: int, args: tuple) -> None:
        """Before a graph is captured: an object among its arguments that is not one the
        allocation function made (get_cached_alloc: made once, the same on every call) may
        be another object on the next call -- a parameter the caller passes, or one a call
        makes -- and the replay would still run on the captured one."""
        if self.first is not None:
            return
        cached = {leaf for value in runtime.alloc_cache.values()
                  for _, leaf in leaves_with_paths(value) if isinstance(leaf, HostObject)}
        for path, leaf in leaves_with_paths(args):
            if not isinstance(leaf, HostObject) or leaf in cached or leaf.name == "null":
                continue
            site = self.builtin_site(ir.RUN_OR_CAPTURE, index, capture)
            self.first = OwnershipFinding(
                self.function, self.call, "", path, site[0] if site else NO_LOC,
                "the run_or_capture call",
                f"an object ({self.parameter(capture, path)}{capture}, graph {index}) captured "
                "in a graph: it is not one the allocation function made, so another call may "
                "pass another object (a KV cache the caller chooses, or one a call makes), "
                "and a replay runs on the one of the capture")
            return

    def replayed_host_work(self, runtime: GraphRuntime, capture: str, index: int) -> None:
        """On a replay: a call the graph captured that runs host logic on every call (a
        `vm.builtin.*` call, or what the capture-safety table marks never or host-state):
        the replay does not run it."""
        for loc, symbol in runtime.host_calls.get(runtime.replaying, ()):
            rule = rule_for(symbol)
            if not symbol.startswith("vm.builtin.") and \
                    (rule is None or rule.verdict not in ("never", "host-state")):
                continue
            site = self.builtin_site(ir.RUN_OR_CAPTURE, index, capture)
            inside = f" (line {loc.line}:{loc.col})" if loc.line else ""
            why = "a VM builtin" if symbol.startswith("vm.builtin.") else \
                f"the capture-safety table marks it {rule.verdict}"
            self.first = OwnershipFinding(
                self.function, self.call, "", None, site[0] if site else NO_LOC,
                "the run_or_capture call",
                f"graph {index} ({capture}) replays '{symbol}'{inside}, which runs host logic "
                f"on every call ({why}): a CUDA graph replays kernels, not host code, so the "
                "replay runs it with what it did at capture, even where the values agree")
            return

    def parameter(self, capture: str, path: str) -> str:
        """"parameter 'x' of " for a top-level argument path of a capture function."""
        f = self.module.function(capture)
        steps = path.strip("[]").split("][") if path else []
        if isinstance(f, ir.Function) and len(steps) == 1 and steps[0].isdigit() and \
                int(steps[0]) < len(f.params):
            return f"parameter '{f.params[int(steps[0])].name}' of "
        return ""

    def builtin_site(self, builtin: str, index: int, callee: str | None = None):
        """(location, function name) of the call of `builtin` with this index (and callee),
        preferring the public function being called; None when there is no such literal
        call."""
        view = ir.GraphLaunch if builtin == ir.RUN_OR_CAPTURE else ir.CachedAlloc
        found = None
        for f in self.module.relax_functions():
            for b in ir.nested_bindings(f.blocks):
                call = view.of(b.value)
                if call is None or call.index is None:
                    continue
                name = call.function_name
                if call.index_value != index or (callee is not None and name != callee):
                    continue
                c = call.call
                site = (c.loc if c.loc.line > 0 else b.loc, name or "the allocation function")
                if f.name == self.function:
                    return site
                found = found or site
        return found
