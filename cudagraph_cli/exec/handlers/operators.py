"""Relax operators: those TVM leaves in a module between memory planning and its lowering to
VM builtins (docs/EXECUTOR.md lists them), the VM builtins they are lowered to when a module
calls those by name, and any other operator (`R.add`, `R.matmul`, ...), which runs as a
kernel."""

from __future__ import annotations

import math
from functools import partial

import numpy as np

from ... import ir
from ..backend import ExecError, Tensor
from ..kernels import ELEMENTWISE, KernelSpec
from ..launches import cached_spec, kernel_arguments, launch_prim
from ..registry import ANY, FunctionCall, OpCall, function, operator
from ..values import (NULL, Closure, FuncRef, PartialCall, allocatable, as_dtype, as_shape,
                      as_tensor, describe, has_tensors, integer, kernel_values)


# ---- views -------------------------------------------------------------------------------
# Each result shares the bytes of its first argument (ir.memory_call's `aliased`): the names
# each view is called by are ir/memory.py's.

def reshape(ex, x, shape, what: str) -> Tensor:
    """A view of the same bytes with another shape, as TVM's vm.builtin.reshape."""
    x = as_tensor(x, f"{what}'s data")
    if isinstance(shape, Tensor):
        raise ExecError(f"{what}'s shape is a tensor, not a shape")
    shape = as_shape(shape, f"{what}'s shape")
    if math.prod(shape) != math.prod(x.shape):
        raise ExecError(f"{what} of a tensor {tuple(x.shape)} ({math.prod(x.shape)} "
                        f"elements) to {shape} ({math.prod(shape)} elements)")
    return ex.backend.tensor_view(x, 0, shape, x.dtype)


@operator(*ir.spellings(ir.RESHAPE), params=("x", "shape"))
def relax_reshape(ex, call: OpCall):
    return reshape(ex, *call.values, "R.reshape")


@function(*ir.spellings(ir.RESHAPE, packed=True), arity=2)
def vm_reshape(ex, call: FunctionCall):
    return reshape(ex, *call.values, call.name)


@operator(*ir.spellings(ir.VIEW), params=("data", "shape=", "dtype=", "relative_byte_offset="))
def memory_view(ex, call: OpCall) -> Tensor:
    """R.memory.view: shape, dtype and byte offset relative to `x`, each defaulting to
    `x`'s own; the view may not reach past `x`'s bytes."""
    x, shape, dtype, offset = call.values
    x = as_tensor(x, "R.memory.view's data")
    shape = tuple(x.shape) if shape is None else as_shape(shape, "R.memory.view's shape")
    dtype = x.dtype if dtype is None else as_dtype(dtype, "R.memory.view")
    offset = 0 if offset is None else integer(offset, "R.memory.view's byte offset")
    return ex.backend.tensor_view(x, offset, shape, dtype)


@operator(*ir.spellings(ir.ZERO_OFFSET), params=("data",))
def ensure_zero_offset(ex, call: OpCall):
    return as_tensor(call.values[0], "ensure_zero_offset's argument")


@function(*ir.spellings(ir.ZERO_OFFSET, packed=True), arity=1)
def vm_ensure_zero_offset(ex, call: FunctionCall):
    return as_tensor(call.values[0], f"{call.name}'s argument")


@operator("relax.shape_of", params=("expr",))
def shape_of(ex, call: OpCall):
    return tuple(as_tensor(call.values[0], "shape_of's argument").shape)


@function("vm.builtin.shape_of", arity=1)
def vm_shape_of(ex, call: FunctionCall):
    return tuple(as_tensor(call.values[0], f"{call.name}'s argument").shape)


@operator("relax.tensor_to_shape", params=("expr",))
def tensor_to_shape(ex, call: OpCall):
    value = call.values[0]
    arr = ex.backend.to_numpy(as_tensor(value, "tensor_to_shape's argument"))
    if arr.ndim != 1 or arr.dtype.kind not in "iu":
        raise ExecError(f"tensor_to_shape takes a 1-D integer tensor, not {describe(value)}")
    return tuple(int(v) for v in arr)


