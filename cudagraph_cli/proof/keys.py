"""Is a graph's key one-to-one on what the graph depends on, for every value within the bounds?

`vm.builtin.cuda_graph.run_or_capture(capture, args, index, R.shape(KEY))` captures one graph
per value of KEY and replays it whenever KEY comes again. What the captured graph bakes in --
every shape, view, offset and scalar of its capture function -- is a function of the symbolic
values its arguments carry (the dimensions of the tensors passed, the shapes and scalars
passed): its dependencies, D. The launch is right for every value when two values with one
key have one D: k(v) == k(w) implies D(v) == D(w).

Proved symbolically when each variable of D is recoverable from the key: some component of
the key is that variable, or strictly monotone in it over its range once the variables
recovered before are fixed (`batch_size`, `batch_size + 1`, `8 * n + m` with m recovered).
Otherwise decided by enumerating every value of the variables involved when their ranges are
small (at most SEARCH combinations; only the variables not recovered where no component
mixes the two): proved when no two values collide, failed with the smallest two that do.
Where the ranges are larger, a search with the recovered variables at their least values may
still find two such values (failed); else the fact is unproven.

A variable derived from another (a bucket, proof/ranges.Derived) is first taken as free: a
key of the bucket for shapes of the bucket is proved so (it recovers the bucket), over more
values than the relation allows, which is sound. What that does not prove is decided again
with each definition in its variable's place, so that the two values a failure names are two
real values of one bucket (a graph keyed by the bucket whose shapes use the real size: captured
at the first, replayed at the second), never values the relation rules out. A key of the real
value for shapes of its bucket is proved: the key recovers the real value, and the bucket is a
function of it. It is right at every value, one graph per value where one per bucket would do:
the cost, which diff's graph counts show, not a wrong replay.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from .. import ir
from ..exec.backend import ExecError
from ..exec.prim import eval_prim
from .bound import SEARCH, polynomial
from .sizes import show


@dataclass
class KeyBound:
    status: str  # "proved" | "failed" | "unproven"
    pair: tuple = ()  # failed: (v, w), {name: value} each, the two smallest values
    key_value: tuple = ()  # failed: the key both have
    why: str = ""  # unproven


def names_of(exprs) -> list:
    out: list = []
    for e in exprs:
        for v in ir.prim_vars(e, []):
            if v.name not in out:
                out.append(v.name)
    return out


def prove_key(key: tuple, deps: list, range_of, derived=None) -> KeyBound:
    """Do two values with one `key` (a tuple of PrimExprs) have one `deps` (PrimExprs)?
    `range_of(name)`: a proof/ranges Range; `derived` (proof/ranges.Derived, or None) the
    variables defined from others."""
    got = key_bound(key, deps, range_of)
    if got.status != "proved" and derived and any(derived.names_in(e) for e in key + tuple(deps)):
        got = key_bound(tuple(map(derived.substituted, key)),
                        [derived.substituted(d) for d in deps], range_of)
    return got


def key_bound(key: tuple, deps: list, range_of) -> KeyBound:
    """prove_key with every variable free."""
    deps = [d for d in deps if ir.prim_vars(d, [])]
    needed = names_of(deps)
    if not needed:
        return KeyBound("proved")  # a static graph: one capture is right at every value
    recovered = recoverable(key, range_of)
    if set(needed) <= recovered:
        return KeyBound("proved")
    names = names_of(list(key) + deps)
    ranges = {n: range_of(n) for n in names}
    # Where every component and dependency holds only recovered variables or none, the
    # recovered ones (equal under one key) play no part: the others alone are searched.
    separable = all(set(names_of([e])) <= recovered or not set(names_of([e])) & recovered
                    for e in list(key) + deps)
    loose = [n for n in names if n not in recovered]
    searched = loose if separable else names
    box = {n: (r.least, r.least if n not in searched else r.most) for n, r in ranges.items()}
    if all(box[n][1] is not None for n in names) and _count(box) <= SEARCH:
        return _search(key, deps, names, box) or KeyBound("proved")
    # Too many values to try them all: the recovered variables at their least, the others
    # over as many values from their least as the search allows.
    span = max(1, int(SEARCH ** (1 / len(loose))))
    for n in loose:
        r = ranges[n]
        top = r.least + span - 1
        box[n] = (r.least, top if r.most is None else min(top, r.most))
    found = _search(key, deps, names, {n: (lo, lo if hi is None else hi)
                                       for n, (lo, hi) in box.items()})
    if found is not None:
        return found
    free = [n for n in needed if n not in recovered]
    return KeyBound("unproven", why=f"the key does not recover {', '.join(free)} (no "
                    "component strictly monotone in it), and its values are too many to "
                    "try them all")


def recoverable(key: tuple, range_of) -> set:
    """The variables the key determines: a component that is the variable, or strictly
    monotone in it with every other variable of the component already determined."""
    found: set = set()
    grown = True
    while grown:
        grown = False
        for c in key:
            free = [n for n in names_of([c]) if n not in found]
            if len(free) == 1 and strictly_monotone(c, free[0], range_of):
                found.add(free[0])
                grown = True
    return found


def strictly_monotone(e, name: str, range_of) -> bool:
    """Does `e` change whenever `name` does (the other variables fixed, within their ranges)?
    A polynomial whose terms in `name` all have one sign, each other variable in them at
    least 1 (n**k grows strictly on n >= 0); a sum with a side free of `name`; a product by a
    non-zero constant; an integer cast of such."""
    t = type(e)
    if t is ir.SymVar:
        return e.name == name
    poly = polynomial(e)
    if poly is not None:
        terms = [(m, c) for m, c in poly.items() if name in m]
        if not terms or len({c > 0 for _, c in terms}) != 1:
            return False
        return all(range_of(n).least >= 1 for m, _ in terms for n in m if n != name)
    if t is ir.PrimCall and e.func == "T.Cast" and len(e.args) == 2:
        return strictly_monotone(e.args[1], name, range_of)
    if t is ir.PrimBinOp and e.op in ("+", "-"):
        a, b = (name in names_of([x]) for x in (e.lhs, e.rhs))
        if a != b:
            return strictly_monotone(e.lhs if a else e.rhs, name, range_of)
    return False


def _count(box: dict) -> int:
    n = 1
    for lo, hi in box.values():
        n *= max(0, hi - lo + 1)
    return n


def _search(key: tuple, deps: list, names: list, box: dict) -> KeyBound | None:
    """The first two values, in order, with one key and different dependencies, or None."""
    seen: dict = {}
    for combo in itertools.product(*(range(box[n][0], box[n][1] + 1) for n in names)):
        at = dict(zip(names, combo))
        try:
            k = tuple(eval_prim(c, lambda v: at[v.name]) for c in key)
            d = tuple(eval_prim(x, lambda v: at[v.name]) for x in deps)
        except ExecError:
            continue  # a value where the shapes themselves cannot be computed
        first = seen.setdefault(k, (at, d))
        if first[1] != d:
            return KeyBound("failed", pair=(first[0], at), key_value=k)
    return None


def pair_text(pair: tuple, key_value: tuple) -> str:
    """"at batch_size = 2 and 3: one key (1), a graph captured at 2 replayed at 3"."""
    v, w = pair
    moving = [n for n in v if v[n] != w[n]]
    still = [f"{n} = {v[n]:,}" for n in v if v[n] == w[n]]
    if len(moving) == 1:
        (n,) = moving
        at, a, b = f"{n} = {v[n]:,} and {w[n]:,}", f"{v[n]:,}", f"{w[n]:,}"
    else:
        a = ", ".join(f"{n} = {v[n]:,}" for n in moving)
        b = ", ".join(f"{n} = {w[n]:,}" for n in moving)
        at = f"{a} and {b}"
    if still:
        at += f" ({', '.join(still)})"
    key = ", ".join(f"{k:,}" for k in key_value)
    return f"at {at}: one key ({key}), a graph captured at {a} replayed at {b}"


def key_text(key: tuple) -> str:
    return f"R.shape([{', '.join(show(c) for c in key)}])" if key else "no key"
