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
    if result.shapes is not None:
        report["shape_facts"] = shape_facts_json(result.shapes, name_a, name_b)
    if result.row_wise_kernels:
        report["static_analysis"] = {"text": static_words(result.row_wise_kernels),
                                     "row_wise_kernels": result.row_wise_kernels}
    if result.bounds is not None:
        # The second run, at the upper bounds: its values, and "terms" (no bytes computed)
        # or "bytes" (the host reads computed bytes: why_bytes says where).
        report["bounds_run"] = result.bounds.as_json()
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
        if d.kind == "shape" and not d.checked_after:
            report["difference"]["call"] = None  # a fact of the text: no call ran it
        if d.kind in ("ownership", "guard", "terms", "shape"):
            report["difference"].update({
                "module": d.module, "graph_input": d.graph_input,
                "file": name_a if d.module == "original" else name_b,
                "line": d.loc.line or None, "column": d.loc.col or None})
    return report


def shape_facts_json(shapes, name_a: str, name_b: str) -> dict:
    """What the text proves for every value (proof/facts.py): counts, and each unproven
    fact with its expression."""
    def listed(facts):
        return [{"module": which, "kind": f.kind, "function": f.function,
                 "file": name_a if which == "original" else name_b,
                 "line": f.loc.line or None, "column": f.loc.col or None,
                 "message": f.message} for which, f in facts]

    return {"proved": shapes.count("proved"), "failed": shapes.count("failed"),
            "by_kind": shapes.by_kind(), "unproven": listed(shapes.unproven()),
            "failed_as_in_the_original": listed(shapes.kept())}


# Unproven facts listed in the text at most (a model with an unbounded variable has one at
# every tensor that depends on it); the JSON lists them all.
LISTED = 20


def shape_facts_text(shapes, name_a: str, name_b: str, upper: dict | None = None,
                     variables=()) -> str:
    """What the text proves, in plain words (docs/GLOSSARY.md, "shape fact"): for which values
    sizes and overlaps hold, over how many facts; then a line for each unproven fact (none is
    counted as proved) and each failed fact that is the original's. `upper`: the variables'
    upper bounds (VerifyReport.upper_bounds); `variables`: the symbolic variables of the
    functions verified."""
    if shapes is None:
        return ""
    unproven, kept = shapes.unproven(), shapes.kept()
    proved = shapes.count("proved")
    keys = shapes.by_kind().get("key", {}).get("proved", 0)
    text = (f"\n  memory: sizes and overlaps proved{values_words(upper or {}, variables)} "
            f"({proved:,} shape fact{'' if proved == 1 else 's'}: every tensor fits its "
            f"storage, every view its tensor, no two live tensors share a byte"
            + (f"; {keys:,} graph keys tell apart every value their graphs depend on"
               if keys > 1 else "; 1 graph key tells apart every value its graph depends on"
               if keys else "") +
            f"), {len(unproven)} unproven")
    if kept:
        text += f", {len(kept)} failed as in the original (no difference)"
    lines = [("unproven", which, f) for which, f in unproven] + \
        [("fails in the original too", which, f) for which, f in kept]
    for what, which, f in lines[:LISTED]:
        name = name_a if which == "original" else name_b
        where = f"{name}:{f.loc.line}:{f.loc.col}" if f.loc.line else name
        text += f"\n  {where}: {what} ({f.kind}, {f.function}): {f.message}"
    if len(lines) > LISTED:
        text += f"\n  ... and {len(lines) - LISTED} more (--format json lists them all)"
    return text


def values_words(upper: dict, variables) -> str:
    """` for every batch_size ≤ 32, seq_len ≤ 2048 and total_seq_len ≤ 8192`: the variables
    with an upper bound (a proved fact holds for every value of the others too); without
    one, ` for every value of n`; "" for a module without symbolic variables."""
    if upper:
        return " for every " + _and([f"{name} ≤ {most}" for name, most in sorted(upper.items())])
    return f" for every value of {_and(sorted(variables))}" if variables else ""


def _and(items: list) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def static_words(kernels: list) -> str:
    n = len(kernels)
    return f"row independence of {n} kernel{'' if n == 1 else 's'}, read from their TIR"


def static_text(kernels: list) -> str:
    """The line that says what verify's equal rests on beyond its runs and its proof: the
    row independence of the kernels it split into real and pad rows (exec/rows.py)."""
    if not kernels:
        return ""
    return (f"\n  not proved by the runs or the proof: {static_words(kernels)} "
            f"({', '.join(kernels[:8])}{', ...' if len(kernels) > 8 else ''})")


def bounds_text(bounds) -> str:
    """The line that says which values the run at the upper bounds took, and in which mode
    (exec/verify.py, bounds_run: a BoundsRun); "" when none ran."""
    if bounds is None:
        return ""
    values = "; ".join(f"{k} = {', '.join(map(str, v))}" for k, v in bounds.values.items())
    mode = ("outputs compared by terms only (what each is made of, no bytes computed)"
            if bounds.mode == "terms" else
            "outputs compared by their bytes" + (
                f" (the host reads computed bytes: {bounds.why_bytes})" if bounds.why_bytes
                else ""))
    text = (f"\n  at the upper bounds: {values} (a function's calls take each list's values in "
            f"turn), {bounds.calls} calls a function at most, {mode}")
    if bounds.stopped:
        text += f"; stopped, the original cannot run there: {bounds.stopped}"
    if bounds.difference:
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


