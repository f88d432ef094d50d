"""What every builder of mutants and controls reads: one model's function and its trace.

A `Builder` holds the rewrite of one public function and the facts of its trace (which
launches depend on fresh inputs, which reach the outputs, who reads what). The builders of
each family of mutants (kernel.py, storage.py, graph.py, guards.py) and of the controls
(controls.py) are functions of a Builder and a position.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cudagraph_cli import ir

from .edits import reparsed, retarget, with_function
from .trace import (Event, Storage, Tracer, first_divergent_launch, overlap, reaching,
                    tainted, top_bindings, trace, useful)

CLASSES = (
    "drop",            # a kernel launch dropped
    "reorder",         # a producer moved after its reader
    "wrong-arg",       # a launch reads another live tensor of the same shape and dtype
    "overlap-offset",  # an alloc_tensor moved onto a live tensor (another storage, an offset)
    "overlap-slot",    # two live storages take the same cuda_graph_alloc slot
    "storage-twice",   # one storage passed to a graph for two of its storage parameters
    "frozen-input",    # a launch reading a per-call input moved into a graph
    "frozen-object",   # a call given the KV cache (an object) moved into a graph
    "output-index",    # a graph launch's output taken at another index
    "graph-owned-return",  # a returned value allocated in graph-owned storage
    "guard-inverted",  # --capture-symbolic VAR:MAX: the bound's test inverted
    "graph-unkeyed",   # a graph keyed by VAR launched without VAR in its key
    "slot-short",      # a cuda_graph_alloc slot cut to what its tensors need at VAR = 2
    "offset-past",     # a tensor moved just past what a live one holds at VAR = 2
    "key-clamped",     # a graph keyed by T.min(VAR, 2)
    "reshape-wrong",   # a reshape made a view whose shape has T.min(VAR, 2) for VAR
    "key-halved",      # a graph keyed by VAR keyed by VAR // 2 (keys.py)
    "key-capped",      # keyed by T.min(VAR, BOUND // 2): wrong past BOUND // 2 only
    "key-dropped",     # VAR removed from a graph's key
    "slot-elements",   # a cuda_graph_alloc slot sized in elements of its tensor, not bytes
    # --capture-buckets VAR:auto (buckets.py)
    "bucket-row-mixed",     # a kernel that mixes rows padded with its region
    "bucket-key-only",      # a graph keyed by the bucket, captured at the real size
    "bucket-view-offset",   # the real rows handed on one row into their storage
    "bucket-past-storage",  # a storage cut to the bucket before the last
    "bucket-formula-short",  # the bucket one row short at one declared bucket
    "bucket-row-count",     # a kernel summed over the row count, trusted row-wise
)
POSITIONS = ("early", "middle", "late")


@dataclass
class Mutant:
    model: str
    function: str  # the public function that runs it
    kind: str  # one of CLASSES
    position: str  # early / middle / late
    layer: int | None
    site: str  # which binding, in words
    proof: str  # why it is wrong
    module: ir.Module = field(repr=False)
    # A shape mutant's breaking values (bench/mutants/shape.py): the smallest at which it is
    # wrong, where a run shows it; right at 1 and 2.
    breaks_at: dict | None = None
    # The original it is a wrong rewrite of, where not the model's (bucket-row-count edits a
    # kernel in both)
    original: ir.Module | None = field(default=None, repr=False)


@dataclass
class Control:
    model: str
    function: str | None  # None: every public function
    name: str
    proof: str
    module: ir.Module = field(repr=False)
    original: ir.Module | None = field(default=None, repr=False)  # None: the model's


class NotBuildable(Exception):
    """This class cannot be built at this position of this model (the message says why)."""


class Builder:
    """The rewrite of one model's function, its trace, and the helpers its builders share."""

    def __init__(self, model: str, original: ir.Module, rewritten: ir.Module, function: str):
        self.model = model
        self.original = original
        self.rewritten = rewritten
        self.function = function
        self.trace = trace(rewritten, function)
        self.tainted = tainted(self.trace)
        self.useful = useful(self.trace)
        self.sets = reaching(self.trace)
        self.tries = 0

    def binding(self, module, fname, pos):
        """The top-level binding at `pos` of the function `fname` of `module`."""
        return top_bindings(module.function(fname))[pos]

    def edit_body(self, module, e: Event, edit) -> ir.Module:
        """`edit(function)` applied where the launch e is: its function, or (inside a graph) a
        copy of its capture that only e's launch calls."""
        f = module.function(e.function)
        if e.launch is None:
            return with_function(module, edit(f))
        clone = ir.replace(edit(f), name=f"{f.name}_mutant")
        return retarget(module, e.launch[0], e.launch[1], clone)

    def finish(self, kind, position, e_or_layer, site, proof, module) -> Mutant:
        layer = e_or_layer.layer if isinstance(e_or_layer, Event) else e_or_layer
        text_name = f"{self.model}.{kind}.{position}.relax"
        return Mutant(self.model, self.function, kind, position, layer, site, proof,
                      reparsed(module, text_name))

    def where(self, e: Event) -> str:
        inside = f" in graph {e.launch[2]} ({e.function})" if e.launch else ""
        return f"{e.kernel} (layer {e.layer}{inside})"

    def proved(self, module, order=None):
        """Where `module`'s trace of the function first reads what the rewrite's does not
        (first_divergent_launch); None: nowhere. Counted in `tries`."""
        self.tries += 1
        return first_divergent_launch(self.trace, trace(module, self.function), order)

    def readers_of(self, e: Event) -> list[Event]:
        return [x for x in self.trace.events[e.index + 1:]
                if any(w == e.index for s in self.sets[x.index] for w, _, _ in s)]

    def kernel_events(self, prim_only=True) -> list[Event]:
        out = []
        for e in self.trace.events:
            callee = self.rewritten.function(e.kernel)
            if prim_only and not isinstance(callee, ir.PrimFunc):
                continue
            out.append(e)
        return out

    def describe(self, found) -> str:
        return "the outputs" if found == "outputs" else \
            f"first at launch {found.index}, {found.kernel}, layer {found.layer}"

    def scope(self, fname: str, pos: int) -> list[ir.Var]:
        """The vars defined before the binding at `pos` of `fname`: parameters, bindings."""
        f = self.rewritten.function(fname)
        return list(f.params) + [b.var for b in top_bindings(f)[:pos]]

    def graph_launches(self) -> list[tuple[Event, int]]:
        """(first launch inside, binding position) of each graph launch of the function."""
        seen, out = set(), []
        for e in self.trace.events:
            if e.launch is not None and e.launch not in seen and e.launch[0] == self.function:
                seen.add(e.launch)
                out.append((e, e.launch[1]))
        return out

    def storage_vars(self) -> dict:
        """The vars of the function bound to a graph-owned storage -> its Storage."""
        f = self.rewritten.function(self.function)
        tracer = Tracer(self.rewritten)
        env = {p: tracer.param_value(p, (i,), p.name) for i, p in enumerate(f.params)}
        out = {}
        for pos, b in enumerate(top_bindings(f)):
            if type(b.value) is ir.If:
                continue
            if ir.GraphLaunch.of(b.value) is not None:
                continue  # no need to run the graphs to find the storages
            try:
                env[b.var] = tracer.binding(b, f, env, pos, None)
            except Exception:
                env[b.var] = None
            if isinstance(env[b.var], Storage):
                out[b.var] = env[b.var]
        return out

    def independent(self, e: Event, between: list[Event]) -> bool:
        return all(not any(overlap(w, x) for w in e.writes for x in o.reads + o.writes) and
                   not any(overlap(r, w) for r in e.reads for w in o.writes) for o in between)

    def used(self, var) -> bool:
        return self.used_in(self.function, var)

    def used_in(self, fname: str, var) -> bool:
        f = self.rewritten.function(fname)
        exprs = [x.value for x in ir.nested_bindings(f.blocks)] + [f.body]
        return any(x is var for e in exprs for x in ir.walk(e)) or any(
            x is var for e in exprs if type(e) is ir.If for x in ir.walk(e.cond))
