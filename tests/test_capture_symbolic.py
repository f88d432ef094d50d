"""`--capture-symbolic VAR[:MAX]`: the option, the guarded launch, and its proof.

The small case is tests/symbolic/bounded.relax (a region keyed by `n`, tir_var_upper_bound 16);
its bounded rewrite (`n:8`) is derived by hand beside it from TVM's pass with the hint
attribute. Without a bound, the option must equal TVM's pass on the module with
`relax.rewrite_cuda_graph.capture_symbolic_vars` added (the oracle). With a bound, verify runs
values on both sides of it and catches a guard inverted, a guard with its branches swapped and a
graph keyed without the variable, on the small case and on the Llama 1B of samples/real.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cli_runner import cgraph
from conftest import REAL_SAMPLES
from cudagraph_cli import api, ir
from cudagraph_cli.exec.verify import verify
from cudagraph_cli.ir.wellformed import check_module
from cudagraph_cli.passes.guards import find_guards
from cudagraph_cli.passes.options import RewriteOptions, parse_capture_symbolic
from cudagraph_cli.passes.pipeline import rewrite
from cudagraph_cli.text.difference import module_difference
from cudagraph_cli.text.printer import print_module
from cudagraph_cli.text.reader import parse_module

HERE = Path(__file__).resolve().parent / "symbolic"
SMALL = HERE / "bounded.relax"
SMALL_N8 = HERE / "bounded.n8.expected.relax"
LLAMA = REAL_SAMPLES / "mlc_llama_1b.before.relax"
HINT = "relax.rewrite_cuda_graph.capture_symbolic_vars"


def small(**options):
    mod = parse_module(SMALL.read_text(), str(SMALL))
    return mod, rewrite(mod, RewriteOptions(**options))[0]


def with_hint(text: str, names: str) -> str:
    """The module with main's attributes naming `names` in the hint attribute."""
    return text.replace('"num_input": 1,', f'"num_input": 1, "{HINT}": [{names}],', 1)


# ---- the option --------------------------------------------------------------------------

def test_values_parse_and_bad_ones_are_refused():
    assert parse_capture_symbolic("seq_len") == ("seq_len", None)
    assert parse_capture_symbolic("seq_len:256") == ("seq_len", 256)
    for bad in ("seq_len:x", "seq_len:0", "seq_len:-3", "1x", "", "a b:3"):
        with pytest.raises(ValueError):
            parse_capture_symbolic(bad)
    assert RewriteOptions(capture_symbolic=["n:8", ("m", None)]).capture_symbolic == \
        (("n", 8), ("m", None))
    assert RewriteOptions(capture_symbolic=("n:8",)).bounds == {"n": 8}
    with pytest.raises(ValueError, match="n is given twice"):
        RewriteOptions(capture_symbolic=("n", "n:8"))


@pytest.mark.parametrize("value, words", [
    ("n:x", "the bound of n must be a positive integer, not 'x'"),
    ("n:0", "the bound of n must be a positive integer, not 0"),
    ("nope", "no function of the module has a symbolic variable named nope in the shapes of "
             "its inputs, to capture (it has n)"),
])
@pytest.mark.parametrize("command", ["rewrite", "diff"])
def test_a_bad_value_is_a_usage_error_of_one_line(command, value, words):
    code, out, err = cgraph(command, SMALL, "--capture-symbolic", value, "-o", "/dev/null")
    assert code == 2 and out == ""
    # one line, `cgraph COMMAND: error: --capture-symbolic...`, no usage block around it
    assert len(err.splitlines()) == 1, err
    assert err.startswith(f"cgraph {command}: error: --capture-symbolic") and words in err, err
    assert "Traceback" not in err


