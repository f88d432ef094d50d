"""The values a running module holds besides tensors and storages, and how the executor reads
arguments: the one tuple flattener (`leaves_with_paths`), and the checks that turn a value
into a shape, a dtype, an integer or a tensor with a message in words when it is not one."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import ir
from .backend import ExecError, Tensor, numpy_dtype


@dataclass(frozen=True)
class HostObject:
    """An opaque runtime object (a KV cache, a null value, a packed call's object result).
    Equal objects are the same object: verify's input objects are equal across calls (a
    caller passes its KV cache again), and each KV cache a create call makes has its own
    name (numbered in the order made)."""

    name: str


NULL = HostObject("null")


@dataclass(frozen=True)
class FuncRef:
    name: str


@dataclass(frozen=True)
class DType:
    name: str


@dataclass(frozen=True)
class PartialCall:
    """What `R.make_closure(f, (captured...))` makes: `invoke_closure` calls `f` with the
    captured values first (TVM's lambda-lifted closures)."""

    name: str
    captured: tuple


@dataclass(frozen=True, eq=False)
class Closure:
    """A nested Relax function with the vars (and symbolic values) of the function that
    defined it: what TVM's lambda lifting turns into a global function plus captured args.
    `env` is a copy of the enclosing function's vars when it was defined (its body can only
    name those, and they never change): sharing the enclosing dict would make a reference
    cycle (the dict holds the closure), freed only by the garbage collector."""

    function: ir.Function
    env: dict
    syms: dict


def leaves_with_paths(value, path: str = ""):
    """(path, leaf) for each value in `value`, tuples (and a top-level list of arguments)
    flattened, in order: ("[0][1]", tensor). A generator, not a recursive closure: a closure
    that refers to itself is a reference cycle, and what it collected would live until the
    garbage collector runs (a real model's outputs are gigabytes)."""
    if isinstance(value, (tuple, list)):
        for i, v in enumerate(value):
            yield from leaves_with_paths(v, f"{path}[{i}]")
    else:
        yield path, value


def leaves(value):
    """The leaves of `value` in order (leaves_with_paths without the paths)."""
    for _, leaf in leaves_with_paths(value):
        yield leaf


def kernel_values(values: list) -> tuple[list, list, list]:
    """What a kernel launch is given: the tensors (flattened through tuples, in order), the
    scalars (numbers, strings and dtypes, by name), and, for each top-level value that is a
    tensor, its position among the values."""
    tensors: list = []
    scalars: list = []
    for v in leaves(values):
        if isinstance(v, Tensor):
            tensors.append(v)
        elif isinstance(v, (int, float, str, DType)):
            scalars.append(v.name if isinstance(v, DType) else v)
    positions = [i for i, v in enumerate(values) if isinstance(v, Tensor)]
    return tensors, scalars, positions


def is_number(v) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)


def integer(value, what: str) -> int:
    """An integer argument (an offset, an index, a dimension) as a Python int."""
    if isinstance(value, (bool, np.bool_)) or not is_number(value):
        raise ExecError(f"{what} is {describe(value)}, not an integer")
    if isinstance(value, (float, np.floating)):
        if not math.isfinite(value) or value != int(value):
            raise ExecError(f"{what} is {value}, not an integer")
    return int(value)


def as_shape(value, what: str) -> tuple:
    """A shape the executor can allocate: a tuple of non-negative integers."""
    if not isinstance(value, tuple):
        raise ExecError(f"{what} is {describe(value)}, not a shape")
    dims = tuple(integer(d, what) for d in value)
    if any(d < 0 for d in dims):
        raise ExecError(f"{what} {dims} has a negative dimension")
    return dims


def as_dtype(value, what: str) -> str:
    if isinstance(value, DType):
        return value.name
    if isinstance(value, str):  # a dtype written as a bare string literal
        return value
    raise ExecError(f"{what}'s dtype is {describe(value)}, not a dtype")


def as_tensor(value, what: str) -> Tensor:
    if not isinstance(value, Tensor):
        raise ExecError(f"{what} is {describe(value)}, not a tensor")
    return value


def nbytes(t: Tensor) -> int:
    return math.prod(t.shape) * numpy_dtype(t.dtype).itemsize


def describe(value) -> str:
    """What a runtime value is, in words, for messages."""
    if isinstance(value, Tensor):
        return f"a tensor {tuple(value.shape)} {value.dtype}"
    if isinstance(value, tuple):
        return f"a tuple of {len(value)} item(s)"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, (bool, int, float, np.integer, np.floating)):
        return f"the number {value}"
    if isinstance(value, DType):
        return f"the dtype {value.name}"
    if isinstance(value, FuncRef):
        return f"the function '{value.name}'"
    if isinstance(value, HostObject):
        return f"an opaque object ({value.name})"
    if hasattr(value, "nbytes"):
        return f"a storage of {value.nbytes} bytes"
    return f"a {type(value).__name__}"


def allocatable(s) -> bool:
    """Whether a struct info says the shape and dtype of every tensor in it."""
    if isinstance(s, ir.TensorSInfo):
        return s.shape is not None and bool(s.dtype)
    if isinstance(s, ir.TupleSInfo):
        return all(allocatable(f) for f in s.fields)
    return False


def has_tensors(s) -> bool:
    if isinstance(s, ir.TensorSInfo):
        return True
    if isinstance(s, ir.TupleSInfo):
        return any(has_tensors(f) for f in s.fields)
    return False
