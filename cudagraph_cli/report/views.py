"""The views of `cgraph diff`: terminal (rich), JSON, self-contained HTML.

All three show the same facts (report/analysis.py); `--format unified`, a patch of the input's
own text, is patch_view.py's. The JSON schema is documented in docs/DIFF.md; its "schema"
field is bumped on any incompatible change.
"""

from __future__ import annotations

import html
import re
import textwrap
from collections import Counter
from dataclasses import dataclass, field

from ..passes.explain import about_text, capture_hint, counted_text, names_text
from . import bucket_view
from .analysis import BindingFact, FunctionFacts, ModuleFacts
from .graph_cost import KeyedGraphs
from .graph_warnings import GraphCountCheck, GraphWarning, check_graph_counts

SCHEMA = 1


def _host_work(facts) -> str:
    return f"{facts.host_work_before} -> {facts.host_work_after}"


def _removed(facts) -> str:
    """1 - after/before as a percentage: negative when a rewrite adds host work."""
    before, after = facts.host_work_before, facts.host_work_after
    if not before:
        return "-"
    if after <= before:
        return _pct(before - after, before)
    return "-" + _pct(after - before, before)


def _pct(part: int, whole: int) -> str:
    """Whole percentages exactly; otherwise one decimal, and never 100% unless all."""
    if not whole:
        return "-"
    if (100 * part) % whole == 0:
        return f"{100 * part // whole}%"
    return f"{min(100.0 * part / whole, 99.9):.1f}%"


# ---- JSON --------------------------------------------------------------------------------

def to_json(facts: ModuleFacts, source: str, graphs: GraphCountCheck | None = None) -> dict:
    """`graphs`: the graph count check of `cgraph diff` (its thresholds); None: the default
    threshold, no gate."""
    graphs = graphs if graphs is not None else check_graph_counts(facts)
    scopes = sorted(set(facts.static_bytes) | set(facts.unshared_bytes))
    return {
        "schema": SCHEMA,
        "module": source,
        "functions": [_function_json(f) for f in facts.functions],
        "totals": {
            "kernel_launches": facts.kernel_launches,
            "captured": facts.captured,
            "captured_ratio": round(facts.ratio, 6),
            "regions": sum(f.regions for f in facts.functions),
            "host_launches_before": sum(f.kernel_launches for f in facts.functions),
            "host_launches_after": sum(f.kernel_launches_after + f.regions
                                       for f in facts.functions),
            **_host_work_json(facts, facts.functions),
            "graphs_at_most": _at_most_json(facts.graphs_at_most),
        },
        "memory": {s: {"static_bytes": facts.static_bytes.get(s, 0),
                       "unshared_bytes": facts.unshared_bytes.get(s, 0),
                       "saved_bytes": facts.unshared_bytes.get(s, 0)
                       - facts.static_bytes.get(s, 0)} for s in scopes},
        "graph_count": {"warn_over_graphs": graphs.warn_over,
                        "fail_over_graphs": graphs.fail_over,
                        "threshold": graphs.threshold,
                        "warnings": [_graph_warning_json(w) for w in graphs.warnings],
                        "failed": graphs.failed},
        "notes": facts.notes,
    }


def _graph_warning_json(w: GraphWarning) -> dict:
    s = w.suggestion
    return {"function": w.function, "line": w.loc.line, "column": w.loc.col,
            "graphs": _at_most_json(w.graphs), "threshold": w.threshold,
            "keyed_launches": w.keyed_launches,
            "keyed_by": [{"name": name, "values": _at_most_json(count), "least": least,
                          "bound_from": source, "in_capture_hint": name in w.capture_hint}
                         for name, count, source, least in w.keys],
            "capture_hint": list(w.capture_hint),
            "suggestion": {"option": s.option(), "bounds": dict(s.bounds),
                           "graphs": s.graphs} if s.bounds else None,
            "message": w.message()}


def _function_json(f: FunctionFacts) -> dict:
    return {
        "name": f.name,
        "kernel_launches": f.kernel_launches,
        "captured": f.captured,
        "captured_ratio": round(f.ratio, 6),
        "regions": f.regions,
        "graph_launches_per_call": f.regions,
        "host_launches_before": f.kernel_launches,
        "host_launches_after": f.kernel_launches_after + f.regions,
        **_host_work_json(f, [f]),
        "host_work_above_bound": f.host_work_above_bound,
        "graphs_at_most": _at_most_json(f.graphs_at_most),
        "keyed_graphs": [_keyed_json(k) for k in f.keyed],
        "buckets": bucket_view.function_json(f),
        "reasons": [{"code": code, "count": n, "names": list(names),
                     "hint": capture_hint(code, names) or None}
                    for code, n, names in f.reasons],
        "bindings": [{"line": b.line, "text": b.text, "region": b.region, "slot": b.slot,
                      "launch": b.launch,
                      "reason": None if b.reason is None else
                      {"code": b.reason[0], "message": b.reason[1],
                       "names": list(b.reason[2]),
                       **({"rule": b.reason[3]} if b.reason[3] is not None else {})}}
                     for b in f.bindings],
    }


