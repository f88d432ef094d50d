"""The kernel library: what each launched kernel computes, on any backend.

A kernel is found by name: a PrimFunc's name, or a packed function's name. Common elementwise
names get their real meaning (`add`, `exp`, ...); every other kernel gets a deterministic
synthetic meaning that mixes all its inputs into its outputs, so that any module runs and
any stale or overwritten input shows in the outputs. docs/EXECUTOR.md gives the formula; the
CUDA backend implements the same kernels in CUDA C.

Which arguments a kernel writes: for a PrimFunc, the buffers its TIR body stores to (found
by the TIR reader: `B[...] = ...`, following `T.match_buffer`), else its last argument that
is not a scalar, plus its workspaces (exec/launches.py: a 1-D uint8 argument the body does
not read, which the kernel writes before it reads, as TVM's scratch buffers are); for
a packed function that returns nothing, its last tensor argument (destination-passing style);
for one that returns tensors, fresh tensors of the declared struct info.
"""

from __future__ import annotations

import functools
import math
import zlib
from dataclasses import dataclass

import numpy as np

from .. import ir
from ..text.tir_reader import read as read_tir

# name -> (number of inputs, function on float64 arrays, transcendental); the output is the
# last argument. The same table is written in CUDA C in cuda/kernels.cu.
def _maximum(a, b):
    return np.where(np.isnan(a), a, np.where(np.isnan(b), b, np.where(a >= b, a, b)))


def _minimum(a, b):
    return np.where(np.isnan(a), a, np.where(np.isnan(b), b, np.where(a <= b, a, b)))


ELEMENTWISE = {
    "add": (2, lambda a, b: a + b, False),
    "subtract": (2, lambda a, b: a - b, False),
    "multiply": (2, lambda a, b: a * b, False),
    "divide": (2, lambda a, b: a / b, False),
    "maximum": (2, _maximum, False),
    "minimum": (2, _minimum, False),
    "add_one": (1, lambda x: x + 1.0, False),
    "exp": (1, np.exp, True),
    "relu": (1, lambda x: _maximum(x, np.zeros_like(x)), False),
    "negative": (1, lambda x: -x, False),
    "tanh": (1, np.tanh, True),
    "sqrt": (1, np.sqrt, False),
    "sigmoid": (1, lambda x: 1.0 / (1.0 + np.exp(-x)), True),
    "copy": (1, lambda x: x, False),
    "identity": (1, lambda x: x, False),
}

# Elementwise kernels have their real meaning on these dtypes; on any other they are synthetic.
FLOAT_DTYPES = ("float16", "float32", "float64")


@dataclass(frozen=True)
class KernelSpec:
    """How to launch one kernel: its name, which arguments it writes, its semantics."""

    name: str
    outputs: tuple  # indices (into the flattened tensor arguments) written by the kernel
    builtin: str | None  # an ELEMENTWISE name, or None for the synthetic kernel
    # What it reads is not known: a packed function, or a PrimFunc whose body reads no
    # buffer by name (an extern call, or a stub such as TVM's test modules' `T.evaluate(0)`).
    opaque: bool = False

    @property
    def salt(self) -> int:
        return zlib.crc32(self.name.encode()) & 0xFFFF


def prim_func_outputs(f: ir.PrimFunc) -> tuple:
    """Indices of the parameters a PrimFunc writes (its TIR body's buffer stores, read by
    text/tir_reader.py, through match_buffer too)."""
    names = [p.name for p in f.params]
    stored = read_tir(f).stores()
    written = [i for i, name in enumerate(names) if name in stored]
    if not written:
        # An opaque body (an extern call, or a stub such as `T.evaluate(0)`): the last
        # parameter that can hold memory, by destination passing (the scalars of
        # `R.vm.call_tir_dyn` come after the buffers).
        memory = [i for i, p in enumerate(f.params) if p.kind != "scalar"]
        if memory:
            written = [memory[-1]]
    return tuple(written)


