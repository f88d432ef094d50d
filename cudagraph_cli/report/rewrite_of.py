"""Is OUT a rewrite of IN? `check_is_rewrite`, which the two-file form of `cgraph diff`
(api.check_rewrite) runs before it reads OUT's graphs as IN's; and with which options
(`options_of`), so that its reasons are the rewrite's own."""

from __future__ import annotations

from .. import ir
from ..diagnostics import NO_LOC, Loc, SourceError
from ..passes.guards import graph_path
from ..passes.options import RewriteOptions, auto_buckets
from .bucket_facts import bucket_carves, bucket_values, bucket_variables
from .graph_cost import capture_hint_names, graph_launches
from .rewritten import builtin_call, builtin_target, count_kernels, is_graph_builtin, signature


class NotARewrite(SourceError):
    """OUT is not a rewrite of IN: `which` ("original" or "rewritten") says in which module
    the location lies."""

    def __init__(self, message: str, loc: Loc = NO_LOC, which: str = "rewritten"):
        super().__init__(message, loc)
        self.which = which


def _launches_with_graphs(f: ir.Function, module: ir.Module, prims: set) -> int:
    """Kernel launches a call of `f` makes: its own, and those of the capture functions it
    launches (an input that is already a rewrite counts what its graphs launch)."""
    n = count_kernels(f, module, prims)
    for b in graph_path(f.blocks):
        if builtin_call(b.value, ir.RUN_OR_CAPTURE):
            c = module.function(builtin_target(b.value))
            if isinstance(c, ir.Function):
                n += count_kernels(c, module, prims)
    return n


def check_is_rewrite(original: ir.Module, rewritten: ir.Module) -> None:
    """NotARewrite unless `rewritten` is what a CUDA-graph rewrite (cgraph's or TVM's) can make
    of `original`: it has every function of the original (PrimFuncs by name, Relax functions
    with as many parameters); the functions it adds are Relax functions (allocation and
    capture functions); in each Relax function, the bindings other than the CUDA-graph
    builtins are, in order, calls of the original function (same operators and callees); and
    the kernel launches the original function makes are all still made, outside graphs or
    inside the capture functions it launches."""
    names_b = {f.name: f for f in rewritten.functions}
    names_a = {f.name for f in original.functions}
    for f in original.functions:
        g = names_b.get(f.name)
        kind = "PrimFunc" if isinstance(f, ir.PrimFunc) else "Relax function"
        if g is None or type(g) is not type(f):
            raise NotARewrite(f"the other module is not a rewrite of this one: it has no "
                              f"{kind} '{f.name}'", f.loc, "original")
    for g in rewritten.functions:
        if g.name not in names_a and not isinstance(g, ir.Function):
            raise NotARewrite(f"not a rewrite of the original: it adds the PrimFunc '{g.name}' "
                              "(a rewrite adds only allocation and capture functions)", g.loc)
    prims_a = {f.name for f in original.functions if isinstance(f, ir.PrimFunc)}
    prims_b = {f.name for f in rewritten.functions if isinstance(f, ir.PrimFunc)}
    for f in original.relax_functions():
        g = names_b[f.name]
        if len(f.params) != len(g.params):
            raise NotARewrite(f"not a rewrite of the original: '{f.name}' takes "
                              f"{len(g.params)} parameter(s), the original's "
                              f"{len(f.params)}", g.loc)
        # Only calls are compared: aliases, tuples and items of tuples compute nothing, and a
        # normalizer (TVM's included) adds or removes them freely.
        before = [b for block in f.blocks for b in block.bindings if isinstance(b.value, ir.Call)]
        pos = 0
        carves = bucket_carves(g)  # --capture-buckets: the graph launch's own carves
        for b in graph_path(g.blocks):
            if is_graph_builtin(b) or id(b) in carves or not isinstance(b.value, ir.Call):
                continue
            sig = signature(b.value, False)
            while pos < len(before) and signature(before[pos].value, False) != sig:
                pos += 1
            if pos == len(before):
                raise NotARewrite(f"not a rewrite of the original: this binding of "
                                  f"'{f.name}' is not one of the original's (or is out of "
                                  "order)", b.loc)
            pos += 1
        launched = _launches_with_graphs(g, rewritten, prims_b)
        expected = _launches_with_graphs(f, original, prims_a)
        if launched != expected:
            raise NotARewrite(f"not a rewrite of the original: '{f.name}' makes {launched} "
                              f"kernel launch(es) (its graphs included), the original "
                              f"{expected}", g.loc)


def options_of(original: ir.Module, rewritten: ir.Module) -> RewriteOptions:
    """The options of cgraph's rewrite that `rewritten` shows it was made with, so that the
    two-file form of `cgraph diff` gives the reasons the rewrite itself gave (`rewrite
    --explain`, the one-file form): `--capture-buckets VAR:...` for each variable a graph is
    keyed by the bucket of (the buckets read back from the bucket variable over VAR's range:
    `auto` where every function's are auto's), `--capture-symbolic VAR[:MAX]` for each
    variable of a function's inputs a graph is keyed by that the original's capture hint does
    not name or that a guard bounds (MAX: the guard's). Everything else is the default: a
    rewrite by TVM shows none of these, and is explained as cgraph's default rewrite explains
    it."""
    buckets: dict[str, list] = {}  # VAR -> [(sizes, upper)] per function
    symbolic: dict[str, list] = {}  # VAR -> the guard's bound (None: none) per launch
    for g in rewritten.relax_functions():
        f = original.function(g.name)
        if not isinstance(f, ir.Function):
            continue  # an allocation or capture function the rewrite added
        hint = set(capture_hint_names(f))
        # The options apply to the variables of its inputs; one of a weight's shape keys a
        # graph whatever they say.
        inputs = {s.name for p in f.params[:f.num_input] for s in ir.definable_sym_vars(p.sinfo)}
        derived = bucket_variables(g)
        for names, here in _graph_keys(g):
            for name in names:
                bv = derived.get(name)
                if bv is not None:
                    r = here.of(bv.var)
                    if r.most is not None:
                        sizes = bucket_values(bv, r.least, r.most)
                        buckets.setdefault(bv.var, []).append(
                            (sizes, g.upper_bounds().get(bv.var)))
                    continue
                bound = here.guard.get(name)
                if name in inputs and (name not in hint or bound is not None):
                    symbolic.setdefault(name, []).append(bound)
    chosen = []
    for var, lists in buckets.items():
        auto = all(upper is not None and sizes == auto_buckets(upper) for sizes, upper in lists)
        chosen.append(f"{var}:auto" if auto else f"{var}:{','.join(map(str, lists[0][0]))}")
    return RewriteOptions(capture_buckets=tuple(chosen), capture_symbolic=tuple(
        name if None in bounds else f"{name}:{max(bounds)}" for name, bounds in symbolic.items()))


def _graph_keys(g: ir.Function) -> list:
    """(names of the variables keying it, the ranges where it runs) per keyed graph launch of
    `g`: the ranges within the guards around it."""
    return [(names, here) for _, _, names, here, _ in graph_launches(g) if names]