def _at_most_json(n: int | None):
    return "unbounded" if n is None else n


def _keyed_json(k: KeyedGraphs) -> dict:
    return {"capture_function": k.capture, "launches": k.launches,
            "keys": [{"name": name, "values": _at_most_json(count), "least": least,
                      "bound_from": source} for name, count, source, least in k.keys],
            "graphs_per_launch": _at_most_json(k.graphs_per_launch),
            "graphs": _at_most_json(k.graphs),
            "shared_static_bytes": dict(sorted(k.static_bytes.items()))}


def _host_work_json(facts, functions: list) -> dict:
    """The host work fields (docs/DIFF.md), for one function or the totals."""
    return {
        "kernel_launches_after": sum(f.kernel_launches_after for f in functions),
        "builtins_before": sum(f.builtins_before for f in functions),
        "builtins_after": sum(f.builtins_after for f in functions),
        "host_work_before": facts.host_work_before,
        "host_work_after": facts.host_work_after,
        "host_work_removed": round(facts.host_work_removed, 6),
        "single_kernel_graphs": facts.single_kernel_graphs,
    }


def _graph_launches_text(n: int) -> str:
    return f"{n} graph launch" + ("" if n == 1 else "es")


def _single_kernel_flag(f: FunctionFacts) -> str:
    return (f"; {f.single_kernel_graphs} of them a single kernel, saving nothing "
            "(--min-kernels 2)" if f.single_kernel_graphs else "")


def _html_hint(code: str, names) -> str:
    hint = capture_hint(code, names)
    return f"; {html.escape(hint)} would capture them" if hint else ""


# What graphs keyed by symbolic values cost: a row per capture function and bounds, then a
# row per function with the graphs it can make at most (its unkeyed graphs included). A site
# is a binding that launches a capture function's graph (docs/GLOSSARY.md).
KEYED_COLUMNS = ("function", "capture function", "sites", "keyed by", "graphs at most",
                 "static bytes")
_KEYED_CAPTION = ("keyed by: each variable's values and where their bound comes from (a "
                  "guard of --capture-symbolic VAR:MAX, or tir_var_upper_bound); graphs at "
                  "most: sites x the values of the keying variables together; "
                  "static bytes: the shared allocation's storages the graphs are given, "
                  "held once: every graph of the capture function replays into them")


def _count_text(n: int | None) -> str:
    return "unbounded" if n is None else f"{n:,}"


def _keyed_rows(facts: ModuleFacts):
    """(cells, is a function's total) for the keyed-graphs table of the terminal and HTML."""
    for f in facts.functions:
        if not f.keyed:
            continue
        for k in f.keyed:
            keys = ", ".join(
                f"{name}: unbounded" if count is None else
                f"{name}: {count} buckets" if source == "buckets" else
                f"{name}: {least}..{count + least - 1} "
                f"({'guard' if source == 'guard' else 'upper bound'})"
                for name, count, source, least in k.keys)
            memory = ", ".join(f"{n:,}" if scope == "global" else f"{scope}: {n:,}"
                               for scope, n in sorted(k.static_bytes.items())) or "0"
            yield (f.name, k.capture, str(k.launches), keys, _count_text(k.graphs),
                   memory), False
        if f.unkeyed_launches:
            # so that the rows add up to the total below (the 1B's prefill: 18 keyed sites
            # and 558 graphs, and its last graph, keyed by nothing: 19 and 559)
            yield (f.name, "not keyed (one graph each)", str(f.unkeyed_launches), "",
                   str(f.unkeyed_launches), ""), False
        launches = f.unkeyed_launches + sum(k.launches for k in f.keyed)
        yield (f.name, "all its graphs, at most", str(launches), "",
               _count_text(f.graphs_at_most), ""), True


# ---- the listing: rows shared by the terminal and HTML views ------------------------------

# One colour per region, cycling: no red (the reasons' colour) and no yellow (the storages');
# the HTML's storage, reason and plain colours are in _CSS (#92400e, #b91c1c, #6b7280).
REGION_COLORS = ["cyan", "magenta", "green", "blue", "bright_cyan", "bright_magenta",
                 "bright_green", "bright_blue"]
