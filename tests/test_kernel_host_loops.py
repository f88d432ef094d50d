"""Host loops in a `cgraph kernels` file (issue 34): TVM's scheduled GPU cumsum
(`gpu_2d_continuous_cumsum`, what `relax.op.cumsum` becomes on cuda) launches one kernel per
round of its scan from a loop in its host code; the manifest holds the loop and `cgraph run
--kernels` runs it.

The modules are TVM's: the minimal one (the issue's, `op.cumsum` over int32 `[n]`) and a
capturable one are built here with relax.frontend.nn and TVM's cuda pipeline, dumped before
RewriteCUDAGraph as bench/corpus/build_corpus.py dumps the corpus; the sampler is
samples/real/capture_safety/sampler_tir. Expected values come from elsewhere than the code
under test: the number of rounds from the PrimFunc's own text (`total_rounds`, evaluated here
with Python), each round's grid from a hand derivation from the scheduled TIR (written out in
`expected_launches`), scalar parameters by the names of TVM's CUDA signatures, compilation
from NVRTC.
"""

from __future__ import annotations

import re

import pytest

from bench.corpus.tvm_capture import build_and_capture
from cli_runner import cgraph
from conftest import REAL_SAMPLES, nvrtc_or_skip
from host_driver import RecordingDriver, gxx
from cudagraph_cli.cuda import nvrtc
from cudagraph_cli.cuda.launch_manifest import (Expr, HostLoop, Kernel, ManifestError,
                                                plan_prim_call, read_manifest, to_json,
                                                render_comment)
from cudagraph_cli.text.reader import parse_module

CUMSUM = "gpu_2d_continuous_cumsum"
SAMPLER = REAL_SAMPLES / "capture_safety" / "sampler_tir.before.relax"
# forward's tir_var_upper_bound in the capturable module: its storage is planned for this n.
N_BOUND = 1 << 20


def cumsum_alone_text() -> str:
    """The issue's module: `op.cumsum` over int32 [n], TVM's dump before RewriteCUDAGraph."""
    from tvm.relax.frontend import nn
    from tvm.relax.frontend.nn import op

    class Cumsum(nn.Module):
        def forward(self, x):
            return op.cumsum(x, axis=0)

    mod, _ = Cumsum().export_tvm(spec={"forward": {"x": nn.spec.Tensor(("n",), "int32")}})
    return build_and_capture(mod, "cumsum")[0]


def cumsum_captured_text() -> str:
    """A cumsum cgraph's rewrite can capture with `capture_symbolic n`: of a weight broadcast
    to [1, n], inside storage planned for n <= N_BOUND. TVM's legalized cumsum reshapes its
    operand and its result with `vm.builtin.reshape`, which no graph captures, so its launches
    always stay outside graphs; here the two reshapes, which are from [1, n] to [1, n] (the
    identity), are replaced by their operand -- the only edit, so that the cumsum's call sits
    inside a graph and its rounds are captured."""
    from tvm.relax.frontend import nn
    from tvm.relax.frontend.nn import op

    class Cumsum(nn.Module):
        def __init__(self):
            self.w = nn.Parameter((1, 1), "int32")

        def forward(self, x):
            return op.cumsum(op.broadcast_to(self.w, x.shape), axis=1) + x

    mod, _ = Cumsum().export_tvm(spec={"forward": {"x": nn.spec.Tensor((1, "n"), "int32")}})
    mod["forward"] = mod["forward"].with_attr("tir_var_upper_bound", {"n": N_BOUND})
    text = build_and_capture(mod, "cumsum_captured")[0]
    text, count = re.subn(r'R\.call_packed\("vm\.builtin\.reshape", (\w+), R\.shape\(\[1, n\]\), '
                          r'ty_args=\(R\.Tensor\(\(1, n\), dtype="int32"\),\)\)', r"\1", text)
    assert count == 2, "TVM's legalized cumsum changed: expected its two reshapes"
    return text


