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


def counts(results, statuses=STATUSES) -> dict:
    """How many results have each of `statuses`."""
    found = {s: 0 for s in statuses}
    for r in results:
        found[r.status] += 1
    return found


def summary_line(results) -> str:
    """`N pairs: A ok, B differ, C error, D missing`."""
    n = counts(results)
    return (f"{len(results)} pair{'' if len(results) == 1 else 's'}: {n['ok']} ok, "
            f"{n['differs']} differ, {n['error']} error, {n['missing']} missing")


def error_json(err) -> dict:
    """A SourceError as a pair's `error` entry: its file, line and column (null where it is
    about the file as a whole) and message."""
    loc = err.loc if err.loc.line > 0 else None
    return {"file": err.filename, "line": loc.line if loc else None,
            "column": loc.col if loc else None, "message": err.message}


def pair_json(result) -> dict:
    """One pair's entry of the batch and --update reports (an api.PairResult or a
    golden.UpdateResult): where it differs (or differed), its diff, its error."""
    entry = {"got": result.got, "expected": result.expected, "status": result.status}
    if result.difference is not None:
        entry["difference"] = check_json(result.difference, result.got,
                                         result.expected)["difference"]
    if result.diff is not None:
        entry["diff"] = "\n".join(result.diff)
    if result.status == "error":
        entry["error"] = error_json(result.error)
    return entry


def batch_json(results) -> dict:
    """The batch report (schema in docs/CLI.md): a `pairs` entry each, in order, and counts."""
    n = counts(results)
    return {"equal": n["ok"] == len(results), "pairs": [pair_json(r) for r in results],
            "summary": {"pairs": len(results), "ok": n["ok"], "differs": n["differs"],
                        "error": n["error"], "missing": n["missing"]}}


# ---- --update: what was written -------------------------------------------------------------

UPDATE_STATUSES = ("ok", "updated", "created", "missing", "error")


def update_line(result) -> str:
    """One golden.UpdateResult as a line, `STATUS` first, as pair_line's."""
    if result.status == "updated":
        d = result.difference
        return (f"updated {result.expected} from {result.got}: was "
                f"{at(result.expected, d.loc_b)}: {one_line(d.message)}")
    if result.status == "created":
        return f"created {result.expected} from {result.got}"
    if result.status == "missing":
        return f"missing {result.expected}: no counterpart on the GOT side (left as it is)"
    if result.status == "error":
        return pair_line(result)
    return f"ok {result.got} {result.expected}"


def update_summary_line(results) -> str:
    """`N pairs: A ok, B updated, C created, D missing, E error`."""
    n = counts(results, UPDATE_STATUSES)
    return (f"{len(results)} pair{'' if len(results) == 1 else 's'}: "
            + ", ".join(f"{n[s]} {s}" for s in UPDATE_STATUSES))


def update_json(results) -> dict:
    """The --update report (schema in docs/CLI.md): `equal` says whether every golden now
    equals its GOT."""
    n = counts(results, UPDATE_STATUSES)
    return {"updated": True,
            "equal": n["missing"] == 0 and n["error"] == 0,
            "pairs": [pair_json(r) for r in results],
            "summary": {"pairs": len(results), **n}}


# ---- a CheckRun (commands.check), whatever its mode ------------------------------------------

def run_json(run) -> dict:
    """The JSON report of a commands.CheckRun: one pair's (`check_json`, with its `diff` when
    reviewed), the batch's or --update's."""
    results = run.results
    if run.mode == "pair":
        (result,), (a, b) = results, run.sources
        report = check_json(result.difference, a.name, b.name)
        if result.diff is not None:
            report["diff"] = "\n".join(result.diff)
        return report
    return update_json(results) if run.mode == "update" else batch_json(results)


def result_line(run, result) -> str:
    """The line of one result of a batch or --update CheckRun."""
    return update_line(result) if run.mode == "update" else pair_line(result)


def summary(run) -> str:
    """The last line of a batch or --update CheckRun."""
    return (update_summary_line if run.mode == "update" else summary_line)(run.results)


# ---- --diff: the review -----------------------------------------------------------------------

DIFF_STYLES = (("+++", "bold"), ("---", "bold"), ("@@", "cyan"), ("+", "green"), ("-", "red"))


def render_diff(lines, console) -> None:
    """A unified diff's lines on a rich Console: added green, removed red, hunks cyan (plain
    where the console has no colour: NO_COLOR, a pipe)."""
    from rich.text import Text

    for line in lines:
        style = next((s for prefix, s in DIFF_STYLES if line.startswith(prefix)), "")
        console.print(Text(line, style=style))


def no_text_difference(diff) -> str:
    """What --diff says of a pair whose canonical texts are equal though the modules differ
    (struct info the text leaves to deduction)."""
    return f"(the canonical texts are equal; the modules differ: {one_line(diff.message)})"


def short_diff(lines, limit: int) -> list[str]:
    """At most `limit` lines of a diff, then how many were left out."""
    if len(lines) <= limit:
        return list(lines)
    return list(lines[:limit]) + [f"... ({len(lines) - limit} more lines of diff)"]