HTML_COLORS = ["#0e7490", "#7e22ce", "#15803d", "#1d4ed8", "#0f766e", "#a21caf", "#4d7c0f",
               "#4338ca"]
STORAGE_COLOR, REASON_COLOR = "yellow", "red"
# A run of this many lines nothing happens to (or more) is folded into one line: on the 1B
# model of samples/real they are the 98 weights unpacked at the top of each function and,
# between the launches, the alloc_tensor / alias / reshape lines around each one.
PLAIN_RUN = 2


@dataclass
class Row:
    """One line of a function's listing. `binding`: the binding shown, None for a fold (then
    `folded` holds the bindings it stands for, `text` says what they are). `span`: the
    region whose bracket passes through this line (a storage or other line between two of a
    region's bindings included), `edge`: "open" (the region's first binding: `┌`),
    "close" (its last: `└`), "mid" (`│`), or "" (outside every region)."""

    binding: BindingFact | None
    span: int | None = None
    edge: str = ""
    folded: list = field(default_factory=list)
    text: str = ""

    @property
    def tag(self) -> str:
        b = self.binding
        if b is None:
            region = self.folded[0].region
            return "" if region is None else f"R{region}"
        if b.region is not None:
            return f"R{b.region}"
        return f"S{b.slot}" if b.slot is not None else ""

    @property
    def bracket(self) -> str:
        return {"open": "┌", "close": "└", "mid": "│"}.get(self.edge, " ")

    @property
    def continues(self) -> bool:
        """Whether the bracket goes on below this line (reason lines under it draw it)."""
        return self.edge in ("open", "mid")


def plain(b: BindingFact) -> bool:
    """A line nothing happens to: not lifted, not a launch (every launch left outside has a
    reason), not a lifted storage."""
    return b.region is None and b.slot is None and b.launch is None and b.reason is None


def _spans(bindings: list) -> list:
    """Per binding, the region whose bracket passes through it and the edge drawn there: a
    region's bracket runs from its first binding to its last, so a storage or a plain line
    between them does not open it again."""
    first, last = {}, {}
    for i, b in enumerate(bindings):
        if b.region is not None:
            first.setdefault(b.region, i)
            last[b.region] = i
    out = []
    for i, b in enumerate(bindings):
        if b.region is not None:
            r = b.region
            edge = "open" if i == first[r] else "close" if i == last[r] else "mid"
        else:
            inside = [r for r in first if first[r] < i < last[r]]
            # Spans overlap only if a planner interleaves regions; the latest opened is drawn.
            r = max(inside, key=first.get) if inside else None
            edge = "mid" if inside else ""
        out.append((r, edge))
    return out


def _kind(text: str) -> str:
    """What a plain line does, from its text: `alloc_tensor`, `reshape`, `alias`, `item`."""
    rhs = text.split(" = ", 1)[1] if " = " in text else text
    m = re.match(r"([\w.]+)\(", rhs)
    if m:
        return m.group(1).rsplit(".", 1)[-1]
    if re.fullmatch(r"\w+\[\d+\]", rhs):
        return "item"
    return "alias" if re.fullmatch(r"\w+", rhs) else "tuple" if rhs.startswith("(") else "other"


def fold_text(bindings: list) -> str:
    """`98 lines: packed_params[0..97] unpacked`, or `4 lines: alloc_tensor 2, alias 2`."""
    n = len(bindings)
    items = [re.fullmatch(r".* = (\w+)\[(\d+)\]", b.text) for b in bindings]
    if all(items) and len({m.group(1) for m in items}) == 1:
        idx = [int(m.group(2)) for m in items]
        if idx == list(range(idx[0], idx[0] + n)):
            return f"{n} lines: {items[0].group(1)}[{idx[0]}..{idx[-1]}] unpacked"
    kinds = Counter(_kind(b.text) for b in bindings)
    return f"{n} lines: " + ", ".join(f"{k} {c}" for k, c in kinds.items())


