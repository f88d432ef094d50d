"""Golden files: accept a changed output as the new golden (`cgraph check --update`, the
pytest plugin's `--cgraph-update`) and review what would change (`cgraph check --diff`).

The rule, one for both: a golden is rewritten only where GOT differs from it structurally
(`cgraph check`'s equality: up to local names). A golden equal up to renames keeps its bytes,
so a review of the commit shows the real changes and nothing else. A missing golden is
created; a golden whose GOT is missing is reported, never deleted; a golden that cannot be
read or parsed is an error and is left as it is (it may hold what a person wrote by hand:
delete it and `--update` creates it). The new golden is GOT's text as it is (for a file, its
bytes; for a module object, cgraph's canonical printing), written atomically (fileio.py).
"""

from __future__ import annotations

import os
from collections import namedtuple

from . import api
from .diagnostics import SourceError


class UpdateResult(namedtuple("UpdateResult", "got expected status difference error diff",
                              defaults=(None, None, None))):
    """One pair of `cgraph check --update`. `status`: "ok" (equal: untouched), "updated"
    (rewritten from GOT; `difference`: the first difference it had; `diff`: the review's
    lines, when asked for), "created" (EXPECTED did not exist), "missing" (no GOT: EXPECTED
    is left as it is) or "error" (`error`: the SourceError of a file that could not be read,
    parsed or written; nothing written)."""

    __slots__ = ()


def update_directory_pairs(got_dir: str, expected_dir: str) -> list[tuple[str | None, str]]:
    """api.directory_pairs, with the path a GOT-only file's golden is created at in place of
    None (the same path under `expected_dir`)."""
    pairs = []
    for got, expected in api.directory_pairs(got_dir, expected_dir):
        if expected is None:
            expected = os.path.join(expected_dir, os.path.relpath(got, got_dir))
        pairs.append((got, expected))
    return pairs


def update_pairs(pairs, *, prim_bodies: str = "text", make_dirs: bool = False,
                 review: bool = False):
    """`cgraph check --update` of each (got, expected) path pair, in order: yields an
    UpdateResult each. `got` may be `-` (standard input, read once) or None (missing).
    `make_dirs`: create the directories a new golden needs (the directory form, whose
    subdirectories are the goldens' own). `review`: each updated pair's diff too (taken
    before the golden is rewritten)."""
    if prim_bodies != "text":
        # A golden written where only the signatures were compared could hide any change of
        # a PrimFunc body; the CLI refuses the combination before it gets here.
        raise ValueError("--update compares PrimFunc bodies (prim_bodies='text')")
    for got, expected in pairs:
        yield update_pair(got, expected, make_dirs=make_dirs, review=review)


def update_pair(got: str | None, expected: str, *, make_dirs: bool = False,
                review: bool = False) -> UpdateResult:
    if got is None:
        return UpdateResult(got, expected, "missing")
    path, got = got, display_name(got)
    try:
        got_text, got_module = read_module_text(path)
    except SourceError as e:
        return UpdateResult(got, expected, "error", error=e)
    if not os.path.lexists(expected):
        try:
            write_golden(expected, got_text, make_dirs)
        except SourceError as e:
            return UpdateResult(got, expected, "error", error=e)
        return UpdateResult(got, expected, "created")
    try:
        expected_module = read_module_text(expected)[1]
    except SourceError as e:
        return UpdateResult(got, expected, "error", error=e)
    diff = api.difference(got_module, expected_module, sides=(got, expected))
    if diff is None:
        return UpdateResult(got, expected, "ok")
    lines = (modules_diff(got_module, expected_module, display_name(got), expected)
             if review else None)
    try:
        write_golden(expected, got_text)
    except SourceError as e:
        return UpdateResult(got, expected, "error", difference=diff, error=e)
    return UpdateResult(got, expected, "updated", difference=diff, diff=lines)


def read_module_text(path: str) -> tuple[str, object]:
    """(the file's text as read, line ends kept: what a golden made of it holds; its module)."""
    raw = api.read(path, keep_line_ends=True)
    try:
        return raw.text, api.loads(raw.text.replace("\r\n", "\n"), name=raw.name)
    except RecursionError:
        raise SourceError("input nested too deeply", filename=raw.name) from None


