"""Every module TVM 0.27's pass accepts goes through cgraph's pass in memory (docs/TVM.md, "How
it works"): the Relax constructs TVM prints that no sample of the repository holds. On each
module: no exception, no text route (TextRouteWarning is an error here, and the text route
refuses to run), with `RewriteOptions.tvm_compat()` structurally equal to TVM's own pass, and
well formed (`relax.analysis.well_formed`).

The modules: PrimExprs in Relax (`T.Cast`, `T.Select`, `T.if_then_else`, `T.min`/`T.max`,
floordiv/floormod, truncdiv, `or`, `not`, shifts and bitwise operators), typed operator attributes (`R.permute_dims`,
`R.sum`, `R.astype`), a module-level `ExternFunc`, TVM's own test module for the pass before
lowering (samples/tvm/capture_fixed_inputs_conv2dx3.relax: convolutions, layer norm) after
LegalizeOps and StaticPlanBlockMemory, and a `relax.frontend.nn` model
through the same passes. samples/ and TVM's test modules of the pass after lowering are
tests/test_tvm_in_memory.py's.
"""

from __future__ import annotations

import warnings

import pytest

from conftest import SAMPLES
from cudagraph_cli.passes.options import RewriteOptions

pytestmark = pytest.mark.tvm

CONFIG = {"relax.backend.use_cuda_graph": True}

KERNELS = '''
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def add(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32")):
        for i in range(T.int64(4)):
            B[i] = A[i] + T.float32(1)

    @R.function
    def main(x: R.Tensor((4,), "float32"), s: R.Shape(["n"])) -> R.Tensor((4,), "float32"):
        n = T.int64()
        R.func_attr({{"relax.force_pure": True}})
        cls = Module
        storage: R.Any = R.memory.alloc_storage(R.shape([16]), 0, R.str("global"), R.dtype("float32"))
        a: R.Tensor((4,), dtype="float32") = R.memory.alloc_tensor(storage, 0, R.shape([4]), R.dtype("float32"), 0)
        cls.add(x, a)
        storage1: R.Any = R.memory.alloc_storage(R.shape([16]), 0, R.str("global"), R.dtype("float32"))
        b: R.Tensor((4,), dtype="float32") = R.memory.alloc_tensor(storage1, 0, R.shape([4]), R.dtype("float32"), 0)
        cls.add(a, b)
{extra}
        return b
'''

# each: the bindings added to main, after two kernels a graph captures
CONSTRUCTS = {
    "cast": 'p = R.prim_value(T.Cast("int32", n))',
    "select": "p = R.prim_value(T.Select(n > 2, n, T.int64(2)))",
    "if_then_else": "p = R.prim_value(T.if_then_else(n > 2, n, T.int64(2)))",
    "min_max": "p = R.prim_value(T.max(T.min(n, T.int64(8)), T.int64(1)))",
    "floordiv_floormod": "p = R.prim_value(n // T.int64(2) + n % T.int64(3))",
    "truncdiv": "p = R.prim_value(T.truncdiv(n, T.int64(2)))",
    "or_not": "p = R.prim_value(T.Or(n > 2, T.Not(n < 8)))",
    "shift_bitwise": "p = R.prim_value(T.shift_left(n, T.int64(1)) & (n ^ T.int64(3)))",
    "cast_then_int32_arithmetic": 'm = R.prim_value(T.Cast("int32", n) * 2 + 1)',
    "cast_then_a_kernel": 'p = R.prim_value(T.Cast("int32", n))\n'
                          '        cls.add(b, a)',
    "permute_dims": "p = R.permute_dims(b, axes=[0])",
    "sum_astype": 'p = R.sum(R.astype(b, "float16"), axis=[0], keepdims=True)',
}


def tvm_module(tvm, text):
    return tvm.script.from_source(text)


@pytest.fixture
def in_memory_only(monkeypatch):
    """The pass may not take the text route: taking it raises, and so does its warning."""
    import cudagraph_cli.tvm.rewrite_pass as cgraph_tvm

    def refuse(mod, options=None):
        raise AssertionError("the pass went through text")

    monkeypatch.setattr(cgraph_tvm, "rewrite_module_through_text", refuse)
    with warnings.catch_warnings():
        warnings.simplefilter("error", cgraph_tvm.TextRouteWarning)
        yield


