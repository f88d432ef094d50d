"""`cgraph check`'s views of a structural comparison: text with excerpts, and JSON."""

from __future__ import annotations

from ..diagnostics import located_message, one_line


def check_json(diff, name_a: str, name_b: str) -> dict:
    """`diff`: equality.module_difference's result (None when equal). Schema: docs/CLI.md."""
    report = {"equal": diff is None, "got": name_a, "expected": name_b}
    if diff is not None:
        report["difference"] = {
            "message": diff.message, "function": diff.function,
            "got": {"line": diff.loc_a.line, "column": diff.loc_a.col},
            "expected": {"line": diff.loc_b.line, "column": diff.loc_b.col}}
    return report


def check_text(diff, got, expected) -> str:
    """`got`, `expected`: the compared files' (name, text). The first difference shown in
    both files."""
    if diff is None:
        return f"equal: {got[0]} and {expected[0]} are structurally equal"
    return "\n".join([f"modules differ: {diff.message}",
                      note(got[0], got[1], diff.loc_a, "got"),
                      note(expected[0], expected[1], diff.loc_b, "expected")])


def note(name: str, text: str | None, loc, what: str) -> str:
    """A located note pointing into a file, `(what)` when there is no line to point at."""
    return located_message(name, text, loc, "note", what if loc.line > 0 else f"({what})")


# ---- the batch form: one line per pair, a summary, or one JSON report ----------------------

STATUSES = ("ok", "differs", "error", "missing")


def at(name: str, loc) -> str:
    """`FILE:LINE:COL`, or `FILE` where there is no line to point at."""
    return f"{name}:{loc.line}:{loc.col}" if loc.line > 0 else name


def pair_line(result) -> str:
    """One api.PairResult as a line: `STATUS` then where, grep-able and one line whatever the
    message holds."""
    if result.status == "ok":
        return f"ok {result.got} {result.expected}"
    if result.status == "missing":
        present, absent = ((result.got, "EXPECTED") if result.expected is None
                           else (result.expected, "GOT"))
        return f"missing {present}: no counterpart on the {absent} side"
    if result.status == "error":
        err = result.error
        return f"error {at(err.filename or '<input>', err.loc)}: {one_line(err.message)}"
    d = result.difference
    return (f"differs {at(result.got, d.loc_a)} {at(result.expected, d.loc_b)}: "
            f"{one_line(d.message)}")


def counts(results) -> dict:
    found = {s: 0 for s in STATUSES}
    for r in results:
        found[r.status] += 1
    return found


def summary_line(results) -> str:
    """`N pairs: A ok, B differ, C error, D missing`."""
    n = counts(results)
    return (f"{len(results)} pair{'' if len(results) == 1 else 's'}: {n['ok']} ok, "
            f"{n['differs']} differ, {n['error']} error, {n['missing']} missing")


def batch_json(results) -> dict:
    """The batch report (schema in docs/CLI.md): a `pairs` entry each, in order, and counts."""
    pairs = []
    for r in results:
        entry = {"got": r.got, "expected": r.expected, "status": r.status}
        if r.status == "differs":
            entry["difference"] = check_json(r.difference, r.got, r.expected)["difference"]
        elif r.status == "error":
            loc = r.error.loc if r.error.loc.line > 0 else None
            entry["error"] = {"file": r.error.filename, "line": loc.line if loc else None,
                              "column": loc.col if loc else None,
                              "message": r.error.message}
        pairs.append(entry)
    n = counts(results)
    return {"equal": n["ok"] == len(results), "pairs": pairs,
            "summary": {"pairs": len(results), "ok": n["ok"], "differs": n["differs"],
                        "error": n["error"], "missing": n["missing"]}}
