"""The CUDA backend without a GPU, and with one (`pytest -m gpu`).

Without a GPU:
* every kernel of cuda/kernels.cu compiles with NVRTC for sm_80 and sm_90 (the
  nvidia-cuda-nvrtc wheel needs no GPU), through the disk cache;
* the same kernels.cu, compiled for the host (tests/helpers/host_driver.py), computes what the NumPy
  reference computes, bit for bit: elementwise builtins on every float dtype with
  broadcasting, NaN, infinities and signed zeros; the synthetic kernel with wrap-around,
  many inputs and aliasing inputs and outputs;
* launch planning and argument packing (ctypes structs against the C structs' sizes);
* the whole backend -- pool, capture, instantiate, replay, launch lists, timing -- through the
  simulated driver, on every runnable sample, checked against the reference executor;
* `cgraph run --device 0` without a driver: one line, exit 2.
"""

from __future__ import annotations

import ctypes
import json

import numpy as np
import pytest

from cli_runner import cgraph
from conftest import ROOT, run_cli, nvrtc_or_skip
from host_driver import HostDriver, build_host_library, gxx
from synthetic_formula import synthetic_by_hand
from cudagraph_cli.cuda import nvrtc
from cudagraph_cli.exec.backend import CpuBackend, ExecError
from cudagraph_cli.cuda.cuda_backend import (LARGE_IN, LIBRARY_KERNELS, CopyOp, CudaBackend,
                                             EwArgs, KernelLibrary, KernelOp, LaunchList,
                                             SynthLarge, SynthSmall, plan_launch,
                                             plan_user_launch, user_kernel_names)
from cudagraph_cli.cuda.gpu_run import RunOptions, run_on_gpu, time_list
from cudagraph_cli.exec.interpreter import Executor
from cudagraph_cli.exec.kernels import ELEMENTWISE, KernelSpec, run_numpy
from cudagraph_cli.text.reader import parse_module
from cudagraph_cli.report.run_view import to_json

MODELS = ROOT / "samples" / "models"
TVM_DIR = ROOT / "samples" / "tvm"




@pytest.fixture
def sim_cli(monkeypatch):
    """cli_runner's `cgraph`, with --device N on the simulated driver (`driver`)."""
    from cudagraph_cli.cuda import cuda_driver

    if gxx() is None:
        pytest.skip("g++ is needed to run kernels.cu on the host")

    def on_the_simulated_driver(*args, driver=HostDriver):
        monkeypatch.setattr(cuda_driver, "open_driver", driver)
        return cgraph(*args)
    return on_the_simulated_driver


@pytest.fixture(scope="module")
def host():
    if gxx() is None:
        pytest.skip("g++ is needed to run kernels.cu on the host")
    drv = HostDriver()
    return drv, KernelLibrary(drv)


# ---- NVRTC ------------------------------------------------------------------------------------

@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_every_library_kernel_compiles_to_a_cubin(arch, tmp_path, monkeypatch):
    nvrtc_or_skip()
    monkeypatch.setenv("CGRAPH_CACHE_DIR", str(tmp_path))
    cubin, cached = nvrtc.compile_cubin(nvrtc.library_source(), arch)
    assert not cached and cubin.startswith(b"\x7fELF")
    for name in LIBRARY_KERNELS:  # extern "C": the symbol is the name
        assert name.encode() + b"\0" in cubin, name
    # The ELF header's e_flags carry the SM version (low byte) in CUDA cubins.
    again, cached = nvrtc.compile_cubin(nvrtc.library_source(), arch)
    assert cached and again == cubin
    assert len(list(tmp_path.glob("*.cubin"))) == 1


def test_cache_is_keyed_by_arch_and_source_and_survives_a_bad_file(tmp_path, monkeypatch):
    nvrtc_or_skip()
    monkeypatch.setenv("CGRAPH_CACHE_DIR", str(tmp_path))
    src = 'extern "C" __global__ void k(float* a) { a[threadIdx.x] = 1.0f; }\n'
    a, _ = nvrtc.compile_cubin(src, "sm_80", "k.cu")
    b, _ = nvrtc.compile_cubin(src, "sm_90", "k.cu")
    assert a != b and len(list(tmp_path.glob("*.cubin"))) == 2
    for f in tmp_path.glob("*.cubin"):
        f.write_bytes(b"garbage")
    c, cached = nvrtc.compile_cubin(src, "sm_80", "k.cu")
    assert not cached and c == a


def test_a_user_kernel_error_is_located_in_its_file():
    nvrtc_or_skip()
    src = ('extern "C" __global__ void add(float* a, float* b, float* c, long long n) {\n'
           '    long long i = blockIdx.x * blockDim.x + threadIdx.x;\n'
           '    if (i < n) c[i] = a[i] + bb[i];\n'
           '}\n')
    with pytest.raises(nvrtc.CompileError) as e:
        nvrtc.compile_cubin(src, "sm_90", "mine.cu", use_cache=False)
    text = e.value.render()
    assert text.splitlines()[0] == 'mine.cu:3:30: error: NVRTC (sm_90): identifier "bb" is ' \
                                   'undefined'
    assert text.splitlines()[2] == " " * 29 + "^"
    assert user_kernel_names(src) == ["add"]


def test_nvrtc_targets_include_the_archs_we_promise():
    nvrtc_or_skip()
    assert {"sm_80", "sm_90"} <= set(nvrtc.supported_archs())


# ---- argument structs ---------------------------------------------------------------------------

def test_ctypes_structs_match_the_c_structs(host):
    lib = build_host_library(nvrtc.library_source())
    lib.cg_sizeof.restype = ctypes.c_uint64
    assert [lib.cg_sizeof(i) for i in range(3)] == \
        [ctypes.sizeof(SynthSmall), ctypes.sizeof(SynthLarge), ctypes.sizeof(EwArgs)]
    assert ctypes.sizeof(SynthLarge) <= 4096  # the kernel parameter limit