def prim_func_loads(f: ir.PrimFunc) -> tuple:
    """Indices of the parameters whose buffers the TIR body reads by name (a load anywhere,
    a declared region `T.reads(A[...])` / `T.writes(A[...])` or a matched region included).
    An opaque body reads none that way: what it passes to an extern call (`A.data`) is not
    counted."""
    loaded = read_tir(f).loaded()
    return tuple(i for i, p in enumerate(f.params) if p.name in loaded)


def prim_func_spec(f: ir.PrimFunc) -> KernelSpec:
    outputs = prim_func_outputs(f)
    builtin = None
    if f.name in ELEMENTWISE:
        n_in = ELEMENTWISE[f.name][0]
        if len(f.params) == n_in + 1 and outputs == (n_in,):
            builtin = f.name
    return KernelSpec(f.name, outputs, builtin, not prim_func_loads(f))


def packed_spec(name: str, n_tensors: int) -> KernelSpec:
    """A packed call in destination-passing style: its last tensor argument is written."""
    builtin = None
    if name in ELEMENTWISE and ELEMENTWISE[name][0] + 1 == n_tensors:
        builtin = name
    return KernelSpec(name, (n_tensors - 1,) if n_tensors else (), builtin, True)


# ---- the semantics, on NumPy arrays (the reference) ---------------------------------------

# Outputs at least this big are computed as repeating blocks when every input they read
# repeats (see Periodic), with a block of at most PERIOD_MAX bytes.
PERIODIC_MIN = 1 << 20
PERIOD_MAX = 16 << 20


class Periodic:
    """Bytes that repeat: byte j is `block[j % len(block)]`, for j < n.

    Real models at real size made the reference executor hold every weight and every tensor
    made from weights alone (MLC-LLM's dumps transpose each weight in every call: 16 GB of
    bytes a call for an 8B model). Inputs of more than 2^20 values repeat a random block
    (exec/inputs.py), and the synthetic kernel keeps repetition: when every input it reads
    repeats, so does its output (below). Such bytes are kept as their block; only the prefix
    a kernel reads is ever written out. The values are exactly those the dense arrays would
    hold: this is a representation, not an approximation."""

    __slots__ = ("block", "n")

    def __init__(self, block: np.ndarray, n: int):
        self.block = block  # uint8, 1-D, not empty
        self.n = n

    def __len__(self) -> int:
        return self.n

    def prefix(self, m: int) -> np.ndarray:
        """The first min(m, n) bytes, dense (a fresh array)."""
        m = min(m, self.n)
        if m <= self.block.size:
            return self.block[:m].copy()
        return np.resize(self.block, m)  # repeats the block

    def shifted(self, start: int, n: int) -> "Periodic":
        """Bytes start .. start + n of these, as a Periodic of n bytes."""
        shift = start % self.block.size
        block = self.block if shift == 0 else np.roll(self.block, -shift)
        return Periodic(block, n)

    def dense(self) -> np.ndarray:
        return self.prefix(self.n)


