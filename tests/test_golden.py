"""Golden files: `cgraph check --update` and `--diff` (cudagraph_cli/golden.py, text/aligned.py).

The goldens are TVM's (samples/tvm/*_expected.relax, transcribed from apache/tvm's tests);
each GOT is one of them edited by hand here, and what the update must leave is derived from
that edit: a file with a real change becomes GOT's bytes, a file that differs only in names
keeps its own bytes, nothing else is touched. In-process (click's CliRunner).
"""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from conftest import ROOT
from cudagraph_cli import cli

SAMPLES = ROOT / "samples" / "tvm"
GOLDEN = (SAMPLES / "static_input_with_symbolic_shape_expected.relax").read_text()
OTHER = (SAMPLES / "tuple_expected.relax").read_text()

# A real change: the first `dummy` packed call of `main` calls `dummy2` (line 46 of GOLDEN).
CALL = 'R.call_packed("dummy", x, w, alloc1, ty_args=(R.Tuple,))'
CHANGED = GOLDEN.replace(CALL, CALL.replace('"dummy"', '"dummy2"'))
# Names only: every allocN renamed bufN, a comment and blank lines added.
RENAMED = "# regenerated\n\n" + re.sub(r"\balloc(\d)\b", r"buf\1", GOLDEN)
assert CHANGED != GOLDEN and RENAMED.count("buf1") > 3


def cgraph(*args: str, input: str | None = None):
    return CliRunner().invoke(cli.main, list(args), input=input)


@pytest.fixture
def trees(tmp_path, monkeypatch):
    """out/ (GOT) and golden/ (EXPECTED), each case a file:
    changed   a real change                        -> updated
    renamed   names, comments, blank lines only    -> ok, bytes kept
    sub/new   only in out/                         -> created (sub/ made)
    gone      only in golden/                      -> missing, left
    bad_got   out/ unreadable as a module          -> error, golden left
    bad_gold  golden/ unreadable as a module       -> error, left
    same      byte-identical                       -> ok
    """
    monkeypatch.chdir(tmp_path)
    out, golden = tmp_path / "out", tmp_path / "golden"
    (out / "sub").mkdir(parents=True)
    golden.mkdir()
    files = {"changed.relax": (CHANGED, GOLDEN), "renamed.relax": (RENAMED, GOLDEN),
             "sub/new.relax": (OTHER, None), "gone.relax": (None, GOLDEN),
             "bad_got.relax": ("not a module\n", GOLDEN),
             "bad_gold.relax": (GOLDEN, "@I.ir_module\nclass M:\n    nope\n"),
             "same.relax": (OTHER, OTHER)}
    for name, (got, expected) in files.items():
        if got is not None:
            (out / name).write_text(got)
        if expected is not None:
            (golden / name).write_text(expected)
    return out, golden


def snapshot(directory) -> dict:
    return {p.relative_to(directory).as_posix(): p.read_bytes()
            for p in sorted(directory.rglob("*")) if p.is_file()}


def test_update_writes_exactly_the_real_changes_and_the_missing_goldens(trees):
    out, golden = trees
    before = snapshot(golden)
    r = cgraph("check", "out", "golden", "--update")
    lines = r.output.splitlines()
    assert lines[0] == "error golden/bad_gold.relax:3:5: " + lines[0].split(": ", 1)[1]
    assert lines[1].startswith("error out/bad_got.relax:1:")
    assert lines[2].startswith("updated golden/changed.relax from out/changed.relax: was "
                               "golden/changed.relax:46:9: function 'main': binding: ")
    assert lines[3:] == [
        "missing golden/gone.relax: no counterpart on the GOT side (left as it is)",
        "ok out/renamed.relax golden/renamed.relax",
        "ok out/same.relax golden/same.relax",
        "created golden/sub/new.relax from out/sub/new.relax",
        "7 pairs: 2 ok, 1 updated, 1 created, 1 missing, 2 error"]
    assert r.exit_code == 2
    after = snapshot(golden)
    assert after["changed.relax"] == CHANGED.encode()   # GOT's bytes
    assert after["sub/new.relax"] == OTHER.encode()
    for kept in ("renamed.relax", "gone.relax", "bad_got.relax", "bad_gold.relax", "same.relax"):
        assert after[kept] == before[kept], kept
    assert set(after) == set(before) | {"sub/new.relax"}
    assert not [p for p in golden.rglob(".cgraph-*")]  # no temporary file left
    # What is left for `check`: the two errors and the missing GOT, nothing that differs.
    r = cgraph("check", "out", "golden")
    assert r.output.splitlines()[-1] == "7 pairs: 4 ok, 0 differ, 2 error, 1 missing"
    for name in ("bad_got.relax", "bad_gold.relax", "gone.relax"):
        (golden / name).unlink()
    (out / "bad_got.relax").unlink()
    r = cgraph("check", "out", "golden", "--update")
    # bad_gold's GOT is a golden now: a golden that could not be read is created once deleted
    assert r.output.splitlines()[-1] == "5 pairs: 4 ok, 0 updated, 1 created, 0 missing, 0 error"
    assert r.exit_code == 0
    assert cgraph("check", "out", "golden").exit_code == 0


