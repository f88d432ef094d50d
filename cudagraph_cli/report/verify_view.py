"""`cgraph verify`'s views of a VerifyReport: one paragraph of text, and JSON (docs/CLI.md)."""

from __future__ import annotations

from .check_view import note


def verify_json(result, name_a: str, name_b: str) -> dict:
    d = result.difference
    report = {"equal": result.equal, "original": name_a, "rewritten": name_b,
              "functions": result.functions, "calls": result.calls,
              "captures": result.captures, "replays": result.replays,
              "symbolic_values": result.symbolic,
              "bounded_graphs": [{"function": f, "graph": i, "guard": text}
                                 for f, i, text in result.guards],
              "kernel_launches": {"original": result.launches_original,
                                  "rewritten": result.launches_rewritten}}
    if result.bounds is not None:
        # The second run, at the upper bounds: its values, and "terms" (no bytes computed)
        # or "bytes" (the host reads computed bytes: why_bytes says where).
        report["bounds_run"] = dict(result.bounds)
    if d is not None:
        report["difference"] = {
            "kind": d.kind,
            "function": d.function, "call": d.call + 1, "output": d.output,
            "seen_after": d.checked_after,
            "element": list(d.element) if d.element is not None else None,
            "original": jsonable(d.original), "rewritten": jsonable(d.rewritten),
            "message": d.message}
        if d.host_call is not None:
            report["difference"]["replayed_host_call"] = {
                "symbol": d.host_call, "module": d.module,
                "file": name_a if d.module == "original" else name_b,
                "line": d.loc.line or None, "column": d.loc.col or None}
        if d.kind in ("ownership", "guard", "terms", "shape"):
            report["difference"].update({
                "module": d.module, "graph_input": d.graph_input,
                "file": name_a if d.module == "original" else name_b,
                "line": d.loc.line or None, "column": d.loc.col or None})
    return report


def bounds_text(bounds: dict | None) -> str:
    """The line that says which values the run at the upper bounds took, and in which mode
    (exec/verify.py, bounds_run); "" when none ran."""
    if bounds is None:
        return ""
    values = "; ".join(f"{k} = {', '.join(map(str, v))}" for k, v in bounds["values"].items())
    mode = ("terms only (no bytes computed)" if bounds["mode"] == "terms" else
            "with bytes" + (f" (the host reads computed bytes: {bounds['why_bytes']})"
                            if bounds["why_bytes"] else ""))
    text = f"\n  at the upper bounds: {values}, {bounds['calls']} calls each, {mode}"
    if bounds["stopped"]:
        text += f"; stopped, the original cannot run there: {bounds['stopped']}"
    if bounds["difference"]:
        text += "; the difference above is this run's"
    return text


def jsonable(v):
    """A compared element as JSON: NumPy scalars as Python numbers, anything else as text."""
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    try:
        return v.item()
    except AttributeError:
        return str(v)


def verify_text(result, name_a: str, name_b: str, texts: dict | None = None) -> str:
    """`texts`: the source of each module ("original", "rewritten") that has a file, for
    the excerpt under an ownership difference."""
    d = result.difference
    if d is None:
        text = (f"equal: {name_b} computes what {name_a} computes "
                f"({', '.join(result.functions)}: {result.calls} calls each; "
                f"{result.captures} graph capture(s), {result.replays} replay(s); "
                f"kernel launches {result.launches_original} vs {result.launches_rewritten})")
        if result.guards:
            # Which values ran, on which side of each bound: the proof of the bounded graphs.
            values = "; ".join(f"{k} = {', '.join(map(str, v))}"
                               for k, v in result.symbolic.items())
            text += (f"\n  {len(result.guards)} bounded graph launch(es) "
                     f"({', '.join(sorted({text for _, _, text in result.guards}))})"
                     f"; ran with {values}: each graph ran exactly within its bound")
        return text + bounds_text(result.bounds)
    return difference_text(result, name_a, name_b, texts) + bounds_text(result.bounds)


def difference_text(result, name_a: str, name_b: str, texts: dict | None) -> str:
    """verify_text of a report with a difference."""
    d = result.difference
    if d.kind == "shape":
        text = f"differ: function '{d.function}', call {d.call + 1}: {d.message}"
        source = (texts or {}).get("rewritten")
        if source is not None and d.loc.line:
            text += "\n" + note(name_b, source, d.loc, d.site)
        return text
    if d.kind == "guard":
        text = f"differ: guard in the rewritten module: function '{d.function}', call " \
               f"{d.call + 1}: {d.message}"
        source = (texts or {}).get("rewritten")
        if source is not None and d.loc.line:
            text += "\n" + note(name_b, source, d.loc, d.site)
        return text
    if d.kind == "ownership":
        what = f"graph input{d.graph_input}" if d.graph_input is not None else \
            f"output{d.output}"
        text = f"differ: ownership in the {d.module} module: function '{d.function}', call " \
               f"{d.call + 1}, {what}: {d.message}"
        source = (texts or {}).get(d.module)
        if source is not None:
            name = name_a if d.module == "original" else name_b
            text += "\n" + note(name, source, d.loc, d.site)
        return text
    where = f"function '{d.function}', call {d.call + 1}, output{d.output or ''}"
    if d.kind == "terms":
        # The bytes agree; what the output is made of does not (exec/terms.py).
        text = f"differ: {where}: the bytes agree, but not what they are made of: {d.message}"
        if d.checked_after != f"{d.function}, call {d.call + 1}":
            text += f" -- seen after {d.checked_after}"
        source = (texts or {}).get(d.module)
        if source is not None and d.loc.line:
            text += "\n" + note(name_b, source, d.loc, d.site)
        return text
    if d.message and d.element is None and d.original is None:
        return f"differ: {where}: {d.message}"
    text = f"differ: {where}"
    if d.element is not None:
        text += f", element {list(d.element)}: {d.original!r} (original) vs {d.rewritten!r} " \
                f"(rewritten)"
    else:
        text += f": {d.message}: {d.original!r} vs {d.rewritten!r}"
    if d.checked_after != f"{d.function}, call {d.call + 1}":
        text += f" -- seen after {d.checked_after}: a later call overwrote it"
    if d.host_call is not None:
        why = (f"a graph replays '{d.host_call}' with the host state of its capture: it does "
               "host work on every call (the capture-safety table), which a CUDA graph does "
               "not run again")
        name = name_a if d.module == "original" else name_b
        source = (texts or {}).get(d.module)
        if source is not None and d.loc.line:
            text += "\n" + note(name, source, d.loc, why)
        else:
            where = f"{name}:{d.loc.line}:{d.loc.col}" if d.loc.line else name
            text += f"\n{where}: note: {why}"
    return text