def test_without_a_bound_it_is_the_hint_attribute():
    mod, out = small(capture_symbolic=("n",))
    hinted = parse_module(with_hint(SMALL.read_text(), '"n"'))
    out_hint, _ = rewrite(hinted)
    # The same rewrite but for the attribute itself, which the option does not add.
    main_fn = out_hint.function("main")
    attrs = [(k, v) for k, v in main_fn.attrs if k != HINT]
    out_hint = ir.replace(out_hint, functions=[
        ir.replace(f, attrs=attrs) if f is main_fn else f for f in out_hint.functions])
    assert module_difference(out, out_hint) is None
    assert "run_or_capture" in print_module(out) and "if " not in print_module(out)
    _, plain = small()
    assert "run_or_capture" not in print_module(plain)  # without: n keeps k1, k2 outside


def test_the_bounded_rewrite_is_the_hand_derivation():
    _, out = small(capture_symbolic=("n:8",))
    expected = parse_module(SMALL_N8.read_text(), str(SMALL_N8))
    assert module_difference(out, expected, "text") is None
    # The guard reads back as written (guards.py), in the then-branch, in main's own blocks.
    (g,) = find_guards(out)
    assert (g.function, g.index, g.terms, g.graph_in_then, g.top_level) == \
        ("main", 0, (("n", "<=", 8),), True, True)


def test_the_bounded_rewrite_is_well_formed_prints_and_reads_back(tmp_path):
    _, out = small(capture_symbolic=("n:8",))
    check_module(out)  # raises on an ill-formed function
    text = print_module(out)
    assert "cond: R.Prim(\"bool\") = R.prim_value(n <= 8)\n        if cond:" in text
    assert print_module(parse_module(text)) == text  # cgraph fmt is stable on it
    path = tmp_path / "out.relax"
    path.write_text(text)
    assert cgraph("check", path, path).exit_code == 0
    assert cgraph("fmt", path) == (0, text, "")


TWO_VARS = """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", "m"), "float32")) -> R.Tensor(("n", "m"), "float32"):
        n = T.int64()
        m = T.int64()
        R.func_attr({"relax.force_pure": True, "num_input": 1, "tir_var_upper_bound": {"n": 16, "m": 4}})
        s = R.memory.alloc_storage(R.shape([256]), 0, "global", "float32")
        a = R.memory.alloc_tensor(s, 0, R.shape([n, m]), "float32")
        R.call_packed("k_in", x, a, ty_args=(R.Tuple,))
        s2 = R.memory.alloc_storage(R.shape([256]), 0, "global", "float32")
        b = R.memory.alloc_tensor(s2, 0, R.shape([n, m]), "float32")
        R.call_packed("k1", a, b, ty_args=(R.Tuple,))
        out = R.builtin.alloc_tensor(R.shape([n, m]), "float32", 0)
        R.call_packed("copy", b, out, ty_args=(R.Tuple,))
        return out
"""


@pytest.mark.parametrize("most", [16, 100])
def test_a_bound_not_below_the_upper_bound_writes_no_guard_and_warns(most):
    # n's tir_var_upper_bound is 16: n:16 and n:100 hold for every call, so the output is the
    # unbounded one (graphs keyed by n, at most 16 values), and the command says why.
    _, bounded = small(capture_symbolic=(f"n:{most}",))
    _, plain = small(capture_symbolic=("n",))
    assert find_guards(bounded) == [] and module_difference(bounded, plain) is None
    code, _, said = cgraph("rewrite", SMALL, "--capture-symbolic", f"n:{most}")
    assert code == 0
    assert f"bounded.relax:8:9: warning: --capture-symbolic n:{most} is not below main's " \
        "tir_var_upper_bound of n, 16: every call is within it, so no guard is written" in said
    _, below = small(capture_symbolic=("n:15",))
    assert [g.text() for g in find_guards(below)] == ["n <= 15"]


def test_several_bounded_variables_make_one_conjunction():
    mod = parse_module(TWO_VARS)
    out, _ = rewrite(mod, RewriteOptions(capture_symbolic=("n:8", "m:3")))
    printed = print_module(out)
    assert "cond: R.Prim(\"bool\") = R.prim_value(n <= 8 and m <= 3)" in printed, printed
    assert print_module(parse_module(printed)) == printed
    (g,) = find_guards(out)
    assert g.bounds == {"n": 8, "m": 3}
    # Call 5 (n = 1, m = 4) is eager through m alone.
    report = verify(mod, out)
    assert report.equal, report.difference
    assert report.symbolic == {"m": [1, 4, 3], "n": [1, 9, 8, 10]}
    assert (report.calls, report.captures) == (5, 2)