# The synthetic kernel's byte permutation: the AES S-box (FIPS-197, figure 7). It is
# published (a reader can check it), has no fixed point, and its low output bits depend on its
# high input bits, which no sum or product modulo 256 does: a difference that sums pushed into
# the high bits comes back down (docs/EXECUTOR.md, "Kernels"). The same table is written out
# in cuda/kernels.cu.
SBOX = np.array([
    0x63, 0x7c, 0x77, 0x7b, 0xf2, 0x6b, 0x6f, 0xc5, 0x30, 0x01, 0x67, 0x2b, 0xfe, 0xd7, 0xab, 0x76,
    0xca, 0x82, 0xc9, 0x7d, 0xfa, 0x59, 0x47, 0xf0, 0xad, 0xd4, 0xa2, 0xaf, 0x9c, 0xa4, 0x72, 0xc0,
    0xb7, 0xfd, 0x93, 0x26, 0x36, 0x3f, 0xf7, 0xcc, 0x34, 0xa5, 0xe5, 0xf1, 0x71, 0xd8, 0x31, 0x15,
    0x04, 0xc7, 0x23, 0xc3, 0x18, 0x96, 0x05, 0x9a, 0x07, 0x12, 0x80, 0xe2, 0xeb, 0x27, 0xb2, 0x75,
    0x09, 0x83, 0x2c, 0x1a, 0x1b, 0x6e, 0x5a, 0xa0, 0x52, 0x3b, 0xd6, 0xb3, 0x29, 0xe3, 0x2f, 0x84,
    0x53, 0xd1, 0x00, 0xed, 0x20, 0xfc, 0xb1, 0x5b, 0x6a, 0xcb, 0xbe, 0x39, 0x4a, 0x4c, 0x58, 0xcf,
    0xd0, 0xef, 0xaa, 0xfb, 0x43, 0x4d, 0x33, 0x85, 0x45, 0xf9, 0x02, 0x7f, 0x50, 0x3c, 0x9f, 0xa8,
    0x51, 0xa3, 0x40, 0x8f, 0x92, 0x9d, 0x38, 0xf5, 0xbc, 0xb6, 0xda, 0x21, 0x10, 0xff, 0xf3, 0xd2,
    0xcd, 0x0c, 0x13, 0xec, 0x5f, 0x97, 0x44, 0x17, 0xc4, 0xa7, 0x7e, 0x3d, 0x64, 0x5d, 0x19, 0x73,
    0x60, 0x81, 0x4f, 0xdc, 0x22, 0x2a, 0x90, 0x88, 0x46, 0xee, 0xb8, 0x14, 0xde, 0x5e, 0x0b, 0xdb,
    0xe0, 0x32, 0x3a, 0x0a, 0x49, 0x06, 0x24, 0x5c, 0xc2, 0xd3, 0xac, 0x62, 0x91, 0x95, 0xe4, 0x79,
    0xe7, 0xc8, 0x37, 0x6d, 0x8d, 0xd5, 0x4e, 0xa9, 0x6c, 0x56, 0xf4, 0xea, 0x65, 0x7a, 0xae, 0x08,
    0xba, 0x78, 0x25, 0x2e, 0x1c, 0xa6, 0xb4, 0xc6, 0xe8, 0xdd, 0x74, 0x1f, 0x4b, 0xbd, 0x8b, 0x8a,
    0x70, 0x3e, 0xb5, 0x66, 0x48, 0x03, 0xf6, 0x0e, 0x61, 0x35, 0x57, 0xb9, 0x86, 0xc1, 0x1d, 0x9e,
    0xe1, 0xf8, 0x98, 0x11, 0x69, 0xd9, 0x8e, 0x94, 0x9b, 0x1e, 0x87, 0xe9, 0xce, 0x55, 0x28, 0xdf,
    0x8c, 0xa1, 0x89, 0x0d, 0xbf, 0xe6, 0x42, 0x68, 0x41, 0x99, 0x2d, 0x0f, 0xb0, 0x54, 0xbb, 0x16,
], dtype=np.uint8)

# Each aligned pair of input bytes (a, b) contributes ((2k + 3) S[a + o] + 2 S[b + o],
# (2k + 3) S[b + o] + 2 S[a + o]) to its two output bytes (o = s1 + 29 k). For big inputs that
# is one lookup per pair in a 65,536-entry table of the whole map, made once per (o, 2k + 3).
_PAIR_TABLE_MIN = 1 << 16  # bytes of input from which the table pays for itself


@functools.lru_cache(maxsize=256)
def _pair_table(offset: int, multiplier: int) -> np.ndarray:
    """Entry v: the contribution of the pair of bytes v holds (in memory order), as uint16."""
    pairs = np.arange(1 << 16, dtype=np.uint16).view(np.uint8).reshape(-1, 2)
    own = SBOX[(pairs[:, 0] + np.uint8(offset))]
    other = SBOX[(pairs[:, 1] + np.uint8(offset))]
    m = np.uint8(multiplier)
    out = np.empty_like(pairs)
    out[:, 0] = own * m + other * np.uint8(2)
    out[:, 1] = other * m + own * np.uint8(2)
    return out.reshape(-1).view(np.uint16)


