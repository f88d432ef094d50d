"""What verify keeps of each output returned (`Kept`: a watched byte range, not the memory),
and how two kept outputs are compared: bytes first (`compare_snapshots`), then what the bytes
are made of (`compare_terms`, exec/terms.py). A `Difference` is what a comparison (or a check
of verify's) finds."""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass

import numpy as np

from ..diagnostics import NO_LOC, Loc
from .backend import Backend, Tensor, numpy_dtype
from .values import DType, HostObject


@dataclass
class Difference:
    function: str
    call: int  # 0-based call number of the function whose output differs
    output: str  # path in the returned value: "", "[0]", "[1][2]"
    checked_after: str  # "f, call 3": the call after which the difference was seen
    element: tuple | None = None
    original: object = None
    rewritten: object = None
    message: str = ""
    # or "ownership": values agree, but memory is shared wrongly; or "terms": the bytes agree,
    # but what an output is made of differs (exec/terms.py), `loc` the kernel in `module`
    # whose argument diverges first (when known)
    kind: str = "values"
    module: str = "rewritten"  # for "ownership": the module it is in, located at `loc`
    loc: Loc = NO_LOC
    site: str = ""  # what `loc` points at, in words
    graph_input: str | None = None  # for "ownership": path in run_or_capture's arguments
    # For "values": an external call doing host work that a graph of the rewritten module
    # replayed with its state at capture (exec/launches.py), located at `loc` in `module`:
    # the likely cause, since a CUDA graph does not run host code again.
    host_call: str | None = None


def compare_terms(a, b, path: str = ""):
    """None, or (path, signature of a, signature of b) for the first output whose terms
    differ."""
    if isinstance(a, tuple) and len(a) == 3 and isinstance(a[0], np.dtype):  # a signature
        return None if a == b else (path, a, b)
    if isinstance(a, tuple) and isinstance(b, tuple):
        for i, (x, y) in enumerate(zip(a, b)):
            r = compare_terms(x, y, f"{path}[{i}]")
            if r:
                return r
    return None


class Kept:
    """A tensor or storage a module returned, as verify keeps it for the checks after later
    calls: neither its bytes nor, on a backend that watches writes (the reference,
    CpuBackend.watch), its memory.

    The backend tells it right before anything writes those bytes (or their terms) again;
    until then they are what they were when both modules' outputs were compared equal, and so
    are their terms. At that first write it saves the bytes (what the other module's output
    held too when they were compared) and from then on holds the storage, so that each later
    check reads what it holds now. A returned value nothing else holds is freed, as the
    module's caller frees it; nothing can write it any more. So verify's memory grows with
    what the modules keep alive (and with outputs written after they were returned), not with
    every output returned: an LLM's logits at 2048 positions are 2 GiB a call.

    On a backend that cannot watch, it holds the value and reads it as it is now at every
    check."""

    def __init__(self, backend: Backend, value, storage, start: int, stop: int, shape: tuple,
                 dtype):
        self.backend = backend
        self.start, self.stop = start, stop
        self.shape, self.dtype = shape, dtype
        self.saved: np.ndarray | None = None  # the bytes before the first write
        if backend.watches_writes and storage is not None:
            self.held = None
            self.storage = weakref.ref(storage)
            self.terms = self._signature(storage)
            backend.watch(storage, self, start, stop)
        else:
            self.held = value
            self.storage = None
            self.terms = None

    @property
    def written(self) -> bool:
        """Whether what it holds may differ from what was compared (read it again)."""
        return self.held is not None

    def before_write(self, storage) -> None:
        """The backend is about to write the bytes (CpuBackend.watch)."""
        self.saved = self.backend.read_bytes(storage, self.start, self.stop, copy=True)
        self.held = storage

    def now(self, a: int, b: int) -> np.ndarray | None:
        """Bytes a .. b (from its start) as they are now, or None where they cannot be read:
        the value was freed (they are what they were when compared) or the backend cannot
        read a storage."""
        source = self.held if self.held is not None else (
            self.storage() if self.storage is not None else None)
        if source is None:
            return None
        if self.storage is not None:
            return self.backend.read_bytes(source, self.start + a, self.start + b)
        if isinstance(source, Tensor):
            return self.backend.to_numpy(source).reshape(-1).view(np.uint8)[a:b]
        data = self.backend.storage_bytes(source)
        return None if data is None else np.frombuffer(data, np.uint8)[a:b]

    def terms_now(self):
        """Its term signature as it is now (exec/terms.py; None without terms)."""
        if self.storage is None:
            if isinstance(self.held, Tensor):
                return self.backend.term_signature(self.held)
            return self.backend.storage_signature(self.held)
        return self._signature(self.held) if self.held is not None else self.terms

    def _signature(self, storage):
        if storage.terms is None:
            return None
        if self.shape is None:  # a storage returned as such
            return self.backend.storage_signature(storage)
        return self.backend.term_signature(self.backend.view(storage, self.start, self.shape,
                                                             self.dtype))