def test_exit_status_one_when_a_got_is_missing_zero_when_all_updated(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "golden").mkdir()
    (tmp_path / "golden" / "gone.relax").write_text(GOLDEN)
    (tmp_path / "out" / "a.relax").write_text(CHANGED)
    (tmp_path / "golden" / "a.relax").write_text(GOLDEN)
    r = cgraph("check", str(tmp_path / "out"), str(tmp_path / "golden"), "--update")
    assert r.exit_code == 1, r.output
    assert (tmp_path / "golden" / "gone.relax").read_text() == GOLDEN  # never deleted
    (tmp_path / "golden" / "gone.relax").unlink()
    (tmp_path / "out" / "a.relax").write_text(GOLDEN)
    r = cgraph("check", str(tmp_path / "out"), str(tmp_path / "golden"), "--update")
    assert r.exit_code == 0 and "1 updated" in r.output


def test_update_json_report(trees):
    r = cgraph("check", "out", "golden", "--update", "--format", "json")
    report = json.loads(r.output)
    assert r.exit_code == 2
    assert report["updated"] is True and report["equal"] is False
    assert report["summary"] == {"pairs": 7, "ok": 2, "updated": 1, "created": 1,
                                 "missing": 1, "error": 2}
    by_name = {(p["expected"] or "").rsplit("/", 1)[-1]: p for p in report["pairs"]}
    changed = by_name["changed.relax"]
    assert changed["status"] == "updated"
    assert changed["difference"]["expected"] == {"line": 46, "column": 9}
    assert by_name["gone.relax"]["got"] is None and by_name["gone.relax"]["status"] == "missing"
    assert by_name["bad_got.relax"]["error"]["file"] == "out/bad_got.relax"
    assert by_name["new.relax"]["status"] == "created"
    assert "diff" not in changed


def test_update_a_pair_a_list_and_standard_input(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "got.relax").write_text(CHANGED)
    (tmp_path / "golden.relax").write_text(GOLDEN)
    r = cgraph("check", "got.relax", "golden.relax", "--update")
    assert r.exit_code == 0 and r.output.splitlines()[-1].startswith("1 pair: 0 ok, 1 updated")
    assert (tmp_path / "golden.relax").read_text() == CHANGED
    # A listed pair whose golden does not exist yet is created (its directory must exist).
    (tmp_path / "pairs.txt").write_text("got.relax new.relax\ngot.relax nodir/new.relax\n")
    r = cgraph("check", "--list", "pairs.txt", "--update")
    assert r.output.splitlines()[0] == "created new.relax from got.relax"
    assert r.output.splitlines()[1] == ("error nodir/new.relax: cannot write: the directory "
                                        "does not exist")
    assert r.exit_code == 2 and not (tmp_path / "nodir").exists()
    # GOT from a pipe: `cgraph rewrite ... | cgraph check - golden --update`.
    r = cgraph("check", "-", "golden.relax", "--update",
               input=re.sub(r"\balloc(\d)\b", r"buf\1", CHANGED))
    assert r.output.splitlines()[0] == "ok <stdin> golden.relax" and r.exit_code == 0
    assert (tmp_path / "golden.relax").read_text() == CHANGED
    r = cgraph("check", "-", "golden.relax", "--update", input=GOLDEN)
    assert r.output.splitlines()[0].startswith("updated golden.relax from <stdin>: was ")
    assert (tmp_path / "golden.relax").read_text() == GOLDEN


