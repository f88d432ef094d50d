"""`cgraph check`'s views of a structural comparison: text with excerpts, and JSON."""

from __future__ import annotations

from ..diagnostics import located_message


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
