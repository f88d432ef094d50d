"""One source of truth for the rewrite's options (passes/options.py): what `cgraph rewrite`
refuses, the launcher (`python -m cudagraph_cli.tvm`) and the Python API (`RewriteOptions`,
`RewriteCUDAGraph(...)`) refuse too, with the same message; the launcher as people type it;
the warnings of `cgraph rewrite` reaching a build through `warnings.warn`. In-process: the
CLI through click's runner, the launcher through its `main`."""

from __future__ import annotations

import sys
import warnings

import pytest
from click.testing import CliRunner

from conftest import REAL_SAMPLES, ROOT
from cudagraph_cli.cli import main as cli_main
from cudagraph_cli.passes.options import OptionError, RewriteOptions
from cudagraph_cli.tvm.__main__ import main as launcher_main

MODULE = str(ROOT / "samples" / "tvm" / "tuple_before.relax")

# (CLI flags, the same as RewriteOptions fields, the message's words)
REFUSED = [
    (["--min-kernels", "0"], dict(min_kernels=0), "must be an integer of at least 1, not 0"),
    (["--min-kernels", "-5"], dict(min_kernels=-5), "must be an integer of at least 1, not -5"),
    (["--min-kernels", "two"], dict(min_kernels="two"),
     "must be an integer of at least 1, not 'two'"),
    (["--compat", "tvm", "--trust-extern", "my_*"], dict(trust_extern=("my_*",)),
     "act on the capture-safety table (correction 8)"),
    (["--compat", "tvm", "--strict-extern"], dict(strict_extern=True),
     "act on the capture-safety table (correction 8)"),
    (["--capture-symbolic", "n:0"], dict(capture_symbolic=("n:0",)),
     "the bound of n must be a positive integer, not 0"),
    (["--capture-symbolic", "n", "--capture-symbolic", "n:4"],
     dict(capture_symbolic=("n", "n:4")), "n is given twice"),
    (["--capture-buckets", "n:4,2"], dict(capture_buckets=("n:4,2",)),
     "the buckets of n must be in increasing order, not 4,2"),
    (["--capture-buckets", "n:0,2"], dict(capture_buckets=(("n", (0, 2)),)),
     "the buckets of n must be positive integers, not [0, 2]"),
    (["--capture-buckets", "n"], dict(capture_buckets=("n",)),
     "expects VAR:B1,B2,...,Bn or VAR:auto"),
    (["--capture-buckets", "n:auto", "--capture-buckets", "n:8"],
     dict(capture_buckets=("n:auto", "n:8")), "n is given twice"),
]


def api_options(fields: dict, compat: bool) -> RewriteOptions:
    return RewriteOptions.tvm_compat(**fields) if compat else RewriteOptions(**fields)


@pytest.fixture(autouse=True)
def own_argv_and_path(monkeypatch):
    """The launcher sets sys.argv (and a file's directory on sys.path) for its command, in
    this process: each test gets them back."""
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    monkeypatch.setattr(sys, "path", list(sys.path))


