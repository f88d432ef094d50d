"""Step 4 of the rewrite: merge the static storages of all functions into one allocation plan. Plans only.

TVM's MergeAllocationPlans: per storage scope (in sorted order), each function's storages are
sorted by size (descending, ties in source order); the i-th storages of all functions share
slot i, allocated by the largest of them (the first, among equals). One `cuda_graph_alloc`
function then allocates every slot.

TVM assumes that no two functions run at the same time. A function that calls another
(directly or through others) is running while its callee runs, and the callee's graph would
overwrite the caller's live tensors. So cgraph first splits the functions into groups of
functions never live at once (greedy colouring of the call graph, in module order) and merges
within each group only; with no calls between functions there is one group and the result is
TVM's.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import ir
from ..diagnostics import SourceError
from .region_planner import RegionPlan


@dataclass
class MergedAlloc:
    bindings: list  # the alloc_storage bindings that allocate each slot, in slot order
    slot: dict  # (plan index, storage var) -> slot index
    groups: list  # lists of function names merged together
    sizes: list  # bytes-or-elements requested per slot (the storage's size argument)
    scopes: list  # storage scope per slot


def call_graph(module: ir.Module) -> dict[str, set[str]]:
    """Relax function -> the Relax functions it references (calls or passes on)."""
    relax = {f.name for f in module.relax_functions()}
    graph: dict[str, set[str]] = {}
    for f in module.relax_functions():
        refs: set[str] = set()
        for block in f.blocks:
            for b in block.bindings:
                _refs(b.value, refs)
        _refs(f.body, refs)
        graph[f.name] = refs & relax
    return graph


def _refs(e, out: set):
    """Add the names of the functions that `e` references to `out`: the GlobalVarRefs among
    the expressions `ir.walk(e)` yields, gathered without its generator and its ordering
    (a set does not need them; this runs over every binding of the module)."""
    stack = [e]
    pop, push, push_all = stack.pop, stack.append, stack.extend
    while stack:
        x = pop()
        t = type(x)
        if t is ir.Call:
            push(x.op)
            push_all(x.args)
            if x.attrs:
                push_all(v for _, v in x.attrs)
        elif t is ir.GlobalVarRef:
            out.add(x.name)
        elif t is ir.Tuple:
            push_all(x.fields)
        elif t is ir.TupleGetItem:
            push(x.tuple_value)


def live_together(graph: dict[str, set[str]]) -> set[frozenset]:
    """Pairs of functions that can be running at once: one reaches the other."""
    pairs: set[frozenset] = set()
    for start in graph:
        seen: set[str] = set()
        stack = list(graph[start])
        while stack:
            g = stack.pop()
            if g in seen:
                continue
            seen.add(g)
            stack.extend(graph.get(g, ()))
        for g in seen:
            if g != start:
                pairs.add(frozenset((start, g)))
    return pairs


def group_functions(names: list[str], conflicts: set[frozenset]) -> list[list[str]]:
    """Greedy colouring in module order: functions in one group are never live together."""
    groups: list[list[str]] = []
    for n in names:
        for g in groups:
            if all(frozenset((n, m)) not in conflicts for m in g):
                g.append(n)
                break
        else:
            groups.append([n])
    return groups


def _storage_record(b) -> tuple[int, str]:
    call = b.value
    size = ir.storage_size(call)
    if size is None:
        raise SourceError("a statically planned storage must have a one-dimensional constant "
                          "size (R.shape([n]))", b.loc)
    dev = call.args[1]
    if not (isinstance(dev, ir.PrimValue) and isinstance(dev.value, ir.IntImm)) or \
            dev.value.value != 0:
        raise SourceError("CUDA graph storages must be on virtual device 0 (TVM's pass "
                          "assumes so)", b.loc)
    scope = call.args[2]
    if not isinstance(scope, ir.StringImm):
        raise SourceError("the storage scope must be a string", b.loc)
    return size, scope.value


def merge(alloc_plans: list[RegionPlan], module: ir.Module | None = None,
          separate_live_functions: bool = True) -> MergedAlloc:
    names = [p.function for p in alloc_plans]
    if separate_live_functions and module is not None:
        groups = group_functions(names, live_together(call_graph(module)))
    else:
        groups = [names]
    group_of = {n: gi for gi, g in enumerate(groups) for n in g}
    # scope -> group -> plan index -> [(size, binding)]
    records: dict[str, dict[int, dict[int, list]]] = {}
    for pid, plan in enumerate(alloc_plans):
        for b in plan.bindings:
            size, scope = _storage_record(b)
            per_group = records.setdefault(scope, {})
            per_group.setdefault(group_of[plan.function], {}).setdefault(pid, []).append(
                (size, b))
    bindings: list = []
    slot: dict = {}
    sizes: list = []
    scopes: list = []
    for scope in sorted(records):
        for gi in sorted(records[scope]):
            per_plan = records[scope][gi]
            for recs in per_plan.values():
                recs.sort(key=lambda r: -r[0])  # stable: equal sizes keep source order
            n = max(len(r) for r in per_plan.values())
            for i in range(n):
                to_merge = [(pid, recs[i]) for pid, recs in sorted(per_plan.items())
                            if i < len(recs)]
                largest = to_merge[0][1]
                for _, rec in to_merge:
                    if rec[0] > largest[0]:
                        largest = rec
                index = len(bindings)
                for pid, (_, b) in to_merge:
                    slot[(pid, b.var)] = index
                bindings.append(largest[1])
                sizes.append(largest[0])
                scopes.append(scope)
    return MergedAlloc(bindings, slot, groups, sizes, scopes)
