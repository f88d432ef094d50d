"""`cgraph check` over many pairs in one process: two directories, or `--list PAIRS`.

In-process (click's CliRunner): one line per pair, a summary, the JSON report, the exit
statuses (docs/CLI.md), each file read once; and, as a real process, what the one-pair form
imports (its start-up is what a CI job pays per file).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from conftest import ROOT
from cudagraph_cli import api
from cudagraph_cli.cli import main

SMALL = ROOT / "samples" / "tvm" / "static_input_with_symbolic_shape_before.relax"
OTHER = ROOT / "samples" / "tvm" / "tuple_before.relax"

# SMALL with the dtype of storage2 changed: line 12, `"float16"` at column 75 of
#     storage2 = R.memory.alloc_storage(R.shape([8]), 0, "global", "float16")
CHANGED_LINE = 12
CHANGED = SMALL.read_text().replace(
    'storage2 = R.memory.alloc_storage(R.shape([8]), 0, "global", "float16")',
    'storage2 = R.memory.alloc_storage(R.shape([8]), 0, "global", "float32")')


def cgraph(*args: str, input: str | None = None):
    return CliRunner().invoke(main, list(args), input=input)


@pytest.fixture
def trees(tmp_path):
    """out/ and golden/: a.relax equal, b.relax differs, sub/c.relax equal, d.relax only in
    golden/, e.relax unreadable in out/."""
    out, golden = tmp_path / "out", tmp_path / "golden"
    for d in (out / "sub", golden / "sub"):
        d.mkdir(parents=True)
    small = SMALL.read_text()
    for rel in ("a.relax", "sub/c.relax", "e.relax"):
        (golden / rel).write_text(small)
        (out / rel).write_text(small)
    (out / "b.relax").write_text(CHANGED)
    (golden / "b.relax").write_text(small)
    (golden / "d.relax").write_text(small)
    (out / "e.relax").write_text("this is not a module\n")
    (out / "notes.txt").write_text("not a *.relax file: not paired\n")
    return out, golden


def test_directories_one_line_per_pair_then_a_summary(trees, monkeypatch):
    out, golden = trees
    monkeypatch.chdir(out.parent)
    r = cgraph("check", "out", "golden")
    single = cgraph("check", "out/b.relax", "golden/b.relax")
    message = single.output.splitlines()[0].removeprefix("modules differ: ")
    lines = r.output.splitlines()
    assert lines[0] == "ok out/a.relax golden/a.relax"
    # The difference where the one-pair form puts it: the changed line, in both files.
    assert single.exit_code == 1
    assert lines[1].startswith(f"differs out/b.relax:{CHANGED_LINE}:")
    assert f" golden/b.relax:{CHANGED_LINE}:" in lines[1] and lines[1].endswith(": " + message)
    assert lines[2] == "missing golden/d.relax: no counterpart on the GOT side"
    assert lines[3].startswith("error out/e.relax:1:")
    assert lines[4] == "ok out/sub/c.relax golden/sub/c.relax"
    assert lines[5] == "5 pairs: 2 ok, 1 differ, 1 error, 1 missing"
    assert len(lines) == 6
    assert r.exit_code == 2  # an input error outranks a difference


def test_exit_status_one_for_a_difference_or_a_missing_file(trees):
    out, golden = trees
    (out / "e.relax").write_text(SMALL.read_text())
    assert cgraph("check", str(out), str(golden)).exit_code == 1
    (out / "b.relax").write_text(SMALL.read_text())
    assert cgraph("check", str(out), str(golden)).exit_code == 1  # d.relax still missing
    (golden / "d.relax").unlink()
    r = cgraph("check", str(out), str(golden))
    assert r.exit_code == 0
    assert r.output.splitlines()[-1] == "4 pairs: 4 ok, 0 differ, 0 error, 0 missing"


def test_json_report(trees, monkeypatch):
    out, golden = trees
    monkeypatch.chdir(out.parent)
    r = cgraph("check", "out", "golden", "--format", "json")
    report = json.loads(r.output)
    assert r.exit_code == 2
    assert report["equal"] is False
    assert report["summary"] == {"pairs": 5, "ok": 2, "differs": 1, "error": 1, "missing": 1}
    pairs = report["pairs"]
    assert [(p["got"], p["expected"], p["status"]) for p in pairs] == [
        ("out/a.relax", "golden/a.relax", "ok"),
        ("out/b.relax", "golden/b.relax", "differs"),
        (None, "golden/d.relax", "missing"),
        ("out/e.relax", "golden/e.relax", "error"),
        ("out/sub/c.relax", "golden/sub/c.relax", "ok")]
    single = json.loads(cgraph("check", "out/b.relax", "golden/b.relax", "--format",
                               "json").output)
    assert pairs[1]["difference"] == single["difference"]
    assert pairs[1]["difference"]["got"]["line"] == CHANGED_LINE
    error = pairs[3]["error"]
    assert (error["file"], error["line"]) == ("out/e.relax", 1) and error["message"]
    assert "difference" not in pairs[0] and "error" not in pairs[2]


def test_list_file_comments_quotes_and_stdin(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "with space.relax").write_text(CHANGED)
    pairs = (f"# golden pairs\n{SMALL} {SMALL}\n\n"
             f"'with space.relax' {SMALL}   # the changed one\n")
    (tmp_path / "pairs.txt").write_text(pairs)
    for args, stdin in ((["--list", "pairs.txt"], None), (["--list", "-"], pairs)):
        r = cgraph("check", *args, input=stdin)
        lines = r.output.splitlines()
        assert lines[0] == f"ok {SMALL} {SMALL}"
        assert lines[1].startswith(f"differs with space.relax:{CHANGED_LINE}:")
        assert lines[2] == "2 pairs: 1 ok, 1 differ, 0 error, 0 missing"
        assert r.exit_code == 1


def test_each_file_is_read_once(tmp_path, monkeypatch):
    loads = []
    real_load = api.load
    monkeypatch.setattr(api, "load", lambda path: loads.append(path) or real_load(path))
    (tmp_path / "pairs.txt").write_text(
        f"{SMALL} {SMALL}\n{OTHER} {SMALL}\n{SMALL} {OTHER}\n")
    r = cgraph("check", "--list", str(tmp_path / "pairs.txt"))
    assert r.output.splitlines()[-1] == "3 pairs: 1 ok, 2 differ, 0 error, 0 missing"
    assert sorted(loads) == sorted([str(SMALL), str(OTHER)])


def test_a_file_used_again_after_its_error_is_still_an_error(tmp_path):
    bad = tmp_path / "bad.relax"
    bad.write_text("@I.ir_module\nclass M:\n    nope\n")
    results = list(api.check_pairs([(str(bad), str(SMALL)), (str(SMALL), str(bad)),
                                    (str(SMALL), str(SMALL))]))
    assert [r.status for r in results] == ["error", "error", "ok"]
    assert results[0].error.filename == str(bad) and results[0].error.loc.line > 0


@pytest.mark.parametrize("line, message", [
    ("only-one.relax", "<stdin>:2:1: error: expected two paths (GOT EXPECTED), found 1"),
    ("a.relax b.relax c.relax", "<stdin>:2:1: error: expected two paths (GOT EXPECTED), found 3"),
    ("a.relax -", "<stdin>:2:1: error: a listed pair cannot read standard input (-)"),
    ("'a.relax b.relax", "<stdin>:2:1: error: not a pair of paths: No closing quotation"),
])
def test_a_bad_list_line_is_a_located_input_error(line, message):
    r = cgraph("check", "--list", "-", input=f"{SMALL} {SMALL}\n{line}\n")
    assert r.exit_code == 2
    assert r.output.splitlines()[0] == message  # nothing checked: no pair line before it


def test_usage_and_empty_batches(tmp_path):
    r = cgraph("check", "--list", "-", str(SMALL), input="")
    assert r.exit_code == 2 and "--list PAIRS takes the place of GOT and EXPECTED" in r.output
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    r = cgraph("check", str(tmp_path / "a"), str(tmp_path / "b"))
    assert r.exit_code == 2 and "no *.relax files in" in r.output
    r = cgraph("check", "--list", "-", input="# nothing\n")
    assert r.exit_code == 2 and "no pairs listed in <stdin>" in r.output
    r = cgraph("check", "--list", str(tmp_path / "absent.txt"))
    assert r.exit_code == 2 and "absent.txt: error: no such file" in r.output


def test_the_one_pair_form_is_unchanged(tmp_path):
    # A directory beside a file is no batch: the one-pair form's error.
    r = cgraph("check", str(tmp_path), str(SMALL))
    assert r.exit_code == 2 and "is a directory, not a module file" in r.output
    r = cgraph("check", str(SMALL))
    assert r.exit_code == 2 and "Missing argument 'EXPECTED'." in r.output
    r = cgraph("check")
    assert r.exit_code == 2 and "Missing argument 'GOT'." in r.output
    r = cgraph("check", str(SMALL), str(SMALL))
    assert r.exit_code == 0 and r.output == (f"equal: {SMALL} and {SMALL} are structurally "
                                             "equal\n")


def test_what_check_imports():
    # Start-up is what a CI job pays per process (docs/BENCHMARKS.md): the one-pair check
    # loads neither the heavy libraries nor the stages it does not run.
    code = ("import runpy, sys\n"
            f"sys.argv = ['cgraph', 'check', {str(SMALL)!r}, {str(SMALL)!r}]\n"
            "try:\n    runpy.run_module('cudagraph_cli', run_name='__main__')\n"
            "except SystemExit as e:\n    assert e.code in (0, None), e.code\n"
            "print(sorted(sys.modules), file=sys.stderr)\n")
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True)
    modules = set(eval(got.stderr.strip().splitlines()[-1]))  # noqa: S307 - our own output
    assert "cudagraph_cli.text.builder" in modules  # it did read both files
    heavy = {"numpy", "rich", "lark", "tempfile", "pathlib", "difflib", "shutil",
             "cudagraph_cli.passes.pipeline", "cudagraph_cli.exec", "cudagraph_cli.report.views"}
    assert sorted(heavy & modules) == []