def check(tvm, mod):
    """cgraph's pass on `mod`: TVM's with tvm_compat(), well formed by default; returns it."""
    from tvm import relax

    from cudagraph_cli.tvm import RewriteCUDAGraph

    with tvm.transform.PassContext(config=CONFIG):
        theirs = relax.transform.RewriteCUDAGraph()(mod)
        exact = RewriteCUDAGraph(RewriteOptions.tvm_compat())(mod)
        ours = RewriteCUDAGraph()(mod)
    tvm.ir.assert_structural_equal(exact, theirs)
    relax.analysis.well_formed(ours)
    return ours


# an operator after the kernels makes the module look dumped before LegalizeOps (a warning)
@pytest.mark.filterwarnings("ignore:.*looks dumped before LegalizeOps")
@pytest.mark.parametrize("name", sorted(CONSTRUCTS))
def test_a_construct_goes_through_in_memory(tvm, in_memory_only, name):
    mod = tvm_module(tvm, KERNELS.format(extra="        " + CONSTRUCTS[name]))
    ours = check(tvm, mod)
    assert any("cuda_graph" in gv.name_hint for gv in ours.functions)


@pytest.mark.parametrize("name,var,expected", [
    ("cast", "p", "int32"), ("select", "p", "int64"), ("if_then_else", "p", "int64"),
    ("min_max", "p", "int64"), ("cast_then_int32_arithmetic", "m", "int32")])
def test_the_text_reader_gives_a_prim_value_its_dtype(tvm, name, var, expected):
    # the in-memory reading is the text reader's, the prim value's struct info included
    from cudagraph_cli import api, ir
    from cudagraph_cli.ir.sinfo import deduce
    from cudagraph_cli.tvm.from_tvm import read_module

    mod = tvm_module(tvm, KERNELS.format(extra="        " + CONSTRUCTS[name]))
    ours, _ = read_module(mod)
    text = api.loads(mod.script(), name="<mod.script()>")
    assert api.difference(ours, text) is None
    main = next(f for f in text.functions if f.name == "main")
    p = next(b for block in main.blocks for b in block.bindings if b.var.name == var)
    assert p.var.sinfo == ir.PrimSInfo(expected)  # TVM's annotation
    assert deduce(p.value, {}) == ir.PrimSInfo(expected, p.value.value)
    # cgraph prints the value as TVM does, and reads its printing back
    printed = api.print_module(text)

    def value_text(script):
        return next(x for x in script.split("\n") if f" {var}: " in x).split(" = ", 1)[1]

    assert value_text(printed) == f"R.prim_value({value_text(mod.script())})"
    assert api.difference(api.loads(printed), text) is None


def test_a_cast_annotated_with_another_dtype_is_refused():
    from cudagraph_cli import api
    from cudagraph_cli.diagnostics import SourceError

    text = KERNELS.format(extra='        p: R.Prim("int64") = R.prim_value(T.Cast("int32", n))')
    with pytest.raises(SourceError, match="does not match"):
        api.loads(text)


def test_a_module_level_extern_func_is_kept(tvm, in_memory_only):
    from tvm import relax

    mod = tvm_module(tvm, KERNELS.format(extra=""))
    mod["my_ext"] = relax.ExternFunc("my_ext")
    ours = check(tvm, mod)
    assert isinstance(ours["my_ext"], relax.ExternFunc)
    assert ours["my_ext"].same_as(mod["my_ext"])


# what cgraph models no part of, read in memory as what it is to the rewrite: a string value is
# an object, a tensor whose shape is held in a var (after a reshape to a shape value) has an
# unknown shape of its ndim
OBJECTS = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32"), s: R.Shape(ndim=1)) -> R.Tensor((2,), "float32"):
        R.func_attr({"relax.force_pure": True})
        z = R.reshape(x, s)
        t = R.str("a")
        return x