def test_half_conversion_equals_numpy():
    if gxx() is None:
        pytest.skip("g++ needed")
    lib = build_host_library(nvrtc.library_source())
    to_half = lib.cg_host_f64_to_f16
    to_half.restype, to_half.argtypes = ctypes.c_uint16, [ctypes.c_double]
    from_half = lib.cg_host_f16_to_f64
    from_half.restype, from_half.argtypes = ctypes.c_double, [ctypes.c_uint16]
    rng = np.random.default_rng(7)
    specials = [0.0, -0.0, 65504.0, 65519.99, 65520.0, 1e6, -1e6, 2.0 ** -24, 2.0 ** -25,
                2.0 ** -25 * 1.0000001, 3 * 2.0 ** -26, 6.1e-5, 2.0 ** -14, np.inf, -np.inf,
                1 + 2.0 ** -11, 1 + 3 * 2.0 ** -11, 1 + 2.0 ** -11 + 2.0 ** -40]
    values = np.concatenate([specials, rng.standard_normal(20000) * 10,
                             rng.standard_normal(5000) * 1e-5,
                             np.exp(rng.uniform(-40, 12, 5000))])
    got = np.array([to_half(float(v)) for v in values], dtype=np.uint16)
    with np.errstate(over="ignore"):
        assert (got == values.astype(np.float16).view(np.uint16)).all()
    assert to_half(float("nan")) == 0x7E00 and to_half(-float("nan")) == 0x7E00
    every = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    back = np.array([from_half(int(h)) for h in every])
    ref = every.view(np.float16).astype(np.float64)
    finite = ~np.isnan(ref)
    assert (back[finite] == ref[finite]).all() and np.isnan(back[~finite]).all()


# ---- the kernels on the host against the reference ---------------------------------------------

def _pair(host, arrays):
    """The same arrays on the simulated GPU and on the CPU backend."""
    drv, lib = host
    gpu = CudaBackend(drv, lib)
    return gpu, [gpu.from_numpy(a.copy()) for a in arrays], [a.copy() for a in arrays]


def _special(rng, shape, dtype):
    x = rng.standard_normal(shape) * 3
    flat = x.reshape(-1)
    if flat.size >= 8:
        flat[:6] = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e300]
    with np.errstate(over="ignore"):
        return x.astype(dtype)


@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
@pytest.mark.parametrize("dtypes", [("float32",) * 3, ("float16",) * 3, ("float64",) * 3,
                                    ("float16", "float32", "float16"),
                                    ("float64", "float16", "float32")])
def test_elementwise_kernel_equals_reference(host, name, dtypes):
    n_in = ELEMENTWISE[name][0]
    rng = np.random.default_rng(abs(hash((name, dtypes))) % 2 ** 32)
    shapes = [(3, 1, 5), (4, 5)][:n_in]  # broadcasting: (3, 1, 5) and (4, 5) -> (3, 4, 5)
    ins = [_special(rng, s, dt) for s, dt in zip(shapes, dtypes)]
    out = np.zeros((3, 4, 5), dtype=dtypes[-1])
    spec = KernelSpec(name, (n_in,), name)
    gpu, dev, ref = _pair(host, ins + [out])
    gpu.launch(spec, dev, [])
    run_numpy(spec, ref, [])
    got = gpu.to_numpy(dev[-1])
    assert got.tobytes() == ref[-1].tobytes(), (got, ref[-1])


def test_elementwise_in_place_and_overlapping(host):
    """A kernel whose output is its input (same place) runs in place; an input that overlaps
    the output shifted is copied first, as the reference reads every input before writing."""
    drv, lib = host
    rng = np.random.default_rng(3)
    data = rng.standard_normal(64).astype(np.float32)
    for off_in, off_out in [(0, 0), (0, 16), (16, 0)]:
        gpu, cpu = CudaBackend(drv, lib), CpuBackend()
        results = []
        for b in (gpu, cpu):
            s = b.alloc_storage(64 * 4)
            whole = b.view(s, 0, (64,), "float32")
            if b is gpu:
                drv.htod(whole.ptr, data.ctypes.data, data.nbytes)
            else:
                whole.array[...] = data
            x = b.view(s, off_in, (32,), "float32")
            y = b.view(s, off_out, (32,), "float32")
            b.launch(KernelSpec("exp", (1,), "exp"), [x, y], [])
            results.append(b.to_numpy(whole).tobytes())
        assert results[0] == results[1], (off_in, off_out)


@pytest.mark.parametrize("name", ["fused_thing", "transpose", "k"])
@pytest.mark.parametrize("n_in,n_out", [(0, 1), (1, 1), (3, 2), (8, 4), (9, 1), (20, 5)])
def test_synthetic_kernel_equals_reference(host, name, n_in, n_out):
    """Both kernel sizes (over 8 inputs or 4 outputs: cg_synthetic_large), inputs shorter and
    longer than the outputs (wrap-around), three kernel names: three salts, whose two bytes
    (s0, s1) enter the formula in different places."""
    rng = np.random.default_rng(n_in * 10 + n_out)
    ins = [rng.integers(0, 256, int(rng.integers(1, 700)), dtype=np.uint8) for _ in range(n_in)]
    outs = [np.zeros(int(rng.integers(1, 1500)), dtype=np.uint8) for _ in range(n_out)]
    spec = KernelSpec(name, tuple(range(n_in, n_in + n_out)), None)
    gpu, dev, ref = _pair(host, ins + outs)
    gpu.launch(spec, dev, [7, "float16", 2.5])
    run_numpy(spec, ref, [7, "float16", 2.5])
    for i in range(n_in, n_in + n_out):
        assert gpu.to_numpy(dev[i]).tobytes() == ref[i].tobytes()


