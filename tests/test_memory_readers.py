"""One reader per memory construct (ir/memory.py): every spelling of a view, a tensor in a
storage and a release, read by each module that asks what a call aliases -- ir.memory_call
itself, the storage collector (a storage returned through the view stays the caller's), the
shape facts (a view fact, and a read of the view is a use of its tensor), graph_cost (a graph
given the view holds the shared slot the viewed tensor lives in) and the executor (the result
shares the viewed tensor's bytes) -- and all of them agree."""

from __future__ import annotations

import numpy as np
import pytest

from cudagraph_cli import api, ir
from cudagraph_cli.exec.backend import CpuBackend
from cudagraph_cli.exec.interpreter import Executor
from cudagraph_cli.proof.facts import shape_facts
from cudagraph_cli.passes.storage_collector import output_storages
from cudagraph_cli.report.graph_cost import graph_cost

T44 = 'R.Tensor((4, 4), dtype="float32")'
T16 = 'R.Tensor((16,), dtype="float32")'

# Each spelling of a view of `a` (16 float32 values, 64 bytes at offset 0 of a storage): the
# spelling's name, the call, its struct info, whether it is a view of another shape (a
# view fact: its bytes within its tensor's) rather than the tensor itself.
VIEWS = {
    "relax.reshape": ('R.reshape(a, R.shape([4, 4]))', T44, True),
    "relax.memory.view": ('R.memory.view(a, R.shape([4, 4]), R.dtype("float32"), '
                          'R.prim_value(0))', T44, True),
    "vm.builtin.reshape": (f'R.call_packed("vm.builtin.reshape", a, R.shape([4, 4]), '
                           f'sinfo_args=({T44},))', T44, True),
    "call_pure_packed vm.builtin.reshape": (
        f'R.call_pure_packed("vm.builtin.reshape", a, R.shape([4, 4]), sinfo_args=({T44},))',
        T44, True),
    "call_builtin_with_ctx vm.builtin.reshape": (
        f'R.call_builtin_with_ctx("vm.builtin.reshape", (a, R.shape([4, 4])), '
        f'sinfo_args=({T44},))', T44, True),
    "relax.memory.ensure_zero_offset": ('R.memory.ensure_zero_offset(a)', T16, False),
    "vm.builtin.ensure_zero_offset": (
        f'R.call_packed("vm.builtin.ensure_zero_offset", a, sinfo_args=({T16},))', T16, False),
    "call_pure_packed vm.builtin.ensure_zero_offset": (
        f'R.call_pure_packed("vm.builtin.ensure_zero_offset", a, sinfo_args=({T16},))', T16,
        False),
    "call_builtin_with_ctx vm.builtin.ensure_zero_offset": (
        f'R.call_builtin_with_ctx("vm.builtin.ensure_zero_offset", (a,), sinfo_args=({T16},))',
        T16, False),
}

# main returns the view v of a; with `{after}`, a second tensor b takes a's bytes after v is
# made, and v is read after b is written: a is alive then (through its view), so a and b
# overlap -- a disjointness fact that fails only if the reader sees v as a's bytes.
RETURNED = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((16,), dtype="float32")):
        R.func_attr({{"relax.force_pure": True}})
        s: R.Object = R.memory.alloc_storage(R.shape([64]), R.prim_value(0), R.str("global"), R.dtype("float32"))
        a: R.Tensor((16,), dtype="float32") = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([16]), R.dtype("float32"))
        _1: R.Any = R.call_packed("kern", x, a)
        v: {ty} = {view}
        b: R.Tensor((16,), dtype="float32") = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([16]), R.dtype("float32"))
        _2: R.Any = R.call_packed("kern", x, b)
        y: {ty} = R.builtin.alloc_tensor(R.shape({shape}), R.dtype("float32"), R.prim_value(0), R.str("global"))
        _3: R.Any = R.call_packed("kern", v, y)
        return {ret}
'''

# A rewritten module: main places a in slot 0 of the shared allocation (64 bytes) and gives
# the view of a to a graph keyed by n (1..4): the graph holds slot 0's 64 bytes.
KEYED = '''
@I.ir_module
class Module:
    @R.function(private=True)
    def cuda_graph_alloc() -> R.Tuple(R.Object):
        R.func_attr({{"relax.force_pure": True}})
        storage: R.Object = R.memory.alloc_storage(R.shape([64]), R.prim_value(0), R.str("global"), R.dtype("float32"))
        return (storage,)

    @R.function(private=True)
    def capture(v: {ty}, key: R.Shape(["n"])) -> R.Tuple:
        n = T.int64()
        R.func_attr({{"relax.force_pure": True}})
        _1: R.Any = R.call_packed("kern", v)
        return R.tuple()

    @R.function
    def main(x: R.Tensor(("n",), dtype="float32")) -> R.Tensor(("n",), dtype="float32"):
        n = T.int64()
        R.func_attr({{"relax.force_pure": True, "tir_var_upper_bound": {{"n": 4}}}})
        cls = Module
        gv: R.Tuple(R.Object) = R.call_builtin_with_ctx("vm.builtin.cuda_graph.get_cached_alloc", (cls.cuda_graph_alloc, R.prim_value(0)), sinfo_args=(R.Tuple(R.Object),))
        s: R.Object = gv[0]
        a: R.Tensor((16,), dtype="float32") = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([16]), R.dtype("float32"))
        v: {ty} = {view}
        gv1: R.Tuple = R.call_builtin_with_ctx("vm.builtin.cuda_graph.run_or_capture", (cls.capture, (v, R.shape([n])), R.prim_value(0), R.shape([n])), sinfo_args=(R.Tuple,))
        return x
