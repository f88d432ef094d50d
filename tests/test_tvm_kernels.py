"""`cgraph kernels` (a model's own kernels, TVM's CUDA C, with a launch manifest) and `cgraph run
--kernels` with such a file, up to the launch: no GPU needed.

Expected values come from elsewhere than the code under test: launch geometry from the
scheduled TIR's `T.thread_binding(extent, thread=...)` loops in the module text (evaluated
here with Python), parameter order from the kernel signatures in TVM's CUDA source, and
compilation from NVRTC.
"""

from __future__ import annotations

import ctypes
import os
import re
import time

import numpy as np
import pytest

from cli_runner import cgraph
from conftest import REAL_SAMPLES, ROOT, run_cli, nvrtc_or_skip
from host_driver import RecordingDriver, gxx
from cudagraph_cli import ir
from cudagraph_cli.cuda import nvrtc
from cudagraph_cli.cuda.launch_manifest import (Expr, ManifestError, plan_prim_call,
                                                read_manifest)
from cudagraph_cli.text.reader import parse_module

# Lowering a real-size MLC-style model takes TVM 10 to 15 s of CPU: the fast suite lowers the
# first three and none of issue 34's families (TVM's GPU scan in a host loop, which OLMoE
# launches, is test_kernel_host_loops.py's, on the sampler and a cumsum module);
# bench/bench_kernels_corpus.py lowers and compiles every one.
NOT_IN_FAST_SUITE = ("mlc_llama_8b_tp2", "mlc_gemma2_2b", "mlc_olmoe_1b_7b", "mlc_phi2",
                     "mlc_gpt2_medium")
CORPUS = sorted(p for p in REAL_SAMPLES.glob("*.before.relax")
                if os.environ.get("CGRAPH_ALL_ARCHS")
                or p.name.split(".")[0] not in NOT_IN_FAST_SUITE)
ARCHS = ("sm_80", "sm_90")
# Values given to the symbolic variables when a geometry is evaluated (any positive values
# do; distinct primes make a wrong variable show).
SYMBOLS = {"seq_len": 5, "total_seq_len": 7, "n": 3, "m": 11, "batch_size": 2}


class _Symbols(dict):
    """SYMBOLS (times `scale`, plus one past 1), and for any other name (the mlc models' `B`,
    `ntoken`, `max_num_pages`, ...) a value of its own, the same every time it is read."""

    def __init__(self, scale: int = 1):
        super().__init__({k: self._scaled(v, scale) for k, v in SYMBOLS.items()})
        self.scale = scale

    @staticmethod
    def _scaled(v: int, scale: int) -> int:
        return v * scale + (scale > 1)

    def __missing__(self, name):
        if name == "T":  # TVMScript's namespace, from eval's globals
            raise KeyError(name)
        return self._scaled(13 + 2 * (sum(map(ord, name)) % 29), self.scale)


def symbols(scale: int = 1) -> _Symbols:
    return _Symbols(scale)


@pytest.fixture(scope="session")
def lowered(tvm):
    """Every corpus module, lowered once: name -> (module, KernelSet, seconds). On a short
    stack: TVM's reader (lower_module reads the PrimFuncs with it) calls inspect.stack() for
    every function it reads, and under pytest that cost more than the reading."""
    from cudagraph_cli.cuda.tvm_kernels import lower_module
    from cudagraph_cli.tvm import on_a_short_stack

    out = {}
    for path in CORPUS:
        mod = parse_module(path.read_text(), str(path))
        t = time.perf_counter()
        out[path.name] = (mod, on_a_short_stack(lower_module, mod, path.name),
                          time.perf_counter() - t)
    return out


def _get(lowered, name):
    mod, ks, _ = lowered[name]
    return mod, ks




WITH_KERNELS = [p.name for p in CORPUS if "thread_binding" in p.read_text()]


def test_the_corpus_has_models_with_kernels():
    assert {"nn_mlp.before.relax", "nn_llama_kv.before.relax"} <= set(WITH_KERNELS)


