"""Controls built from the rewrite: modules that compute what the original computes, which
verify must find equal. Here the rewrite with two independent launches swapped; the other
controls are whole rewrites (suite.controls_of)."""

from __future__ import annotations

from cudagraph_cli import ir

from .builder import Builder, Control, NotBuildable
from .edits import edit_bindings, reparsed
from .trace import at_position, top_bindings


def reorder_control(builder: Builder, position) -> Control:
    """Two launches of one body with nothing between them and no data or storage in
    common (disjoint regions; neither reads what the other writes; no object), swapped;
    the trace confirms every launch reads what it read."""
    ev = builder.trace.events
    cands = []
    for a, b in zip(ev, ev[1:]):
        if (a.function, a.launch) != (b.function, b.launch) or a.objects or b.objects or \
                a.unknown or b.unknown:
            continue
        if not isinstance(builder.rewritten.function(a.kernel), ir.PrimFunc) or \
                not isinstance(builder.rewritten.function(b.kernel), ir.PrimFunc):
            continue
        if builder.independent(a, [b]):
            cands.append((a, b))
    for a, b in at_position(builder.trace, cands, position):
        body = top_bindings(builder.rewritten.function(a.function))
        m = builder.edit_body(builder.rewritten, a, lambda g: edit_bindings(
            g, {a.binding: [], b.binding: [body[b.binding], body[a.binding]]}))
        order = list(range(len(ev)))
        order[a.index], order[b.index] = b.index, a.index
        if builder.proved(m, order) is None:
            return Control(builder.model, builder.function,
                           f"reorder-independent.{position}",
                           f"{builder.where(a)} moved after {builder.where(b)}: disjoint "
                           "regions, no read of the other's writes",
                           reparsed(m, f"{builder.model}.control.relax"))
    raise NotBuildable("no two adjacent independent launches in one body")