def test_synthetic_kernel_uses_every_sbox_entry_as_the_formula_says(host):
    """Each input holds every byte value, so that every entry of kernels.cu's S-box table is
    read at every input position; checked against the formula written out byte by byte
    (tests/helpers/synthetic_formula.py: the AES S-box derived from its definition), not only against
    the NumPy reference."""
    values = np.arange(256, dtype=np.uint8)
    ins = [np.roll(values, 37 * k) for k in range(5)] + [values[:3]]
    outs = [np.zeros(700, dtype=np.uint8) for _ in range(2)]
    spec = KernelSpec("every_entry", tuple(range(len(ins), len(ins) + 2)), None)
    gpu, dev, ref = _pair(host, ins + outs)
    gpu.launch(spec, dev, [])
    run_numpy(spec, ref, [])
    for t in range(2):
        got = gpu.to_numpy(dev[len(ins) + t]).tolist()
        assert got == ref[len(ins) + t].tolist()
        assert got == synthetic_by_hand(spec.salt, [a.tolist() for a in ins], 700, t)


@pytest.mark.parametrize("layout", [
    [("in", 0, 64), ("out", 0, 64)],                     # in place, same bytes
    [("in", 0, 64), ("out", 0, 32)],                     # in place, longer input
    [("in", 0, 32), ("out", 0, 64)],                     # wraps: must read a copy
    [("in", 16, 64), ("out", 0, 64)],                    # shifted
    [("in", 0, 40), ("out", 0, 48), ("out", 24, 40)],    # outputs overlap each other
    [("in", 0, 8), ("in", 8, 56), ("out", 4, 60), ("out", 64, 64)],
    # odd lengths in place: the last byte's pair partner is byte 0 (must read a copy), or
    # the byte after the output
    [("in", 0, 63), ("out", 0, 63)],
    [("in", 0, 64), ("out", 0, 63)],
    [("in", 1, 63), ("in", 0, 5), ("out", 1, 63)],
    # five outputs overlapping: one launch each, output index t0 = 0 .. 4
    [("in", 96, 32)] + [("out", 8 * t, 40) for t in range(5)],
    # nine inputs (the large kernel), one of them the output's own bytes
    [("in", 4 * k, 24) for k in range(8)] + [("in", 64, 64), ("out", 64, 64)],
])
def test_synthetic_kernel_with_aliasing_equals_reference(host, layout):
    drv, lib = host
    rng = np.random.default_rng(len(layout))
    init = rng.integers(0, 256, 128, dtype=np.uint8)
    results = []
    for b in (CudaBackend(drv, lib), CpuBackend()):
        s = b.alloc_storage(128)
        whole = b.view(s, 0, (128,), "uint8")
        if isinstance(b, CudaBackend):
            drv.htod(whole.ptr, init.ctypes.data, 128)
        else:
            whole.array[...] = init
        ins = [b.view(s, off, (n,), "uint8") for kind, off, n in layout if kind == "in"]
        outs = [b.view(s, off, (n,), "uint8") for kind, off, n in layout if kind == "out"]
        spec = KernelSpec("k", tuple(range(len(ins), len(ins) + len(outs))), None)
        b.launch(spec, ins + outs, [])
        results.append(b.to_numpy(whole).tobytes())
    assert results[0] == results[1]


# ---- planning and packing -----------------------------------------------------------------------

class _T:
    def __init__(self, ptr, shape, dtype="uint8"):
        self.ptr, self.shape, self.dtype = ptr, tuple(shape), dtype
        self.nbytes = int(np.prod(shape)) * np.dtype(dtype if dtype != "bfloat16"
                                                     else "uint16").itemsize


def test_plan_copies_only_inputs_that_overlap_an_output():
    scratch = iter(range(0x9000, 0x10000, 0x100))
    spec = KernelSpec("k", (2,), None)
    ops = plan_launch(spec, [_T(0x1000, (64,)), _T(0x2000, (64,)), _T(0x1000, (64,))], [],
                      lambda n: next(scratch))
    assert [type(o) for o in ops] == [KernelOp]  # in place at the same address: no copy
    ops = plan_launch(spec, [_T(0x1010, (64,)), _T(0x2000, (64,)), _T(0x1000, (64,))], [],
                      lambda n: next(scratch))
    assert isinstance(ops[0], CopyOp) and (ops[0].src, ops[0].nbytes) == (0x1010, 64)
    k = ops[1]
    assert k.kernel == "cg_synthetic_small" and k.args[0].in_ptr[0] == ops[0].dst
    assert k.args[0].in_ptr[1] == 0x2000 and k.args[0].out_ptr[0] == 0x1000
    assert (k.args[0].n_in, k.args[0].n_out, k.args[0].m_max) == (2, 1, 64)


def test_plan_packs_params_as_an_array_of_pointers():
    spec = KernelSpec("add", (2,), "add")
    a = _T(0x1000, (4, 8), "float32")
    b = _T(0x2000, (8,), "float32")
    c = _T(0x3000, (4, 8), "float16")
    (op,) = plan_launch(spec, [a, b, c], [], None)
    assert op.kernel == "cg_ew_add" and op.block == 256 and op.grid == 1
    params = ctypes.cast(op.params_addr, ctypes.POINTER(ctypes.c_void_p))
    ew = EwArgs.from_address(params[0])
    assert (ew.out, ew.in_[0], ew.in_[1], ew.n, ew.ndim) == (0x3000, 0x1000, 0x2000, 32, 2)
    assert (ew.out_dt, ew.in_dt[0], ew.in_dt[1], ew.flat) == (0, 1, 1, 0b01)
    assert list(ew.stride[0])[:2] == [8, 1] and list(ew.stride[1])[:2] == [0, 1]


