"""Well-formedness: scoping, missing functions, undefined symbolic vars."""

from __future__ import annotations

import pytest

from cudagraph_cli import ir
from cudagraph_cli.diagnostics import SourceError
from cudagraph_cli.text.reader import parse_module
from cudagraph_cli.ir.wellformed import check_module
from conftest import ALL_SAMPLES


def module(body: str, sig: str = 'def main(x: R.Tensor((8,), "float32")):') -> ir.Module:
    lines = ["@I.ir_module", "class Module:", "    @R.function", "    " + sig]
    lines += ["        " + ln for ln in body.strip().split("\n")]
    return parse_module("\n".join(lines) + "\n")


@pytest.mark.parametrize("path", ALL_SAMPLES, ids=lambda p: p.parent.name + "/" + p.stem)
def test_samples_are_well_formed(path):
    check_module(parse_module(path.read_text()))


def test_call_to_missing_function_is_located():
    mod = module("cls = Module\ny = cls.nope(x)\nreturn y")
    with pytest.raises(SourceError, match="missing function 'nope'") as e:
        check_module(mod)
    assert e.value.loc.line == 6


def test_reference_to_missing_function_inside_a_tuple():
    mod = module('cls = Module\ny = R.call_builtin_with_ctx("f", (cls.gone, 0), '
                 'ty_args=(R.Any,))\nreturn x')
    with pytest.raises(SourceError, match="missing function 'gone'"):
        check_module(mod)


def test_symbolic_var_used_but_never_defined():
    mod = module('n = T.int64()\ny: R.Tensor((n,), "float32") = x\nreturn y')
    with pytest.raises(SourceError, match="symbolic variable 'n' is used but not defined"):
        check_module(mod)


def test_symbolic_var_defined_by_match_cast():
    mod = module('n = T.int64()\ny = R.match_cast(x, R.Tensor(("n",), "float32"))\n'
                 'z = R.shape([n])\nreturn y')
    check_module(mod)


def test_var_used_before_definition_in_built_ir():
    mod = module('a = R.call_packed("f", x, ty_args=(R.Tensor((8,), "float32"),))\n'
                 'b = R.call_packed("g", a, ty_args=(R.Tensor((8,), "float32"),))\nreturn b')
    f = mod.function("main")
    f.blocks = (ir.replace(f.blocks[0], bindings=f.blocks[0].bindings[::-1]),)
    with pytest.raises(SourceError, match="var 'a' is used before it is defined"):
        check_module(mod)


def test_dataflow_var_outside_its_block():
    mod = module("with R.dataflow():\n    a = x\n    b = a\n    R.output(b)\nreturn b")
    f = mod.function("main")
    a = f.blocks[0].bindings[0].var
    f.body = a  # a is a dataflow var: not visible after the block
    with pytest.raises(SourceError, match="var 'a' is used before it is defined or out of"):
        check_module(mod)


def test_var_bound_twice():
    mod = module("a = x\nb = a\nreturn b")
    bindings = mod.function("main").blocks[0].bindings
    bindings[1].var = bindings[0].var
    with pytest.raises(SourceError, match="bound twice"):
        check_module(mod)
