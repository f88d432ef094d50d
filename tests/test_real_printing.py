"""What cgraph prints, TVM reads, on TVM's own dumps (samples/real).

The bar: TVM 0.27's `tvm.script.from_source` loads cgraph's `fmt` and `rewrite` outputs with no
fix-ups, and reads them as it reads the input (fmt) or as it reads its own pass's output
(rewrite), but for a documented correction. TVM cannot read some of its own dumps; for those
the comparison is against TVM reading the dump after a hand fix-up stated where it is made:
`without_alloc_ty_args` (TVM prints `ty_args=` on `R.builtin.alloc_tensor` and rejects it).
Metadata constants (`metadata["ir.GenericConst"][0]`, data omitted) are given to TVM's reader
in `extra_vars` (`tvm_parse_with_constants`): the same table for both sides of a comparison.
"""

from __future__ import annotations


import numpy as np
import pytest

from conftest import REAL_SAMPLES
from cudagraph_cli import ir
from cudagraph_cli.diagnostics import SourceError
from cudagraph_cli.exec.constants import metadata_value
from cudagraph_cli.text.reader import parse_module
from cudagraph_cli.passes.options import RewriteOptions
from cudagraph_cli.passes.pipeline import rewrite
from cudagraph_cli.text.printer import print_module
from tvm_oracle import tvm_equal, tvm_parse_with_constants



# The corpus itself (TVM loads cgraph's fmt and rewrite outputs of every samples/real model, equal
# to its reading of the input and to its own pass output but for correction 6; the TVM-compatible
# rewrite equals it exactly) is tests/test_real_workflow.py, one test per model.


# ---- metadata constants ------------------------------------------------------------------

KERNEL = '''    @T.prim_func(private=True, s_tir=True)
    def add(a: T.Buffer((T.int64(2), T.int64(3)), "float32"), w: T.Buffer((T.int64(2), T.int64(3)), "float32"), out: T.Buffer((T.int64(2), T.int64(3)), "float32")):
        T.evaluate(0)
'''


def module_with(body: str, kernel: str = KERNEL) -> str:
    return ("@I.ir_module\nclass Module:\n" + kernel + "\n    @R.function\n"
            '    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), '
            'dtype="float32"):\n        R.func_attr({"relax.force_pure": True})\n'
            "        cls = Module\n" + body)


CONST_BODY = ('        alloc: R.Tensor((2, 3), dtype="float32") = R.builtin.alloc_tensor('
              'R.shape([2, 3]), R.dtype("float32"), R.prim_value(0))\n'
              '        cls.add(x, metadata["ir.GenericConst"][1], alloc)\n'
              "        return alloc\n")


def meta_constants(mod: ir.Module) -> list:
    return [x for f in mod.relax_functions() for blk in f.blocks for b in blk.bindings
            for x in ir.walk(b.value) if type(x) is ir.Constant and x.meta is not None]


def test_a_metadata_constant_takes_its_kernel_parameter_struct_info():
    (c,) = meta_constants(parse_module(module_with(CONST_BODY)))
    assert c.meta == ("ir.GenericConst", 1)
    assert c.sinfo == ir.TensorSInfo((ir.IntImm(2), ir.IntImm(3)), "float32", 2)


def test_a_metadata_constant_is_printed_verbatim_with_tvm_trailer():
    out = print_module(parse_module(module_with(CONST_BODY)))
    assert '        cls.add(x, metadata["ir.GenericConst"][1], alloc)\n' in out
    assert out.endswith("        return alloc\n\n"
                        "# Metadata omitted. Use show_meta=True in script() method to show it.\n")
    assert "Metadata omitted" not in print_module(parse_module(module_with(
        CONST_BODY.replace('metadata["ir.GenericConst"][1]', "x"))))


def test_an_annotation_gives_a_metadata_constant_its_struct_info():
    body = ('        c: R.Tensor((4,), dtype="int32") = metadata["relax.expr.Constant"][0]\n'
            "        return x\n")
    (c,) = meta_constants(parse_module(module_with(body)))
    assert c.sinfo == ir.TensorSInfo((ir.IntImm(4),), "int32", 1)