def test_plan_chooses_the_kernel_by_argument_count_and_sizes_the_grid():
    many = [_T(0x1000 * (i + 1), (10,)) for i in range(LARGE_IN)] + [_T(0x900000, (1 << 22,))]
    (op,) = plan_launch(KernelSpec("k", (LARGE_IN,), None), many, [], None)
    assert op.kernel == "cg_synthetic_large" and op.grid == 4096  # grid-stride beyond
    with pytest.raises(ExecError, match="at most 126"):
        plan_launch(KernelSpec("k", (LARGE_IN + 1,), None),
                    [_T(0x1000 * (i + 1), (10,)) for i in range(LARGE_IN + 2)], [], None)
    # Not a builtin: an integer add, or one whose input does not broadcast, is synthetic.
    (op,) = plan_launch(KernelSpec("add", (2,), "add"), [_T(1, (4,), "int32")] * 3, [], None)
    assert op.kernel == "cg_synthetic_small"
    (op,) = plan_launch(KernelSpec("add", (2,), "add"),
                        [_T(1, (3,), "float32"), _T(64, (4,), "float32"),
                         _T(128, (4,), "float32")], [], None)
    assert op.kernel == "cg_synthetic_small"


def test_user_kernel_abi():
    op = plan_user_launch("my_add", [_T(0x10, (2, 300), "float32"), _T(0x20, (600,), "float16")],
                          [3, 1.5, "ignored"])
    assert op.grid == 3 and op.block == 256
    assert [type(a) for a in op.args] == [ctypes.c_uint64, ctypes.c_uint64, ctypes.c_int64,
                                          ctypes.c_double, ctypes.c_int64]
    assert [a.value for a in op.args] == [0x10, 0x20, 3, 1.5, 600]


# ---- the backend through the simulated driver ----------------------------------------------------

def test_pool_returns_a_block_when_nothing_refers_to_it(host):
    drv, lib = host
    b = CudaBackend(drv, lib)
    s = b.alloc_storage(100)
    v = b.view(s, 0, (25,), "float32")
    ptr = s.ptr
    del s
    assert b.alloc_storage(100).ptr != ptr  # the view keeps its storage
    del v
    assert b.alloc_storage(100).ptr == ptr
    b.begin_capture()
    owned = b.alloc_storage(100)
    b.end_capture()
    p2 = owned.ptr
    del owned
    assert b.alloc_storage(100).ptr != p2  # a graph's block never returns
    b.close()
    assert not drv.memory or all(p not in drv.memory for p in (ptr, p2))


def test_capture_records_then_runs_once_and_replays(host):
    drv, lib = host
    b = CudaBackend(drv, lib)
    x = b.from_numpy(np.arange(8, dtype=np.float32))
    y = b.alloc_tensor((8,), "float32")
    spec = KernelSpec("add_one", (1,), "add_one")
    before = drv.launches
    b.begin_capture()
    b.launch(spec, [x, y], [])
    b.launch(spec, [y, x], [])
    assert drv.launches == before  # recorded, not run
    g = b.end_capture()
    assert g.nodes == 2 and b.to_numpy(x).tolist() == list(range(2, 10))  # ran once
    b.replay(g)
    assert b.to_numpy(x).tolist() == list(range(4, 12))


def _executors(host, path):
    from cudagraph_cli.passes.pipeline import rewrite

    drv, lib = host
    mod = parse_module(path.read_text())
    return mod, rewrite(mod)[0], drv, lib


def test_launch_lists_replay_what_the_executor_launches(host):
    mod, rw, drv, lib = _executors(host, MODELS / "mlp_block.relax")
    from cudagraph_cli.exec.inputs import Weights, Inputs, to_backend

    inputs = Inputs(0, {})
    f = mod.function("mlp")
    for module in (mod, rw):
        b = CudaBackend(drv, lib)
        ex = Executor(module, b)
        (w,) = Weights(inputs, [b]).of(f)
        args = [to_backend(b, v) for v in inputs.fresh(f, 0)] + w
        ex.call("mlp", args)
        b.trace = LaunchList()
        n0 = b.launch_count
        out = ex.call("mlp", args)
        lst, b.trace = b.trace, None
        expected = b.to_numpy(out).tobytes()
        if module is mod:
            assert lst.count("cuGraphLaunch") == 0 and lst.launches == b.launch_count - n0
        else:
            assert lst.count("cuGraphLaunch") == 1 and lst.launches == b.launch_count - n0 + 1
        # Scribble over the output, replay the list: the same bytes come back.
        drv.htod(out.ptr, np.full(out.nbytes, 7, np.uint8).ctypes.data, out.nbytes)
        lst.run(drv)
        assert b.to_numpy(out).tobytes() == expected
        ms = time_list(drv, b.stream, lst, warmup=1, iters=3)
        assert len(ms) == 3 and all(t >= 0 for t in ms)


def test_one_graph_times_capture_the_eager_call_whole(host):
    """The floor: the eager launch list captured into one graph -- every launch a node, none
    run while capturing -- and replayed; the replay computes what the list does."""
    from cudagraph_cli.cuda import gpu_run
    from cudagraph_cli.exec.inputs import Inputs, Weights, to_backend

    drv, lib = host
    mod = parse_module((MODELS / "mlp_block.relax").read_text())
    b = CudaBackend(drv, lib)
    ex = Executor(mod, b)
    inputs = Inputs(0, {})
    f = mod.function("mlp")
    (w,) = Weights(inputs, [b]).of(f)
    args = [to_backend(b, v) for v in inputs.fresh(f, 0)] + w
    b.trace = LaunchList()
    out = ex.call("mlp", args)
    lst, b.trace = b.trace, None
    expected = b.to_numpy(out).tobytes()
    drv.htod(out.ptr, np.full(out.nbytes, 7, np.uint8).ctypes.data, out.nbytes)
    graphs = []
    instantiate = drv.instantiate
    drv.instantiate = lambda g: (graphs.append(list(g)), instantiate(g))[1]
    launches, replays = drv.launches, drv.graph_launches
    try:
        ms = gpu_run.one_graph_times(drv, b.stream, lst, warmup=1, iters=3)
    finally:
        drv.instantiate = instantiate
    assert len(ms) == 3 and all(t >= 0 for t in ms)
    (nodes,) = graphs
    assert len(nodes) == lst.launches > 1  # the whole list, in one graph
    assert drv.graph_launches - replays == 4  # warm-up + timed, nothing run while capturing
    assert drv.launches - launches == 4 * sum(n[0] == "kernel" for n in nodes)
    assert b.to_numpy(out).tobytes() == expected
    b.close()