def listing(f: FunctionFacts, fold: int) -> list:
    """The rows of one function's listing. With `fold` > 0, a run of more than `fold`
    bindings in one graph keeps its first 3 and last 2, the rest folded into one row, and a
    run of PLAIN_RUN or more lines nothing happens to is folded into one row; 0: nothing."""
    spans = _spans(f.bindings)
    rows, i, items = [], 0, f.bindings
    while i < len(items):
        b = items[i]
        key = ("region", b.region) if b.region is not None else ("plain",) if plain(b) else None
        j = i
        while key is not None and j + 1 < len(items) and (
                items[j + 1].region == b.region if key[0] == "region" else plain(items[j + 1])):
            j += 1
        run = [Row(items[k], *spans[k]) for k in range(i, j + 1)]
        if fold and key and key[0] == "region" and len(run) > fold:
            middle = items[i + 3:j - 1]
            rows += run[:3] + [Row(None, b.region, "mid", middle,
                                   f"{len(middle)} more bindings in graph R{b.region}")]
            rows += run[-2:]
        elif fold and key == ("plain",) and len(run) >= PLAIN_RUN:
            rows.append(Row(None, run[0].span, run[0].edge, items[i:j + 1],
                            fold_text(items[i:j + 1])))
        else:
            rows += run
        i = j + 1
    return rows


def reason_text(b: BindingFact) -> str:
    return f"✗ {b.reason[0]}: {b.reason[1]}"


# ---- terminal -----------------------------------------------------------------------------

GUTTER = 8  # " R100 ┌ ": the region or slot tag, the bracket


def _gutter(row: Row, tag: str, tag_style: str, bracket: str):
    from rich.text import Text

    line = Text(" ")
    line.append(f"{tag:<5}", style=tag_style)
    color = REGION_COLORS[row.span % len(REGION_COLORS)] if row.span is not None else ""
    line.append(bracket, style=color)
    line.append(" ")
    return line


def _wrapped(text: str, width: int, indent: int = 0, figures: bool = False) -> list:
    """`text` in lines of at most `width` characters, continuation lines indented; an option
    and its value (`--min-kernels 2`) kept on one line. `figures`: a figure is never broken
    either (`587 -> 271`, `417 of 539`, a long number): on a console too narrow for it, it
    runs past the width whole. A console too narrow for a label beside the text still gets a
    few characters a line (never an error)."""
    width = max(width, indent + 8)
    text = re.sub(r"(--[\w-]+) (\w+)", "\\1\xa0\\2", text)
    if figures:
        text = re.sub(r"(\d) (->|of) (\d)", "\\1\xa0\\2\xa0\\3", text)
    return [line.replace("\xa0", " ") for line in textwrap.wrap(
        text, width, subsequent_indent=" " * indent, break_on_hyphens=False,
        break_long_words=not figures)] or [""]


def _print_rows(rows: list, console, fold: int) -> None:
    width = max(console.width - GUTTER, 8)
    shown = set()  # the (code, names) whose reason is already printed whole
    for row in rows:
        b = row.binding
        if b is None:
            style = (REGION_COLORS[row.span % len(REGION_COLORS)] + " italic"
                     if row.folded[0].region is not None else "dim italic")
            line = _gutter(row, row.tag, style, row.bracket)
            line.append(_crop(f"… {row.text}", width), style=style)
            console.print(line)
            continue
        if b.region is not None:
            style = tag_style = REGION_COLORS[b.region % len(REGION_COLORS)]
        elif b.slot is not None:
            style, tag_style = "", STORAGE_COLOR
        else:
            style, tag_style = ("" if b.launch else "dim"), "dim"
        line = _gutter(row, row.tag, tag_style, row.bracket)
        if b.slot is not None:
            note = f"  -> cuda_graph_alloc slot {b.slot}"
            if width - len(note) < 12:
                note = f" -> slot {b.slot}"  # a narrow console: the code keeps a little room
            line.append(_crop(b.text, width - len(note)), style=style)
            line.append(note, style=STORAGE_COLOR)
        else:
            line.append(_crop(b.text, width), style=style)
        console.print(line)
        if b.reason is not None:
            # On lines of their own, whole: a reason is what the reader came for. A cause
            # already given whole above (prefill's 97 symbolic-shape launches on the 1B
            # model, 3 lines each) is named in one line when folding; --fold 0 repeats it.
            code, _, names = b.reason[:3]
            text = reason_text(b)
            if fold and (code, names) in shown:
                text = f"✗ {code}" + (f" ({names_text(names)})" if names else "") + ", as above"
            shown.add((code, names))
            for text in _wrapped(text, width - 2, 2):
                line = _gutter(row, "", "", "│" if row.continues else " ")
                line.append("  " + text, style=REASON_COLOR)
                console.print(line)


def _crop(text: str, width: int) -> str:
    """Code longer than the line, cut with `…` (the HTML and JSON views have it whole)."""
    return text if len(text) <= width else text[:max(width - 1, 0)] + "…"