def _pair_contribution(unit: np.ndarray, k: int, s1: int,
                       out: np.ndarray | None = None) -> np.ndarray:
    """(2k + 3) A_k(i) + 2 A_k(i XOR 1) for each byte i of `unit` (even length, not changed),
    with A_k(i) = S[(unit[i] + s1 + 29 k) mod 256]: a fresh uint8 array, or `out` (as many
    bytes, sharing no memory with `unit`) holding it."""
    offset, multiplier = _input_offset(s1, k), _input_multiplier(k)
    if unit.size >= _PAIR_TABLE_MIN:
        pairs = np.ascontiguousarray(unit).view(np.uint16)
        if out is not None and out.ctypes.data % 2 == 0:
            np.take(_pair_table(offset, multiplier), pairs, out=out.view(np.uint16))
            return out
        part = np.take(_pair_table(offset, multiplier), pairs).view(np.uint8)
        if out is not None:
            out[...] = part
            return out
        return part
    if out is not None:
        out[...] = _pair_contribution(unit, k, s1)
        return out
    own = SBOX[unit + np.uint8(offset)]
    other = own.view(np.uint16).byteswap().view(np.uint8)  # A_k(i XOR 1)
    own *= np.uint8(multiplier)
    other <<= 1
    own += other
    return own


# The formula's position term, 17 j mod 256 for j < 256: it repeats every 256 bytes.
_POSITION_TERM = ((np.arange(256) * 17) & 0xFF).astype(np.uint8)


