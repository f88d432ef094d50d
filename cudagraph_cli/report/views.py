"""The views of `cgraph diff`: terminal (rich), JSON, self-contained HTML, unified text diff.

All four show the same facts (report/analysis.py). The JSON schema is documented in
docs/DIFF.md; its "schema" field is bumped on any incompatible change.
"""

from __future__ import annotations

import difflib
import html

from ..passes.explain import about_text, capture_hint, counted_text
from .analysis import FunctionFacts, KeyedGraphs, ModuleFacts

SCHEMA = 1
# One colour per region, cycling (rich colour names; the HTML uses the same hues).
REGION_COLORS = ["cyan", "magenta", "green", "yellow", "blue", "bright_red", "bright_cyan",
                 "bright_magenta"]
HTML_COLORS = ["#0e7490", "#a21caf", "#15803d", "#a16207", "#1d4ed8", "#dc2626", "#0891b2",
               "#c026d3"]


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

def to_json(facts: ModuleFacts, source: str) -> dict:
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
            "host_launches_before": sum(f.host_launches_before for f in facts.functions),
            "host_launches_after": sum(f.host_launches_after for f in facts.functions),
            **_host_work_json(facts, facts.functions),
            "graphs_at_most": _at_most_json(facts.graphs_at_most),
        },
        "memory": {s: {"static_bytes": facts.static_bytes.get(s, 0),
                       "unshared_bytes": facts.unshared_bytes.get(s, 0),
                       "saved_bytes": facts.unshared_bytes.get(s, 0)
                       - facts.static_bytes.get(s, 0)} for s in scopes},
        "notes": facts.notes,
    }


