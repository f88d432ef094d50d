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


def tvm_globals() -> dict:
    """The names TVM 0.27's reader gives a script (tvm.script.from_source's defaults, built
    here from public modules): `extra_vars` replaces those defaults, it does not add to them."""
    from typing import TypeVar

    import tvm
    from tvm.script.parser import ir, relax, tirx
    from tvm.tirx.layout import Axis

    return {"tvm": tvm, "I": ir, "ir": ir, "T": tirx, "tir": tirx, "R": relax,
            "relax": relax, "Axis": Axis, "TypeVar": TypeVar}


def metadata_constants(module) -> dict:
    """TVM constants for the `metadata["<kind>"][<i>]` references of a cgraph module: each of
    the struct info cgraph read for it, with the value cgraph's executor gives it. An index the
    module does not use gets a scalar placeholder."""
    import numpy as np
    from tvm import relax

    from cudagraph_cli import ir
    from cudagraph_cli.exec.constants import constant_value

    found: dict = {}
    for f in module.relax_functions():
        for block in f.blocks:
            for b in block.bindings:
                for x in ir.walk(b.value):
                    if type(x) is ir.Constant and x.meta is not None:
                        found[x.meta] = x
    table: dict = {}
    for (kind, index), c in sorted(found.items()):
        items = table.setdefault(kind, [])
        while len(items) <= index:
            items.append(None)
        items[index] = relax.const(constant_value(c))
    for items in table.values():
        items[:] = [c if c is not None else relax.const(np.float32(0)) for c in items]
    return table


def tvm_parse_with_constants(text: str, constants: dict | None = None,
                             check_well_formed: bool = True):
    """TVM's reading of a module printed with its metadata omitted
    (`metadata["ir.GenericConst"][0]`): `from_source` resolves `metadata` as any other name of
    the script, so the table is passed in `extra_vars` ({kind: [constant, ...]}, as
    `mod.script()` numbers them). Without `constants`, those cgraph's reading of the text
    implies (`metadata_constants`)."""
    from tvm.script import from_source

    if constants is None:
        from cudagraph_cli.text.reader import parse_module

        constants = metadata_constants(parse_module(text))
    extra = tvm_globals()
    extra["metadata"] = constants
    return from_source(text, extra_vars=extra, check_well_formed=check_well_formed)


def without_alloc_ty_args(text: str) -> str:
    """A hand fix-up of TVM 0.27's text: it prints `ty_args=` on `R.builtin.alloc_tensor`
    and its parser rejects the keyword there; the call's struct info follows from its shape
    and dtype, so dropping it changes nothing TVM reads."""
    import re

    return re.sub(r"(R\.builtin\.alloc_tensor\(.*), ty_args=\(.*\)\)$", r"\1)", text,
                  flags=re.M)
