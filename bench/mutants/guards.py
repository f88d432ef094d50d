"""Guard mutants, built on a rewrite with --capture-symbolic VAR:MAX: a guard's bound test
inverted, and a graph keyed by VAR launched without its key."""

from __future__ import annotations

from cudagraph_cli import ir

from .builder import Builder, NotBuildable
from .edits import edit_bindings, graph_call_parts, replace_args, with_function
from .trace import at_position, top_bindings


def guarded(builder: Builder, position):
    """(first launch inside, binding position, binding) of a guarded graph at `position`."""
    f = builder.rewritten.function(builder.function)
    bs = top_bindings(f)
    for e, pos in at_position(builder.trace, builder.graph_launches(), position):
        if type(bs[pos].value) is ir.If:
            return e, pos, bs[pos]
    raise NotBuildable("no guarded graph (a rewrite without --capture-symbolic VAR:MAX)")


def guard_inverted(builder: Builder, position):
    e, pos, b = guarded(builder, position)
    f = builder.rewritten.function(builder.function)
    bs = top_bindings(f)
    cond = b.value.cond
    p, cb = next((p, x) for p, x in enumerate(bs) if x.var is cond)
    test = cb.value.value
    flipped = {"<=": ">", "<": ">=", ">=": "<", ">": "<="}
    if test.op == "and":
        new_test = ir.PrimBinOp(flipped[test.lhs.op], test.lhs.lhs, test.lhs.rhs)
        new_test = ir.PrimBinOp("and", new_test, test.rhs)
    else:
        new_test = ir.PrimBinOp(flipped[test.op], test.lhs, test.rhs)
    new = ir.replace(cb, value=ir.replace(cb.value, value=new_test))
    m = with_function(builder.rewritten, edit_bindings(f, {p: [new]}))
    return builder.finish("guard-inverted", position, e,
                          f"the guard of graph {e.launch[2]} tests the opposite",
                          "the graph runs above its bound, with the shapes of its capture", m)


def graph_unkeyed(builder: Builder, position):
    try:
        e, pos, b = guarded(builder, position)
    except NotBuildable:
        return unkeyed_unbounded(builder, position)
    f = builder.rewritten.function(builder.function)
    branch = b.value.true_branch
    blocks = []
    for block in branch.blocks:
        new = []
        for x in block.bindings:
            fields = graph_call_parts(x) if type(x.value) is ir.Call else None
            if fields is not None and len(fields) == 4:
                call = replace_args(x.value, (x.value.args[0], ir.Tuple(fields[:3])))
                x = ir.replace(x, value=call)
            new.append(x)
        blocks.append(ir.replace(block, bindings=tuple(new)))
    value = ir.replace(b.value, true_branch=ir.replace(branch, blocks=tuple(blocks)))
    m = with_function(builder.rewritten,
                      edit_bindings(f, {pos: [ir.replace(b, value=value)]}))
    return builder.finish("graph-unkeyed", position, e,
                          f"graph {e.launch[2]} launched without its shape key",
                          "the graph captured at one value of the variable replays at "
                          "another", m)


def unkeyed_unbounded(builder: Builder, position):
    """A graph keyed by a variable (run_or_capture's fourth argument: TVM's
    capture_symbolic_vars, or --capture-symbolic VAR) launched without the key."""
    f = builder.rewritten.function(builder.function)
    bs = top_bindings(f)
    for e, pos in at_position(builder.trace, builder.graph_launches(), position):
        x = bs[pos]
        fields = graph_call_parts(x) if type(x.value) is ir.Call else None
        if fields is None or len(fields) != 4:
            continue
        call = replace_args(x.value, (x.value.args[0], ir.Tuple(fields[:3])))
        m = with_function(builder.rewritten,
                          edit_bindings(f, {pos: [ir.replace(x, value=call)]}))
        return builder.finish("graph-unkeyed", position, e,
                              f"graph {e.launch[2]} launched without its shape key",
                              "the graph captured at one value of the variable replays at "
                              "another", m)
    raise NotBuildable("no graph keyed by a symbolic variable")