def test_compat_tvm_takes_the_option():
    mod = parse_module(SMALL.read_text())
    tvm_bounded, _ = rewrite(mod, RewriteOptions.tvm_compat(capture_symbolic=("n:8",)))
    assert len(find_guards(tvm_bounded)) == 1


# ---- verify --------------------------------------------------------------------------------

def test_verify_runs_both_sides_of_the_bound():
    mod, out = small(capture_symbolic=("n:8",))
    report = verify(mod, out)
    assert report.equal, report.difference
    # 1 and 8 take the graph (captured once each, 1 replayed at call 5), 9 and 10 run eagerly.
    assert report.symbolic == {"n": [1, 9, 8, 10]}
    assert (report.calls, report.captures, report.replays) == (5, 2, 1)
    assert report.guards == [("main", 0, "n <= 8")]
    # --shape still decides where given.
    assert verify(mod, out, shapes={"n": [3]}).symbolic == {"n": [3]}


def test_verify_says_which_values_ran(tmp_path):
    _, out = small(capture_symbolic=("n:8",))
    path = tmp_path / "out.relax"
    path.write_text(print_module(out))
    code, text, _ = cgraph("verify", SMALL, path)
    assert code == 0
    assert "1 bounded graph launch(es) (n <= 8); ran with n = 1, 9, 8, 10" in text
    code, text, _ = cgraph("verify", SMALL, path, "--format", "json")
    report = json.loads(text)
    assert report["symbolic_values"] == {"n": [1, 9, 8, 10]}
    assert report["bounded_graphs"] == [{"function": "main", "graph": 0, "guard": "n <= 8"}]


def swapped_branches(module: ir.Module) -> ir.Module:
    """The guarded ifs of `module` with their branches swapped (the graph above the bound)."""
    def swap(block):
        bindings = []
        for b in block.bindings:
            if type(b.value) is ir.If and "run_or_capture" in repr(b.value.true_branch.blocks):
                v = b.value
                b = ir.VarBinding(b.var, ir.If(v.cond, v.false_branch, v.true_branch), b.loc)
            bindings.append(b)
        return ir.replace(block, bindings=bindings)
    return ir.replace(module, functions=[
        ir.replace(f, blocks=[swap(bl) for bl in f.blocks]) if isinstance(f, ir.Function) else f
        for f in module.functions])


def unkeyed(text: str, function: str = "main") -> str:
    """The text with the trailing R.shape([...]) of the first graph launch that `function`
    makes removed: the graph keyed by its index alone."""
    return re.sub(r"(run_or_capture\", \(cls\." + function +
                  r"_cuda_graph_capture\w*, .*, R\.prim_value\(\d+\)), R\.shape\(\[[^]]*\]\)\)",
                  r"\1)", text, count=1)


def test_verify_catches_a_guard_inverted_swapped_or_unkeyed(tmp_path):
    mod, out = small(capture_symbolic=("n:8",))
    text = print_module(out)
    inverted = tmp_path / "inverted.relax"
    inverted.write_text(text.replace("R.prim_value(n <= 8)", "R.prim_value(n > 8)"))
    code, said, _ = cgraph("verify", SMALL, inverted)
    assert code == 1
    assert "differ: guard in the rewritten module: function 'main', call 1: graph 0 " \
           "(main_cuda_graph_capture) did not run at n = 1, within its bound n <= 8" in said
    assert "its guard reads `n > 8`" in said and "inverted.relax:" in said  # located

    report = verify(mod, swapped_branches(out))
    d = report.difference
    assert d.kind == "guard" and d.call == 0
    assert "did not run at n = 1" in d.message and "the graph in its else-branch" in d.message

    broken = tmp_path / "unkeyed.relax"
    broken.write_text(unkeyed(text))
    assert broken.read_text() != text
    code, said, _ = cgraph("verify", SMALL, broken)
    # Call 3 (n = 8) replays the graph captured at n = 1.
    assert code == 1 and said.startswith("differ: function 'main', call 3, output"), said


