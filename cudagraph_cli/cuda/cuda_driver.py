"""The CUDA driver API as the CUDA backend uses it (cuda.bindings.driver), and device facts
(pynvml, from the nvidia-ml-py package).

`CudaDriver` is a thin layer: every call's result code is checked and a failure raises
DriverError naming the call and the CUDA error. The backend talks only to this class's
methods, so the tests can put a simulated driver in its place (tests/helpers/host_driver.py runs the
same kernels.cu, compiled for the host).
"""

from __future__ import annotations

import functools


class DriverUnavailable(RuntimeError):
    """No CUDA driver, no device of that ordinal, or no cuda-python: nothing runs on a GPU."""


class DriverError(RuntimeError):
    """A CUDA call failed."""


def _load():
    try:
        from cuda.bindings import driver
    except ImportError:
        try:
            from cuda import cuda as driver  # cuda-python 11.x / early 12.x
        except ImportError:
            raise DriverUnavailable("cuda-python is not installed") from None
    return driver


def _dims(n) -> tuple:
    return (int(n), 1, 1) if isinstance(n, int) else tuple(int(x) for x in n)


class CudaDriver:
    """One device's primary context (shared with other libraries, PyTorch included)."""

    kind = "cuda"

    def __init__(self, ordinal: int):
        d = self.d = _load()
        try:
            (err,) = d.cuInit(0)
        except Exception as e:  # libcuda.so is not found (cuda.pathfinder raises)
            raise DriverUnavailable(f"no CUDA driver ({str(e).splitlines()[0]})") from None
        if int(err):
            raise DriverUnavailable(f"no usable CUDA driver (cuInit: {self._name(err)})")
        count = self._ck(d.cuDeviceGetCount(), "cuDeviceGetCount")
        if ordinal >= count:
            raise DriverUnavailable(f"no GPU {ordinal}: this machine has {count}")
        self.ordinal = ordinal
        self.device = self._ck(d.cuDeviceGet(ordinal), "cuDeviceGet")
        self.context = self._ck(d.cuDevicePrimaryCtxRetain(self.device),
                                "cuDevicePrimaryCtxRetain")
        self._ck(d.cuCtxSetCurrent(self.context), "cuCtxSetCurrent")
        attr = d.CUdevice_attribute
        self.cc = (self._attr(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
                   self._attr(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR))
        self.sm_count = self._attr(attr.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
        name = self._ck(d.cuDeviceGetName(256, self.device), "cuDeviceGetName")
        self.name = name.split(b"\0", 1)[0].decode(errors="replace")
        self.driver_version = self._ck(d.cuDriverGetVersion(), "cuDriverGetVersion")
        try:  # NVML numbers devices its own way (CUDA_VISIBLE_DEVICES): match by PCI bus id
            bus = self._ck(d.cuDeviceGetPCIBusId(32, self.device), "cuDeviceGetPCIBusId")
            self.pci_bus_id = bus.split(b"\0", 1)[0].decode()
        except Exception:
            self.pci_bus_id = None
        self._released = False

    @property
    def arch(self) -> str:
        return f"sm_{self.cc[0]}{self.cc[1]}"

    # ---- checking ------------------------------------------------------------------------

    def _name(self, err) -> str:
        try:
            r = self.d.cuGetErrorName(err)
            return r[1].decode() if not int(r[0]) else str(err)
        except Exception:
            return str(err)

    def _ck(self, result, what: str):
        err = result[0]
        if int(err):
            raise DriverError(f"{what} failed: {self._name(err)}")
        return result[1] if len(result) == 2 else result[1:] if len(result) > 2 else None

    def _attr(self, a) -> int:
        return int(self._ck(self.d.cuDeviceGetAttribute(a, self.device), "cuDeviceGetAttribute"))

    # ---- memory --------------------------------------------------------------------------

    def mem_alloc(self, nbytes: int) -> int:
        return int(self._ck(self.d.cuMemAlloc(max(nbytes, 1)), f"cuMemAlloc({nbytes})"))

    def mem_free(self, ptr: int) -> None:
        self._ck(self.d.cuMemFree(ptr), "cuMemFree")

    def htod(self, ptr: int, host_addr: int, nbytes: int) -> None:
        if nbytes:
            self._ck(self.d.cuMemcpyHtoD(ptr, host_addr, nbytes), "cuMemcpyHtoD")

    def dtoh(self, host_addr: int, ptr: int, nbytes: int) -> None:
        if nbytes:
            self._ck(self.d.cuMemcpyDtoH(host_addr, ptr, nbytes), "cuMemcpyDtoH")

    def mem_info(self) -> tuple[int, int]:
        free, total = self._ck(self.d.cuMemGetInfo(), "cuMemGetInfo")
        return int(free), int(total)

    # ---- modules and launches ------------------------------------------------------------

    def load_source(self, source: str, name: str):
        """Compile CUDA C for this device (NVRTC, disk cache) and load it: (module, cached)."""
        from .nvrtc import compile_cubin

        cubin, cached = compile_cubin(source, self.arch, name)
        return self.load_module(cubin), cached

    def load_module(self, cubin: bytes):
        return self._ck(self.d.cuModuleLoadData(cubin), "cuModuleLoadData")

    def get_function(self, module, name: str):
        return self._ck(self.d.cuModuleGetFunction(module, name.encode()),
                        f"cuModuleGetFunction({name})")

    def launch(self, func, grid, block, params: int, stream, shared_bytes: int = 0) -> None:
        """`grid` and `block`: a count of x, or (x, y, z) (TVM's kernels)."""
        self._ck(self.d.cuLaunchKernel(func, *_dims(grid), *_dims(block), shared_bytes, stream,
                                       params, 0), "cuLaunchKernel")

    def launch_thunk(self, func, grid, block, params: int, stream, shared_bytes: int = 0):
        """A call with no arguments that launches and returns the result code (0 = ok): the
        eager launch list's loop calls these with nothing else in between."""
        return functools.partial(self.d.cuLaunchKernel, func, *_dims(grid), *_dims(block),
                                 shared_bytes, stream, params, 0)

    def set_max_dynamic_shared(self, func, nbytes: int) -> None:
        """Past 48 KiB a kernel's dynamic shared memory must be allowed first, as TVM's
        runtime does before launching."""
        a = self.d.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
        self._ck(self.d.cuFuncSetAttribute(func, a, nbytes), "cuFuncSetAttribute")

    def copy_async(self, dst: int, src: int, nbytes: int, stream) -> None:
        self._ck(self.d.cuMemcpyDtoDAsync(dst, src, nbytes, stream), "cuMemcpyDtoDAsync")

    def copy_thunk(self, dst: int, src: int, nbytes: int, stream):
        return functools.partial(self.d.cuMemcpyDtoDAsync, dst, src, nbytes, stream)

    # ---- streams, graphs, events ---------------------------------------------------------

    def stream_create(self):
        flags = int(self.d.CUstream_flags.CU_STREAM_NON_BLOCKING)
        return self._ck(self.d.cuStreamCreate(flags), "cuStreamCreate")

    def stream_sync(self, stream) -> None:
        self._ck(self.d.cuStreamSynchronize(stream), "cuStreamSynchronize")

    def stream_destroy(self, stream) -> None:
        self._ck(self.d.cuStreamDestroy(stream), "cuStreamDestroy")

    def begin_capture(self, stream) -> None:
        # Relaxed: memory may be allocated while capturing (the pool's first use of a size).
        mode = self.d.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_RELAXED
        self._ck(self.d.cuStreamBeginCapture(stream, mode), "cuStreamBeginCapture")

    def end_capture(self, stream):
        return self._ck(self.d.cuStreamEndCapture(stream), "cuStreamEndCapture")

    def graph_nodes(self, graph) -> int:
        r = self._ck(self.d.cuGraphGetNodes(graph, 0), "cuGraphGetNodes")
        return int(r[-1])

    def instantiate(self, graph):
        return self._ck(self.d.cuGraphInstantiate(graph, 0), "cuGraphInstantiate")

    def graph_launch(self, graph_exec, stream) -> None:
        self._ck(self.d.cuGraphLaunch(graph_exec, stream), "cuGraphLaunch")

    def graph_thunk(self, graph_exec, stream):
        return functools.partial(self.d.cuGraphLaunch, graph_exec, stream)

    def graph_destroy(self, graph, graph_exec) -> None:
        self._ck(self.d.cuGraphExecDestroy(graph_exec), "cuGraphExecDestroy")
        self._ck(self.d.cuGraphDestroy(graph), "cuGraphDestroy")

    def event_create(self):
        return self._ck(self.d.cuEventCreate(0), "cuEventCreate")

    def event_record(self, event, stream) -> None:
        self._ck(self.d.cuEventRecord(event, stream), "cuEventRecord")

    def event_elapsed_ms(self, start, end) -> float:
        self._ck(self.d.cuEventSynchronize(end), "cuEventSynchronize")
        return float(self._ck(self.d.cuEventElapsedTime(start, end), "cuEventElapsedTime"))

    def event_destroy(self, event) -> None:
        self._ck(self.d.cuEventDestroy(event), "cuEventDestroy")

    def check(self, result, what: str) -> None:
        """Check a thunk's result code."""
        err = result[0] if isinstance(result, tuple) else result
        if int(err):
            raise DriverError(f"{what} failed: {self._name(err)}")

    def release(self) -> None:
        if not self._released:
            self._released = True
            self.d.cuCtxSynchronize()
            self.d.cuDevicePrimaryCtxRelease(self.device)


def open_driver(ordinal: int):
    """The driver for GPU `ordinal`, or DriverUnavailable (tests replace this function)."""
    return CudaDriver(ordinal)


def device_facts(ordinal: int, pci_bus_id: str | None = None) -> dict:
    """What NVML says about the device now: clocks, memory, temperature, power. The device is
    found by PCI bus id when given (NVML ignores CUDA_VISIBLE_DEVICES), else by index. Missing
    facts are left out (NVML absent, or a field this device does not report)."""
    facts: dict = {}
    try:
        import pynvml
    except ImportError:
        return {"nvml": "nvidia-ml-py is not installed"}
    try:
        pynvml.nvmlInit()
    except Exception as e:
        return {"nvml": f"unavailable ({type(e).__name__})"}
    try:
        h = pynvml.nvmlDeviceGetHandleByPciBusId(pci_bus_id.encode()) if pci_bus_id else \
            pynvml.nvmlDeviceGetHandleByIndex(ordinal)

        def get(key, fn, *args, scale=1):
            try:
                v = fn(*args)
                facts[key] = v.decode() if isinstance(v, bytes) else \
                    (v / scale if scale != 1 else v)
            except Exception:
                pass

        get("name", pynvml.nvmlDeviceGetName, h)
        get("driver", pynvml.nvmlSystemGetDriverVersion)
        get("sm_clock_mhz", pynvml.nvmlDeviceGetClockInfo, h, pynvml.NVML_CLOCK_SM)
        get("mem_clock_mhz", pynvml.nvmlDeviceGetClockInfo, h, pynvml.NVML_CLOCK_MEM)
        get("sm_clock_max_mhz", pynvml.nvmlDeviceGetMaxClockInfo, h, pynvml.NVML_CLOCK_SM)
        get("temperature_c", pynvml.nvmlDeviceGetTemperature, h, pynvml.NVML_TEMPERATURE_GPU)
        get("power_w", pynvml.nvmlDeviceGetPowerUsage, h, scale=1000)
        get("power_limit_w", pynvml.nvmlDeviceGetEnforcedPowerLimit, h, scale=1000)
        try:
            mem = pynvml.nvmlDeviceGetMemoryInfo(h)
            facts["memory_used_mib"] = mem.used // (1 << 20)
            facts["memory_total_mib"] = mem.total // (1 << 20)
        except Exception:
            pass
    except Exception as e:
        facts["nvml"] = f"unavailable ({type(e).__name__})"
    finally:
        try:
            pynvml.nvmlShutdown()
        except Exception:
            pass
    return facts
