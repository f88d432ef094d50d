"""Storage mutants: a tensor placed onto a live one, two live storages in one slot of the
graphs' allocation, one storage given to a graph for two of its storage parameters."""

from __future__ import annotations

from cudagraph_cli import ir

from .builder import Builder, NotBuildable
from .edits import edit_bindings, graph_call_parts, replace_args, with_function
from .trace import (Tracer, at_position, const_int, layer_for, position_of, shape_nbytes,
                    top_bindings)


def alloc_binding(f: ir.Function, name: str):
    """The position and binding of `R.memory.alloc_tensor` bound to `name` in f."""
    for pos, b in enumerate(top_bindings(f)):
        if b.var.name == name and type(b.value) is ir.Call and \
                b.value.op == ir.Op("relax.memory.alloc_tensor"):
            return pos, b
    return None, None


def overlap_offset(builder: Builder, position):
    cands = [e for e in builder.kernel_events(False) if e.index in builder.useful and e.writes]
    for e in at_position(builder.trace, cands, position):
        f = builder.rewritten.function(e.function)
        pos_a, a = alloc_binding(f, e.writes[0].name)
        if a is None:
            continue
        need = e.writes[0].hi - e.writes[0].lo
        # Live tensors: allocated in the same body before, read after e.
        for pos_y, y in enumerate(top_bindings(f)[:pos_a]):
            if type(y.value) is not ir.Call or y.value.op != ir.Op(
                    "relax.memory.alloc_tensor"):
                continue
            if y.value.args[0] is a.value.args[0] and \
                    const_int(y.value.args[1]) == const_int(a.value.args[1]):
                continue  # A's own place
            size = shape_nbytes(y.value.args[2], y.value.args[3])
            if size is None or size < need:
                continue
            new = ir.replace(a, value=replace_args(
                a.value, (y.value.args[0], y.value.args[1]) + tuple(a.value.args[2:])))
            m = builder.edit_body(builder.rewritten, e,
                                  lambda g: edit_bindings(g, {pos_a: [new]}))
            found = builder.proved(m)
            if found is not None:
                return builder.finish(
                    "overlap-offset", position, e,
                    f"{a.var.name} (written by {builder.where(e)}) placed where "
                    f"{y.var.name} is ({y.value.args[0].name}, offset "
                    f"{const_int(y.value.args[1])})",
                    f"its bytes and a tensor live at the same time overlap "
                    f"({builder.describe(found)})", m)
            if builder.tries > 400:
                raise NotBuildable("gave up")
    raise NotBuildable("no live tensor of a body that an output of this layer fits on")


def storage_twice(builder: Builder, position):
    f = builder.rewritten.function(builder.function)
    env = builder.storage_vars()
    for e, pos in at_position(builder.trace, builder.graph_launches(), position):
        b = top_bindings(f)[pos]
        fields = graph_call_parts(b)
        args = list(fields[1].fields)
        stores = [(i, a) for i, a in enumerate(args) if a in env]
        for i, a in stores:
            for j, c in stores:
                if c is a or env[c].nbytes < env[a].nbytes:
                    continue
                args2 = list(args)
                args2[i] = c
                call = replace_args(b.value, (b.value.args[0], ir.Tuple(
                    (fields[0], ir.Tuple(args2)) + tuple(fields[2:]))))
                m = with_function(builder.rewritten, edit_bindings(
                    f, {pos: [ir.replace(b, value=call)]}))
                found = builder.proved(m)
                if found is not None:
                    return builder.finish(
                        "storage-twice", position, e,
                        f"graph {e.launch[2]} ({e.function}) given {c.name} for "
                        f"{a.name}", f"two of its storages are one "
                        f"({builder.describe(found)})", m)
    raise NotBuildable("no graph launch with two storages that can be one")


def overlap_slot(builder: Builder, position):
    """Two storages of the allocation function made one: `storageX = gv[k]` reads another
    slot that is as large. Wrong wherever the two hold live tensors at once: the position
    is where the first launch reads other bytes."""
    f = builder.rewritten.function(builder.function)
    env = builder.storage_vars()
    made = []
    for pos, b in enumerate(top_bindings(f)):
        if b.var not in env or type(b.value) is not ir.TupleGetItem:
            continue
        for k in range(8):
            if k == b.value.index:
                continue
            alt = slot_size(builder, b.value.tuple_value, k, env)
            if alt is None or alt < env[b.var].nbytes:
                continue
            new = ir.replace(b, value=ir.TupleGetItem(b.value.tuple_value, k))
            m = with_function(builder.rewritten, edit_bindings(f, {pos: [new]}))
            found = builder.proved(m)
            if found is None:
                continue
            layer = None if found == "outputs" else found.layer
            _, layers = layer_for(builder.trace, "early")
            if position_of(layer, layers) == position or (
                    not layers and position == "early"):
                return builder.finish("overlap-slot", position, layer,
                                      f"{b.var.name} = {b.value.tuple_value.name}[{k}] "
                                      f"(was [{b.value.index}])",
                                      f"two live storages in one slot "
                                      f"({builder.describe(found)})", m)
            made.append(layer)
    raise NotBuildable(f"a slot shared shows first at layers {sorted(set(map(str, made)))}")


def slot_size(builder: Builder, tuple_var, k, env):
    """The bytes of slot `k` of the graphs' allocation `tuple_var` (None: no such slot)."""
    for v, st in env.items():
        if st.base[0] == "slot" and st.base[2] == k:
            return st.nbytes
    alloc = next((b for b in top_bindings(builder.rewritten.function(builder.function))
                  if b.var is tuple_var), None)
    if alloc is None or ir.builtin_called(alloc.value) != ir.GET_CACHED_ALLOC:
        return None
    fn = builder.rewritten.function(alloc.value.args[1].fields[0].name)
    sizes = [Tracer(builder.rewritten).storage_bytes(ab.value) for ab in top_bindings(fn)
             if type(ab.value) is ir.Call and ab.value.op == ir.Op(
                 "relax.memory.alloc_storage")]
    return sizes[k] if k < len(sizes) else None
