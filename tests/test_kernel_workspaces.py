"""Per-call workspaces in a `cgraph kernels` file: intermediate buffers in global memory that
TVM's host code allocates for each call (TVMBackendAllocWorkspace) and passes to the
PrimFunc's kernels; and blocks a schedule left outside GPU threads, which cgraph binds.

The case is tests/data/kernels/gemv_workspaces.relax: fused_matmul11_add5 of the Qwen2-0.5B
dump (dlight's LowBatchGEMV on prefill, seq_len padded to a multiple of 4). Expected values
come from elsewhere than the code under test: workspace sizes from TVM's own lowered host code
(LowerTVMBuiltin's TVMBackendAllocWorkspace calls, evaluated here in Python) and from a hand
derivation from the PrimFunc's text; kernel parameter names from TVM's CUDA signatures.
"""

from __future__ import annotations

import ctypes
import re

import pytest

from conftest import ROOT, nvrtc_or_skip
from host_driver import RecordingDriver, gxx
from cudagraph_cli import ir
from cudagraph_cli.cuda import nvrtc
from cudagraph_cli.cuda.launch_manifest import (ManifestError, plan_prim_call, read_manifest,
                                                workspace_bytes)
from cudagraph_cli.text.reader import parse_module

CASE = ROOT / "tests" / "data" / "kernels" / "gemv_workspaces.relax"
PRIM = "fused_matmul11_add5"
HIDDEN = 896  # Qwen2-0.5B's hidden size: the case's buffers are (1, seq_len, 896)


def _padded(seq_len: int) -> int:
    return (seq_len + 3) // 4 * 4


def hand_workspace_bytes(seq_len: int) -> list[int]:
    """The PrimFunc's four `T.sblock_alloc_buffer`s (float16, 2 bytes), P = seq_len padded to 4:
    reshape3_pad (1, P, 896), matmul_intermediate_pad (1, P, 896), matmul_intermediate_pad_rf
    (32, 1, P, 896), matmul_intermediate_pad_rf_1 (4, 1, P, 896). The five kernels use them in
    turn: pad -> rf (kernel 1 reads pad, writes rf) -> rf_1 (kernel 2) -> intermediate_pad
    (kernel 3) -> the output (kernel 4). TVM's StorageRewrite puts buffers whose lifetimes do
    not overlap in one allocation: reshape3_pad with rf_1 (max(P, 4P) x 896) and rf with
    intermediate_pad (max(32P, P) x 896). Two workspaces, in the host's order."""
    p = _padded(seq_len)
    return [2 * 4 * p * HIDDEN, 2 * 32 * p * HIDDEN]


@pytest.fixture(scope="module")
def case(tvm):
    from cudagraph_cli.cuda.tvm_kernels import lower_module

    mod = parse_module(CASE.read_text(), str(CASE))
    ks = lower_module(mod, CASE.name)
    return mod, ks, read_manifest(ks.source, "gemv.cu")


class _Tensor:
    def __init__(self, ptr, shape):
        self.ptr, self.shape = ptr, shape


def _call(seq_len: int):
    """The PrimFunc's four buffers at seq_len, at distinct fake addresses."""
    shapes = [(1, seq_len, HIDDEN), (HIDDEN, HIDDEN), (1, seq_len, HIDDEN), (1, seq_len, HIDDEN)]
    return [_Tensor(0x100000 * (i + 1), s) for i, s in enumerate(shapes)]


# ---- the manifest against TVM ----------------------------------------------------------------

