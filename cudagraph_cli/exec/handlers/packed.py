"""Packed and external calls: `R.call_packed`, `R.call_pure_packed`, `R.call_builtin_with_ctx`,
the destination-passing calls (`R.call_tir`, `R.call_dps_packed`), and any function called by
name that no other handler registers, which runs as a synthetic kernel (exec/kernels.py)."""

from __future__ import annotations

import difflib

import numpy as np

from ... import ir
from ...passes.capture_safety import host_effect
from ..backend import ExecError
from ..kernels import KernelSpec, packed_spec
from ..launches import (cached_spec, host_state, kernel_arguments, launch_prim,
                        models_host_work, note_host_call, note_vm_builtin)
from ..registry import ANY, FunctionCall, OpCall, function, operator
from ..values import HostObject, describe, has_tensors, is_number, kernel_values


@operator("relax.call_builtin_with_ctx", min_args=2)
def call_builtin_with_ctx(ex, call: OpCall):
    fn = call.args[0]
    inner = ex.eval(call.args[1], call.env, call.syms)
    if not isinstance(inner, tuple):
        raise ExecError(f"call_builtin_with_ctx's arguments are {describe(inner)}, not a tuple")
    name = fn.name if isinstance(fn, ir.ExternFunc) else "?"
    # TVM's runtime registers two builtins and nothing else under vm.builtin.cuda_graph: a
    # misspelling would otherwise run as a synthetic kernel returning an opaque object.
    if name.startswith("vm.builtin.cuda_graph.") and name not in ir.CUDA_GRAPH_BUILTINS:
        close = difflib.get_close_matches(name, ir.CUDA_GRAPH_BUILTINS, 1, 0.0)
        raise ExecError(f"unknown CUDA-graph builtin '{name}' (did you mean '{close[0]}'?)")
    return ex.call_function(name, list(inner), call.node.sinfo_args, call.syms)


@operator("relax.call_pure_packed", min_args=1)
def call_pure_packed(ex, call: OpCall):
    if not isinstance(call.args[0], ir.ExternFunc):
        raise ExecError("call_pure_packed's first argument is not a function name")
    return ex.call_function(call.args[0].name,
                            [ex.eval(a, call.env, call.syms) for a in call.args[1:]],
                            call.node.sinfo_args, call.syms)


@operator("relax.call_tir", "relax.call_dps_packed", min_args=2)
def call_dps(ex, call: OpCall):
    """A destination-passing call: the outputs allocated from its struct info, then handed to
    the PrimFunc or the function after its arguments."""
    callee, env, syms = call.args[0], call.env, call.syms
    ins = ex.eval(call.args[1], env, syms)
    if not isinstance(ins, tuple):
        ins = (ins,)  # TVM's reader wraps a single argument into a tuple
    ins = list(ins)
    if len(call.args) > 2:
        ins.append(ex.eval(call.args[2], env, syms))
    if not call.node.sinfo_args:
        raise ExecError("a destination-passing call without the struct info of its outputs")
    outs = ex.alloc_like(call.node.sinfo_args[0], syms)
    flat, _, _ = kernel_values([outs])
    if isinstance(callee, ir.GlobalVarRef) and \
            isinstance(ex.functions.get(callee.name), ir.PrimFunc):
        launch_prim(ex, ex.functions[callee.name], ins, flat)
        return outs
    name = callee.name if hasattr(callee, "name") else "?"
    tensors, scalars = kernel_arguments(ex, f"'{name}'", ins)
    work = host_effect(name) if models_host_work(ex) else None
    if work is not None:
        scalars = scalars + [host_state(ex, name, work, tensors)]
    spec = KernelSpec(name, tuple(range(len(tensors), len(tensors) + len(flat))), None, True)
    ex.launch(spec, tensors + flat, scalars)
    return outs


@function(ANY)
def packed_kernel(ex, call: FunctionCall):
    """A packed function the executor does not model: a synthetic kernel. One that returns
    tensors (its struct info says so) writes fresh ones; one that returns nothing writes its
    last tensor argument (destination passing); else it returns an opaque object."""
    name, values = call.name, call.values
    note_vm_builtin(ex, name)
    ret = call.sinfo_args[0] if call.sinfo_args else ir.ObjectSInfo()
    tensors, scalars = kernel_arguments(ex, f"'{name}'", values)
    work = host_effect(name) if models_host_work(ex) else None
    if has_tensors(ret):
        if work is not None:
            scalars = scalars + [host_state(ex, name, work, tensors)]
        outs = ex.alloc_like(ret, call.syms)
        flat, _, _ = kernel_values([outs])
        n_in = len(tensors)
        spec = KernelSpec(name, tuple(range(n_in, n_in + len(flat))), None, True)
        ex.launch(spec, tensors + flat, scalars)
        return outs
    if tensors:
        spec = cached_spec(ex, ("packed", name, len(tensors)),
                           lambda: packed_spec(name, len(tensors)))
        if work is not None:
            scalars = scalars + [host_state(ex, name, work, tensors[:-1])]
        ex.launch(spec, tensors, scalars)
    if isinstance(ret, ir.TupleSInfo) and not ret.fields:
        return ()
    return HostObject(f"{name}()")


@function("relax.run.unique", "relax.run.nonzero")
def host_computed(ex, call: FunctionCall):
    """relax.run.unique / relax.run.nonzero as TVM's Python functions compute them
    (python/tvm/relax/op/set.py: numpy_unique, numpy_nonzero): the input copied to the host,
    NumPy, a new tensor of the shape the data gives. A graph that captured the call returns
    the tensor of its capture on every replay (the host code does not run again). Off the
    reference backend, a synthetic kernel as any packed function."""
    if not models_host_work(ex):
        return packed_kernel(ex, call)
    name = call.name
    tensors, scalars = kernel_arguments(ex, f"'{name}'", call.values)
    if len(tensors) != 1:
        raise ExecError(f"'{name}' takes one tensor, {len(tensors)} given")
    x = np.array(ex.backend.to_numpy(tensors[0]))
    note_host_call(ex, name)
    if name == "relax.run.nonzero":
        return ex.backend.from_numpy(np.stack(np.atleast_1d(x).nonzero(), axis=0))
    # unique(x, sorted, return_index, return_inverse, return_counts[, axis])
    flags = [bool(v) for v in scalars[:4]]
    sort = flags[0] if flags else True
    axis = scalars[4] if len(scalars) > 4 and is_number(scalars[4]) else None
    if any(flags[1:4]):
        # The result is then a tuple, which TVM's reorders when unsorted; no module of the
        # corpus asks for it.
        raise ExecError(f"the executor runs '{name}' for its unique values only (no "
                        "return_index, return_inverse or return_counts)")
    values = np.unique(x, axis=axis)
    if not sort:
        first = np.unique(x, return_index=True, axis=axis)[1]
        values = np.take(x, np.sort(first), axis=axis)
    return ex.backend.from_numpy(np.ascontiguousarray(values))
