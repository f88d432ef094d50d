"""pyflakes over the package, the tests and the benchmarks: an undefined name (a path no test
runs yet) or an unused import fails here, not on a user's machine."""

from __future__ import annotations

import io
import os

import pytest

from conftest import ROOT


def test_pyflakes_is_clean():
    try:
        from pyflakes import api
        from pyflakes.reporter import Reporter
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("pyflakes is required on CI (make test installs it)")
        pytest.skip("pyflakes not installed (run `make test`)")

    out, err = io.StringIO(), io.StringIO()
    n = api.checkRecursive([str(ROOT / d) for d in ("cudagraph_cli", "tests", "bench")],
                           Reporter(out, err))
    assert n == 0, out.getvalue() + err.getvalue()
    # And it does see what it is for.
    bad = io.StringIO()
    assert api.check("def f():\n    return undefined_name\n", "x.py", Reporter(bad, bad)) == 1