def write_golden(path: str, text: str, make_dirs: bool = False) -> None:
    from .fileio import write_text

    if make_dirs:
        directory = os.path.dirname(path)
        try:
            if directory:
                os.makedirs(directory, exist_ok=True)
        except OSError as e:
            raise SourceError(f"cannot write: {e.strerror or e}", filename=path) from None
    write_text(path, text)


# ---- the review: a diff of canonical texts ------------------------------------------------

def modules_diff(got, expected, got_name: str, expected_name: str, *,
                 prim_bodies: str = "text") -> list[str]:
    """The unified diff (lines) from EXPECTED's canonical text to GOT's, printed by
    text/aligned.py so that a function equal up to local names does not show, and one that
    differs shows with its own names: what `--update` changes in substance."""
    from .text.aligned import aligned_diff

    return aligned_diff(got, expected, got_name, expected_name, prim_bodies)


def pair_diff(got: str, expected: str, *, prim_bodies: str = "text") -> list[str]:
    """modules_diff of a differing pair of files (not standard input). Reads both files again:
    a diff is asked for the few pairs that differ, and a batch check keeps no module past its
    pair."""
    return modules_diff(api.load(got), api.load(expected), got, expected,
                        prim_bodies=prim_bodies)


def display_name(path: str) -> str:
    return "<stdin>" if path == "-" else path


# ---- one golden from a test (the pytest plugin) ---------------------------------------------

DIFF_LINES = 40  # of a failing golden's diff: enough to show a change, never a whole model


class GoldenMismatch(AssertionError):
    """A module that differs from its golden (or a golden that does not exist): the message
    says where, in both texts, with a short diff."""


def module_and_text(got, name: str) -> tuple[object, str]:
    """(cgraph module, the text a golden made of it holds) of what a test compares: a cgraph
    module (its canonical printing), TVMScript text (as it is), or a `tvm.IRModule` (TVM's own
    printing, `mod.script()`, read back by cgraph's reader)."""
    if isinstance(got, str):
        return api.loads(got, name=name), got
    if type(got).__module__.startswith("tvm") and hasattr(got, "script"):
        text = got.script()
        return api.loads(text, name=name), text
    try:
        text = api.print_module(got)
    except (AttributeError, TypeError):
        raise TypeError(f"cgraph_golden compares a cudagraph_cli module, TVMScript text or a "
                        f"tvm.IRModule, not {type(got).__name__}") from None
    # Printed and read back: the locations a difference points at are in this text.
    return api.loads(text, name=name), text


def check_golden(got, path, *, update: bool = False, prim_bodies: str = "text",
                 updatable: bool = True) -> str:
    """Compare `got` (see module_and_text) with the golden file at `path`, structurally.
    Returns "ok", or with `update` "updated"/"created" (the rule of update_pair); raises
    GoldenMismatch otherwise, and a SourceError where the golden cannot be read.
    `updatable=False`: a golden that is not the tested code's to write (a reference's output,
    a hand derivation): compared, never written, whatever `update` says."""
    path = os.fspath(path)
    if updatable and prim_bodies != "text":
        # Asked always, not only under update: a suite must not pass until someone updates.
        raise ValueError("prim_bodies='ignore' compares PrimFunc signatures only: a golden so "
                         "updated could hide a changed kernel; pass updatable=False")
    update = update and updatable
    got_module, got_text = module_and_text(got, "<got>")
    if not os.path.lexists(path):
        if update:
            write_golden(path, got_text, make_dirs=True)
            return "created"
        raise GoldenMismatch(f"golden file {path} does not exist" + (
            " (pytest --cgraph-update creates it)" if updatable else ""))
    source = api.read(path)
    expected_module = api.loads(source.text, name=source.name)
    diff = api.difference(got_module, expected_module, prim_bodies=prim_bodies,
                          sides=("got", f"the golden {source.name}"))
    if diff is None:
        return "ok"
    if update:
        write_golden(path, got_text)
        return "updated"
    from .report.check_view import check_text, no_text_difference, short_diff

    lines = modules_diff(got_module, expected_module, "got", source.name,
                         prim_bodies=prim_bodies)
    shown = short_diff(lines, DIFF_LINES) if lines else [no_text_difference(diff)]
    raise GoldenMismatch("\n".join([
        f"differs from golden file {source.name} " + (
            "(pytest --cgraph-update accepts it)" if updatable else
            "(not the tested code's golden: --cgraph-update leaves it)"),
        check_text(diff, ("got", got_text), (source.name, source.text)), *shown]))
