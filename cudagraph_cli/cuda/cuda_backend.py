"""The CUDA backend: the executor's backend interface (exec/backend.py) on a GPU.

* Memory: storages and tensors come from a pool over cuMemAlloc, as TVM's pooled allocator
  does: a block returns to its size's free list when nothing refers to it any more (TVM's VM
  counts references: a live view, or the CUDA-graph alloc cache, keeps a storage; the
  executor keeps a function's values until it returns, so `kill_*` frees nothing earlier),
  and everything is freed with cuMemFree when the backend closes. A block first allocated while a graph is
  being captured belongs to that graph and never returns to the pool.
* Kernels: cuda/kernels.cu, compiled by NVRTC for the device (cuda/nvrtc.py); each launch is
  planned here (`plan_launch`: builtin or synthetic, scratch copies for inputs that overlap an
  output, the packed argument struct) and issued with cuLaunchKernel on one stream.
* Graphs: cuStreamBeginCapture / cuStreamEndCapture, cuGraphInstantiate, then one
  cuGraphLaunch right away (TVM's runtime runs a graph once when it captures it);
  `replay` is cuGraphLaunch.
* Launch lists: with `trace` set to a list, every launch, copy and graph launch issued is also
  appended to it as a ready-made call (`LaunchList`): replaying a function's list is a tight
  loop of driver calls with nothing in between -- the honest eager baseline.
"""

from __future__ import annotations

import ctypes
import math
import re
import time
import weakref
from dataclasses import dataclass, field

import numpy as np

from ..exec.backend import Backend, ExecError, Tensor, numpy_dtype
from ..exec.kernels import ELEMENTWISE, KernelSpec, builtin_applies, scalar_salt

BLOCK = 256
MAX_GRID = 4096
MAX_DIMS = 8
SMALL_IN, SMALL_OUT = 8, 4
LARGE_IN, LARGE_OUT = 126, 16


# ---- the argument structs (mirrors of kernels.cu) -----------------------------------------

def _synth_struct(name: str, max_in: int, max_out: int):
    return type(name, (ctypes.Structure,), {"_fields_": [
        ("in_ptr", ctypes.c_uint64 * max_in), ("in_len", ctypes.c_uint64 * max_in),
        ("out_ptr", ctypes.c_uint64 * max_out), ("out_len", ctypes.c_uint64 * max_out),
        ("m_max", ctypes.c_uint64), ("salt", ctypes.c_uint32), ("t0", ctypes.c_uint32),
        ("n_in", ctypes.c_uint32), ("n_out", ctypes.c_uint32)]})


SynthSmall = _synth_struct("SynthSmall", SMALL_IN, SMALL_OUT)
SynthLarge = _synth_struct("SynthLarge", LARGE_IN, LARGE_OUT)


class EwArgs(ctypes.Structure):
    _fields_ = [("out", ctypes.c_uint64), ("in_", ctypes.c_uint64 * 2), ("n", ctypes.c_int64),
                ("shape", ctypes.c_int64 * MAX_DIMS),
                ("stride", (ctypes.c_int64 * MAX_DIMS) * 2),
                ("ndim", ctypes.c_int), ("out_dt", ctypes.c_int), ("in_dt", ctypes.c_int * 2),
                ("flat", ctypes.c_int), ("pad", ctypes.c_int)]


EW_DTYPES = {"float16": 0, "float32": 1, "float64": 2}

# Every kernel of the library, by its name in kernels.cu.
LIBRARY_KERNELS = ("cg_synthetic_small", "cg_synthetic_large") + \
    tuple(f"cg_ew_{name}" for name in ELEMENTWISE)


# ---- device memory ------------------------------------------------------------------------

@dataclass(eq=False)
class DeviceStorage:
    ptr: int
    nbytes: int
    graph_owned: bool = False  # first allocated while capturing: the graph's for good


class DeviceTensor(Tensor):
    """A tensor in device memory: a pointer, a shape and a Relax dtype."""

    def __init__(self, ptr: int, shape: tuple, dtype: str, storage=None, offset: int = 0):
        super().__init__(None, storage, offset)
        self.ptr = ptr
        self._shape = tuple(int(d) for d in shape)
        self._dtype = dtype
        self.itemsize = numpy_dtype(dtype).itemsize
        self.nbytes = int(np.prod(self._shape, dtype=np.int64)) * self.itemsize

    @property
    def shape(self) -> tuple:
        return self._shape

    @property
    def dtype(self) -> str:
        return self._dtype

    def __repr__(self) -> str:
        return f"DeviceTensor(0x{self.ptr:x}, {self._shape}, {self._dtype})"


