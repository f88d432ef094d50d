"""RewriteOptions, `--compat tvm`, and the steps of the rewrite handing each other data."""

from __future__ import annotations

import dataclasses
import json

import pytest

from cli_runner import cgraph
from conftest import REAL_SAMPLES, SAMPLES, for_every_sample_test
from cudagraph_cli.text.reader import parse_module
from cudagraph_cli.passes import storage_collector
from cudagraph_cli.passes.explain import explain
from cudagraph_cli.passes.options import Check, RewriteOptions, option_fields
from cudagraph_cli.passes.pipeline import rewrite
from cudagraph_cli.passes.region_planner import plan_module
from cudagraph_cli.text.printer import print_module
from test_rewrite import EVERY_REASON, case

REAL = sorted(p.name[:-len(".before.relax")]
              for p in for_every_sample_test(REAL_SAMPLES.glob("*.before.relax")))
# Every correction shows on it: TVM's output reads a storage the `if` overwrote.
IF_REUSE = str(SAMPLES / "branches" / "if_reuse_before.relax")


def test_tvm_compat_turns_every_correction_off_and_keeps_the_options():
    fields = {f.name for f in dataclasses.fields(RewriteOptions)}
    corrections = set(RewriteOptions().corrections)
    # the eight corrections of docs/REWRITE.md (3 has three parts), and nothing else
    assert corrections == {"idempotent", "separate_live_functions", "follow_getitem",
                           "keep_returned_defined", "allocated_results_outside",
                           "fetch_storages_early", "if_ends_region", "force_pure",
                           "no_graph_in_dataflow", "capture_safety"}
    assert fields == corrections | {"min_kernels", "exclude", "functions", "capture_symbolic",
                                    "capture_buckets",
                                    "trust_extern", "strict_extern", "check"}
    assert all(RewriteOptions().corrections.values())
    tvm = RewriteOptions.tvm_compat(min_kernels=2, exclude=("k*",))
    assert not any(tvm.corrections.values())
    assert (tvm.check, tvm.min_kernels, tvm.exclude) == (Check.NONE, 2, ("k*",))
    assert RewriteOptions().check is Check.REWRITTEN
    assert RewriteOptions.compat("tvm") == RewriteOptions.tvm_compat()
    assert RewriteOptions.compat("cgraph") == RewriteOptions()
    with pytest.raises(ValueError, match="unknown compat mode"):
        RewriteOptions.compat("tvm-0.26")
    with pytest.raises(dataclasses.FrozenInstanceError):
        RewriteOptions().min_kernels = 3


@pytest.mark.parametrize("command", ["rewrite", "diff"])
def test_flags_are_derived_from_the_fields(command):
    code, out, _ = cgraph(command, "--help")
    assert code == 0
    flat = " ".join(out.split())
    for f in option_fields():
        assert f.metadata["flag"] in out
        if command == "diff" and f.name == "functions":
            # diff's --function selects what its views show (the rewrite is the module's)
            assert "Only these Relax functions, in every view" in flat
            continue
        assert " ".join(f.metadata["help"].split()) in flat
    assert "--compat [cgraph|tvm]" in out


def test_compat_flag_is_the_library_option():
    mod = parse_module(open(IF_REUSE).read())
    tvm_text = print_module(rewrite(mod, RewriteOptions.tvm_compat())[0])
    ours_text = print_module(rewrite(mod)[0])
    assert tvm_text != ours_text
    assert cgraph("rewrite", IF_REUSE, "--compat", "tvm") == (0, tvm_text, "")
    assert cgraph("rewrite", IF_REUSE, "--compat", "cgraph") == (0, ours_text, "")
    assert cgraph("rewrite", IF_REUSE) == (0, ours_text, "")


@pytest.mark.parametrize("name", REAL)
def test_compat_tvm_is_tvms_own_output_on_every_real_model(name, tmp_path):
    """samples/real/NAME.after.relax is TVM 0.27's RewriteCUDAGraph on NAME.before.relax."""
    out = str(tmp_path / "tvm.relax")
    r = cgraph("rewrite", "--compat", "tvm", REAL_SAMPLES / f"{name}.before.relax", "-o", out)
    assert r.exit_code == 0, r.stderr
    r = cgraph("check", out, REAL_SAMPLES / f"{name}.after.relax")
    assert r.exit_code == 0, r


def test_diff_compat_shows_tvms_rewrite(tmp_path):
    out = str(tmp_path / "tvm.relax")
    assert cgraph("rewrite", IF_REUSE, "--compat", "tvm", "-o", out).exit_code == 0
    code, one_file, err = cgraph("diff", IF_REUSE, "--compat", "tvm", "--format", "json")
    assert code == 0, err
    code, two_files, err = cgraph("diff", IF_REUSE, out, "--format", "json")
    assert code == 0, err
    captured = [{f["name"]: f["captured"] for f in json.loads(t)["functions"]}
                for t in (one_file, two_files)]
    assert captured[0] == captured[1]
    code, ours, _ = cgraph("diff", IF_REUSE, "--format", "json")
    assert json.loads(ours)["functions"] != json.loads(one_file)["functions"]
    # the two-file form rewrites nothing: options of the rewrite are a usage error there
    code, _, err = cgraph("diff", IF_REUSE, out, "--compat", "tvm")
    assert code == 2 and "one-file form" in err


def test_the_planner_takes_the_returned_storages_as_data():
    """The storage collector's result is the planner's input: given none, the planner lifts
    the storage `s2` the function returns (through `r = t[0]`) as TVM's collector would."""
    mod = parse_module(case("return_through_getitem"))
    options = RewriteOptions()
    returned = storage_collector.collect(mod, options.follow_getitem)
    assert [len(s) for s in returned.values()] == [1]  # s2

    def lifted(storages):
        plan = plan_module(mod, options, storages)
        return sorted(b.var.name for r in plan.alloc_regions for b in r.bindings)

    assert lifted(returned) == ["s1"]
    assert lifted({"main": set()}) == ["s1", "s2"]


def test_explain_is_a_stage_of_its_own():
    """explain() reads the plans and gives the pipeline's reasons, in the planner's order."""
    mod = parse_module(EVERY_REASON)
    options = RewriteOptions(min_kernels=2, exclude=("k_excluded",))
    _, report = rewrite(mod, options)
    returned = storage_collector.collect(mod, options.follow_getitem)
    plan = plan_module(mod, options, returned)
    reasons = explain(mod, plan, returned, options)
    assert [(r.binding.var.name, r.code, r.message) for r in reasons] == \
        [(r.binding.var.name, r.code, r.message) for r in report.reasons]
    assert [o.binding for o in plan.outside] == [r.binding for r in reasons]
    assert len({r.code for r in reasons}) > 5
