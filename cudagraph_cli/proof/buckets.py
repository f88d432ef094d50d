"""The bucket fact: a bucketed rewrite's bucket is what it declares, for every value it runs at.

A bucketed rewrite (passes/buckets.py) defines `VAR_bucket` from VAR by an expression, and
declares its bucket list in the function's attribute `relax.rewrite_cuda_graph.buckets`
(`{"seq_len": [1, 2, 4, ...]}`). Neither is trusted: for every value v of VAR at which a graph
keyed by the bucket runs (VAR's range on the path of each such launch, proof/ranges.py: under
the guard `VAR <= Bn` where the last bucket is below VAR's upper bound; VAR's whole range up to
the last bucket where no launch is keyed by it)

    v <= bucket(v) <= VAR's tir_var_upper_bound, and bucket(v) is one of the declared buckets

-- the real rows lie within the rows the graph computes, inside the storages memory planning
sized by the upper bound, and the graph is one of those the rewrite means to capture. It is
decided by computing the definition at every value where they are at most SEARCH (as
proof/bound.py tries every value), else where the definition grows with VAR (bound.direction)
by its two ends between each two declared buckets: equal there, it is that one value in
between. Anything else is unproven, never proved. A failure names the least breaking value.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..exec.backend import ExecError
from ..exec.prim import eval_prim
from .bound import SEARCH, UP, direction
from .ranges import Range


@dataclass
class BucketOutcome:
    status: str  # "proved" | "failed" | "unproven"
    message: str = ""
    value: int | None = None  # failed: the least v that breaks it


def prove_bucket(bucket: str, var: str, expr, declared: tuple | None, upper: int | None,
                 domain: Range) -> BucketOutcome:
    """Is `expr` (the bucket `bucket`'s definition over `var`) at least v, at most `upper`
    and one of `declared` for every v in `domain`?"""
    if declared is None:
        return BucketOutcome("unproven", f"{bucket}: the function declares no bucket list of "
                             f"{var} (relax.rewrite_cuda_graph.buckets) to prove it against")
    if upper is None or domain.most is None:
        return BucketOutcome("unproven", f"{bucket}: {var} has no upper bound, so its buckets "
                             "are not all known")
    if domain.least > domain.most:
        return BucketOutcome("proved")
    check = _Check(bucket, var, expr, set(declared), upper)
    try:
        if domain.most - domain.least < SEARCH:
            return check.each(range(domain.least, domain.most + 1))
        if direction(expr, var) != UP:
            return BucketOutcome("unproven", f"{bucket}: {var} takes more than {SEARCH:,} "
                                 "values and its definition is not seen to grow with it")
        return check.pieces(domain, sorted(declared))
    except ExecError as e:
        return BucketOutcome("unproven", f"{bucket}: its definition cannot be computed ({e})")


class _Check:
    def __init__(self, bucket: str, var: str, expr, declared: set, upper: int):
        self.bucket, self.var, self.expr = bucket, var, expr
        self.declared, self.upper = declared, upper

    def at(self, v: int) -> int:
        return eval_prim(self.expr, lambda _: v)

    def each(self, values) -> BucketOutcome:
        for v in values:
            why = self.wrong(v, self.at(v))
            if why is not None:
                return BucketOutcome("failed", why, v)
        return BucketOutcome("proved")

    def pieces(self, domain: Range, declared: list) -> BucketOutcome:
        """A non-decreasing definition: on each piece [lo, hi] of the domain cut after each
        declared bucket, equal at both ends is that value throughout."""
        lo = domain.least
        for hi in [b for b in declared if lo <= b < domain.most] + [domain.most]:
            if hi < lo:
                continue
            first, last = self.at(lo), self.at(hi)
            for v, got in ((lo, first), (hi, last)):
                why = self.wrong(v, got)
                if why is not None:
                    return BucketOutcome("failed", why, v)
            if first != last:
                return BucketOutcome("unproven", f"{self.bucket}: its definition is {first} at "
                                     f"{self.var} = {lo} and {last} at {hi}, and the values "
                                     f"between are more than {SEARCH:,} to try")
            # first == last >= hi (checked at hi): every v in [lo, hi] has that bucket
            lo = hi + 1
        return BucketOutcome("proved")

    def wrong(self, v: int, got: int) -> str | None:
        where = f"at {self.var} = {v}: {self.bucket} = {got}"
        if got < v:
            return (f"{where}, below {self.var}: the graph computes {got} rows of the {v} real "
                    "ones")
        if got not in self.declared:
            listed = ", ".join(map(str, sorted(self.declared)))
            return f"{where}, not one of the declared buckets ({listed})"
        if got > self.upper:
            return (f"{where}, above {self.var}'s tir_var_upper_bound {self.upper}: its "
                    "storages hold fewer rows")
        return None
