"""Bucketed graphs (`--capture-buckets`), read back from a rewritten function's text.

A bucket variable is a symbolic variable a function defines by `R.match_cast` from an
expression of one other variable (passes/buckets.py writes `seq_len_bucket` so, from `seq_len`):
the values it takes are that expression's over the other variable's range, the bucket list.
graph_cost counts a graph launch keyed by it once per bucket; `bucket_sites` says, per capture
function keyed by one, its buckets, how many graphs it makes against one per value, and the
padding: the rows computed over the rows needed, summed over every value of the variable up to
the last bucket (each value equally likely).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import ir
from ..exec.prim import eval_prim
from ..passes.buckets import derived_sym_vars
from ..proof.ranges import FunctionRanges
from .rewritten import builtin_call


@dataclass(frozen=True)
class BucketVar:
    name: str  # the bucket variable (seq_len_bucket)
    var: str  # the variable it is computed from (seq_len)
    expr: object  # its value, a PrimExpr of `var`
    # (least, most) -> its value for each value of `var` from least to most: the launches of
    # a function share one variable and range (31 terms x 2,048 values for prefill)
    computed: dict = field(default_factory=dict, compare=False, repr=False)

    def values(self, least: int, most: int) -> list:
        got = self.computed.get((least, most))
        if got is None:
            got = self.computed[(least, most)] = [
                eval_prim(self.expr, lambda _, v=v: v) for v in range(least, most + 1)]
        return got


def bucket_variables(g: ir.Function) -> dict:
    """{name: BucketVar} of the variables `g` defines by match_cast from one other's value
    (passes/buckets.py's derived_sym_vars)."""
    return {name: BucketVar(name, var, expr)
            for name, (var, expr) in derived_sym_vars(g).items()}


def bucket_values(bv: BucketVar, least: int, most: int) -> tuple:
    """The distinct values of `bv` while its variable runs over least..most, in order."""
    return tuple(sorted(set(bv.values(least, most))))


@dataclass(frozen=True)
class BucketSite:
    """One capture function whose launches are keyed by a bucket variable."""

    capture: str
    launches: int
    var: str  # the variable bucketed
    sizes: tuple  # its buckets
    least: int  # the variable's least value
    upper: int  # its largest (tir_var_upper_bound)
    padding: float  # rows computed / rows needed over least..last bucket

    @property
    def graphs(self) -> int:
        return len(self.sizes) * self.launches

    @property
    def exact_graphs(self) -> int:
        """One graph per value up to the last bucket (`--capture-symbolic VAR:Bn`)."""
        return (self.sizes[-1] - self.least + 1) * self.launches

    @property
    def hint_graphs(self) -> int:
        """One graph per value up to the upper bound (TVM with the capture hint)."""
        return (self.upper - self.least + 1) * self.launches


def bucket_sites(g: ir.Function, keyed: list) -> list:
    """A BucketSite per KeyedGraphs of `g` (graph_cost's) keyed by a bucket variable whose
    variable has an upper bound."""
    buckets = bucket_variables(g)
    ranges = FunctionRanges(g)
    sites = []
    for k in keyed:
        for name, _, _, _ in k.keys:
            bv = buckets.get(name)
            r = ranges.of(bv.var) if bv is not None else None
            if r is None or r.most is None:
                continue
            sizes = bucket_values(bv, r.least, r.most)
            sites.append(BucketSite(k.capture, k.launches, bv.var, sizes, r.least, r.most,
                                    _padding(bv, max(r.least, 1), sizes[-1])))
    return sites


def _padding(bv: BucketVar, least: int, last: int) -> float:
    needed = sum(range(least, last + 1))
    return sum(bv.values(least, last)) / needed if needed else 1.0


@dataclass(frozen=True)
class NotBucketed:
    """A run of a region keyed by the bucketed variable that runs as before, and why."""

    var: str
    reason: str
    exact: bool  # kept as an exact graph (the variable is captured otherwise), else eager
    kernels: tuple  # the kernels it launches, by name


def not_bucketed(report, function: str) -> list:
    """The NotBucketed runs of `function` in a RewriteReport (cgraph's own rewrite)."""
    out = []
    for fb in getattr(report, "buckets", ()) or ():
        if fb.function != function:
            continue
        for region, reason, exact in fb.not_bucketed:
            kernels = tuple(ir.callee_name(b.value) for b in region.bindings
                            if isinstance(b.value, ir.Call) and b.value.op is not None and
                            isinstance(b.value.op, (ir.GlobalVarRef, ir.ExternFunc)))
            out.append(NotBucketed(fb.var, reason, exact, kernels))
    return out


def bucket_carves(g: ir.Function) -> set:
    """The ids of the bindings a bucketed graph launch adds to the calling function (what a
    reader matching it to the original skips, as it skips the graph builtins): each
    `R.memory.alloc_tensor` whose shape uses a bucket variable (an input carved at the
    bucket's rows), and each that gives a graph branch's result the real rows of an output."""
    buckets = bucket_variables(g)
    if not buckets:
        return set()
    out: set = set()

    def visit(blocks):
        for block in blocks:
            for b in block.bindings:
                v = b.value
                if type(v) is ir.If:
                    for branch in (v.true_branch, v.false_branch):
                        visit(branch.blocks)
                        _views(branch, out)
                elif _carve_shape(v) is not None and any(
                        s.name in buckets for d in _carve_shape(v).values
                        for s in ir.prim_vars(d, [])):
                    out.add(id(b))
    visit(g.blocks)
    return out


def _carve_shape(v):
    if type(v) is ir.Call and isinstance(v.op, ir.Op) and \
            v.op.name == "relax.memory.alloc_tensor" and len(v.args) > 2 and \
            type(v.args[2]) is ir.ShapeExpr:
        return v.args[2]
    return None


def _views(branch: ir.SeqExpr, out: set) -> None:
    """The alloc_tensor bindings after the graph launch of a branch that launches one."""
    launched = False
    for block in branch.blocks:
        for b in block.bindings:
            if builtin_call(b.value, ir.RUN_OR_CAPTURE):
                launched = True
            elif launched and _carve_shape(b.value) is not None:
                out.add(id(b))
