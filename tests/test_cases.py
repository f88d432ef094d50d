"""Rewrite cases as files: cgraph rewrite of tests/cases/NAME.relax is NAME.expected.relax.

Adding a case is adding the two files (tests/cases/README.md). An expected file says on its
first line where it comes from: TVM 0.27's pass (written by tests/helpers/record_case.py, where
cgraph's output is TVM's) or a hand derivation (a correction of TVM, the derivation in the
comment that follows). The origin is checked too: TVM's own pass gives a TVM file and does
not give a hand-derived one, and cgraph with its corrections off (RewriteOptions.tvm_compat()) likewise.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cudagraph_cli.text.difference import module_difference
from cudagraph_cli.text.reader import parse_module
from cudagraph_cli.passes.options import RewriteOptions
from cudagraph_cli.passes.pipeline import rewrite
from cudagraph_cli.text.printer import print_module
from record_case import HAND_ORIGIN, TVM_ORIGIN, tvm_rewrite
from tvm_oracle import tvm_equal, tvm_parse

CASES_DIR = Path(__file__).resolve().parent / "cases"
EXPECTED_SUFFIX = ".expected.relax"
CASES = sorted(p.name[:-len(EXPECTED_SUFFIX)] for p in CASES_DIR.glob(f"*{EXPECTED_SUFFIX}"))


def case_input(name: str) -> Path:
    return CASES_DIR / f"{name}.relax"


def case_expected(name: str) -> Path:
    return CASES_DIR / f"{name}{EXPECTED_SUFFIX}"


def from_tvm(name: str) -> bool:
    first = case_expected(name).read_text().split("\n", 1)[0]
    assert first in (TVM_ORIGIN, HAND_ORIGIN) or first.startswith(HAND_ORIGIN + " "), \
        f"{name}: the expected file's first line names no origin: {first!r}"
    return first == TVM_ORIGIN


def rewritten(name: str, options: RewriteOptions | None = None):
    out, _ = rewrite(parse_module(case_input(name).read_text(), str(case_input(name))),
                     options or RewriteOptions())
    return out


def test_cases_are_pairs():
    inputs = {p.name[:-len(".relax")] for p in CASES_DIR.glob("*.relax")
              if not p.name.endswith(EXPECTED_SUFFIX)}
    assert inputs == set(CASES), "a case is NAME.relax beside NAME.expected.relax"
    assert len(CASES) >= 7


@pytest.mark.parametrize("name", CASES)
def test_rewrite_equals_expected(name, cgraph_golden):
    # cgraph's own pytest plugin; the expected files are TVM's or hand-derived, never
    # regenerated (`pytest --cgraph-update`, `make goldens` leave them).
    cgraph_golden(rewritten(name), case_expected(name), updatable=False)


@pytest.mark.parametrize("name", CASES)
def test_tvm_compat_agrees_with_the_origin(name):
    """A case TVM wrote is one where the corrections change nothing; a hand-derived case
    exists to show a correction, so TVM's behaviour must give something else."""
    expected = parse_module(case_expected(name).read_text())
    d = module_difference(rewritten(name, RewriteOptions.tvm_compat()), expected)
    if from_tvm(name):
        assert d is None, d.message
    else:
        assert d is not None, "cgraph's corrections change nothing here: record it from TVM"
        text = case_expected(name).read_text().split("\n")
        derivation = [ln for ln in text[1:] if ln.startswith("#") and "tvm.script" not in ln]
        assert derivation, "a hand-derived expected file carries its derivation"


@pytest.mark.tvm
@pytest.mark.parametrize("name", CASES)
def test_tvm_reads_expected_as_it_reads_cgraph_output(tvm, name):
    expected = tvm_parse(case_expected(name).read_text())
    assert tvm_equal(tvm_parse(print_module(rewritten(name), "current")), expected) is None


@pytest.mark.tvm
@pytest.mark.parametrize("name", CASES)
def test_tvm_pass_agrees_with_the_origin(tvm, name):
    expected = tvm_parse(case_expected(name).read_text())
    difference = tvm_equal(tvm_rewrite(case_input(name).read_text()), expected)
    if from_tvm(name):
        assert difference is None, difference
    else:
        assert difference is not None, "TVM's pass gives this: record it with record_case.py"


def test_record_case_refuses_a_hand_derived_file():
    import record_case

    hand = next(n for n in CASES if not from_tvm(n))
    before = case_expected(hand).read_text()
    with pytest.raises(SystemExit, match="derived by hand"):
        record_case.record(hand)
    assert case_expected(hand).read_text() == before