@pytest.mark.parametrize("name", [p.name for p in CORPUS])
def test_every_prim_func_has_a_manifest_entry(lowered, name):
    mod, ks = _get(lowered, name)
    prims = [f.name for f in mod.functions if isinstance(f, ir.PrimFunc)]
    manifest = read_manifest(ks.source, "x.cu")
    assert list(manifest.prim_funcs) == prims
    # A PrimFunc with thread bindings makes at least one kernel; one without (TVM's test
    # modules: `T.evaluate(0)` bodies) makes none.
    for f in mod.functions:
        if isinstance(f, ir.PrimFunc):
            assert bool(manifest.prim_funcs[f.name].kernels) == ("thread_binding" in f.body)
            for k in manifest.prim_funcs[f.name].kernels:
                assert k.name.startswith(f.name + "_kernel")


# NVRTC takes 7-12 s a file per architecture for the mlc models (2 cores, shared; up to 45 s
# for the larger families): the fast suite compiles the models it lowers for one architecture
# each, alternating; CGRAPH_ALL_ARCHS=1 lowers and compiles every model for both, as
# bench/bench_kernels_corpus.py does.
MLC_FAST_ARCH = {"mlc_llama_1b.before.relax": "sm_90", "mlc_llama_8b.before.relax": "sm_80",
                 "mlc_qwen2_0_5b.before.relax": "sm_80"}
COMPILED = [(name, arch) for name in WITH_KERNELS for arch in ARCHS
            if os.environ.get("CGRAPH_ALL_ARCHS") or MLC_FAST_ARCH.get(
                name, None if name.startswith("mlc_") else arch) == arch]


@pytest.mark.parametrize("name, arch", COMPILED)
def test_every_kernel_compiles_with_nvrtc(lowered, name, arch, tmp_path, monkeypatch):
    mod, ks = _get(lowered, name)
    nvrtc_or_skip(needs_headers=nvrtc.toolkit_headers_needed(ks.source))
    monkeypatch.setenv("CGRAPH_CACHE_DIR", str(tmp_path))
    cubin, cached = nvrtc.compile_cubin(ks.source, arch, name.replace(".relax", ".cu"))
    assert not cached and cubin.startswith(b"\x7fELF")
    for kernel in read_manifest(ks.source, "x.cu").kernel_names():
        assert kernel.encode() + b"\0" in cubin, kernel


# ---- geometry: the manifest against the scheduled TIR ------------------------------------

_BINDING_RE = re.compile(r"T\.thread_binding\((?P<ext>[^\n]*?), thread=\"(?P<tag>(?:blockIdx|"
                         r"threadIdx)\.[xyz])\"")


class _T:
    """Just enough of TVMScript's `T` to evaluate an extent's text."""

    int64 = int32 = staticmethod(lambda v=0: v)
    min = staticmethod(min)
    max = staticmethod(max)


def _extent(text: str, env: dict) -> int:
    value = eval(text, {"__builtins__": {}, "T": _T}, env)  # noqa: S307 - test data
    if isinstance(value, str):  # TVMScript's `T.Buffer(("B", 32), ...)`: a new variable
        value = eval(value, {"__builtins__": {}, "T": _T}, env)  # noqa: S307
    return int(value)


def _bindings(f: ir.PrimFunc, env: dict) -> dict:
    """tag -> the set of extents the PrimFunc's thread bindings give it."""
    out: dict = {}
    for m in _BINDING_RE.finditer(f.body):
        out.setdefault(m.group("tag"), set()).add(_extent(m.group("ext"), env))
    return out


def _fake_call(f: ir.PrimFunc, env: dict):
    """Tensors with the shapes the PrimFunc's buffers have at `env`, at distinct addresses."""
    tensors, scalars = [], []

    class FakeTensor:
        def __init__(self, ptr, shape):
            self.ptr, self.shape = ptr, shape

    for i, p in enumerate(f.params):
        if p.kind == "buffer":
            shape = tuple(_extent(d, env) for d in p.shape or ())
            tensors.append(FakeTensor(0x10000 * (i + 1), shape))
        else:
            scalars.append(env[p.name])
    return tensors, scalars


