"""The backend interface the executor runs on, and the reference CPU backend (NumPy).

A backend owns memory and runs kernels:

* `alloc_storage(nbytes)` -> a storage; `view(storage, offset, shape, dtype)` -> a tensor
  sharing the storage's bytes (two views of one storage alias); `alloc_tensor(shape, dtype)`
  -> a tensor in fresh memory; `free(obj)` releases (the CPU backend lets Python do it);
* `launch(spec, tensors, scalars)` runs one kernel (exec/kernels.py says what it computes);
* `begin_capture()` / `end_capture()` -> a graph, and `replay(graph)`: CUDA-graph semantics.
  Between begin and end, launches are recorded with the very tensors they were given; a
  replay runs the recorded launches on those tensors again, whatever the caller passes now.
  (The CPU backend also runs each launch while recording: a captured graph runs once when it
  is captured, as TVM's runtime launches it right after capture.)
* `to_numpy(tensor)` / `from_numpy(array)` move data in and out.

What verify may ask beyond that is declared on `Backend` too, with what a backend without the
ability does: keeping terms (`terms`, `term_signature`), watching writes (`watches_writes`,
`watch`, `read_bytes`), keeping repeating bytes as their block (`from_periodic`). The CUDA
backend (cuda/cuda_backend.py) implements the interface with the CUDA driver API.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..diagnostics import SourceError
from .kernels import (KernelSpec, Periodic, builtin_applies, elementwise, scalar_salt,
                      synthetic_bytes)
from .repeating import RepeatingBytes
from .terms import TermTable, copy_terms, launch_terms, read_segments


class ExecError(SourceError):
    """A module that cannot run: located at the binding that failed, when known."""


class DoesNotFit(ExecError):
    """A tensor past its storage's end, or a view past its tensor's: in a rewritten module
    whose original runs the same call, verify's difference of kind "shape"."""


class Ranges:
    """Disjoint byte ranges [a, b), sorted: which bytes of a storage were written."""

    __slots__ = ("spans",)

    def __init__(self):
        self.spans: list[list[int]] = []

    def add(self, a: int, b: int) -> None:
        if a >= b:
            return
        kept = []
        for s, e in self.spans:
            if e < a or s > b:
                kept.append([s, e])
            else:
                a, b = min(a, s), max(b, e)
        kept.append([a, b])
        kept.sort()
        self.spans = kept

    def covers(self, a: int, b: int) -> bool:
        return a >= b or any(s <= a and b <= e for s, e in self.spans)

    def meets(self, a: int, b: int) -> bool:
        return a < b and any(s < b and a < e for s, e in self.spans)


@dataclass(eq=False)
class Storage:
    data: np.ndarray  # uint8; np.zeros, so pages nothing wrote densely cost no memory
    nbytes: int
    written: Ranges | None = None  # when the backend tracks initialization
    # bytes held as a repeating block, not written out in `data` (exec/repeating.py)
    periodic: RepeatingBytes = field(default_factory=RepeatingBytes)
    # [start, end, term, offset] entries: what the bytes are made of (exec/terms.py), when
    # the backend keeps terms (verify's reference runs)
    terms: list | None = None
    # What watches a byte range of the storage (CpuBackend.watch: verify's kept outputs),
    # told before the first write into that range.
    watchers: list = field(default_factory=list)


@dataclass(eq=False)
class Tensor:
    array: np.ndarray
    storage: Storage | None = None
    offset: int = 0

    @property
    def shape(self) -> tuple:
        return self.array.shape

    @property
    def dtype(self) -> str:
        return str(self.array.dtype)


@dataclass
class Graph:
    launches: list = field(default_factory=list)  # (spec, tensors, scalars)
    # the executor's location of each launch (Backend.site when it was recorded)
    sites: list = field(default_factory=list)


# The spec of a copy (R.to_vdevice) recorded in a Graph beside the launches: (COPY, [src,
# dst], []). Never launched: no backend's `launch` is given it.
COPY = KernelSpec("relax.to_vdevice", (1,), None)


_DTYPES = {"float32": np.float32, "float16": np.float16, "float64": np.float64,
           "int32": np.int32, "int64": np.int64, "int16": np.int16, "int8": np.int8,
           "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
           "bool": np.bool_}