@pytest.mark.parametrize("args, message", [
    (("--prim-bodies", "ignore"), "cannot be combined with --prim-bodies ignore"),
    (("--format", "json", "--prim-bodies", "ignore"), "cannot be combined with --prim-bodies"),
])
def test_update_refuses_ignored_prim_bodies(tmp_path, args, message):
    golden = tmp_path / "golden.relax"
    golden.write_text(GOLDEN)
    r = cgraph("check", str(tmp_path / "x.relax"), str(golden), "--update", *args)
    assert r.exit_code == 2 and message in r.output
    assert golden.read_text() == GOLDEN


def test_update_refuses_standard_input_as_the_golden(tmp_path):
    r = cgraph("check", str(SAMPLES / "tuple_expected.relax"), "-", "--update", input=OTHER)
    assert r.exit_code == 2 and "EXPECTED is the file to write" in r.output


def changed_lines(output: str) -> tuple[list, list]:
    lines = output.splitlines()
    removed = [x[1:] for x in lines if x.startswith("-") and not x.startswith("---")]
    added = [x[1:] for x in lines if x.startswith("+") and not x.startswith("+++")]
    return removed, added


def test_diff_shows_the_real_change_with_each_sides_own_names(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "golden.relax").write_text(GOLDEN)
    # A change alone: the diff holds the one changed line.
    (tmp_path / "got.relax").write_text(CHANGED)
    r = cgraph("check", "got.relax", "golden.relax", "--diff")
    assert r.exit_code == 1
    assert "--- golden.relax\n+++ got.relax\n@@ " in r.output
    removed, added = changed_lines(r.output)
    assert len(removed) == 1 and len(added) == 1
    assert removed[0].strip() == CALL
    assert added[0] == removed[0].replace('"dummy"', '"dummy2"')
    assert "\x1b[" not in r.output  # not a terminal: no colour
    # Renamed and changed (issue 52): each side keeps its own names, never GOT's variables
    # named after EXPECTED's by place: every line added is GOT's (bufN), every line removed
    # the golden's (allocN), so that each can be found in its file.
    (tmp_path / "got.relax").write_text(re.sub(r"\balloc(\d)\b", r"buf\1", CHANGED))
    r = cgraph("check", "got.relax", "golden.relax", "--diff")
    removed, added = changed_lines(r.output)
    assert added and all(re.search(r"\balloc\d", x) is None for x in added)
    assert any('R.call_packed("dummy2", x, w, buf1' in x for x in added)
    assert all(re.search(r"\bbuf\d", x) is None for x in removed)
    assert CALL in "\n".join(removed)
    # Names only: equal, no diff at all.
    (tmp_path / "got.relax").write_text(RENAMED)
    r = cgraph("check", "got.relax", "golden.relax", "--diff")
    assert r.exit_code == 0 and "@@" not in r.output


def test_diff_after_an_inserted_binding_is_the_one_added_line(tmp_path):
    extra = 'R.call_packed("extra", x, w, alloc1, ty_args=(R.Tuple,))'
    inserted = GOLDEN.replace(CALL, CALL + "\n        " + extra)
    (tmp_path / "got.relax").write_text(inserted)
    (tmp_path / "golden.relax").write_text(GOLDEN)
    r = cgraph("check", str(tmp_path / "got.relax"), str(tmp_path / "golden.relax"), "--diff")
    assert r.exit_code == 1
    removed, added = changed_lines(r.output)
    assert removed == [] and [x.strip() for x in added] == [extra]


def test_a_difference_names_the_sides_as_the_user_named_them(tmp_path, monkeypatch):
    """Issue 52: "function '...' is only in the second module" spoke of modules; `cgraph
    check` names the files, the pytest plugin `got` and the golden."""
    from cudagraph_cli.golden import GoldenMismatch, check_golden

    monkeypatch.chdir(tmp_path)
    alloc = GOLDEN[GOLDEN.index("    @R.function(private=True)\n    def cuda_graph_alloc("):
                   GOLDEN.index("        return gv\n") + len("        return gv\n")]
    extra_function = GOLDEN.replace(alloc, alloc + "\n" + alloc.replace(
        "def cuda_graph_alloc(", "def main_cuda_graph_capture9("), 1)
    (tmp_path / "golden.relax").write_text(GOLDEN)
    (tmp_path / "got.relax").write_text(extra_function)
    r = cgraph("check", "got.relax", "golden.relax")
    assert "function 'main_cuda_graph_capture9' is only in got.relax, not in golden.relax" \
        in r.output
    with pytest.raises(GoldenMismatch) as e:
        check_golden(extra_function, tmp_path / "golden.relax")
    assert "function 'main_cuda_graph_capture9' is only in got, not in the golden " \
        f"{tmp_path / 'golden.relax'}" in str(e.value)
    assert "--- " in str(e.value) and "+++ got" in str(e.value)


