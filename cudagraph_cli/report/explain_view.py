"""`cgraph rewrite --explain`: why each kernel launch left outside a graph is there, as text."""

from __future__ import annotations


def explanation(report, name: str) -> str:
    """The notes of a RewriteReport, one line a launch left outside (located in the file
    `name`, with its reason code), and a summary line of what was captured."""
    lines = []
    for note in report.notes:
        lines.append(f"{name}: note: {note}")
    for r in report.reasons:
        loc = r.binding.loc
        where = f"{name}:{loc.line}:{loc.col}" if loc.line else name
        lines.append(f"{where}: {r.function}: not captured [{r.code}]: {r.message}")
    if report.plan is not None:
        kept = report.plan.kept_captures()
        lines.append(f"{name}: {len(kept)} region(s) captured, "
                     f"{sum(r.kernels for r in kept)} of "
                     f"{sum(report.plan.launches.values())} kernel launches")
    return "\n".join(lines)