# The largest single allocation the executor makes (a storage, a tensor, an input): a module
# or a --shape asking for more is refused with a located error before NumPy (or the device)
# tries, instead of failing with a MemoryError or being killed by the kernel's OOM killer.
# docs/EXECUTOR.md states it.
MAX_ALLOC_BYTES = 8 << 30


def check_alloc_size(nbytes: int, what: str) -> int:
    """`nbytes` if an allocation of that many bytes may be made, else ExecError."""
    if nbytes < 0:
        raise ExecError(f"{what} of {nbytes} bytes (a negative size)")
    if nbytes > MAX_ALLOC_BYTES:
        raise ExecError(f"{what} of {nbytes} bytes ({nbytes / (1 << 30):.3g} GiB) is over the "
                        f"executor's limit of {MAX_ALLOC_BYTES >> 30} GiB per allocation")
    return nbytes


def numpy_dtype(dtype: str):
    if dtype == "bfloat16":
        return np.dtype(np.uint16)  # same width; the executor only moves and mixes bytes
    try:
        return np.dtype(_DTYPES[dtype])
    except KeyError:
        raise ExecError(f"the executor does not support dtype '{dtype}'") from None


def tensor_view_bytes(t: Tensor, offset: int, shape: tuple, dtype: str) -> int:
    """The size of a view of `t` at `offset`, or ExecError when it reaches outside `t`."""
    n = int(np.prod(shape, dtype=np.int64)) * numpy_dtype(dtype).itemsize
    have = int(np.prod(t.shape, dtype=np.int64)) * numpy_dtype(t.dtype).itemsize
    if offset < 0 or offset + n > have:
        raise DoesNotFit(f"a view of {n} bytes at offset {offset} does not fit in its tensor "
                        f"{tuple(t.shape)} {t.dtype} of {have} bytes")
    return n


class Backend:
    """What the executor needs from a device, and what verify may ask of one (declared here
    with what a backend without the ability does)."""

    name = "abstract"
    launch_count = 0  # kernel launches so far
    # The term table it keeps what bytes are made of in (exec/terms.py), or None.
    terms: TermTable | None = None
    # Whether `watch` tells a watcher before a write (verify keeps outputs so, compare.py).
    watches_writes = False
    # Whether kernels and copies compute bytes. Without (TermsBackend): only terms, and the
    # host can read only the bytes it gave (inputs, weights); verify compares terms alone.
    keeps_bytes = True
    # Whether a host read needed bytes a kernel computed (only a backend without bytes can
    # lack them: TermsBackend; verify then runs the values again with bytes).
    needed_bytes = False

    def alloc_storage(self, nbytes: int) -> Storage:
        raise NotImplementedError

    def view(self, storage: Storage, offset: int, shape: tuple, dtype: str) -> Tensor:
        raise NotImplementedError

    def alloc_tensor(self, shape: tuple, dtype: str) -> Tensor:
        raise NotImplementedError

    def tensor_view(self, t: Tensor, offset: int, shape: tuple, dtype: str) -> Tensor:
        """A tensor sharing `t`'s bytes from `offset` on (R.reshape, R.memory.view): it may
        not reach outside `t`, even when `t` is itself a view of a larger storage."""
        tensor_view_bytes(t, offset, shape, dtype)
        if t.storage is None:
            raise ExecError(f"the {self.name} backend cannot view a tensor without a storage")
        return self.view(t.storage, t.offset + offset, shape, dtype)

    def free(self, obj) -> None:
        pass

    def take_warnings(self) -> list[str]:
        """What the launches since the last call ran past (the executor locates them)."""
        return []

    def is_storage(self, value) -> bool:
        """Whether a runtime value is one of this backend's storages (what alloc_storage
        returns: the only objects with a byte size that are not tensors)."""
        return hasattr(value, "nbytes") and not isinstance(value, Tensor)

    def launch(self, spec: KernelSpec, tensors: list, scalars: list) -> None:
        raise NotImplementedError

    def copy(self, t: Tensor) -> Tensor:
        """A new tensor holding `t`'s bytes (R.to_vdevice: a copy to another device)."""
        raise NotImplementedError

    def copy_into(self, src: Tensor, dst: Tensor) -> None:
        """`src`'s bytes into `dst` (as many bytes: a stateful builtin's copy, in stream
        order; inside a capture, a node of the graph)."""
        raise NotImplementedError

    def begin_capture(self) -> None:
        raise NotImplementedError

    def end_capture(self) -> Graph:
        raise NotImplementedError

    def replay(self, graph: Graph) -> None:
        raise NotImplementedError

    def to_numpy(self, t: Tensor) -> np.ndarray:
        raise NotImplementedError

    def from_numpy(self, a: np.ndarray, term: tuple | None = None) -> Tensor:
        """`term`: the key of the term the tensor holds, on a backend that keeps terms."""
        raise NotImplementedError

    def from_periodic(self, block: np.ndarray, shape: tuple,
                      term: tuple | None = None) -> Tensor:
        """A tensor of `shape` whose values repeat `block` (a 1-D array of its dtype): here
        written out; a backend that can keeps it as its block."""
        dense = np.resize(block, int(np.prod(shape, dtype=np.int64))).reshape(shape)
        return self.from_numpy(dense, term=term)

    def watch(self, storage, watcher, a: int, b: int) -> None:
        """Where `watches_writes`: call `watcher.before_write(storage)` once, right before
        anything next writes bytes a .. b of `storage`."""
        raise NotImplementedError

    def read_bytes(self, storage, a: int, b: int, copy: bool = False) -> np.ndarray:
        """Where `watches_writes`: bytes a .. b of a storage as they are."""
        raise NotImplementedError

    def term_signature(self, t: Tensor):
        """What a tensor's bytes are made of (exec/terms.py), or None without terms."""
        return None

    def storage_signature(self, storage):
        return None

    def storage_bytes(self, storage) -> bytes | None:
        """A storage's bytes, where the host can read them (None: it cannot)."""
        data = getattr(storage, "data", None)
        return data.tobytes() if isinstance(data, np.ndarray) else None