'''


def _module(template: str, spelling: str, ret: str = "(v, y)") -> ir.Module:
    view, ty, _ = VIEWS[spelling]
    shape = "[4, 4]" if ty == T44 else "[16]"
    return api.loads(template.format(view=view, ty=ty, shape=shape, ret=ret))


def _binding(f: ir.Function, name: str):
    return next(b for b in ir.nested_bindings(f.blocks) if b.var.name == name)


@pytest.mark.parametrize("spelling", sorted(VIEWS))
def test_every_reader_sees_a_view_in_every_spelling(spelling):
    mod = _module(RETURNED, spelling)
    main = mod.function("main")
    a, v = _binding(main, "a").var, _binding(main, "v")
    s = _binding(main, "s").var

    # ir.memory_call: a view whose result is a's bytes
    memory = ir.memory_call(v.value)
    assert memory is not None and memory.is_view and memory.aliased is a
    assert ir.aliased(v.value) is a and ir.viewed(v.value) is a

    # the storage collector: v is returned, so a's storage stays the caller's
    assert output_storages(main) == {s}

    # the shape facts: a view fact where the view has a shape of its own; v read after b
    # took a's bytes keeps a alive, so a and b overlap
    facts = shape_facts(mod)
    views = [f for f in facts.facts if f.kind == "view"]
    assert [f.status for f in views] == (["proved"] if VIEWS[spelling][2] else [])
    [bad] = facts.failed
    assert bad.kind == "disjoint" and "'a'" in bad.message and "'b'" in bad.message

    # the executor: the view is a's bytes (main returning both)
    mod = _module(RETURNED, spelling, ret="(a, v)")
    ex = Executor(mod, CpuBackend())
    out_a, out_v = ex.call("main", [ex.backend.from_numpy(np.ones(16, np.float32))])
    assert out_v.storage is out_a.storage and out_v.offset == out_a.offset
    assert tuple(out_v.shape) == ((4, 4) if VIEWS[spelling][2] else (16,))


@pytest.mark.parametrize("spelling", sorted(VIEWS))
def test_graph_cost_follows_a_view_in_every_spelling(spelling):
    mod = _module(KEYED, spelling)
    [keyed], unkeyed = graph_cost(mod, mod.function("main"))
    assert unkeyed == 0 and keyed.static_bytes == {"global": 64}


@pytest.mark.parametrize("spelling", sorted(VIEWS))
def test_readers_agree_before_the_view(spelling):
    """Not a view: the tensor placed in the storage aliases the storage, the storage is new
    bytes, and a release aliases nothing and releases its argument."""
    main = _module(RETURNED, spelling).function("main")
    s, a = _binding(main, "s"), _binding(main, "a")
    assert ir.memory_call(s.value).kind == ir.ALLOC_STORAGE and ir.aliased(s.value) is None
    assert ir.memory_call(a.value).kind == ir.ALLOC_TENSOR and ir.aliased(a.value) is s.var
    assert ir.viewed(a.value) is None


RELEASES = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((16,), dtype="float32")) -> R.Tensor((16,), dtype="float32"):
        R.func_attr({"relax.force_pure": True})
        s: R.Object = R.vm.alloc_storage(R.shape([64]), R.prim_value(0), R.dtype("float32"), R.str("global"))
        a: R.Tensor((16,), dtype="float32") = R.vm.alloc_tensor(s, R.prim_value(0), R.shape([16]), R.dtype("float32"))
        _1: R.Any = R.call_packed("kern", x, a)
        y: R.Tensor((16,), dtype="float32") = R.builtin.alloc_tensor(R.shape([16]), R.dtype("float32"), R.prim_value(0), R.str("global"))
        _2: R.Any = R.call_packed("kern", a, y)
        k1: R.Tuple = R.memory.kill_tensor(a)
        k2: R.Tuple = R.memory.kill_storage(s)
        k3: R.Tuple = R.vm.kill_object(s)
        return y
'''


