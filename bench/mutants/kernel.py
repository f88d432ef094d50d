"""Kernel-level mutants: a launch dropped, a producer moved after its reader, a launch given
another tensor. Each is proved wrong by its trace (first_divergent_launch)."""

from __future__ import annotations

from cudagraph_cli import ir
from cudagraph_cli.exec.kernels import prim_func_spec

from .builder import Builder, NotBuildable
from .edits import edit_bindings, replace_args
from .trace import at_position, top_bindings


def drop(builder: Builder, position):
    cands = [e for e in builder.kernel_events(False) if e.index in builder.tainted
             and e.index in builder.useful and builder.readers_of(e) and not e.objects]
    for e in at_position(builder.trace, cands, position):
        if builder.used_in(e.function, builder.binding(builder.rewritten, e.function,
                                                       e.binding).var):
            continue  # the launch's result is a var read later: dropping it breaks
        m = builder.edit_body(builder.rewritten, e,
                              lambda f: edit_bindings(f, {e.binding: []}))
        order = [i for i in range(len(builder.trace.events)) if i != e.index]
        found = builder.proved(m, order)
        if found is not None:
            return builder.finish("drop", position, e, f"{builder.where(e)} dropped",
                                  f"its readers now read what was there before "
                                  f"({builder.describe(found)})", m)
    raise NotBuildable("no launch of fresh data whose result is read")


def reorder(builder: Builder, position):
    cands = []
    for e in builder.kernel_events(False):
        if e.index not in builder.tainted or e.objects:
            continue
        for r in builder.readers_of(e):
            if (r.function, r.launch) == (e.function, e.launch) and r.index in builder.useful:
                cands.append((e, r))
                break
    for e, r in at_position(builder.trace, cands, position):
        f = builder.binding(builder.rewritten, e.function, e.binding)
        if f.var.name != "_" and not getattr(f, "bare", False):
            continue
        p_binding = top_bindings(builder.rewritten.function(e.function))[e.binding]
        r_binding = top_bindings(builder.rewritten.function(e.function))[r.binding]
        m = builder.edit_body(builder.rewritten, e, lambda g: edit_bindings(
            g, {e.binding: [], r.binding: [r_binding, p_binding]}))
        order = [i for i in range(len(builder.trace.events)) if i != e.index]
        order.insert(order.index(r.index) + 1, e.index)
        found = builder.proved(m, order)
        if found is not None:
            return builder.finish("reorder", position, e, f"{builder.where(e)} moved after "
                                  f"its reader {r.kernel}", f"{r.kernel} reads the bytes "
                                  f"before {e.kernel} writes them ({builder.describe(found)})",
                                  m)
    raise NotBuildable("no launch of fresh data read later in the same body")


def wrong_arg(builder: Builder, position):
    cands = [e for e in builder.kernel_events() if e.index in builder.useful and e.reads]
    for e in at_position(builder.trace, cands, position):
        b = builder.binding(builder.rewritten, e.function, e.binding)
        call = b.value
        spec = prim_func_spec(builder.rewritten.function(e.kernel))
        for i, a in enumerate(call.args):
            if type(a) is not ir.Var or not isinstance(a.sinfo, ir.TensorSInfo) or \
                    i in spec.outputs:
                continue
            own = {w.name for w in e.writes}
            for y in builder.scope(e.function, e.binding):
                if y is a or y.sinfo != a.sinfo or y.name == "_" or y.name in own:
                    continue
                args = list(call.args)
                args[i] = y
                new = ir.replace(b, value=replace_args(call, args))
                m = builder.edit_body(builder.rewritten, e,
                                      lambda f: edit_bindings(f, {e.binding: [new]}))
                found = builder.proved(m)
                if found is not None:
                    return builder.finish(
                        "wrong-arg", position, e,
                        f"{builder.where(e)} reads {y.name} for {a.name}",
                        f"another tensor of the same shape and dtype "
                        f"({builder.describe(found)})", m)
                if builder.tries > 400:
                    raise NotBuildable("gave up")
    raise NotBuildable("no argument with another tensor of its type in scope")