def terminal_text(facts: ModuleFacts, width: int, function: str | None = None,
                  fold: int = 12, summary_only: bool = False) -> str:
    """render_terminal's text on a console `width` columns wide, without colour (api.diff_text)."""
    import io

    from rich.console import Console

    out = io.StringIO()
    render_terminal(facts, Console(file=out, width=width, color_system=None, highlight=False,
                                   soft_wrap=True), function, fold, summary_only)
    return out.getvalue()


def render_terminal(facts: ModuleFacts, console, function: str | None = None,
                    fold: int = 12, summary_only: bool = False) -> None:
    from rich.text import Text

    if not summary_only:
        for f in facts.functions:
            if function is not None and f.name != function:
                continue
            head = (f"function {f.name}: {f.captured} of {f.kernel_launches} kernel launches "
                    f"captured in {_graph_launches_text(f.regions)}")
            flag = _single_kernel_flag(f)
            # The flag on a line of its own when both do not fit: its option kept whole.
            parts = [head + flag] if len(head + flag) <= console.width else [head + ";",
                                                                            flag[2:]]
            for k, part in enumerate(p for p in parts if p):
                for text in _wrapped(part, console.width - 2 * (k > 0), 2):
                    console.print(Text("  " * (k > 0) + text, style="bold"))
            _print_rows(listing(f, fold), console, fold)
            console.print()
    render_summary(facts, console)


# ---- the terminal summary: tables that fit the console, or stacked ---------------------------

@dataclass(frozen=True)
class Column:
    """A column of a terminal table. Its header and cells are shown whole; a `prose` column
    (words, not numbers or names) may wrap, and is given at least PROSE_WIDTH."""

    header: str  # a line break where a header takes two lines
    justify: str = "right"
    prose: bool = False

    @property
    def width(self) -> int:
        return max(len(line) for line in self.header.split("\n"))

    @property
    def label(self) -> str:
        return self.header.replace("\n", " ")


PROSE_WIDTH = 24


def table_width(columns: tuple, rows: list) -> int:
    """The width a rich table of `rows` ((cells, bold) pairs) takes with every header and every
    cell whole (prose at PROSE_WIDTH): its cells, a space each side, and the rules between."""
    widths = [max(c.width, PROSE_WIDTH) if c.prose else
              max([c.width] + [len(cells[i]) for cells, _ in rows])
              for i, c in enumerate(columns)]
    return sum(widths) + 3 * len(columns) + 1


def _line(console, text: str, style: str = "") -> None:
    """A line the summary wrapped itself, printed as it is: a figure that runs past a very
    narrow console stays whole rather than folded by rich."""
    from rich.text import Text

    console.print(Text(text, style=style), no_wrap=True, overflow="ignore", crop=False)


def print_table(console, title: str, columns: tuple, rows: list, caption: str = "",
                stacked=None) -> None:
    """`rows` as a table when every number, name and header fits the console whole; else
    stacked: `stacked(console)` if given, or a block a row, its first cell on a line of its
    own and each other cell under it beside its header. A number is never cut: at 80 columns
    the 1B model's summary cut 98.3% to `98…` and its headers to `ke…`."""
    from rich.table import Table

    if table_width(columns, rows) <= console.width:
        table = Table(title=title, caption=caption or None)
        for c in columns:
            table.add_column(c.header, justify=c.justify, no_wrap=not c.prose,
                             min_width=PROSE_WIDTH if c.prose else None)
        for cells, bold in rows:
            table.add_row(*cells, style="bold" if bold else None)
        console.print(table, soft_wrap=False)  # titles and captions wrapped at the width
        return
    for text in _wrapped(title, console.width, figures=True):
        _line(console, text, style="italic")
    if stacked is not None:
        stacked(console)
    else:
        label = max(len(c.label) for c in columns[1:]) + 2
        for cells, bold in rows:
            _line(console, cells[0], style="bold" if bold else "")
            for c, cell in zip(columns[1:], cells[1:]):
                if not cell:
                    continue
                for k, text in enumerate(_wrapped(cell, console.width - label - 2,
                                                  figures=True)):
                    _line(console, f"  {c.label if k == 0 else '':<{label}}{text}")
    for text in _wrapped(caption, console.width, figures=True):
        _line(console, text, style="dim")


# Headers on two lines where that keeps the 32-layer demo's table within 80 columns.
SUMMARY_COLUMNS = (Column("function", "left"), Column("host work\nper call"),
                   Column("removed"), Column("kernel launches\ncaptured"),
                   Column("graph\nlaunches"), Column("one-kernel"))
