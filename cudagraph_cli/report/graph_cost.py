"""What graphs keyed by symbolic values cost: `graph_cost`, a function's KeyedGraphs.

A graph launch keyed by `R.shape([VAR, ...])` (the trailing argument of run_or_capture)
captures one graph per distinct value of its keying variables; how many values each can take
comes from the guard of `--capture-symbolic VAR:MAX` around the launch (read by
passes/guards.py, the one reader of a guard) or from the function's tir_var_upper_bound.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import ir
from ..passes.guards import guard_terms, largest_values
from .rewritten import allocated_storage, builtin_call, builtin_target, resolve


@dataclass
class KeyedGraphs:
    """The graphs of one capture function whose launches are keyed by symbolic values (the
    trailing `R.shape([...])` of `run_or_capture`): TVM's runtime captures one graph per
    launch (entry index) and distinct key, so each launch makes as many graphs as the keying
    variables have values together. All of them replay into the same storages of the shared
    allocation, so `static_bytes` is held once, whatever the number of graphs."""

    capture: str  # the capture function
    launches: int  # its run_or_capture calls (each with its own entry index)
    # Per keying variable, in key order: (name, how many values it can take or None when
    # unbounded, where the bound comes from: "guard" | "tir_var_upper_bound" | None,
    # its least value: 0 in tir_non_negative_var, else 1)
    keys: tuple
    static_bytes: dict  # scope -> bytes of the shared storages its graphs are given

    @property
    def graphs_per_launch(self) -> int | None:
        n = 1
        for _, count, _, _ in self.keys:
            if count is None:
                return None
            n *= count
        return n

    @property
    def graphs(self) -> int | None:
        per = self.graphs_per_launch
        return None if per is None else per * self.launches



def graph_cost(rewritten: ir.Module, g: ir.Function) -> tuple[list, int]:
    """The graphs `g` (a function of a rewritten module) can capture, from its text alone:
    (a KeyedGraphs per capture function and bounds, how many graph launches have no key).

    A launch keyed by `R.shape([VAR, ...])` makes one graph per distinct value of its keying
    variables (TVM's runtime keys its cache by the entry index and the shape). A variable's
    values: at most MAX when the launch lies in the then-branch of an `if` on a var bound to
    `R.prim_value(VAR <= T.int64(MAX))` (the guard of `--capture-symbolic VAR:MAX`), at most
    its `tir_var_upper_bound` (the smaller of the two when both are given); else unbounded.
    Its least value is 1, or 0 when the function names it in `tir_non_negative_var` (the
    attribute that says a variable may be 0; a dimension is otherwise at least 1)."""
    bounds = g.upper_bounds()
    non_negative = set(_named_list(g.attr("tir_non_negative_var")))
    allocs = _alloc_sizes(rewritten, g)
    groups: dict[tuple, list] = {}  # (capture, keys) -> [launches, slots]
    unkeyed = 0
    defs: dict = {}  # ir.Var (eq=False, so by identity) -> the value bound to it

    def visit(blocks, guard: dict):
        nonlocal unkeyed
        for block in blocks:
            for b in block.bindings:
                v = b.value
                defs[b.var] = v
                if type(v) is ir.If:
                    inner = dict(guard)
                    for name, most in _guard_bounds(v.cond, defs).items():
                        inner[name] = min(most, inner.get(name, most))
                    visit(v.true_branch.blocks, inner)
                    visit(v.false_branch.blocks, guard)
                elif builtin_call(v, ir.RUN_OR_CAPTURE):
                    packed = resolve(v.args[1], defs)
                    fields = packed.fields if type(packed) is ir.Tuple else ()
                    key = resolve(fields[3], defs) if len(fields) > 3 else None
                    names = []
                    for x in (key.values if type(key) is ir.ShapeExpr else ()):
                        for s in ir.prim_vars(x, []):
                            if s.name not in names:
                                names.append(s.name)
                    if not names:
                        unkeyed += 1
                        continue
                    keys = tuple(_values(n, guard, bounds, non_negative) for n in names)
                    entry = groups.setdefault((builtin_target(v), keys), [0, set()])
                    entry[0] += 1
                    entry[1] |= _storages(fields[1], defs, rewritten, 0) if len(fields) > 1 \
                        else set()

    visit(g.blocks, {})
    keyed = []
    for (capture, keys), (launches, slots) in groups.items():
        held: dict[str, int] = {}
        for slot in slots:
            if slot in allocs:
                size, scope = allocs[slot]
                held[scope] = held.get(scope, 0) + size
        keyed.append(KeyedGraphs(capture, launches, keys, held))
    return keyed, unkeyed


def _values(name: str, guard: dict, bounds: dict, non_negative: set) -> tuple:
    """(name, how many values, where the bound comes from, least value) of a keying var."""
    least = 0 if name in non_negative else 1
    most, source = guard.get(name), "guard"
    if name in bounds and (most is None or bounds[name] < most):
        most, source = bounds[name], "tir_var_upper_bound"
    if most is None:
        return (name, None, None, least)
    return (name, max(most - least + 1, 0), source, least)


def _named_list(value) -> tuple:
    """A list attribute of names (`tir_non_negative_var`); () when absent."""
    if isinstance(value, tuple) and len(value) == 2 and value[0] == "list":
        return tuple(x for x in value[1] if isinstance(x, str))
    return ()


def _guard_bounds(cond, defs: dict) -> dict:
    """{VAR: MAX} that an `if`'s condition guarantees in its then-branch: the condition (a
    var, through aliases, bound to `R.prim_value(...)`) read as a guard by guards.py."""
    e = resolve(cond, defs)
    if type(e) is ir.PrimValue:
        e = e.value
    terms = guard_terms(e)
    return largest_values(terms) if terms is not None else {}


def _alloc_sizes(rewritten: ir.Module, g: ir.Function) -> dict:
    """(allocation function, slot) -> (bytes, scope) for the shared allocations `g` fetches."""
    sizes = {}
    for b in ir.nested_bindings(g.blocks):
        if not builtin_call(b.value, ir.GET_CACHED_ALLOC):
            continue
        name = builtin_target(b.value)
        alloc = rewritten.function(name)
        if not isinstance(alloc, ir.Function):
            continue
        inner = {x.var: x for x in ir.nested_bindings(alloc.blocks)}
        out = resolve(alloc.body, {v: x.value for v, x in inner.items()})
        for slot, storage in enumerate(out.fields if type(out) is ir.Tuple else ()):
            rec = allocated_storage(inner[storage]) \
                if type(storage) is ir.Var and storage in inner else None
            if rec:
                sizes[(name, slot)] = rec
    return sizes


def _storages(e, defs: dict, module: ir.Module, depth: int) -> set:
    """The shared storages, as (allocation function, slot), that the value `e` of the calling
    function is or lives in: a storage fetched from `get_cached_alloc`, a tensor allocated in
    one (`R.memory.alloc_tensor`) or a view of it (`R.reshape`), an output of an earlier graph
    that its capture function allocated in a storage it was given; tuples field by field."""
    if depth > 50:
        return set()
    e = resolve(e, defs)
    t = type(e)
    if t is ir.Tuple:
        return set().union(*(_storages(x, defs, module, depth + 1) for x in e.fields))
    if t is ir.TupleGetItem:
        source = resolve(e.tuple_value, defs)
        if builtin_call(source, ir.GET_CACHED_ALLOC):
            return {(builtin_target(source), e.index)}
        if builtin_call(source, ir.RUN_OR_CAPTURE):
            param = _output_param(module.function(builtin_target(source)), e.index)
            packed = resolve(source.args[1], defs)
            args = resolve(packed.fields[1], defs) \
                if type(packed) is ir.Tuple and len(packed.fields) > 1 else None
            if param is not None and type(args) is ir.Tuple and param < len(args.fields):
                return _storages(args.fields[param], defs, module, depth + 1)
        return set()
    if t is ir.Call and isinstance(e.op, ir.Op) and e.args and \
            e.op.name in ("relax.memory.alloc_tensor", "relax.reshape"):
        return _storages(e.args[0], defs, module, depth + 1)
    return set()


def _output_param(capture, index: int) -> int | None:
    """The parameter of a capture function whose storage holds its output `index` (the
    output allocated there by `R.memory.alloc_tensor`, or a view of such), or None."""
    if not isinstance(capture, ir.Function):
        return None
    defs = {b.var: b.value for b in ir.nested_bindings(capture.blocks)}
    out = resolve(capture.body, defs)
    if type(out) is not ir.Tuple or index >= len(out.fields):
        return None
    e = out.fields[index]
    for _ in range(50):
        e = resolve(e, defs)
        if type(e) is ir.Call and isinstance(e.op, ir.Op) and e.args and \
                e.op.name in ("relax.memory.alloc_tensor", "relax.reshape"):
            e = e.args[0]
            continue
        break
    return next((i for i, p in enumerate(capture.params) if p is e), None)