'''


def test_a_string_and_a_shape_held_in_a_var(tvm, in_memory_only):
    from cudagraph_cli import ir
    from cudagraph_cli.tvm.from_tvm import read_module

    mod = tvm.script.from_source(OBJECTS)
    check(tvm, mod)
    ours, _ = read_module(mod)
    z, t = ours.functions[0].blocks[0].bindings
    assert z.var.sinfo == ir.TensorSInfo(None, "float32", 1)
    assert t.var.sinfo == ir.ObjectSInfo()


def test_a_signature_over_several_lines_is_read():
    from cudagraph_cli.tvm.from_tvm import signature_lines

    lines = ["# from tvm.script import tirx as T", "", "@T.prim_func(private=True)",
             "def f(", '    A: T.Buffer((T.int64(4),), "float32"),',
             '    B: T.Buffer((T.int64(4),), "float32"),', "):", "    T.evaluate(0)"]
    assert signature_lines(lines) == (3, 7)
    assert signature_lines(["def g(a: T.handle):", "    pass"]) == (0, 1)


def lowered(tvm, mod):
    """`mod` as TVM's pass meets it in a pipeline: legalized, DPS calls lowered, memory
    planned (the passes before RewriteCUDAGraph that give it something to capture)."""
    from tvm import relax

    seq = tvm.transform.Sequential([relax.transform.LegalizeOps(),
                                    relax.transform.ToNonDataflow(),
                                    relax.transform.RemovePurityChecking(),
                                    relax.transform.CallTIRRewrite(),
                                    relax.transform.StaticPlanBlockMemory()])
    return seq(mod)


def test_tvms_test_module_lowered(tvm, in_memory_only):
    # apache/tvm's test_capture_fixed_inputs module: convolutions and a layer norm, lowered
    # as TVM's pipeline lowers it before the pass (TVM's pass raises on the module as written:
    # its dataflow blocks)
    mod = tvm.script.from_source((SAMPLES / "tvm" / "capture_fixed_inputs_conv2dx3.relax")
                                 .read_text())
    ours = check(tvm, lowered(tvm, mod))
    assert any("cuda_graph" in gv.name_hint for gv in ours.functions)


def test_a_frontend_nn_model(tvm, in_memory_only):
    from tvm.relax.frontend import nn

    class Block(nn.Module):
        def __init__(self):
            self.up = nn.Linear(8, 16, bias=False)
            self.down = nn.Linear(16, 8, bias=False)

        def forward(self, x: nn.Tensor):
            h = nn.op.permute_dims(self.up(x), axes=[1, 0])
            return self.down(nn.op.permute_dims(nn.op.silu(h), axes=[1, 0]))

    mod, _ = Block().export_tvm(
        {"forward": {"x": nn.spec.Tensor([4, 8], "float32")}})
    ours = check(tvm, lowered(tvm, mod))
    assert any("cuda_graph" in gv.name_hint for gv in ours.functions)


# A model as people write it, before TVM's pipeline: typed operator attributes and PrimExprs in
# Relax; relax.build's default cuda pipeline lowers the operators and leaves the PrimExprs.
HIGH_LEVEL = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((8, 16), "float32"), w: R.Tensor((16, 16), "float32"), s: R.Shape(["n"])):
        n = T.int64()
        R.func_attr({"num_input": 2})
        with R.dataflow():
            h = R.matmul(x, w)
            t = R.permute_dims(h, axes=[1, 0])
            r = R.nn.relu(t)
            u = R.sum(r, axis=[0], keepdims=True)
            v = R.astype(u, "float16")
            p = R.prim_value(T.Cast("int32", n))
            q = R.prim_value(T.Select(n > 2, n, T.int64(2)))
            R.output(v, p, q)
        return (v, p, q)
'''


def test_inside_relax_builds_default_pipeline(tvm, in_memory_only):
    # use_in_tvm() and TVM's default relax.build: the module after cgraph's pass (with its
    # corrections off) is the one after TVM's, and well formed
    from tvm import relax

    from cudagraph_cli.tvm import use_in_tvm

    mod = tvm.script.from_source(HIGH_LEVEL)
    after = []

    @tvm.ir.instrument.pass_instrument
    class AfterThePass:
        def run_after_pass(self, m, info):
            if info.name == "RewriteCUDAGraph":
                after.append(m)

    def build():
        with tvm.transform.PassContext(opt_level=3, config=CONFIG,
                                       instruments=[AfterThePass()]):
            relax.build(mod, target=tvm.target.Target({"kind": "cuda", "arch": "sm_80"}))

    with use_in_tvm(RewriteOptions.tvm_compat()):
        build()
    build()
    ours, theirs = after
    tvm.ir.assert_structural_equal(ours, theirs)
    relax.analysis.well_formed(ours)
    assert "main_cuda_graph_capture" in {gv.name_hint for gv in ours.functions}
    assert 'T.Cast("int32", n)' in ours["main"].script()
