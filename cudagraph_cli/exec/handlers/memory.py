"""Memory: storages, tensors in them, and their release.

`R.memory.alloc_storage` makes a storage (bytes on the backend), `R.memory.alloc_tensor` a view
of one at a byte offset (views of one storage share bytes), `R.builtin.alloc_tensor` a tensor
in fresh memory; `R.memory.kill_*` releases. `R.vm.*` are the same after TVM's lowering, with
the alloc_storage's parameters in another order. Which names each construct has, the order of
their parameters and what a call aliases or releases are ir.memory_call's (ir/memory.py)."""

from __future__ import annotations

import math
import weakref

from ... import ir
from ..backend import ExecError, check_alloc_size, numpy_dtype
from ..registry import OpCall, operator
from ..values import DType, as_dtype, as_shape, describe, integer


class Memory:
    """What the memory handlers keep (Executor.state)."""

    def __init__(self):
        self.in_elements: bool | None = None  # storages_sized_in_elements, once asked
        # In such a module: each storage's size as declared, and its dtype.
        self.declared: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def memory_of(ex) -> Memory:
    memory = ex.state(Memory)
    if memory.in_elements is None:
        memory.in_elements = storages_sized_in_elements(ex.module)
    return memory


@operator(*ir.spellings(ir.ALLOC_STORAGE), min_args=1)
def alloc_storage(ex, call: OpCall):
    # The parameters' order differs between the spellings: ir.memory_call knows it.
    memory = ir.memory_call(call.node)
    size = as_shape(ex.eval(memory.arg("size"), call.env, call.syms), "alloc_storage's size")
    given = memory.arg("dtype")
    dtype = ex.eval(given, call.env, call.syms) if given is not None else None
    return new_storage(ex, math.prod(size), dtype)


def new_storage(ex, size: int, dtype):
    """A storage of `size` bytes; in a module that sizes storages in elements, of `size`
    elements of its dtype (a warning says so where a tensor needs the difference)."""
    memory = memory_of(ex)
    itemsize = 1
    if memory.in_elements and isinstance(dtype, (DType, str)):
        itemsize = numpy_dtype(as_dtype(dtype, "alloc_storage")).itemsize
    storage = ex.backend.alloc_storage(check_alloc_size(size * itemsize, "a storage"))
    if itemsize > 1:
        memory.declared[storage] = (size, as_dtype(dtype, "alloc_storage"))
    return storage


@operator(*ir.spellings(ir.ALLOC_TENSOR), min_args=4)
def alloc_tensor(ex, call: OpCall):
    memory, env, syms = ir.memory_call(call.node), call.env, call.syms
    storage = ex.eval(memory.aliased, env, syms)  # the tensor is bytes of this storage
    if not ex.backend.is_storage(storage):
        raise ExecError(f"alloc_tensor's first argument is {describe(storage)}, not a storage")
    offset = integer(ex.eval(memory.arg("offset"), env, syms), "alloc_tensor's offset")
    shape = as_shape(ex.eval(memory.arg("shape"), env, syms), "alloc_tensor's shape")
    dtype = as_dtype(ex.eval(memory.arg("dtype"), env, syms), "alloc_tensor")
    nbytes = math.prod(shape) * numpy_dtype(dtype).itemsize
    check_alloc_size(nbytes, "a tensor")
    declared = memory_of(ex).declared.get(storage)
    if declared is not None and 0 <= offset and offset + nbytes > declared[0] and \
            offset + nbytes <= storage.nbytes:
        ex.warn(f"a tensor of {nbytes} bytes at offset {offset} does not fit its "
                f"storage of {declared[0]} bytes; run with the storage grown to "
                f"{storage.nbytes} bytes ({declared[0]} {declared[1]} elements): "
                "this module sizes its storages in elements, as TVM's own test "
                "modules do")
    return ex.backend.view(storage, offset, shape, dtype)


@operator("relax.builtin.alloc_tensor", min_args=2)
def builtin_alloc_tensor(ex, call: OpCall):
    shape = as_shape(ex.eval(call.args[0], call.env, call.syms), "alloc_tensor's shape")
    dtype = as_dtype(ex.eval(call.args[1], call.env, call.syms), "alloc_tensor")
    check_alloc_size(math.prod(shape) * numpy_dtype(dtype).itemsize, "a tensor")
    return ex.backend.alloc_tensor(shape, dtype)