def _fill_repeated(acc: np.ndarray, part: np.ndarray) -> None:
    """acc[j] = part[j mod len(part)] for every j, in place (what _add_repeated adds to
    zeros, in one pass)."""
    n, width = part.size, acc.size
    if width == 0:
        return
    if n < 4096 and width > n:
        part = np.tile(part, -(-4096 // n))
        n = part.size
    full = width - width % n
    if full:
        acc[:full].reshape(-1, n)[...] = part
    if full < width:
        acc[full:] = part[:width - full]


def _add_repeated(acc: np.ndarray, part: np.ndarray) -> None:
    """acc[j] += part[j mod len(part)] for every j, in place, in bytes (wrapping modulo 256)."""
    n, width = part.size, acc.size
    if width == 0:
        return
    if n < 4096 and width > n:  # rows of at least 4 KiB, so that NumPy's loops run long
        part = np.tile(part, -(-4096 // n))
        n = part.size
    full = width - width % n
    if full:
        rows = acc[:full].reshape(-1, n)
        np.add(rows, part, out=rows)
    if full < width:
        acc[full:] += part[:width - full]


def _prefix(src, m: int) -> np.ndarray:
    """The first m bytes of an input (m <= len(src)), dense (a view, not to be changed)."""
    if isinstance(src, Periodic):
        return src.block[:m] if m <= src.block.size else src.prefix(m)
    return src[:m]


def _paired_unit(src, width: int) -> np.ndarray:
    """An array U of even length (a view, not to be changed) such that, for every j < width,

        in[j mod n] = U[j mod len(U)]   and   in[(j XOR 1) mod n] = U[(j mod len(U)) XOR 1]

    (n = len(src)): what the kernel reads of the input, as short as that allows, with each
    byte's pair partner beside it. An input shorter than the output is read modulo its length
    (its pattern repeats every lcm(n, 2) bytes); a repeating one gives its block."""
    n = len(src)
    if n < width:
        head = _prefix(src, n)
        return head if n % 2 == 0 else np.concatenate([head, head])
    if isinstance(src, Periodic) and src.block.size % 2 == 0 and src.block.size <= width \
            and not (n == width and width % 2):
        return src.block
    if width % 2 == 0:
        return _prefix(src, width)
    if width < n:  # the last byte's partner is the byte after it
        return _prefix(src, width + 1)
    head = _prefix(src, n)  # n == width, odd: the last byte's partner is in[0]
    return np.append(head, head[:1])


def _period(inputs: list, m: int) -> int | None:
    """The period of an output of m bytes when every input it reads repeats, else None: an
    input at least m long repeats with its block; a shorter one is read modulo its length
    (with its pair partners, every lcm(n, 2) bytes); the formula's own term in j repeats
    every 256 bytes."""
    period = 256
    for src in inputs:
        n = len(src)
        if n == 0:
            continue
        if n >= m:
            # a pair partner must lie in the same block: an even block, and no partner read
            # at in[0] (n == m, odd)
            if not isinstance(src, Periodic) or src.block.size % 2 or (n == m and m % 2):
                return None
            p = src.block.size
        else:
            p = n
        period = math.lcm(period, p)
        if period > PERIOD_MAX:
            return None
    return period if 2 * period <= m else None


def scalar_salt(values: list) -> int:
    """Non-tensor arguments (ints, strings, dtypes, shapes) enter the mix through a hash."""
    if not values:
        return 0
    return zlib.crc32(repr(values).encode()) & 0xFFFF


def _input_offset(s1: int, k: int) -> int:
    return (s1 + 29 * k) & 0xFF


def _input_multiplier(k: int) -> int:
    return (2 * k + 3) & 0xFF


def _mixed_sum(inputs: list, s1: int, width: int, out: np.ndarray | None = None) -> np.ndarray:
    """sum_k ((2k + 3) A_k(j) + 2 A_k(j XOR 1)) mod 256 for j < width, with
    A_k(i) = S[(in_k[i mod len(in_k)] + s1 + 29 k) mod 256], in bytes (which wrap modulo 256
    as the formula does): a fresh array, or `out` (`width` bytes, sharing no memory with the
    inputs) holding it. Each input is looked up once per byte of its repeating unit, then
    repeated."""
    acc = None
    for k, src in enumerate(inputs):
        n = len(src)
        if n == 0 or width == 0:
            continue
        if isinstance(src, Periodic) and n < width and n % 2 == 0 and \
                src.block.size % 2 == 0 and src.block.size < n:
            # in[j mod n] is block[(j mod n) mod p], and (n, p even) its pair partner is
            # block[((j mod n) mod p) XOR 1]: the block's contribution, repeated, starting over
            # every n bytes. Not written out: a big weight read by a bigger output (an LM
            # head's logits) stays its block.
            unit = _pair_contribution(src.block, k, s1)
            first = acc is None
            if first:
                acc = np.empty(width, np.uint8) if out is None else out
            for start in range(0, width, n):
                (_fill_repeated if first else _add_repeated)(acc[start:start + n], unit)
            continue
        unit = _paired_unit(src, width)
        if acc is None and unit.size == width:
            acc = _pair_contribution(unit, k, s1, out)
            continue
        part = _pair_contribution(unit, k, s1)
        if acc is None:
            acc = np.empty(width, np.uint8) if out is None else out
            _fill_repeated(acc, part)
            continue
        _add_repeated(acc, part)
    if acc is None:
        if out is None:
            return np.zeros(width, np.uint8)
        out[...] = 0
        return out
    return acc


def synthetic_bytes(salt: int, inputs: list, sizes: list, into: list | None = None) -> list:
    """The synthetic kernel over bytes (docs/EXECUTOR.md, "Kernels"): with S the byte
    permutation SBOX, s0 = salt mod 256 and s1 = (salt >> 8) mod 256, output t of sizes[t]
    bytes is

        A_k(i)   = S[(in_k[i mod len(in_k)] + s1 + 29 k) mod 256]
        out_t[j] = ((s0 + 101 t + 17 j + sum_k ((2k + 3) A_k(j) + 2 A_k(j XOR 1))) mod 256)
                   XOR s1

    where each input is a flat uint8 array or a Periodic. Byte j reads byte j XOR 1 too (its
    pair partner: byte m of an input longer than an output of odd size m), so that a changed
    byte changes two output bytes, and a difference spreads instead of staying at one byte
    position, where two paths carrying it could cancel. Returns each output's bytes, a fresh
    array or a Periodic (an output of PERIODIC_MIN bytes or more whose inputs all repeat).
    Every output is computed before the caller writes any: an input may share memory with
    an output. S is applied where a kernel reads, not where it writes: a kernel reading a
    prefix of a big output substitutes that prefix only.

    `into`: for each output, None or a uint8 array of its size that shares no memory with any
    input; a dense output the only one of its size is computed there (and returned as it),
    not in a fresh array that the caller copies: an output of gigabytes is not held twice."""
    s0, s1 = salt & 0xFF, (salt >> 8) & 0xFF
    periods = [_period(inputs, m) if m >= PERIODIC_MIN else None for m in sizes]
    widths = [m if p is None else p for m, p in zip(sizes, periods)]
    sums: dict[int, np.ndarray] = {}  # the inputs' sum over `width` bytes, shared by outputs
    results = []
    for t, (m, period, width) in enumerate(zip(sizes, periods, widths)):
        acc = sums.get(width)
        if acc is None:
            dest = into[t] if into is not None and period is None and \
                widths.count(width) == 1 else None
            acc = sums[width] = _mixed_sum(inputs, s1, width, dest)
        # the last output of this width takes the sum itself
        out = acc if width not in widths[t + 1:] else acc.copy()
        _add_repeated(out, _POSITION_TERM + np.uint8((s0 + 101 * t) & 0xFF))
        out ^= np.uint8(s1)
        results.append(Periodic(out, m) if period is not None else out)
    return results


def synthetic(salt: int, inputs: list, outputs: list) -> None:
    """The synthetic kernel on NumPy arrays (contiguous), written in place."""
    results = synthetic_bytes(salt, [_bytes(a) for a in inputs], [a.nbytes for a in outputs])
    for out, r in zip(outputs, results):
        _bytes(out)[...] = r.dense() if isinstance(r, Periodic) else r


def _bytes(a: np.ndarray) -> np.ndarray:
    """The bytes of a contiguous array, as a flat uint8 view (no copy)."""
    return a.reshape(-1).view(np.uint8)


def broadcasts_to(shape: tuple, out: tuple) -> bool:
    """NumPy's rule: aligned on the right, each dimension equal or 1."""
    if len(shape) > len(out):
        return False
    return all(d == o or d == 1 for d, o in zip(reversed(shape), reversed(out)))


def builtin_applies(spec: KernelSpec, shapes: list, dtypes: list) -> bool:
    """Whether a launch gets its builtin meaning (else the synthetic kernel): one output, the
    builtin's number of inputs, float dtypes only, and inputs that broadcast to the output."""
    if spec.builtin is None or len(spec.outputs) != 1:
        return False
    if len(shapes) != ELEMENTWISE[spec.builtin][0] + 1:
        return False
    if any(dt not in FLOAT_DTYPES for dt in dtypes):
        return False
    out = tuple(shapes[spec.outputs[0]])
    return all(broadcasts_to(tuple(s), out) for i, s in enumerate(shapes)
               if i != spec.outputs[0])


def elementwise(name: str, inputs: list, output: np.ndarray) -> None:
    """Computed in float64 and rounded once to the output's dtype, so that every device gets
    the same bits: exp, tanh and sigmoid are rounded to float32 first (a GPU's and a CPU's
    double-precision results differ in the last bits, their float32 roundings almost never);
    a NaN result is always the positive quiet NaN."""
    _, fn, transcendental = ELEMENTWISE[name]
    with np.errstate(all="ignore"):
        result = fn(*[np.asarray(x, dtype=np.float64) for x in inputs])
        if transcendental:
            result = result.astype(np.float32).astype(np.float64)
        result = np.where(np.isnan(result), np.nan, result)
        output[...] = result.astype(output.dtype)


def run_numpy(spec: KernelSpec, tensors: list, scalars: list) -> None:
    """Run a kernel on NumPy arrays: `tensors` are all its tensor arguments, in order."""
    outputs = [tensors[i] for i in spec.outputs]
    inputs = [t for i, t in enumerate(tensors) if i not in spec.outputs]
    if spec.builtin is not None and builtin_applies(
            spec, [t.shape for t in tensors], [str(t.dtype) for t in tensors]):
        elementwise(spec.builtin, inputs, outputs[0])
    else:
        synthetic(spec.salt ^ scalar_salt(scalars), inputs, outputs)
