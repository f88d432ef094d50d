"""`cgraph diff`'s CI gates: --fail-under, --fail-under-captured and --fail-over-graphs.

Which outcomes fail a CI job, and the line each failure says on stderr; the CLI prints them and
exits 1 when there is one. A module with no kernel launch fails either ratio gate whatever the
ratio asked: a ratio of 0 of 0 would pass any gate, and a file cut off before its Relax
functions is exactly such a module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # analysis imports the rewrite; the CLI imports this module lazily anyway
    from .analysis import ModuleFacts
    from .graph_warnings import GraphCountCheck


def gate_failures(facts: ModuleFacts, name: str, has_relax_functions: bool,
                  fail_under: float | None, fail_under_captured: float | None,
                  graphs: GraphCountCheck) -> list[str]:
    """A line for each gate that fails (none: they all pass). `facts` are IN's and OUT's,
    `name` IN's file, `graphs` the graph counts checked against --fail-over-graphs."""
    gates = [(flag, ratio) for flag, ratio in (("--fail-under", fail_under),
                                                ("--fail-under-captured", fail_under_captured))
             if ratio is not None]
    if gates and facts.kernel_launches == 0:
        flag, ratio = gates[0]
        return [f"cgraph diff: nothing to capture: {name} has no kernel launch"
                f"{'' if has_relax_functions else ' (no Relax function)'}; "
                f"{flag} {ratio:.1%} fails"]
    failures = []
    if fail_under is not None and facts.host_work_removed < fail_under:
        failures.append(f"cgraph diff: host work per call {facts.host_work_before} -> "
                        f"{facts.host_work_after} ({facts.host_work_removed:.1%} removed), "
                        f"below --fail-under {fail_under:.1%}")
    if fail_under_captured is not None and facts.ratio < fail_under_captured:
        failures.append(f"cgraph diff: {facts.captured} of {facts.kernel_launches} kernel "
                        f"launches captured ({facts.ratio:.1%}), below --fail-under-captured "
                        f"{fail_under_captured:.1%}")
    for w in graphs.failures:
        failures.append(f"cgraph diff: {w.function} makes "
                        f"{'unbounded' if w.graphs is None else f'up to {w.graphs:,}'} CUDA "
                        f"graphs, over --fail-over-graphs {graphs.fail_over:,}")
    return failures
