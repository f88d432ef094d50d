"""`cgraph diff`'s report of bucketed graphs (`--capture-buckets`, report/bucket_facts.py): per
capture function keyed by a bucket, its buckets, the graphs it makes over the whole range
against one graph per value (exact capture up to the last bucket, and TVM's capture hint up to
the upper bound), the padding; per function, what runs as before and why. Terminal (views.py:
a table that fits or stacks, as the others), JSON and HTML from the same rows."""

from __future__ import annotations

import html

BUCKET_COLUMNS = ("function", "capture function", "launches", "variable", "buckets",
                  "graphs", "exact", "TVM's hint", "padding")
BUCKET_CAPTION = ("graphs: launches x buckets; exact: one graph per value up to the last "
                  "bucket (--capture-symbolic VAR:Bn); TVM's hint: one per value up to the "
                  "upper bound; padding: rows computed / rows needed, summed over every value "
                  "up to the last bucket")


def _sizes_text(sizes: tuple) -> str:
    if len(sizes) <= 8:
        return ", ".join(map(str, sizes))
    return f"{len(sizes)}: {', '.join(map(str, sizes[:4]))}, ..., {sizes[-1]}"


def bucket_rows(facts) -> list:
    """A row of cells per bucketed capture function, in function order."""
    rows = []
    for f in facts.functions:
        for s in f.buckets:
            rows.append((f.name, s.capture, str(s.launches), s.var, _sizes_text(s.sizes),
                         f"{s.graphs:,}", f"{s.exact_graphs:,}", f"{s.hint_graphs:,}",
                         f"{s.padding:.2f}x"))
    return rows


def not_bucketed_lines(facts) -> list:
    """A line per run that runs as before: function, kernels, how, why."""
    lines = []
    for f in facts.functions:
        for n in f.not_bucketed:
            how = f"an exact graph keyed by {n.var}" if n.exact else "eagerly"
            lines.append(f"{f.name}: {', '.join(n.kernels) or 'no kernel'} not bucketed "
                         f"({how}): {n.reason}")
    return lines


def site_json(s) -> dict:
    return {"capture_function": s.capture, "launches": s.launches, "variable": s.var,
            "buckets": list(s.sizes), "least": s.least, "upper_bound": s.upper,
            "graphs": {"bucketed": s.graphs, "exact": s.exact_graphs,
                       "tvm_hint": s.hint_graphs},
            "padding": round(s.padding, 6)}


def function_json(f) -> dict:
    """The `buckets` entry of a function in `cgraph diff --format json`."""
    return {"sites": [site_json(s) for s in f.buckets],
            "not_bucketed": [{"variable": n.var, "kernels": list(n.kernels),
                              "kept_exact": n.exact, "reason": n.reason}
                             for n in f.not_bucketed]}


def render_html(facts) -> list:
    esc = html.escape
    rows = bucket_rows(facts)
    out = []
    if rows:
        out.append("<table id=\"buckets\"><tr>" +
                   "".join(f"<th>{esc(c)}</th>" for c in BUCKET_COLUMNS) + "</tr>")
        for row in rows:
            out.append("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>")
        out.append(f"</table><p>{esc(BUCKET_CAPTION)}</p>")
    lines = not_bucketed_lines(facts)
    if lines:
        out.append("<ul id=\"not-bucketed\">" +
                   "".join(f"<li>not bucketed: {esc(x)}</li>" for x in lines) + "</ul>")
    return out
