"""Reading a rewritten module: graph launches, allocation slots, storages left in place."""

from __future__ import annotations

from cudagraph_cli import ir


def calls_to(f: ir.Function, name: str) -> list:
    """Bindings of `R.call_builtin_with_ctx(name, ...)` in `f`."""
    found = []
    for block in f.blocks:
        for b in block.bindings:
            v = b.value
            if isinstance(v, ir.Call) and isinstance(v.op, ir.Op) and \
                    v.op.name == "relax.call_builtin_with_ctx" and \
                    isinstance(v.args[0], ir.ExternFunc) and v.args[0].name == name:
                found.append(b)
    return found


def slots(f: ir.Function) -> set[int]:
    """cuda_graph_alloc slots a rewritten function takes (`x = gv[i]` of get_cached_alloc)."""
    launches = {b.var for b in calls_to(f, ir.GET_CACHED_ALLOC)}
    return {b.value.index for blk in f.blocks for b in blk.bindings
            if isinstance(b.value, ir.TupleGetItem) and b.value.tuple_value in launches}


def storages_allocated(f: ir.Function) -> set[str]:
    """Names of the storages `f` still allocates itself."""
    return {b.var.name for blk in f.blocks for b in blk.bindings
            if isinstance(b.value, ir.Call) and isinstance(b.value.op, ir.Op)
            and b.value.op.name == "relax.memory.alloc_storage"}
