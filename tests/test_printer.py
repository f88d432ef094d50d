"""Printing: a byte-for-byte fixed point, both dialects, names that never capture."""

from __future__ import annotations

import pytest

from conftest import ALL_SAMPLES
from cudagraph_cli import ir
from cudagraph_cli.text.difference import module_difference
from cudagraph_cli.text.reader import parse_module
from cudagraph_cli.text.printer import print_module


def fmt(text: str, dialect: str | None = None) -> str:
    return print_module(parse_module(text), dialect)


@pytest.mark.parametrize("path", ALL_SAMPLES, ids=lambda p: p.parent.name + "/" + p.stem)
def test_fmt_is_a_fixed_point_and_equal(path):
    text = path.read_text()
    once = fmt(text)
    assert fmt(once) == once
    assert module_difference(parse_module(text), parse_module(once)) is None


@pytest.mark.parametrize("path", ALL_SAMPLES, ids=lambda p: p.parent.name + "/" + p.stem)
@pytest.mark.parametrize("dialect", ["current", "legacy"])
def test_dialect_output_is_a_fixed_point(path, dialect):
    once = fmt(path.read_text(), dialect)
    assert fmt(once) == once  # the output's own dialect is kept
    assert parse_module(once).dialect == dialect or "R.Object" not in once


def test_canonical_spelling_of_literal_sugar():
    text = ('@I.ir_module\nclass Module:\n    @R.function\n    def main():\n'
            '        R.func_attr({"relax.force_pure": True})\n'
            '        s = R.memory.alloc_storage(R.shape([8]), 0, "global", "float32")\n'
            '        a = R.memory.alloc_tensor(s, 0, R.shape([8]), "float32", 0)\n'
            '        b = R.builtin.alloc_tensor(R.shape([8]), "float32", 0, "global")\n'
            '        return R.tuple()\n')
    out = fmt(text)
    assert 'R.memory.alloc_storage(R.shape([8]), R.prim_value(0), R.str("global"), ' \
           'R.dtype("float32"))' in out
    assert 'R.memory.alloc_tensor(s, R.prim_value(0), R.shape([8]), R.dtype("float32"))' in out
    assert 'R.builtin.alloc_tensor(R.shape([8]), R.dtype("float32"), R.prim_value(0))' in out


def test_legacy_spelling():
    text = ('@I.ir_module(s_tir=True)\nclass Module:\n    @R.function\n'
            '    def main(x: R.Tensor((8,), "float32")) -> R.Tuple(R.Any):\n'
            '        g: R.Tuple(R.Any) = R.call_builtin_with_ctx("f", (x,), '
            'ty_args=(R.Tuple(R.Any),))\n        return g\n')
    out = fmt(text, "legacy")
    assert "sinfo_args=(R.Tuple(R.Object),)" in out and "-> R.Tuple(R.Object)" in out
    assert "s_tir" not in out and "R.Any" not in out


def test_prim_func_spelling_follows_the_dialect():
    path = next(p for p in ALL_SAMPLES if p.name == "rewrite_cuda_graph_before.relax")
    legacy = fmt(path.read_text(), "legacy")
    assert 'with T.block("compute")' in legacy and "@T.prim_func\n" in legacy
    assert '"tir.noalias"' in legacy
    current = fmt(legacy, "current")
    assert 'with T.sblock("compute")' in current and "@T.prim_func(s_tir=True)" in current


def test_symbolic_dims_are_strings_in_signatures_and_names_in_bodies():
    path = next(p for p in ALL_SAMPLES if p.name == "dynamic_capture_before.relax")
    out = fmt(path.read_text())
    assert 'def main(x: R.Tensor(("m",), dtype="float32")) -> R.Tensor(("m",), ' \
           'dtype="float32"):' in out
    assert "        m = T.int64()\n" in out
    assert "R.Tensor((m,), dtype=\"float32\") = R.memory.alloc_tensor(" in out


def test_renames_a_definition_that_would_hide_a_live_var():
    """Built IR can reuse a name for two vars alive at once; the printer must not conflate
    them (TVMScript text would read the later use as the newer var)."""
    mod = parse_module('@I.ir_module\nclass Module:\n    @R.function\n'
                       '    def main(x: R.Tensor((8,), "float32")):\n'
                       '        a = R.call_packed("f", x, ty_args=(R.Tensor((8,), "float32"),))\n'
                       '        b = R.call_packed("g", x, ty_args=(R.Tensor((8,), "float32"),))\n'
                       '        c = (a, b)\n        return c\n')
    f = mod.function("main")
    f.blocks[0].bindings[1].var.name = "a"  # two live vars named "a"
    out = print_module(mod)
    assert "a_1 = R.call_packed(\"g\"" in out and "c = (a, a_1)" in out
    assert module_difference(parse_module(out), mod) is None


def test_reserved_names_are_renamed():
    mod = parse_module('@I.ir_module\nclass Module:\n    @R.function\n'
                       '    def main(x: R.Tensor((8,), "float32")):\n'
                       '        y = x\n        return y\n')
    mod.function("main").blocks[0].bindings[0].var.name = "cls"
    out = print_module(mod)
    assert "cls_1 = x" in out and "return cls_1" in out


def test_module_name_and_function_order_are_kept():
    text = ('@I.ir_module\nclass Expected:\n    @R.function\n    def zeta(x: R.Tensor((8,), '
            '"float32")):\n        return x\n\n    @R.function\n    def alpha(x: R.Tensor((8,), '
            '"float32")):\n        return x\n')
    out = fmt(text)
    assert "class Expected:" in out and out.index("def zeta") < out.index("def alpha")


def test_leading_comments_are_kept_and_import_header_regenerated():
    text = ('# my model, layer 3\n# from tvm.script import relax as R\n\n@I.ir_module\n'
            'class Module:\n    @R.function\n    def main(x: R.Tensor((8,), "float32")):\n'
            '        return x\n')
    out = fmt(text)
    assert out.startswith("# my model, layer 3\n\n# from tvm.script import ir as I\n")
    assert out.count("# from tvm.script import relax as R") == 1


def test_empty_tuple_return_and_prim_value_dtypes():
    text = ('@I.ir_module\nclass Module:\n    @R.function(pure=False)\n    def main():\n'
            '        a = R.call_packed("f", R.prim_value(T.int32(3)), R.prim_value(T.float32(1.5)),'
            ' ty_args=(R.Tuple,))\n        return R.tuple()\n')
    out = fmt(text)
    assert "R.prim_value(T.int32(3)), R.prim_value(T.float32(1.5))" in out
    assert "return R.tuple()" in out
    assert isinstance(parse_module(out).function("main").body, ir.Tuple)