def snapshot_value(backend: Backend, value):
    """A returned value as verify keeps it: tensors as ("tensor", shape, dtype, Kept),
    storages as ("storage", size, Kept), tuples item by item, others as they are."""
    if isinstance(value, Tensor):
        if not backend.watches_writes:  # a device: its bytes as NumPy gives them
            arr = backend.to_numpy(value)
            return ("tensor", arr.shape, str(arr.dtype),
                    Kept(backend, value, None, 0, arr.nbytes, arr.shape, str(arr.dtype)))
        return ("tensor", tuple(value.shape), str(value.dtype),
                Kept(backend, value, value.storage, value.offset,
                     value.offset + value.array.nbytes, tuple(value.shape), value.dtype))
    if backend.is_storage(value):
        storage = value if backend.watches_writes else None
        return ("storage", value.nbytes, Kept(backend, value, storage, 0, value.nbytes, None,
                                              None))
    if isinstance(value, tuple):
        return ("tuple", tuple(snapshot_value(backend, v) for v in value))
    return ("value", value)


def term_snapshot(snapshot):
    """What a kept value is made of now (exec/terms.py): each tensor's or storage's term
    signature, tuples item by item, None for anything else or a backend without terms."""
    if snapshot[0] in ("tensor", "storage"):
        return snapshot[-1].terms_now()
    if snapshot[0] == "tuple":
        return tuple(term_snapshot(v) for v in snapshot[1])
    return None


# Kept values are compared this many bytes at a time: a 2 GiB output is never copied whole.
COMPARE_CHUNK = 64 << 20


def first_byte_difference(a: Kept, b: Kept, nbytes: int, fresh: bool):
    """The first byte at which what `a` and `b` hold differs, or None. After the call that
    returned them (`fresh`) both are read; later only those written since (Kept.written),
    an unwritten one that was freed holding what the other held before its first write.
    Also None where a side cannot be read (a device storage)."""
    if not fresh and not (a.written or b.written):
        return None
    for x in range(0, nbytes, COMPARE_CHUNK):
        y = min(nbytes, x + COMPARE_CHUNK)
        ca, cb = a.now(x, y), b.now(x, y)
        if ca is None:
            ca = b.saved[x:y] if b.saved is not None else None
        if cb is None:
            cb = a.saved[x:y] if a.saved is not None else None
        if ca is None or cb is None:
            return None
        if not np.array_equal(ca, cb):
            return x + int(np.flatnonzero(ca != cb)[0])
    return None


def compare_snapshots(a, b, path: str = "", fresh: bool = True):
    """None, or (path, element, original, rewritten, words) for the first difference
    between two kept values (first_byte_difference says which bytes are read when)."""
    if a[0] != b[0]:
        return (path, None, a[0], b[0], f"a {a[0]} vs a {b[0]}")
    if a[0] == "tensor":
        if a[1] != b[1] or a[2] != b[2]:
            return (path, None, f"{a[1]} {a[2]}", f"{b[1]} {b[2]}", "shape or dtype differs")
        dt = numpy_dtype(a[2]) if a[2] != "bool" else np.dtype(np.bool_)
        nbytes = math.prod(a[1]) * dt.itemsize
        first_byte = first_byte_difference(a[3], b[3], nbytes, fresh)
        if first_byte is None:
            return None
        flat = first_byte // max(dt.itemsize, 1)
        index = tuple(int(i) for i in np.unravel_index(flat, a[1])) if a[1] else ()
        return (path, index, element(a[3], b[3], flat, dt), element(b[3], a[3], flat, dt),
                "values differ")
    if a[0] == "storage":
        if a[1] != b[1]:
            return (path, None, f"{a[1]} bytes", f"{b[1]} bytes", "storage sizes differ")
        first = first_byte_difference(a[2], b[2], a[1], fresh)
        if first is None:
            return None
        return (path, (first,), element(a[2], b[2], first, np.dtype(np.uint8)),
                element(b[2], a[2], first, np.dtype(np.uint8)), "storage bytes differ")
    if a[0] == "tuple":
        if len(a[1]) != len(b[1]):
            return (path, None, len(a[1]), len(b[1]), "tuple sizes differ")
        for i, (x, y) in enumerate(zip(a[1], b[1])):
            r = compare_snapshots(x, y, f"{path}[{i}]", fresh)
            if r:
                return r
        return None
    va, vb = a[1], b[1]
    if isinstance(va, HostObject) and isinstance(vb, HostObject):
        return None
    if isinstance(va, DType) or isinstance(vb, DType) or va != vb:
        return None if va == vb else (path, None, va, vb, "values differ")
    return None


def element(kept: Kept, other: Kept, index: int, dt: np.dtype):
    """Element `index` (of dtype `dt`) of what `kept` holds now (see first_byte_difference)."""
    a, b = index * dt.itemsize, (index + 1) * dt.itemsize
    raw = kept.now(a, b)
    if raw is None:
        raw = other.saved[a:b]
    return np.frombuffer(np.ascontiguousarray(raw).tobytes(), dtype=dt)[0]