_KEPT = "\x00"  # marks the lines of an excerpt, which wrapped() leaves as they are


def terminal_width() -> int | None:
    """The width verify's lines are wrapped at (a list of values at the bounds ran to 550
    characters): `COLUMNS` where set, else the terminal's when standard output is one; None
    (no wrapping) for a pipe or a file, where a line per statement is what grep wants."""
    import os
    import shutil
    import sys

    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    if hasattr(sys.stdout, "isatty") and sys.stdout.isatty():
        return shutil.get_terminal_size().columns
    return None


def wrapped(text: str, width: int | None) -> str:
    """Each line of `text` wrapped at `width` (None: as it is), its continuation lines
    indented two more than it; a word longer than the line (a path) and a bound (`n ≤ 16`)
    kept whole; an excerpt's lines (`excerpt`) as they are."""
    import textwrap

    out = []
    for line in text.split("\n"):
        if line.startswith(_KEPT) or width is None or len(line) <= width:
            out.append(line.removeprefix(_KEPT))
            continue
        indent = " " * (len(line) - len(line.lstrip()) + 2)
        # a bound stays on one line: `seq_len ≤ 2048`
        kept = line.replace(" ≤ ", "\xa0≤\xa0")
        out.extend(x.replace("\xa0", " ") for x in textwrap.wrap(
            kept, width, subsequent_indent=indent, break_long_words=False,
            break_on_hyphens=False))
    return "\n".join(out)


def excerpt(name: str, text: str | None, loc, what: str) -> str:
    """check_view.note, kept as it is by `wrapped` (its source line and caret)."""
    return "\n".join(_KEPT + line for line in note(name, text, loc, what).split("\n"))


def verify_text(result, name_a: str, name_b: str, texts: dict | None = None,
                width: int | None = -1) -> str:
    """`texts`: the source of each module ("original", "rewritten") that has a file, for
    the excerpt under an ownership difference. Lines wrapped at `width` (`wrapped`; -1: the
    terminal's, `terminal_width`; None: not wrapped)."""
    return wrapped(_verify_text(result, name_a, name_b, texts),
                   terminal_width() if width == -1 else width)


def _verify_text(result, name_a: str, name_b: str, texts: dict | None) -> str:
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
        if not result.captures:
            text += (f"\n  note: no CUDA graph was captured: {name_b} launches none in "
                     f"{', '.join(result.functions) or 'the functions run'}, so nothing of "
                     "CUDA-graph semantics was checked (cgraph rewrite makes the graphs)")
        return text + bounds_text(result.bounds) + \
            shape_facts_text(result.shapes, name_a, name_b, result.upper_bounds,
                             result.symbolic) + static_text(result.row_wise_kernels)
    return difference_text(result, name_a, name_b, texts) + bounds_text(result.bounds)


def difference_text(result, name_a: str, name_b: str, texts: dict | None) -> str:
    """verify_text of a report with a difference."""
    d = result.difference
    if d.kind == "shape":
        # A fact of the text (for every value: no call) or a tensor a run could not place
        name = name_a if d.module == "original" else name_b
        where = f"function '{d.function}'" + (f", call {d.call + 1}" if d.checked_after else "")
        text = f"differ: shape in the {d.module} module: {where}: {d.message}"
        source = (texts or {}).get(d.module)
        if source is not None and d.loc.line:
            text += "\n" + excerpt(name, source, d.loc, d.site)
        elif d.loc.line:
            text += f"\n{name}:{d.loc.line}:{d.loc.col}: note: {d.site}"
        return text
    if d.kind == "guard":
        text = f"differ: guard in the rewritten module: function '{d.function}', call " \
               f"{d.call + 1}: {d.message}"
        source = (texts or {}).get("rewritten")
        if source is not None and d.loc.line:
            text += "\n" + excerpt(name_b, source, d.loc, d.site)
        return text
    if d.kind == "ownership":
        what = f"graph input{d.graph_input}" if d.graph_input is not None else \
            f"output{d.output}"
        text = f"differ: ownership in the {d.module} module: function '{d.function}', call " \
               f"{d.call + 1}, {what}: {d.message}"
        source = (texts or {}).get(d.module)
        if source is not None:
            name = name_a if d.module == "original" else name_b
            text += "\n" + excerpt(name, source, d.loc, d.site)
        return text
    where = f"function '{d.function}', call {d.call + 1}, output{d.output or ''}"
    if d.kind == "terms":
        # The bytes agree; what the output is made of does not (exec/terms.py).
        text = f"differ: {where}: the bytes agree, but not what they are made of: {d.message}"
        if d.checked_after != f"{d.function}, call {d.call + 1}":
            text += f" -- seen after {d.checked_after}"
        source = (texts or {}).get(d.module)
        if source is not None and d.loc.line:
            text += "\n" + excerpt(name_b, source, d.loc, d.site)
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
            text += "\n" + excerpt(name, source, d.loc, why)
        else:
            where = f"{name}:{d.loc.line}:{d.loc.col}" if d.loc.line else name
            text += f"\n{where}: note: {why}"
    return text
