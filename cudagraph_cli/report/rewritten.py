"""Reading a rewritten module, for the facts (analysis.py), the rewrite-of check
(rewrite_of.py) and the graph cost (graph_cost.py): the CUDA-graph builtin calls and the
functions they name, kernel launches counted on the graph path, the storages allocated, and a
binding's signature for matching an original binding with its lifted copy."""

from __future__ import annotations

from .. import ir
from ..passes.guards import graph_path
from ..passes.region_planner import launch_kind

# The readers of builtin calls and aliases live in ir (exec's shape facts read them too).
builtin_call, builtin_target, resolve = ir.builtin_call, ir.builtin_target, ir.resolve


def is_graph_builtin(b) -> bool:
    """Is binding `b` a fetch of the shared allocation or a graph launch?"""
    return builtin_call(b.value, ir.GET_CACHED_ALLOC) or builtin_call(b.value, ir.RUN_OR_CAPTURE)


def count_kernels(f: ir.Function, module: ir.Module, prims: set) -> int:
    """The kernel launches of one call of `f` outside graphs. A launch guarded by
    --capture-symbolic VAR:MAX counts on its graph path (guards.py)."""
    n = 0
    for b in graph_path(f.blocks):
        if isinstance(b.value, ir.Call) and launch_kind(b.value, module, prims) == "kernel":
            n += 1
    return n


def allocated_storage(b) -> tuple[int, str] | None:
    """(bytes, scope) of the storage binding `b` allocates (`R.memory.alloc_storage` of a
    constant size and a named scope), else None."""
    v = b.value
    if isinstance(v, ir.Call) and isinstance(v.op, ir.Op) and \
            v.op.name == "relax.memory.alloc_storage" and len(v.args) >= 3:
        size, scope = ir.storage_size(v), v.args[2]
        if size is not None and isinstance(scope, ir.StringImm):
            return size, scope.value
    return None


def signature(e, strict: bool):
    """A value's signature for matching original and lifted bindings: its callees and the
    shape of its arguments; `strict`, the names of the variables it reads too."""
    t = type(e)
    if t is ir.Var:
        return ("v", e.name) if strict else ("v",)
    if t is ir.Call:
        return ("c", ir.callee_name(e)) + tuple(signature(a, strict) for a in e.args)
    if t is ir.Tuple:
        return ("t",) + tuple(signature(a, strict) for a in e.fields)
    if t is ir.TupleGetItem:
        return ("g", e.index, signature(e.tuple_value, strict))
    return (t.__name__,)