@pytest.mark.parametrize("value, col", [
    ('metadata', 13),
    ('metadata["ir.GenericConst"]', 13),
    ('metadata[0][0]', 13),
    ('metadata["ir.GenericConst"][0][1]', 13),
    ('metadata["ir.GenericConst"][True]', 13),
    ('metadata.x', 13),
])
def test_other_uses_of_metadata_are_located_errors(value, col):
    text = module_with(f"        y = {value}\n        return x\n")
    with pytest.raises(SourceError) as e:
        parse_module(text)
    assert "only metadata[\"<kind>\"][<index>] reads one" in str(e.value)
    assert (e.value.loc.line, e.value.loc.col) == (11, col)


def test_a_metadata_constant_with_no_struct_info_is_a_located_error():
    text = module_with('        y = metadata["ir.GenericConst"][2]\n        return x\n')
    with pytest.raises(SourceError) as e:
        parse_module(text)
    assert 'cannot tell the shape and dtype of metadata["ir.GenericConst"][2]' in str(e.value)
    assert (e.value.loc.line, e.value.loc.col) == (11, 13)


def test_a_metadata_constant_is_static_for_the_pass():
    """TVM's planner: a ConstantNode is static, so a kernel whose other arguments are static
    is captured. Here the only non-constant argument is planned memory (static), so the kernel
    goes into the graph with the constant."""
    body = ('        storage: R.Any = R.memory.alloc_storage(R.shape([24]), R.prim_value(0), '
            'R.str("global"), R.dtype("float32"))\n'
            '        a: R.Tensor((2, 3), dtype="float32") = R.memory.alloc_tensor(storage, '
            'R.prim_value(0), R.shape([2, 3]), R.dtype("float32"))\n'
            '        b: R.Tensor((2, 3), dtype="float32") = R.builtin.alloc_tensor('
            'R.shape([2, 3]), R.dtype("float32"), R.prim_value(0))\n'
            '        cls.add(metadata["ir.GenericConst"][0], metadata["ir.GenericConst"][1], a)\n'
            "        cls.add(a, x, b)\n"
            "        return b\n")
    out, _ = rewrite(parse_module(module_with(body)))
    text = print_module(out)
    capture = text[text.index("def main_cuda_graph_capture"):text.index("def main(")]
    assert 'cls.add(metadata["ir.GenericConst"][0], metadata["ir.GenericConst"][1], a)' in \
        capture


def test_a_metadata_value_depends_only_on_kind_index_shape_dtype():
    a = metadata_value("ir.GenericConst", 0, (2, 3), "float32")
    assert a.shape == (2, 3) and a.dtype == np.float32
    assert np.array_equal(a, metadata_value("ir.GenericConst", 0, (2, 3), "float32"))
    assert not np.array_equal(a, metadata_value("ir.GenericConst", 1, (2, 3), "float32"))
    assert not np.array_equal(a, metadata_value("relax.expr.Constant", 0, (2, 3), "float32"))


def test_verify_sees_the_same_constant_in_both_modules():
    from cudagraph_cli.exec.verify import verify

    text = module_with(CONST_BODY)
    out, _ = rewrite(parse_module(text))
    report = verify(parse_module(text), out)
    assert report.equal


@pytest.mark.tvm
def test_tvm_reads_metadata_through_extra_vars(tvm):
    mod = tvm_parse_with_constants(module_with(CONST_BODY))
    call = mod["main"].body.blocks[0].bindings[1].value
    const = call.args[1]
    assert type(const).__name__ == "GenericConst"  # TVM 0.27's relax constant
    assert tuple(const.value.shape) == (2, 3)
    assert np.array_equal(const.value.numpy(),
                          metadata_value("ir.GenericConst", 1, (2, 3), "float32"))


# ---- printing what TVM reads ---------------------------------------------------------------

TY_ARGS_BODY = ('        a: R.Tensor((2, 3), dtype="float32") = R.builtin.alloc_tensor('
                'R.shape([2, 3]), R.dtype("float32"), 0, R.str("global"), '
                'ty_args=(R.Tensor((2, 3), dtype="float32"),))\n'
                '        k: R.Any = R.call_packed("vm.builtin.f", a, ty_args=(R.Any,))\n'
                '        g: R.Tuple(R.Any) = R.call_builtin_with_ctx("vm.builtin.g", (a,), '
                'ty_args=(R.Tuple(R.Any),))\n'
                "        return a\n")


