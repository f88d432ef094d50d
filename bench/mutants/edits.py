"""Edits of a module: what the mutant and control builders change, each a new module
(the IR is immutable), and `reparsed`, which prints and reads one back as verify would."""

from __future__ import annotations

from cudagraph_cli import api, ir

from .trace import top_bindings


def reparsed(module: ir.Module, name: str) -> ir.Module:
    """The module as text, read back: what verify gets from a file (parse + well-formed)."""
    return api.loads(api.print_module(module), name=name)


def with_function(module: ir.Module, f: ir.Function, *, after: str | None = None):
    """`module` with `f` in place of its namesake, or added after the function `after`."""
    fs = list(module.functions)
    names = [g.name for g in fs]
    if f.name in names:
        fs[names.index(f.name)] = f
    else:
        fs.insert(names.index(after) if after in names else len(fs), f)
    return ir.replace(module, functions=tuple(fs))


def edit_bindings(f: ir.Function, edits: dict) -> ir.Function:
    """f with its top-level binding at position p replaced by the list edits[p]."""
    blocks, pos = [], 0
    for block in f.blocks:
        new = []
        for b in block.bindings:
            new.extend(edits.get(pos, [b]))
            pos += 1
        blocks.append(ir.replace(block, bindings=tuple(new)))
    return ir.replace(f, blocks=tuple(blocks))


def replace_args(call: ir.Call, args) -> ir.Call:
    return ir.replace(call, args=tuple(args))


def graph_call_parts(b) -> tuple | None:
    """(capture function, args tuple expr, index expr, rest) of a run_or_capture binding
    (ir.GraphLaunch reads the layout), or None."""
    view = ir.GraphLaunch.of(b.value)
    return view.items if view is not None else None


def retarget(module: ir.Module, fname: str, pos: int, capture: ir.Function,
             extra_args=()) -> ir.Module:
    """The launch at (fname, pos) calls `capture` (added to the module) with `extra_args`
    appended to its arguments."""
    f = module.function(fname)
    b = top_bindings(f)[pos]
    v = b.value
    fields = ir.GraphLaunch.of(v).items
    inner = ir.Tuple(tuple(fields[1].fields) + tuple(extra_args))
    new_fields = (ir.GlobalVarRef(capture.name), inner) + tuple(fields[2:])
    call = replace_args(v, (v.args[0], ir.Tuple(new_fields)))
    f = edit_bindings(f, {pos: [ir.replace(b, value=call)]})
    module = with_function(module, capture, after=fields[0].name)
    return with_function(module, f)


def clone_capture(module: ir.Module, name: str, body_edit, new_params=()) -> ir.Function:
    """A copy of the capture function `name`, `NAME_mutant`, with `body_edit(f)` applied and
    `new_params` appended to its parameters."""
    f = module.function(name)
    g = body_edit(f)
    return ir.replace(g, name=f"{name}_mutant", params=tuple(f.params) + tuple(new_params))


def substitute(b, mapping):
    """The binding b with the vars of `mapping` replaced in its value (at any depth)."""
    def sub(e):
        t = type(e)
        if t is ir.Var:
            return mapping.get(e, e)
        if t is ir.Call:
            return ir.replace(e, args=tuple(sub(a) for a in e.args))
        if t is ir.Tuple:
            return ir.replace(e, fields=tuple(sub(x) for x in e.fields))
        if t is ir.TupleGetItem:
            return ir.replace(e, tuple_value=sub(e.tuple_value))
        return e
    return ir.VarBinding(ir.Var(b.var.name, b.var.sinfo), sub(b.value))


def prepend(g: ir.Function, binding) -> ir.Function:
    """g with `binding` first in its body."""
    first = g.blocks[0]
    blocks = (ir.replace(first, bindings=(binding,) + tuple(first.bindings)),) + \
        tuple(g.blocks[1:])
    return ir.replace(g, blocks=blocks)


def append(g: ir.Function, binding) -> ir.Function:
    """g with `binding` last in its body, before the returned tuple's binding."""
    last = g.blocks[-1]
    bs = list(last.bindings)
    bs.insert(len(bs) - 1, binding)
    return ir.replace(g, blocks=tuple(g.blocks[:-1]) + (ir.replace(last, bindings=bs),))
