"""Functions that can make too many CUDA graphs: `cgraph diff`'s located warnings, its gate
`--fail-over-graphs`, and the `--capture-symbolic VAR:MAX` that would bound them.

TVM's runtime captures a graph the first time each launch meets a new key (docs/DIFF.md), so a
function's graphs at most (analysis.FunctionFacts.graphs_at_most, from graph_cost.py) are the
captures it may pay for while serving: each one costs capture and instantiation time on the
call that meets it, and device memory for the executable graph for as long as the model is
loaded (the storages its graphs replay into are shared and held once; the graphs themselves
are not). DEFAULT_WARN_OVER_GRAPHS is what docs/DIFF.md justifies from published figures.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .graph_cost import CAPTURE_HINT, BoundSuggestion, keying_variables, suggest_bounds

if TYPE_CHECKING:  # analysis imports the rewrite; the CLI reads the default below without it
    from .analysis import FunctionFacts, ModuleFacts

# Graphs one function may make before `cgraph diff` warns (`--warn-over-graphs`). A graph costs
# capture time and device memory for as long as the model is loaded, so the threshold is the
# order of magnitude that separates a key bounded by a batch size (tens of graphs a launch:
# ordinary) from a key bounded by a sequence length (thousands a launch: minutes of captures
# and gigabytes held): MLC-LLM's batch_decode hint stays under it, its batch_verify hint goes
# over it. docs/DIFF.md ("The default, 4096 graphs a function") gives the costs.
DEFAULT_WARN_OVER_GRAPHS = 4096


@dataclass
class GraphWarning:
    """A function whose graphs are unbounded or more than the threshold."""

    function: str
    loc: object  # the original function's
    graphs: int | None  # at most; None: unbounded
    threshold: int
    threshold_option: str  # the option that set it: --warn-over-graphs or --fail-over-graphs
    keyed_launches: int  # its graph launches keyed by symbolic values
    launches: int  # all its graph launches (keyed or not)
    keys: list  # graph_cost.keying_variables
    capture_hint: tuple  # what its capture hint attribute names in the original
    suggestion: BoundSuggestion

    def message(self) -> str:
        """One line, most important first (a located message is clipped at 400 characters):
        the count, the bound that fixes it, what keys the graphs, where the keys come from."""
        if self.graphs is None:
            text = f"{self.function}: its CUDA graphs are unbounded"
        else:
            text = (f"{self.function}: up to {self.graphs:,} CUDA graphs, over "
                    f"{self.threshold:,} ({self.threshold_option})")
        s = self.suggestion
        if s.bounds:
            text += (f"; {s.option()} bounds them to {s.graphs:,} (the largest power of two "
                     f"within {self.threshold:,})")
        elif any(k[2] == "buckets" for k in self.keys):
            text += (f"; no --capture-symbolic bound brings them within {self.threshold:,}: "
                     f"a shorter --capture-buckets list does (a graph per bucket and launch)")
        else:
            text += (f"; no --capture-symbolic bound brings them within {self.threshold:,} "
                     f"(its {self.launches} graph launches make a graph each at least)")
        if not self.keys:
            return text + " (none of its graph launches is keyed by a symbolic value)"
        text += (f": {self.keyed_launches} graph launch(es) keyed by "
                 f"{', '.join(_key_text(k) for k in self.keys)}")
        hinted = [k[0] for k in self.keys if k[0] in self.capture_hint]
        if hinted:
            idle = [n for n in self.capture_hint if n not in hinted]
            text += (f", from its capture hint {CAPTURE_HINT} [{', '.join(self.capture_hint)}]" +
                     (f" ({', '.join(idle)} keys none)" if idle else ""))
        if len(self.keys) > 1 and s.bounds:
            values = {k[0]: k[1] for k in self.keys}
            others = [k for k in self.keys if k[0] not in s.bounds]
            why = []
            for name in s.bounds:
                if values[name] is None:
                    why.append(f"{name}: nothing else bounds it")
                else:
                    why.append(f"{name}: it has the most values ({values[name]:,}" +
                               "".join(f"; {k[0]}: {_count(k[1])}" for k in others) + ")")
            text += f"; bounding {', '.join(why)}"
        return text


@dataclass
class GraphCountCheck:
    """The functions over the threshold, and the gate's verdict."""

    warn_over: int  # --warn-over-graphs
    fail_over: int | None  # --fail-over-graphs; None: no gate
    warnings: list = field(default_factory=list)

    @property
    def threshold(self) -> int:
        """The warnings': the lesser of the two, so that every function the gate fails on is
        warned about, with a bound that would pass it."""
        return self.warn_over if self.fail_over is None else min(self.warn_over,
                                                                 self.fail_over)

    @property
    def failures(self) -> list:
        if self.fail_over is None:
            return []
        return [w for w in self.warnings if w.graphs is None or w.graphs > self.fail_over]

    @property
    def failed(self) -> bool | None:
        return None if self.fail_over is None else bool(self.failures)


def check_graph_counts(facts: ModuleFacts, warn_over: int = DEFAULT_WARN_OVER_GRAPHS,
                       fail_over: int | None = None) -> GraphCountCheck:
    """A GraphWarning for each function of `facts` whose graphs are unbounded or more than
    the threshold (the lesser of `warn_over` and `fail_over`)."""
    check = GraphCountCheck(warn_over, fail_over)
    option = "--fail-over-graphs" if fail_over is not None and fail_over < warn_over \
        else "--warn-over-graphs"
    for f in facts.functions:
        suggestion = suggest_bounds(f.keyed, f.unkeyed_launches, check.threshold)
        if suggestion is not None:
            check.warnings.append(_warning(f, check.threshold, option, suggestion))
    return check


def _warning(f: FunctionFacts, threshold: int, option: str,
             suggestion: BoundSuggestion) -> GraphWarning:
    keyed = sum(k.launches for k in f.keyed)
    return GraphWarning(f.name, f.loc, f.graphs_at_most, threshold, option, keyed,
                        keyed + f.unkeyed_launches, keying_variables(f.keyed), f.capture_hint,
                        suggestion)


def _count(n: int | None) -> str:
    return "unbounded" if n is None else f"{n:,}"


def _key_text(key: tuple) -> str:
    """`seq_len (1..2048, tir_var_upper_bound)`, `m (unbounded)`."""
    name, count, source, least = key
    if count is None:
        return f"{name} (unbounded)"
    if source == "buckets":  # --capture-buckets: one graph per bucket
        return f"{name} ({count:,} buckets, --capture-buckets)"
    return f"{name} ({least}..{least + count - 1:,}, {source})"
