"""Is `lhs <= rhs` for every value of the symbolic variables within their ranges?

Shape expressions are sums, products, `floordiv` and `min`/`max` of non-negative variables
and constants. Such an expression moves one way in each variable (non-decreasing,
non-increasing or constant in it), so `lhs - rhs` is largest at one corner of the box of
ranges: each variable at its largest value where the difference grows with it, at its least
where it shrinks. The inequality holds for every value when it holds at that corner, checked
with the executor's own `eval_prim`. No solver: what cannot be classified (a variable the
difference both grows and shrinks with, `floormod`, a `Select`) is decided by trying every
value where the variables' ranges hold at most SEARCH combinations (trying them all is a
proof); else, or where a variable has no largest value, it is unproven, never proved.

A variable a function derives from another (a bucket: proof/ranges.Derived) is first taken as
free over its own range, which proves what holds over a wider set of values; what that does not
prove is decided again with the definition in its place, so a failure is never one of values
the relation rules out.

The classification reads a polynomial (sums and products of variables and integers: the
usual byte counts and offsets) exactly, by the signs of its coefficients -- so `8 * n` bytes
in a storage of `n * 8` is constant in `n` -- and anything else structurally.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from .. import ir
from ..exec.backend import ExecError
from ..exec.prim import eval_prim

UP, DOWN, FLAT = 1, -1, 0  # non-decreasing, non-increasing, constant; None: unknown

# The most combinations of values tried one by one, where trying every value is the proof
# (prove_le's last resort, proof/keys.py's search, a derived variable's range). Real models
# bound their variables by a few thousand: Llama-3.2-1B's total_seq_len by 8,192.
SEARCH = 8192


@dataclass
class Bound:
    """The outcome of one inequality: "proved" (for every value), "failed" (`at`: the
    smallest values that break it, each other variable at its worst) or "unproven" (`why`)."""

    status: str
    at: dict | None = None  # name -> value where it fails; the worst corner's values included
    lhs: int | None = None  # the two sides at `at`
    rhs: int | None = None
    why: str = ""
    moving: tuple = ()  # the variables the difference depends on


def prove_le(lhs, rhs, range_of, derived=None) -> Bound:
    """Does `lhs <= rhs` hold for every value? `range_of(name)` is a proof/ranges Range;
    `derived` (proof/ranges.Derived, or None) the variables defined from others."""
    got = corner_bound(lhs, rhs, range_of)
    if got.status == "proved":
        return got
    if derived and (derived.names_in(lhs) or derived.names_in(rhs)):
        got = corner_bound(derived.substituted(lhs), derived.substituted(rhs), range_of)
    if got.status == "unproven":
        return every_value(lhs, rhs, range_of, derived) or got
    return got


def every_value(lhs, rhs, range_of, derived) -> Bound | None:
    """`lhs <= rhs` tried at every value of its free variables (a derived variable's from its
    source's) where they are at most SEARCH combinations: proved, or failed at the first
    breaking values in order; None where they are more, unbounded, or a value cannot be
    computed."""
    names = []
    for v in ir.prim_vars(ir.PrimBinOp("-", lhs, rhs), []):
        name = derived.exprs[v.name][0] if derived and v.name in derived.exprs else v.name
        if name not in names:
            names.append(name)
    ranges = [range_of(n) for n in names]
    count = 1
    for r in ranges:
        if r.most is None:
            return None
        count *= max(0, r.most - r.least + 1)
    if count > SEARCH:
        return None
    for combo in itertools.product(*(range(r.least, r.most + 1) for r in ranges)):
        at = dict(zip(names, combo))
        read = derived.lookup(at) if derived else (lambda v: at[v.name])
        try:
            a, b = eval_prim(lhs, read), eval_prim(rhs, read)
        except ExecError:
            return None
        if a > b:
            return Bound("failed", at=at, lhs=a, rhs=b, moving=tuple(names))
    return Bound("proved", moving=tuple(names))


def corner_bound(lhs, rhs, range_of) -> Bound:
    """prove_le at the worst corner of the box of ranges, where the difference moves one way
    in each variable (or is linear in those that move both ways)."""
    diff = ir.PrimBinOp("-", lhs, rhs)
    names = []
    for v in ir.prim_vars(diff, []):
        if v.name not in names:
            names.append(v.name)
    ranges = {n: range_of(n) for n in names}
    poly = polynomial(diff)
    corner: dict[str, int] = {}
    moving, mixed = [], []
    for n in names:
        way = poly_direction(poly, n) if poly is not None else direction(diff, n)
        r = ranges[n]
        if way == FLAT:
            corner[n] = r.least
            continue
        moving.append(n)
        if way is None:
            mixed.append(n)
        if way != DOWN and r.most is None:
            return Bound("unproven", why=f"{n} has no upper bound", moving=(n,))
        corner[n] = r.most if way == UP else r.least
    if mixed:
        # A polynomial of degree at most one in each variable (8 * b * v - 256 * v) takes
        # its largest value over a box at a vertex: each variable that moves both ways is
        # tried at both ends. Anything else is not decided here.
        if poly is None or any(len(set(m)) != len(m) for m in poly) or len(mixed) > 10:
            return Bound("unproven", why=f"not monotone in {mixed[0]}")
        worst = None
        for k in range(1 << len(mixed)):
            trial = dict(corner)
            for i, n in enumerate(mixed):
                trial[n] = ranges[n].most if k >> i & 1 else ranges[n].least
            got = _at(diff, trial)
            if worst is None or got > worst[0]:
                worst = (got, trial)
        corner = worst[1]
    try:
        a, b = _at(lhs, corner), _at(rhs, corner)
    except ExecError as e:
        return Bound("unproven", why=str(e))
    if a <= b:
        return Bound("proved", moving=tuple(moving))
    # The smallest breaking values: each moving variable in turn brought as low as it can go
    # while the inequality still fails, the others where they are. With the others fixed the
    # difference moves one way in it (monotone, or linear at a vertex), so where it fails at
    # its least value that is the answer, and otherwise failing is upward closed: bisect.
    at = dict(corner)
    for n in moving:
        lo, hi = ranges[n].least, at[n]
        if _fails(lhs, rhs, {**at, n: lo}):
            at[n] = lo
            continue
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if _fails(lhs, rhs, {**at, n: mid}):
                hi = mid
            else:
                lo = mid
        at[n] = hi
    return Bound("failed", at=at, lhs=_at(lhs, at), rhs=_at(rhs, at), moving=tuple(moving))


def _at(e, values: dict) -> int:
    return eval_prim(e, lambda v: values[v.name])


def _fails(lhs, rhs, values: dict) -> bool:
    try:
        return _at(lhs, values) > _at(rhs, values)
    except ExecError:
        return False


# ---- polynomials: {monomial (sorted names, repeated for powers): integer coefficient} ----

def polynomial(e) -> dict | None:
    """`e` as a polynomial of its variables, or None when it is not one (a division, a
    min/max, a float)."""
    t = type(e)
    if t is ir.IntImm:
        return {(): e.value} if e.value else {}
    if t is ir.SymVar:
        return {(e.name,): 1}
    if t is ir.PrimCall and e.func == "T.Cast" and len(e.args) == 2:
        dtype = e.args[0] if isinstance(e.args[0], str) else getattr(e.args[0], "value", "")
        return polynomial(e.args[1]) if str(dtype).startswith(("int", "uint")) else None
    if t is not ir.PrimBinOp or e.op not in ("+", "-", "*"):
        return None
    a, b = polynomial(e.lhs), polynomial(e.rhs)
    if a is None or b is None:
        return None
    if e.op == "*":
        out: dict = {}
        for ma, ca in a.items():
            for mb, cb in b.items():
                m = tuple(sorted(ma + mb))
                out[m] = out.get(m, 0) + ca * cb
    else:
        out = dict(a)
        sign = 1 if e.op == "+" else -1
        for m, c in b.items():
            out[m] = out.get(m, 0) + sign * c
    return {m: c for m, c in out.items() if c}


def poly_direction(poly: dict, name: str):
    """How a polynomial of non-negative variables moves with `name`: each monomial that holds
    it is non-decreasing in it, so the signs of their coefficients decide."""
    signs = {c > 0 for m, c in poly.items() if name in m}
    if not signs:
        return FLAT
    return (UP if signs == {True} else DOWN) if len(signs) == 1 else None


# ---- any other expression, structurally ---------------------------------------------------

def _combine(x, y):
    if x is None or y is None:
        return None
    if x == FLAT:
        return y
    if y == FLAT or x == y:
        return x
    return None


def _neg(x):
    return None if x is None else -x


def non_negative(e) -> bool:
    """Is `e` at least 0 for every value of its (non-negative) variables?"""
    t = type(e)
    if t is ir.IntImm:
        return e.value >= 0
    if t is ir.SymVar:
        return True
    if t is ir.PrimBinOp:
        if e.op in ("+", "*", "//"):
            return non_negative(e.lhs) and non_negative(e.rhs)
        return False
    if t is ir.PrimCall:
        if e.func == "T.Cast" and len(e.args) == 2:
            return non_negative(e.args[1])
        if e.func in ("T.max",):
            return any(non_negative(a) for a in e.args)
        if e.func in ("T.min", "T.floordiv", "T.ceildiv", "T.truncdiv", "T.floormod"):
            return all(non_negative(a) for a in e.args)
    poly = polynomial(e)
    return poly is not None and all(c >= 0 for c in poly.values())


def positive_constant(e) -> bool:
    return type(e) is ir.IntImm and e.value > 0


def direction(e, name: str):
    """How `e` moves as the variable `name` grows (UP, DOWN, FLAT, or None: unknown), the
    other variables fixed."""
    if not any(v.name == name for v in ir.prim_vars(e, [])):
        return FLAT
    t = type(e)
    if t is ir.SymVar:
        return UP
    poly = polynomial(e)
    if poly is not None:
        return poly_direction(poly, name)
    if t is ir.PrimBinOp:
        a, b = direction(e.lhs, name), direction(e.rhs, name)
        if e.op == "+":
            return _combine(a, b)
        if e.op == "-":
            return _combine(a, _neg(b))
        if e.op == "*":
            if a == FLAT and non_negative(e.lhs):
                return b
            if b == FLAT and non_negative(e.rhs):
                return a
            if non_negative(e.lhs) and non_negative(e.rhs):
                return _combine(a, b)
            return None
        if e.op == "//":
            return _quotient(e.lhs, e.rhs, a, b)
        return None
    if t is ir.PrimCall:
        if e.func == "T.Cast" and len(e.args) == 2:
            return direction(e.args[1], name)
        if e.func in ("T.max", "T.min"):
            out = FLAT
            for x in e.args:
                out = _combine(out, direction(x, name))
            return out
        if e.func in ("T.floordiv", "T.ceildiv") and len(e.args) == 2:
            return _quotient(e.args[0], e.args[1], direction(e.args[0], name),
                             direction(e.args[1], name))
    return None


def _quotient(num, den, a, b):
    """The direction of num // den (floor or ceiling), for a divisor that is never 0 or
    negative where it moves."""
    if b == FLAT and (positive_constant(den) or non_negative(den)):
        return a
    if non_negative(num) and non_negative(den):
        return _combine(a, _neg(b))
    return None
