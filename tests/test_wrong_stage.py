"""A module dumped at the wrong stage (docs/REWRITE.md, "A module dumped at the wrong stage",
and correction 7), with TVM 0.27 as the oracle: what its pass does with the same input, and
whether its well-formed check reads cgraph's output.

The inputs are TVM's own dumps of the nn_mlp model right before LegalizeOps and right before
StaticPlanBlockMemory (samples/stages/, bench/corpus/build_stages.py), and the dataflow case
of tests/cases/.
"""

from __future__ import annotations

import json

import pytest

from conftest import ROOT, run_cli
from cudagraph_cli.passes.explain import REASON_CODES
from cudagraph_cli.passes.options import RewriteOptions
from cudagraph_cli.passes.pipeline import rewrite
from cudagraph_cli.passes.stage import LOWERED_OPS, wrong_stage
from cudagraph_cli.text.printer import print_module
from cudagraph_cli.text.reader import parse_module
from record_case import tvm_rewrite
from tvm_oracle import tvm_equal, tvm_parse

STAGES = ROOT / "samples" / "stages"
LEGALIZE = STAGES / "nn_mlp.before_legalize.relax"
STATIC_PLAN = STAGES / "nn_mlp.before_static_plan.relax"
DATAFLOW_CASE = ROOT / "tests" / "cases" / "dataflow_region.relax"
RIGHT_STAGE = ROOT / "samples" / "real" / "nn_mlp.before.relax"


def position(path, needle: str) -> tuple[int, int]:
    """1-based line and column of the first `needle` in the file."""
    for number, line in enumerate(path.read_text().split("\n"), 1):
        if needle in line:
            return number, line.index(needle) + 1
    raise AssertionError(f"{needle!r} not in {path}")


def first_binding(path, needle: str) -> tuple[int, int]:
    """Line and column of the binding on the first line holding `needle`."""
    line, _ = position(path, needle)
    text = path.read_text().split("\n")[line - 1]
    return line, len(text) - len(text.lstrip()) + 1


# ---- the warning -----------------------------------------------------------------------------

@pytest.mark.parametrize("path, stage, needle", [
    (LEGALIZE, "LegalizeOps", "R.permute_dims("),
    (STATIC_PLAN, "StaticPlanBlockMemory", "alloc: R.Tensor"),
], ids=["before_legalize", "before_static_plan"])
@pytest.mark.parametrize("command", ["rewrite", "diff"])
def test_wrong_stage_is_a_located_warning(path, stage, needle, command, tmp_path):
    line, col = position(path, needle)
    args = ["-o", str(tmp_path / "out")] + (["--summary"] if command == "diff" else [])
    r = run_cli(command, str(path), *args)
    assert r.returncode == 0, r.stderr.decode()
    err = r.stderr.decode()
    assert err.startswith(f"{path}:{line}:{col}: warning: this module looks dumped before "
                          f"{stage}: "), err
    assert "dump the module after StaticPlanBlockMemory, right before RewriteCUDAGraph" in err
    assert "^" in err.split("\n")[2]  # the excerpt and its caret


def test_the_two_file_diff_warns_and_notes_it(tmp_path):
    out = tmp_path / "out.relax"
    assert run_cli("rewrite", str(LEGALIZE), "-o", str(out)).returncode == 0
    r = run_cli("diff", str(LEGALIZE), str(out), "--format", "json")
    assert r.returncode == 0, r.stderr.decode()
    line, col = position(LEGALIZE, "R.permute_dims(")
    assert r.stderr.decode().startswith(f"{LEGALIZE}:{line}:{col}: warning: ")
    notes = json.loads(r.stdout)["notes"]
    assert any(n.startswith(f"line {line}: warning: this module looks dumped before "
                            "LegalizeOps") for n in notes), notes


@pytest.mark.parametrize("path", [RIGHT_STAGE, *sorted((ROOT / "samples" / "tvm").glob(
    "*_before.relax")), *sorted((ROOT / "samples" / "real").glob("static_plan_*.before.relax"))],
    ids=lambda p: p.name)
def test_no_warning_at_the_right_stage(path):
    """TVM's own inputs of RewriteCUDAGraph: a model's dump inside relax.build, its pass tests,
    and every StaticPlanBlockMemory test output (some of which plan nothing: every tensor
    returned)."""
    assert wrong_stage(parse_module(path.read_text())) is None


def test_an_unreturned_alloc_tensor_in_a_planned_module_is_no_sign():
    # tests/cases/returned_storages.relax (hand edited from TVM's test) keeps an alloc_tensor
    # memory planning would have planned, beside planned storages: not a stage to warn of.
    path = ROOT / "tests" / "cases" / "returned_storages.relax"
    assert "R.builtin.alloc_tensor" in path.read_text()
    assert wrong_stage(parse_module(path.read_text())) is None