def test_run_reports_a_call_that_could_not_be_captured_whole(monkeypatch):
    from cudagraph_cli.cuda.cuda_driver import DriverError

    def refuse(self, stream):
        raise DriverError("cuStreamBeginCapture failed: CUDA_ERROR_NOT_SUPPORTED")

    mod = parse_module((MODELS / "mlp_block.relax").read_text())
    calls = []
    begin = HostDriver.begin_capture

    def begin_capture(self, stream):  # the rewrite's captures work; the floor's does not
        calls.append(stream)
        if len(calls) > 1:
            refuse(self, stream)
        begin(self, stream)

    monkeypatch.setattr(HostDriver, "begin_capture", begin_capture)
    r = run_on_gpu(mod, "mlp_block", RunOptions(calls=1, warmup=1, iters=2),
                   open_device=HostDriver)
    (t,) = r.timings
    assert r.ok and t.one_graph is None and t.graph.samples == 2
    assert t.one_graph_note == ("the eager call could not be captured whole: "
                                "cuStreamBeginCapture failed: CUDA_ERROR_NOT_SUPPORTED")
    doc = to_json(r)["timings"][0]
    assert doc["one_graph_us"] is None and doc["one_graph_note"] == t.one_graph_note


RUNNABLE = ["models/decode_32", "models/prefill_decode", "models/mlp_block",
            "models/dynamic_shape", "tvm/capture_fixed_inputs_before",
            "tvm/dynamic_capture_before", "tvm/rewrite_cuda_graph_before", "tvm/tuple_before",
            "tvm/vm_builtin_before", "tvm/null_value_before"]


@pytest.mark.parametrize("sample", RUNNABLE)
def test_run_on_simulated_gpu_equals_reference(host, sample):
    mod = parse_module((ROOT / "samples" / f"{sample}.relax").read_text())
    options = RunOptions(calls=4, warmup=1, iters=2, shapes={"n": [2, 3], "m": [2, 4]})
    r = run_on_gpu(mod, sample, options, open_device=HostDriver)
    assert r.ok, (r.difference_between, r.difference)
    assert r.compared == "reference (cpu) = eager (GPU) = graph (GPU)"
    assert r.checked and r.timings
    for t in r.timings:
        assert t.launches_graph <= t.launches_eager
    doc = json.loads(json.dumps(to_json(r)))
    assert doc["schema"] == "cgraph-run/1" and doc["ok"] is True


def test_kv_cache_state_on_simulated_gpu_equals_reference(host):
    """The KV-cache builtins keep their contents as state (docs/EXECUTOR.md, "Stateful
    builtins"): appends are device-to-device copies on the run's stream (copy_into), views
    alias the cache's storage, and the GPU computes what the reference computes."""
    mod = parse_module((ROOT / "samples" / "real" / "nn_llama_kv.before.relax").read_text())
    r = run_on_gpu(mod, "nn_llama_kv", RunOptions(calls=4, warmup=1, iters=2),
                   open_device=HostDriver)
    assert r.ok, (r.difference_between, r.difference)
    assert r.compared == "reference (cpu) = eager (GPU) = graph (GPU)"


def test_decode_sample_collapses_its_launches(host):
    mod = parse_module((MODELS / "decode_32.relax").read_text())
    r = run_on_gpu(mod, "decode_32", RunOptions(calls=2, warmup=0, iters=1),
                   open_device=HostDriver)
    (t,) = r.timings
    # 32 layers: the eager list is every kernel; the graph list a few graph launches plus
    # the launches that stay outside (the KV-cache builtin of each layer).
    assert t.launches_eager == 449 and t.graph_launches >= 1
    assert t.launches_graph < t.launches_eager / 5
    assert r.captures == r.graph_nodes.__len__() and r.static_bytes > 0


def test_a_broken_rewrite_is_caught_between_eager_and_graph(host, monkeypatch):
    """The rewrite captures a parameter (a fresh input each call): the graph replays the
    first call's input, eager computes the new one."""
    from test_verify import ORIGINAL, PARAM_CAPTURED
    import cudagraph_cli.cuda.gpu_run as gpu_run

    broken = parse_module(PARAM_CAPTURED)
    monkeypatch.setattr(gpu_run, "rewrite", lambda m: (broken, None))
    r = run_on_gpu(parse_module(ORIGINAL), "m", RunOptions(calls=3, warmup=0, iters=1),
                   open_device=HostDriver)
    assert not r.ok and r.difference_between == "eager (GPU) vs graph (GPU)"
    assert r.difference.call == 1 and not r.timings


def test_already_rewritten_module_is_refused():
    mod = parse_module((TVM_DIR / "vm_builtin_expected.relax").read_text())
    with pytest.raises(ExecError, match="already launches CUDA graphs"):
        run_on_gpu(mod, "x", RunOptions(), open_device=HostDriver)


# ---- the command line ---------------------------------------------------------------------------

def test_run_without_a_gpu_says_so_in_one_line():
    if _gpu() is None:
        pytest.skip("this machine has a GPU")
    r = run_cli("run", str(MODELS / "mlp_block.relax"), "--device", "0")
    err = r.stderr.decode()
    assert r.returncode == 2 and r.stdout == b""
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert err.startswith("cgraph: error: --device 0: ") and "--device cpu" in err