# ---- diff ----------------------------------------------------------------------------------

def test_diff_counts_the_graph_path(tmp_path):
    _, out = small(capture_symbolic=("n:8",))
    path = tmp_path / "out.relax"
    path.write_text(print_module(out))
    for args in ((str(SMALL), str(path)), (str(SMALL), "--capture-symbolic", "n:8")):
        code, text, err = cgraph("diff", *args, "--format", "json")
        assert code == 0, err
        (f,) = json.loads(text)["functions"]
        # k_in, copy outside; k1 and k2 in one graph (the path taken while n <= 8).
        assert (f["kernel_launches"], f["captured"], f["regions"],
                f["kernel_launches_after"]) == (4, 2, 1, 2)
        # Beyond n <= 8 the region's k1 and k2 run eagerly: 4 kernel launches, no graph.
        assert (f["host_work_after"], f["host_work_above_bound"]) == (3, 4)
    code, text, _ = cgraph("diff", SMALL, "--capture-symbolic", "n:8", "--summary")
    assert "main: host work 3 per call within its guards (n <= 8), 4 beyond them" in \
        " ".join(text.split())


# ---- the Llama 1B of samples/real ----------------------------------------------------------

@pytest.fixture(scope="module")
def llama():
    mod = api.load(str(LLAMA))
    out, _ = api.rewrite(mod, RewriteOptions(capture_symbolic=("seq_len:256",)))
    return mod, out


def test_llama_prefill_is_captured_below_the_bound(llama, tmp_path):
    mod, out = llama
    path = tmp_path / "out.relax"
    path.write_text(api.print_module(out))
    # prefill's 18 x 256 = 4,608 graphs are over diff's default --warn-over-graphs (4096),
    # warned about on stderr (test_diff_graph_warnings.py)
    code, _, said = cgraph("diff", LLAMA, path, "--format", "json", "-o", tmp_path / "diff.json")
    assert code == 0, said
    assert "prefill: up to 4,608 CUDA graphs, over 4,096" in said
    facts = {f["name"]: f for f in json.loads((tmp_path / "diff.json").read_text())["functions"]}
    # The option's goal (docs/REWRITE.md): prefill 180 -> at most 25 kernel and graph
    # launches on the graph path;
    # decode as without the option.
    assert facts["prefill"]["kernel_launches"] == 180
    assert facts["prefill"]["host_launches_after"] <= 25
    # Beyond seq_len 256 the 18 guarded regions run their launches eagerly: the 180 kernel
    # launches and 16 attention builtins of the original (its host work, 196).
    assert (facts["prefill"]["host_work_before"], facts["prefill"]["host_work_above_bound"]) \
        == (196, 196)
    assert facts["decode"]["host_work_above_bound"] is None
    assert (facts["decode"]["host_launches_before"], facts["decode"]["host_launches_after"]) \
        == (179, 21)
    assert {g.function for g in find_guards(out)} == {"prefill"}
    # No memory beyond the rewrite without the option: the storages are sized by the bound.
    plain, _ = api.rewrite(mod)
    alloc = [f for f in out.functions if f.name == "cuda_graph_alloc"]
    alloc_plain = [f for f in plain.functions if f.name == "cuda_graph_alloc"]
    assert module_difference(ir.replace(out, functions=alloc),
                             ir.replace(plain, functions=alloc_plain)) is None