@pytest.mark.parametrize("name", WITH_KERNELS)
def test_geometry_matches_the_thread_bindings(lowered, name):
    mod, ks = _get(lowered, name)
    manifest = read_manifest(ks.source, "x.cu")
    checked = 0
    for f in mod.functions:
        if not isinstance(f, ir.PrimFunc) or f.name not in manifest.prim_funcs:
            continue
        prim = manifest.prim_funcs[f.name]
        for env in (symbols(), symbols(3)):
            want = _bindings(f, env)
            tensors, scalars = _fake_call(f, env)
            launches = plan_prim_call(prim, tensors, scalars, _workspace_pointers(prim))
            got: dict = {}
            for launch in launches:
                for axis, (g, b) in enumerate(zip(launch.grid, launch.block)):
                    got.setdefault(f"blockIdx.{'xyz'[axis]}", set()).add(g)
                    got.setdefault(f"threadIdx.{'xyz'[axis]}", set()).add(b)
            for tag, values in got.items():
                if prim.bound_blocks:
                    # Blocks cgraph bound (test_kernel_workspaces.py) launch besides those the
                    # text binds.
                    assert want.get(tag, set()) <= values, (f.name, tag, values, want.get(tag))
                    continue
                if prim.has_loops:
                    # A host loop launches its kernels as many times as its extent says, which
                    # may be none at these values: every extent launched is one the text binds
                    # (test_kernel_host_loops.py derives the cumsum's launches exactly).
                    assert values <= want.get(tag, set()) | {1}, (f.name, tag, values)
                    continue
                # A tag no loop binds launches with extent 1.
                assert values == want.get(tag, {1}) or values - {1} == want.get(tag), \
                    (f.name, tag, values, want.get(tag))
            checked += 1
    assert checked


_SIGNATURE_RE = re.compile(r'extern "C" __global__ void (?:__launch_bounds__\(\d+\) )?'
                           r'(?P<name>\w+)\((?P<params>[^)]*)\)\s*\{')
_C_TYPES = {"int64": "int64_t", "int32": "int", "float32": "float"}


def _workspace_pointers(prim) -> list:
    """Distinct fake addresses for a call's workspaces."""
    return [0x7000000 + 0x100000 * j for j in range(len(prim.workspaces))]


@pytest.mark.parametrize("name", WITH_KERNELS)
def test_parameters_pack_in_the_kernel_signature_order(lowered, name):
    mod, ks = _get(lowered, name)
    manifest = read_manifest(ks.source, "x.cu")
    signatures = {m.group("name"): [p.strip() for p in m.group("params").split(",")]
                  for m in _SIGNATURE_RE.finditer(ks.source)}
    for f in mod.functions:
        if not isinstance(f, ir.PrimFunc) or f.name not in manifest.prim_funcs:
            continue
        prim = manifest.prim_funcs[f.name]
        if prim.has_loops:  # launches are not kernels one for one (test_kernel_host_loops.py)
            continue
        env = symbols()
        tensors, scalars = _fake_call(f, env)
        buffer_params = [p for p in f.params if p.kind == "buffer"]
        workspaces = _workspace_pointers(prim)
        for kernel, launch in zip(prim.kernels, plan_prim_call(prim, tensors, scalars,
                                                               workspaces)):
            sig = signatures[kernel.name]
            assert len(sig) == len(kernel.params) == len(launch.args)
            for c_param, kp, arg in zip(sig, kernel.params, launch.args):
                if kp.workspace is not None:
                    wname = prim.workspaces[kp.workspace].name
                    assert "*" in c_param and c_param.endswith(f" {wname}_ptr"), (c_param, wname)
                    assert arg.value == workspaces[kp.workspace]
                elif kp.param is not None:
                    # TVM names a buffer's pointer `<buffer>_ptr`
                    pname = f.params[kp.param].name
                    assert "*" in c_param and c_param.endswith(f" {pname}_ptr"), (c_param, pname)
                    k = buffer_params.index(f.params[kp.param])
                    assert isinstance(arg, ctypes.c_uint64) and arg.value == tensors[k].ptr
                else:
                    assert c_param.startswith(_C_TYPES[kp.dtype] + " "), (c_param, kp.dtype)
                    want = kp.expr.evaluate_float if kp.dtype.startswith("float") else \
                        kp.expr.evaluate
                    assert arg.value == want(
                        {v: _value_of(f, v, tensors, scalars) for v in prim.vars})


def _value_of(f, var, tensors, scalars):
    # TVM reads a PrimFunc variable that clashes with a module TypeVar (the mlc models'
    # `batch_size = T.int32()` beside `batch_size = TypeVar(...)`) renamed by cgraph's printer
    # (text/tir_names.py): `batch_size_1` in TVM's names is `batch_size` in the module's text.
    names = (var, re.sub(r"_\d+$", "", var))
    for name in names:
        for p, t in zip([p for p in f.params if p.kind == "buffer"], tensors):
            for d, text in enumerate(p.shape or ()):
                if text.strip('"') == name:
                    return t.shape[d]
        scalar_names = [p.name for p in f.params if p.kind == "scalar"]
        if name in scalar_names:
            return scalars[scalar_names.index(name)]
    raise AssertionError(f"{f.name}: no parameter gives {var}")


