"""tests/helpers/shared_inputs.py, the memo test_mutants.py's verifies share: what it hands
back is what exec/inputs.py makes without it, and the draws after it are too."""

from __future__ import annotations

import numpy as np

from cudagraph_cli import ir
from cudagraph_cli.exec import inputs
from shared_inputs import inputs_made_once

# A weight of 2^21 values (it repeats a block of 2^20) and one of 6 (made whole).
BIG = ir.TensorSInfo(shape=(ir.IntImm(2048), ir.SymVar("n")), dtype="float16", ndim=2)
SMALL = ir.TensorSInfo(shape=(ir.IntImm(2), ir.IntImm(3)), dtype="float32", ndim=2)


def draws(seed: int, n: int) -> list:
    """BIG, SMALL, BIG at n, then SMALL: the values a fresh generator of `seed` gives."""
    made = inputs.Inputs(seed, {})
    syms = {"n": n}
    return [made.value(s, syms, "w") for s in (BIG, SMALL, BIG, SMALL)]


def as_arrays(values: list) -> list:
    return [(v.block, v.shape) if isinstance(v, inputs.Repeating) else (v, v.shape)
            for v in values]


def same(a: list, b: list) -> bool:
    return all(x.dtype == y.dtype and np.array_equal(x, y) and sx == sy
               for (x, sx), (y, sy) in zip(as_arrays(a), as_arrays(b)))


def test_remembered_inputs_are_the_ones_made_and_the_draws_after_them_too():
    plain = draws(0, 1024)
    assert isinstance(plain[0], inputs.Repeating) and isinstance(plain[1], np.ndarray)
    assert not np.array_equal(plain[0].block, plain[2].block)  # two draws, two blocks
    with inputs_made_once() as made:
        first = draws(0, 1024)
        again = draws(0, 1024)
        assert len(made) == 2  # the two big ones; the small ones made each time
        assert again[0] is first[0] and again[2] is first[2]
        assert again[1] is not first[1]
        other_seed, other_size = draws(1, 1024), draws(0, 512)
    assert same(first, plain) and same(again, plain)
    assert same(other_seed, draws(1, 1024)) and not same(other_seed, plain)
    assert same(other_size, draws(0, 512)) and other_size[0].shape == (2048, 512)
    assert inputs.Inputs.value is not None and "remembered" not in inputs.Inputs.value.__name__
