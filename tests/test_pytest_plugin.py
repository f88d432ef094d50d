"""The pytest plugin (cudagraph_cli/pytest_plugin.py): the `cgraph_golden` fixture and
`--cgraph-update`, run by pytest's own `pytester` in-process on small test projects.

The golden is TVM's (samples/tvm/static_input_with_symbolic_shape_expected.relax, from
apache/tvm's tests); what each test of the inner project passes is that text edited by hand
here (test_golden.py's CHANGED and RENAMED). The wheel installed in a fresh venv, with the
entry point, is test_packaging.py's.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import ROOT
from test_golden import CHANGED, GOLDEN, RENAMED

pytest_plugins = ["pytester"]

# The inner sessions' options: no cache written, and without hypothesis's plugin, whose
# terminal summary alone takes seconds a session here.
INNER = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest")

INNER_TESTS = '''
import pathlib
from cudagraph_cli import loads

HERE = pathlib.Path(__file__).parent

def test_renamed(cgraph_golden):
    cgraph_golden((HERE / "renamed.txt").read_text(), "goldens/renamed.relax")

def test_changed(cgraph_golden):
    cgraph_golden((HERE / "changed.txt").read_text(), "goldens/changed.relax")

def test_module_object(cgraph_golden):
    cgraph_golden(loads((HERE / "changed.txt").read_text()), "goldens/changed.relax")

def test_new(cgraph_golden):
    cgraph_golden((HERE / "changed.txt").read_text(), "goldens/sub/new.relax")
'''


@pytest.fixture
def project(pytester):
    pytester.makepyfile(test_rewrites=INNER_TESTS)
    (pytester.path / "renamed.txt").write_text(RENAMED)
    (pytester.path / "changed.txt").write_text(CHANGED)
    goldens = pytester.path / "goldens"
    goldens.mkdir()
    (goldens / "renamed.relax").write_text(GOLDEN)
    (goldens / "changed.relax").write_text(GOLDEN)
    return pytester


def test_a_failure_is_located_and_short_update_fixes_it(project):
    goldens = project.path / "goldens"
    r = project.runpytest_inprocess(*INNER)
    r.assert_outcomes(passed=1, failed=3)
    out = r.stdout.str()
    # test_changed: where, in both texts, then a diff of the one changed line.
    assert "differs from golden file " in out and "(pytest --cgraph-update accepts it)" in out
    assert "function 'main': binding: R.call_packed(\"dummy2\"" in out
    assert f"{goldens / 'changed.relax'}:46:9: note: expected" in out
    assert '-        R.call_packed("dummy", x, w, alloc1, ty_args=(R.Tuple,))' in out
    assert '+        R.call_packed("dummy2", x, w, alloc1, ty_args=(R.Tuple,))' in out
    assert "Traceback" not in out and "def test_changed" not in out  # no Python frames
    section = out.split("_ test_changed _")[1].split("_ test_module_object _")[0]
    assert len(section.splitlines()) < 30  # not the whole module
    assert "golden file" in out and "sub/new.relax does not exist" in out
    assert (goldens / "changed.relax").read_text() == GOLDEN  # nothing written

    r = project.runpytest_inprocess(*INNER, "--cgraph-update")
    r.assert_outcomes(passed=4)
    out = r.stdout.str()
    assert f"updated {goldens / 'changed.relax'}" in out
    assert f"created {goldens / 'sub' / 'new.relax'}" in out
    assert "1 updated, 1 created" in out
    assert (goldens / "changed.relax").read_text() == CHANGED     # GOT's text
    assert (goldens / "sub" / "new.relax").read_text() == CHANGED
    assert (goldens / "renamed.relax").read_text() == GOLDEN      # names only: kept

    r = project.runpytest_inprocess(*INNER)
    r.assert_outcomes(passed=4)
    assert "cgraph golden files" not in r.stdout.str()


def test_an_unreadable_golden_fails_located(pytester):
    pytester.makepyfile(test_one='''
def test_it(cgraph_golden):
    cgraph_golden("@I.ir_module\\nclass M:\\n    pass\\n", "g.relax")
''')
    (pytester.path / "g.relax").write_text("@I.ir_module\nclass M:\n    nope\n")
    r = pytester.runpytest_inprocess(*INNER, "--cgraph-update")
    r.assert_outcomes(failed=1)
    assert f"{pytester.path / 'g.relax'}:3:5: error: " in r.stdout.str()
    assert (pytester.path / "g.relax").read_text().endswith("nope\n")  # left as it is


@pytest.mark.tvm
def test_a_tvm_irmodule(pytester, tvm):
    from tvm_oracle import tvm_parse

    golden = pytester.path / "golden.relax"
    golden.write_text(GOLDEN)
    pytester.makepyfile(test_tvm=f'''
import tvm_oracle

def test_it(cgraph_golden):
    cgraph_golden(tvm_oracle.tvm_parse({CHANGED!r}), "golden.relax")
''')
    r = pytester.runpytest_inprocess(*INNER)
    r.assert_outcomes(failed=1)
    assert 'R.call_packed("dummy2"' in r.stdout.str()
    r = pytester.runpytest_inprocess(*INNER, "--cgraph-update")
    r.assert_outcomes(passed=1)
    # The golden is TVM's own printing of the module, which cgraph reads as CHANGED.
    assert golden.read_text() == tvm_parse(CHANGED).script()


def test_the_plugin_imports_nothing_heavy():
    # pytest loads it in every session where cgraph is installed: the library waits for the
    # fixture's first use (docs/BENCHMARKS.md, "pytest start-up").
    code = ("import sys, pytest; before = set(sys.modules)\n"
            "import cudagraph_cli.pytest_plugin\n"
            "print(sorted(set(sys.modules) - before))\n")
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True)
    assert eval(got.stdout) == ["cudagraph_cli", "cudagraph_cli.pytest_plugin"]  # noqa: S307


def test_a_golden_marked_not_updatable_is_never_written(pytester):
    golden = pytester.path / "tvm_golden.relax"
    golden.write_text(GOLDEN)
    (pytester.path / "changed.txt").write_text(CHANGED)
    pytester.makepyfile(test_ref='''
import pathlib

def test_reference(cgraph_golden):
    got = (pathlib.Path(__file__).parent / "changed.txt").read_text()
    cgraph_golden(got, "tvm_golden.relax", updatable=False)

def test_missing_reference(cgraph_golden):
    cgraph_golden("@I.ir_module\\nclass M:\\n    pass\\n", "absent.relax", updatable=False)

def test_ignore_needs_not_updatable(cgraph_golden):
    cgraph_golden("@I.ir_module\\nclass M:\\n    pass\\n", "absent.relax", prim_bodies="ignore")
''')
    r = pytester.runpytest_inprocess(*INNER, "--cgraph-update")
    r.assert_outcomes(failed=3)
    out = r.stdout.str()
    assert "(not the tested code's golden: --cgraph-update leaves it)" in out
    assert "absent.relax does not exist\n" in out
    assert "prim_bodies='ignore' compares PrimFunc signatures only" in out
    assert golden.read_text() == GOLDEN and not (pytester.path / "absent.relax").exists()
    assert "cgraph golden files" not in out