def test_run_cli_on_the_simulated_gpu(sim_cli):
    path = MODELS / "prefill_decode.relax"
    r = sim_cli("run", path, "--device", "0", "--iters", "3", "--warmup", "1", "--shape", "n=2,5")
    assert r.exit_code == 0, r.stderr
    assert "outputs equal bit for bit: reference (cpu) = eager (GPU) = graph (GPU)" in r.stdout
    assert "n=5" in r.stdout and "host launches" in r.stdout
    r = sim_cli("run", path, "--device", "0", "--iters", "2", "--warmup", "0", "--format", "json",
                "--function", "decode")
    doc = json.loads(r.stdout)
    assert r.exit_code == 0 and [t["function"] for t in doc["timings"]] == ["decode"]
    assert doc["check"]["calls"][0] == {"function": "decode", "call": 1, "outputs": 1}
    r = sim_cli("run", path, "--device", "0", "--function", "nope")
    assert r.exit_code == 2 and "no public function named nope" in r.stderr


def test_run_options_that_need_a_gpu_are_refused_on_cpu():
    r = run_cli("run", str(MODELS / "mlp_block.relax"), "--kernels", "k.cu")
    assert r.returncode == 2 and "OUT and --kernels apply to a GPU" in r.stderr.decode()
    r = run_cli("run", str(MODELS / "mlp_block.relax"), "--device", "gpu")
    assert r.returncode == 2 and "expected cpu or a GPU ordinal" in r.stderr.decode()


# ---- on a GPU (pytest -m gpu) -----------------------------------------------------------------

def _gpu() -> str | None:
    """None when GPU 0 answers, else why not."""
    from cudagraph_cli.cuda.cuda_driver import CudaDriver, DriverUnavailable
    try:
        CudaDriver(0).release()
    except DriverUnavailable as e:
        return str(e)
    return None


def _gpu_or_skip():
    why = _gpu()
    if why is not None:
        pytest.skip(f"no GPU: {why}")


@pytest.mark.gpu
@pytest.mark.parametrize("sample", RUNNABLE)
def test_gpu_run_equals_reference(sample):
    _gpu_or_skip()
    mod = parse_module((ROOT / "samples" / f"{sample}.relax").read_text())
    r = run_on_gpu(mod, sample, RunOptions(calls=4, warmup=2, iters=10,
                                           shapes={"n": [2, 3], "m": [2, 4]}))
    assert r.ok, (r.difference_between, r.difference)
    assert r.device["arch"].startswith("sm_")


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_gpu_elementwise_equals_reference(name):
    _gpu_or_skip()
    from cudagraph_cli.cuda.cuda_driver import CudaDriver

    drv = CudaDriver(0)
    try:
        lib = KernelLibrary(drv)
        b = CudaBackend(drv, lib)
        n_in = ELEMENTWISE[name][0]
        rng = np.random.default_rng(1)
        for dt in ("float16", "float32", "float64"):
            ins = [_special(rng, (1000, 33), dt) for _ in range(n_in)]
            out = np.zeros((1000, 33), dtype=dt)
            spec = KernelSpec(name, (n_in,), name)
            dev = [b.from_numpy(a) for a in ins + [out]]
            b.launch(spec, dev, [])
            ref = [a.copy() for a in ins + [out]]
            run_numpy(spec, ref, [])
            assert b.to_numpy(dev[-1]).tobytes() == ref[-1].tobytes(), dt
        b.close()
    finally:
        drv.release()


