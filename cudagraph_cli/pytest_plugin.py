"""cgraph's pytest plugin: golden files of Relax modules, compared structurally.

Installed with the package (the `pytest11` entry point in pyproject.toml), so any test suite
in an environment with cgraph can write:

    def test_rewrite(cgraph_golden):
        out = cudagraph_cli.rewrite(cudagraph_cli.load("before.relax"))[0]
        cgraph_golden(out, "goldens/after.relax")

`cgraph_golden(got, path, prim_bodies="text", updatable=True)`: `got` is a cudagraph_cli
module, TVMScript text or a `tvm.IRModule`; `path` is relative to the test file's directory.
Equal up to local names passes; otherwise the test fails with the first difference located in
both texts and a short diff of the canonical texts. `pytest --cgraph-update` rewrites each
golden that differs (and creates each missing one) instead of failing, by `cgraph check
--update`'s rule (golden.py), and the terminal summary lists what it wrote; a golden marked
`updatable=False` (a reference's output, a hand derivation) is compared and never written.
`prim_bodies="ignore"` compares PrimFuncs by signature only, and cannot be updated (a golden
so written could hide a changed kernel): it is for goldens marked `updatable=False`.
Under pytest-xdist each worker writes its own goldens; the summary is the controller's and
lists none of them.

Loaded by pytest in every session of every project that has cgraph installed: this module
imports nothing but pytest's own hooks' needs at import time; the library is imported when a
test first uses the fixture (docs/BENCHMARKS.md measures pytest's start-up with and without).
"""

from __future__ import annotations

import pytest

WRITTEN_KEY = pytest.StashKey[list]()


def pytest_addoption(parser):
    group = parser.getgroup("cgraph", "cgraph golden files")
    group.addoption("--cgraph-update", action="store_true", default=False,
                    help="Rewrite the cgraph golden files that differ structurally from what "
                         "the tests produce, and create the missing ones.")


def pytest_configure(config):
    config.stash[WRITTEN_KEY] = []


@pytest.fixture
def cgraph_golden(request):
    """Compare a module with a golden file: `cgraph_golden(got, "goldens/after.relax")`."""
    from cudagraph_cli.diagnostics import SourceError
    from cudagraph_cli.golden import GoldenMismatch, check_golden

    config = request.config
    update = config.getoption("cgraph_update")
    base = request.path.parent

    def compare(got, path, *, prim_bodies: str = "text", updatable: bool = True) -> None:
        where = base / path
        failure = None
        try:
            status = check_golden(got, where, update=update, prim_bodies=prim_bodies,
                                  updatable=updatable)
        except GoldenMismatch as e:
            failure = str(e)
        except SourceError as e:  # a golden (or TVMScript text) that cannot be read
            failure = e.render()
        if failure is not None:  # outside the except: no "during handling of" chain
            pytest.fail(failure, pytrace=False)
        if status != "ok":
            config.stash[WRITTEN_KEY].append((status, str(where)))

    return compare


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    written = config.stash.get(WRITTEN_KEY, [])
    if not written:
        return
    terminalreporter.section("cgraph golden files")
    for status, path in written:
        terminalreporter.write_line(f"{status} {path}")
    counts = {s: sum(1 for w, _ in written if w == s) for s in ("updated", "created")}
    terminalreporter.write_line(f"{counts['updated']} updated, {counts['created']} created")
