"""The range of a symbolic variable: the one reader of "what values can VAR take here".

A dimension is at least 1; a variable the function names in `tir_non_negative_var` may be 0;
a `tir_var_lower_bound` attribute raises the least value. The largest value is the function's
`tir_var_upper_bound`, narrowed inside the then-branch of an `if` on a guard (`if` on
`R.prim_value(VAR <= MAX)`, read by guards.py: what `--capture-symbolic VAR:MAX` writes). A
variable with neither has no largest value (`most` None): unbounded.

report/graph_cost.py (how many graphs a keyed launch captures) and proof/facts.py (what
holds for every value) read a function's ranges here; verify (the values its runs take: the
inputs' defaults, a guard's both sides, the bounds run), exec/guard_check.py and
api.check_shapes (a `--shape` value outside them) read a module's (`module_ranges`: where every
function that runs holds).
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import ir
from ..exec.backend import ExecError
from ..exec.prim import eval_prim
from ..passes.buckets import derived_sym_vars
from ..passes.guards import guard_terms, largest_values
from ..ir.sinfo import subst_prim
from .bound import SEARCH, UP, direction


@dataclass(frozen=True)
class Range:
    """The values of one symbolic variable: least..most, both included."""

    least: int
    most: int | None  # None: unbounded
    # where `most` comes from: "guard" | "tir_var_upper_bound" | None (unbounded)
    source: str | None = None

    def narrowed(self, most: int) -> "Range":
        """The range under a guard that allows at most `most`."""
        if self.most is not None and self.most < most:
            return self
        return Range(self.least, most, "guard")

    def text(self, name: str) -> str:
        top = "unbounded" if self.most is None else f"{self.most:,}"
        return f"{name} in {self.least:,}..{top}"

    def holds(self, value: int) -> bool:
        return self.least <= value and (self.most is None or value <= self.most)

    def within(self, values) -> list[int]:
        """`values` that lie in the range, each once, in their order."""
        out: list[int] = []
        for v in values:
            if v is not None and self.holds(v) and v not in out:
                out.append(v)
        return out

    def both(self, other: "Range") -> "Range":
        """The values in both ranges (a variable of two functions that both run)."""
        tops = [r for r in (self, other) if r.most is not None]
        top = min(tops, key=lambda r: r.most) if tops else self
        return Range(max(self.least, other.least), top.most, top.source)

    def first_values(self) -> list[int]:
        """The values a run takes when nothing says which (verify's and `cgraph run`'s
        inputs): the least positive value and the next, within the range (1 and 2 for a
        dimension: a graph captured at the first replays at the second); the least, when
        no positive value lies within."""
        low = max(self.least, 1)
        return self.within((low, low + 1)) or [self.least]


def named_list(value) -> tuple:
    """A list attribute of names (`tir_non_negative_var`); () when absent."""
    if isinstance(value, tuple) and len(value) == 2 and value[0] == "list":
        return tuple(x for x in value[1] if isinstance(x, str))
    return ()


class Derived:
    """The variables a function defines from another by `R.match_cast` of an expression of it
    (a bucketed rewrite's `seq_len_bucket` from `seq_len`, passes/buckets.derived_sym_vars): a
    derived variable is no free variable but a function of its source, so a fact over it is
    decided with its definition put in its place (`v * row <= bucket(v) * row` holds by the
    relation, not by two independent ranges)."""

    def __init__(self, f: ir.Function):
        self.exprs = derived_sym_vars(f)  # name -> (source variable name, expression)
        self.values: dict = {}  # (name, source value) -> value: shared by every path

    def __bool__(self) -> bool:
        return bool(self.exprs)

    def value(self, name: str, source: int) -> int:
        got = self.values.get((name, source))
        if got is None:
            got = eval_prim(self.exprs[name][1], lambda _: source)
            self.values[(name, source)] = got
        return got

    def names_in(self, e) -> set:
        return {v.name for v in ir.prim_vars(e, []) if v.name in self.exprs}

    def substituted(self, e):
        """`e` with each derived variable replaced by its definition."""
        found = {v: self.exprs[v.name][1] for v in ir.prim_vars(e, []) if v.name in self.exprs}
        return subst_prim(e, found) if found else e

    def lookup(self, values: dict):
        """eval_prim's variable reader for `values` of the free variables: a derived variable's
        value from its source's."""
        def read(v):
            if v.name in values:
                return values[v.name]
            return self.value(v.name, values[self.exprs[v.name][0]])
        return read


class FunctionRanges:
    """The ranges of a function's variables, by name (any name: a variable the function does
    not bound is 1..unbounded, or 0..unbounded when non-negative; a derived variable takes the
    values of its definition over its source's range)."""

    def __init__(self, f: ir.Function, guard: dict | None = None):
        self.upper = f.upper_bounds()
        self.lower = f.lower_bounds()
        self.non_negative = set(named_list(f.attr("tir_non_negative_var")))
        self.guard = dict(guard or {})  # VAR -> MAX from the guards of the path
        self.floor: dict = {}  # VAR -> least value from the else-branches of the path
        self.derived = Derived(f)

    def least(self, name: str) -> int:
        if name in self.lower:
            least = self.lower[name]
        else:
            least = 0 if name in self.non_negative else 1
        return max(least, self.floor.get(name, least))

    def of(self, name: str) -> Range:
        if name in self.derived.exprs:
            return self.derived_range(name)
        r = Range(self.least(name), self.upper.get(name),
                  "tir_var_upper_bound" if name in self.upper else None)
        return r.narrowed(self.guard[name]) if name in self.guard else r

    def under(self, bounds: dict, floors: dict | None = None) -> "FunctionRanges":
        """These ranges inside the then-branch of a guard allowing `bounds` ({VAR: MAX}), and
        inside the else-branch of one that raises `floors` ({VAR: least})."""
        out = FunctionRanges.__new__(FunctionRanges)
        out.upper, out.lower, out.non_negative = self.upper, self.lower, self.non_negative
        out.guard, out.floor = dict(self.guard), dict(self.floor)
        out.derived = self.derived
        for name, most in bounds.items():
            out.guard[name] = min(most, out.guard.get(name, most))
        for name, least in (floors or {}).items():
            out.floor[name] = max(least, out.floor.get(name, least))
        return out

    def derived_range(self, name: str) -> Range:
        """The values of a derived variable's definition over its source's range: every one
        computed where they are few, else the definition's ends where it grows with the
        source (proof/bound.direction), else 0..unbounded (nothing known)."""
        source, expr = self.derived.exprs[name]
        r = self.of(source)
        try:
            if r.most is not None and r.most - r.least < SEARCH:
                got = [self.derived.value(name, v) for v in range(r.least, r.most + 1)]
                return Range(min(got, default=1), max(got, default=0), "definition")
            if direction(expr, source) == UP:
                top = None if r.most is None else self.derived.value(name, r.most)
                return Range(self.derived.value(name, r.least), top, "definition")
        except ExecError:
            pass
        return Range(0, None)

    def both(self, other: "FunctionRanges") -> "FunctionRanges":
        """The ranges where the paths of both hold (two tensors alive together)."""
        return self.under(other.guard, other.floor)

    def empty(self) -> bool:
        """Does some variable have no value on this path (a graph branch under `n <= 8` and
        an eager one under `n > 8` together)?"""
        return any((r.most is not None and r.least > r.most)
                   for r in map(self.of, set(self.guard) | set(self.floor)))


def module_ranges(module: ir.Module, names) -> dict[str, Range]:
    """The range of each symbolic variable of the functions `names` of `module` (those their
    parameters use or their attributes bound) where every one of them holds: the largest least
    value, the smallest largest."""
    out: dict[str, Range] = {}
    for name in names:
        f = module.function(name)
        if not isinstance(f, ir.Function):
            continue
        ranges = FunctionRanges(f)
        own = {v.name for p in f.params for v in ir.sinfo_prim_vars(p.sinfo)}
        own |= set(ranges.upper) | set(ranges.lower) | ranges.non_negative
        for k in sorted(own):
            r = ranges.of(k)
            out[k] = out[k].both(r) if k in out else r
    return out


def else_floors(cond, defs: dict) -> dict:
    """{VAR: least} that an `if`'s condition guarantees in its else-branch: a guard of one
    comparison `VAR <= MAX` (or `VAR < MAX + 1`) is false exactly when VAR > MAX. A guard of
    several (`a <= 8 and b <= 4`) is false when either is, which bounds no one variable."""
    e = ir.resolve(cond, defs)
    if type(e) is ir.PrimValue:
        e = e.value
    terms = guard_terms(e)
    if terms is None or len(terms) != 1:
        return {}
    most = largest_values(terms)
    return {name: value + 1 for name, value in most.items()}


def guard_bounds(cond, defs: dict) -> dict:
    """{VAR: MAX} that an `if`'s condition guarantees in its then-branch: the condition (a
    var, through aliases, bound to `R.prim_value(...)`) read as a guard by guards.py."""
    e = ir.resolve(cond, defs)
    if type(e) is ir.PrimValue:
        e = e.value
    terms = guard_terms(e)
    return largest_values(terms) if terms is not None else {}