@operator("relax.null_value")
def null_value(ex, call: OpCall):
    return NULL


@function("vm.builtin.null_value", arity=0)
def vm_null_value(ex, call: FunctionCall):
    return NULL


@operator("relax.builtin.stop_lift_params", "relax.stop_lift_params", params=("x",))
def stop_lift_params(ex, call: OpCall):
    return call.values[0]


@operator("relax.print")
def relax_print(ex, call: OpCall):
    return ()  # R.print(*values, format=...): the executor prints nothing


@operator("relax.assert_op", params=("condition", "format_args=", "format="))
def assert_op(ex, call: OpCall):
    condition, _, text = call.values
    if not ex.condition(condition):
        text = text if isinstance(text, str) else ""
        raise ExecError(f"R.assert_op failed{': ' + text if text else ''}")
    return ()


@operator("relax.to_vdevice", min_args=1)
def to_vdevice(ex, call: OpCall) -> Tensor:
    """R.to_vdevice(x, dst_vdevice=...): a copy of x's bytes into a new tensor, as TVM's
    runtime copies between devices. The executor has one device, so host and device
    copies are the same copy; what the program can tell apart (a new tensor, x unchanged
    by later writes to it and the other way round) is kept. Inside a capture (TVM's pass
    lifts a copy whose input is static) the copy is part of the graph: each replay copies
    again into the tensor the capture made."""
    x = as_tensor(ex.eval(call.args[0], call.env, call.syms), "R.to_vdevice's data")
    ex.backend.site = ex.binding_loc
    return ex.backend.copy(x)


# ---- calls of functions held as values -----------------------------------------------------

@operator("relax.vm.call_tir_dyn", params=("func", "args"))
def call_tir_dyn(ex, call: OpCall) -> tuple:
    """R.vm.call_tir_dyn(f, (tensors..., shape)): f launched on the tensors, then each
    value of the trailing shape as a scalar (TVM's vm.builtin.call_tir_dyn)."""
    func, args = call.values
    if not isinstance(func, FuncRef) or not isinstance(ex.functions.get(func.name),
                                                       ir.PrimFunc):
        raise ExecError(f"call_tir_dyn calls {describe(func)}, not a PrimFunc of the module")
    if not isinstance(args, tuple) or not args or not isinstance(args[-1], tuple):
        raise ExecError("call_tir_dyn's arguments are not a tuple ending with a shape")
    launch_prim(ex, ex.functions[func.name], list(args[:-1]) + list(args[-1]))
    return ()


@operator("relax.make_closure", params=("func", "args"))
def make_closure(ex, call: OpCall):
    func, captured = call.values
    if not isinstance(func, FuncRef) or not isinstance(captured, tuple):
        raise ExecError("make_closure takes a module function and a tuple")
    return PartialCall(func.name, captured)


@operator("relax.invoke_closure", "relax.invoke_pure_closure", params=("closure", "args"))
def invoke_closure(ex, call: OpCall):
    target, call_args = call.values
    if not isinstance(call_args, tuple):
        raise ExecError(f"{call.name}'s arguments are {describe(call_args)}, not a tuple")
    if isinstance(target, PartialCall):
        return ex.call_global(target.name, list(target.captured + call_args))
    if isinstance(target, Closure):
        return ex.call_closure(target, list(call_args))
    if isinstance(target, FuncRef):
        return ex.call_global(target.name, list(call_args))
    raise ExecError(f"{call.name} calls {describe(target)}, not a closure")


# ---- operators not executed ----------------------------------------------------------------

def refuse(reason: str, ex, call: OpCall):
    raise ExecError(f"operator '{call.name}' is not executed by the executor: {reason}")