def test_llama_verify_runs_both_sides_and_catches_broken_guards(llama):
    mod, out = llama
    report = verify(mod, out, functions=["prefill"])
    assert report.equal, report.difference
    assert report.symbolic == {"seq_len": [1, 257, 256, 258]}
    assert len(report.guards) == 18
    text = api.print_module(out)
    inverted = parse_module(text.replace("<= 256)", "> 256)"))
    d = verify(mod, inverted, functions=["prefill"]).difference
    assert d.kind == "guard" and "did not run at seq_len = 1" in d.message
    broken = unkeyed(text, "prefill")
    assert broken != text
    d = verify(mod, parse_module(broken), functions=["prefill"]).difference
    # Call 3 (seq_len = 256) replays the graph captured at 1 (its outputs are then too small
    # for a reshape: the rewrite fails; the replay is named as the cause).
    assert (d.kind, d.module, d.call) == ("ownership", "rewritten", 2), d
    assert re.search(r"symbolic shape value 256 \(prefill_cuda_graph_capture, graph \d+\) "
                     r"where the graph was captured with 1", d.message), d.message


# ---- TVM -------------------------------------------------------------------------------------

@pytest.mark.tvm
def test_without_a_bound_it_is_tvms_pass_with_the_hint(tvm):
    from record_case import tvm_rewrite
    from tvm_oracle import tvm_equal, tvm_parse

    _, out = small(capture_symbolic=("n",))
    theirs = tvm_rewrite(with_hint(SMALL.read_text(), '"n"'))
    gv = theirs.get_global_var("main")
    theirs.update_func(gv, theirs[gv].without_attr(HINT))
    assert tvm_equal(tvm_parse(print_module(out)), theirs) is None
    # --compat tvm without the option: TVM's pass as it is (the option changed nothing there).
    plain, _ = rewrite(parse_module(SMALL.read_text()), RewriteOptions.tvm_compat())
    assert tvm_equal(tvm_parse(print_module(plain)), tvm_rewrite(SMALL.read_text())) is None


@pytest.mark.tvm
def test_the_bounded_rewrite_loads_in_tvm_and_the_pass_takes_the_option(tvm):
    from tvm import relax
    from tvm_oracle import tvm_equal, tvm_parse, tvm_parse_with_constants

    from cudagraph_cli.tvm import CgraphPassError, RewriteCUDAGraph

    _, out = small(capture_symbolic=("n:8",))
    mine = tvm_parse_with_constants(print_module(out), {}, check_well_formed=True)
    expected = tvm_parse_with_constants(SMALL_N8.read_text(), {}, check_well_formed=True)
    assert tvm_equal(mine, expected) is None
    # TVM's printing of the guard (`cond: T.bool = n <= 8`) reads back in cgraph.
    assert module_difference(parse_module(mine.script()), out) is None
    before = tvm_parse(SMALL.read_text())
    with tvm.transform.PassContext(config={"relax.backend.use_cuda_graph": True}):
        passed = RewriteCUDAGraph(capture_symbolic=["n:8"])(before)
        relax.analysis.well_formed(passed)
        assert tvm_equal(passed, expected) is None
        with pytest.raises(CgraphPassError, match="named nope"):
            RewriteCUDAGraph(capture_symbolic=["nope"])(before)
    with pytest.raises(ValueError, match="bound of n"):
        RewriteCUDAGraph(capture_symbolic=["n:0"])