def test_diff_in_batches_json_and_with_update(trees):
    out, golden = trees
    r = cgraph("check", "out", "golden", "--diff")
    assert r.exit_code == 2
    removed, added = changed_lines(r.output)
    assert [x.strip() for x in removed] == [CALL]  # renamed.relax shows nothing
    assert len(added) == 1
    report = json.loads(cgraph("check", "out", "golden", "--diff", "--format", "json").output)
    diffs = {p["expected"]: p.get("diff") for p in report["pairs"]}
    assert changed_lines(diffs["golden/changed.relax"]) == (removed, added)
    assert diffs["golden/renamed.relax"] is None
    # --diff with --update: the diff of what was rewritten, taken before the write.
    r = cgraph("check", "out", "golden", "--diff", "--update")
    assert changed_lines(r.output) == (removed, added)
    assert (golden / "changed.relax").read_text() == CHANGED


def test_diff_colour_on_a_terminal_only(tmp_path, monkeypatch):
    (tmp_path / "got.relax").write_text(CHANGED)
    (tmp_path / "golden.relax").write_text(GOLDEN)
    args = ("check", str(tmp_path / "got.relax"), str(tmp_path / "golden.relax"), "--diff")
    assert "\x1b[" not in cgraph(*args).output  # CliRunner's stdout is no terminal

    class Terminal:
        def isatty(self):
            return True

    real_color = cli.color
    monkeypatch.setattr(cli, "color", lambda stream: real_color(Terminal()))
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    coloured = cgraph(*args).output
    assert "\x1b[31m-" in coloured and "\x1b[32m+" in coloured
    monkeypatch.setenv("NO_COLOR", "1")  # the CLI's rule (cli.color) on a terminal too
    assert "\x1b[" not in cgraph(*args).output


# ---- the pre-commit hooks (.pre-commit-hooks.yaml) ---------------------------------------------

def precommit_hooks() -> dict:
    """id -> {key: value} of the hooks file's flat entries (bench/try_precommit_hooks.py runs
    pre-commit itself on it: it installs the package, ~1 minute, too slow for here)."""
    hooks: dict = {}
    for line in (ROOT / ".pre-commit-hooks.yaml").read_text().splitlines():
        if line.startswith("- id: "):
            current = hooks[line[len("- id: "):]] = {}
        elif line.startswith("  ") and ":" in line and not line.lstrip().startswith("#"):
            key, value = line.strip().split(":", 1)
            current[key] = value.strip()
    return hooks


def test_precommit_hooks_run_as_pre_commit_runs_them(tmp_path):
    import os
    import shlex
    import subprocess
    import sys

    hooks = precommit_hooks()
    assert set(hooks) == {"cgraph-fmt", "cgraph-check-goldens"}
    env = dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep +
               os.environ.get("PATH", ""))

    def hook(name, *files):
        entry = shlex.split(hooks[name]["entry"])
        return subprocess.run(entry + list(files), cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=120)

    assert hooks["cgraph-fmt"]["files"] == r"\.relax$"
    canonical = cgraph("fmt", str(SAMPLES / "tuple_expected.relax")).output
    (tmp_path / "ok.relax").write_text(canonical)
    (tmp_path / "bad.relax").write_text(canonical.replace(" = R.", " =  R.", 1))
    assert hook("cgraph-fmt", "ok.relax").returncode == 0
    both = hook("cgraph-fmt", "bad.relax", "ok.relax")  # every file, one at a time
    assert both.returncode == 1 and both.stderr == "bad.relax: would be reformatted\n"
    # cgraph-check-goldens: the project's args, no file names.
    assert hooks["cgraph-check-goldens"]["pass_filenames"] == "false"
    for d in ("out", "golden"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "m.relax").write_text(GOLDEN)
    assert hook("cgraph-check-goldens", "out/", "golden/").returncode == 0
    (tmp_path / "out" / "m.relax").write_text(CHANGED)
    assert hook("cgraph-check-goldens", "out/", "golden/").returncode == 1
