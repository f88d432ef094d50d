"""`cgraph rewrite --explain`: why each kernel launch left outside a graph is there, as text."""

from __future__ import annotations

from ..passes.explain import counted_text, reason_counts
from ..passes.row_wise import kernel_verdicts


# The code of a launch in a function that --function leaves out: counted in its function's
# line, never a line a launch.
UNSELECTED = "function-not-selected"


def explanation(report, name: str) -> str:
    """The notes of a RewriteReport, one line a launch left outside (located in the file
    `name`, with its reason code; not for a function --function leaves out), one line a
    function counting its reasons, and a summary line of what was captured."""
    lines = []
    for note in report.notes:
        lines.append(f"{name}: note: {note}")
    by_function: dict[str, list] = {}
    for r in report.reasons:
        by_function.setdefault(r.function, []).append((r.code, r.names))
        if r.code == UNSELECTED:
            continue  # the function's one line below says it (396 lines on the 1B's others)
        loc = r.binding.loc
        where = f"{name}:{loc.line}:{loc.col}" if loc.line else name
        lines.append(f"{where}: {r.function}: not captured [{r.code}]: {r.message}")
    # The aggregate, per function: on a real model the lines above run to hundreds, most
    # of them one cause (prefill's 97 symbolic-shape of seq_len).
    for function, reasons in by_function.items():
        counted = "; ".join(counted_text(code, n, names)
                            for code, n, names in reason_counts(reasons))
        lines.append(f"{name}: {function}: left outside: {counted}")
    lines.extend(row_lines(report, name))
    if report.plan is not None:
        kept = report.plan.kept_captures()
        lines.append(f"{name}: {len(kept)} region(s) captured, "
                     f"{sum(r.kernels for r in kept)} of "
                     f"{sum(report.plan.launches.values())} kernel launches")
    return "\n".join(lines)


def row_variables(report) -> list:
    """The symbolic variables a bucketed capture could pad: those that keep launches outside
    graphs (symbolic-shape) and those that key a graph, in order of first mention."""
    names: dict = {}
    for r in report.reasons:
        if r.code == "symbolic-shape":
            names.update(dict.fromkeys(r.names))
    if report.plan is not None:
        for region in report.plan.kept_captures():
            names.update(dict.fromkeys(s.name for s in region.tir_vars))
    return list(names)


def row_lines(report, name: str) -> list:
    """One line a kernel launched with a tensor sized by such a variable: whether it treats
    the rows independently (`--capture-buckets` may pad it) and, when not, why."""
    if report.module is None:
        return []
    lines = []
    for var in row_variables(report):
        for kernel, v in kernel_verdicts(report.module, var).items():
            loc = report.module.function(kernel).loc
            where = f"{name}:{loc.line}:{loc.col}" if loc.line else name
            verdict = "row-wise" if v.row_wise else f"not row-wise: {v.reason}"
            lines.append(f"{where}: kernel {kernel}: {var}: {verdict}")
    return lines