@pytest.mark.parametrize("flags,fields,words", REFUSED)
def test_the_cli_the_launcher_and_the_api_refuse_alike(flags, fields, words, capsys):
    got = CliRunner().invoke(cli_main, ["rewrite", MODULE, *flags])
    assert got.exit_code == 2 and words in got.output, got.output
    assert launcher_main([*flags, "--", "python", "-c", "pass"]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    with pytest.raises(OptionError) as e:
        api_options(fields, "--compat" in flags)
    assert words in str(e.value)
    # one message: the API's names the fields, the CLI's and the launcher's the flags,
    # word for word the same otherwise; the CLI's is one line
    assert got.output == f"cgraph rewrite: error: {e.value.for_flags}\n"
    assert err == f"python -m cudagraph_cli.tvm: error: {e.value.for_flags}\n"
    for name in e.value.fields:  # the API names the field; the command line never does
        assert name in str(e.value) and name not in got.output and name not in err


def test_a_str_of_names_is_one_name():
    assert RewriteOptions(exclude="fused_*").exclude == ("fused_*",)
    assert RewriteOptions(functions="forward").functions == ("forward",)
    assert RewriteOptions(trust_extern="my_*").trust_extern == ("my_*",)
    assert RewriteOptions(capture_symbolic="n:64").capture_symbolic == (("n", 64),)
    with pytest.raises(ValueError, match="must hold names"):
        RewriteOptions(exclude=("ok", 3))
    with pytest.raises(ValueError, match="True or False"):
        RewriteOptions(strict_extern="yes")


@pytest.mark.tvm
def test_an_unknown_function_fails_the_pass_as_it_fails_the_cli(tvm):
    from cudagraph_cli.tvm import CgraphPassError, RewriteCUDAGraph

    got = CliRunner().invoke(cli_main, ["rewrite", MODULE, "--functions", "nosuch"])
    assert got.exit_code == 2 and "no Relax function named nosuch in" in got.output
    mod = tvm.script.from_source(open(MODULE).read())
    with tvm.transform.PassContext(config={"relax.backend.use_cuda_graph": True}):
        with pytest.raises(CgraphPassError, match="no Relax function named nosuch in "
                                                  "<mod.script\\(\\)>"):
            RewriteCUDAGraph(functions="nosuch")(mod)
        RewriteCUDAGraph(functions="main")(mod)  # one name, not four letters


def test_the_launcher_as_people_type_it(tmp_path, capsys, monkeypatch):
    script = tmp_path / "build_it.py"
    script.write_text("import sys\nprint('ran', sys.argv[1:])\nsys.exit(3)\n")
    assert launcher_main(["--", "python", str(script), "a"]) == 3
    assert "ran ['a']" in capsys.readouterr().out
    (tmp_path / "buildpkg.py").write_text("import sys\nprint('module', sys.argv[1:])\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert launcher_main(["--", "python3", "-m", "buildpkg", "b"]) == 0
    assert "module ['b']" in capsys.readouterr().out
    # --help without --, or before it
    assert launcher_main(["--help"]) == 0
    assert "-- python build_it.py" in capsys.readouterr().out
    assert launcher_main(["--min-kernels", "2", "--help", "--", "x"]) == 0
    assert "usage:" in capsys.readouterr().out
    assert launcher_main([str(script)]) == 2
    assert "expected -- before the command" in capsys.readouterr().err
    # a bad --capture-symbolic: one line, no traceback
    assert launcher_main(["--capture-symbolic", "seq len", "--", "python", str(script)]) == 2
    err = capsys.readouterr().err
    assert err == ("python -m cudagraph_cli.tvm: error: --capture-symbolic expects VAR or "
                   "VAR:MAX, a symbolic variable's name and an optional positive bound, not "
                   "'seq len'\n")


@pytest.mark.tvm
def test_a_replaced_pass_says_it_is_cgraphs(tvm):
    from tvm import relax

    from cudagraph_cli.tvm import use_in_tvm

    with use_in_tvm(min_kernels=2):
        factory = relax.transform.RewriteCUDAGraph
        assert factory.__module__.startswith("cudagraph_cli.tvm")
        assert "cgraph" in repr(factory) and "min_kernels=2" in repr(factory)
        assert factory().info.name == "RewriteCUDAGraph"  # TVM's name, for instruments


UNPLANNED = """
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def add(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,))
        B = T.match_buffer(b, (n,))
        for i in range(n):
            B[i] = A[i] + T.float32(1)

    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        R.func_attr({"relax.force_pure": True})
        cls = Module
        a: R.Tensor((n,), dtype="float32") = R.builtin.alloc_tensor(R.shape([n]), R.dtype("float32"), R.prim_value(0))
        cls.add(x, a)
        b: R.Tensor((n,), dtype="float32") = R.builtin.alloc_tensor(R.shape([n]), R.dtype("float32"), R.prim_value(0))
        cls.add(a, b)
        return b
"""


@pytest.mark.tvm
def test_the_rewrites_warnings_reach_the_build(tvm):
    # a module before LegalizeOps (cgraph rewrite: "looks dumped before LegalizeOps") and a
    # --capture-symbolic variable without tir_var_upper_bound: warnings.warn, not silence
    from cudagraph_cli import api
    from cudagraph_cli.tvm import CgraphPassWarning, RewriteCUDAGraph

    before = tvm.script.from_source(
        (ROOT / "samples" / "tvm" / "capture_fixed_inputs_conv2dx3.relax").read_text())
    with tvm.transform.PassContext(config={"relax.backend.use_cuda_graph": True}):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            RewriteCUDAGraph()(before)
    messages = [str(w.message) for w in caught if w.category is CgraphPassWarning]
    assert any("before LegalizeOps" in m for m in messages), messages

    # without the bound, StaticPlanBlockMemory leaves n-shaped tensors to the VM's allocator
    # (R.builtin.alloc_tensor): nothing keyed by n can be captured
    out, report = api.rewrite(api.loads(UNPLANNED), RewriteOptions(capture_symbolic=("n:8",)))
    keyed = [r for r in report.plan.kept_captures() if r.tir_vars]
    unbounded = [m for _, m in report.warnings if "has no tir_var_upper_bound for n" in m]
    assert not keyed and len(unbounded) == 1 and unbounded[0] in report.notes, report.warnings
    from cudagraph_cli.tvm.rewrite_pass import warn_report
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warn_report(report)
    assert [str(w.message) for w in caught] == [f"cgraph's RewriteCUDAGraph: {unbounded[0]}"]
    # with its bound, the graphs are keyed by n: no such warning
    text = (REAL_SAMPLES / "static_plan_call_tir_dyn.before.relax").read_text()
    _, report = api.rewrite(api.loads(text), RewriteOptions(capture_symbolic=("n:8",)))
    assert not any("has no tir_var_upper_bound" in m for _, m in report.warnings)


@pytest.mark.tvm
def test_the_launcher_refuses_an_unknown_function_in_one_line(tvm, tmp_path, capsys):
    # the name is checked when the pass runs (the launcher has no module before): the build's
    # CgraphPassError is the launcher's error, one line, status 2, as `cgraph rewrite` refuses
    script = tmp_path / "build_it.py"
    script.write_text(
        "import sys, tvm\nfrom tvm import relax\n"
        "mod = tvm.script.from_source(open(sys.argv[1]).read())\n"
        "with tvm.transform.PassContext(config={'relax.backend.use_cuda_graph': True}):\n"
        "    relax.transform.RewriteCUDAGraph()(mod)\n")
    assert launcher_main(["--functions", "nosuch", "--", "python", str(script), MODULE]) == 2
    err = capsys.readouterr().err
    assert err == ("python -m cudagraph_cli.tvm: error: no Relax function named nosuch in "
                   "<mod.script()> (it has main)\n")
    assert launcher_main(["--functions", "main", "--", "python", str(script), MODULE]) == 0