@pytest.mark.gpu
def test_gpu_cli_run_json():
    _gpu_or_skip()
    r = run_cli("run", str(MODELS / "decode_32.relax"), "--device", "0", "--iters", "20",
                "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["ok"] and doc["timings"][0]["host_launches_eager"] == 449


def test_gpu_benchmark_script_runs_on_the_simulated_driver(tmp_path):
    """bench/bench_gpu.py's plumbing (no GPU, no PyTorch: --simulate), so that it does not rot
    between the sessions that have a GPU."""
    import subprocess
    import sys

    if gxx() is None:
        pytest.skip("g++ needed")
    out = tmp_path / "b.json"
    doc = tmp_path / "B.md"
    doc.write_text("# x\n")
    r = subprocess.run([sys.executable, str(ROOT / "bench" / "bench_gpu.py"), "--simulate",
                        "--lengths", "10", "--warmup", "0", "--iters", "2", "--json", str(out),
                        "--write", str(doc)], capture_output=True, timeout=300)
    assert r.returncode == 0, r.stderr.decode()[-2000:]
    rows = json.loads(out.read_text())["rows"]
    assert [row["workload"] for row in rows] == ["chain 10", "decode_32"]
    assert rows[0]["kernels"] == 10 and rows[0]["host_launches_graph"] == 1
    assert "SIMULATED" in doc.read_text() and "<!-- bench_gpu -->" in doc.read_text()


# ---- user kernels (--kernels FILE.cu) ------------------------------------------------------------

# A user kernel for the chain's PrimFunc `add_one` that adds 2, not 1 (so the reference, which
# does not know it, would disagree), and one that no launch uses. The CGRAPH_HOST part lets the
# simulated driver run it on the host; NVRTC compiles the rest.
USER_CU = r'''#ifdef CGRAPH_HOST
struct cg_dim3 { unsigned x, y, z; };
static cg_dim3 blockIdx, threadIdx, blockDim, gridDim;
#define __global__
#endif
extern "C" __global__ void add_one(const float* a, float* b, long long n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = a[i] + 2.0f;
}
extern "C" __global__ void never_used(float* a, long long n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = 0.0f;
}
#ifdef CGRAPH_HOST
extern "C" void cg_host_add_one(void** p, unsigned grid, unsigned block) {
    gridDim.x = grid;
    blockDim.x = block;
    for (unsigned g = 0; g < grid; ++g)
        for (unsigned t = 0; t < block; ++t) {
            blockIdx.x = g;
            threadIdx.x = t;
            add_one(*(const float**)p[0], *(float**)p[1], *(long long*)p[2]);
        }
}
#endif
'''


def test_user_kernels_replace_the_library_by_name(host, sim_cli, tmp_path):
    from cudagraph_cli.gen import chain_module

    nvrtc_or_skip()
    assert nvrtc.compile_cubin(USER_CU, "sm_90", "mine.cu", use_cache=False)[0][:4] == \
        b"\x7fELF"
    mod = parse_module(chain_module(4, size=300))
    r = run_on_gpu(mod, "chain", RunOptions(calls=2, warmup=0, iters=1,
                                            kernels_source=USER_CU, kernels_name="mine.cu"),
                   open_device=HostDriver)
    assert r.ok and r.compared.startswith("eager (GPU) = graph (GPU)")
    assert r.user_kernels_used == ["add_one"] and r.user_kernels_unused == ["never_used"]
    # The values are the user's: x + 2 per kernel.
    drv = HostDriver()
    b = CudaBackend(drv, KernelLibrary(drv, USER_CU, "mine.cu"))
    ex = Executor(mod, b)
    x = np.arange(300, dtype=np.float32)
    out = ex.call("chain", [b.from_numpy(x), b.alloc_tensor((300,), "float32")])
    assert b.to_numpy(out).tolist() == (x + 8).tolist()
    # Through the command line, and a located NVRTC error for a broken file.
    src = tmp_path / "chain.relax"
    src.write_text(chain_module(4, size=300))
    cu = tmp_path / "mine.cu"
    cu.write_text(USER_CU)
    res = sim_cli("run", src, "--device", "0", "--kernels", cu, "--iters", "1", "--warmup", "0")
    assert res.exit_code == 0, res.stderr
    assert "user kernels used: add_one; defined but never launched: never_used" in res.stdout


def test_a_broken_user_kernel_file_is_a_located_error(sim_cli, tmp_path):
    from cudagraph_cli.cuda import cuda_backend

    nvrtc_or_skip()

    class NvrtcHost(HostDriver):
        """Compiles user sources with NVRTC (as the real driver does) before anything runs."""

        def load_source(self, source, name):
            if name != "kernels.cu":
                nvrtc.compile_cubin(source, "sm_90", name, use_cache=False)
            return super().load_source(source, name)

    cu = tmp_path / "bad.cu"
    cu.write_text(USER_CU.replace("a[i] + 2.0f", "a[i] + two"))
    res = sim_cli("run", MODELS / "mlp_block.relax", "--device", "0", "--kernels", cu,
                  driver=NvrtcHost)
    assert res.exit_code == 2 and res.stdout == ""
    lines = res.stderr.splitlines()
    assert lines[0] == f'{cu}:8:30: error: NVRTC (sm_90): identifier "two" is undefined'
    assert lines[1].strip() == "if (i < n) b[i] = a[i] + two;" and lines[2].endswith("^")
    assert cuda_backend.user_kernel_names(cu.read_text()) == ["add_one", "never_used"]


# ---- the driver layer against a stand-in for cuda.bindings.driver --------------------------------

class _FakeDriverModule:
    """The calls CudaDriver makes, answering as cuda.bindings does: (CUresult, values...)."""

    import enum

    class CUresult(enum.IntEnum):
        CUDA_SUCCESS = 0
        CUDA_ERROR_NO_DEVICE = 100
        CUDA_ERROR_LAUNCH_FAILED = 719

    class CUdevice_attribute(enum.IntEnum):
        CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75
        CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76
        CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16

    def __init__(self, init_error=0, count=1):
        self.init_error, self.count = init_error, count
        self.calls = []

    def cuInit(self, flags):
        return (self.CUresult(self.init_error),)

    def cuGetErrorName(self, err):
        return (self.CUresult.CUDA_SUCCESS, self.CUresult(err).name.encode())

    def cuDeviceGetCount(self):
        return (self.CUresult.CUDA_SUCCESS, self.count)

    def cuDeviceGet(self, ordinal):
        return (self.CUresult.CUDA_SUCCESS, ordinal)

    def cuDevicePrimaryCtxRetain(self, dev):
        return (self.CUresult.CUDA_SUCCESS, "ctx")

    def cuCtxSetCurrent(self, ctx):
        return (self.CUresult.CUDA_SUCCESS,)

    def cuDeviceGetAttribute(self, attr, dev):
        return (self.CUresult.CUDA_SUCCESS, {75: 9, 76: 0, 16: 132}[int(attr)])

    def cuDeviceGetName(self, n, dev):
        return (self.CUresult.CUDA_SUCCESS, b"NVIDIA H200" + b"\0" * (n - 11))

    def cuDriverGetVersion(self):
        return (self.CUresult.CUDA_SUCCESS, 13000)

    def cuDeviceGetPCIBusId(self, n, dev):
        return (self.CUresult.CUDA_SUCCESS, b"0000:19:00.0\0\0")

    def cuGraphGetNodes(self, graph, n):
        return (self.CUresult.CUDA_SUCCESS, [], 7)

    def cuLaunchKernel(self, *args):
        self.calls.append(args)
        return (self.CUresult.CUDA_ERROR_LAUNCH_FAILED,)

    def cuEventElapsedTime(self, a, b):
        return (self.CUresult.CUDA_SUCCESS, 0.25)

    def cuEventSynchronize(self, e):
        return (self.CUresult.CUDA_SUCCESS,)


def test_driver_layer_checks_every_result(monkeypatch):
    from cudagraph_cli.cuda import cuda_driver

    fake = _FakeDriverModule()
    monkeypatch.setattr(cuda_driver, "_load", lambda: fake)
    d = cuda_driver.CudaDriver(0)
    assert (d.arch, d.sm_count, d.name, d.driver_version, d.pci_bus_id) == \
        ("sm_90", 132, "NVIDIA H200", 13000, "0000:19:00.0")
    assert d.graph_nodes("g") == 7 and d.event_elapsed_ms("a", "b") == 0.25
    with pytest.raises(cuda_driver.DriverError,
                       match=r"^cuLaunchKernel failed: CUDA_ERROR_LAUNCH_FAILED$"):
        d.launch("f", 3, 256, 1234, "stream")
    assert fake.calls[-1] == ("f", 3, 1, 1, 256, 1, 1, 0, "stream", 1234, 0)
    thunk = d.launch_thunk("f", 3, 256, 1234, "stream")
    with pytest.raises(cuda_driver.DriverError, match="CUDA_ERROR_LAUNCH_FAILED"):
        LaunchList([("cuLaunchKernel(k)", thunk)]).run(d)


@pytest.mark.parametrize("fake,message", [
    (_FakeDriverModule(init_error=100), "no usable CUDA driver (cuInit: CUDA_ERROR_NO_DEVICE)"),
    (_FakeDriverModule(count=1), "no GPU 3: this machine has 1"),
])
def test_driver_layer_says_why_there_is_no_gpu(monkeypatch, fake, message):
    from cudagraph_cli.cuda import cuda_driver

    monkeypatch.setattr(cuda_driver, "_load", lambda: fake)
    with pytest.raises(cuda_driver.DriverUnavailable) as e:
        cuda_driver.CudaDriver(3)
    assert str(e.value) == message


@pytest.mark.parametrize("pair", ["vm_builtin", "rewrite_cuda_graph", "tuple"])
def test_run_a_given_rewrite_tvms_expected_output(sim_cli, pair):
    """`cgraph run IN OUT --device N` runs a given rewrite (here TVM's expected output from
    its test suite) instead of cgraph's."""
    res = sim_cli("run", TVM_DIR / f"{pair}_before.relax", TVM_DIR / f"{pair}_expected.relax",
                  "--device", "0", "--iters", "1", "--warmup", "0", "--format", "json")
    assert res.exit_code == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["ok"] and doc["graphs"]["captures"] >= 1


def test_a_given_rewrite_that_does_not_correspond_is_refused(host):
    from cudagraph_cli.exec.functions import ModuleMismatch

    a = parse_module((TVM_DIR / "vm_builtin_before.relax").read_text())
    b = parse_module((MODELS / "mlp_block.relax").read_text())
    with pytest.raises(ModuleMismatch, match="different public functions"):
        run_on_gpu(a, "a", RunOptions(), open_device=HostDriver, rewritten=b)


def test_user_kernels_that_match_nothing_keep_the_reference_check(host):
    mod = parse_module((MODELS / "mlp_block.relax").read_text())
    src = 'extern "C" __global__ void not_in_the_module(float* a, long long n) {}\n'
    r = run_on_gpu(mod, "m", RunOptions(calls=2, warmup=0, iters=1, kernels_source=src),
                   open_device=_NvrtcFreeHost)
    assert r.ok and r.compared == "reference (cpu) = eager (GPU) = graph (GPU)"
    assert r.user_kernels_unused == ["not_in_the_module"] and not r.notes
    r = run_on_gpu(mod, "m", RunOptions(calls=1, warmup=0, iters=1, kernels_source="// empty\n",
                                        kernels_name="e.cu"), open_device=_NvrtcFreeHost)
    assert r.ok and r.notes == ['e.cu defines no extern "C" __global__ kernel']


class _NvrtcFreeHost(HostDriver):
    """User sources that the host cannot build (device code only) load as nothing."""

    def load_source(self, source, name):
        if source == nvrtc.library_source():
            return super().load_source(source, name)
        return None, False


def test_a_given_rewrite_that_fails_is_located_in_its_own_file(sim_cli, tmp_path):
    text = (TVM_DIR / "vm_builtin_expected.relax").read_text()
    bad = tmp_path / "small.relax"
    bad.write_text(text.replace("storage1: R.Any = R.memory.alloc_storage(R.shape([32])",
                                "storage1: R.Any = R.memory.alloc_storage(R.shape([16])", 1))
    res = sim_cli("run", TVM_DIR / "vm_builtin_before.relax", bad, "--device", "0")
    assert res.exit_code == 2, res.stderr
    first = res.stderr.splitlines()[0]
    assert first.startswith(f"{bad}:") and "does not fit its storage of 16 bytes" in first


def test_a_failure_inside_a_capture_is_what_gets_reported():
    """The capture is ended (the stream must not stay in capture mode) and the error is the
    one that broke it, not the driver's complaint about an invalidated capture."""
    if gxx() is None:
        pytest.skip("g++ needed")

    class Failing(HostDriver):
        def launch(self, func, grid, block, params, stream):
            if stream in self.capture:
                raise RuntimeError("cuLaunchKernel failed: CUDA_ERROR_ILLEGAL_ADDRESS")
            super().launch(func, grid, block, params, stream)

        def end_capture(self, stream):
            super().end_capture(stream)
            raise RuntimeError("cuStreamEndCapture failed: "
                               "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED")

    d = Failing()
    b = CudaBackend(d, KernelLibrary(d))
    ex = Executor(parse_module((TVM_DIR / "vm_builtin_expected.relax").read_text()), b)
    with pytest.raises(RuntimeError, match="CUDA_ERROR_ILLEGAL_ADDRESS"):
        ex.call("main", [b.from_numpy(np.ones((2, 4), np.float32))])
    assert not d.capture and b.capturing is None  # not left capturing
