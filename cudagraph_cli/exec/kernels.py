"""The kernel library: what each launched kernel computes, on any backend.

A kernel is found by name: a PrimFunc's name, or a packed function's name. Common elementwise
names get their real meaning (`add`, `exp`, ...); every other kernel gets a deterministic
synthetic meaning that mixes all its inputs into its outputs, so that any module runs and
any stale or overwritten input shows in the outputs. docs/EXECUTOR.md gives the formula; the
CUDA backend implements the same kernels in CUDA C.

Which arguments a kernel writes: for a PrimFunc, the buffers its TIR body stores to (found
in the body's text: `B[...] = ...`, following `T.match_buffer`), else its last argument; for
a packed function that returns nothing, its last tensor argument (destination-passing style);
for one that returns tensors, fresh tensors of the declared struct info.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass

import numpy as np

from .. import ir

# name -> (number of inputs, numpy function of the inputs); the output is the last argument.
ELEMENTWISE = {
    "add": (2, np.add),
    "subtract": (2, np.subtract),
    "multiply": (2, np.multiply),
    "divide": (2, np.divide),
    "maximum": (2, np.maximum),
    "minimum": (2, np.minimum),
    "add_one": (1, lambda x: x + np.asarray(1, dtype=x.dtype)),
    "exp": (1, np.exp),
    "relu": (1, lambda x: np.maximum(x, np.asarray(0, dtype=x.dtype))),
    "negative": (1, np.negative),
    "tanh": (1, np.tanh),
    "sqrt": (1, np.sqrt),
    "sigmoid": (1, lambda x: np.asarray(1, dtype=x.dtype) / (np.asarray(1, dtype=x.dtype)
                                                             + np.exp(-x))),
    "copy": (1, lambda x: x),
    "identity": (1, lambda x: x),
}


@dataclass(frozen=True)
class KernelSpec:
    """How to launch one kernel: its name, which arguments it writes, its semantics."""

    name: str
    outputs: tuple  # indices (into the flattened tensor arguments) written by the kernel
    builtin: str | None  # an ELEMENTWISE name, or None for the synthetic kernel

    @property
    def salt(self) -> int:
        return zlib.crc32(self.name.encode()) & 0xFFFF


_STORE_RE = re.compile(r"^\s*([A-Za-z_]\w*)\s*\[[^\n]*\]\s*=(?!=)", re.MULTILINE)
_MATCH_RE = re.compile(r"^\s*([A-Za-z_]\w*)\s*=\s*T\.match_buffer\(\s*([A-Za-z_]\w*)",
                       re.MULTILINE)


def prim_func_outputs(f: ir.PrimFunc) -> tuple:
    """Indices of the parameters a PrimFunc writes (from its TIR body's buffer stores)."""
    names = [p.name for p in f.params]
    alias = {buf: handle for buf, handle in _MATCH_RE.findall(f.body)}
    written = []
    for target in _STORE_RE.findall(f.body):
        param = alias.get(target, target)
        if param in names and names.index(param) not in written:
            written.append(names.index(param))
    if not written and names:
        written = [len(names) - 1]
    return tuple(sorted(written))


def prim_func_spec(f: ir.PrimFunc) -> KernelSpec:
    outputs = prim_func_outputs(f)
    builtin = None
    if f.name in ELEMENTWISE:
        n_in, _ = ELEMENTWISE[f.name]
        if len(f.params) == n_in + 1 and outputs == (n_in,):
            builtin = f.name
    return KernelSpec(f.name, outputs, builtin)


def packed_spec(name: str, n_tensors: int) -> KernelSpec:
    """A packed call in destination-passing style: its last tensor argument is written."""
    builtin = None
    if name in ELEMENTWISE and ELEMENTWISE[name][0] + 1 == n_tensors:
        builtin = name
    return KernelSpec(name, (n_tensors - 1,) if n_tensors else (), builtin)


# ---- the semantics, on NumPy arrays (the reference) ---------------------------------------

_ARANGE: dict[int, np.ndarray] = {}
_BASE: dict[tuple, np.ndarray] = {}


def _arange(n: int) -> np.ndarray:
    a = _ARANGE.get(n)
    if a is None:
        a = _ARANGE[n] = np.arange(n, dtype=np.uint32)
    return a


def _base(m: int, c: int) -> np.ndarray:
    """(17 j + c) mod 256 for j < m, as bytes (cached: kernels repeat their sizes)."""
    key = (m, c & 0xFF)
    b = _BASE.get(key)
    if b is None:
        b = _BASE[key] = ((_arange(m) * np.uint32(17) + np.uint32(c & 0xFF)) & 0xFF).astype(
            np.uint8)
    return b


def scalar_salt(values: list) -> int:
    """Non-tensor arguments (ints, strings, dtypes, shapes) enter the mix through a hash."""
    if not values:
        return 0
    return zlib.crc32(repr(values).encode()) & 0xFFFF


def synthetic(salt: int, inputs: list, outputs: list) -> None:
    """out_t[j] = (salt + 101 t + 17 j + sum_k (2k + 3) in_k[j mod len(in_k)]) mod 256, over the
    bytes of each tensor (inputs read before any output is written). Computed in bytes, which
    wrap modulo 256 as the formula does."""
    views = [_bytes(out) for out in outputs]
    m_max = max((v.size for v in views), default=0)
    # Copy what is read (at most the largest output's size of each input) before writing:
    # an input may share memory with an output.
    raw_inputs = []
    for a in inputs:
        flat = _bytes(a)
        raw_inputs.append((flat[:m_max].copy(), flat.size))
    for t, view in enumerate(views):
        m = view.size
        if m == 0:
            continue
        acc = _base(m, salt + 101 * t).copy()
        for k, (raw, n) in enumerate(raw_inputs):
            if n == 0:
                continue
            part = raw[:m] if n >= m else raw[_arange(m) % np.uint32(n)]
            acc += part * np.uint8(2 * k + 3)
        view[...] = acc


def _bytes(a: np.ndarray) -> np.ndarray:
    """The bytes of a contiguous array, as a flat uint8 view (no copy)."""
    return a.reshape(-1).view(np.uint8)


def elementwise(name: str, inputs: list, output: np.ndarray) -> None:
    _, fn = ELEMENTWISE[name]
    with np.errstate(all="ignore"):
        result = fn(*inputs)
    output[...] = np.asarray(result).astype(output.dtype, copy=False)


def run_numpy(spec: KernelSpec, tensors: list, scalars: list) -> None:
    """Run a kernel on NumPy arrays: `tensors` are all its tensor arguments, in order."""
    outputs = [tensors[i] for i in spec.outputs]
    inputs = [t for i, t in enumerate(tensors) if i not in spec.outputs]
    if spec.builtin is not None and len(outputs) == 1:
        elementwise(spec.builtin, inputs, outputs[0])
    else:
        synthetic(spec.salt ^ scalar_salt(scalars), inputs, outputs)
