"""verify's one verdict (exec/verify.py, `decide`): the findings of each stage -- the first run,
the facts of the text, the bounds run -- ranked in one place. Each test pits two findings
against each other; the order is the one verify has always reported (docs/EXECUTOR.md, "The
order of evidence"). And the bounds run classifies a failure of the rewritten module as the
first run does: a tensor it cannot place is a "shape" difference, anything else (the
executor's out-of-memory) is no verdict, in both runs."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from cudagraph_cli.diagnostics import Loc
from cudagraph_cli.exec.backend import DoesNotFit, ExecError
from cudagraph_cli.exec.compare import Difference
from cudagraph_cli.exec.verify import (Findings, ModuleFails, RunFailure, RunFindings,
                                       decide, verify)
from cudagraph_cli.text.reader import parse_module
from test_verify_bounds import ORIGINAL

AT = ("main", 1, {"n": 2})


def difference(kind: str) -> Difference:
    return Difference("main", 1, "", "main, call 2", message=kind, kind=kind)


def failing_fact():
    """("rewritten", a fact that fails), as ModuleShapes.failure() gives it."""
    return ("rewritten", SimpleNamespace(function="main", kind="fits", loc=Loc(9, 5),
                                         message="at n = 3: a tensor of 12 bytes ..."))


def verdict_kind(findings: Findings) -> tuple:
    v = decide(findings)
    if v.fails is not None:
        return ("fails", v.fails.which)
    return (v.difference.kind if v.difference else None, v.stage)


@pytest.mark.parametrize("stronger, weaker", [
    ("values", "guard"), ("values", "ownership"), ("values", "terms"),
    ("guard", "ownership"), ("guard", "terms"), ("ownership", "terms"),
])
def test_within_a_run(stronger, weaker):
    run = RunFindings(**{stronger: difference(stronger), weaker: difference(weaker)})
    assert verdict_kind(Findings(run)) == (stronger, "run")


@pytest.mark.parametrize("kind", ["values", "guard", "ownership", "terms"])
def test_what_the_run_saw_outranks_a_failed_fact(kind):
    run = RunFindings(**{kind: difference(kind)})
    assert verdict_kind(Findings(run, failing_fact())) == (kind, "run")


def test_a_failed_fact_is_reported_when_the_run_found_none():
    v = decide(Findings(RunFindings(), failing_fact()))
    assert (v.difference.kind, v.stage, v.difference.loc.line) == ("shape", "facts", 9)
    assert v.difference.checked_after == ""  # for every value: no call ran it
    assert decide(Findings(RunFindings())) == decide(Findings(RunFindings(), None, None))
    assert decide(Findings(RunFindings())).difference is None


def test_a_tensor_the_rewrite_cannot_place():
    run = RunFindings(failure=RunFailure("rewritten", DoesNotFit("past its end"), AT))
    v = decide(Findings(run))
    assert (v.difference.kind, v.stage) == ("shape", "run")
    assert v.difference.message.startswith("at n = 2 the original runs, the rewritten does not")
    # the fact that explains it, for every value, replaces it
    assert verdict_kind(Findings(run, failing_fact())) == ("shape", "facts")


def test_a_rewritten_module_that_cannot_run():
    run = RunFindings(failure=RunFailure("rewritten", ExecError("out of memory"), AT))
    assert verdict_kind(Findings(run)) == ("fails", "rewritten")
    # unless a fact of the text fails: it explains the failure
    assert verdict_kind(Findings(run, failing_fact())) == ("shape", "facts")
    # a graph replayed with wrong inputs at that very call explains it better still
    caused = RunFindings(failure=RunFailure("rewritten", ExecError("out of memory"), AT,
                                            difference("ownership")))
    assert verdict_kind(Findings(caused, failing_fact())) == ("ownership", "run")


def test_an_original_that_cannot_run_has_no_verdict():
    run = RunFindings(failure=RunFailure("original", ExecError("cannot"), AT))
    assert verdict_kind(Findings(run, failing_fact())) == ("fails", "original")


def test_the_bounds_run_counts_only_when_nothing_else_does():
    bounds = RunFindings(values=difference("values"))
    assert verdict_kind(Findings(RunFindings(), None, bounds)) == ("values", "bounds")
    assert verdict_kind(Findings(RunFindings(terms=difference("terms")), None, bounds)) == \
        ("terms", "run")
    assert verdict_kind(Findings(RunFindings(), failing_fact(), bounds)) == ("shape", "facts")
    # the original cannot run at the bounds: the run stops there, no difference
    stopped = RunFindings(failure=RunFailure("original", ExecError("cannot"), AT))
    assert verdict_kind(Findings(RunFindings(), None, stopped)) == (None, None)


def test_the_bounds_run_classifies_a_failure_as_the_first_run_does():
    for error, expected in ((DoesNotFit("past its end"), ("shape", "bounds")),
                            (ExecError("out of memory"), ("fails", "rewritten"))):
        bounds = RunFindings(failure=RunFailure("rewritten", error, AT))
        first = RunFindings(failure=RunFailure("rewritten", error, AT))
        assert verdict_kind(Findings(RunFindings(), None, bounds)) == expected
        assert verdict_kind(Findings(first))[0] == expected[0]


# The rewrite of test_verify_bounds's module with an allocation of n^8 float32 values that
# nothing uses: 1,024 bytes at n = 2, over the executor's limit at the bound n = 64.
OVER_THE_LIMIT = ORIGINAL.replace(
    '        cls.step(x, a)\n',
    '        cls.step(x, a)\n'
    '        big = R.builtin.alloc_tensor(R.shape([n, n, n, n, n, n, n, n]), "float32", 0)\n', 1)


def test_an_out_of_memory_in_the_bounds_run_is_no_shape_difference():
    assert OVER_THE_LIMIT != ORIGINAL
    original, rewritten = parse_module(ORIGINAL), parse_module(OVER_THE_LIMIT)
    # The bounds run (n = 2, 64, 1) fails at 64 as the first run does when given 64: the
    # executor cannot hold it, which says nothing about the rewrite's shapes.
    for shapes in (None, {"n": [64]}):
        with pytest.raises(ModuleFails) as info:
            verify(original, rewritten, shapes=shapes)
        assert info.value.which == "rewritten"
        assert "over the executor's limit" in info.value.message