def _tvm_alloc_workspace_bytes(seq_len: int) -> list[int]:
    """TVM's own answer: lower the PrimFunc as relax.build does, run the host finalization
    (LowerTVMBuiltin, which turns a host allocation into TVMBackendAllocWorkspace) and evaluate
    each call's byte count, with the host's let-bound `cse_v` variables, from TVM's printed
    host code. cgraph reads the host code before that pass, so this is a second path."""
    import importlib

    import tvm
    from tvm.target import Target

    from cudagraph_cli.cuda.tvm_kernels import _bind_host_blocks, _read_with_tvm

    mod = parse_module(CASE.read_text(), str(CASE))
    prims = [f for f in mod.functions if isinstance(f, ir.PrimFunc)]
    tmod = _read_with_tvm(tvm, mod, prims, CASE.name)
    tmod, _ = _bind_host_blocks(tvm, tmod, prims, "sm_80", CASE.name)
    build = importlib.import_module("tvm.tirx.build")
    target = Target({"kind": "cuda", "arch": "sm_80"}).with_host(Target("c"))
    m = tvm.tirx.transform.BindTarget(target)(tvm.relax.transform.AttachGlobalSymbol()(tmod))
    pipeline, finalize_host, _ = tvm.tirx.get_tir_pipeline("default")
    host_mod, _ = build.split_host_device_mods(pipeline(m))
    text = finalize_host()(host_mod)[PRIM].script()
    env = {"seq_len": seq_len}
    for name, value in re.findall(r"^\s*(cse_v\d+): T\.let\[T\.int64\] = (.*)$", text, re.M):
        env[name] = _eval_tir(value, env)
    return [_eval_tir(n, env) for n in re.findall(
        r"TVMBackendAllocWorkspace\(2, dev_id, (.*?), 2, 16\)", text)]


class _T:
    """Just enough of TVMScript's `T` for TVM's byte counts."""

    int64 = uint64 = int32 = staticmethod(lambda v=0: v)
    max = staticmethod(max)
    min = staticmethod(min)

    @staticmethod
    def Cast(dtype, v):  # noqa: N802 - TVMScript's name
        return v


def _eval_tir(text: str, env: dict) -> int:
    return int(eval(text, {"__builtins__": {}, "T": _T}, dict(env)))  # noqa: S307 - test data


def test_workspaces_are_what_tvm_allocates(case):
    _, _, manifest = case
    prim = manifest.prim_funcs[PRIM]
    assert [w.name for w in prim.workspaces] == ["reshape3_pad", "matmul_intermediate_pad_rf"]
    assert [w.dtype for w in prim.workspaces] == ["float16", "float16"]
    for seq_len in (1, 5, 64, 2048):
        got = workspace_bytes(prim, _call(seq_len), [])
        assert got == _tvm_alloc_workspace_bytes(seq_len) == hand_workspace_bytes(seq_len), \
            seq_len


def test_kernels_take_the_workspaces_as_tvm_names_them(case):
    """Each workspace parameter is, in TVM's CUDA signature, a pointer named after the buffer
    TVM allocates; kernel 1 (the bound main reduction) writes the rf workspace that kernel 2
    reads."""
    _, ks, manifest = case
    prim = manifest.prim_funcs[PRIM]
    signatures = {m.group(1): [p.strip() for p in m.group(2).split(",")] for m in re.finditer(
        r'extern "C" __global__ void (?:__launch_bounds__\(\d+\) )?(\w+)\(([^)]*)\)\s*\{',
        ks.source)}
    seen = set()
    for k in prim.kernels:
        sig = signatures[k.name]
        assert len(sig) == len(k.params)
        for c_param, kp in zip(sig, k.params):
            if kp.workspace is not None:
                seen.add(kp.workspace)
                want = prim.workspaces[kp.workspace].name + "_ptr"
                assert c_param.startswith("half* ") and c_param.endswith(" " + want), c_param
    assert seen == {0, 1}
    assert [k.name for k in prim.kernels] == [PRIM + "_kernel"] + \
        [f"{PRIM}_kernel_{i}" for i in range(1, 5)]