def launch_aliases(spec: KernelSpec, tensors: list) -> tuple:
    """How the launch's outputs overlap its other tensor arguments: (output, argument, byte
    of the output, byte of the argument, bytes) for each overlap. What a kernel writes
    where it also reads depends on the order of its reads and writes, which an unknown body
    does not say: the same pattern is the same computation, another pattern another one."""
    found = []
    for i in spec.outputs:
        o = tensors[i]
        oa, ob = o.offset, o.offset + o.array.nbytes
        for j, t in enumerate(tensors):
            if j == i or t.storage is not o.storage:
                continue
            ta, tb = t.offset, t.offset + t.array.nbytes
            a, b = max(oa, ta), min(ob, tb)
            if a < b:
                found.append((i, j, a - oa, a - ta, b - a))
    return tuple(found)


class UninitializedRead(ExecError):
    """A kernel read memory that nothing had written: the module's results are undefined."""


class CpuBackend(Backend):
    """The reference: host memory and NumPy kernels.

    With `track_init`, it also knows which bytes of allocated memory have been written, and a
    kernel that reads a byte nothing wrote raises UninitializedRead: such a module computes
    garbage on a GPU (allocations are not cleared), so comparing it with anything is moot.

    Every tensor lives in a storage (alloc_tensor and from_numpy make one of its size). A
    storage's bytes are its `data`, except the ranges in `periodic`: bytes a synthetic
    kernel wrote as a repeating block (kernels.Periodic), written out only where something
    reads them densely. So a model's weights and what is made from them alone cost their
    blocks, not their size, and the memory a run takes grows with its activations.
    """

    name = "cpu"
    watches_writes = True

    def __init__(self, track_init: bool = False, terms: TermTable | None = None):
        self.capturing: Graph | None = None
        self.launch_count = 0
        self.track_init = track_init
        self.warnings: list[str] = []
        # With `terms`, every storage also keeps what its bytes are made of (exec/terms.py):
        # verify's verdict. `site` is the location of the launch being run (the executor
        # sets it), `term_sites` where each term a launch made was first made.
        self.terms = terms
        self.site = None
        self.term_sites: dict = {}
        # --capture-buckets (rows.py): splits a row-wise launch at the call's real rows
        self.row_split = None

    def alloc_storage(self, nbytes: int) -> Storage:
        try:
            return Storage(np.zeros(nbytes, dtype=np.uint8), nbytes,
                           Ranges() if self.track_init else None,
                           terms=[] if self.terms is not None else None)
        except MemoryError:
            raise ExecError(f"out of host memory allocating a storage of {nbytes} bytes") \
                from None

    def view(self, storage: Storage, offset: int, shape: tuple, dtype: str) -> Tensor:
        dt = numpy_dtype(dtype)
        n = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
        if offset < 0 or offset + n > storage.nbytes:
            raise DoesNotFit(f"a tensor of {n} bytes at offset {offset} does not fit its storage "
                            f"of {storage.nbytes} bytes")
        arr = storage.data[offset:offset + n].view(dt).reshape(shape)
        return Tensor(arr, storage, offset)

    def tensor_view(self, t: Tensor, offset: int, shape: tuple, dtype: str) -> Tensor:
        tensor_view_bytes(t, offset, shape, dtype)
        return self.view(t.storage, t.offset + offset, shape, dtype)

    def alloc_tensor(self, shape: tuple, dtype: str) -> Tensor:
        dt = numpy_dtype(dtype)
        nbytes = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
        try:
            storage = self.alloc_storage(nbytes)
        except ExecError:
            raise ExecError(f"out of host memory allocating a tensor {shape} {dtype}") from None
        return self.view(storage, 0, shape, dtype)

    def read_bytes(self, storage: Storage, a: int, b: int, copy: bool = False) -> np.ndarray:
        """Bytes a .. b of a storage as they are, without writing out its repeating ranges
        (a view of `data` where none meets them, unless `copy`; else a fresh array)."""
        return storage.periodic.read(storage.data, a, b, copy)

    def watch(self, storage: Storage, watcher, a: int, b: int) -> None:
        """Call `watcher.before_write()` once, right before anything next writes bytes a .. b
        of `storage` (or their terms): verify keeps what it compared without keeping it in
        memory, and learns when it may have changed. The storage is not kept alive."""
        if a < b:
            storage.watchers.append((a, b, watcher))

    def before_write(self, t: Tensor) -> None:
        watchers = t.storage.watchers
        if not watchers:
            return
        a, b = t.offset, t.offset + t.array.nbytes
        told = [w for w in watchers if w[0] < b and a < w[1]]
        if told:
            t.storage.watchers = [w for w in watchers if not (w[0] < b and a < w[1])]
            for _, _, watcher in told:
                watcher.before_write(t.storage)

    def _store(self, t: Tensor, result) -> None:
        storage, a, n = t.storage, t.offset, t.array.nbytes
        if storage.watchers:
            self.before_write(t)  # every write comes here; launches and copies tell earlier
        if storage.periodic:
            storage.periodic.take_out(storage.data, a, a + n, write_out=False)
        if isinstance(result, Periodic):
            storage.periodic.add(a, a + n, result.block, a)
        else:
            storage.data[a:a + n] = result

    def term_signature(self, t: Tensor):
        """(dtype, shape, segments): what a tensor's bytes are made of (None: no terms)."""
        if self.terms is None or t.storage is None or t.storage.terms is None:
            return None
        return (t.array.dtype, t.array.shape,
                read_segments(t.storage.terms, t.offset, t.offset + t.array.nbytes))

    def storage_signature(self, storage: Storage):
        if self.terms is None or storage.terms is None:
            return None
        return (np.dtype(np.uint8), (storage.nbytes,),
                read_segments(storage.terms, 0, storage.nbytes))

    def _run(self, spec: KernelSpec, tensors: list, scalars: list) -> None:
        if self.row_split is not None and self.row_split.run(self._run, spec, tensors,
                                                             scalars):
            return  # real and pad rows apart (rows.py)
        for i in spec.outputs:
            self.before_write(tensors[i])
        if self.terms is not None:
            launch_terms(self.terms, self.term_sites, self.site, spec, tensors, scalars,
                         launch_aliases(spec, tensors))
        outputs = [tensors[i] for i in spec.outputs]
        inputs = [t for i, t in enumerate(tensors) if i not in spec.outputs]
        if spec.builtin is not None and builtin_applies(
                spec, [t.shape for t in tensors], [t.dtype for t in tensors]):
            result = np.empty_like(outputs[0].array)
            elementwise(spec.builtin, [self.to_numpy(t) for t in inputs], result)
            self._store(outputs[0], result.reshape(-1).view(np.uint8))
            return
        sizes = [t.array.nbytes for t in outputs]
        # byte j of an output reads bytes j and j XOR 1 of each input (kernels.synthetic_bytes)
        reads = max(sizes, default=0) + 1
        sources = [t.storage.periodic.source(t.storage.data, t.offset, t.array.nbytes, reads)
                   for t in inputs]
        # An output that overlaps no input is computed in its own bytes (a big one is not
        # held twice); its repeating ranges are dropped once it is written.
        overlapping = {i for i, *_ in launch_aliases(spec, tensors)}
        into = [None if i in overlapping else t.storage.data[t.offset:t.offset + n]
                for i, t, n in zip(spec.outputs, outputs, sizes)]
        results = synthetic_bytes(spec.salt ^ scalar_salt(scalars), sources, sizes, into)
        for t, r, dest in zip(outputs, results, into):
            if r is dest:
                if t.storage.periodic:
                    t.storage.periodic.take_out(t.storage.data, t.offset,
                                                t.offset + t.array.nbytes, write_out=False)
            else:
                self._store(t, r)

    # -- the interface ----------------------------------------------------------------------

    def launch(self, spec: KernelSpec, tensors: list, scalars: list) -> None:
        self.launch_count += 1
        if self.capturing is not None:
            self.capturing.launches.append((spec, list(tensors), list(scalars)))
            self.capturing.sites.append(self.site)
        if self.track_init:
            _check_init(spec, tensors, self.warnings)
        self._run(spec, tensors, scalars)

    def take_warnings(self) -> list[str]:
        taken, self.warnings = self.warnings, []
        return taken

    def copy(self, t: Tensor) -> Tensor:
        """Inside a capture the copy is a node of the graph, as a copy issued on a capturing
        CUDA stream is: each replay copies again, into the tensor the capture allocated."""
        _check_written(t, "R.to_vdevice copies")
        out = self.alloc_tensor(tuple(t.shape), t.dtype)
        self._copy(t, out)
        return out

    def copy_into(self, src: Tensor, dst: Tensor) -> None:
        n = src.array.nbytes
        if dst.array.nbytes != n:
            raise ExecError(f"a copy of {n} bytes into a tensor of {dst.array.nbytes}")
        _check_written(src, "a stateful builtin copies")
        self._copy(src, dst)

    def _copy(self, src: Tensor, dst: Tensor) -> None:
        """A copy recorded in the graph being captured, then made; `dst` is written."""
        if self.capturing is not None:
            self.capturing.launches.append((COPY, [src, dst], []))
            self.capturing.sites.append(self.site)
        self._copy_bytes(src, dst)
        if dst.storage.written is not None:
            dst.storage.written.add(dst.offset, dst.offset + src.array.nbytes)

    def _copy_bytes(self, src: Tensor, dst: Tensor) -> None:
        self.before_write(dst)
        if self.terms is not None:
            copy_terms(src, dst)
        storage, a, n = src.storage, src.offset, src.array.nbytes
        pieces = storage.periodic.pieces(storage.data, a, n)
        if pieces is not None:
            # Dense bytes and repeating ranges: each range stays a block where it lands, the
            # dense bytes are copied.
            target = dst.storage
            target.periodic.take_out(target.data, dst.offset, dst.offset + n, write_out=False)
            for x, piece in pieces:
                to = dst.offset + x - a
                if isinstance(piece, Periodic):
                    target.periodic.add(to, to + len(piece), piece.block, to)
                else:
                    target.data[to:to + piece.size] = piece
            return
        source = storage.periodic.source(storage.data, a, n, n)
        # a repeating block stays one (Periodic); dense bytes are copied, not shared
        self._store(dst, source if isinstance(source, Periodic) else np.array(source))

    def begin_capture(self) -> None:
        if self.capturing is not None:
            raise ExecError("a CUDA graph capture inside another capture")
        self.capturing = Graph()

    def end_capture(self) -> Graph:
        graph, self.capturing = self.capturing, None
        return graph

    def replay(self, graph: Graph) -> None:
        for k, (spec, tensors, scalars) in enumerate(graph.launches):
            if k < len(graph.sites):
                self.site = graph.sites[k]
            if spec is COPY:  # a copy, not a kernel launch
                self._copy_bytes(*tensors)
                continue
            self.launch_count += 1
            self._run(spec, tensors, scalars)

    def to_numpy(self, t: Tensor) -> np.ndarray:
        """t's array with every byte written out."""
        if t.storage.periodic:
            t.storage.periodic.take_out(t.storage.data, t.offset, t.offset + t.array.nbytes,
                                        write_out=True)
        return t.array

    def storage_bytes(self, storage: Storage) -> bytes:
        if storage.periodic:
            storage.periodic.take_out(storage.data, 0, storage.nbytes, write_out=True)
        return storage.data.tobytes()

    def from_numpy(self, a: np.ndarray, term: tuple | None = None) -> Tensor:
        """`term`: the key of the term the tensor holds (exec/terms.py; verify's inputs and
        weights), else its bytes are a constant, by value."""
        # ascontiguousarray makes a 0-d array 1-d: keep the shape (an if's bool condition).
        a = np.ascontiguousarray(a).reshape(np.shape(a))
        flat = a.reshape(-1).view(np.uint8)
        storage = Storage(flat, flat.size, all_written(self.track_init, flat.size))
        if self.terms is not None and flat.size:
            held = self.terms.intern(term) if term is not None else \
                self.terms.constant(flat.tobytes())
            storage.terms = [[0, flat.size, held, 0]]
        elif self.terms is not None:
            storage.terms = []
        return Tensor(a, storage, 0)

    def from_periodic(self, block: np.ndarray, shape: tuple,
                      term: tuple | None = None) -> Tensor:
        """A tensor of `shape` whose values repeat `block` (a 1-D array of its dtype)."""
        nbytes = int(np.prod(shape, dtype=np.int64)) * block.dtype.itemsize
        storage = Storage(np.zeros(nbytes, dtype=np.uint8), nbytes,
                          all_written(self.track_init, nbytes))
        storage.periodic.add(0, nbytes, np.ascontiguousarray(block).view(np.uint8), 0)
        periodic_terms(self.terms, storage, block, term)
        return self.view(storage, 0, shape, str(block.dtype))


