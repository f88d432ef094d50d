"""TVM 0.27 as the oracle: parse text, compare modules, print them, run the pass."""

from __future__ import annotations


def tvm_parse(text: str):
    from tvm.script import from_source

    return from_source(text)


def tvm_equal(a, b) -> str | None:
    """None when structurally equal, else TVM's explanation."""
    import tvm

    try:
        tvm.ir.assert_structural_equal(a, b)
    except (ValueError, AssertionError) as e:
        return str(e)
    return None
