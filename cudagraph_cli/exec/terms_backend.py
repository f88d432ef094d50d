"""The reference backend without bytes: TermsBackend computes what each byte is made of
(exec/terms.py) and no byte, so verify's run at the symbolic variables' upper bounds costs
what its launches cost (exec/verify.py, bounds_run)."""

from __future__ import annotations

import mmap
import weakref

import numpy as np

from .backend import (CpuBackend, ExecError, Ranges, Storage, Tensor, all_written,
                      launch_aliases, periodic_terms)
from .kernels import KernelSpec
from .terms import TermTable, copy_terms, launch_terms


class NeedsBytes(ExecError):
    """The host read bytes a kernel or a copy made, on a backend that makes none
    (TermsBackend): the run must be made again with bytes."""


class TermsBackend(CpuBackend):
    """The reference without bytes: launches and copies compute terms only (exec/terms.py),
    so a run at a symbolic variable's upper bound costs what its launches cost, not what its
    gigabytes of activations would (storages are np.zeros, whose pages nothing touches). The
    executor's checks stay: a tensor must fit its storage, a view its tensor, and with
    `track_init` a kernel may not read bytes nothing wrote; verify's ownership checks and
    term comparison see what they see with bytes. The host reads bytes only where it gave
    them (a storage made by from_numpy and not written since): any other
    host read (an `if` on a computed tensor, R.tensor_to_shape, a host function of the data)
    raises NeedsBytes, and verify runs the values with bytes instead."""

    name = "cpu (terms only)"
    keeps_bytes = False

    def __init__(self, track_init: bool = False, terms: TermTable | None = None):
        super().__init__(track_init, terms if terms is not None else TermTable())
        self.given: weakref.WeakSet = weakref.WeakSet()  # storages holding host-given bytes

    def _run(self, spec: KernelSpec, tensors: list, scalars: list) -> None:
        if self.row_split is not None and self.row_split.run(self._run, spec, tensors,
                                                             scalars):
            return  # real and pad rows apart (rows.py)
        for i in spec.outputs:
            self.before_write(tensors[i])
            self.given.discard(tensors[i].storage)
        launch_terms(self.terms, self.term_sites, self.site, spec, tensors, scalars,
                     launch_aliases(spec, tensors))

    def _copy_bytes(self, src: Tensor, dst: Tensor) -> None:
        self.before_write(dst)
        self.given.discard(dst.storage)
        copy_terms(src, dst)

    def read_bytes(self, storage: Storage, a: int, b: int, copy: bool = False):
        return None  # nothing to compare: the terms are (compare.Kept)

    def to_numpy(self, t: Tensor) -> np.ndarray:
        if t.storage not in self.given:
            self.needed_bytes = True
            raise NeedsBytes("the host reads bytes a kernel computed (verify runs these "
                             "values with bytes)")
        return super().to_numpy(t)

    def storage_bytes(self, storage: Storage) -> bytes | None:
        return super().storage_bytes(storage) if storage in self.given else None

    def from_numpy(self, a: np.ndarray, term: tuple | None = None) -> Tensor:
        t = super().from_numpy(a, term)
        self.given.add(t.storage)
        return t

    def alloc_storage(self, nbytes: int) -> Storage:
        """Anonymous memory of its own (distinct addresses: the ownership check compares
        them), whose pages nothing touches: np.zeros of less than glibc's mmap threshold
        would clear reused heap memory."""
        try:
            data = np.frombuffer(mmap.mmap(-1, nbytes), np.uint8) if nbytes else \
                np.zeros(0, np.uint8)
        except (OSError, MemoryError):
            raise ExecError(f"out of host memory allocating a storage of {nbytes} bytes") \
                from None
        return Storage(data, nbytes, Ranges() if self.track_init else None, terms=[])

    def from_periodic(self, block: np.ndarray, shape: tuple,
                      term: tuple | None = None) -> Tensor:
        """Its terms only: a model's weights are hundreds of blocks, which no kernel reads
        here; the host reading one needs bytes (it is not `given`)."""
        nbytes = int(np.prod(shape, dtype=np.int64)) * block.dtype.itemsize
        storage = self.alloc_storage(nbytes)
        storage.written = all_written(self.track_init, nbytes)
        periodic_terms(self.terms, storage, block, term)
        return self.view(storage, 0, shape, str(block.dtype))
