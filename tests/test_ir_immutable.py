"""The IR's containers are tuples, and its value nodes refuse assignment.

Every container field of every node read from every sample (and of every node the rewrite
builds) must be a tuple: a pass that appends to a node's list would change a module other code
still holds. Nodes compared by value (frozen, eq=True) must refuse assignment, since their hash
is their value; nodes compared by identity must hash by identity, so that maps keyed by them
(the interpreter's environment, the printer's names) tell two same-named vars apart.
"""

from __future__ import annotations

import dataclasses

import pytest

from conftest import ALL_SAMPLES, REAL_SAMPLES, for_every_sample_test
from cudagraph_cli import ir
from cudagraph_cli.passes.pipeline import rewrite
from cudagraph_cli.text.reader import parse_module

SAMPLES = ALL_SAMPLES + for_every_sample_test(sorted(REAL_SAMPLES.glob("*.relax")))
NODE_CLASSES = [c for c in vars(ir.nodes).values()
                if isinstance(c, type) and issubclass(c, ir.nodes.Node)
                and c.__module__ == ir.nodes.__name__ and "__match_args__" in vars(c)]


def is_node(x) -> bool:
    return isinstance(x, ir.nodes.Node)


def lists_in(root) -> list[str]:
    """Paths (`Module.functions[0].blocks`) of every list reachable from `root` through node
    fields and tuples; a node is visited once however often it is shared."""
    found: list[str] = []
    seen: set[int] = set()
    stack = [(root, type(root).__name__)]
    while stack:
        x, path = stack.pop()
        if isinstance(x, list):
            found.append(path)
            continue
        if isinstance(x, tuple):
            stack.extend((y, f"{path}[{i}]") for i, y in enumerate(x))
        elif is_node(x):
            if id(x) in seen:
                continue
            seen.add(id(x))
            stack.extend((getattr(x, name), f"{path}.{name}") for name in ir.field_names(x))
    return found


def count_nodes(root) -> int:
    seen: set[int] = set()
    stack = [root]
    while stack:
        x = stack.pop()
        if isinstance(x, (tuple, list)):
            stack.extend(x)
        elif is_node(x) and id(x) not in seen:
            seen.add(id(x))
            stack.extend(getattr(x, name) for name in ir.field_names(x))
    return len(seen)


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: str(p.relative_to(p.parents[1])))
def test_read_and_rewritten_modules_hold_no_lists(path):
    module = parse_module(path.read_text(), str(path))
    assert count_nodes(module) > 10  # the walk reaches inside the functions
    assert lists_in(module) == []
    rewritten, _ = rewrite(module)
    assert lists_in(rewritten) == []


def test_walk_finds_a_list():
    # The walk itself: a list smuggled three levels down is found by its path.
    call = ir.Call(ir.Op("relax.add"), ())
    object.__setattr__(call, "args", [ir.Tuple(())])
    block = ir.BindingBlock((ir.VarBinding(ir.Var("x"), call),))
    assert lists_in(block) == ["BindingBlock.bindings[0].value.args"]


def test_nodes_store_tuples_whatever_iterable_they_are_given():
    x, y = ir.Var("x"), ir.Var("y")
    call = ir.Call(ir.Op("relax.add"), [x, y], [], [ir.TensorSInfo([ir.IntImm(2)], "f32", 1)])
    assert call.args == (x, y) and call.attrs == () and type(call.sinfo_args) is tuple
    assert call.sinfo_args[0].shape == (ir.IntImm(2),)
    block = ir.BindingBlock([ir.VarBinding(x, call)])
    f = ir.Function("f", [x, y], None, [block], x, [("k", ir.Literal(1))],
                    sym_vars=iter([ir.SymVar("n")]))
    assert type(f.params) is type(f.blocks) is type(f.attrs) is type(f.sym_vars) is tuple
    m = ir.Module("M", [f], globals_text=["m = 1"], leading_comments=["# c"])
    assert (m.functions, m.globals_text, m.leading_comments) == ((f,), ("m = 1",), ("# c",))
    for node in (ir.Tuple([x]), ir.ShapeExpr([ir.IntImm(1)]), ir.SeqExpr([block], x),
                 ir.PrimCall("T.max", [ir.IntImm(1)]), ir.ShapeSInfo([ir.IntImm(1)], 1),
                 ir.TupleSInfo([ir.ObjectSInfo()]), ir.FuncSInfo([ir.ObjectSInfo()],
                                                                 ir.ObjectSInfo()),
                 ir.PrimFunc("k", [ir.PrimParam("a", "T.handle", "handle", ["2"])], "")):
        assert lists_in(node) == [], node
    # None stays None: an unknown shape or an opaque function is not an empty one.
    assert ir.TensorSInfo(None).shape is None and ir.FuncSInfo(None, ir.ObjectSInfo()).params is None