def test_ty_args_are_dropped_on_builtin_alloc_tensor_only():
    out = print_module(parse_module(module_with(TY_ARGS_BODY)))
    alloc = next(line for line in out.splitlines() if "R.builtin.alloc_tensor" in line)
    assert "ty_args" not in alloc
    assert 'R.call_packed("vm.builtin.f", a, ty_args=(R.Any,))' in out
    assert 'R.call_builtin_with_ctx("vm.builtin.g", (a,), ty_args=(R.Tuple(R.Any),))' in out


@pytest.mark.tvm
def test_tvm_reads_the_output_without_ty_args(tvm):
    out = print_module(parse_module(module_with(TY_ARGS_BODY)))
    tvm.script.from_source(out)
    with pytest.raises(Exception, match="unexpected keyword argument 'ty_args'"):
        tvm.script.from_source(module_with(TY_ARGS_BODY))


def test_tvm_header_lines_are_kept():
    text = (REAL_SAMPLES / "nn_llama_kv.before.relax").read_text()
    out = print_module(parse_module(text))
    header = [line for line in out.splitlines() if line.startswith("# from")]
    # TVM 0.27's header, as the dump has it (the stored file's lines 9 to 13).
    assert header == ["# from typing import TypeVar", "# from tvm.script import ir as I",
                      "# from tvm.script import tirx as T",
                      "# from tvm.tirx.layout import Axis",
                      "# from tvm.script import relax as R"]
    assert header == [line for line in text.splitlines() if line.startswith("# from")]


MIXED = '''@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def k(a: T.Buffer((T.int64(4),), "float32")):
        with T.sblock("root"):
            T.evaluate(0)

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Object:
        R.func_attr({"relax.force_pure": True})
        cls = Module
        cls.k(x)
        y: R.Object = x
        z: R.Object = y
        return z
'''


def test_s_tir_is_kept_as_written_on_a_mixed_dialect_module():
    out = print_module(parse_module(MIXED))
    assert "    @T.prim_func(s_tir=True)\n" in out and "@I.ir_module\n" in out
    assert "R.Object" in out  # judged legacy by its R.Object: printed in that dialect


@pytest.mark.tvm
def test_tvm_reads_s_tir_from_the_mixed_dialect_output(tvm):
    mine = tvm.script.from_source(print_module(parse_module(MIXED)))
    assert mine["k"].attrs["s_tir"]
    assert tvm_equal(mine, tvm.script.from_source(MIXED)) is None


def test_the_module_decorator_is_kept_as_written():
    text = (REAL_SAMPLES / "bb_convnet.before.relax").read_text()
    out = print_module(parse_module(text))
    assert "\n@I.ir_module\nclass Module:\n" in out
    assert out.count("@T.prim_func(private=True, s_tir=True)") == \
        text.count("@T.prim_func(private=True, s_tir=True)")


# ---- correction 6: relax.force_pure --------------------------------------------------------

VIEW = REAL_SAMPLES / "static_plan_view.before.relax"


def test_rewrite_sets_force_pure_where_it_adds_the_impure_builtins():
    out, _ = rewrite(parse_module(VIEW.read_text()))
    assert out.function("main").attr("relax.force_pure") is True
    compat, _ = rewrite(parse_module(VIEW.read_text()), RewriteOptions.tvm_compat())
    assert compat.function("main").attr("relax.force_pure") is None


@pytest.mark.tvm
def test_tvm_well_formedness_accepts_cgraph_output_and_rejects_tvm_compat(tvm):
    out, _ = rewrite(parse_module(VIEW.read_text()))
    tvm.script.from_source(print_module(out))
    compat, _ = rewrite(parse_module(VIEW.read_text()), RewriteOptions.tvm_compat())
    with pytest.raises(Exception, match="not well-formed"):
        tvm.script.from_source(print_module(compat))