@pytest.mark.tvm
def test_lowered_operators_are_tvms(tvm):
    """LOWERED_OPS is TVM 0.27's registry: the operators without a legalization, but for those
    relax.build's library dispatch lowers first, plus relax.reshape."""
    names = {str(n) for n in tvm.ir.Op.list_op_names() if str(n).startswith("relax.")}
    unlegalized = {n for n in names if tvm.ir.Op.get(n).get_attr("FLegalize") is None}
    dispatched = {"relax.sort", "relax.argsort", "relax.topk", "relax.cumsum", "relax.cumprod",
                  "relax.multinomial_from_uniform"}
    assert dispatched <= unlegalized
    assert LOWERED_OPS == (unlegalized - dispatched) | {"relax.reshape"}


# ---- the output is never ill formed, and TVM's pass as the oracle ---------------------------

@pytest.mark.tvm
def test_before_legalize_tvm_raises_cgraph_lifts_nothing(tvm):
    text = LEGALIZE.read_text()
    with pytest.raises(Exception, match="Cannot emit dataflow var in non-dataflow block"):
        tvm_rewrite(text)
    out, report = rewrite(parse_module(text))
    # TVM reads cgraph's output with its well-formed check on: the module, unchanged.
    assert tvm_equal(tvm_parse(print_module(out, "current")), tvm_parse(text)) is None
    codes = [r.code for r in report.reasons]
    assert codes.count("dataflow-block") == 2  # the two R.permute_dims of weights
    assert set(codes) <= {"dataflow-block", "param-input"}, codes


def test_before_legalize_with_compat_tvm_fails_where_tvm_does(tmp_path):
    line, col = first_binding(LEGALIZE, "R.permute_dims(")
    out = tmp_path / "out.relax"
    r = run_cli("rewrite", str(LEGALIZE), "--compat", "tvm", "-o", str(out))
    assert r.returncode == 2, r.stderr.decode()
    err = r.stderr.decode()
    assert f"{LEGALIZE}:{line}:{col}: error: TVM's RewriteCUDAGraph fails here: it would lift " \
           "the binding of dataflow var 'permute_dims'" in err
    assert "Cannot emit dataflow var in non-dataflow block" in err
    assert "Traceback" not in err and not out.exists()


@pytest.mark.tvm
def test_before_static_plan_neither_rewrites(tvm):
    text = STATIC_PLAN.read_text()
    out, report = rewrite(parse_module(text))
    theirs = tvm_rewrite(text)
    assert tvm_equal(theirs, tvm_parse(text)) is None  # TVM lifts nothing either
    assert tvm_equal(tvm_parse(print_module(out, "current")), theirs) is None
    assert {r.code for r in report.reasons} <= {"dynamic-alloc", "param-input"}
    assert report.stage.stage == "StaticPlanBlockMemory"


@pytest.mark.tvm
def test_dataflow_region_tvm_writes_an_ill_formed_module_cgraph_does_not(tvm):
    """The region binds only the block's outputs: TVM's pass lifts it and launches the graph
    inside the dataflow block, which its own well-formed check refuses; --compat tvm gives
    that very module; cgraph's default output is well formed."""
    from tvm import relax

    text = DATAFLOW_CASE.read_text()
    theirs = tvm_rewrite(text)
    with pytest.raises(ValueError, match="occurs within a dataflow block"):
        relax.analysis.well_formed(theirs)
    compat, _ = rewrite(parse_module(text), RewriteOptions.tvm_compat())
    from tvm.script import from_source

    got = from_source(print_module(compat, "current"), check_well_formed=False)
    assert tvm_equal(got, theirs) is None
    ours, report = rewrite(parse_module(text))
    assert relax.analysis.well_formed(tvm_parse(print_module(ours, "current"))) in (None, True)
    assert [r.code for r in report.reasons] == ["dataflow-block", "dataflow-block",
                                               "param-input"]


def test_dataflow_block_reason_is_documented():
    assert "dataflow-block" in REASON_CODES
    assert "`dataflow-block`" in (ROOT / "docs" / "REWRITE.md").read_text()


# ---- what the executor makes of them ---------------------------------------------------------

@pytest.mark.parametrize("path", [LEGALIZE, STATIC_PLAN, DATAFLOW_CASE], ids=lambda p: p.name)
def test_wrong_stage_modules_verify_against_their_rewrite(path, tmp_path):
    """Operators run as kernels (docs/EXECUTOR.md), so a module at any of these stages runs,
    and its rewrite (nothing lifted) computes what it computes."""
    out = tmp_path / "out.relax"
    assert run_cli("rewrite", str(path), "-o", str(out)).returncode == 0
    r = run_cli("verify", str(path), str(out))
    assert r.returncode == 0, r.stderr.decode() + r.stdout.decode()
    assert r.stdout.decode().startswith("equal: ")