def test_symbolic_geometry_is_an_expression_of_the_module_variables(lowered):
    mod, ks = _get(lowered, "nn_llama_kv.before.relax")
    manifest = read_manifest(ks.source, "x.cu")
    softmax = manifest.prim_funcs["softmax1"]
    assert set(softmax.vars) == {"seq_len", "total_seq_len"}
    (kernel,) = softmax.kernels
    assert kernel.grid[0].names == {"seq_len"}


# ---- the manifest format ---------------------------------------------------------------------

def test_expressions_are_a_closed_language():
    assert Expr.parse("((n + 31) // 32)").evaluate({"n": 33}) == 2
    assert Expr.parse("select(n < 4, truncdiv(0 - n, 2), max(n, 9) % 5)").evaluate(
        {"n": 3}) == -1  # truncdiv rounds toward zero: -3 / 2 = -1 (floor would give -2)
    for bad in ("__import__('os')", "n.real", "n ** 2", "1.5", "f(n)", "a < b < c"):
        with pytest.raises(ValueError):
            Expr.parse(bad)


def test_a_broken_manifest_is_located_in_the_kernels_file():
    src = ('/* cgraph-launch-manifest\n{"format": 1, "prim_funcs": {"f": {"params": [{"name": '
           '"a", "kind": "buffer"}], "vars": {}, "kernels": [{"name": "f_kernel", "params": '
           '[{"param": 0}], "grid": ["n", "1", "1"], "block": ["1", "1", "1"]}]}}}\n*/\n'
           'extern "C" __global__ void f_kernel(float* a) {}\n')
    with pytest.raises(ManifestError) as e:
        read_manifest(src, "k.cu")
    assert e.value.loc.line == 1 and "reads n, not a symbolic variable" in e.value.message
    with pytest.raises(ManifestError) as e:
        read_manifest("// x\n/* cgraph-launch-manifest\n{\n  oops\n}\n*/\n", "k.cu")
    assert e.value.loc.line == 4 and "not JSON" in e.value.message
    assert read_manifest('extern "C" __global__ void k(float* a) {}', "k.cu") is None


# ---- the CLI -----------------------------------------------------------------------------------

def test_cli_writes_to_stdout_and_to_a_file(tvm, tmp_path):
    src = REAL_SAMPLES / "nn_mlp.before.relax"
    r = cgraph("kernels", src, "-o", "-")
    assert r.exit_code == 0, r.stderr
    assert r.stdout.startswith("/* cgraph-launch-manifest\n")
    out = tmp_path / "mlp.cu"
    r = cgraph("kernels", src, "-o", out, "--arch", "sm_90")
    assert r.exit_code == 0 and read_manifest(out.read_text(), "mlp.cu").info["target"] == \
        {"kind": "cuda", "arch": "sm_90"}


@pytest.fixture
def no_tvm(tmp_path):
    """A PYTHONPATH on which `import tvm` fails, as where apache-tvm is not installed."""
    fake = tmp_path / "fake" / "tvm"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('No module named tvm')\n")
    return {"PYTHONPATH": f"{fake.parent}{os.pathsep}{ROOT}"}


def test_cli_without_tvm_says_how_to_get_it(no_tvm):
    r = run_cli("kernels", str(REAL_SAMPLES / "nn_mlp.before.relax"), env=no_tvm)
    assert r.returncode == 2 and r.stdout == b""
    assert r.stderr.decode() == ("cgraph: error: cgraph kernels needs apache-tvm (pip install "
                                 "apache-tvm==0.27.0.post1, or pip install '.[tvm]' in "
                                 "cgraph's checkout)\n")


def test_a_module_with_no_prim_func_needs_no_tvm(no_tvm):
    r = run_cli("kernels", str(REAL_SAMPLES / "static_plan_call_packed_external_func.before.relax"),
                env=no_tvm)
    assert r.returncode == 0, r.stderr
    manifest = read_manifest(r.stdout.decode(), "x.cu")
    assert manifest.prim_funcs == {} and b"no PrimFunc" in r.stderr