@operator(*ir.spellings(ir.KILL), min_args=1)
def kill(ex, call: OpCall):
    ex.backend.free(ex.eval(ir.memory_call(call.node).released, call.env, call.syms))
    return ()


def storages_sized_in_elements(module: ir.Module) -> bool:
    """Whether the module sizes storages in elements of their dtype, not in bytes (read
    alone: verify reads both of its modules in the original's unit, `read_storages_as`)."""
    return element_sized_witness(module) is not None


def read_storages_as(original: ir.Module, *executors) -> bool:
    """The one unit of a verify: storages sized as the original sizes them, for both
    modules. A rewrite's storage that holds N elements where the original's sizes are in
    bytes is short, not another convention (a shape difference, proof/facts.py); and a
    rewrite of a module sized in elements is read in elements, whatever sizes it writes."""
    in_elements = storages_sized_in_elements(original)
    for ex in executors:
        ex.state(Memory).in_elements = in_elements
    return in_elements


def element_sized_witness(module: ir.Module) -> tuple | None:
    """(function, the alloc_tensor binding, N, dtype) that shows the module sizes storages in
    elements, or None: some storage of a constant size N holds, at offset 0, a tensor of
    exactly N elements wider than a byte. TVM's own test modules are written so
    (`alloc_storage(R.shape([8]), ..., "float32")` for 8 float32 values); a module that does
    it once is read so throughout."""
    sizes: dict[ir.Var, tuple] = {}  # var -> (N,), or a tuple of those for get_cached_alloc
    returned: dict[str, tuple] = {}  # function -> sizes of the storages it returns

    def scan(f: ir.Function):
        for block in f.blocks:
            for b in block.bindings:
                v = b.value
                if not isinstance(v, ir.Call):
                    s = _size_of(v, sizes)
                    if s is not None:
                        sizes[b.var] = s
                    continue
                op = v.op.name if isinstance(v.op, ir.Op) else None
                cached = ir.CachedAlloc.of(v)
                if op == "relax.memory.alloc_storage" and ir.storage_size(v) is not None:
                    sizes[b.var] = (ir.storage_size(v),)
                elif cached is not None and cached.function_name is not None:
                    got = returned.get(cached.function_name)
                    if got is not None:
                        sizes[b.var] = got
                elif op == "relax.memory.alloc_tensor" and len(v.args) >= 4:
                    found = _elements_of(v, sizes)
                    if found is not None:
                        return (f.name, b) + found
        s = _size_of(f.body, sizes)
        if isinstance(s, tuple) and s and isinstance(s[0], tuple):
            returned[f.name] = s
        return None

    functions = module.relax_functions()
    # Allocation functions first: the functions that call get_cached_alloc read their sizes.
    for f in sorted(functions, key=lambda f: not f.is_private):
        found = scan(f)
        if found is not None:
            return found
    return None


def _elements_of(v: ir.Call, sizes: dict) -> tuple | None:
    """(N, dtype) when alloc_tensor `v` places exactly N elements wider than a byte at offset
    0 of a storage of constant size N, else None."""
    n = _size_of(v.args[0], sizes)
    shape = v.args[2]
    if not (isinstance(n, tuple) and len(n) == 1 and isinstance(n[0], int)
            and ir.literal_int(v.args[1]) == 0 and isinstance(shape, ir.ShapeExpr)
            and all(isinstance(d, ir.IntImm) for d in shape.values)):
        return None
    dtype = v.args[3]
    name = dtype.value if isinstance(dtype, (ir.DataTypeImm, ir.Literal)) else None
    try:
        wide = isinstance(name, str) and numpy_dtype(name).itemsize > 1
    except ExecError:
        wide = False
    if wide and math.prod(d.value for d in shape.values) == n[0]:
        return n[0], name
    return None


def _size_of(e, sizes: dict):
    """The constant size of the storage (or the tuple of those) `e` names, else None. A
    module-level function: a recursive closure would be a reference cycle."""
    if isinstance(e, ir.Var):
        return sizes.get(e)
    if isinstance(e, ir.TupleGetItem):
        t = _size_of(e.tuple_value, sizes)
        if isinstance(t, tuple) and t and isinstance(t[0], tuple) and 0 <= e.index < len(t):
            return t[e.index]
    if isinstance(e, ir.Tuple):
        return tuple(_size_of(f, sizes) or () for f in e.fields)
    return None