for _name, _reason in (
        ("relax.hint_on_device", "it places data on a device, and the executor has one"),
        ("relax.call_py_func", "it calls a Python function the module does not contain"),
        ("relax.nonzero", "its result's shape depends on the data (relax.run.nonzero)"),
        ("relax.unique", "its result's shape depends on the data (relax.run.unique)"),
        ("relax.call_inplace_packed", "which arguments it writes is known only to its function"),
        ("relax.call_tir_inplace", "TVM lowers it before memory planning (CallTIRRewrite)"),
        ("relax.call_tir_with_grad", "TVM lowers it before memory planning (CallTIRRewrite)"),
        ("relax.wrap_param", "TVM removes it before memory planning")):
    operator(_name)(partial(refuse, _reason))


# ---- any other operator: a kernel ----------------------------------------------------------

@operator(ANY)
def run_as_kernel(ex, call: OpCall, builtin: str | None = None):
    """Any other operator (`R.add`, `R.matmul`, ...: a module before LegalizeOps, or TVM's
    own pass tests) runs as a kernel launch, as LegalizeOps would make it one: it reads its
    tensor arguments and writes a result in fresh memory, allocated from the struct info
    of the var it is bound to (for an elementwise operator written without one, from its
    inputs). A known elementwise operator (`builtin`: the kernel of its meaning,
    exec/kernels.py) computes it, any other the synthetic kernel; its other arguments and
    attributes salt it."""
    name, env, syms = call.name, call.env, call.syms
    values = [ex.eval(a, env, syms) for a in call.args]
    tensors, scalars = kernel_arguments(ex, f"operator '{name}'", values, objects=False)
    scalars += [f"{k}={a.value!r}" if isinstance(a, ir.Literal) else
                f"{k}={ex.eval(a, env, syms)!r}" for k, a in call.node.attrs]
    result, sinfo_args = call.result, call.node.sinfo_args
    out_sinfo = result if allocatable(result) else \
        sinfo_args[0] if sinfo_args and allocatable(sinfo_args[0]) else None
    if out_sinfo is None and builtin is not None:
        out_sinfo = elementwise_result(tensors)
    if out_sinfo is None:
        raise ExecError(f"operator '{name}': the shape and dtype of its result are not "
                        "known (its binding carries no struct info, as TVM prints it)")
    if not has_tensors(out_sinfo):
        raise ExecError(f"operator '{name}' returns no tensor: the executor runs an operator "
                        "as a kernel that writes its result")
    outs = ex.alloc_like(out_sinfo, syms)
    flat, _, _ = kernel_values([outs])
    n_in = len(tensors)

    def make() -> KernelSpec:
        fits = builtin is not None and ELEMENTWISE[builtin][0] == n_in and len(flat) == 1
        return KernelSpec(name, tuple(range(n_in, n_in + len(flat))),
                          builtin if fits else None)

    spec = cached_spec(ex, ("operator", name, n_in, len(flat)), make)
    ex.launch(spec, tensors + flat, scalars)
    return outs


# The operators that run as the elementwise kernel of the same meaning (exec/kernels.py).
for _name, _kernel in (
        ("relax.add", "add"), ("relax.subtract", "subtract"), ("relax.multiply", "multiply"),
        ("relax.divide", "divide"), ("relax.maximum", "maximum"), ("relax.minimum", "minimum"),
        ("relax.exp", "exp"), ("relax.nn.relu", "relu"), ("relax.negative", "negative"),
        ("relax.tanh", "tanh"), ("relax.sqrt", "sqrt"), ("relax.sigmoid", "sigmoid")):
    operator(_name)(partial(run_as_kernel, builtin=_kernel))


def elementwise_result(tensors: list):
    """An elementwise operator's result: its inputs' shapes broadcast (NumPy's rule, which
    Relax's is), their one dtype; None when they have none or disagree."""
    if not tensors or len({t.dtype for t in tensors}) != 1:
        return None
    try:
        shape = np.broadcast_shapes(*[tuple(t.shape) for t in tensors])
    except ValueError:
        return None
    return ir.TensorSInfo(tuple(ir.IntImm(d, "int64") for d in shape), tensors[0].dtype,
                          len(shape))
