"""Mutants of the two facts of issue 44 -- a graph's key, a storage's unit -- and their
controls, right at every value.

* key-halved: a graph keyed by VAR launched with the key `VAR // 2`: VAR = 2 and 3 share one
  key, and the graph captured at 2 replays at 3 with the shapes of 2;
* key-capped: keyed by `T.min(VAR, BOUND // 2)` (a clamped key, as a bucketing rewrite that
  caps the key but not the shapes makes): every value past BOUND // 2 replays the graph of
  BOUND // 2; no value a default run takes (1, 2, BOUND) shares a key with another;
* key-dropped: VAR removed from the key (`R.shape([])`): one graph for every value;
* slot-elements (a (Builder, position) builder): a slot of the graphs' allocation
  (cuda_graph_alloc) that holds one tensor of C elements wider than a byte at offset 0,
  sized C -- in elements, not in bytes, the classic allocation bug: the kernel writing the
  tensor runs past the slot's end.

Controls: key-shifted, every key `VAR` made `VAR + 1` (one-to-one: one graph per value, as
before); elements-both, the original and the rewrite with every storage sized in elements of
its dtype instead of bytes (as TVM's own test modules are): the same bytes, read as such.

Each key mutant's proof is a run at the two values it names (facts=False: by the run alone,
verify sees a graph captured at one replayed at the other); slot-elements' is a run at any
value (the tensor does not fit its slot in bytes).
"""

from __future__ import annotations

import gc
import math

from cudagraph_cli import api, ir
from cudagraph_cli.exec.backend import numpy_dtype

from .builder import Builder, Control, Mutant, NotBuildable
from .edits import replace_args, reparsed, with_function
from .shape import Slots, at_position, key_bindings, replace_binding, resized

KEY_CLASSES = ("key-halved", "key-capped", "key-dropped")


def keyed_by(f: ir.Function, var: str, key_of) -> ir.Function:
    """`f` with the key of every launch keyed by `var` made `key_of(launch's key)`."""
    for path, b, fields in list(key_bindings(f, var)):
        f = replace_binding(f, path, _rekeyed(b, fields, key_of))
    return f


def _rekeyed(b, fields, key_of):
    call = replace_args(b.value, (b.value.args[0],
                                  ir.Tuple(tuple(fields[:3]) + (key_of(fields[3]),))))
    return ir.replace(b, value=call)


def _with_var(key: ir.ShapeExpr, var: str, make) -> ir.ShapeExpr:
    return ir.ShapeExpr(tuple(make(d) if type(d) is ir.SymVar and d.name == var else d
                              for d in key.values))


def _int(v: int) -> ir.IntImm:
    return ir.IntImm(v, "int64")


# Each class: (the key made of key and var, in words, the two values that share a key).
def _halved(var, top):
    return (lambda key: _with_var(key, var, lambda d: ir.PrimBinOp("//", d, _int(2))),
            f"{var} // 2", (2, 3))


def _capped(var, top):
    cap = top // 2
    return (lambda key: _with_var(key, var, lambda d: ir.PrimCall("T.min", (d, _int(cap)))),
            f"T.min({var}, {cap})", (cap, cap + 1))


def _dropped(var, top):
    return (lambda key: ir.ShapeExpr(tuple(d for d in key.values
                                           if not (type(d) is ir.SymVar and d.name == var))),
            f"no {var}", (1, 2))


KEYS = {"key-halved": _halved, "key-capped": _capped, "key-dropped": _dropped}


def key_mutant(kind: str, model, original, rewritten, fname, var, top, position) -> Mutant:
    """The graph launch at `position` among those of `fname` keyed by `var`, rekeyed."""
    cands = list(key_bindings(rewritten.function(fname), var))
    if not cands:
        raise NotBuildable(f"no graph keyed by {var}")
    if top < 4:
        raise NotBuildable(f"{var}'s bound {top} leaves no two values to share a key")
    path, b, fields = at_position(cands, position)
    key_of, words, (v, w) = KEYS[kind](var, top)
    f = replace_binding(rewritten.function(fname), path, _rekeyed(b, fields, key_of))
    m = reparsed(with_function(rewritten, f), f"{model}.{kind}.{position}.relax")
    why = replay_proof(original, m, fname, var, v, w)
    if why is not None:
        raise NotBuildable(f"the graph at line {b.loc.line} keyed by {words}: {why}")
    return Mutant(model, fname, kind, position, None,
                  f"the graph launched at line {b.loc.line} keyed by {words}",
                  f"at {var} = {v} and {w} one key: the graph captured at {v} replays at {w}",
                  m, breaks_at={var: w})