def _lower(text: str, name: str):
    from cudagraph_cli.cuda.tvm_kernels import lower_module

    mod = parse_module(text, name)
    ks = lower_module(mod, name)
    return mod, ks, read_manifest(ks.source, name + ".cu")


@pytest.fixture(scope="module")
def alone(tvm):
    text = cumsum_alone_text()
    return (text, *_lower(text, "cumsum.before.relax"))


@pytest.fixture(scope="module")
def captured(tvm):
    text = cumsum_captured_text()
    return (text, *_lower(text, "cumsum_captured.before.relax"))


@pytest.fixture(scope="module")
def sampler(tvm):
    text = SAMPLER.read_text()
    return (text, *_lower(text, SAMPLER.name))


# ---- the expected launches, from the scheduled TIR ---------------------------------------------

class _T:
    """Just enough of TVMScript's `T` to evaluate the PrimFunc's `total_rounds`."""

    int64 = staticmethod(lambda v=0: v)

    @staticmethod
    def Cast(dtype, v):  # noqa: N802 - TVMScript's name
        return int(v)


def total_rounds(text: str, n: int) -> int:
    """The PrimFunc's own `total_rounds` (the let before its first host loop), evaluated with
    Python for `n`."""
    m = re.search(r"total_rounds: T\.let\[T\.int64\] = (.*)\n", text)
    return eval(m.group(1), {"T": _T}, {"n": n})  # noqa: S307 - TVM's text, from TVM