# ---- launch planning (no driver: the tests check it without a GPU) -------------------------

@dataclass
class KernelOp:
    """One cuLaunchKernel: the function's name, its packed arguments, the grid."""

    kernel: str
    grid: int | tuple  # x, or (x, y, z) for a manifest's kernel
    block: int | tuple
    args: list  # the ctypes objects the parameter array points to (kept alive)
    params: object = None  # ctypes array of void*, one per kernel parameter
    shared_bytes: int = 0  # dynamic shared memory

    def __post_init__(self):
        if self.params is None:
            self.params = (ctypes.c_void_p * len(self.args))(
                *[ctypes.addressof(a) for a in self.args])

    @property
    def params_addr(self) -> int:
        return ctypes.addressof(self.params)

    @property
    def output_bytes(self) -> int:
        """Bytes the launch writes (its largest output), for library kernels; 0 otherwise."""
        a = self.args[0] if self.args else None
        if isinstance(a, EwArgs):
            return int(a.n) * (2, 4, 8)[a.out_dt]
        if isinstance(a, (SynthSmall, SynthLarge)):
            return int(a.m_max)
        return 0


@dataclass
class CopyOp:
    """A device-to-device copy of an input that overlaps an output (read before written)."""

    dst: int
    src: int
    nbytes: int


def grid_for(n: int) -> int:
    return max(1, min(math.ceil(n / BLOCK), MAX_GRID))


def _overlap(a_ptr: int, a_n: int, b_ptr: int, b_n: int) -> bool:
    return a_n > 0 and b_n > 0 and a_ptr < b_ptr + b_n and b_ptr < a_ptr + a_n


def plan_launch(spec: KernelSpec, tensors: list, scalars: list, scratch) -> list:
    """The copies and kernel launches that compute `spec` on `tensors` (DeviceTensor-like:
    ptr, nbytes, shape, dtype) as exec/kernels.py defines it. `scratch(nbytes)` gives device
    memory for an input that must be copied before the outputs are written."""
    shapes = [t.shape for t in tensors]
    dtypes = [t.dtype for t in tensors]
    if builtin_applies(spec, shapes, dtypes):
        return _plan_elementwise(spec, tensors, scratch)
    return _plan_synthetic(spec.salt ^ scalar_salt(scalars), spec, tensors, scratch)


def _plan_elementwise(spec: KernelSpec, tensors: list, scratch) -> list:
    out = tensors[spec.outputs[0]]
    inputs = [t for i, t in enumerate(tensors) if i != spec.outputs[0]]
    ops: list = []
    a = EwArgs()
    a.out = out.ptr
    a.n = int(np.prod(out.shape, dtype=np.int64))
    a.out_dt = EW_DTYPES[out.dtype]
    dims = list(out.shape)
    if len(dims) > MAX_DIMS:
        raise ExecError(f"kernel '{spec.name}': more than {MAX_DIMS} dimensions")
    a.ndim = len(dims)
    for d, n in enumerate(dims):
        a.shape[d] = n
    flat = 0
    for k, t in enumerate(inputs):
        ptr = t.ptr
        # Thread i reads element i of a same-shaped input and writes element i: an input that
        # is the output itself is safe; any other overlap is read from a copy.
        same = t.ptr == out.ptr and tuple(t.shape) == tuple(out.shape) and t.dtype == out.dtype
        if not same and _overlap(t.ptr, t.nbytes, out.ptr, out.nbytes):
            ptr = scratch(t.nbytes)
            ops.append(CopyOp(ptr, t.ptr, t.nbytes))
        a.in_[k] = ptr
        a.in_dt[k] = EW_DTYPES[t.dtype]
        if tuple(t.shape) == tuple(dims):
            flat |= 1 << k
        # Strides in elements, right-aligned, 0 on broadcast dimensions.
        stride = 1
        lead = len(dims) - len(t.shape)
        for d in range(len(dims) - 1, -1, -1):
            size = t.shape[d - lead] if d >= lead else 1
            a.stride[k][d] = stride if size != 1 else 0
            stride *= size
    if len(inputs) < 2:
        flat |= 2
    a.flat = flat
    if a.n == 0:
        return ops
    ops.append(KernelOp(f"cg_ew_{spec.builtin}", grid_for(a.n), BLOCK, [a]))
    return ops


