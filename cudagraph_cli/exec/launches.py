"""Kernel launches made from a module's calls: which arguments a PrimFunc's launch writes,
what a packed or operator kernel is given, and the host work of external functions.

An external function that does host work on every call (the capture-safety table,
passes/capture_safety.toml: verdict never or host-state) runs, on the reference backend, with a
host state mixed into its kernel: the number of its calls so far ("counter": an RNG, a barrier
flag, an allocation), or a hash of its inputs as the host reads them ("data": relax.run.unique's
result). Run eagerly, each call computes its own; captured in a graph, the launch is recorded
with the state of the capture, and every replay uses that one -- a CUDA graph does not run host
code again. So a module that captured such a call computes something else than its original,
and the graph runtime names the call (handlers/cuda_graph.py: `replayed_host_calls`). A
`vm.builtin.*` call made while capturing is noted for the graph too: it is host logic a replay
does not run (verify reports it, exec/ownership.py).

Host work is modelled on the reference backend only, where it changes no kernel's ABI (a user
kernel of `cgraph run` takes exactly its scalars)."""

from __future__ import annotations

import zlib

import numpy as np

from .. import ir
from ..passes.capture_safety import prim_func_host_effect
from .backend import ExecError, Tensor
from .kernels import KernelSpec, prim_func_loads, prim_func_spec
from .values import HostObject, describe, is_number, kernel_values, leaves


class LaunchState:
    """What launches keep across calls (Executor.state)."""

    def __init__(self):
        self.specs: dict[tuple, KernelSpec] = {}  # made once a kind of launch
        self.host_calls: dict[str, int] = {}  # symbol -> calls so far ("counter")
        # While a graph is captured: (loc, symbol) of each call of host logic in it.
        self.noting: list | None = None
        self.prim_effects: dict[str, tuple | None] = {}


def models_host_work(ex) -> bool:
    return ex.backend.name == "cpu"


def cached_spec(ex, key: tuple, make) -> KernelSpec:
    """The spec of a kind of launch (`key`), made by `make()` the first time."""
    specs = ex.state(LaunchState).specs
    spec = specs.get(key)
    if spec is None:
        spec = specs[key] = make()
    return spec


def kernel_arguments(ex, what: str, values: list, objects: bool = True) -> tuple[list, list]:
    """The tensors and scalars a kernel is given for `values`; `what` names the call in
    messages. A storage is refused: it is no kernel argument (TVM's VM would hand the kernel a
    pointer to an object, not to memory). With `objects`, on the reference backend, each
    opaque object salts the kernel: its identity is part of what the call is given (what it
    holds is not known)."""
    for v in leaves(values):
        if ex.backend.is_storage(v):
            raise ExecError(f"{what} is given a storage where a tensor goes")
    tensors, scalars, _ = kernel_values(values)
    if objects and models_host_work(ex):
        scalars += [f"object {v.name}" for v in leaves(values) if isinstance(v, HostObject)]
    return tensors, scalars


def note_host_call(ex, symbol: str) -> None:
    """While a graph is captured: `symbol`'s call at the binding being run is host logic."""
    noting = ex.state(LaunchState).noting
    if noting is not None:
        noting.append((ex.binding_loc, symbol))


def note_vm_builtin(ex, name: str) -> None:
    """A `vm.builtin.*` call (other than the CUDA-graph builtins) is host logic that runs on
    every call: a replay does not run it."""
    if name.startswith("vm.builtin.") and not name.startswith("vm.builtin.cuda_graph."):
        note_host_call(ex, name)


def host_state(ex, symbol: str, work: str, inputs: list) -> int:
    """The host state of a call of `symbol` that does host `work` (the module docstring),
    noted for the graph being captured."""
    if work == "data":
        state = 0
        for t in inputs:
            state = zlib.crc32(np.ascontiguousarray(ex.backend.to_numpy(t)).tobytes(), state)
    else:
        calls = ex.state(LaunchState).host_calls
        state = calls.get(symbol, 0)
        calls[symbol] = state + 1
    note_host_call(ex, symbol)
    return state


def launch_prim(ex, f: ir.PrimFunc, values: list, outputs: list = ()) -> None:
    """A launch of the PrimFunc `f` on `values` (and the destination `outputs`)."""
    given = values + list(outputs)
    flat = list(leaves(given))
    if len(flat) != len(f.params):
        raise ExecError(f"kernel '{f.name}' takes {len(f.params)} argument(s), "
                        f"{len(flat)} given")
    for i, (p, v) in enumerate(zip(f.params, flat)):
        if p.kind == "buffer" and not isinstance(v, Tensor):
            raise ExecError(f"argument {i} of kernel '{f.name}' ('{p.name}', a buffer) is "
                            f"{describe(v)}, not a tensor")
        if p.kind == "scalar" and not is_number(v):
            raise ExecError(f"argument {i} of kernel '{f.name}' ('{p.name}', a scalar) is "
                            f"{describe(v)}, not a number")
    tensors, scalars, positions = kernel_values(given)
    # Scratch memory: TVM passes a kernel its workspace as a 1-D uint8 tensor, which the
    # kernel writes before it reads (so its earlier bytes reach no output).
    scratch = tuple(i for i, v in enumerate(given) if isinstance(v, Tensor) and
                    v.dtype == "uint8" and len(v.shape) == 1)

    def make() -> KernelSpec:
        base = prim_func_spec(f)
        written = set(base.outputs)
        if scratch:
            read = prim_func_loads(f)
            written |= {i for i in scratch if i not in read}
        indices = tuple(positions.index(i) for i in sorted(written) if i in positions)
        builtin = base.builtin if written == set(base.outputs) else None
        return KernelSpec(base.name, indices, builtin, base.opaque)

    spec = cached_spec(ex, (f.name, tuple(positions), len(values) + len(outputs), scratch),
                       make)
    if models_host_work(ex):
        effects = ex.state(LaunchState).prim_effects
        if f.name not in effects:
            effects[f.name] = prim_func_host_effect(f)
        found = effects[f.name]
        if found is not None:
            ins = [t for i, t in enumerate(tensors) if i not in spec.outputs]
            scalars = scalars + [host_state(ex, found[0], found[1], ins)]
    ex.launch(spec, tensors, scalars)
