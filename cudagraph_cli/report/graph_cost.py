"""What graphs keyed by symbolic values cost: `graph_cost`, a function's KeyedGraphs.

A graph launch keyed by `R.shape([VAR, ...])` (the trailing argument of run_or_capture)
captures one graph per distinct value of its keying variables; how many values each can take
comes from the guard of `--capture-symbolic VAR:MAX` around the launch (read by
passes/guards.py, the one reader of a guard) or from the function's tir_var_upper_bound.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import ir
from ..proof.ranges import FunctionRanges, guard_bounds, named_list
from .bucket_facts import bucket_values, bucket_variables
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



def keying_variables(keyed: list) -> list:
    """The variables that key a function's graphs (graph_cost's KeyedGraphs), first seen first:
    (name, how many values it takes at most over its launches or None when some launch leaves
    it unbounded, where that bound comes from, its least value)."""
    out: dict[str, tuple] = {}
    for k in keyed:
        for name, count, source, least in k.keys:
            seen = out.get(name)
            if seen is None or (seen[1] is not None and (count is None or count > seen[1])):
                out[name] = (name, count, source, least)
    return list(out.values())


def graphs_with_bounds(keyed: list, unkeyed: int, bounds: dict) -> int | None:
    """How many graphs a function (graph_cost's result: its KeyedGraphs and unkeyed launches)
    makes at most if each VAR of `bounds` were also bounded by `--capture-symbolic VAR:MAX`:
    the option guards every launch keyed by VAR with `VAR <= MAX` (region_planner.py), so VAR
    takes at most MAX - least + 1 values in each (fewer where it took fewer already); None:
    unbounded still."""
    total = unkeyed
    for k in keyed:
        per = 1
        for name, count, _, least in k.keys:
            if name in bounds:
                capped = max(bounds[name] - least + 1, 0)
                count = capped if count is None else min(count, capped)
            if count is None:
                return None
            per *= count
        total += per * k.launches
    return total


@dataclass(frozen=True)
class BoundSuggestion:
    """The `--capture-symbolic VAR:MAX` options that bring a function's graphs to `threshold`
    or fewer (suggest_bounds)."""

    bounds: dict  # VAR -> MAX, in the order chosen; {}: no bound brings them under
    graphs: int | None  # graphs at most with them; None: no bound brings them under

    def option(self) -> str:
        return " ".join(f"--capture-symbolic {name}:{most}" for name, most in
                        self.bounds.items())


def suggest_bounds(keyed: list, unkeyed: int, threshold: int) -> BoundSuggestion | None:
    """The bounds that bring a function's graphs (graph_cost's result) to `threshold` or fewer,
    or None when they are within it already.

    The variables bounded: every unbounded keying variable (the count stays unbounded while one
    is); when that is not enough, or none is unbounded, the bounded ones too, one at a time,
    the one with the most values first (it multiplies the count most). All of them get the
    same MAX: the largest power of two that brings the count to `threshold` or fewer (a
    power of two: a model with one layer more keeps the same suggestion), never as much as a
    bound the variable has already (that would bound nothing). When even MAX 1 for every keying variable leaves more
    than `threshold` (more graph launches than `threshold`), `graphs` is None."""
    current = graphs_with_bounds(keyed, unkeyed, {})
    if current is not None and current <= threshold:
        return None
    # A bucket variable is not an input to bound (--capture-buckets: a shorter list is)
    keys = [k for k in keying_variables(keyed) if k[2] != "buckets"]
    unbounded = [k for k in keys if k[1] is None]
    bounded = sorted((k for k in keys if k[1] is not None), key=lambda k: -k[1])
    chosen = list(unbounded)
    rest = list(bounded)
    if not chosen and rest:
        chosen.append(rest.pop(0))
    while chosen:
        fit = None
        most = 1
        while most <= threshold + 1:
            trial = {name: most for name, count, _, least in chosen
                     if count is None or most < least + count - 1}
            n = graphs_with_bounds(keyed, unkeyed, trial)
            if n is None or n > threshold:
                break
            if trial:
                fit = (trial, n)
            most *= 2
        if fit is not None:
            return BoundSuggestion(fit[0], fit[1])
        if not rest:
            break
        chosen.append(rest.pop(0))
    return BoundSuggestion({}, None)


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
    buckets = bucket_variables(g)  # --capture-buckets: keyed by a bucket, one graph each
    allocs = _alloc_sizes(rewritten, g)
    groups: dict[tuple, list] = {}  # (capture, keys) -> [launches, slots]
    unkeyed = 0
    for v, launch, names, here, defs in graph_launches(g):
        if not names:
            unkeyed += 1
            continue
        keys = tuple(_values(n, here, buckets) for n in names)
        entry = groups.setdefault((builtin_target(v), keys), [0, set()])
        entry[0] += 1
        entry[1] |= _storages(launch.args, defs, rewritten, 0) \
            if launch.args is not None else set()
    keyed = []
    for (capture, keys), (launches, slots) in groups.items():
        held: dict[str, int] = {}
        for slot in slots:
            if slot in allocs:
                size, scope = allocs[slot]
                held[scope] = held.get(scope, 0) + size
        keyed.append(KeyedGraphs(capture, launches, keys, held))
    return keyed, unkeyed


def graph_launches(g: ir.Function) -> list:
    """Each graph launch (`run_or_capture`) of `g`, in order, as (its value, its GraphLaunch,
    the names of the variables keying it, the ranges where it runs: within the guards around
    it, the bindings defined before it: var -> value)."""
    out = []
    defs: dict = {}  # ir.Var (eq=False, so by identity) -> the value bound to it

    def visit(blocks, here: FunctionRanges):
        for block in blocks:
            for b in block.bindings:
                v = b.value
                defs[b.var] = v
                if type(v) is ir.If:
                    visit(v.true_branch.blocks, here.under(guard_bounds(v.cond, defs)))
                    visit(v.false_branch.blocks, here)
                elif builtin_call(v, ir.RUN_OR_CAPTURE):
                    launch = ir.GraphLaunch.of(v, defs) or ir.GraphLaunch(())
                    key = launch.shape
                    names: list = []
                    for x in (key.values if type(key) is ir.ShapeExpr else ()):
                        for s in ir.prim_vars(x, []):
                            if s.name not in names:
                                names.append(s.name)
                    out.append((v, launch, names, here, defs))

    visit(g.blocks, FunctionRanges(g))
    return out


def _values(name: str, ranges: FunctionRanges, buckets: dict) -> tuple:
    """(name, how many values, where the bound comes from, least value) of a keying var; a
    bucket variable takes one value per bucket of its variable's range here ("buckets")."""
    bv = buckets.get(name)
    if bv is not None:
        r = ranges.of(bv.var)
        if r.most is None:
            return (name, None, None, r.least)
        values = bucket_values(bv, r.least, r.most)
        return (name, len(values), "buckets", values[0])
    r = ranges.of(name)
    if r.most is None:
        return (name, None, None, r.least)
    return (name, max(r.most - r.least + 1, 0), r.source, r.least)


