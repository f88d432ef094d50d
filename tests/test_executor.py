"""The executor: memory aliasing, the kernel library, and CUDA-graph semantics."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from conftest import ROOT
from synthetic_formula import aes_sbox, synthetic_by_hand
from cudagraph_cli.exec.backend import CpuBackend, ExecError
from cudagraph_cli.exec.handlers.cuda_graph import GraphRuntime
from cudagraph_cli.exec.interpreter import Executor
from cudagraph_cli.exec.kernels import (SBOX, KernelSpec, prim_func_outputs, run_numpy,
                                        synthetic)
from cudagraph_cli.text.reader import parse_module

TVM_DIR = ROOT / "samples" / "tvm"


def test_views_of_one_storage_alias():
    b = CpuBackend()
    s = b.alloc_storage(32)
    x = b.view(s, 0, (4,), "float32")
    y = b.view(s, 16, (4,), "float32")
    z = b.view(s, 0, (8,), "float32")
    x.array[...] = 1.0
    y.array[...] = 2.0
    assert z.array.tolist() == [1.0] * 4 + [2.0] * 4
    with pytest.raises(ExecError, match="does not fit its storage of 32 bytes"):
        b.view(s, 20, (4,), "float32")


def test_the_byte_permutation_is_the_aes_sbox():
    """kernels.SBOX against FIPS-197's definition (tests/helpers/synthetic_formula.py) and its own
    worked example, S[0x53] = 0xed; a permutation with no fixed point."""
    assert SBOX.tolist() == list(aes_sbox())
    assert (SBOX[0x53], SBOX[0x00], SBOX[0xFF]) == (0xED, 0x63, 0x16)
    assert sorted(SBOX.tolist()) == list(range(256))
    assert all(SBOX[v] != v for v in range(256))


def test_synthetic_kernel_formula_by_hand():
    """docs/EXECUTOR.md, with S the AES S-box, s0 / s1 the salt's low / high byte,
    A_k(i) = S[(in_k[i mod len(in_k)] + s1 + 29 k) mod 256]:
    out_t[j] = ((s0 + 101 t + 17 j + sum_k ((2k + 3) A_k(j) + 2 A_k(j XOR 1))) mod 256) XOR s1.
    Input bytes [1, 2] and [10]; 4 output bytes; salt from the name "k"."""
    salt = zlib.crc32(b"k") & 0xFFFF
    out = np.zeros(4, dtype=np.uint8)
    synthetic(salt, [np.array([1, 2], dtype=np.uint8), np.array([10], dtype=np.uint8)], [out])
    s0, s1 = salt & 0xFF, salt >> 8
    sbox = aes_sbox()
    a0 = [sbox[(1 + s1) % 256], sbox[(2 + s1) % 256]]  # A_0 at even and odd bytes
    a1 = sbox[(10 + s1 + 29) % 256]  # A_1 everywhere
    expected = [(s0 + 17 * j + 3 * a0[j % 2] + 2 * a0[(j ^ 1) % 2] + 5 * a1 + 2 * a1) % 256
                ^ s1 for j in range(4)]
    assert out.tolist() == expected
    assert out.tolist() == synthetic_by_hand(salt, [[1, 2], [10]], 4, 0)


@pytest.mark.parametrize("seed", range(6))
def test_synthetic_kernel_is_the_byte_by_byte_formula(seed):
    """Several inputs, wrap-around (inputs shorter and longer than the outputs), several
    outputs, salts over both bytes: against the plain-Python loop."""
    rng = np.random.default_rng(seed)
    ins = [rng.integers(0, 256, int(rng.integers(0, 90)), dtype=np.uint8)
           for _ in range(int(rng.integers(0, 6)))]
    outs = [np.zeros(int(rng.integers(0, 120)), dtype=np.uint8)
            for _ in range(int(rng.integers(1, 4)))]
    salt = int(rng.integers(0, 1 << 16))
    synthetic(salt, ins, outs)
    for t, out in enumerate(outs):
        assert out.tolist() == synthetic_by_hand(salt, [a.tolist() for a in ins], out.size, t)


def test_synthetic_kernel_mixes_in_the_position_of_each_input():
    """Two inputs swapped, the kernel's salt (either byte), or the output index: each changes
    every byte here (the formula's terms for these differ at every byte: checked, not
    assumed)."""
    a = np.arange(64, dtype=np.uint8)
    b = (np.arange(64, dtype=np.uint8) * 7 + 1).astype(np.uint8)

    def run(salt, ins, n_out=1):
        outs = [np.zeros(64, np.uint8) for _ in range(n_out)]
        synthetic(salt, ins, outs)
        return outs

    (ab,), (ba,) = run(0x1234, [a, b]), run(0x1234, [b, a])
    assert np.count_nonzero(ab != ba) > 56
    (other_low,), (other_high,) = run(0x1235, [a, b]), run(0x1334, [a, b])
    assert np.count_nonzero(ab != other_low) > 56 and np.count_nonzero(ab != other_high) > 56
    first, second = run(0x1234, [a, b], 2)
    assert np.array_equal(first, ab) and np.count_nonzero(first != second) > 56


def test_one_input_byte_changed_changes_its_output_byte_always_and_its_partner():
    """S is a permutation and (2k + 3) is odd: with everything else fixed, input byte i maps
    one to one onto output byte i (every value, every input position, checked here). Output
    byte i XOR 1 reads it too, times 2: it changes unless S moved by exactly 128."""
    rng = np.random.default_rng(3)
    others = [rng.integers(0, 256, 256, dtype=np.uint8) for _ in range(4)]
    for k in range(4):
        outs = []
        for v in range(256):
            ins = [o.copy() for o in others]
            ins[k][37] = v
            out = np.zeros(256, np.uint8)
            synthetic(0xBEEF, ins, [out])
            outs.append(out)
        assert len({int(o[37]) for o in outs}) == 256
        assert len({int(o[36]) for o in outs}) == 128
        assert all(np.array_equal(o[:36], outs[0][:36]) and
                   np.array_equal(o[38:], outs[0][38:]) for o in outs)


def test_elementwise_kernels_compute_what_they_say():
    a = np.array([0.5, -1.0], dtype=np.float32)
    b = np.array([2.0, 3.0], dtype=np.float32)
    out = np.zeros(2, dtype=np.float32)
    run_numpy(KernelSpec("add", (2,), "add"), [a, b, out], [])
    assert out.tolist() == [2.5, 2.0]
    run_numpy(KernelSpec("exp", (1,), "exp"), [a, out], [])
    # In float64, rounded once: exp(-1) = 0.36787944117... is 0.36787945 in float32 (NumPy's
    # own float32 exp gives 0.36787942, one unit in the last place off).
    assert out.tolist() == np.exp(a.astype(np.float64)).astype(np.float32).tolist()
    assert out[1] == np.float32(0.36787945032119751)
    run_numpy(KernelSpec("relu", (1,), "relu"), [a, out], [])
    assert out.tolist() == [0.5, 0.0]


@pytest.mark.parametrize("sample,func,written", [
    ("rewrite_cuda_graph_before", "exp", (1,)),  # compute[i0, i1] = ...
    ("dynamic_capture_before", "add_one", (1,)),  # y = T.match_buffer(y_handle, ...)
    ("capture_fixed_inputs_before", "layer_norm", (3,)),  # not its T.sblock_alloc_buffers
    ("capture_fixed_inputs_before", "fused_conv2d_relu", (2,)),
])
def test_written_parameters_found_in_tir(sample, func, written):
    mod = parse_module((TVM_DIR / f"{sample}.relax").read_text())
    assert prim_func_outputs(mod.function(func)) == written


CACHED = '''@I.ir_module
class Module:
    @R.function(private=True)
    def alloc() -> R.Tuple(R.Any):
        R.func_attr({"relax.force_pure": True})
        s = R.memory.alloc_storage(R.shape([16]), 0, "global", "float32")
        gv = (s,)
        return gv

    @R.function(private=True)
    def capture(a: R.Tensor((4,), "float32"), x: R.Tensor((4,), "float32")) -> R.Tuple(R.Tensor((4,), "float32")):
        R.func_attr({"relax.force_pure": True})
        R.call_packed("k", x, a, ty_args=(R.Tuple,))
        gv = (a,)
        return gv

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        R.func_attr({"relax.force_pure": True})
        cls = Module
        gv = R.call_builtin_with_ctx("vm.builtin.cuda_graph.get_cached_alloc", (cls.alloc, 0), ty_args=(R.Tuple(R.Any),))
        s = gv[0]
        a = R.memory.alloc_tensor(s, 0, R.shape([4]), "float32")
        gv1 = R.call_builtin_with_ctx("vm.builtin.cuda_graph.run_or_capture", (cls.capture, (a, x), 0), ty_args=(R.Tuple(R.Tensor((4,), "float32")),))
        r = gv1[0]
        return r
'''


def test_graph_replays_recorded_buffers_ignoring_arguments():
    ex = Executor(parse_module(CACHED), CpuBackend())
    x1 = ex.backend.from_numpy(np.arange(4, dtype=np.float32))
    x2 = ex.backend.from_numpy(np.arange(4, 8, dtype=np.float32))
    r1 = ex.call("main", [x1])
    first = r1.array.copy()
    r2 = ex.call("main", [x2])
    # Same storage (get_cached_alloc ran once), same output object, and the replay read x1,
    # the buffer it captured, not x2: exactly what a CUDA graph does.
    graphs = ex.state(GraphRuntime)
    assert r2 is r1 and graphs.captures == 1 and graphs.replays == 1
    assert r2.array.tolist() == first.tolist()
    x1.array[...] = 100.0
    ex.call("main", [x2])
    assert r1.array.tolist() != first.tolist()  # replays see the captured buffer's new data
    assert list(ex.state(GraphRuntime).alloc_cache) == [0]


def test_an_operator_runs_as_a_kernel_into_a_fresh_result():
    # R.add(x, x) with no struct info written: an elementwise operator's result takes its
    # inputs' shape and dtype, and is x + x (docs/EXECUTOR.md), in memory of its own.
    text = '''@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")):
        z = R.add(x, x)
        return z
'''
    ex = Executor(parse_module(text), CpuBackend())
    x = ex.backend.from_numpy(np.array([0.5, 1.0, -2.0, 3.0], dtype=np.float32))
    z = ex.call("main", [x])
    assert z.array.tolist() == [1.0, 2.0, -4.0, 6.0] and z.array.dtype == np.float32
    assert z is not x and not np.shares_memory(z.array, x.array)


def test_an_operator_whose_result_is_unknown_is_a_located_error():
    text = CACHED.replace('R.call_packed("k", x, a, ty_args=(R.Tuple,))',
                          'R.call_packed("k", x, a, ty_args=(R.Tuple,))\n'
                          '        z = R.matmul(x, x)')
    ex = Executor(parse_module(text), CpuBackend())
    with pytest.raises(ExecError, match="'relax.matmul': the shape and dtype of its result "
                                        "are not known") as e:
        ex.call("main", [ex.backend.from_numpy(np.zeros(4, dtype=np.float32))])
    assert e.value.loc.line == 14  # the `z = R.matmul(x, x)` binding
