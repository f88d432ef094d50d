"""KV caches: the stateful builtins of TVM's runtime (src/runtime/vm/lm_support.cc and
paged_kv_cache.cc), with each cache's contents kept across calls as TVM keeps them: what an
append writes is what a later view or attention reads (bytes and terms alike: the copies and
the attention kernel run on the backend)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ... import ir
from ..backend import ExecError, Tensor, check_alloc_size, numpy_dtype
from ..kernels import KernelSpec
from ..launches import note_vm_builtin
from ..registry import FunctionCall, function
from ..values import HostObject, as_shape, as_tensor, describe, integer, is_number, nbytes

# The kernel that folds a qkv appended to a paged cache's layer into the layer's digest.
PAGED_KV_APPEND = "vm.builtin.paged_kv_cache_append"


@dataclass(eq=False)
class CacheState:
    """What a KV-cache object holds across calls: its storage on the backend, its capacity and
    how many bytes of it are filled (nn.KVCache: rows of `row_bytes`; a paged cache: one such
    state per layer, holding the digest of the `qkv` tensors appended to it)."""

    storage: object
    capacity: int  # bytes
    filled: int = 0  # bytes
    dtype: str = "uint8"
    row_bytes: int = 1


class KvCaches:
    """The caches of one executor (Executor.state): object -> CacheState, or (object, layer)
    -> CacheState for a paged cache; the objects made by a call, numbered in order."""

    def __init__(self):
        self.states: dict = {}
        self.made = 0

    def new_object(self, what: str) -> HostObject:
        self.made += 1
        return HostObject(f"{what} #{self.made}")


def cache_object(call: FunctionCall) -> HostObject:
    cache = call.values[0]
    if not isinstance(cache, HostObject) or cache.name == "null":
        raise ExecError(f"'{call.name}' is given {describe(cache)}, not a KV cache")
    return cache


@function("vm.builtin.paged_attention_kv_cache_create")
def paged_create(ex, call: FunctionCall):
    note_vm_builtin(ex, call.name)
    return ex.state(KvCaches).new_object("paged_kv_cache")


@function("vm.builtin.attention_kv_cache_create", arity=3)
def create(ex, call: FunctionCall):
    """TVM: the reserved storage, `init` appended, then the fill count set."""
    note_vm_builtin(ex, call.name)
    name, values = call.name, call.values
    init = as_tensor(values[0], f"{name}'s initial data")
    reserve = as_shape(values[1], f"{name}'s reserved shape")
    fill = integer(values[2], f"{name}'s fill count")
    cache = ex.state(KvCaches).new_object("kv_cache")
    state = new_state(ex, cache, init, reserve)
    write(ex, cache, state, init, append=True)
    if fill >= 0:
        state.filled = fill * state.row_bytes
    return cache


@function("vm.builtin.attention_kv_cache_attention_with_fused_qkv", arity=5)
def attention_with_fused_qkv(ex, call: FunctionCall):
    """(cache, layer, sm_scale, qkv, output): the layer's K and V are appended (the whole qkv,
    of which they are a part), then attention reads every one appended.

    What the layer holds is kept as its digest, not as every qkv appended: each append makes
    a new digest from the last and the qkv (a kernel of its own, its output as long as the
    longer of the two, so every byte of both reaches it), and attention reads the qkv and the
    digest. Its output depends on every qkv appended before, in order, in bytes and in terms
    (the digest's term is the chain of appends), as TVM's does on the cache; the executor
    holds one digest a layer, not the history (MLC-LLM's largest shapes append gigabytes over
    a run)."""
    note_vm_builtin(ex, call.name)
    name, values = call.name, call.values
    cache = cache_object(call)
    layer = integer(values[1], f"{name}'s layer")
    qkv = as_tensor(values[3], f"{name}'s qkv")
    out = as_tensor(values[4], f"{name}'s output")
    states = ex.state(KvCaches).states
    state = states.get((cache, layer))
    held = [] if state is None else [ex.backend.view(state.storage, 0, (state.filled,), "uint8")]
    size = max(nbytes(qkv), 1, state.filled if state else 0)
    digest = ex.backend.view(ex.backend.alloc_storage(size), 0, (size,), "uint8")
    ex.launch(KernelSpec(PAGED_KV_APPEND, (len(held) + 1,), None, False),
              [*held, qkv, digest], [layer, f"object {cache.name}"])
    states[(cache, layer)] = CacheState(digest.storage, size, size, "uint8")
    scalars = [layer] + ([values[2]] if is_number(values[2]) else [])
    ex.launch(KernelSpec(name, (2,), None, True), [qkv, digest, out],
              scalars + [f"object {cache.name}"])
    return HostObject(f"{name}()")


@function("vm.builtin.attention_kv_cache_view", arity=2)
def view(ex, call: FunctionCall):
    note_vm_builtin(ex, call.name)
    name = call.name
    cache = cache_object(call)
    shape = as_shape(call.values[1], f"{name}'s shape")
    state = ex.state(KvCaches).states.get(cache)
    if state is None:  # a cache the caller passed, viewed before any append
        ret = call.sinfo_args[0] if call.sinfo_args else None
        dtype = ret.dtype if isinstance(ret, ir.TensorSInfo) and ret.dtype else None
        if dtype is None:
            raise ExecError(f"'{name}' views {describe(cache)}, which nothing appended "
                            "to, with no tensor struct info to say its dtype")
        like = Tensor(np.zeros(0, numpy_dtype(dtype)))
        state = new_state(ex, cache, like, shape)
    need = math.prod(shape) * numpy_dtype(state.dtype).itemsize
    if need > state.capacity:
        grow(ex, cache, state, need)
    return ex.backend.view(state.storage, 0, shape, state.dtype)


@function("vm.builtin.attention_kv_cache_append", "vm.builtin.attention_kv_cache_update",
          arity=2)
def append_or_update(ex, call: FunctionCall):
    note_vm_builtin(ex, call.name)
    cache = cache_object(call)
    value = as_tensor(call.values[1], f"{call.name}'s value")
    state = ex.state(KvCaches).states.get(cache)
    if state is None:  # a cache the caller passed: what it held before is its own term
        state = new_state(ex, cache, value, tuple(value.shape))
    write(ex, cache, state, value, append=call.name == "vm.builtin.attention_kv_cache_append")
    return cache


def new_state(ex, cache: HostObject, like: Tensor, reserve: tuple) -> CacheState:
    item = numpy_dtype(like.dtype).itemsize
    size = max(check_alloc_size(math.prod(reserve) * item, "a KV cache"), 1)
    state = ex.state(KvCaches).states[cache] = CacheState(None, 0, 0, like.dtype,
                                                          math.prod(reserve[1:]) * item)
    grow(ex, cache, state, size)
    return state


def grow(ex, cache: HostObject, state: CacheState, need: int) -> None:
    """At least `need` bytes of capacity (doubling, as TVM's runtime grows a cache): the
    old bytes copied, the new ones the cache's prior contents -- a deterministic kernel
    of the object's name and the offset, so that a view past what was appended reads
    written bytes, the same on every backend, and the same terms in both modules."""
    if need <= state.capacity and state.storage is not None and state.capacity:
        return
    capacity = max(2 * state.capacity, need)
    grown = ex.backend.alloc_storage(check_alloc_size(capacity, "a KV cache"))
    ex.backend.site = ex.binding_loc
    if state.capacity:
        ex.backend.copy_into(ex.backend.view(state.storage, 0, (state.capacity,), "uint8"),
                             ex.backend.view(grown, 0, (state.capacity,), "uint8"))
    tail = ex.backend.view(grown, state.capacity, (capacity - state.capacity,), "uint8")
    ex.launch(KernelSpec("vm.builtin.kv_cache_prior_contents", (0,), None, False),
              [tail], [cache.name, state.capacity])
    state.storage, state.capacity = grown, capacity


def write(ex, cache: HostObject, state: CacheState, value: Tensor, append: bool) -> None:
    """`value`'s bytes after the filled ones (append), or from the start (update)."""
    n = nbytes(value)
    at = state.filled if append else 0
    if at + n > state.capacity:
        grow(ex, cache, state, at + n)
    if n:
        ex.backend.site = ex.binding_loc
        ex.backend.copy_into(value, ex.backend.view(state.storage, at, tuple(value.shape),
                                                    value.dtype))
    state.filled = at + n