SUMMARY_CAPTION = ("host work: kernel launches, graph launches and builtin calls that launch "
                   "device work, per call; graph launches: per call; one-kernel: graph "
                   "launches of a single kernel, which save nothing (docs/GLOSSARY.md)")


def _summary_cells(f) -> tuple:
    """One function's (or the totals') row of the summary: what it saves first."""
    return (f.name if isinstance(f, FunctionFacts) else "total", _host_work(f), _removed(f),
            f"{f.captured} of {f.kernel_launches} ({_pct(f.captured, f.kernel_launches)})",
            str(graph_launches(f)), str(f.single_kernel_graphs))


def graph_launches(f) -> int:
    """Graph launches per call: a function's sites, or the module's."""
    if isinstance(f, FunctionFacts):
        return f.regions
    return sum(g.regions for g in f.functions)


def headline(facts: ModuleFacts) -> str:
    """The summary's first line: host work saved, then kernel launches captured and the
    graph launches that launch one kernel (those save nothing: docs/GLOSSARY.md)."""
    text = (f"host work per call {facts.host_work_before} -> {facts.host_work_after} "
            f"({_removed(facts)} removed); {facts.captured} of {facts.kernel_launches} kernel "
            f"launches captured ({_pct(facts.captured, facts.kernel_launches)}) in "
            f"{_graph_launches_text(graph_launches(facts))}")
    if facts.single_kernel_graphs:
        text += f", {facts.single_kernel_graphs} of them one-kernel (saving nothing)"
    return text


def render_summary(facts: ModuleFacts, console) -> None:
    """The tables under the listing (all of `--summary`): host work saved and kernel launches
    captured per function, why launches stayed outside, the shared memory, the graphs keyed
    by symbolic values; then the notes."""
    for text in _wrapped(f"cgraph diff: {headline(facts)}", console.width, 2, figures=True):
        _line(console, text, style="bold")
    every = [*facts.functions, facts]
    rows = [(_summary_cells(f), f is facts) for f in every]

    def stacked(console):
        for f, (cells, total) in zip(every, rows):
            _line(console, cells[0], style="bold" if total else "")
            one_kernel = f", {f.single_kernel_graphs} of them one-kernel" \
                if f.single_kernel_graphs else ""
            removed = f" ({cells[2]} removed)" if cells[2] != "-" else ""
            for label, text in (("host work / call", cells[1] + removed),
                                ("kernel launches captured", cells[3]),
                                ("graph launches", cells[4] + one_kernel)):
                for k, line in enumerate(_wrapped(text, console.width - 28, figures=True)):
                    _line(console, f"  {label if k == 0 else '':<26}{line}")

    print_table(console, "per function: host work removed, kernel launches captured",
                SUMMARY_COLUMNS, rows, SUMMARY_CAPTION, stacked)
    if any(f.reasons for f in facts.functions):
        _print_reasons(facts, console)
    scopes = sorted(set(facts.static_bytes) | set(facts.unshared_bytes))
    if scopes:
        rows = [((s, f"{st:,}", f"{un:,}", f"{un - st:,}"), False) for s in scopes
                for st, un in [(facts.static_bytes.get(s, 0), facts.unshared_bytes.get(s, 0))]]
        print_table(console, "static memory held by cuda_graph_alloc (bytes)",
                    (Column("scope", "left"), Column("allocated"), Column("unshared"),
                     Column("saved by sharing")), rows)
    if any(f.keyed for f in facts.functions):
        print_table(console, "graphs keyed by symbolic values (one graph per site and "
                    "distinct value)", KEYED_TERMINAL_COLUMNS,
                    list(_keyed_rows(facts)), _KEYED_CAPTION)
    _print_buckets(facts, console)
    for note in facts.notes:
        for text in _wrapped(f"note: {note}", console.width, 2, figures=True):
            _line(console, text)


KEYED_TERMINAL_COLUMNS = tuple(Column(c, "left" if c in ("function", "capture function",
                                                "keyed by") else "right",
                                      prose=c == "keyed by")
                               for c in KEYED_COLUMNS)
BUCKET_TERMINAL_COLUMNS = tuple(
    Column(c, "left" if c in ("function", "capture function", "variable", "buckets") else
           "right", prose=c == "buckets") for c in bucket_view.BUCKET_COLUMNS)


def _print_buckets(facts: ModuleFacts, console) -> None:
    """The bucketed graphs (bucket_view's rows) as a table that fits or stacks, as the other
    tables do, then what runs as before."""
    rows = [(cells, False) for cells in bucket_view.bucket_rows(facts)]
    if rows:
        print_table(console, "bucketed graphs (--capture-buckets)", BUCKET_TERMINAL_COLUMNS,
                    rows, bucket_view.BUCKET_CAPTION)
    for line in bucket_view.not_bucketed_lines(facts):
        for text in _wrapped(f"not bucketed: {line}", console.width, 2, figures=True):
            _line(console, text)


