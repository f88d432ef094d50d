"""verify's large random inputs made once a test process, for the tests that verify one
real-size model many times (test_mutants.py: some twenty verifies of the Llama-3.2-1B).

verify makes every input from a fresh `numpy.random.default_rng(seed)` (exec/inputs.py), so
each verify of the 1B makes the same 99 weight blocks of 2^20 values again: about half of
its time. `inputs_made_once()` remembers each input that repeats a block (inputs.Repeating)
by the generator's state before it was made, with the state after: a later draw from the
same state gets the same object and leaves the generator where making it would. The values,
and every draw after them, are the ones verify makes without it; the reference backend copies
an input's block onto each module's buffers (inputs.to_backend), so one object serves every
verify. Small inputs (fresh each call, the ones a test of freshness reads) are made as always.
"""

from __future__ import annotations

import contextlib

from cudagraph_cli.exec import inputs


def rng_state(rng) -> tuple:
    """A numpy Generator's whole state, hashable."""
    s = rng.bit_generator.state
    return (s["bit_generator"], tuple(sorted(s["state"].items())), s["has_uint32"],
            s["uinteger"])


@contextlib.contextmanager
def inputs_made_once():
    """Within it, inputs.Inputs.value remembers what it made that repeats a block (above)."""
    made: dict = {}
    value = inputs.Inputs.value

    def remembered(self, s, syms, name, conditions=None):
        key = (rng_state(self.rng), s, tuple(sorted(syms.items())))
        if key in made:
            out, after = made[key]
            self.rng.bit_generator.state = after
            return out
        out = value(self, s, syms, name, conditions)
        if isinstance(out, inputs.Repeating):
            made[key] = out, self.rng.bit_generator.state
        return out

    inputs.Inputs.value = remembered
    try:
        yield made
    finally:
        inputs.Inputs.value = value
