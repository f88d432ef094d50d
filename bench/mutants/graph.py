"""Graph-level mutants: wrong because of what a replay does (it reads the addresses and the
host state of its capture). A launch of a per-call input or of an object moved into a graph, a
graph's output taken at another index, a returned value in the graphs' own storage."""

from __future__ import annotations

from cudagraph_cli import ir

from .builder import Builder, NotBuildable
from .edits import (append, clone_capture, edit_bindings, graph_call_parts, prepend, retarget,
                    substitute, with_function)
from .trace import Event, at_position, top_bindings


def move_into_graph(builder: Builder, e: Event):
    """e (an eager launch of the function) moved into the graph launched right after it
    (first in it) or right before it (last in it): a module, and the graph index."""
    f = builder.rewritten.function(builder.function)
    bs = top_bindings(f)
    b = bs[e.binding]
    if builder.used(b.var):
        return None  # its result (a new cache object) is read eagerly: it stays there
    ev = builder.trace.events
    after = next((x for x in ev[e.index + 1:] if x.launch is not None
                  and x.launch[0] == builder.function), None)
    before = next((x for x in reversed(ev[:e.index]) if x.launch is not None
                   and x.launch[0] == builder.function), None)
    args = [a for a in dict.fromkeys(x for x in ir.walk(b.value) if type(x) is ir.Var)]
    if after is not None and builder.independent(e, ev[e.index + 1:after.index]) and \
            type(bs[after.launch[1]].value) is ir.Call:
        params = [ir.Var(f"{a.name}_frozen", a.sinfo) for a in args]
        inner = substitute(b, dict(zip(args, params)))
        capture = builder.rewritten.function(graph_call_parts(bs[after.launch[1]])[0].name)
        clone = clone_capture(builder.rewritten, capture.name,
                              lambda g: prepend(g, inner), params)
        m = retarget(builder.rewritten, builder.function, after.launch[1], clone, args)
        m = with_function(m, edit_bindings(m.function(builder.function), {e.binding: []}))
        return m, after.launch[2]
    if before is None or not builder.independent(e, [
            x for x in ev[before.index + 1:e.index] if x.launch != before.launch]):
        return None
    pos_g = before.launch[1]
    g_binding = bs[pos_g]
    if type(g_binding.value) is not ir.Call:
        return None
    capture = builder.rewritten.function(graph_call_parts(g_binding)[0].name)
    ret = next(x for x in top_bindings(capture) if x.var is capture.body)
    defined_before = set(builder.scope(builder.function, pos_g))
    mapping, params, extra = {}, [], []
    for a in args:
        src = next((x for x in bs if x.var is a), None)
        if a in defined_before:
            p = ir.Var(f"{a.name}_frozen", a.sinfo)
            mapping[a] = p
            params.append(p)
            extra.append(a)
        elif src is not None and type(src.value) is ir.TupleGetItem and \
                src.value.tuple_value is g_binding.var:
            mapping[a] = ret.value.fields[src.value.index]
        else:
            return None
    inner = substitute(b, mapping)
    clone = clone_capture(builder.rewritten, capture.name, lambda g: append(g, inner),
                          params)
    m = retarget(builder.rewritten, builder.function, pos_g, clone, extra)
    m = with_function(m, edit_bindings(m.function(builder.function), {e.binding: []}))
    return m, before.launch[2]


def frozen_input(builder: Builder, position):
    cands = [e for e in builder.trace.events if e.launch is None and not e.objects and
             e.function == builder.function and any(r.base in builder.trace.per_call
                                                    for r in e.reads)]
    return frozen(builder, "frozen-input", position, cands,
                  lambda e: f"it reads the call's input "
                  f"{next(r.name for r in e.reads if r.base in builder.trace.per_call)}"
                  ", which each call passes at a new address; a replay reads the "
                  "buffer of the capture's call")


def frozen_object(builder: Builder, position):
    cands = [e for e in builder.trace.events if e.launch is None and e.objects and
             e.function == builder.function]
    return frozen(builder, "frozen-object", position, cands,
                  lambda e: f"{e.kernel} is given an object (the KV cache) and runs "
                  "host logic per call; a replay runs none of it and keeps the "
                  "object of the capture")


def frozen(builder: Builder, kind, position, cands, why):
    """The first of `cands` at `position` that moves into a graph: a mutant of `kind`."""
    for e in at_position(builder.trace, cands, position):
        made = move_into_graph(builder, e)
        if made is None:
            continue
        m, index = made
        return builder.finish(kind, position, e,
                              f"{builder.where(e)} moved into graph {index}", why(e), m)
    raise NotBuildable("no eager launch of that kind next to a graph" if cands else
                       "no eager launch of that kind")


def output_index(builder: Builder, position):
    f = builder.rewritten.function(builder.function)
    bs = top_bindings(f)
    for e, pos in at_position(builder.trace, builder.graph_launches(), position):
        g = bs[pos]
        if type(g.value) is not ir.Call or not g.value.sinfo_args:
            continue
        fields = g.value.sinfo_args[0].fields
        for p, b in enumerate(bs):
            if type(b.value) is not ir.TupleGetItem or b.value.tuple_value is not g.var:
                continue
            i = b.value.index
            others = sorted((j for j in range(len(fields)) if j != i and
                             fields[j] == fields[i]), key=lambda j: abs(j - i))
            for j in others:
                new = ir.replace(b, value=ir.TupleGetItem(g.var, j))
                m = with_function(builder.rewritten, edit_bindings(f, {p: [new]}))
                found = builder.proved(m)
                if found is not None:
                    return builder.finish("output-index", position, e,
                                          f"{b.var.name} = {g.var.name}[{j}] (was [{i}]) "
                                          f"after graph {e.launch[2]}",
                                          f"another output of the graph "
                                          f"({builder.describe(found)})", m)
    raise NotBuildable("no graph at this position has two outputs of one type")


def graph_owned_return(builder: Builder, position):
    if position != "late":
        raise NotBuildable("returned values are made after the last layer")
    f = builder.rewritten.function(builder.function)
    bs = top_bindings(f)
    stores = builder.storage_vars()
    for out in builder.trace.outputs:
        if out.base[0] != "fresh":
            continue
        pos, b = next(((p, x) for p, x in enumerate(bs) if x.var.name == out.name),
                      (None, None))
        if b is None or type(b.value) is not ir.Call or \
                b.value.op != ir.Op("relax.builtin.alloc_tensor"):
            continue
        producer = next((e for e in reversed(builder.trace.events)
                         if any(w.base == out.base for w in e.writes)), None)
        if producer is None or producer.index not in builder.tainted:
            continue
        scope = set(builder.scope(builder.function, pos))
        for s, st in stores.items():
            if s not in scope or st.nbytes < out.hi - out.lo or st.base[0] != "slot":
                continue
            value = ir.Call(ir.Op("relax.memory.alloc_tensor"),
                            (s, ir.PrimValue(ir.IntImm(0)), b.value.args[0],
                             b.value.args[1], ir.PrimValue(ir.IntImm(0))))
            m = with_function(builder.rewritten, edit_bindings(
                f, {pos: [ir.replace(b, value=value)]}))
            if builder.proved(m) is not None:
                continue  # it would also overwrite a live tensor: another class
            return builder.finish("graph-owned-return", position, producer,
                                  f"{b.var.name} (returned) allocated in {s.name}, slot "
                                  f"{st.base[2]} of the graphs' storages",
                                  f"the next call's {producer.kernel} overwrites the value "
                                  "returned before", m)
    raise NotBuildable("no returned tensor of fresh data allocated per call")
