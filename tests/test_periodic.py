"""Repeating bytes on the reference backend (kernels.Periodic): a representation, never
an approximation.

The reference backend keeps big inputs (which repeat a random block) and what synthetic kernels
make from them alone as their blocks. These tests hold it to the dense semantics:

* `synthetic_bytes` against the formula of docs/EXECUTOR.md written out byte by byte here;
* random runs of storages, views at any offset, launches (synthetic and elementwise) and
  reads on two backends, one with repetition kept and one with everything dense: every
  storage holds the same bytes after every step (read without writing anything out), and
  every read gives the same array.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from cudagraph_cli.exec import backend as backend_mod
from cudagraph_cli.exec import kernels
from cudagraph_cli.exec.backend import CpuBackend
from cudagraph_cli.exec.kernels import KernelSpec, Periodic, synthetic_bytes
from synthetic_formula import aes_sbox, synthetic_by_hand


SBOX = np.array(aes_sbox(), dtype=np.int64)  # derived from FIPS-197 (tests/helpers/synthetic_formula.py)


def formula(salt: int, inputs: list, m: int, t: int) -> np.ndarray:
    """docs/EXECUTOR.md, with S the AES S-box, s0 = salt mod 256, s1 = (salt >> 8) mod 256,
    A_k(i) = S[(in_k[i mod len(in_k)] + s1 + 29 k) mod 256]: out_t[j] = ((s0 + 101 t + 17 j
    + sum_k ((2k + 3) A_k(j) + 2 A_k(j XOR 1))) mod 256) XOR s1; in int64, reduced modulo
    256 where the formula says (checked against the byte-by-byte loop of
    tests/helpers/synthetic_formula.py below)."""
    s0, s1 = salt % 256, (salt >> 8) % 256
    j = np.arange(m, dtype=np.int64)
    acc = s0 + 101 * t + 17 * j
    for k, a in enumerate(inputs):
        if a.size:
            values = a.astype(np.int64)
            own = SBOX[(values[j % a.size] + s1 + 29 * k) % 256]
            partner = SBOX[(values[(j ^ 1) % a.size] + s1 + 29 * k) % 256]
            acc = acc + (2 * k + 3) * own + 2 * partner
    return ((acc % 256) ^ s1).astype(np.uint8)


def test_the_vectorized_formula_is_the_byte_by_byte_one():
    rng = np.random.default_rng(5)
    inputs = [rng.integers(0, 256, n, dtype=np.uint8) for n in (3, 40, 0, 100)]
    for salt in (0, 0x1234, 0xFFFF):
        for t in (0, 3):
            assert formula(salt, inputs, 70, t).tolist() == \
                synthetic_by_hand(salt, inputs, 70, t)


@pytest.fixture
def small_periods(monkeypatch):
    """Repetition kept from 4 KiB on, so that small arrays exercise it."""
    monkeypatch.setattr(kernels, "PERIODIC_MIN", 4096)
    monkeypatch.setattr(kernels, "PERIOD_MAX", 1 << 16)


@pytest.mark.parametrize("seed", range(40))
def test_synthetic_bytes_is_the_formula(seed, small_periods):
    rng = np.random.default_rng(seed)
    m = int(rng.choice([0, 1, 255, 4096, 9000, 20000]))
    inputs, dense = [], []
    for _ in range(int(rng.integers(0, 4))):
        if rng.random() < 0.6:
            block = rng.integers(0, 256, int(rng.choice([256, 512, 768, 1000])), dtype=np.uint8)
            n = int(rng.choice([300, 4096, 30000]))
            p = Periodic(block, n)
            inputs.append(p)
            dense.append(p.dense())
        else:
            a = rng.integers(0, 256, int(rng.choice([1, 7, 5000, 30000])), dtype=np.uint8)
            inputs.append(a)
            dense.append(a)
    salt = int(rng.integers(0, 1 << 16))
    got = synthetic_bytes(salt, inputs, [m, m // 2])
    for t, (r, size) in enumerate(zip(got, [m, m // 2])):
        as_bytes = r.dense() if isinstance(r, Periodic) else r
        assert as_bytes.size == size
        assert np.array_equal(as_bytes, formula(salt, dense, size, t))


@pytest.mark.parametrize("block,n,m", [
    (999, 30000, 8192),    # an odd block: a pair partner crosses its end
    (1000, 8191, 8191),    # input as long as an odd output: the last byte's partner is in[0]
    (1000, 30000, 8191),   # ... and longer: the partner is the byte after the output's end
    (1000, 8191, 20000),   # odd and shorter than the output: pairs repeat every 2n bytes
    (512, 4096, 9999),
])
def test_pair_partners_at_the_edges_of_repeating_inputs(block, n, m, small_periods):
    rng = np.random.default_rng(block + n + m)
    p = Periodic(rng.integers(0, 256, block, dtype=np.uint8), n)
    dense = rng.integers(0, 256, 5, dtype=np.uint8)
    for inputs in ([p], [dense, p]):
        got = synthetic_bytes(0xA5C3, inputs, [m])[0]
        as_bytes = got.dense() if isinstance(got, Periodic) else got
        want = formula(0xA5C3, [x.dense() if isinstance(x, Periodic) else x for x in inputs],
                       m, 0)
        assert np.array_equal(as_bytes, want)


def test_repeating_inputs_make_a_repeating_output(small_periods):
    block = np.arange(512, dtype=np.uint8)
    (out,) = synthetic_bytes(7, [Periodic(block, 1 << 16)], [1 << 15])
    assert isinstance(out, Periodic) and out.block.size == 512
    # one dense input as long as the output: no repetition to keep
    (out,) = synthetic_bytes(7, [Periodic(block, 1 << 16), np.zeros(1 << 15, np.uint8)],
                             [1 << 15])
    assert isinstance(out, np.ndarray)


def logical(storage) -> bytes:
    """What a storage holds, read without writing anything out: its data with the repeating
    ranges laid over it (kept here independently of the backend's own reading)."""
    data = storage.data.copy()
    for start, end, block, anchor in storage.periodic.ranges:
        j = np.arange(start, end)
        data[start:end] = block[(j - anchor) % block.size]
    return data.tobytes()


class Twin:
    """The same operations on a backend keeping repetition and on an all-dense one."""

    def __init__(self):
        self.lazy = CpuBackend(track_init=True)
        self.dense = CpuBackend(track_init=True)
        self.dense.from_periodic = None  # what to_backend checks: no repetition kept
        self.storages: list[tuple] = []
        self.tensors: list[tuple] = []

    def storage(self, nbytes: int):
        self.storages.append((self.lazy.alloc_storage(nbytes), self.dense.alloc_storage(nbytes)))

    def repeating(self, block: np.ndarray, shape: tuple):
        a = CpuBackend.from_periodic(self.lazy, block, shape)
        b = self.dense.from_numpy(np.resize(block, int(np.prod(shape))).reshape(shape))
        self.storages.append((a.storage, b.storage))
        self.tensors.append((a, b))

    def view(self, s: int, offset: int, shape: tuple, dtype: str):
        a, b = self.storages[s]
        self.tensors.append((self.lazy.view(a, offset, shape, dtype),
                             self.dense.view(b, offset, shape, dtype)))

    def launch(self, spec: KernelSpec, picks: list, scalars: list):
        outcomes = []
        for side, backend in ((0, self.lazy), (1, self.dense)):
            try:
                backend.launch(spec, [self.tensors[i][side] for i in picks], scalars)
                outcomes.append(None)
            except backend_mod.ExecError as e:
                outcomes.append(type(e).__name__ + ": " + e.message)
        assert outcomes[0] == outcomes[1]

    def copy(self, i: int, j: int):
        outcomes = []
        for side, backend in ((0, self.lazy), (1, self.dense)):
            try:
                backend.copy_into(self.tensors[i][side], self.tensors[j][side])
                outcomes.append(None)
            except backend_mod.ExecError as e:
                outcomes.append(type(e).__name__ + ": " + e.message)
        assert outcomes[0] == outcomes[1]

    def same(self):
        for a, b in self.storages:
            assert logical(a) == logical(b)


@pytest.mark.parametrize("seed", range(30))
def test_random_runs_agree_with_dense_memory(seed, small_periods):
    rng = random.Random(seed)
    twin = Twin()
    for _ in range(3):
        block = np.frombuffer(rng.randbytes(2 * rng.choice([128, 256, 384])), np.float16)
        block = np.nan_to_num(block, nan=0.5, posinf=1.0, neginf=-1.0)
        twin.repeating(block, (rng.choice([16, 32, 48]), 512))
    for _ in range(3):
        twin.storage(rng.choice([32768, 65536]))
    for step in range(60):
        what = rng.random()
        if what < 0.35:
            s = rng.randrange(3, len(twin.storages)) if len(twin.storages) > 3 else 3
            size = twin.storages[s][0].nbytes
            rows = rng.choice([1, 4, 16, 32])
            cols = 512
            nbytes = rows * cols * 2
            if nbytes > size:
                continue
            offset = rng.randrange(0, size - nbytes + 1, 2)
            twin.view(s, offset, (rows, cols), "float16")
        elif what < 0.45:
            # a copy (a KV cache grown, a stateful builtin): dense bytes and repeating
            # ranges alike land where they are copied to
            pairs = [(i, j) for i, (x, _) in enumerate(twin.tensors)
                     for j, (y, _) in enumerate(twin.tensors) if i != j and
                     x.array.nbytes == y.array.nbytes and y.storage.nbytes > 16384]
            if pairs:
                twin.copy(*rng.choice(pairs))
        elif what < 0.85:
            n = len(twin.tensors)
            picks = rng.sample(range(n), k=min(n, rng.choice([2, 3])))
            if rng.random() < 0.2 and len(picks) == 3 and \
                    len({twin.tensors[i][0].shape for i in picks}) == 1:
                spec = KernelSpec("add", (2,), "add")
            else:
                spec = KernelSpec(f"k{step}", (len(picks) - 1,), None)
            twin.launch(spec, picks, [step])
        else:
            i = rng.randrange(len(twin.tensors))
            a, b = twin.tensors[i]
            assert np.array_equal(twin.lazy.to_numpy(a), twin.dense.to_numpy(b),
                                  equal_nan=True)
        twin.same()
    for a, b in twin.storages:
        assert twin.lazy.storage_bytes(a) == twin.dense.storage_bytes(b)


def test_a_weight_transposed_in_every_call_stays_its_block():
    """What MLC-LLM's dumps do (a kernel writes a weight-sized tensor made from a weight
    alone): the output is kept as a block, and a reader of its first bytes reads them from
    the block: nothing is written out."""
    be = CpuBackend()
    w = be.from_periodic(np.arange(1 << 20, dtype=np.float16), (4096, 1024))  # 8 MiB
    s = be.alloc_storage(8 << 20)
    wt = be.view(s, 0, (1024, 4096), "float16")
    be.launch(KernelSpec("transpose", (1,), None), [w, wt], [])
    assert len(s.periodic.ranges) == 1 and s.periodic.ranges[0][2].size == 2 << 20
    x = be.from_numpy(np.ones((1, 1024), np.float16))
    y = be.alloc_tensor((1, 4096), "float16")
    be.launch(KernelSpec("matvec", (2,), None), [x, wt, y], [])
    assert [(a, b) for a, b, *_ in s.periodic.ranges] == [(0, 8 << 20)]
    assert not s.data.any()
    # a dense reader of a part of it writes out that part only
    part = be.view(s, 4096, (2, 1024), "float16")
    be.launch(KernelSpec("add", (2,), "add"), [part, part, be.alloc_tensor((2, 1024),
                                                                           "float16")], [])
    assert [(a, b) for a, b, *_ in s.periodic.ranges] == [(0, 4096), (8192, 8 << 20)]


@pytest.mark.parametrize("block, n, m", [(4096, 3 * 4096 + 2048, 40000),   # n not a multiple
                                         (2048, 8192, 8192 * 3 + 6),       # p divides n
                                         (70000, 3 * 70000 + 10, 500000)])  # table-sized
def test_a_repeating_input_shorter_than_the_output_keeps_its_block(block, n, m):
    """A repeating input of n bytes read by an output of m > n bytes (an LM head's weight
    read by bigger logits): computed from its block, the bytes are the formula's on the
    dense input."""
    rng = np.random.default_rng(block)
    blk = rng.integers(0, 256, block, dtype=np.uint8)
    other = rng.integers(0, 256, 1000, dtype=np.uint8)
    src = Periodic(blk, n)
    (out,) = synthetic_bytes(0x5A17, [other, src], [m])
    dense = out.dense() if isinstance(out, Periodic) else out
    assert np.array_equal(dense, formula(0x5A17, [other, src.dense()], m, 0))


def test_an_output_computed_in_place_is_the_one_computed_apart():
    """synthetic_bytes(into=...): the lone output of its size is computed in the array given
    (and returned as it), with the bytes a fresh one gets; two outputs of one size are not."""
    rng = np.random.default_rng(9)
    inputs = [rng.integers(0, 256, 70000, dtype=np.uint8),
              Periodic(rng.integers(0, 256, 4096, dtype=np.uint8), 3 * 4096 + 2048),
              rng.integers(0, 256, 5, dtype=np.uint8)]
    sizes = [70000, 300, 300]
    fresh = synthetic_bytes(0x0BAD, inputs, sizes)
    into = [np.full(m, 0xCD, np.uint8) for m in sizes]
    given = synthetic_bytes(0x0BAD, inputs, sizes, into)
    assert given[0] is into[0] and given[1] is not into[1] and given[2] is not into[2]
    for a, b in zip(fresh, given):
        assert np.array_equal(a, b)
    for t, m in enumerate(sizes):
        assert np.array_equal(given[t], formula(0x0BAD, [inputs[0], inputs[1].dense(),
                                                         inputs[2]], m, t))


def test_a_copy_of_dense_bytes_and_repeating_ranges_keeps_the_ranges():
    """A KV cache grown past what was appended: its old bytes (appended rows, dense; the
    rest its prior contents, a repeating range) are copied into the grown storage. The copy
    holds the same bytes, and the repeating part stays a block there."""
    be = CpuBackend()
    old = be.alloc_storage(3 << 20)
    be.launch(KernelSpec("prior", (0,), None), [be.view(old, 0, (3 << 20,), "uint8")], [1])
    assert len(old.periodic.ranges) == 1
    rows = be.from_numpy(np.random.default_rng(3).integers(0, 256, 5000, dtype=np.uint8))
    be.copy_into(rows, be.view(old, 1000, (5000,), "uint8"))
    grown = be.alloc_storage(6 << 20)
    be.copy_into(be.view(old, 0, (3 << 20,), "uint8"), be.view(grown, 0, (3 << 20,), "uint8"))
    assert logical(grown)[:3 << 20] == logical(old)
    assert [(a, b) for a, b, *_ in grown.periodic.ranges] == [(0, 1000), (6000, 3 << 20)]
    assert not grown.data[6000:].any()  # nothing written out
