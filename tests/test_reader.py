"""Reading TVMScript into the IR: literal sugar, scoping, struct info, both dialects."""

from __future__ import annotations

import pytest

from conftest import ALL_SAMPLES
from cudagraph_cli import ir
from cudagraph_cli.diagnostics import SourceError
from cudagraph_cli.text.difference import module_difference
from cudagraph_cli.text.reader import parse_module

HEAD = "@I.ir_module\nclass Module:\n"


def fn(body: str, sig: str = "def main(x: R.Tensor((8,), \"float32\")):",
       deco: str = "@R.function") -> str:
    lines = ["    " + deco, "    " + sig] + ["        " + ln for ln in body.strip().split("\n")]
    return HEAD + "\n".join(lines) + "\n"


def main_of(text: str) -> ir.Function:
    return parse_module(text).function("main")


def bindings(f: ir.Function) -> list:
    return [b for blk in f.blocks for b in blk.bindings]


@pytest.mark.parametrize("path", ALL_SAMPLES, ids=lambda p: p.parent.name + "/" + p.stem)
def test_every_sample_parses(path):
    mod = parse_module(path.read_text(), str(path))
    assert mod.functions


def test_alloc_storage_sugar_is_the_same_ir_as_wrappers():
    sugar = fn('s = R.memory.alloc_storage(R.shape([32]), 0, "global", "float32")\nreturn x')
    explicit = fn('s = R.memory.alloc_storage(R.shape([32]), R.prim_value(0), R.str("global"), '
                  'R.dtype("float32"))\nreturn x')
    a, b = parse_module(sugar), parse_module(explicit)
    assert module_difference(a, b) is None
    call = bindings(a.function("main"))[0].value
    assert isinstance(call.args[1], ir.PrimValue) and call.args[1].value == ir.IntImm(0, "int64")
    assert isinstance(call.args[2], ir.StringImm) and call.args[2].value == "global"
    assert isinstance(call.args[3], ir.DataTypeImm) and call.args[3].value == "float32"


def test_alloc_tensor_gets_default_runtime_device_index():
    f = main_of(fn('s = R.memory.alloc_storage(R.shape([32]), 0, "global", "float32")\n'
                   'a = R.memory.alloc_tensor(s, 0, R.shape([8]), "float32")\nreturn a'))
    call = bindings(f)[1].value
    assert len(call.args) == 5 and call.args[4].value == ir.IntImm(0)
    assert bindings(f)[1].var.sinfo == ir.TensorSInfo((ir.IntImm(8),), "float32", 1)


def test_call_packed_converts_like_tvm():
    f = main_of(fn('y = R.call_packed("f", x, 1, True, 2.5, "s", ty_args=(R.Tuple,))\nreturn x'))
    args = bindings(f)[0].value.args
    assert args[1].value == ir.IntImm(1, "int64")
    assert args[2].value == ir.IntImm(1, "int64")  # convert_to_expr(True): an int64 1
    assert args[3].value == ir.FloatImm(2.5, "float64")
    assert isinstance(args[4], ir.StringImm)


def test_prim_value_of_bool_is_bool():
    f = main_of(fn("y = R.prim_value(True)\nreturn x"))
    assert bindings(f)[0].value.value == ir.IntImm(1, "bool")


def test_rebinding_a_name_makes_a_new_var():
    f = main_of(fn('_ = R.call_packed("f", x, ty_args=(R.Tensor((8,), "float32"),))\n'
                   '_ = R.call_packed("g", _, ty_args=(R.Tensor((8,), "float32"),))\n'
                   'return _'))
    first, second = bindings(f)
    assert first.var is not second.var
    assert second.value.args[0] is first.var
    assert f.body is second.var


def test_use_of_void_var_is_the_empty_tuple():
    """TVM's normalizer replaces a use of an R.Tuple()-typed var by R.tuple()."""
    f = main_of(fn('c = R.call_packed("f", x, ty_args=(R.Tuple,))\nd = (c, x)\nreturn d'))
    d = bindings(f)[1].value
    assert isinstance(d.fields[0], ir.Tuple) and d.fields[0].fields == ()


def test_dotted_global_references():
    text = HEAD + """    @R.function
    def f(x: R.Tensor((8,), "float32")) -> R.Tensor((8,), "float32"):
        return x

    @R.function
    def main(x: R.Tensor((8,), "float32")):
        cls = Module
        a = cls.f(x)
        b = Module.f(a)
        return b
"""
    f = main_of(text)
    a, b = bindings(f)
    assert a.value.op == ir.GlobalVarRef("f") and b.value.op == ir.GlobalVarRef("f")
    assert b.var.sinfo == ir.TensorSInfo((ir.IntImm(8),), "float32", 1)