UNSCHEDULED = '''\
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def add_one(a: T.Buffer((T.int64(8),), "float32"), b: T.Buffer((T.int64(8),), "float32")):
        for i in range(T.int64(8)):
            b[i] = a[i] + T.float32(1)

    @R.function
    def main(x: R.Tensor((8,), dtype="float32"), y: R.Tensor((8,), dtype="float32")):
        R.func_attr({"relax.force_pure": True})
        cls = Module
        cls.add_one(x, y)
        return y
'''


def test_an_unscheduled_prim_func_is_located(tvm, tmp_path):
    """TVM lowers a PrimFunc with no thread bindings into host code: no kernel would do its
    work on a GPU."""
    f = tmp_path / "unscheduled.relax"
    f.write_text(UNSCHEDULED)
    r = cgraph("kernels", f)
    assert r.exit_code == 2 and r.stdout == ""
    head = r.stderr.splitlines()[0] if r.stderr else ""
    assert head.startswith(f"{f}:8:9: error: PrimFunc 'add_one': TVM's lowering leaves its "
                           "work on the host"), r.stderr


def test_bad_arch_is_a_usage_error():
    r = cgraph("kernels", REAL_SAMPLES / "nn_mlp.before.relax", "--arch", "80")
    assert r.exit_code == 2 and "--arch" in r.stderr


# ---- run --kernels up to the launch (a recording driver) ------------------------------------

def test_run_launches_the_manifest_kernels_in_eager_and_graph(lowered):
    from cudagraph_cli.cuda.gpu_run import RunOptions, run_on_gpu

    if gxx() is None:
        pytest.skip("g++ is needed for the simulated driver")
    mod, ks = _get(lowered, "nn_mlp.before.relax")
    drivers = []

    def open_device(ordinal):
        drivers.append(RecordingDriver(ordinal))
        return drivers[-1]

    options = RunOptions(calls=2, warmup=0, iters=1, kernels_source=ks.source,
                         kernels_name="nn_mlp.cu")
    r = run_on_gpu(mod, "nn_mlp", options, open_device=open_device)
    assert r.ok and r.compared.startswith("eager (GPU) = graph (GPU)")
    manifest = read_manifest(ks.source, "x.cu")
    assert r.user_kernels_used == sorted(manifest.prim_funcs)
    (drv,) = drivers
    expect = {k.name: (tuple(e.evaluate({}) for e in k.grid),
                       tuple(e.evaluate({}) for e in k.block))
              for p in manifest.prim_funcs.values() for k in p.kernels}
    assert {name for name, *_ in drv.recorded} == set(expect)
    for name, grid, block, shared, values, live in drv.recorded:
        assert (grid, block) == expect[name] and shared == 0
        # every pointer was inside a block the backend had allocated when it launched
        assert live and all(live), name
    # Eager: the 4 kernel calls of `forward`. Graph: TVM's after file has two run_or_capture
    # calls (a transpose each) and two kernels outside them.
    (t,) = r.timings
    assert (t.launches_eager, t.graph_launches, t.launches_graph) == (4, 2, 4)


# The mlc models are left out: the run makes every weight on the host (the simulated device's
# memory), 1 to 16 GB of float16; tests/test_kernel_workspaces.py runs a PrimFunc of Qwen2-0.5B.
@pytest.mark.parametrize("name", [p.name for p in CORPUS if not p.name.startswith("mlc_")])
def test_every_corpus_model_runs_with_its_own_kernels(lowered, name):
    """Up to the launch, on the simulated driver (which, as CUDA, refuses to synchronise a
    capturing stream): each call's PrimFunc arguments fit the manifest -- a `T.handle` that no
    buffer matches is a pointer, as TVM passes it -- and a constant inside a captured region
    was made before the capture (static_plan_basic's `R.const(1.0)`). First contact with a
    GPU found both."""
    from cudagraph_cli.cuda.gpu_run import RunOptions, run_on_gpu

    if gxx() is None:
        pytest.skip("g++ is needed for the simulated driver")
    mod, ks = _get(lowered, name)

    def open_device(ordinal):
        drv = RecordingDriver(ordinal)
        drv.zero_buffers = True
        return drv

    options = RunOptions(calls=2, warmup=0, iters=1, kernels_source=ks.source,
                         kernels_name=name + ".cu")
    r = run_on_gpu(mod, name, options, open_device=open_device)
    if any(n.startswith("TVM generated no kernel") for n in r.notes):
        # TVM's stub PrimFuncs: a call launches nothing, and its outputs hold whatever their
        # memory held, which eager and graph need not share (the run says so in a note).
        assert r.checked or r.difference is not None
        return
    # Eager and graph agree: the recording driver runs no TVM kernel, but zeroes what each
    # would touch; cgraph's own kernels, the copies and the graphs' replays run.
    assert r.ok, (r.difference_between, r.difference)
    assert r.timings and all(t.one_graph is not None for t in r.timings)