# "launches": of kernels and of builtins that launch device work (docs/GLOSSARY.md, "launch")
REASON_COLUMNS = (Column("function", "left"), Column("reason", "left"),
                  Column("launches\nleft outside"), Column("about", "left", prose=True))


def _print_reasons(facts: ModuleFacts, console) -> None:
    """Why launches stayed outside graphs: a row a function and reason; stacked, a line a
    reason under each function, as `rewrite --explain` counts them."""
    def stacked(console):
        for f in facts.functions:
            if f.reasons:
                _line(console, f.name, style="bold")
            for code, n, names in f.reasons:
                for text in _wrapped(counted_text(code, n, names), console.width - 2, 2):
                    _line(console, "  " + text)

    rows = [((f.name, code, str(n), about_text(code, names)), False)
            for f in facts.functions for code, n, names in f.reasons]
    print_table(console, "why launches stayed outside graphs", REASON_COLUMNS, rows,
                stacked=stacked)


# ---- HTML ---------------------------------------------------------------------------------

_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #111; }
h1 { font-size: 1.4em; overflow-wrap: anywhere; } h2 { font-size: 1.1em; margin-top: 2em; }
table { border-collapse: collapse; margin: 1em 0; }
td, th { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
td:first-child, th:first-child, .l { text-align: left; }
td.names { overflow-wrap: anywhere; }
td.l { white-space: nowrap; } td.names { white-space: normal; }
tr.total { font-weight: bold; }
.code { font-family: ui-monospace, monospace; font-size: 0.85em; }
.line { display: flex; align-items: stretch; }
.tag { flex: 0 0 4em; }
.br { flex: 0 0 0.7em; margin-right: 0.4em; border-left: 3px solid transparent; }
.br.open { border-top: 3px solid; } .br.close { border-bottom: 3px solid; }
.br.open, .br.close, .br.mid { border-left-color: currentColor; }
.txt { flex: 1 1 auto; min-width: 0; white-space: pre-wrap; overflow-wrap: anywhere;
       padding-left: 2em; text-indent: -2em; }
.plain { color: #6b7280; }
.storage .tag, .slot { color: #92400e; }
.slot, .opt { white-space: nowrap; }
.reason .txt { color: #b91c1c; padding-left: 3.5em; text-indent: -1.5em; }
details.fold > summary { list-style: none; cursor: pointer; }
details.fold > summary::-webkit-details-marker { display: none; }
.fold .txt { font-style: italic; }
details.fold[open] > summary .txt::after { content: " (shown)"; }
"""


def _html_bracket(row: Row, edge: str | None = None) -> str:
    edge = row.edge if edge is None else edge
    if not edge:
        return "<span class=\"br\"></span>"
    color = HTML_COLORS[row.span % len(HTML_COLORS)]
    return f"<span class=\"br {edge}\" style=\"color:{color}\"></span>"


def _html_row(row: Row) -> str:
    """One binding's line (and its reason's, under it) of the HTML listing."""
    esc = html.escape
    b = row.binding
    if b.region is not None:
        color = HTML_COLORS[b.region % len(HTML_COLORS)]
        cls, style = "line captured", f" style=\"color:{color}\""
    elif b.slot is not None:
        cls, style = "line storage", ""
    else:
        cls, style = "line" + ("" if b.launch else " plain"), ""
    text = esc(b.text)
    if b.slot is not None:
        text += f"  <span class=\"slot\">&rarr; cuda_graph_alloc slot {b.slot}</span>"
    out = (f"<div class=\"{cls}\" data-region=\"{'' if b.region is None else b.region}\""
           f"{style}><span class=\"tag\">{row.tag}</span>{_html_bracket(row)}"
           f"<span class=\"txt\">{text}</span></div>")
    if b.reason is not None:
        out += (f"\n<div class=\"line reason\"><span class=\"tag\"></span>"
                f"{_html_bracket(row, 'mid' if row.continues else '')}"
                f"<span class=\"txt\">{esc(reason_text(b))}</span></div>")
    return out


def _html_listing(f: FunctionFacts, fold: int) -> list:
    """A folded run is a <details>: its summary says what it holds, a click shows it."""
    out = []
    for row in listing(f, fold):
        if row.binding is not None:
            out.append(_html_row(row))
            continue
        region = row.folded[0].region
        style = "" if region is None else \
            f" style=\"color:{HTML_COLORS[region % len(HTML_COLORS)]}\""
        out.append(f"<details class=\"fold\"><summary class=\"line"
                   f"{'' if region is not None else ' plain'}\"{style} title=\"show the "
                   f"{len(row.folded)} folded lines\"><span class=\"tag\">{row.tag}</span>"
                   f"{_html_bracket(row)}<span class=\"txt\">&hellip; {html.escape(row.text)}"
                   "</span></summary>")
        # The folded lines keep the bracket of the region they lie in.
        out += [_html_row(Row(b, row.span, "mid" if row.edge else "")) for b in row.folded]
        out.append("</details>")
    return out


_MIN_KERNELS = "--min-kernels 2"
_OPT = f"<span class=\"opt\">{_MIN_KERNELS}</span>"  # not broken at its hyphens


def _fn_link(name: str) -> str:
    return f"<a href=\"#fn-{html.escape(name)}\">{html.escape(name)}</a>"


def render_html(facts: ModuleFacts, source: str, fold: int = 12) -> str:
    esc = html.escape
    out = ["<!DOCTYPE html>", "<html lang=\"en\"><head><meta charset=\"utf-8\">",
           f"<title>cgraph diff: {esc(source)}</title><style>{_CSS}</style></head><body>",
           f"<h1>cgraph diff: {esc(source)}</h1>",
           f"<p id=\"summary\">{esc(headline(facts)).replace('-&gt;', '&rarr;')}</p>",
           "<table id=\"functions\"><tr>" +
           "".join(f"<th>{esc(c.label)}</th>" for c in SUMMARY_COLUMNS) + "</tr>"]
    for f in [*facts.functions, facts]:
        cells = [esc(c).replace("-&gt;", "&rarr;") for c in _summary_cells(f)]
        out.append(("<tr class=\"total\"><td>total</td>" if f is facts else
                    f"<tr><td>{_fn_link(f.name)}</td>") +
                   "".join(f"<td>{c}</td>" for c in cells[1:]) + "</tr>")
    out.append(f"</table><p>{esc(SUMMARY_CAPTION)}</p>")
    if any(f.reasons for f in facts.functions):
        out.append("<table id=\"reasons\"><tr><th>function</th><th class=\"l\">reason</th>"
                   "<th>launches left outside</th><th class=\"l\">about</th></tr>")
        for f in facts.functions:
            for code, n, names in f.reasons:
                out.append(f"<tr><td>{_fn_link(f.name)}</td><td class=\"l\">{esc(code)}</td>"
                           f"<td>{n}</td><td class=\"l names\">{esc(', '.join(names))}"
                           f"{_html_hint(code, names)}</td></tr>")
        out.append("</table>")
    scopes = sorted(set(facts.static_bytes) | set(facts.unshared_bytes))
    if scopes:
        out.append("<table id=\"memory\"><tr><th>scope</th><th>allocated (bytes)</th>"
                   "<th>unshared</th><th>saved by sharing</th></tr>")
        for s in scopes:
            st, un = facts.static_bytes.get(s, 0), facts.unshared_bytes.get(s, 0)
            out.append(f"<tr><td>{esc(s)}</td><td>{st:,}</td><td>{un:,}</td>"
                       f"<td>{un - st:,}</td></tr>")
        out.append("</table>")
    if any(f.keyed for f in facts.functions):
        out.append("<table id=\"keyed-graphs\"><tr>" +
                   "".join(f"<th>{esc(c)}</th>" for c in KEYED_COLUMNS) + "</tr>")
        for row, total in _keyed_rows(facts):
            out.append(("<tr class=\"total\">" if total else "<tr>") +
                       f"<td>{_fn_link(row[0])}</td>" +
                       "".join(f"<td>{esc(c)}</td>" for c in row[1:]) + "</tr>")
        out.append(f"</table><p>{esc(_KEYED_CAPTION)}</p>")
    out += bucket_view.render_html(facts)
    for f in facts.functions:
        out.append(f"<section id=\"fn-{esc(f.name)}\"><h2>function {esc(f.name)}: {f.captured} of "
                   f"{f.kernel_launches} kernel launches captured in "
                   f"{_graph_launches_text(f.regions)}"
                   f"{esc(_single_kernel_flag(f)).replace(_MIN_KERNELS, _OPT)}</h2>")
        out.append("<div class=\"code\">")
        out += _html_listing(f, fold)
        out.append("</div></section>")
    for note in facts.notes:
        out.append(f"<p class=\"note\">note: {esc(note)}</p>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"