@pytest.mark.tvm
def test_llama_builds_with_the_bound_and_equals_tvms_hint_without(tvm):
    """One relax.build of the 1B model with cuda_pipeline(capture_symbolic=["seq_len:256"])
    (tens of seconds): it completes, the pass's output is well formed with prefill's 18
    guards, and cgraph's pass without the bound, on what TVM's pass was given, equals TVM's
    pass on it with the hint attribute on prefill. And the CLI's output loads in TVM with the
    well-formedness check on."""
    from tvm import relax
    from tvm.s_tir import dlight as dl
    from tvm_oracle import tvm_equal, tvm_parse_with_constants

    from bench.corpus import mlc_models, tvm_capture
    from cudagraph_cli.tvm import cuda_pipeline, on_a_short_stack, rewrite_module

    target = tvm.target.Target(tvm_capture.TARGET)
    recorder = tvm_capture.Capture()
    pipeline = cuda_pipeline(before_schedule=[dl.ApplyDefaultSchedule(dl.gpu.LowBatchGEMV(4))],
                             capture_symbolic=["seq_len:256"])
    with tvm.transform.PassContext(opt_level=3, config=tvm_capture.CONFIG,
                                   instruments=[recorder.instrument()]):
        ex = relax.build(mlc_models.build("mlc_llama_1b", target), target=target,
                         relax_pipeline=pipeline)
    before, ours = recorder.before_modules[0], recorder.after_modules[0]
    relax.analysis.well_formed(ours)
    assert ours["prefill"].script().count("<= 256") == 18
    assert "vm.builtin.cuda_graph.run_or_capture" in ex.as_text()

    mine = rewrite_module(before, RewriteOptions(capture_symbolic=("seq_len",)))
    gv = before.get_global_var("prefill")
    hinted = tvm.IRModule(dict(before.functions), attrs=before.attrs,
                          global_infos=before.global_infos)
    hinted[gv] = before[gv].with_attr(HINT, ["seq_len"])
    with tvm.transform.PassContext(config={"relax.backend.use_cuda_graph": True}):
        theirs = relax.transform.RewriteCUDAGraph()(hinted)
    theirs.update_func(theirs.get_global_var("prefill"),
                       theirs["prefill"].without_attr(HINT))
    assert tvm_equal(mine, theirs) is None

    code, text, _ = cgraph("rewrite", LLAMA, "--capture-symbolic", "seq_len:256")
    assert code == 0
    on_a_short_stack(tvm_parse_with_constants, text, {}, check_well_formed=True)


def test_comparisons_read_as_python_reads_them():
    text = TWO_VARS.replace("R.call_packed(\"copy\"",
                            "c = R.prim_value(n + 1 <= 8 and m * 2 > 3)\n        "
                            "R.call_packed(\"copy\"")
    printed = print_module(parse_module(text))
    assert "c = R.prim_value(n + 1 <= 8 and m * 2 > 3)" in printed
    chained = TWO_VARS.replace("R.call_packed(\"copy\"",
                               "c = R.prim_value(1 <= n <= 8)\n        R.call_packed(\"copy\"")
    with pytest.raises(Exception, match="chained comparisons are not supported"):
        parse_module(chained)


@pytest.mark.parametrize("stem", ["static_plan_tir_var_upper_bound",
                                  "static_plan_upper_and_lower_bounds"])
@pytest.mark.parametrize("value", ["n", "n:2"])
def test_a_capture_whose_first_parameter_is_an_expression_of_a_later_one_runs(stem, value):
    """The capture function's first parameter has shape (2 * n,) and only its trailing
    shape_expr gives n: the executor binds variables standing alone over all parameters
    before it checks expressions (it stopped with "symbolic variable 'n' has no value",
    found by bench/mutants/'s controls)."""
    original = api.load(REAL_SAMPLES / f"{stem}.before.relax")
    rewritten = parse_module(print_module(
        rewrite(original, RewriteOptions(capture_symbolic=(value,)))[0]))
    report = verify(original, rewritten)
    assert report.equal, report.difference
    assert report.captures >= 1


@pytest.mark.parametrize("guard, values", [("n < 9", [1, 9, 8, 10]), ("n < 8", [1, 8, 7, 9]),
                                           ("8 >= n", [1, 9, 8, 10])])
def test_verify_reads_a_strict_or_flipped_guard_as_it_means(guard, values):
    """A guard written `n < 9` or `8 >= n` (a hand edit, or another tool) bounds n as its
    operator says: verify picks the values around the largest n it allows and checks each
    graph ran exactly when the guard held. Read as `n <= 9` (the constant alone), `n < 9`
    was checked at n = 9 and reported that the graph 'did not run within its bound'."""
    _, out = small(capture_symbolic=("n:8",))
    edited = parse_module(print_module(out).replace("n <= 8", guard))
    report = verify(parse_module(SMALL.read_text(), str(SMALL)), edited)
    assert report.equal, report.difference
    assert report.symbolic == {"n": values}
