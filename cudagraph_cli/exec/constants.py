"""Values for the metadata constants whose data TVM's printer omits
(`metadata["ir.GenericConst"][0]`).

The text keeps only a constant's kind and index (its shape and dtype come from where it is
used), so the executor makes up its value. The value depends on (kind, index, shape, dtype)
only: both modules of `cgraph verify` see the same weights, on every run and machine.
"""

from __future__ import annotations

import math
import zlib

import numpy as np

from .. import ir
from .backend import ExecError, check_alloc_size, numpy_dtype


def metadata_value(kind: str, index: int, shape: tuple, dtype: str) -> np.ndarray:
    """The made-up value of `metadata[kind][index]`, a tensor of `shape` and `dtype`."""
    dt = numpy_dtype(dtype)
    size = math.prod(shape)
    check_alloc_size(size * dt.itemsize, f'the constant metadata["{kind}"][{index}], '
                                         f"{shape} {dt},")
    # crc32, not hash(): Python salts str hashes per process.
    seed = zlib.crc32(f"{kind}\0{index}\0{shape}\0{dtype}".encode())
    rng = np.random.default_rng(seed)
    # Big weights repeat a block of 2^20 values, as the inputs of verify do.
    n = min(size, 1 << 20)
    if dt.kind == "f":
        # Small magnitudes: a chain of layers of made-up weights stays finite.
        block = (rng.standard_normal(n, dtype=np.float32) * 0.1).astype(dt)
    elif dt.kind == "b":
        block = rng.integers(0, 2, n).astype(dt)
    else:
        block = rng.integers(0, 8, n).astype(dt)
    return (block if n == size else np.resize(block, size)).reshape(shape)


def constant_value(c: ir.Constant) -> np.ndarray:
    """The value of a metadata constant of the IR (its struct info is static: the reader
    refuses one it cannot give a shape and dtype)."""
    s = c.sinfo
    if s is None or s.shape is None or not all(isinstance(d, ir.IntImm) for d in s.shape):
        raise ExecError(f"the shape of the constant metadata[\"{c.meta[0]}\"][{c.meta[1]}] "
                        "is not known")
    return metadata_value(c.meta[0], c.meta[1], tuple(d.value for d in s.shape), s.dtype)