def _function_json(f: FunctionFacts) -> dict:
    return {
        "name": f.name,
        "kernel_launches": f.kernel_launches,
        "captured": f.captured,
        "captured_ratio": round(f.ratio, 6),
        "regions": f.regions,
        "graph_launches_per_call": f.regions,
        "host_launches_before": f.host_launches_before,
        "host_launches_after": f.host_launches_after,
        **_host_work_json(f, [f]),
        "graphs_at_most": _at_most_json(f.graphs_at_most),
        "keyed_graphs": [_keyed_json(k) for k in f.keyed],
        "reasons": [{"code": code, "count": n, "names": list(names),
                     "hint": capture_hint(code, names) or None}
                    for code, n, names in f.reasons],
        "bindings": [{"line": b.line, "text": b.text, "region": b.region, "slot": b.slot,
                      "launch": b.launch,
                      "reason": None if b.reason is None else
                      {"code": b.reason[0], "message": b.reason[1],
                       "names": list(b.reason[2])}} for b in f.bindings],
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


def _single_kernel_flag(f: FunctionFacts) -> str:
    return (f"; {f.single_kernel_graphs} of them a single kernel, saving nothing "
            "(--min-kernels 2)" if f.single_kernel_graphs else "")


def reasons_line(f: FunctionFacts) -> str:
    """`symbolic-shape: 97 (seq_len); vm-builtin: 16 (...)`: one function's reasons in
    aggregate, as the terminal, HTML and `rewrite --explain` print them."""
    return "; ".join(counted_text(code, n, names) for code, n, names in f.reasons)


def _html_hint(code: str, names) -> str:
    hint = capture_hint(code, names)
    return f"; {html.escape(hint)} would capture them" if hint else ""


# What graphs keyed by symbolic values cost: a row per capture function and bounds, then a
# row per function with the graphs it can make at most (its unkeyed graphs included).
KEYED_COLUMNS = ("function", "capture function", "launches", "keyed by", "graphs",
                 "static bytes")
_KEYED_CAPTION = ("keyed by: each variable's values and where their bound comes from (a "
                  "guard of --capture-symbolic VAR:MAX, or tir_var_upper_bound); graphs: "
                  "launches x the values of the keying variables together; static bytes: "
                  "the shared allocation's storages the graphs are given, "
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
                f"{name}: {least}..{count + least - 1} "
                f"({'guard' if source == 'guard' else 'upper bound'})"
                for name, count, source, least in k.keys)
            memory = ", ".join(f"{n:,}" if scope == "global" else f"{scope}: {n:,}"
                               for scope, n in sorted(k.static_bytes.items())) or "0"
            yield (f.name, k.capture, str(k.launches), keys, _count_text(k.graphs),
                   memory), False
        launches = f.unkeyed_launches + sum(k.launches for k in f.keyed)
        yield (f.name, "all its graphs, at most", str(launches), "",
               _count_text(f.graphs_at_most), ""), True


# ---- terminal -----------------------------------------------------------------------------

def _folded(f: FunctionFacts, fold: int):
    """Bindings to show: long runs inside one region keep their first and last lines."""
    i = 0
    items = f.bindings
    while i < len(items):
        b = items[i]
        j = i
        while j + 1 < len(items) and b.region is not None and items[j + 1].region == b.region:
            j += 1
        run = items[i:j + 1]
        if fold and len(run) > fold:
            yield from run[:3]
            yield ("fold", len(run) - 5, b.region)
            yield from run[-2:]
        else:
            yield from run
        i = j + 1


def render_terminal(facts: ModuleFacts, console, function: str | None = None,
                    fold: int = 12, summary_only: bool = False) -> None:
    from rich.table import Table
    from rich.text import Text

    if not summary_only:
        for f in facts.functions:
            if function is not None and f.name != function:
                continue
            console.print(Text(f"function {f.name}: {f.captured} of {f.kernel_launches} kernel "
                               f"launches captured in {f.regions} graph(s)"
                               f"{_single_kernel_flag(f)}", style="bold"))
            prev_region = None
            for item in _folded(f, fold):
                if isinstance(item, tuple):
                    _, n, region = item
                    color = REGION_COLORS[region % len(REGION_COLORS)]
                    console.print(Text(f" R{region:<3}│   ... {n} more bindings in graph "
                                       f"R{region} ...", style=color))
                    continue
                b = item
                line = Text()
                if b.region is not None:
                    color = REGION_COLORS[b.region % len(REGION_COLORS)]
                    edge = "┌" if b.region != prev_region else "│"
                    line.append(f" R{b.region:<3}{edge} ", style=color)
                elif b.slot is not None:
                    line.append(f" S{b.slot:<3}│ ", style="dim")
                else:
                    line.append("     │ ", style="dim")
                line.append(b.text, style="dim" if b.region is None and not b.launch else "")
                if b.slot is not None:
                    line.append(f"   -> cuda_graph_alloc slot {b.slot}", style="dim")
                if b.reason is not None:
                    line.append(f"   <- {b.reason[0]}: {b.reason[1]}", style="red")
                console.print(line)
                prev_region = b.region
            console.print()
    table = Table(title="cgraph diff: kernel launches captured into CUDA graphs, host work "
                  "removed", caption="host work: kernel launches, graph launches and builtin "
                  "calls that launch device work, per call (docs/DIFF.md)")
    for col, just in (("function", "left"), ("kernel launches", "right"),
                      ("captured", "right"), ("%", "right"), ("graphs", "right"),
                      ("one-kernel graphs", "right"), ("host work / call", "right"),
                      ("removed", "right"), ("kernel launches / call", "right")):
        # Names whole (the 1B model's create_tir_paged_kv_cache); the headers wrap instead.
        table.add_column(col, justify=just, no_wrap=col == "function")
    for f in facts.functions:
        table.add_row(f.name, str(f.kernel_launches), str(f.captured),
                      _pct(f.captured, f.kernel_launches), str(f.regions),
                      str(f.single_kernel_graphs), _host_work(f), _removed(f),
                      f"{f.kernel_launches} -> {f.kernel_launches_after}")
    table.add_row("total", str(facts.kernel_launches), str(facts.captured),
                  _pct(facts.captured, facts.kernel_launches),
                  str(sum(f.regions for f in facts.functions)), str(facts.single_kernel_graphs),
                  _host_work(facts), _removed(facts),
                  f"{facts.kernel_launches} -> "
                  f"{sum(f.kernel_launches_after for f in facts.functions)}", style="bold")
    console.print(table)
    if any(f.reasons for f in facts.functions):
        why = Table(title="why launches stayed outside graphs")
        for col, just in (("function", "left"), ("reason", "left"), ("launches", "right"),
                          ("about", "left")):
            why.add_column(col, justify=just)
        for f in facts.functions:
            for code, n, names in f.reasons:
                why.add_row(f.name, code, str(n), about_text(code, names))
        console.print(why)
    scopes = sorted(set(facts.static_bytes) | set(facts.unshared_bytes))
    if scopes:
        mem = Table(title="static memory held by cuda_graph_alloc (bytes)")
        for col in ("scope", "allocated", "unshared", "saved by sharing"):
            mem.add_column(col, justify="left" if col == "scope" else "right")
        for s in scopes:
            st, un = facts.static_bytes.get(s, 0), facts.unshared_bytes.get(s, 0)
            mem.add_row(s, f"{st:,}", f"{un:,}", f"{un - st:,}")
        console.print(mem)
    if any(f.keyed for f in facts.functions):
        keyed = Table(title="graphs keyed by symbolic values (one graph per launch and "
                      "distinct value)", caption=_KEYED_CAPTION)
        for col in KEYED_COLUMNS:
            keyed.add_column(col, justify="left" if col in ("function", "capture function",
                                                            "keyed by") else "right",
                             no_wrap=col != "keyed by")
        for row, total in _keyed_rows(facts):
            keyed.add_row(*row, style="bold" if total else None)
        console.print(keyed)
    for note in facts.notes:
        console.print(f"note: {note}")


# ---- HTML ---------------------------------------------------------------------------------

_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #111; }
h1 { font-size: 1.4em; } h2 { font-size: 1.1em; margin-top: 2em; }
table { border-collapse: collapse; margin: 1em 0; }
td, th { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
td:first-child, th:first-child { text-align: left; }
tr.total { font-weight: bold; }
.code { border-left: 3px solid #ddd; font-family: ui-monospace, monospace;
        font-size: 0.85em; overflow-x: auto; }
.line { white-space: pre; }
.tag { display: inline-block; width: 4.5em; color: #666; }
.reason { color: #b91c1c; }
.slot { color: #666; }
.fold { font-style: italic; }
"""


def render_html(facts: ModuleFacts, source: str, fold: int = 12) -> str:
    esc = html.escape
    out = ["<!DOCTYPE html>", "<html lang=\"en\"><head><meta charset=\"utf-8\">",
           f"<title>cgraph diff: {esc(source)}</title><style>{_CSS}</style></head><body>",
           f"<h1>cgraph diff: {esc(source)}</h1>",
           f"<p id=\"summary\">{facts.captured} of {facts.kernel_launches} kernel launches "
           f"captured ({_pct(facts.captured, facts.kernel_launches)}) in "
           f"{sum(f.regions for f in facts.functions)} graph(s); host work per call "
           f"{facts.host_work_before} &rarr; {facts.host_work_after} ({_removed(facts)} "
           "removed)</p>",
           "<p>host work: kernel launches, graph launches and builtin calls that launch device "
           "work, per call</p>",
           "<table id=\"functions\"><tr><th>function</th><th>kernel launches</th>"
           "<th>captured</th><th>%</th><th>graphs</th><th>one-kernel graphs</th>"
           "<th>host work / call</th><th>removed</th><th>kernel launches / call</th></tr>"]
    for f in facts.functions:
        out.append(f"<tr><td>{esc(f.name)}</td><td>{f.kernel_launches}</td><td>{f.captured}"
                   f"</td><td>{_pct(f.captured, f.kernel_launches)}</td><td>{f.regions}</td>"
                   f"<td>{f.single_kernel_graphs}</td>"
                   f"<td>{f.host_work_before} &rarr; {f.host_work_after}</td>"
                   f"<td>{_removed(f)}</td>"
                   f"<td>{f.kernel_launches} &rarr; {f.kernel_launches_after}</td></tr>")
    out.append(f"<tr class=\"total\"><td>total</td><td>{facts.kernel_launches}</td>"
               f"<td>{facts.captured}</td><td>{_pct(facts.captured, facts.kernel_launches)}"
               f"</td><td>{sum(f.regions for f in facts.functions)}</td>"
               f"<td>{facts.single_kernel_graphs}</td>"
               f"<td>{facts.host_work_before} &rarr; {facts.host_work_after}</td>"
               f"<td>{_removed(facts)}</td><td>{facts.kernel_launches} &rarr; "
               f"{sum(f.kernel_launches_after for f in facts.functions)}</td></tr></table>")
    if any(f.reasons for f in facts.functions):
        out.append("<table id=\"reasons\"><tr><th>function</th><th>reason</th>"
                   "<th>launches left outside</th><th>about</th></tr>")
        for f in facts.functions:
            for code, n, names in f.reasons:
                out.append(f"<tr><td>{esc(f.name)}</td><td>{esc(code)}</td><td>{n}</td>"
                           f"<td>{esc(', '.join(names))}{_html_hint(code, names)}</td></tr>")
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
                       "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>")
        out.append(f"</table><p>{esc(_KEYED_CAPTION)}</p>")
    for f in facts.functions:
        out.append(f"<h2 id=\"fn-{esc(f.name)}\">function {esc(f.name)}: {f.captured} of "
                   f"{f.kernel_launches} kernel launches captured in {f.regions} graph(s)"
                   f"{esc(_single_kernel_flag(f))}</h2>")
        out.append("<div class=\"code\">")
        for item in _folded(f, fold):
            if isinstance(item, tuple):
                _, n, region = item
                color = HTML_COLORS[region % len(HTML_COLORS)]
                out.append(f"<div class=\"line fold\" style=\"color:{color}\">"
                           f"<span class=\"tag\">R{region}</span>... {n} more bindings in graph "
                           f"R{region} ...</div>")
                continue
            b = item
            if b.region is not None:
                color = HTML_COLORS[b.region % len(HTML_COLORS)]
                tag = f"<span class=\"tag\" style=\"color:{color}\">R{b.region}</span>"
                style = f" style=\"color:{color}\""
                cls = " captured"
            else:
                tag = f"<span class=\"tag\">{'S%d' % b.slot if b.slot is not None else ''}</span>"
                style = ""
                cls = ""
            extra = ""
            if b.slot is not None:
                extra += f" <span class=\"slot\">&rarr; cuda_graph_alloc slot {b.slot}</span>"
            if b.reason is not None:
                extra += (f" <span class=\"reason\" title=\"{esc(b.reason[1])}\">&#10007; "
                          f"{esc(b.reason[0])}: {esc(b.reason[1])}</span>")
            out.append(f"<div class=\"line{cls}\"{style}>{tag}{esc(b.text)}{extra}</div>")
        out.append("</div>")
    for note in facts.notes:
        out.append(f"<p class=\"note\">note: {esc(note)}</p>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


# ---- unified diff -------------------------------------------------------------------------

def render_unified(before: str, after: str, name_before: str, name_after: str) -> str:
    return "".join(difflib.unified_diff(before.splitlines(keepends=True),
                                        after.splitlines(keepends=True),
                                        fromfile=name_before, tofile=name_after))