def test_symbolic_vars_strings_and_names_are_one_var():
    text = fn("m = T.int64()\ny: R.Tensor((m,), \"float32\") = x\nreturn y",
              sig='def main(x: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):')
    f = main_of(text)
    (m_param,) = f.params[0].sinfo.shape
    (m_body,) = bindings(f)[0].var.sinfo.shape
    (m_ret,) = f.ret_sinfo.shape
    assert m_param is m_body is m_ret and isinstance(m_param, ir.SymVar)


def test_shape_string_expression_and_constant_folding():
    text = fn('m = T.int64()\nq = R.shape([m * 2, 2 * 4, m + 0, m * 1])\nreturn x',
              sig='def main(x: R.Tensor(("m", "m * 2"), "float32")):')
    f = main_of(text)
    m, twice = f.params[0].sinfo.shape
    assert isinstance(twice, ir.PrimBinOp) and twice.lhs is m and twice.rhs == ir.IntImm(2)
    values = bindings(f)[0].value.values
    assert values[1] == ir.IntImm(8) and values[2] is m and values[3] is m


def test_module_level_typevar_from_tvm_printer():
    text = 'm = TypeVar("m")\n' + fn("return x", sig='def main(x: R.Tensor((m,), "float32")):')
    mod = parse_module(text)
    assert mod.globals_text == ('m = TypeVar("m")',)
    assert isinstance(mod.function("main").params[0].sinfo.shape[0], ir.SymVar)


def test_dataflow_block_vars():
    f = main_of(fn("with R.dataflow():\n    a = R.call_packed(\"f\", x, "
                   "ty_args=(R.Tensor((8,), \"float32\"),))\n    b = a\n    R.output(b)\nreturn b"))
    (block,) = f.blocks
    a, b = block.bindings
    assert block.is_dataflow and a.var.is_dataflow and not b.var.is_dataflow


def test_dataflow_var_not_visible_after_block():
    text = fn("with R.dataflow():\n    a = x\n    b = a\n    R.output(b)\nreturn a")
    with pytest.raises(SourceError, match="undefined variable 'a'"):
        parse_module(text)


def test_func_attr_lists_and_bools_and_flags():
    text = fn('R.func_attr({"relax.force_pure": True, "num_input": 1, '
              '"relax.rewrite_cuda_graph.capture_symbolic_vars": ["m"]})\nreturn x',
              deco="@R.function(private=True, pure=False)")
    f = main_of(text)
    assert f.is_private and not f.is_pure
    assert f.attr("relax.force_pure") is True and f.attr("num_input") == 1
    assert f.attr("relax.rewrite_cuda_graph.capture_symbolic_vars") == ("list", ("m",))


def test_bare_tuple_and_bare_call_statement():
    f = main_of(fn('gv = x, x\nR.call_packed("f", x, ty_args=(R.Tuple,))\nreturn gv'))
    t, call = bindings(f)
    assert isinstance(t.value, ir.Tuple) and len(t.value.fields) == 2
    assert call.bare and isinstance(call.value.op, ir.ExternFunc)


def test_calls_spread_over_lines_and_comments():
    text = fn('# a comment\ns = R.memory.alloc_storage(\n    R.shape([8]),  # size\n    0,\n'
              '    "global",\n    "float32",\n)\nreturn x')
    assert bindings(main_of(text))[0].value.op == ir.Op("relax.memory.alloc_storage")


def test_legacy_and_current_dialect_detected():
    legacy = fn('s: R.Object = R.call_builtin_with_ctx("f", (x,), sinfo_args=(R.Object,))\n'
                'return x')
    current = legacy.replace("R.Object", "R.Any").replace("sinfo_args", "ty_args")
    a, b = parse_module(legacy), parse_module(current)
    assert a.dialect == "legacy" and b.dialect == "current"
    assert module_difference(a, b) is None


def test_prim_func_body_is_kept_as_text():
    text = HEAD + """    @T.prim_func
    def exp(a: T.Buffer((T.int64(2),), "float32"), b: T.Buffer((T.int64(2),), "float32")):
        T.func_attr({"tir.noalias": True})
        for i in range(T.int64(2)):
            with T.block("c"):
  # an oddly indented comment, still TIR
                vi = T.axis.remap("S", [i])
                b[vi] = T.exp(a[vi])

    @R.function
    def main(x: R.Tensor((2,), "float32")):
        return x
"""
    mod = parse_module(text)
    exp = mod.function("exp")
    assert isinstance(exp, ir.PrimFunc)
    assert exp.body.split("\n")[0] == 'T.func_attr({"tir.noalias": True})'
    assert "b[vi] = T.exp(a[vi])" in exp.body
    assert [p.shape for p in exp.params] == [("T.int64(2)",), ("T.int64(2)",)]
    assert mod.function("main") is not None


def test_match_cast_defines_symbolic_var():
    f = main_of(fn('n = T.int64()\ny = R.match_cast(x, R.Tensor(("n",), "float32"))\nreturn y',
                   sig='def main(x: R.Tensor("float32", ndim=1)):'))
    (b,) = bindings(f)
    assert isinstance(b, ir.MatchCast) and isinstance(b.sinfo.shape[0], ir.SymVar)
