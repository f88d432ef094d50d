"""`cgraph rewrite --explain`: why each kernel launch left outside a graph is there, as text."""

from __future__ import annotations

from ..passes.explain import counted_text, reason_counts


def explanation(report, name: str) -> str:
    """The notes of a RewriteReport, one line a launch left outside (located in the file
    `name`, with its reason code), one line a function counting its reasons, and a summary
    line of what was captured."""
    lines = []
    for note in report.notes:
        lines.append(f"{name}: note: {note}")
    by_function: dict[str, list] = {}
    for r in report.reasons:
        loc = r.binding.loc
        where = f"{name}:{loc.line}:{loc.col}" if loc.line else name
        lines.append(f"{where}: {r.function}: not captured [{r.code}]: {r.message}")
        by_function.setdefault(r.function, []).append((r.code, r.names))
    # The aggregate, per function: on a real model the lines above run to hundreds, most
    # of them one cause (prefill's 97 symbolic-shape of seq_len).
    for function, reasons in by_function.items():
        counted = "; ".join(counted_text(code, n, names)
                            for code, n, names in reason_counts(reasons))
        lines.append(f"{name}: {function}: left outside: {counted}")
    if report.plan is not None:
        kept = report.plan.kept_captures()
        lines.append(f"{name}: {len(kept)} region(s) captured, "
                     f"{sum(r.kernels for r in kept)} of "
                     f"{sum(report.plan.launches.values())} kernel launches")
    return "\n".join(lines)