def expected_launches(text: str, n: int, m: int = 1) -> list:
    """(kernel, grid, {signature name: value}) per launch of one call, derived by hand from the
    scheduled TIR of gpu_2d_continuous_cumsum (sampler_tir.before.relax line 228): a first
    kernel scans blocks of 512 (grid ((n + 511) // 512, m)); `for i in range(total_rounds)`
    scans the block sums, round i over cur_len = ((n - 1) >> shift) + 1 elements with
    num_blocks = ((n - 1) >> block_shift) + 1 blocks, shift = min(max(9 * (i + 1), 0), 63),
    block_shift = min(shift + 9, 63); `for i in range(reverse_rounds)`, reverse_rounds =
    max(total_rounds - 1, 0), adds them back, real_idx = reverse_rounds - 1 - i taking
    i's place in shift; a last kernel adds each block's prefix (grid as the first). Block:
    threadIdx (32, 4)."""
    rounds = total_rounds(text, n)

    def blocks(i):
        shift = min(max(9 * (i + 1), 0), 63)
        return ((n - 1) >> min(shift + 9, 63)) + 1

    first = (CUMSUM + "_kernel", ((n + 511) // 512, m, 1), {"m": m, "n": n})
    out = [first]
    out += [(CUMSUM + "_kernel_1", (blocks(i), m, 1), {"i": i, "m": m, "n": n})
            for i in range(rounds)]
    reverse = max(rounds - 1, 0)
    out += [(CUMSUM + "_kernel_2", (blocks(reverse - 1 - i), m, 1), {"m": m, "n": n})
            for i in range(reverse)]
    out.append((CUMSUM + "_kernel_3", ((n + 511) // 512, m, 1), {"m": m, "n": n}))
    return out


_SIGNATURE_RE = re.compile(r'extern "C" __global__ void (?:__launch_bounds__\(\d+\) )?'
                           r'(\w+)\((.*?)\)')


def signature_names(source: str) -> dict:
    """kernel -> its parameters' names, from TVM's CUDA C."""
    return {m.group(1): [p.split()[-1].replace("__restrict__", "") for p in
                         m.group(2).split(",")]
            for m in _SIGNATURE_RE.finditer(source)}


# ---- cgraph kernels -------------------------------------------------------------------------

def test_the_cumsum_alone_has_two_host_loops(alone):
    """The issue's 121-line module: `cgraph kernels` no longer refuses it. Its manifest holds
    TVM's host code: a launch, a loop of launches, a loop of launches, a launch."""
    text, mod, ks, manifest = alone
    prim = manifest.prim_funcs[CUMSUM]
    first, forward, backward, last = prim.launch_steps
    assert isinstance(first, Kernel) and isinstance(last, Kernel)
    assert isinstance(forward, HostLoop) and isinstance(backward, HostLoop)
    assert (first.name, last.name) == (CUMSUM + "_kernel", CUMSUM + "_kernel_3")
    assert [k.name for k in forward.body] == [CUMSUM + "_kernel_1"]
    assert [k.name for k in backward.body] == [CUMSUM + "_kernel_2"]
    assert forward.var == backward.var == "i"  # TVM's name; the loops do not nest
    assert set(prim.vars) == {"m", "n"} and "i" not in prim.vars
    # The loops' bounds, against the PrimFunc's own total_rounds, across every threshold.
    for n in (1, 256, 257, 131072, 131073, 67108865, 2 ** 40):
        rounds = total_rounds(text, n)
        assert forward.start.evaluate({"n": n, "m": 1}) == 0
        assert forward.extent.evaluate({"n": n, "m": 1}) == rounds, n
        assert backward.extent.evaluate({"n": n, "m": 1}) == max(rounds - 1, 0), n
    # The loop's variable reaches kernel_1 as its parameter `i` (TVM's CUDA signature).
    names = signature_names(ks.source)
    (i_param,) = [kp for name, kp in zip(names[CUMSUM + "_kernel_1"], forward.body[0].params)
                  if name == "i"]
    assert i_param.expr.names == {"i"} and i_param.dtype == "int64"


def test_the_cli_writes_the_cumsum_kernels(alone, tmp_path):
    """The issue's command: `cgraph kernels` exits 0 and writes the manifest with the loops."""
    text = alone[0]
    src, out = tmp_path / "cumsum.before.relax", tmp_path / "cumsum.cu"
    src.write_text(text)
    r = cgraph("kernels", src, "-o", out)
    assert r.exit_code == 0, r.stderr
    prim = read_manifest(out.read_text(), str(out)).prim_funcs[CUMSUM]
    assert [type(s).__name__ for s in prim.launch_steps] == ["Kernel", "HostLoop", "HostLoop",
                                                             "Kernel"]


@pytest.mark.parametrize("n", [100, 300, 600_000, 200_000_000])
def test_a_call_launches_each_round(alone, n):
    """plan_prim_call unrolls the loops for the call's n: the launches, their order, grids and
    the loop's variable in kernel_1's parameter `i`, as derived from the TIR."""
    text, mod, ks, manifest = alone
    prim = manifest.prim_funcs[CUMSUM]

    class Tensor:
        def __init__(self, ptr):
            self.ptr, self.shape = ptr, (1, n)

    launches = plan_prim_call(prim, [Tensor(0x1000), Tensor(0x2000)], [], [0x3000])
    names = signature_names(ks.source)
    want = expected_launches(text, n)
    assert [(p.kernel, p.grid) for p in launches] == [(k, g) for k, g, _ in want]
    for p, (_, _, scalars) in zip(launches, want):
        assert p.block == (32, 4, 1)
        got = dict(zip(names[p.kernel], (a.value for a in p.args)))
        assert {k: got[k] for k in scalars} == scalars, p.kernel


def test_the_sampler_lowers_and_its_cumsum_scans_in_one_round(sampler):
    """sampler_tir (228:9) was refused for the loop; its cumsum is over [1, 32]: no round."""
    text, mod, ks, manifest = sampler
    prim = manifest.prim_funcs[CUMSUM]
    assert prim.has_loops and len(prim.kernels) == 4

    class Tensor:
        def __init__(self, ptr):
            self.ptr, self.shape = ptr, (1, 32)

    launches = plan_prim_call(prim, [Tensor(0x1000), Tensor(0x2000)], [], [0x3000])
    assert [p.kernel for p in launches] == [k for k, _, _ in expected_launches(text, 32)] == \
        [CUMSUM + "_kernel", CUMSUM + "_kernel_3"]


@pytest.mark.parametrize("which", ["alone", "captured", "sampler"])
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_every_kernel_compiles_with_nvrtc(which, arch, request, tmp_path, monkeypatch):
    text, mod, ks, manifest = request.getfixturevalue(which)
    nvrtc_or_skip(needs_headers=nvrtc.toolkit_headers_needed(ks.source))
    monkeypatch.setenv("CGRAPH_CACHE_DIR", str(tmp_path))
    cubin, cached = nvrtc.compile_cubin(ks.source, arch, which + ".cu")
    assert not cached and cubin.startswith(b"\x7fELF")
    for kernel in manifest.kernel_names():
        assert kernel.encode() + b"\0" in cubin, kernel


# ---- cgraph run --kernels, on the recording driver ------------------------------------------

def test_run_executes_the_rounds_eager_and_in_graphs(captured):
    """`run --kernels` with `capture_symbolic n`: the graph of a call records the launches
    unrolled for its n; a call with another n gets its own graph (graphs are keyed by the
    symbolic values), a call with the same n replays it. Every run of the cumsum -- eager,
    capture, replay, timing -- launches exactly what the TIR says for its n."""
    from cudagraph_cli.cuda.gpu_run import RunOptions, run_on_gpu
    from cudagraph_cli.passes.options import RewriteOptions
    from cudagraph_cli.passes.pipeline import rewrite

    if gxx() is None:
        pytest.skip("g++ is needed for the simulated driver")
    text, mod, ks, manifest = captured
    rewritten, _ = rewrite(mod, RewriteOptions(capture_symbolic=("n",)))
    drivers = []

    def open_device(ordinal):
        drivers.append(RecordingDriver(ordinal))
        drivers[-1].zero_buffers = True
        return drivers[-1]

    lengths = [300, 600_000, 300, 600_000]
    options = RunOptions(calls=4, warmup=0, iters=1, kernels_source=ks.source,
                         kernels_name="cumsum.cu", shapes={"n": lengths})
    r = run_on_gpu(mod, "cumsum", options, open_device=open_device, rewritten=rewritten)
    assert r.ok, (r.difference_between, r.difference)
    assert r.compared.startswith("eager (GPU) = graph (GPU)")
    assert r.captures == 2  # one graph per value of n; calls 3 and 4 replay them
    (drv,) = drivers
    names = signature_names(ks.source)
    runs = []  # each run of the cumsum: the recorded launches from its first kernel on
    for name, grid, block, shared, values, live in drv.recorded:
        if not name.startswith(CUMSUM):
            continue
        if name == CUMSUM + "_kernel":
            runs.append([])
        assert all(live), name
        runs[-1].append((name, grid, dict(zip(names[name], values))))
    seen = []
    for run in runs:
        n = run[0][2]["n"]
        seen.append(n)
        want = expected_launches(text, n)
        assert [(k, g) for k, g, _ in run] == [(k, g) for k, g, _ in want], n
        for (_, _, got), (kname, _, scalars) in zip(run, want):
            assert {k: got[k] for k in scalars} == scalars, kname
    # eager and graph for each of the 4 calls (graph: the capture's first run, then replays),
    # then one timed call per executor and n; 600000 takes 2 rounds and a reverse round.
    assert seen[:8] == [300, 300, 600_000, 600_000, 300, 300, 600_000, 600_000]
    assert len(runs[2]) == 5 and len(runs[0]) == 3


# ---- the manifest: loops written, read, checked ---------------------------------------------

def _manifest(kernels_json: str, vars_json: str = '{"n": {"param": 0, "dim": 0}}') -> str:
    return ('/* cgraph-launch-manifest\n{\n "format": 1,\n "prim_funcs": {\n  "f": {"params": '
            '[{"name": "a", "kind": "buffer"}], "vars": ' + vars_json + ', "kernels": '
            + kernels_json + '}\n }\n}\n*/\n'
            'extern "C" __global__ void k0(float* a, int x) {}\n'
            'extern "C" __global__ void k1(float* a, int x) {}\n'
            'extern "C" __global__ void k2(float* a, int x) {}\n')


def _k(name: str, scalar: str, grid: str = "1") -> str:
    return ('{"name": "%s", "params": [{"param": 0}, {"expr": "%s", "dtype": "int32"}], '
            '"grid": ["%s", "1", "1"], "block": ["1", "1", "1"]}' % (name, scalar, grid))


NESTED = ("[" + _k("k0", "n") + ', {"loop": "i", "start": "1", "extent": "n - 1", "body": ['
          '{"loop": "j", "start": "i", "extent": "2", "body": [' + _k("k1", "i * 10 + j", "j")
          + "]}]}, " + _k("k2", "0") + "]")


def test_nested_loops_launch_in_order():
    """Hand derivation: n = 3 -> i in 1..2, j in i..i+1: k0; k1 (1,1), (1,2), (2,2), (2,3);
    k2. A loop of extent <= 0 launches nothing (n = 1)."""
    prim = read_manifest(_manifest(NESTED), "k.cu").prim_funcs["f"]

    class Tensor:
        ptr, shape = 0x10, (3,)

    got = [(p.kernel, p.args[1].value, p.grid[0])
           for p in plan_prim_call(prim, [Tensor()], [])]
    assert got == [("k0", 3, 1), ("k1", 11, 1), ("k1", 12, 2), ("k1", 22, 2), ("k1", 23, 3),
                   ("k2", 0, 1)]
    Tensor.shape = (1,)
    assert [p.kernel for p in plan_prim_call(prim, [Tensor()], [])] == ["k0", "k2"]


def test_loops_write_and_read_back():
    prim = read_manifest(_manifest(NESTED), "k.cu").prim_funcs["f"]
    again = read_manifest(render_comment(to_json([prim], {})) + _manifest("[]").split("*/\n")[1],
                          "k.cu").prim_funcs["f"]
    assert to_json([again], {}) == to_json([prim], {})
    assert [k.name for k in again.kernels] == ["k0", "k1", "k2"]
    # A manifest without loops is what it was: no `loop` entry, steps are the kernels.
    flat = read_manifest(_manifest("[" + _k("k0", "n") + "]"), "k.cu").prim_funcs["f"]
    assert flat.steps is None and flat.launch_steps == flat.kernels
    assert "loop" not in render_comment(to_json([flat], {}))


@pytest.mark.parametrize("kernels, message", [
    # a loop's variable read after its loop, in a grid
    ('[{"loop": "i", "start": "0", "extent": "n", "body": [' + _k("k0", "i") + "]}, "
     + _k("k1", "0", "i") + "]", "reads 'i', the variable of a loop it is not inside"),
    # ... in its own bounds
    ('[{"loop": "i", "start": "0", "extent": "i", "body": [' + _k("k0", "i") + "]}]",
     "reads 'i', the variable of a loop it is not inside"),
    ('[{"loop": "n", "start": "0", "extent": "2", "body": [' + _k("k0", "n") + "]}]",
     "loop variable 'n' is already a symbolic variable"),
    ('[{"loop": "i", "start": "0", "extent": "2", "body": [{"loop": "i", "start": "0", '
     '"extent": "2", "body": []}]}]', "already the variable of an enclosing loop"),
    ('[{"loop": "max", "start": "0", "extent": "2", "body": []}]', "is not a name"),
    ('[{"loop": "i", "start": "0", "extent": "2", "body": {}}]', "a launch list is a JSON array"),
])
def test_a_broken_loop_is_located_at_its_prim_func(kernels, message):
    with pytest.raises(ManifestError) as e:
        read_manifest(_manifest(kernels), "k.cu")
    assert message in e.value.message, e.value.message
    # the line of the PrimFunc's entry (render_comment writes one line per PrimFunc)
    assert (e.value.loc.line, e.value.loc.col) == (5, 3)


def test_shifts_are_tvms_64_bit_shifts():
    assert Expr.parse("(n - 1) >> 9").evaluate({"n": 600_000}) == 1171
    assert Expr.parse("-5 >> 1").evaluate({}) == -3  # arithmetic, as LLVM's ashr
    assert Expr.parse("1 << 40").evaluate({}) == 1 << 40
    for bad in ("1 >> 64", "1 << -1"):
        with pytest.raises(ValueError, match="a shift by"):
            Expr.parse(bad).evaluate({})


# ---- host code cgraph's manifest does not hold: located -------------------------------------

NESTED_TIR = '''\
# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def rounds(A: T.Buffer((T.int64(4), n), "float32")):
        T.func_attr({"tirx.is_scheduled": True})
        for i in range(T.int64(3)):
            for j in range(i + T.int64(1)):
                for bx in T.thread_binding((n + T.int64(63)) // T.int64(64), thread="blockIdx.x"):
                    for tx in T.thread_binding(T.int64(64), thread="threadIdx.x"):
                        if bx * T.int64(64) + tx < n:
                            A[i, bx * T.int64(64) + tx] = A[i, bx * T.int64(64) + tx] + T.Cast("float32", j)
        LAST

    @R.function
    def main(a: R.Tensor((4, "n"), dtype="float32")) -> R.Tensor((4, "n"), dtype="float32"):
        R.func_attr({"relax.force_pure": True})
        cls = Module
        cls.rounds(a)
        return a
'''
LAST = '''for bx in T.thread_binding(T.int64(4), thread="blockIdx.x"):
            A[bx, T.int64(0)] = T.float32(0)'''


def test_nested_host_loops_of_a_scheduled_prim_func(tvm):
    """A scheduled PrimFunc whose host code nests two loops around a launch (the inner one's
    extent reads the outer's variable), then launches once more."""
    mod, ks, manifest = _lower(NESTED_TIR.replace("LAST", LAST), "nested.relax")
    prim = manifest.prim_funcs["rounds"]
    (outer, last) = prim.launch_steps
    (inner,) = outer.body
    assert (outer.var, inner.var, last.name) == ("i", "j", "rounds_kernel_1")
    assert inner.extent.text == "(i + 1)"

    class Tensor:
        ptr, shape = 0x10, (4, 100)

    names = signature_names(ks.source)
    got = [(p.kernel, {k: a.value for k, a in zip(names[p.kernel], p.args) if k in ("i", "j")})
           for p in plan_prim_call(prim, [Tensor()], [])]
    assert got == [("rounds_kernel", {"i": i, "j": j}) for i in range(3) for j in range(i + 1)] \
        + [("rounds_kernel_1", {})]


def test_a_launch_under_a_condition_is_located(tvm, tmp_path):
    """An `if` on a shape around a launch in TVM's host code: not in the manifest's language,
    so an error at the PrimFunc (the cumsum's host code has `if`s only around its argument
    checks, which launch nothing)."""
    src = tmp_path / "cond.relax"
    src.write_text(NESTED_TIR.replace("LAST", "if n > T.int64(8):\n            " +
                                      LAST.replace("\n", "\n    ")))
    r = cgraph("kernels", src, "-o", tmp_path / "c.cu")
    assert r.exit_code == 2, r.stderr
    assert f"{src}:10:9: error: PrimFunc 'rounds': TVM's host code launches a kernel under a " \
           "condition" in r.stderr
    assert not (tmp_path / "c.cu").exists()


# ---- a library function called by TVM's host code ------------------------------------------

CUBLAS_EXTERN = REAL_SAMPLES / "capture_safety" / "cublas_te_extern.before.relax"


def test_a_library_call_of_the_host_code_is_left_to_the_stand_in(tvm):
    """cublas_te_extern's `matmul` is a te.extern PrimFunc whose body is
    `T.call_packed("tvm.contrib.cublas.matmul", ...)`: TVM's host code calls the library, and
    generates no kernel. The manifest says so, `cgraph kernels` notes it, and `run --kernels`
    runs cgraph's stand-in for it rather than launching nothing."""
    from cudagraph_cli.cuda.gpu_run import RunOptions, run_on_gpu

    text = CUBLAS_EXTERN.read_text()
    called = re.findall(r'T\.call_packed\("([\w.]+)"', text)
    assert called == ["tvm.contrib.cublas.matmul"]
    mod, ks, manifest = _lower(text, CUBLAS_EXTERN.name)
    prim = manifest.prim_funcs["matmul"]
    assert prim.host_calls == tuple(called) and not prim.kernels
    assert all(not p.host_calls for n, p in manifest.prim_funcs.items() if n != "matmul")
    assert any("PrimFunc 'matmul': TVM's host code calls tvm.contrib.cublas.matmul" in n
               for n in ks.notes)
    if gxx() is None:
        pytest.skip("g++ is needed for the simulated driver")
    options = RunOptions(calls=1, warmup=0, iters=1, kernels_source=ks.source,
                         kernels_name="cublas.cu")
    r = run_on_gpu(mod, CUBLAS_EXTERN.name, options, open_device=RecordingDriver)
    assert r.ok, (r.difference_between, r.difference)
    assert "matmul" not in r.user_kernels_used and "relu" in r.user_kernels_used
    assert any(n.startswith("the host code of matmul calls tvm.contrib.cublas.matmul, which "
                            "cublas.cu cannot hold") for n in r.notes), r.notes
    assert not any(n.startswith("TVM generated no kernel") for n in r.notes), r.notes


def test_a_kernel_tvm_cannot_generate_is_located_at_its_prim_func(tvm):
    """sampler_thrust: TVM 0.27's CUDA code generator rejects the thrust sorts' kernels (their
    `T.sblock_alloc_buffer` in global memory; relax.build stops there too, the sample's header
    says). The error is at the first PrimFunc whose kernel fails alone."""
    from cudagraph_cli.cuda.tvm_kernels import lower_module
    from cudagraph_cli.diagnostics import SourceError

    path = REAL_SAMPLES / "capture_safety" / "sampler_thrust.before.relax"
    text = path.read_text()
    assert "Cannot allocate global memory when targeting CUDA" in text.split("\n@I")[0]
    with pytest.raises(SourceError) as e:
        lower_module(parse_module(text, str(path)), path.name)
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if "def argsort_thrust(" in ln)
    assert (e.value.loc.line, e.value.loc.col) == (line, 9)
    assert e.value.message.startswith("PrimFunc 'argsort_thrust': TVM cannot generate CUDA C "
                                      "(cuda sm_80) for its kernel: Check failed")


def test_the_kernels_bench_runs(alone, tmp_path, capsys):
    """bench/bench_kernels_corpus.py's plumbing, on the cumsum module for one architecture
    (the bench itself runs every mlc model for both)."""
    text = alone[0]
    src = tmp_path / "cumsum.before.relax"
    src.write_text(text)
    from bench import bench_kernels_corpus as bench
    doc, out = tmp_path / "B.md", tmp_path / "b.json"
    doc.write_text("# x\n")
    nvrtc_or_skip()
    assert bench.main(["--models", "", str(src), "--archs", "sm_80", "--json", str(out),
                       "--write", str(doc)]) == 0
    import json

    (row,) = json.loads(out.read_text())["rows"]
    assert (row["model"], row["prim_funcs"], row["kernels"], row["host_loops"],
            row["sm_80"]) == ("cumsum", 1, 4, 1, "ok")
    assert "| cumsum | 1 | 4 | 1 | 0 | 1 | - |" in doc.read_text()