def test_the_vm_spellings_and_the_releases():
    """R.vm.alloc_storage's dtype is its third parameter, not its fourth; each kill releases
    its argument and aliases nothing. The executor runs them (the storage sized from the
    right dtype), and the facts prove a's bytes within the storage."""
    mod = api.loads(RELEASES)
    main = mod.function("main")
    s, a = _binding(main, "s"), _binding(main, "a")
    storage = ir.memory_call(s.value)
    assert storage.kind == ir.ALLOC_STORAGE and storage.arg("dtype").value == "float32"
    assert storage.arg("scope").value == "global"
    assert ir.memory_call(a.value).aliased is s.var
    for name, released in (("k1", a.var), ("k2", s.var), ("k3", s.var)):
        kill = ir.memory_call(_binding(main, name).value)
        assert kill.kind == ir.KILL and kill.released is released and kill.aliased is None
    facts = shape_facts(mod)
    assert [(f.kind, f.status) for f in facts.facts] == [("fits", "proved")]
    ex = Executor(mod, CpuBackend())
    out = ex.call("main", [ex.backend.from_numpy(np.ones(16, np.float32))])
    assert tuple(out.shape) == (16,)


def test_an_operator_name_called_as_a_packed_function_is_no_construct():
    """`R.call_packed("relax.reshape", ...)` calls a packed function of that name, not the
    operator: the reader says it is nothing it knows (as the executor, which runs it as a
    synthetic kernel), rather than a view."""
    call = ir.Call(ir.ExternFunc("relax.reshape"), (ir.Var("a"), ir.ShapeExpr(())))
    assert ir.memory_call(call) is None
    packed = ir.Call(ir.Op("relax.call_pure_packed"), (ir.ExternFunc("relax.memory.view"),
                                                       ir.Var("a")))
    assert ir.memory_call(packed) is None


def test_spellings_name_every_handler():
    """The executor registers its memory handlers under ir.spellings: each spelling runs."""
    from cudagraph_cli.exec.registry import FUNCTIONS, OPERATORS
    for name in ir.memory.SPELLINGS:
        table = OPERATORS if name.startswith("relax.") else FUNCTIONS
        assert name in table, name


def test_graph_launch_reads_its_arguments_through_aliases():
    """`args = (v, R.shape([n]))`, `key = R.shape([n])`, then a launch of `args` keyed by
    `key`: with the function's definitions, ir.GraphLaunch reads the tuple and the key they
    stand for (graph_cost then finds the slot the view lives in); without, there is no tuple
    to read."""
    aliased = KEYED.replace(
        '        gv1: R.Tuple = R.call_builtin_with_ctx("vm.builtin.cuda_graph.run_or_capture", '
        '(cls.capture, (v, R.shape([n])), R.prim_value(0), R.shape([n])), '
        'sinfo_args=(R.Tuple,))\n',
        '        args: R.Tuple({ty}, R.Shape([n])) = (v, R.shape([n]))\n'
        '        key: R.Shape([n]) = R.shape([n])\n'
        '        gv1: R.Tuple = R.call_builtin_with_ctx("vm.builtin.cuda_graph.run_or_capture", '
        '(cls.capture, args, R.prim_value(0), key), sinfo_args=(R.Tuple,))\n')
    assert aliased != KEYED
    mod = _module(aliased, "relax.reshape")
    main = mod.function("main")
    defs = {b.var: b.value for b in ir.nested_bindings(main.blocks)}
    launch_call = _binding(main, "gv1").value
    plain = ir.GraphLaunch.of(launch_call)
    assert type(plain.args) is ir.Var and type(plain.shape) is ir.Var
    launch = ir.GraphLaunch.of(launch_call, defs)
    assert type(launch.args) is ir.Tuple and launch.args.fields[0] is _binding(main, "v").var
    assert type(launch.shape) is ir.ShapeExpr and launch.function_name == "capture"
    assert launch.index_value == 0
    [keyed], _ = graph_cost(mod, main)
    assert keyed.keys[0][0] == "n" and keyed.static_bytes == {"global": 64}


def test_the_rewrite_writes_its_launches_through_graph_launch():
    """ir.GraphLaunch.write / ir.CachedAlloc.write make the calls ir.GraphLaunch.of /
    ir.CachedAlloc.of read back, item for item."""
    ret = ir.TupleSInfo(())
    n = ir.SymVar("n")
    x = ir.Var("x")
    call = ir.GraphLaunch.write("cap", (x,), 3, (n,), ret)
    launch = ir.GraphLaunch.of(call)
    assert (launch.function_name, launch.index_value) == ("cap", 3)
    assert launch.args.fields == (x,) and launch.shape.values == (n,)
    assert call.sinfo_args == (ret,)
    assert ir.GraphLaunch.of(ir.GraphLaunch.write("cap", (), 0, None, ret)).shape is None
    alloc = ir.CachedAlloc.of(ir.CachedAlloc.write("cuda_graph_alloc", 0, ret))
    assert (alloc.function_name, alloc.index_value) == ("cuda_graph_alloc", 0)