def test_real_gpu_benchmark_script_runs_on_the_recording_driver(lowered, tmp_path):
    """bench/bench_real_gpu.py's plumbing (no GPU: --simulate), with kernels files written
    from the corpus; a module of stub PrimFuncs is named as not timed."""
    import json
    import subprocess
    import sys

    if gxx() is None:
        pytest.skip("g++ is needed for the simulated driver")
    for name in ("nn_mlp", "static_plan_basic"):
        (tmp_path / f"{name}.cu").write_text(_get(lowered, f"{name}.before.relax")[1].source)
    out, doc = tmp_path / "b.json", tmp_path / "B.md"
    doc.write_text("# x\n")
    r = subprocess.run([sys.executable, str(ROOT / "bench" / "bench_real_gpu.py"), "--simulate",
                        "--kernels-dir", str(tmp_path), "--models", "nn_mlp,static_plan_basic",
                        "--warmup", "0", "--iters", "2", "--json", str(out), "--write",
                        str(doc)], capture_output=True, timeout=300)
    assert r.returncode == 0, r.stderr.decode()[-2000:]
    got = json.loads(out.read_text())
    (row,) = got["rows"]
    assert (row["model"], row["function"], row["host_launches_eager"],
            row["graph_launches"]) == ("nn_mlp", "forward", 4, 2)
    assert row["one_graph_us"] > 0 and row["graph_over_one_graph"] > 0
    assert row["tvm_graph_us"] > 0 and row["tvm_host_launches"] == 4  # TVM's after file
    assert got["skipped"] == [{"model": "static_plan_basic", "why": "no kernel: stub PrimFuncs"}]
    text = doc.read_text()
    assert "SIMULATED" in text and "<!-- bench_real_gpu -->" in text and "| nn_mlp |" in text


def test_dynamic_shared_memory_and_3d_geometry_reach_the_driver():
    from cudagraph_cli.cuda.cuda_backend import plan_manifest_launch

    src = ('/* cgraph-launch-manifest\n{"format": 1, "prim_funcs": {"f": {"params": [{"name": '
           '"a", "kind": "buffer"}, {"name": "k", "kind": "scalar"}], "vars": {"n": {"param": '
           '0, "dim": 1}, "k": {"param": 1}}, "kernels": [{"name": "f_kernel", "params": '
           '[{"param": 0}, {"expr": "n * k", "dtype": "int32"}], "grid": ["n // 2", "k", '
           '"0"], "block": ["32", "4", "1"], "dynamic_shared_bytes": "n * 1024"}]}}}\n*/\n'
           'extern "C" __global__ void f_kernel(float* a, int x) {}\n')
    prim = read_manifest(src, "k.cu").prim_funcs["f"]

    class T:
        ptr, shape = 0xABC0, (3, 100)

    (op,) = plan_manifest_launch(prim, [T()], [6])
    # a zero extent launches as 1, as TVM's runtime does
    assert op.grid == (50, 6, 1) and op.block == (32, 4, 1) and op.shared_bytes == 102400
    assert [a.value for a in op.args] == [0xABC0, 600]
    assert isinstance(op.args[1], ctypes.c_int32)


def test_corpus_table(lowered, capsys):
    """The table for the report: model, kernels, time to lower (always passes once lowered)."""
    rows = []
    for name, (mod, ks, seconds) in lowered.items():
        rows.append((name, "unread" if mod is None else ks.kernel_count, f"{seconds:.2f}"))
    assert rows and np.all([r[0].endswith(".before.relax") for r in rows])
    with capsys.disabled():
        if os.environ.get("CGRAPH_KERNELS_TABLE"):
            for r in rows:
                print(*r)