def _plan_synthetic(salt: int, spec: KernelSpec, tensors: list, scratch) -> list:
    outs = [tensors[i] for i in spec.outputs]
    ins = [t for i, t in enumerate(tensors) if i not in spec.outputs]
    if len(ins) > LARGE_IN or len(outs) > LARGE_OUT:
        raise ExecError(f"kernel '{spec.name}' has {len(ins)} inputs and {len(outs)} outputs; "
                        f"the CUDA backend's synthetic kernel takes at most {LARGE_IN} and "
                        f"{LARGE_OUT}")
    m_max = max((o.nbytes for o in outs), default=0)
    if m_max == 0:
        return []
    outs_overlap = any(_overlap(x.ptr, x.nbytes, y.ptr, y.nbytes)
                       for i, x in enumerate(outs) for y in outs[i + 1:])
    ops: list = []
    in_ptrs = []
    for t in ins:
        ptr = t.ptr
        # Safe in place: the thread of bytes j, j + 1 reads those bytes of an input starting
        # where the output starts before writing them (no wrap-around: an input of odd length
        # as long as the output reads byte 0 for its last byte's pair). Any other overlap is
        # read from a copy.
        safe = not outs_overlap and t.nbytes >= m_max and \
            (t.nbytes > m_max or m_max % 2 == 0) and all(
                o.ptr == t.ptr or not _overlap(t.ptr, t.nbytes, o.ptr, o.nbytes) for o in outs)
        if not safe and any(_overlap(t.ptr, t.nbytes, o.ptr, o.nbytes) for o in outs):
            ptr = scratch(t.nbytes)
            ops.append(CopyOp(ptr, t.ptr, t.nbytes))
        in_ptrs.append((ptr, t.nbytes))
    # Outputs that overlap each other are written one launch each, in order (later wins).
    groups = [[(t, o) for t, o in enumerate(outs)]] if not outs_overlap else \
        [[(t, o)] for t, o in enumerate(outs)]
    for group in groups:
        small = len(ins) <= SMALL_IN and len(group) <= SMALL_OUT
        a = (SynthSmall if small else SynthLarge)()
        for k, (ptr, n) in enumerate(in_ptrs):
            a.in_ptr[k] = ptr
            a.in_len[k] = n
        for i, (_, o) in enumerate(group):
            a.out_ptr[i] = o.ptr
            a.out_len[i] = o.nbytes
        a.m_max = max(o.nbytes for _, o in group)
        a.salt = salt & 0xFFFFFFFF
        a.t0 = group[0][0]
        a.n_in = len(in_ptrs)
        a.n_out = len(group)
        if a.m_max:
            ops.append(KernelOp("cg_synthetic_small" if small else "cg_synthetic_large",
                                grid_for((a.m_max + 1) // 2), BLOCK, [a]))  # a pair each
    return ops


# ---- user kernels (--kernels FILE.cu) -----------------------------------------------------

_USER_KERNEL_RE = re.compile(r'extern\s+"C"\s+__global__\s+void\s+([A-Za-z_]\w*)\s*\(')


def user_kernel_names(source: str) -> list[str]:
    return _USER_KERNEL_RE.findall(source)


def plan_user_launch(name: str, tensors: list, scalars: list) -> KernelOp:
    """A user kernel's ABI: one device pointer per tensor argument (in order: inputs, then
    outputs), then each numeric scalar (int -> long long, float -> double), then `long long n`,
    the number of elements of the last tensor; launched with 256-thread blocks, ceil(n / 256)
    of them (at least one)."""
    args: list = [ctypes.c_uint64(t.ptr) for t in tensors]
    for s in scalars:
        if isinstance(s, bool) or isinstance(s, int):
            args.append(ctypes.c_int64(int(s)))
        elif isinstance(s, float):
            args.append(ctypes.c_double(s))
    n = int(np.prod(tensors[-1].shape, dtype=np.int64)) if tensors else 0
    args.append(ctypes.c_int64(n))
    return KernelOp(name, max(1, math.ceil(n / BLOCK)), BLOCK, args)


def plan_manifest_launch(prim, tensors: list, scalars: list, alloc=None) -> list:
    """A PrimFunc call's launches as `cgraph kernels` wrote them (cuda/launch_manifest.py).
    `alloc(nbytes) -> pointer` gives the call's workspaces (intermediate buffers TVM's host
    code would allocate), one block each, which must stay allocated until the launches have
    run."""
    from .launch_manifest import plan_prim_call, workspace_bytes

    try:
        sizes = workspace_bytes(prim, tensors, scalars)
        if sizes and alloc is None:
            raise ValueError("its workspaces need an allocator")
        planned = plan_prim_call(prim, tensors, scalars, [alloc(n) for n in sizes])
    except (ValueError, ZeroDivisionError, KeyError, IndexError) as e:
        raise ExecError(f"kernel '{prim.name}' (launch manifest): {e}") from None
    return [KernelOp(p.kernel, p.grid, p.block, p.args, shared_bytes=p.shared_bytes)
            for p in planned]


# ---- the kernels on a device --------------------------------------------------------------

class KernelLibrary:
    """cgraph's kernels, and the user's, loaded into the driver's context."""

    def __init__(self, driver, user_source: str | None = None,
                 user_name: str = "user-kernels.cu"):
        from .nvrtc import library_source

        self.driver = driver
        t = time.perf_counter()
        self.module, self.cached = driver.load_source(library_source(), "kernels.cu")
        self.user_module = None
        self.user_names: list[str] = []
        # A `cgraph kernels` file: PrimFunc name -> its kernels and how to launch them.
        self.manifest = None
        if user_source is not None:
            from .launch_manifest import read_manifest

            self.manifest = read_manifest(user_source, user_name)
            self.user_module, _ = driver.load_source(user_source, user_name)
            self.user_names = list(self.manifest.prim_funcs) if self.manifest is not None \
                else user_kernel_names(user_source)
        self.shared_allowed: dict[str, int] = {}
        self.load_seconds = time.perf_counter() - t
        self.functions: dict[str, object] = {}
        self.user_used: set[str] = set()

    def function(self, name: str):
        f = self.functions.get(name)
        if f is None:
            f = self.functions[name] = self.driver.get_function(self.module, name)
        return f

    def manifest_kernels(self, name: str):
        """The manifest's entry for PrimFunc `name`, or None (not listed, or its host code
        calls a library function, which the file cannot hold: cgraph's stand-in runs it)."""
        if self.manifest is None:
            return None
        prim = self.manifest.prim_funcs.get(name)
        if prim is not None and prim.host_calls:
            return None
        if prim is not None:
            self.user_used.add(name)
        return prim

    def kernel_function(self, kernel: str, shared_bytes: int = 0):
        """A manifest kernel of the user's module, allowed `shared_bytes` of dynamic shared
        memory."""
        key = "kernel:" + kernel
        f = self.functions.get(key)
        if f is None:
            f = self.functions[key] = self.driver.get_function(self.user_module, kernel)
        if shared_bytes > 48 * 1024 and self.shared_allowed.get(kernel, 0) < shared_bytes:
            self.driver.set_max_dynamic_shared(f, shared_bytes)
            self.shared_allowed[kernel] = shared_bytes
        return f

    def user_function(self, name: str):
        if self.manifest is not None or name not in self.user_names:
            return None
        key = "user:" + name
        f = self.functions.get(key)
        if f is None:
            f = self.functions[key] = self.driver.get_function(self.user_module, name)
        self.user_used.add(name)
        return f


@dataclass
class DeviceGraph:
    graph: object
    exec: object
    nodes: int
    capture_seconds: float
    keepalive: list = field(default_factory=list)


@dataclass
class LaunchList:
    """One call of a function as the driver calls it: (what, thunk) pairs."""

    items: list = field(default_factory=list)
    keepalive: list = field(default_factory=list)

    @property
    def launches(self) -> int:
        return len(self.items)

    def count(self, kind: str) -> int:
        return sum(1 for what, _ in self.items if what == kind)

    def run(self, driver) -> None:
        for what, thunk in self.items:
            r = thunk()
            if int(r[0]):
                driver.check(r, what)


class CudaBackend(Backend):
    name = "cuda"

    def __init__(self, driver, library: KernelLibrary):
        self.driver = driver
        self.library = library
        self.stream = driver.stream_create()
        self.pool: dict[int, list[int]] = {}
        self.blocks: list[int] = []  # every pointer allocated (freed at close)
        self.bytes_allocated = 0
        self.capturing: list | None = None  # keepalive of the graph being captured
        self.capture_start = 0.0
        self.graphs: list[DeviceGraph] = []
        self.trace: LaunchList | None = None
        self.launch_count = 0
        self._after_launch: list = []  # scratch blocks to return once the launch is queued
        self.closed = False

    # ---- memory --------------------------------------------------------------------------

    def _alloc(self, nbytes: int) -> tuple[int, bool]:
        """A block of `nbytes` (pooled by size). Returns (ptr, graph_owned)."""
        if self.capturing is None:
            free = self.pool.get(nbytes)
            if free:
                return free.pop(), False
        ptr = self.driver.mem_alloc(nbytes)
        self.blocks.append(ptr)
        self.bytes_allocated += nbytes
        return ptr, self.capturing is not None

    def _storage(self, nbytes: int) -> DeviceStorage:
        ptr, owned = self._alloc(nbytes)
        storage = DeviceStorage(ptr, nbytes, owned)
        if not owned:
            # Back to the pool when nothing refers to it any more: TVM's VM counts references
            # (a kill drops the register's; a view or the alloc cache keeps its storage).
            weakref.finalize(storage, self._release, ptr, nbytes)
        return storage

    def _release(self, ptr: int, nbytes: int) -> None:
        if not self.closed:
            self.pool.setdefault(nbytes, []).append(ptr)

    def alloc_storage(self, nbytes: int) -> DeviceStorage:
        return self._storage(nbytes)

    def view(self, storage: DeviceStorage, offset: int, shape: tuple, dtype: str):
        t = DeviceTensor(storage.ptr + offset, shape, dtype, storage, offset)
        if offset < 0 or offset + t.nbytes > storage.nbytes:
            raise ExecError(f"a tensor of {t.nbytes} bytes at offset {offset} does not fit its "
                            f"storage of {storage.nbytes} bytes")
        return t

    def alloc_tensor(self, shape: tuple, dtype: str):
        n = int(np.prod(shape, dtype=np.int64)) * numpy_dtype(dtype).itemsize
        storage = self._storage(n)
        return DeviceTensor(storage.ptr, shape, dtype, storage, 0)

    def copy(self, t: DeviceTensor) -> DeviceTensor:
        """R.to_vdevice: the bytes into a new tensor, in stream order (one GPU: a device to
        device copy stands for every copy between the module's vdevices). Not a kernel
        launch: launch_count does not count it."""
        out = self.alloc_tensor(tuple(t.shape), t.dtype)
        if t.nbytes:
            # on a capturing stream, a memcpy node of the graph; traced like a scratch copy
            self._issue(CopyOp(out.ptr, t.ptr, t.nbytes))
        return out

    def copy_into(self, src: DeviceTensor, dst: DeviceTensor) -> None:
        """A stateful builtin's copy (a KV cache's append): in stream order, and a memcpy
        node of the graph on a capturing stream, as `copy` is."""
        if src.nbytes != dst.nbytes:
            raise ExecError(f"a copy of {src.nbytes} bytes into a tensor of {dst.nbytes}")
        if src.nbytes:
            self._issue(CopyOp(dst.ptr, src.ptr, src.nbytes))

    def _scratch(self, nbytes: int) -> int:
        ptr, _ = self._alloc(nbytes)
        if self.capturing is None and self.trace is None:
            # Back to the pool after the launch is queued: stream order keeps the copy and
            # the kernel ahead of any later use of the block.
            self._after_launch.append((nbytes, ptr))
        return ptr

    # ---- kernels -------------------------------------------------------------------------

    def launch(self, spec: KernelSpec, tensors: list, scalars: list) -> None:
        self._after_launch = []
        prim = self.library.manifest_kernels(spec.name)
        if prim is not None:
            # Workspaces are scratch blocks: back to the pool once the call's kernels are
            # queued (stream order keeps a later user behind them); kept for good inside a
            # capture or a traced call, whose launches run again on the same pointers.
            for op in plan_manifest_launch(prim, tensors, scalars, self._scratch):
                self._issue(op, self.library.kernel_function(op.kernel, op.shared_bytes))
            for nbytes, ptr in self._after_launch:
                self._release(ptr, nbytes)
            self.launch_count += 1
            return
        user = self.library.user_function(spec.name) if self.library.user_names else None
        if user is not None:
            ops = [plan_user_launch(spec.name, tensors, scalars)]
        else:
            ops = plan_launch(spec, tensors, scalars, self._scratch)
        for op in ops:
            self._issue(op, user)
        for nbytes, ptr in self._after_launch:
            self._release(ptr, nbytes)
        self.launch_count += 1

    def _issue(self, op, user=None) -> None:
        d = self.driver
        if isinstance(op, CopyOp):
            d.copy_async(op.dst, op.src, op.nbytes, self.stream)
            if self.trace is not None:
                self.trace.items.append(("cuMemcpyDtoDAsync",
                                         d.copy_thunk(op.dst, op.src, op.nbytes, self.stream)))
            return
        func = user if user is not None else self.library.function(op.kernel)
        # Dynamic shared memory only where a kernel has some: the simulated driver of the
        # tests takes the five arguments of cgraph's own kernels.
        shared = (op.shared_bytes,) if op.shared_bytes else ()
        d.launch(func, op.grid, op.block, op.params_addr, self.stream, *shared)
        if self.capturing is not None:
            self.capturing.append(op)
        if self.trace is not None:
            self.trace.items.append((f"cuLaunchKernel({op.kernel})", d.launch_thunk(
                func, op.grid, op.block, op.params_addr, self.stream, *shared)))
            self.trace.keepalive.append(op)

    # ---- graphs --------------------------------------------------------------------------

    def begin_capture(self) -> None:
        if self.capturing is not None:
            raise ExecError("a CUDA graph capture inside another capture")
        self.capture_start = time.perf_counter()
        self.driver.begin_capture(self.stream)
        self.capturing = []

    def end_capture(self) -> DeviceGraph:
        keep, self.capturing = self.capturing, None
        graph = self.driver.end_capture(self.stream)
        exec_ = self.driver.instantiate(graph)
        g = DeviceGraph(graph, exec_, self.driver.graph_nodes(graph),
                        time.perf_counter() - self.capture_start, keep)
        self.graphs.append(g)
        self._graph_launch(g)  # run once, as TVM's runtime does right after capturing
        return g

    def replay(self, graph: DeviceGraph) -> None:
        self._graph_launch(graph)

    def _graph_launch(self, g: DeviceGraph) -> None:
        self.driver.graph_launch(g.exec, self.stream)
        if self.trace is not None:
            self.trace.items.append(("cuGraphLaunch", self.driver.graph_thunk(g.exec,
                                                                               self.stream)))

    # ---- data ----------------------------------------------------------------------------

    def to_numpy(self, t: DeviceTensor) -> np.ndarray:
        self.driver.stream_sync(self.stream)
        out = np.empty(t.shape, dtype=numpy_dtype(t.dtype))
        self.driver.dtoh(out.ctypes.data, t.ptr, t.nbytes)
        return out

    def from_numpy(self, a: np.ndarray, term: tuple | None = None) -> DeviceTensor:
        """`term` is for a backend that keeps terms: this one keeps none."""
        a = np.ascontiguousarray(a).reshape(np.shape(a))  # 0-d stays 0-d
        dtype = str(a.dtype)
        t = self.alloc_tensor(a.shape, dtype)
        self.driver.stream_sync(self.stream)
        self.driver.htod(t.ptr, a.ctypes.data, a.nbytes)
        return t

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        d = self.driver
        d.stream_sync(self.stream)
        for g in self.graphs:
            d.graph_destroy(g.graph, g.exec)
        for ptr in self.blocks:
            d.mem_free(ptr)
        d.stream_destroy(self.stream)
        self.graphs, self.blocks, self.pool = [], [], {}