CAPTURE_HINT = "relax.rewrite_cuda_graph.capture_symbolic_vars"


def capture_hint_names(f: ir.Function) -> tuple:
    """The variables a function's capture hint attribute (MLC-LLM's) names, () without one."""
    return named_list(f.attr(CAPTURE_HINT))


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
    one (`R.memory.alloc_tensor`) or a view of it (in any spelling: ir.aliased), an output of
    an earlier graph that its capture function allocated in a storage it was given; tuples
    field by field."""
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
        launch = ir.GraphLaunch.of(source, defs)
        if launch is not None:
            param = _output_param(module.function(builtin_target(source)), e.index)
            args = launch.args
            if param is not None and type(args) is ir.Tuple and param < len(args.fields):
                return _storages(args.fields[param], defs, module, depth + 1)
        return set()
    if t is ir.Call and ir.aliased(e) is not None:
        return _storages(ir.aliased(e), defs, module, depth + 1)
    return set()


def _output_param(capture, index: int) -> int | None:
    """The parameter of a capture function whose storage holds its output `index` (the
    output allocated there by `R.memory.alloc_tensor`, or a view of such: ir.aliased), or
    None."""
    if not isinstance(capture, ir.Function):
        return None
    defs = {b.var: b.value for b in ir.nested_bindings(capture.blocks)}
    out = resolve(capture.body, defs)
    if type(out) is not ir.Tuple or index >= len(out.fields):
        return None
    e = out.fields[index]
    for _ in range(50):
        e = resolve(e, defs)
        if ir.aliased(e) is None:
            break
        e = ir.aliased(e)
    return next((i for i, p in enumerate(capture.params) if p is e), None)
