"""Mutation fuzzing: no mutant of any sample crashes, hangs or gets an unlocated rejection.

2,000 seeded mutants per run (tests/helpers/fuzz.py says how they are made and what is checked),
each through fmt twice, rewrite, diff --format json and verify, in-process. The seed is fixed
so that a failure names a mutant anyone can rebuild (`python tests/helpers/fuzz.py --show INDEX
--seed SEED`); offline runs take other seeds and many more mutants:

    CGRAPH_FUZZ_MUTANTS=50000 CGRAPH_FUZZ_SEED=7 python -m pytest -q tests/test_fuzz.py

tests/data/fuzz_regressions/ holds minimal reproducers of what earlier runs found, each run
through the same checks; verdicts.json beside them says what each one found and TVM's verdict.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

import fuzz

MUTANTS = int(os.environ.get("CGRAPH_FUZZ_MUTANTS", "2000"))
SEED = int(os.environ.get("CGRAPH_FUZZ_SEED", "0"))
REGRESSIONS = sorted((Path(__file__).resolve().parent / "data" / "fuzz_regressions")
                     .glob("*.relax"))


def test_mutants_are_reproducible():
    assert fuzz.mutant(SEED, 17) == fuzz.mutant(SEED, 17)
    assert fuzz.mutant(SEED, 17)[1] != fuzz.mutant(SEED, 18)[1]
    samples = {fuzz.mutant(SEED, i)[0] for i in range(len(fuzz.SAMPLES) * fuzz.BIG_EVERY)}
    assert samples == set(fuzz.SAMPLES), "every sample gets mutants"


def test_harness_sees_a_crash_and_an_unlocated_error(monkeypatch):
    # The checks themselves can fail: a crash inside the CLI, and an exit 2 with no location.
    from cudagraph_cli import cli

    harness = fuzz.Harness()
    sample = (fuzz.ROOT / "samples" / "tvm" / "null_value_before.relax").read_bytes()

    def boom(path):
        raise ZeroDivisionError("planted")

    monkeypatch.setattr(cli, "load_input", boom)
    [finding] = harness.check(sample).findings
    assert finding.kind == "crash" and "ZeroDivisionError" in finding.where

    def unlocated(path):
        raise cli.SourceError("planted", filename=path)

    monkeypatch.setattr(cli, "load_input", unlocated)
    [finding] = harness.check(sample).findings
    assert finding.kind == "unlocated"


def test_harness_sees_a_hang(monkeypatch):
    from cudagraph_cli import commands

    def forever(path):
        while True:
            time.sleep(0.01)

    # every command reads its inputs through commands.load_with_source (fmt, the first the
    # harness runs, included)
    monkeypatch.setattr(commands, "load_with_source", forever)
    harness = fuzz.Harness(time_limit_s=0.2)
    [finding] = harness.check(b"x").findings
    assert finding.kind == "hang"


def test_fuzz(capsys):
    report = fuzz.run(SEED, MUTANTS)
    with capsys.disabled():
        print(f"\n[fuzz seed {SEED}] {report.summary(top=10).splitlines()[0]}")
    assert report.mutants == MUTANTS >= 1
    assert report.accepted >= MUTANTS // 20, "mutants too broken to exercise rewrite and verify"
    assert not report.groups, report.summary()


@pytest.mark.parametrize("path", REGRESSIONS, ids=[p.stem for p in REGRESSIONS])
def test_fuzz_regression(path: Path):
    # verdicts.json: what the fuzzer found on it, and TVM 0.27's verdict (recorded with
    # tests/helpers/record_tvm_verdicts.py's tvm_verdict), which cgraph fmt must share.
    expected = json.loads((path.parent / "verdicts.json").read_text())[path.name]
    outcome = fuzz.Harness().check(path.read_bytes())
    assert not outcome.findings, \
        f"found before: {expected['found']}\n" + \
        "\n".join(f"{f.group}: {f.detail}" for f in outcome.findings)
    cgraph_verdict = "accept" if outcome.verdict == "accepted" else "reject"
    assert cgraph_verdict == expected["tvm"], f"TVM: {expected['tvm']} {expected.get('error', '')}"
