"""A simulated CUDA driver for the tests: the CUDA backend's whole path without a GPU.

It has CudaDriver's methods (cuda/cuda_driver.py). Memory is host memory (a device pointer is
a host address; fresh blocks are filled with 0xCD, as nothing clears a cuMemAlloc), kernels
are cuda/kernels.cu compiled for the host by g++ with CGRAPH_HOST defined (the same text NVRTC
compiles), called through their `cg_host_<name>` entry points with the packed parameter array
the backend built. A capture records launches instead of running them; a graph launch runs
the recorded ones. The stream is synchronous; synchronising it while it captures is an
error, as on a GPU.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
import time

import numpy as np

from cudagraph_cli.cuda.cuda_driver import DriverError
from cudagraph_cli.cuda.launch_manifest import read_manifest

_BUILT: dict[str, ctypes.CDLL] = {}


def gxx() -> str | None:
    return shutil.which("g++")


def build_host_library(source: str) -> ctypes.CDLL:
    key = hashlib.sha256(source.encode()).hexdigest()[:16]
    lib = _BUILT.get(key)
    if lib is None:
        d = tempfile.mkdtemp(prefix="cgraph-host-")
        src = os.path.join(d, "kernels.cu")
        so = os.path.join(d, "kernels.so")
        with open(src, "w") as fh:
            fh.write(source)
        subprocess.run([gxx(), "-O2", "-shared", "-fPIC", "-x", "c++", "-DCGRAPH_HOST",
                        "-Wall", "-o", so, src], check=True, capture_output=True,
                       text=True)
        lib = _BUILT[key] = ctypes.CDLL(so)
    return lib


class HostDriver:
    kind = "host"
    name = "simulated (host)"
    arch = "host"
    cc = (0, 0)
    sm_count = 1
    driver_version = 0

    def __init__(self, ordinal: int = 0):
        self.ordinal = ordinal
        self.memory: dict[int, np.ndarray] = {}
        self.capture: dict[int, list] = {}
        self.launches = 0
        self.graph_launches = 0
        self.freed: list[int] = []
        self.streams = 0

    # memory
    def mem_alloc(self, nbytes: int) -> int:
        buf = np.full(max(nbytes, 1), 0xCD, dtype=np.uint8)
        ptr = buf.ctypes.data
        self.memory[ptr] = buf
        return ptr

    def mem_free(self, ptr: int) -> None:
        del self.memory[ptr]
        self.freed.append(ptr)

    def htod(self, ptr: int, host_addr: int, nbytes: int) -> None:
        ctypes.memmove(ptr, host_addr, nbytes)

    def dtoh(self, host_addr: int, ptr: int, nbytes: int) -> None:
        ctypes.memmove(host_addr, ptr, nbytes)

    def mem_info(self):
        return (1 << 30, 1 << 30)

    # modules
    def load_source(self, source: str, name: str):
        return build_host_library(source), False

    def get_function(self, module, name: str):
        return getattr(module, "cg_host_" + name)

    # launches
    def _run_kernel(self, func, grid, block, params):
        self.launches += 1
        func(ctypes.c_void_p(params), ctypes.c_uint(grid), ctypes.c_uint(block))

    def launch(self, func, grid, block, params, stream) -> None:
        if stream in self.capture:
            self.capture[stream].append(("kernel", func, grid, block, params))
        else:
            self._run_kernel(func, grid, block, params)

    def launch_thunk(self, func, grid, block, params, stream):
        def thunk():
            self.launch(func, grid, block, params, stream)
            return (0,)
        return thunk

    def copy_async(self, dst, src, nbytes, stream) -> None:
        if stream in self.capture:
            self.capture[stream].append(("copy", dst, src, nbytes))
        else:
            ctypes.memmove(dst, src, nbytes)

    def copy_thunk(self, dst, src, nbytes, stream):
        def thunk():
            self.copy_async(dst, src, nbytes, stream)
            return (0,)
        return thunk

    # streams, graphs, events
    def stream_create(self):
        self.streams += 1
        return self.streams

    def stream_sync(self, stream) -> None:
        if stream in self.capture:  # as CUDA: a capturing stream cannot be waited on
            raise DriverError("cuStreamSynchronize failed: CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED")

    def stream_destroy(self, stream) -> None:
        pass

    def begin_capture(self, stream) -> None:
        assert stream not in self.capture, "nested capture"
        self.capture[stream] = []

    def end_capture(self, stream):
        return self.capture.pop(stream)

    def graph_nodes(self, graph) -> int:
        return len(graph)

    def instantiate(self, graph):
        return list(graph)

    def graph_launch(self, graph_exec, stream) -> None:
        self.graph_launches += 1
        for op in graph_exec:
            if op[0] == "kernel":
                self._run_kernel(*op[1:])
            else:
                ctypes.memmove(op[1], op[2], op[3])

    def graph_thunk(self, graph_exec, stream):
        def thunk():
            self.graph_launch(graph_exec, stream)
            return (0,)
        return thunk

    def graph_destroy(self, graph, graph_exec) -> None:
        pass

    def event_create(self):
        return [0.0]

    def event_record(self, event, stream) -> None:
        event[0] = time.perf_counter()

    def event_elapsed_ms(self, start, end) -> float:
        return (end[0] - start[0]) * 1e3

    def event_destroy(self, event) -> None:
        pass

    def check(self, result, what: str) -> None:
        if result[0]:
            raise RuntimeError(what)

    def release(self) -> None:
        pass


class RecordingDriver(HostDriver):
    """The simulated driver, where a `cgraph kernels` file's kernels are recorded, not run:
    (kernel, grid, block, shared bytes, the packed parameter values)."""

    def __init__(self, ordinal: int = 0):
        super().__init__(ordinal)
        self.recorded: list = []
        # Per recorded launch, per pointer parameter: (base, size) of the block it points
        # into when the kernel runs, or None (a pointer to no live block).
        self.pointer_blocks: list = []
        self.kernel_params: dict = {}
        # Zero every block a TVM kernel gets a pointer into, and every new block: what a
        # kernel leaves (or, where TVM made none, what was there) is then the same in eager
        # and graph runs, whatever the memory held before.
        self.zero_buffers = False

    def mem_alloc(self, nbytes: int) -> int:
        ptr = super().mem_alloc(nbytes)
        if self.zero_buffers:
            self.memory[ptr][:] = 0
        return ptr

    def load_source(self, source, name):
        manifest = read_manifest(source, name)
        if manifest is None:
            return super().load_source(source, name)
        self.kernel_params = {k.name: k.params for p in manifest.prim_funcs.values()
                              for k in p.kernels}
        return ("tvm-module", manifest), False

    def get_function(self, module, name):
        if isinstance(module, tuple):
            assert name in self.kernel_params, name
            return ("tvm-kernel", name)
        return super().get_function(module, name)

    def launch(self, func, grid, block, params, stream, shared_bytes=0):
        if stream in self.capture:
            self.capture[stream].append(("kernel", func, grid, block, params, shared_bytes))
        else:
            self._run_kernel(func, grid, block, params, shared_bytes)

    def launch_thunk(self, func, grid, block, params, stream, shared_bytes=0):
        def thunk():
            self.launch(func, grid, block, params, stream, shared_bytes)
            return (0,)
        return thunk

    def _run_kernel(self, func, grid, block, params, shared_bytes=0):
        if not isinstance(func, tuple):
            return super()._run_kernel(func, grid, block, params)
        self.launches += 1
        name = func[1]
        pointers = ctypes.cast(params, ctypes.POINTER(ctypes.c_void_p))
        values = []
        for i, kp in enumerate(self.kernel_params[name]):
            addr = pointers[i]
            ct = ctypes.c_uint64 if kp.is_pointer else \
                {"int64": ctypes.c_int64, "int32": ctypes.c_int32,
                 "float32": ctypes.c_float}[kp.dtype]
            values.append(ct.from_address(addr).value)
        blocks = [next(((base, buf.size) for base, buf in self.memory.items()
                        if base <= v < base + buf.size), None)
                  for v, kp in zip(values, self.kernel_params[name]) if kp.is_pointer]
        live = [b is not None for b in blocks]
        self.recorded.append((name, tuple(grid), tuple(block), shared_bytes, values, live))
        self.pointer_blocks.append(blocks)
        if self.zero_buffers:
            for v, kp in zip(values, self.kernel_params[name]):
                for base, buf in self.memory.items():
                    if kp.is_pointer and base <= v < base + buf.size:
                        buf[:] = 0
