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


# TVM 0.27's printing of a Relax function's symbolic `n` shared with a kernel (a module-level
# TypeVar) beside a kernel with an `n` of its own (MLC-LLM's paged-KV-cache kernels): its reader
# defines the TypeVar `n` in `own_n` too, since the signature names it (bare and inside the
# string shape), and then rejects `n = T.int32()`. `shared_n` uses the module's `n`; `own_n`
# already has an `n_1` (the fresh name must be another); its block name "n" is not a variable.
SHADOWING = '''
n = TypeVar("n")
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def own_n(a: T.Buffer(("n + 1",), "float32"), b: T.Buffer((n,), "float32"), c: T.Buffer(("n_1",), "float32")):
        n = T.int32()
        n_1 = T.int32()
        for i in range(n):
            with T.sblock("n"):
                vi = T.axis.spatial(n, i)
                b[vi] = a[vi] + c[0]

    @T.prim_func(private=True, s_tir=True)
    def shared_n(x: T.Buffer((n,), "float32")):
        for i in range(n):
            with T.sblock("b"):
                vi = T.axis.spatial(n, i)
                x[vi] = T.float32(0)

    @R.function
    def main(x: R.Tensor((n,), "float32"), y: R.Tensor((n + 1,), "float32")):
        R.func_attr({"relax.force_pure": True})
        cls = Module
        cls.shared_n(x)
        return x
'''

# The same module as written by hand with the kernel's own variable called `m`: TVM's reading
# of it is the oracle for cgraph's output.
SHADOWING_BY_HAND = SHADOWING.replace('''
    def own_n(a: T.Buffer(("n + 1",), "float32"), b: T.Buffer((n,), "float32"), c: T.Buffer(("n_1",), "float32")):
        n = T.int32()
        n_1 = T.int32()
        for i in range(n):
            with T.sblock("n"):
                vi = T.axis.spatial(n, i)
''', '''
    def own_n(a: T.Buffer(("m + 1",), "float32"), b: T.Buffer((m,), "float32"), c: T.Buffer(("n_1",), "float32")):
        m = T.int32()
        n_1 = T.int32()
        for i in range(m):
            with T.sblock("n"):
                vi = T.axis.spatial(m, i)
''')


@pytest.mark.tvm
def test_a_kernel_variable_shadowing_a_module_typevar_is_renamed(tvm):
    from tvm_oracle import tvm_equal, tvm_parse

    assert SHADOWING_BY_HAND != SHADOWING
    with pytest.raises(Exception, match="Variable n already defined in current scope"):
        tvm_parse(SHADOWING)  # the premise: TVM cannot read such text
    out = fmt(SHADOWING)
    assert 'a: T.Buffer(("n_2 + 1",), "float32"), b: T.Buffer((n_2,), "float32"), c: T.Buffer(("n_1",)' in out
    assert "n_2 = T.int32()\n        n_1 = T.int32()" in out
    assert 'T.sblock("n")' in out and "def shared_n(x: T.Buffer((n,)" in out
    mine = tvm.script.from_source(out, check_well_formed=True)
    assert tvm_equal(mine, tvm_parse(SHADOWING_BY_HAND)) is None
    assert fmt(out) == out
    # `cgraph check` calls the input and the output equal, and a real change still differs
    assert module_difference(parse_module(SHADOWING), parse_module(out)) is None
    changed = SHADOWING.replace("a[vi] + c[0]", "a[vi] * c[0]")
    assert module_difference(parse_module(changed), parse_module(out)) is not None


CALL_TIR = '''# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def copy(a: T.Buffer((4,), "float32"), b: T.Buffer((4,), "float32")):
        for i in range(4):
            b[i] = a[i]

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        y = R.call_tir(cls.copy, (x,), out_ty=R.Tensor((4,), dtype="float32"))
        z = R.call_dps_packed("f", (y,), out_ty=R.Tensor((4,), dtype="float32"))
        return z
'''


@pytest.mark.tvm
def test_call_tir_output_keyword_is_the_one_tvm_reads(tvm):
    """TVM 0.27 prints and reads `out_ty=` (its call_tir(gvar, args, out_ty)); `out_sinfo=` is
    the legacy spelling, which its reader refuses ("unexpected keyword argument")."""
    text = print_module(parse_module(CALL_TIR))
    assert 'R.call_tir(cls.copy, (x,), out_ty=R.Tensor((4,), dtype="float32"))' in text
    assert 'R.call_dps_packed("f", (y,), out_ty=R.Tensor((4,), dtype="float32"))' in text
    tvm.script.from_source(text)  # raises on a keyword TVM does not take
    assert "out_sinfo=" in print_module(parse_module(CALL_TIR), dialect="legacy")