def replay_proof(original, module, fname: str, var: str, v: int, w: int) -> str | None:
    """Why `module` is not wrong at `var` = v then w, by a run alone; None when it is."""
    try:
        got = api.verify(original, module, calls=2, functions=[fname],
                         shapes={var: [v, w]}, facts=False)
    except api.SourceError as e:
        return f"does not run: {e.message}"
    finally:
        gc.collect()
    return f"equal at {var} = {v}, {w}" if got.equal else None


def key_shifted(model: str, rewritten: ir.Module, fname: str, var: str) -> Control:
    """A control: every key `var` of `fname` made `var + 1`, one-to-one."""
    f = rewritten.function(fname)
    if not list(key_bindings(f, var)):
        raise NotBuildable(f"no graph keyed by {var}")
    g = keyed_by(f, var, lambda key: _with_var(key, var, lambda d: ir.PrimBinOp("+", d,
                                                                                 _int(1))))
    return Control(model, fname, "key-shifted", f"every key {var} made {var} + 1",
                   reparsed(with_function(rewritten, g), f"{model}.key-shifted.relax"))


# ---- the unit --------------------------------------------------------------------------------

def slot_elements(builder: Builder, position) -> Mutant:
    """A slot that holds a tensor of C wide elements at offset 0, sized C."""
    slots = Slots(builder.rewritten, builder.function)
    cands = []
    for slot in dict.fromkeys(slots.slot_of.values()):
        found = slots.storage(slot)
        for u in (u for u in slots.uses if slots.slot_of[u[2]] == slot):
            count = _elements(u) if found is not None else None
            if count is not None and count[0] * count[1] <= found[1]:
                cands.append((u[0], slot, count, found[1], u[1]))
                break
    cands.sort(key=lambda c: c[0])
    _, slot, (n, item, dtype), size, b = at_position(cands, position)
    m = reparsed(resized(slots, slot, n), f"{builder.model}.slot-elements.{position}.relax")
    try:
        got = api.verify(builder.original, m, calls=1, functions=[builder.function],
                         facts=False)
    finally:
        gc.collect()
    if got.equal:
        raise NotBuildable(f"slot {slot[1]} sized {n}: a run finds it equal")
    return Mutant(builder.model, builder.function, "slot-elements", position, None,
                  f"{slot[0]}'s slot {slot[1]} of {size} bytes, holding {b.var.name} ({n} "
                  f"{dtype}) at offset 0, sized {n}: in elements, not bytes",
                  f"{b.var.name} needs {n * item} bytes; the slot has {n}", m)


def _elements(use) -> tuple | None:
    """(C, itemsize, dtype) of a use of a slot (shape.Slots.uses) at offset 0 of a constant
    shape of a dtype wider than a byte, else None."""
    _, _, _, offset, shape, dtype = use
    if offset != 0 or type(shape) is not ir.ShapeExpr or type(dtype) is not ir.DataTypeImm or \
            any(type(d) is not ir.IntImm for d in shape.values):
        return None
    item = numpy_dtype(dtype.value).itemsize
    return (math.prod(d.value for d in shape.values), item, dtype.value) if item > 1 else None


def in_elements(module: ir.Module) -> ir.Module:
    """`module` with every `R.memory.alloc_storage(R.shape([N]), ..., dtype)` of a constant N
    that dtype's itemsize divides sized N / itemsize: the same bytes, in elements."""
    fs = []
    for f in module.functions:
        if isinstance(f, ir.Function):
            f = ir.replace(f, blocks=tuple(ir.replace(blk, bindings=tuple(
                _storage_in_elements(b) for b in blk.bindings)) for blk in f.blocks))
        fs.append(f)
    return ir.replace(module, functions=tuple(fs))


def _storage_in_elements(b):
    v = b.value
    if type(v) is not ir.Call or v.op != ir.Op("relax.memory.alloc_storage") or \
            ir.storage_size(v) is None or len(v.args) < 4 or \
            type(v.args[3]) is not ir.DataTypeImm:
        return b
    item = numpy_dtype(v.args[3].value).itemsize
    size = ir.storage_size(v)
    if size % item:
        return b
    return ir.replace(b, value=replace_args(v, (ir.ShapeExpr((_int(size // item),)),) +
                                            tuple(v.args[1:])))


def elements_both(model: str, original: ir.Module, rewritten: ir.Module) -> Control:
    """A control: both modules sized in elements (in_elements), each read so."""
    from cudagraph_cli.exec.handlers.memory import storages_sized_in_elements

    a, b = in_elements(original), in_elements(rewritten)
    if not storages_sized_in_elements(a):
        raise NotBuildable("no storage of the original holds exactly one tensor at offset 0: "
                           "in elements it would not read as such")
    return Control(model, None, "elements-both", "every storage of both modules sized in "
                   "elements of its dtype (N bytes of float16 written N / 2)",
                   reparsed(b, f"{model}.elements-both.relax"),
                   original=reparsed(a, f"{model}.elements-both.original.relax"))