def periodic_terms(terms: TermTable | None, storage: Storage, block: np.ndarray,
                   term: tuple | None) -> None:
    """The terms of a storage all of whose bytes repeat `block` (from_periodic), in `terms`."""
    nbytes = storage.nbytes
    if terms is not None and nbytes:
        held = terms.intern(term) if term is not None else terms.constant(
            np.ascontiguousarray(block).tobytes() + nbytes.to_bytes(8, "little"))
        storage.terms = [[0, nbytes, held, 0]]
    elif terms is not None:
        storage.terms = []


def _check_written(t: Tensor, what: str) -> None:
    """UninitializedRead unless every byte of `t` was written (with track_init)."""
    written = t.storage.written
    if written is not None and not written.covers(t.offset, t.offset + t.array.nbytes):
        raise UninitializedRead(f"{what} a tensor before anything wrote it (uninitialized "
                                "memory: the module's results are undefined)")


def _check_init(spec: KernelSpec, tensors: list, warnings: list) -> None:
    """UninitializedRead when a launch reads a byte nothing wrote (a warning for an opaque
    kernel given memory nothing wrote at all); then its outputs are written."""
    for i, t in enumerate(tensors):
        written = t.storage.written
        if i in spec.outputs or written is None:
            continue
        a, b = t.offset, t.offset + t.array.nbytes
        if not written.covers(a, b):
            if spec.opaque and not written.meets(a, b):
                # TVM's test modules hand fresh buffers to stub kernels and dummy packed
                # functions, which may well write them first.
                warnings.append(
                    f"kernel '{spec.name}' is given argument {i}, which nothing wrote; "
                    "what the kernel reads is not known (a packed function, or a body "
                    "that reads no buffer by name), so the run goes on: its results are "
                    "undefined if it reads it")
                continue
            raise UninitializedRead(
                f"kernel '{spec.name}' reads argument {i} before anything wrote it "
                "(uninitialized memory: the module's results are undefined)")
    for i in spec.outputs:
        t = tensors[i]
        if t.storage.written is not None:
            t.storage.written.add(t.offset, t.offset + t.array.nbytes)


def all_written(track_init: bool, nbytes: int) -> Ranges | None:
    if not track_init:
        return None
    written = Ranges()
    written.add(0, nbytes)
    return written