VALUE_NODES = [c for c in NODE_CLASSES if issubclass(c, ir.nodes.ValueNode)]
IDENTITY_NODES = [c for c in NODE_CLASSES if not issubclass(c, ir.nodes.ValueNode)]


def test_every_node_class_is_sorted_into_value_or_identity():
    assert len(VALUE_NODES) >= 14 and len(IDENTITY_NODES) >= 14
    # Compared by value means frozen: a value node that changed would move in every set and
    # map holding it.
    assert [c.__name__ for c in VALUE_NODES if not issubclass(c, ir.nodes.FrozenNode)] == []


def sample_instance(cls):
    args = []
    defaults = {f.name for f in dataclasses.fields(cls) if f.default is not dataclasses.MISSING}
    for name in ir.field_names(cls):
        if name in defaults:
            break
        args.append(() if name in {"fields", "args", "params", "blocks", "bindings",
                                   "functions"} else ir.IntImm(0) if name != "name" else "n")
    return cls(*args)


# Identity nodes left assignable, each for a reason given in ir/nodes.py's docstring: the
# builder completes the first six after making them; the last four are made for nearly every
# binding, and freezing costs each construction an object.__setattr__ per field.
ASSIGNABLE = {"Var", "Constant", "VarBinding", "SeqExpr", "Function", "Module",
              "Call", "PrimValue", "ShapeExpr", "DataTypeImm"}
FROZEN_NODES = [c for c in NODE_CLASSES if issubclass(c, ir.nodes.FrozenNode)]


def test_only_the_listed_nodes_are_assignable():
    assert {c.__name__ for c in NODE_CLASSES
            if not issubclass(c, ir.nodes.FrozenNode)} == ASSIGNABLE


@pytest.mark.parametrize("cls", FROZEN_NODES, ids=lambda c: c.__name__)
def test_frozen_nodes_refuse_assignment(cls):
    node = sample_instance(cls)
    for name in ir.field_names(cls):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(node, name, getattr(node, name))


@pytest.mark.parametrize("cls", VALUE_NODES, ids=lambda c: c.__name__)
def test_value_nodes_hash_by_value(cls):
    # Equal by value, so equal hashes: usable as keys that mean "this value", never "this
    # node".
    assert hash(sample_instance(cls)) == hash(sample_instance(cls))
    assert sample_instance(cls) == sample_instance(cls)


@pytest.mark.parametrize("cls", IDENTITY_NODES, ids=lambda c: c.__name__)
def test_identity_nodes_hash_by_identity(cls):
    a, b = sample_instance(cls), sample_instance(cls)
    assert a != b and len({a: 1, b: 2}) == 2 and {a: 1}[a] == 1


def test_containers_refuse_item_assignment():
    call = ir.Call(ir.Op("relax.add"), [ir.Var("x")])
    with pytest.raises(TypeError):
        call.args[0] = ir.Var("y")
    with pytest.raises(AttributeError):
        call.args.append(ir.Var("y"))


@pytest.mark.parametrize("cls", NODE_CLASSES, ids=lambda c: c.__name__)
def test_constructors_take_the_fields_in_order(cls):
    # Each node class writes its own __init__ (the tuple conversions): it takes the dataclass
    # fields, in order, with their defaults, so that ir.replace (dataclasses.replace) and
    # keyword construction work field by field.
    import inspect

    fields = [(f.name, inspect.Parameter.empty if f.default is dataclasses.MISSING
               else f.default) for f in dataclasses.fields(cls)]
    params = [(p.name, p.default) for p in inspect.signature(cls).parameters.values()]
    assert params == fields
    assert ir.field_names(cls) == tuple(name for name, _ in fields)
    a, b = sample_instance(cls), sample_instance(cls)
    # ir.replace: a new node through the written __init__, the fields not named kept.
    for name in ir.field_names(cls):
        again = ir.replace(a, **{name: getattr(b, name)})
        assert type(again) is cls and again is not a
        assert [getattr(again, n) is getattr(b if n == name else a, n)
                for n in ir.field_names(cls)] == [True] * len(ir.field_names(cls))
    # Copied and pickled (a frozen one through the dataclass's __setstate__).
    import copy
    import pickle

    for make in (copy.copy, lambda n: pickle.loads(pickle.dumps(n))):
        again = make(a)
        assert type(again) is cls and repr(again) == repr(a)
        assert [getattr(again, name) == getattr(a, name)
                for name in ir.field_names(cls)] == [True] * len(ir.field_names(cls))
