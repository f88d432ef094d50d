"""The operators and builtins TVM leaves in a module between memory planning and its CUDA-graph
pass: each one's semantics on a small module, values derived by hand; the
corpus (samples/real, samples/tvm) verified; what is named but not executed."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from cli_runner import cgraph
from conftest import ROOT, run_cli
from synthetic_formula import aes_sbox
from cudagraph_cli.diagnostics import SourceError
from cudagraph_cli.exec.backend import CpuBackend, ExecError
from cudagraph_cli.exec.interpreter import Executor
from cudagraph_cli.exec.verify import verify
from cudagraph_cli.text.reader import parse_module
from cudagraph_cli.passes.pipeline import rewrite

REAL_DIR = ROOT / "samples" / "real"
TVM_DIR = ROOT / "samples" / "tvm"

# Elementwise kernels with real bodies (so they read their input by name).
KERNELS = '''
    @T.prim_func
    def add_one(a: T.Buffer((6,), "float32"), b: T.Buffer((6,), "float32")):
        for i in range(6):
            b[i] = a[i] + T.float32(1)

    @T.prim_func
    def copy(a: T.Buffer((2,), "float32"), b: T.Buffer((2,), "float32")):
        for i in range(2):
            b[i] = a[i]
'''


def module(body: str, extra: str = "") -> str:
    return f'''@I.ir_module
class M:{KERNELS}{extra}
    @R.function
    def main(x: R.Tensor((2, 3), "float32")):
        R.func_attr({{"relax.force_pure": True}})
        cls = M
{body}'''


def run(text: str, *args, track_init: bool = False):
    ex = Executor(parse_module(text), CpuBackend(track_init=track_init))
    return ex, ex.call("main", [ex.backend.from_numpy(np.array(a)) for a in args])


X = np.arange(6, dtype=np.float32).reshape(2, 3)  # 0 1 2 / 3 4 5


def test_reshape_is_a_view_writing_through_it_changes_the_base():
    # y views x's bytes as (6,); add_one(y, out) gives x + 1 flattened; add_one(out, y)
    # writes y, so x becomes (x + 1) + 1 = x + 2.
    text = module('''        y = R.reshape(x, R.shape([6]))
        out = R.builtin.alloc_tensor(R.shape([6]), "float32", 0)
        cls.add_one(y, out)
        cls.add_one(out, y)
        return (x, y, out)
''')
    _, (x, y, out) = run(text, X)
    assert out.array.tolist() == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    assert x.array.tolist() == [[2.0, 3.0, 4.0], [5.0, 6.0, 7.0]]
    assert np.shares_memory(x.array, y.array)


def test_reshape_of_a_view_keeps_its_offset_in_the_storage():
    # Two (3,) tensors in one 24-byte storage; the second, at byte 12, reshaped to (1, 3),
    # written by add_one through a reshape of an 6-element view: the storage's bytes move.
    text = module('''        s = R.memory.alloc_storage(R.shape([48]), 0, "global", "float32")
        whole = R.memory.alloc_tensor(s, 0, R.shape([12]), "float32")
        second = R.memory.alloc_tensor(s, 24, R.shape([6]), "float32")
        flat = R.reshape(x, R.shape([6]))
        cls.add_one(flat, second)
        two = R.reshape(second, R.shape([2, 3]))
        return (whole, two)
''')
    _, (whole, two) = run(text, X)
    assert whole.array.tolist() == [0.0] * 6 + [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    assert two.array.shape == (2, 3) and two.offset == 24


def test_reshape_with_another_element_count_is_a_located_error(tmp_path):
    text = module('''        y = R.reshape(x, R.shape([4]))
        return y
''')
    src = tmp_path / "bad.relax"
    src.write_text(text)
    line = text.split("\n").index("        y = R.reshape(x, R.shape([4]))") + 1
    r = run_cli("run", str(src), "--device", "cpu")
    err = r.stderr.decode()
    assert r.returncode == 2, err
    assert err.startswith(f"{src}:{line}:9: error: R.reshape of a tensor (2, 3) (6 elements) "
                          "to (4,) (4 elements)")


def test_memory_view_offset_shape_and_dtype():
    # x's bytes: 6 float32. A view of 2 float32 at byte offset 8 is x's elements 2 and 3; an
    # int32 view of the first element gives 1.0f's bits, 0x3f800000, once x is x + 1.
    text = module('''        flat = R.reshape(x, R.shape([6]))
        plus = R.builtin.alloc_tensor(R.shape([6]), "float32", 0)
        cls.add_one(flat, plus)
        mid = R.memory.view(plus, R.shape([2]), R.dtype("float32"), R.prim_value(8))
        bits = R.memory.view(plus, R.shape([1]), R.dtype("int32"))
        same = R.memory.view(plus)
        out = R.builtin.alloc_tensor(R.shape([2]), "float32", 0)
        cls.copy(mid, out)
        zero = R.memory.ensure_zero_offset(mid)
        return (out, bits, same, zero)
''')
    _, (out, bits, same, zero) = run(text, X)
    assert out.array.tolist() == [3.0, 4.0]
    assert bits.array.tolist() == [0x3F800000]
    assert same.array.shape == (6,) and same.dtype == "float32"
    assert zero.array.tolist() == [3.0, 4.0] and zero.offset == 8


def test_memory_view_may_not_reach_past_its_tensor():
    text = module('''        v = R.memory.view(x, R.shape([2]), R.dtype("float32"), R.prim_value(20))
        return v
''')
    with pytest.raises(ExecError, match="a view of 8 bytes at offset 20 does not fit in its "
                                        r"tensor \(2, 3\) float32 of 24 bytes"):
        run(text, X)


def test_vm_builtin_reshape_by_name_is_the_same_view():
    text = module('''        y = R.call_packed("vm.builtin.reshape", x, R.shape([3, 2]),
                          ty_args=(R.Tensor((3, 2), "float32"),))
        return y
''')
    _, y = run(text, X)
    assert y.array.tolist() == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]


FULL = '''
    @T.prim_func
    def fill(var_a: T.handle, n: T.int64):
        T.evaluate(0)
'''


def test_call_tir_dyn_passes_the_shape_values_as_scalars():
    # fill's body is a stub: the synthetic kernel, no inputs, writing its one buffer (the
    # last parameter that is not a scalar). docs/EXECUTOR.md, no inputs:
    # out[j] = ((s0 + 17 j) mod 256) XOR s1 over 8 bytes, s0 and s1 the low and high byte
    # of salt = crc32("fill") ^ crc32(repr([2])).
    text = module('''        a = R.builtin.alloc_tensor(R.shape([2]), "float32", 0)
        R.vm.call_tir_dyn(cls.fill, (a, R.shape([2])))
        return a
''', FULL)
    _, a = run(text, X)
    salt = (zlib.crc32(b"fill") & 0xFFFF) ^ (zlib.crc32(repr([2]).encode()) & 0xFFFF)
    assert a.array.view(np.uint8).tolist() == \
        [((salt & 0xFF) + 17 * j) % 256 ^ (salt >> 8) for j in range(8)]


SCAN = '''
    @T.prim_func
    def scan(var_a: T.handle, var_ws: T.handle, var_out: T.handle):
        T.evaluate(0)
'''


def test_a_workspace_is_written_before_it_is_read():
    # static_plan_add's cumsum: (input, 1-D uint8 workspace, output) and a stub body. The
    # workspace counts as written (output 0), so its stale bytes reach nothing and its
    # never-written memory is no uninitialized read. Over bytes, salt = crc32("scan"), x the
    # only input, output 1 (docs/EXECUTOR.md; tests/helpers/synthetic_formula.py):
    # out[j] = ((s0 + 101 * 1 + 17 j + 3 S[(x[j] + s1) mod 256] + 2 S[(x[j XOR 1] + s1)
    # mod 256]) mod 256) XOR s1, S the AES S-box.
    text = module('''        ws = R.builtin.alloc_tensor(R.shape([64]), "uint8", 0)
        out = R.builtin.alloc_tensor(R.shape([2, 3]), "float32", 0)
        cls.scan(x, ws, out)
        return out
''', SCAN)
    ex, out = run(text, X, track_init=True)
    salt = zlib.crc32(b"scan") & 0xFFFF
    xb = X.view(np.uint8).reshape(-1).astype(int)
    s0, s1, sbox = salt & 0xFF, salt >> 8, aes_sbox()
    assert out.array.view(np.uint8).reshape(-1).tolist() == \
        [(s0 + 101 + 17 * j + 3 * sbox[(xb[j] + s1) % 256] + 2 * sbox[(xb[j ^ 1] + s1) % 256])
         % 256 ^ s1 for j in range(24)]
    assert ex.warnings == []


def test_a_stub_kernel_given_unwritten_memory_warns_a_real_body_errors():
    # A body that reads nothing by name (TVM's test modules' T.evaluate(0)) may write its
    # argument first: a warning at the call. add_one reads `a[i]`: an error, as before.
    stub = module('''        t = R.builtin.alloc_tensor(R.shape([2]), "float32", 0)
        out = R.builtin.alloc_tensor(R.shape([2]), "float32", 0)
        cls.scan(t, x, out)
        return out
''', SCAN)
    ex, _ = run(stub, X, track_init=True)
    line = stub.split("\n").index("        cls.scan(t, x, out)") + 1
    assert [(loc.line, loc.col) for loc, _ in ex.warnings] == [(line, 9)]
    assert "kernel 'scan' is given argument 0, which nothing wrote" in ex.warnings[0][1]
    real = module('''        t = R.builtin.alloc_tensor(R.shape([6]), "float32", 0)
        out = R.builtin.alloc_tensor(R.shape([6]), "float32", 0)
        cls.add_one(t, out)
        return out
''')
    with pytest.raises(ExecError, match="kernel 'add_one' reads argument 0 before anything"):
        run(real, X, track_init=True)


def test_shape_of_tensor_to_shape_closures_and_print():
    text = module('''        s = R.shape_of(x)
        y = R.reshape(x, s)
        c = R.make_closure(cls.twice, (x,))
        r = R.invoke_closure(c, (y,), ty_args=(R.Tensor((2, 3), "float32"),))
        R.print(x, y, format="x: {} {}")
        return (s, r)
''', '''
    @R.function
    def twice(a: R.Tensor((2, 3), "float32"), b: R.Tensor((2, 3), "float32")):
        R.func_attr({"relax.force_pure": True})
        return b
''')
    _, (s, r) = run(text, X)
    assert s == (2, 3) and r.array.tolist() == X.tolist()


def test_an_operator_named_but_not_executed_is_a_located_error(tmp_path):
    text = module('''        y = R.nonzero(x)
        return y
''')
    src = tmp_path / "nz.relax"
    src.write_text(text)
    line = text.split("\n").index("        y = R.nonzero(x)") + 1
    r = run_cli("run", str(src), "--device", "cpu")
    assert r.returncode == 2
    assert r.stderr.decode().startswith(
        f"{src}:{line}:9: error: operator 'relax.nonzero' is not executed by the executor: "
        "its result's shape depends on the data")


def test_input_dimensions_given_by_expressions():
    # x: (n, m, T.max(n - m, 1)); with n = 3, m = 1 the last dimension is max(2, 1) = 2, and
    # with n = m = 2 it is max(0, 1) = 1 (the result has x's shape).
    path = REAL_DIR / "static_plan_tir_var_decreasing_monotone.before.relax"
    r = cgraph("run", path, "--device", "cpu", "--calls", "2", "--shape", "n=3,2",
               "--shape", "m=1,2")
    assert r.exit_code == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("main call 1 output: (3, 1, 2) float32")
    assert lines[1].startswith("main call 2 output: (2, 2, 1) float32")


# ---- storages sized in elements ------------------------------------------------------------

# TVM's test modules whose storages hold R.shape([N]) elements rather than bytes.
IN_ELEMENTS = {"disable_capture_output", "merge_alloc_funcs", "static_args",
               "static_input_with_symbolic_shape", "transform_is_no_op_when_disabled"}


def test_a_storage_sized_in_elements_grows_with_a_located_warning(tmp_path):
    # static_args: storage0 = alloc_storage(R.shape([8]), ..., "float32") holds 8 float32,
    # 32 bytes: grown to 8 * 4 bytes, a warning at the alloc_tensor (line 8), exit 0.
    before = TVM_DIR / "static_args_before.relax"
    r = run_cli("verify", str(before), str(TVM_DIR / "static_args_expected.relax"))
    err = r.stderr.decode()
    assert r.returncode == 0, err
    assert err.startswith(f"{before}:8:9: warning: a tensor of 32 bytes at offset 0 does not "
                          "fit its storage of 8 bytes; run with the storage grown to 32 bytes "
                          "(8 float32 elements)")


def test_a_storage_too_small_in_a_module_sized_in_bytes_is_still_an_error():
    # vm_builtin_expected sizes in bytes (32 bytes for 8 float32); one storage cut to 16
    # bytes is a broken module, not another convention: as the original it cannot run; as
    # the rewrite, the fact that fails is the difference (proof/facts.py).
    text = (TVM_DIR / "vm_builtin_expected.relax").read_text().replace(
        "storage1: R.Any = R.memory.alloc_storage(R.shape([32])",
        "storage1: R.Any = R.memory.alloc_storage(R.shape([16])", 1)
    before = parse_module((TVM_DIR / "vm_builtin_before.relax").read_text())
    d = verify(before, parse_module(text)).difference
    assert d.kind == "shape" and "a tensor of 32 bytes at offset 0 in a storage of 16 bytes" \
        in d.message
    assert d.loc.line > 0
    # The original itself so cut cannot run: exit 2's error, as before.
    with pytest.raises(SourceError, match="does not fit its storage of 16 bytes"):
        verify(parse_module(text), before)
    with pytest.raises(SourceError, match="does not fit its storage of 16 bytes"):
        verify(parse_module(text), parse_module(text))


# ---- the corpus ------------------------------------------------------------------------------

def readable(path):
    try:
        return parse_module(path.read_text())
    except SourceError as e:
        if "metadata" in e.message:  # constants from metadata[...] (exec/constants.py)
            pytest.skip(f"cgraph cannot read {path.name} yet: {e.message}")
        raise


# The real-size mlc_* models verify and run in tests/test_real_size.py (against TVM's after
# file, which is cgraph's rewrite structurally), once each.
@pytest.mark.parametrize("path", sorted(p for p in REAL_DIR.glob("*.before.relax")
                                        if not p.name.startswith("mlc_")), ids=lambda p: p.name)
def test_every_real_module_verifies_and_runs(path):
    original = readable(path)
    out, _ = rewrite(original)
    report = verify(original, out)
    assert report.equal, report.difference
    r = cgraph("run", path, "--device", "cpu")
    assert r.exit_code == 0, r.stderr


TVM_BEFORE = sorted(TVM_DIR.glob("*_before.relax"))


@pytest.mark.parametrize("path", TVM_BEFORE, ids=lambda p: p.name)
def test_every_tvm_module_verifies_against_cgraph_and_tvm(path):
    case = path.name[:-len("_before.relax")]
    original = parse_module(path.read_text())
    out, _ = rewrite(original)
    report = verify(original, out)
    assert report.equal, report.difference
    warned = any("sizes its storages in elements" in m for _, _, m in report.warnings)
    assert warned == (case in IN_ELEMENTS)
    expected = TVM_DIR / f"{case}_expected.relax"
    # capture_fixed_inputs' Expected takes its parameters in another order (TVM's test)
    if expected.exists() and case != "capture_fixed_inputs":
        assert verify(original, parse_module(expected.read_text())).equal


def test_run_cpu_runs_a_view_module_and_prints_no_traceback():
    r = run_cli("run", str(REAL_DIR / "static_plan_view.before.relax"), "--device", "cpu")
    assert r.returncode == 0, r.stderr.decode()
    assert r.stdout.decode().startswith("main call 1 output: (128,) float32 crc32 ")


# ---- Relax operators ---------------------------------------------------------------------------

OPS_CASE = ROOT / "tests" / "cases" / "ops_in_region.relax"
OPS_TVM = ROOT / "tests" / "cases" / "ops_in_region.expected.relax"  # TVM's pass wrote it


def test_operators_in_a_captured_region_verify_against_tvm_and_cgraph(tmp_path):
    """R.add and R.multiply of weights, which TVM's pass captures as kernel launches, run as
    kernels into fresh results; in a graph those results are the graph's, and the replay
    returns the same ones (TVM's output and cgraph's, which is TVM's here)."""
    r = run_cli("verify", str(OPS_CASE), str(OPS_TVM))
    assert r.returncode == 0, r.stdout.decode() + r.stderr.decode()
    assert "1 graph capture(s), 3 replay(s)" in r.stdout.decode()
    out = tmp_path / "cgraph.relax"
    assert run_cli("rewrite", str(OPS_CASE), "-o", str(out)).returncode == 0
    assert run_cli("verify", str(OPS_CASE), str(out)).returncode == 0


def test_operators_compute_their_elementwise_meaning():
    # y = x + (w1 + w2) * w1 elementwise, derived by hand from the module's three operators.
    original = parse_module(OPS_CASE.read_text())
    ex = Executor(original, CpuBackend())
    x, w1, w2 = (np.array(v, dtype=np.float32) for v in
                 ([1, 2, 3, 4], [0.5, -1, 2, 0], [1.5, 1, -4, 8]))
    y = ex.call("main", [ex.backend.from_numpy(a) for a in (x, w1, w2)])
    assert y.array.tolist() == [2.0, 2.0, -1.0, 4.0]


def test_a_stale_graph_input_is_caught(tmp_path):
    """TVM's output edited so that the graph also computes y = R.add(x, t) from the input x:
    every replay reads the x of the first call."""
    text = OPS_TVM.read_text()
    broken = text.replace(
        'def main_cuda_graph_capture(w1: R.Tensor((4,), dtype="float32"), '
        'w2: R.Tensor((4,), dtype="float32"))',
        'def main_cuda_graph_capture(w1: R.Tensor((4,), dtype="float32"), '
        'w2: R.Tensor((4,), dtype="float32"), x: R.Tensor((4,), dtype="float32"))').replace(
        '        gv: R.Tuple(R.Tensor((4,), dtype="float32")) = (t,)',
        '        y: R.Tensor((4,), dtype="float32") = R.add(x, t)\n'
        '        gv: R.Tuple(R.Tensor((4,), dtype="float32")) = (y,)').replace(
        '(cls.main_cuda_graph_capture, (w1, w2), 0)',
        '(cls.main_cuda_graph_capture, (w1, w2, x), 0)').replace(
        '        t: R.Tensor((4,), dtype="float32") = gv[0]\n'
        '        y: R.Tensor((4,), dtype="float32") = R.add(x, t)\n',
        '        y: R.Tensor((4,), dtype="float32") = gv[0]\n')
    assert broken.count("(w1, w2, x)") == 1 and "= gv[0]" in broken
    path = tmp_path / "stale.relax"
    path.write_text(broken)
    r = run_cli("verify", str(OPS_CASE), str(path))
    assert r.returncode == 1, r.stdout.decode() + r.stderr.decode()
    # the first call captures; the second replays on the first call's x
    assert r.stdout.decode().startswith("differ: function 'main', call 2, output, element [0]")


def ops_case_returning(returned: str, before_return: str = "") -> str:
    """OPS_CASE with main returning `returned` (after the lines `before_return`)."""
    text = OPS_CASE.read_text()
    assert "        return y\n" in text
    text = text.replace("        return y\n", f"{before_return}        return {returned}\n")
    return text.replace(' -> R.Tensor((4,), dtype="float32"):', ':')


def test_a_returned_graph_result_is_caught(tmp_path):
    """main returns t = (w1 + w2) * w1 as well: TVM's pass (cgraph's with --compat tvm) lifts
    it into the graph and returns the graph's result, which every replay rewrites: the values
    agree call after call (weights only), the ownership check does not. (cgraph's default
    keeps t outside: the next test.)"""
    text = ops_case_returning("(y, t)")
    original = tmp_path / "returns_t.relax"
    original.write_text(text)
    out = tmp_path / "out.relax"
    assert run_cli("rewrite", str(original), "--compat", "tvm", "-o", str(out)).returncode == 0
    r = run_cli("verify", str(original), str(out))
    assert r.returncode == 1, r.stdout.decode() + r.stderr.decode()
    said = r.stdout.decode()
    assert said.startswith("differ: ownership in the rewritten module: function 'main', call 1, "
                           "output[1]: a tensor (4,) float32 in memory that graph 0 writes on "
                           "every replay"), said
    line = out.read_text().split("\n").index(
        '        t: R.Tensor((4,), dtype="float32") = gv[0]') + 1
    assert f"{out}:{line}:9: note: the binding that made the returned value" in said


def test_cgraph_keeps_a_returned_operator_result_out_of_the_graph(tmp_path):
    """Correction 3 (docs/REWRITE.md): R.multiply allocates its result t, which main returns,
    so cgraph's default rewrite leaves it in main, made fresh each call, with the reason
    `returned-result`; s = R.add(w1, w2), not returned, is still captured (the graph's output,
    which t reads). verify finds nothing where TVM's output (above) is caught."""
    original = tmp_path / "returns_t.relax"
    original.write_text(ops_case_returning("(y, t)"))
    out = tmp_path / "out.relax"
    r = run_cli("rewrite", str(original), "--explain", "-o", str(out))
    assert r.returncode == 0, r.stderr.decode()
    # t's binding is line 12 of the case (5 comment lines, then the module)
    assert f"{original}:12:9: main: not captured [returned-result]: 'relax.multiply' " \
           "allocates its result 't', which flows to the return value" in r.stderr.decode()
    capture, main = out.read_text().split("    def main(")
    assert "= R.add(w1, w2)\n" in capture and "= R.multiply(" not in capture
    assert '        t: R.Tensor((4,), dtype="float32") = R.multiply(s, w1)\n' in main
    r = run_cli("verify", str(original), str(out))
    assert r.returncode == 0, r.stdout.decode() + r.stderr.decode()
    assert "1 graph capture(s), 3 replay(s)" in r.stdout.decode()


PAIR = 'R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32"))'


@pytest.mark.parametrize("returned, before_return, made", [
    # through a match_cast: TVM's planner does not look at match_cast, and lifts t (cgraph
    # --compat tvm then leaves t undefined at the match_cast, as TVM does)
    ("(y, u)", '        u = R.match_cast(t, R.Tensor((4,), dtype="float32"))\n', "t"),
    # a field of the tuple a packed call returns (its struct info says two tensors)
    ("(y, q)", f'        p: {PAIR} = R.call_packed("pair", w1, w2, ty_args=({PAIR},))\n'
               '        q: R.Tensor((4,), dtype="float32") = p[1]\n', "p"),
], ids=["match_cast", "tuple_item"])
def test_a_result_returned_through_a_match_cast_or_a_tuple_item_stays_outside(
        tmp_path, returned, before_return, made):
    original = tmp_path / "returns.relax"
    original.write_text(ops_case_returning(returned, before_return))
    out = tmp_path / "out.relax"
    r = run_cli("rewrite", str(original), "--explain", "-o", str(out))
    assert r.returncode == 0, r.stderr.decode()
    assert "main: not captured [returned-result]: " in r.stderr.decode()
    assert f"allocates its result '{made}'" in r.stderr.decode()
    r = run_cli("verify", str(original), str(out))
    assert r.returncode == 0, r.stdout.decode() + r.stderr.decode()


# TVM's disco collectives, as a relax.op.ccl operator lowers to them (mlc_llama_8b_tp2: its
# allreduce after attention and MLP, its broadcasts of input_ids and logit_positions).
COLLECTIVES = '''@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((2, 3), "float32"), ids: R.Tensor((4,), "int32")):
        R.func_attr({"relax.force_pure": True})
        summed = R.builtin.alloc_tensor(R.shape([2, 3]), "float32", 0)
        _1: R.Any = R.call_packed("runtime.disco.allreduce", x, R.shape([KIND]), 1, summed)
        got = R.builtin.alloc_tensor(R.shape([RECV]), "int32", 0)
        _2: R.Any = R.call_packed("runtime.disco.broadcast_from_worker0", ids, 0, got)
        return (summed, got)
'''


def collectives(kind: int = 0, recv: int = 4) -> str:
    return COLLECTIVES.replace("KIND", str(kind)).replace("RECV", str(recv))


@pytest.mark.parametrize("kind", [0, 4], ids=["sum", "avg"])
def test_disco_collectives_on_one_worker_receive_what_they_send(kind):
    # A session of one worker: the sum (or average) over one worker of x is x, and worker 0's
    # broadcast is its own ids -- bytes for bytes, integers included.
    ids = np.array([7, -1, 65536, 3], dtype=np.int32)
    _, (summed, got) = run(collectives(kind), X, ids)
    assert summed.array.tobytes() == X.tobytes()
    assert got.array.tobytes() == ids.tobytes()


@pytest.mark.parametrize("kind, recv, message", [
    (5, 4, "reduce kind is (5,), not one of 0 to 4"),
    (0, 8, "on one worker receives what it sends: a tensor (4,) int32 into (8,) int32")])
def test_a_collective_one_worker_cannot_run_is_a_located_error(kind, recv, message, tmp_path):
    path = tmp_path / "ccl.relax"
    path.write_text(collectives(kind, recv))
    r = run_cli("run", str(path), "--device", "cpu")
    assert r.returncode == 2
    err = r.stderr.decode()
    assert message in err and "Traceback" not in err
    line = 7 if kind == 5 else 9  # the call's line
    assert err.startswith(f"{path}:{line}:"), err
