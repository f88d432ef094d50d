"""verify's check of the guards of bounded graphs (`--capture-symbolic VAR:MAX`,
passes/guards.py): the values each bounded variable takes (both sides of the bound), and
whether each graph ran exactly when its bound held."""

from __future__ import annotations

from ..passes.guards import Guard
from ..proof.ranges import Range
from .compare import Difference


def guard_values(guards: list[Guard], ranges: dict[str, Range]) -> dict[str, list[int]]:
    """For each variable a guard bounds from above (T, the largest value it allows: 7 for
    `n < 8`): its least positive value, T + 1, T, T + 2 (as many of them as are distinct and
    within the variable's range, `ranges`: proof/ranges.module_ranges), the values within
    the bound and above it taking turns."""
    thresholds: dict[str, int] = {}
    for g in guards:
        for name, value in g.bounds.items():
            thresholds.setdefault(name, value)
    out = {}
    for name, t in thresholds.items():
        r = ranges.get(name, Range(1, None))
        values = r.within((r.first_values()[0], t + 1, t, t + 2))
        if values:
            out[name] = values
    return out


def check_guards(guards: list[Guard], launched: list, syms: dict, fname: str,
                 call: int) -> Difference | None:
    """A difference of kind "guard" when a graph a guard bounds ran although a variable was
    above its bound, or (a guard in the function's own blocks, reached on every call) did not
    run although every variable was within: what a guard inverted or with its branches
    swapped does. `launched`: the indices of the graphs the call launched; `syms`: the
    values of the call's symbolic variables."""
    for g in guards:
        if g.function != fname or g.index is None:
            continue
        values = {name: syms.get(name) for name in g.bounds}
        if any(v is None for v in values.values()):
            continue
        within = all(values[name] <= bound for name, bound in g.bounds.items())
        ran = g.index in launched
        if ran == within or (not ran and not g.top_level):
            continue
        at = ", ".join(f"{name} = {values[name]}" for name in g.bounds)
        bound = " and ".join(f"{name} <= {b}" for name, b in g.bounds.items())
        where = "then" if g.graph_in_then else "else"
        if ran:
            why = f"ran at {at}, above its bound: a bounded graph runs only while {bound}"
        else:
            why = f"did not run at {at}, within its bound {bound}: its launches ran eagerly"
        message = (f"graph {g.index} ({g.capture or 'unnamed'}) {why} (its guard reads "
                   f"`{g.text()}`, the graph in its {where}-branch; --capture-symbolic "
                   f"VAR:MAX writes `VAR <= MAX` with the graph in the then-branch)")
        return Difference(fname, call, "", f"{fname}, call {call + 1}", message=message,
                          kind="guard", module="rewritten", loc=g.loc, site="the guarded if")
    return None