def test_blocks_left_on_the_host_are_bound_and_said_so(case):
    """TVM's lowering of the dump's PrimFunc as it is keeps four blocks in the host function
    (CPU loops over device memory); cgraph binds them and says which."""
    mod, ks, manifest = case
    (f,) = [f for f in mod.functions if isinstance(f, ir.PrimFunc)]
    bound = manifest.prim_funcs[PRIM].bound_blocks
    assert bound == ("reshape3_pad", "matmul_rf", "matmul", "matmul_intermediate_pad")
    for block in bound:  # each is a block of the PrimFunc's text
        assert f'T.sblock("{block}")' in f.body
    (note,) = ks.notes
    assert note.startswith(f"PrimFunc '{PRIM}': TVM's schedule leaves 4 block(s) outside GPU "
                           "threads")
    # The four bound blocks launch 1024 threads a block (dlight Fallback's split, the cuda
    # target's max_num_threads), over ceil(spatial iterations / 1024) blocks; kernel 1 is the
    # main reduction TVM's schedule bound: blockIdx (64, P/4), threadIdx (32, 4).
    launches = plan_prim_call(manifest.prim_funcs[PRIM], _call(5), [], [1 << 40, 2 << 40])
    p = _padded(5)
    spatial = [p * HIDDEN, None, 4 * p * HIDDEN, p * HIDDEN, 5 * HIDDEN]
    for launch, n in zip(launches, spatial):
        if n is None:
            assert (launch.grid, launch.block) == ((HIDDEN // 32, p // 4, 1), (32, 4, 1))
        else:
            assert launch.block == (1024, 1, 1) and launch.grid == (-(-n // 1024), 1, 1)


def test_kernels_file_compiles_with_nvrtc(case, tmp_path, monkeypatch):
    nvrtc_or_skip(needs_headers=True)
    _, ks, manifest = case
    monkeypatch.setenv("CGRAPH_CACHE_DIR", str(tmp_path))
    for arch in ("sm_80", "sm_90"):
        cubin, cached = nvrtc.compile_cubin(ks.source, arch, "gemv.cu")
        assert not cached and cubin.startswith(b"\x7fELF")
        for kernel in manifest.kernel_names():
            assert kernel.encode() + b"\0" in cubin, kernel


def test_float16_without_cuda_headers_says_what_to_install(monkeypatch):
    monkeypatch.setattr(nvrtc, "cuda_include_dir", lambda: None)
    try:
        nvrtc.version()
    except nvrtc.NvrtcUnavailable as e:
        pytest.skip(str(e))
    src = '#include <cuda_fp16.h>\nextern "C" __global__ void k(half* a) {}\n'
    with pytest.raises(nvrtc.NvrtcUnavailable, match=r"k\.cu includes cuda_fp16\.h, which NVRTC "
                       r"does not have built in: install the CUDA headers"):
        nvrtc.compile_cubin(src, "sm_80", "k.cu", use_cache=False)


# ---- the manifest format ---------------------------------------------------------------------

def _manifest(prim_entry: str) -> str:
    return ('/* cgraph-launch-manifest\n{"format": 1, "prim_funcs": {"f": ' + prim_entry +
            '}}\n*/\nextern "C" __global__ void f_kernel(float* a, float* w, float s) {}\n')


GOOD = ('{"params": [{"name": "a", "kind": "buffer"}, {"name": "s", "kind": "scalar"}], '
        '"vars": {"n": {"param": 0, "dim": 0}, "s": {"param": 1}}, "workspaces": [{"name": "w", '
        '"dtype": "float32", "bytes": "n * 4"}], "kernels": [{"name": "f_kernel", "params": '
        '[{"param": 0}, {"workspace": 0}, {"expr": "s", "dtype": "float32"}], "grid": ["1", '
        '"1", "1"], "block": ["1", "1", "1"]}]}')


def test_a_float_scalar_reaches_its_kernel_whole():
    """nn.llm's attention PrimFuncs pass rope_scale, rope_theta and sm_scale (T.float32) to
    their kernels: 0.125 must not become 0."""
    prim = read_manifest(_manifest(GOOD), "k.cu").prim_funcs["f"]
    (launch,) = plan_prim_call(prim, [_Tensor(0x1000, (3,))], [0.125], [0x2000])
    ptr, ws, s = launch.args
    assert (ptr.value, ws.value) == (0x1000, 0x2000)
    assert isinstance(s, ctypes.c_float) and s.value == 0.125
    assert workspace_bytes(prim, [_Tensor(0x1000, (3,))], [0.125]) == [12]
    with pytest.raises(ValueError, match="needs 1 workspace"):
        plan_prim_call(prim, [_Tensor(0x1000, (3,))], [0.125])


@pytest.mark.parametrize("bad, message", [
    (GOOD.replace('{"workspace": 0}', '{"workspace": 1}'), "workspace 1; the PrimFunc has 1"),
    (GOOD.replace('"bytes": "n * 4"', '"bytes": "m * 4"'), "reads m, not a symbolic variable"),
    (GOOD.replace('"dtype": "float32", "bytes"', '"dtype": 4, "bytes"'), "workspace 'w': dtype"),
])
def test_a_broken_workspace_is_located_in_the_kernels_file(bad, message):
    with pytest.raises(ManifestError) as e:
        read_manifest(_manifest(bad), "k.cu")
    assert e.value.loc.line == 1 and message in e.value.message, e.value.message


# ---- run --kernels: the workspaces reach the launches -----------------------------------------

def test_run_passes_each_call_its_own_workspaces(case):
    """On the recording driver (no GPU): every launch of the PrimFunc's kernels that takes
    workspace j gets a pointer to the start of a live block of exactly the bytes TVM allocates
    for it at that call's seq_len; the two workspaces are distinct blocks, apart from the
    call's tensors; all five kernels of one call see the same two (kernel 1 writes what kernel 2
    reads)."""
    from cudagraph_cli.cuda.gpu_run import RunOptions, run_on_gpu

    if gxx() is None:
        pytest.skip("g++ is needed for the simulated driver")
    mod, ks, manifest = case
    prim = manifest.prim_funcs[PRIM]
    drivers = []

    def open_device(ordinal):
        drivers.append(RecordingDriver(ordinal))
        drivers[-1].zero_buffers = True
        return drivers[-1]

    # seq_len 5 then 9 (padded: 8, 12): a workspace sized for the first call would be short
    # for the second.
    options = RunOptions(calls=2, warmup=0, iters=1, kernels_source=ks.source,
                         kernels_name="gemv.cu", shapes={"seq_len": [5, 9]})
    r = run_on_gpu(mod, CASE.name, options, open_device=open_device)
    assert r.ok, (r.difference_between, r.difference)
    assert r.user_kernels_used == [PRIM]
    (drv,) = drivers
    calls = [drv.recorded[i:i + 5] for i in range(0, len(drv.recorded), 5)]
    blocks = [drv.pointer_blocks[i:i + 5] for i in range(0, len(drv.pointer_blocks), 5)]
    assert calls and all([k[0] for k in c] == [k.name for k in prim.kernels] for c in calls)
    seen_lengths = set()
    for call, call_blocks in zip(calls, blocks):
        # The call's seq_len, from its input `reshape3` (kernel 0's first pointer: its block
        # holds (1, seq_len, 896) float16).
        seq_len = call_blocks[0][0][1] // (2 * HIDDEN)
        seen_lengths.add(seq_len)
        want = hand_workspace_bytes(seq_len)
        ws_ptr = {}
        tensor_blocks = set()
        for (name, _, _, _, values, live), pblocks, kernel in zip(call, call_blocks,
                                                                  prim.kernels):
            assert all(live), name
            pointers = [(v, kp) for v, kp in zip(values, kernel.params) if kp.is_pointer]
            for (v, kp), blk in zip(pointers, pblocks):
                if kp.workspace is None:
                    tensor_blocks.add(blk)
                    continue
                assert blk == (v, want[kp.workspace]), (name, kp.workspace, blk, v)
                assert ws_ptr.setdefault(kp.workspace, v) == v, name
        assert len(ws_ptr) == 2 and ws_ptr[0] != ws_ptr[1]
        assert not tensor_blocks & {(ws_ptr[j], want[j]) for j in ws_ptr}
    assert seen_lengths == {5, 9}
