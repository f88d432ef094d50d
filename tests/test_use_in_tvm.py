"""cudagraph_cli.tvm.use_in_tvm and `python -m cudagraph_cli.tvm -- COMMAND` (issue 32, items 2
and 4): pipelines that make TVM's pass by name get cgraph's, with no edit.

cgraph's pass is told from TVM's by an option only cgraph has: `min_kernels` above the number
of kernels in any region, so cgraph lifts no graph where TVM lifts some (TVM's pass has no
options). The modules: TVM's default cuda pipeline inside relax.build on the corpus MLP
(build_corpus.nn_mlp: TVM lifts two single-kernel graphs, samples/real/nn_mlp.after.relax),
and TVM's reading of samples/real/static_plan_basic.before.relax (one graph of three kernels).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from bench.corpus import build_corpus, tvm_capture
from conftest import REAL_SAMPLES, ROOT
from unreadable_modules import UNREADABLE as UNREADABLE_MODULES


NO_GRAPH = 100  # min_kernels no region of these modules reaches


def lifted(mod) -> list[str]:
    return sorted(gv.name_hint for gv in mod.functions if "cuda_graph" in gv.name_hint)


def static_plan_basic(tvm):
    return tvm.script.from_source((REAL_SAMPLES / "static_plan_basic.before.relax").read_text())


def tvms_own(tvm):
    """TVM's own factory, as TVM binds it (where it is defined)."""
    import tvm.relax.transform.transform as defined

    return defined.RewriteCUDAGraph


def build_mlp(tvm):
    """relax.build of the corpus MLP with TVM's default pipeline; the module right after the
    pass named RewriteCUDAGraph, as an instrument sees it."""
    from tvm import relax

    recorder = tvm_capture.Capture()
    with tvm.transform.PassContext(opt_level=3, config=tvm_capture.CONFIG,
                                   instruments=[recorder.instrument()]):
        ex = relax.build(build_corpus.nn_mlp(), target=tvm.target.Target(tvm_capture.TARGET))
    recorder.single("nn_mlp")
    return recorder.after_modules[0], ex


def test_tvms_default_relax_build_runs_cgraphs_pass_inside_and_tvms_outside(tvm):
    from tvm import relax

    from cudagraph_cli.tvm import use_in_tvm

    original = tvms_own(tvm)
    with use_in_tvm(min_kernels=NO_GRAPH):
        assert relax.transform.RewriteCUDAGraph is not original
        inside, ex = build_mlp(tvm)
    # cgraph's pass ran: the static storages are allocated once, no graph lifted
    assert lifted(inside) == ["cuda_graph_alloc"]
    assert "vm.builtin.cuda_graph.get_cached_alloc" in ex.as_text()
    assert relax.transform.RewriteCUDAGraph is original
    outside, _ = build_mlp(tvm)
    assert lifted(outside) == ["cuda_graph_alloc", "forward_cuda_graph_capture",
                               "forward_cuda_graph_capture1"]


def mlc_style_pipeline(tvm, seen: list):
    """A pipeline written as MLC-LLM's `_mlc_llm_pipeline` is (compiler_pass/pipeline.py): a
    module pass whose function makes its Sequential when it runs, TVM's pass made by name
    there (between StaticPlanBlockMemory and MLC-LLM's AttachCUDAGraphAllocInitFunc, stood
    for here by a pass recording the module)."""
    @tvm.transform.module_pass(opt_level=0, name="AttachCUDAGraphAllocInitFunc")
    def attach(mod, _ctx):
        seen.append(mod)
        return mod

    @tvm.transform.module_pass(opt_level=0)
    def _pipeline(mod, _ctx):
        seq = tvm.transform.Sequential([
            tvm.relax.transform.RewriteCUDAGraph(),
            attach,
        ])
        return seq(mod)

    return _pipeline


def test_a_pipeline_written_like_mlc_llms_gets_cgraphs_pass_with_no_edit(tvm):
    from cudagraph_cli.tvm import use_in_tvm

    pipeline_seen: list = []
    pipeline = mlc_style_pipeline(tvm, pipeline_seen)  # made before the block, as MLC-LLM does
    mod = static_plan_basic(tvm)
    with tvm.transform.PassContext(config=tvm_capture.CONFIG):
        with use_in_tvm(min_kernels=NO_GRAPH):
            pipeline(mod)
        pipeline(mod)
    inside, outside = pipeline_seen
    assert lifted(inside) == ["cuda_graph_alloc"]
    assert lifted(outside) == ["cuda_graph_alloc", "main_cuda_graph_capture"]


def test_blocks_nest_and_restore_tvms_pass_on_exception(tvm):
    from tvm import relax

    import tvm.relax.transform.transform as defined
    from cudagraph_cli.tvm import use_in_tvm

    original = tvms_own(tvm)
    mod = static_plan_basic(tvm)

    def run():
        with tvm.transform.PassContext(config=tvm_capture.CONFIG):
            return lifted(relax.transform.RewriteCUDAGraph()(mod))

    with use_in_tvm(min_kernels=NO_GRAPH):
        assert run() == ["cuda_graph_alloc"]
        with use_in_tvm():  # cgraph's defaults: the graph is lifted, as TVM does
            assert run() == ["cuda_graph_alloc", "main_cuda_graph_capture"]
            assert defined.RewriteCUDAGraph is relax.transform.RewriteCUDAGraph
        assert run() == ["cuda_graph_alloc"]  # the outer block's options again
    assert relax.transform.RewriteCUDAGraph is original and defined.RewriteCUDAGraph is original

    with pytest.raises(KeyError):
        with use_in_tvm(min_kernels=NO_GRAPH):
            raise KeyError("the pipeline failed")
    assert relax.transform.RewriteCUDAGraph is original and defined.RewriteCUDAGraph is original

    with pytest.raises(ValueError):  # a bad option: nothing is replaced
        with use_in_tvm(capture_symbolic=["n:0"]):
            pass
    assert relax.transform.RewriteCUDAGraph is original


def test_blocks_closed_out_of_order_leave_the_open_ones_options(tvm):
    from tvm import relax

    from cudagraph_cli.tvm import use_in_tvm

    original = tvms_own(tvm)
    first, second = use_in_tvm(min_kernels=NO_GRAPH), use_in_tvm(min_kernels=7)
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)  # another thread's block ends first
    assert relax.transform.RewriteCUDAGraph.cgraph_options[1] == {"min_kernels": 7}
    second.__exit__(None, None, None)
    assert relax.transform.RewriteCUDAGraph is original


UNREADABLE = UNREADABLE_MODULES[0]  # TVM builds it, cgraph cannot read it


def test_inside_relax_build_a_module_cgraph_cannot_read_builds_with_tvms_pass(tvm):
    from tvm import relax

    from cudagraph_cli.tvm import (CgraphOptionError, TextRouteWarning, TvmPassFallbackWarning,
                                   use_in_tvm)
    from cudagraph_cli.tvm.rewrite_pass import SCRIPT_NAME

    mod = tvm.script.from_source(UNREADABLE)
    with pytest.warns(TextRouteWarning), pytest.warns(TvmPassFallbackWarning) as fallback:
        with use_in_tvm():
            with tvm.transform.PassContext(opt_level=3, config=tvm_capture.CONFIG):
                relax.build(mod, target="cuda")
    message = str(next(w.message for w in fallback if w.category is TvmPassFallbackWarning))
    assert f"{SCRIPT_NAME}:" in message
    assert "error: 'T.popcount' is not a symbolic integer expression" in message
    assert message.rstrip().endswith("^")  # the source line and its caret
    assert relax.transform.RewriteCUDAGraph is tvms_own(tvm)
    # an option naming what the module lacks is the user's error: raised, never worked around
    with pytest.raises(CgraphOptionError, match="named nope"):
        with use_in_tvm(capture_symbolic=["nope"]):
            build_mlp(tvm)
    assert relax.transform.RewriteCUDAGraph is tvms_own(tvm)


# ---- the launcher -----------------------------------------------------------------------

SCRIPT = textwrap.dedent('''
    import sys
    import tvm
    from tvm import relax
    mod = tvm.script.from_source(open(sys.argv[1]).read())
    with tvm.transform.PassContext(config={"relax.backend.use_cuda_graph": True}):
        out = relax.transform.RewriteCUDAGraph()(mod)
    print(sorted(gv.name_hint for gv in out.functions if "cuda_graph" in gv.name_hint))
    if sys.argv[2] == "raise":
        raise RuntimeError("the command failed")
    sys.exit(int(sys.argv[2]))
''')


def launch(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cudagraph_cli.tvm", *args], cwd=cwd or ROOT,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.tvm
def test_the_launcher_runs_a_script_with_cgraphs_pass_and_its_exit_status(tvm, tmp_path):
    script = tmp_path / "build.py"
    script.write_text(SCRIPT)
    module = str(REAL_SAMPLES / "static_plan_basic.before.relax")
    got = launch("--min-kernels", str(NO_GRAPH), "--", str(script), module, "3")
    assert got.returncode == 3, got.stderr
    assert got.stdout.strip() == "['cuda_graph_alloc']"
    # the command's exception: Python's traceback and status 1
    got = launch("--", str(script), module, "raise")
    assert got.returncode == 1
    assert got.stdout.strip() == "['cuda_graph_alloc', 'main_cuda_graph_capture']"
    assert "RuntimeError: the command failed" in got.stderr
    # Issue 52: what cgraph did, a line on stderr (the pass's log)
    assert "cgraph: main 1 graph launch, host work 5 -> 3 a call\n" in got.stderr
    # -m MODULE, as python -m runs it
    (tmp_path / "buildmod.py").write_text(SCRIPT)
    got = subprocess.run([sys.executable, "-m", "cudagraph_cli.tvm", "--min-kernels",
                          str(NO_GRAPH), "--", "-m", "buildmod", module, "0"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=300,
                         env={**__import__("os").environ,
                              "PYTHONPATH": f"{tmp_path}:{ROOT}"})
    assert got.returncode == 0, got.stderr
    assert got.stdout.strip() == "['cuda_graph_alloc']"
    # usage errors: exit 2, one line
    got = launch("--min-kernels", "0", "--", str(script))
    assert got.returncode == 2 and got.stderr == ("python -m cudagraph_cli.tvm: error: "
                                                  "--min-kernels must be an integer of at "
                                                  "least 1, not 0\n")
    got = launch("--", "no-such-command-anywhere")
    assert got.returncode == 2 and "no console script, module or Python file" in got.stderr
    got = launch(str(script))
    assert got.returncode == 2 and "expected -- before the command" in got.stderr


def test_the_launchers_line_and_quiet(tvm, tmp_path, capsys):
    """Issue 52: the launcher prints what cgraph did to each module on stderr, -q nothing; the
    logger is left as it was."""
    import logging

    from cudagraph_cli.tvm.__main__ import main

    script = tmp_path / "build.py"
    script.write_text(SCRIPT)
    module = str(REAL_SAMPLES / "static_plan_basic.before.relax")
    logger = logging.getLogger("cudagraph_cli")
    before = (logger.level, logger.propagate, list(logger.handlers))
    saved = list(sys.argv)
    try:
        assert main(["--", str(script), module, "0"]) == 0
        assert capsys.readouterr().err == "cgraph: main 1 graph launch, host work 5 -> 3 a call\n"
        assert main(["-q", "--", str(script), module, "0"]) == 0
        assert capsys.readouterr().err == ""
    finally:
        sys.argv[:] = saved
    assert (logger.level, logger.propagate, list(logger.handlers)) == before


def test_the_launcher_in_process_leaves_tvms_pass_whatever_the_command_does(tvm, tmp_path):
    from tvm import relax

    from cudagraph_cli.tvm import run_with_cgraph

    original = tvms_own(tvm)
    module = str(REAL_SAMPLES / "static_plan_basic.before.relax")
    script = tmp_path / "build.py"
    script.write_text(SCRIPT)
    saved = list(sys.argv)
    try:
        assert run_with_cgraph([str(script), module, "raise"], min_kernels=NO_GRAPH) == 1
        assert relax.transform.RewriteCUDAGraph is original
        assert run_with_cgraph([str(script), module, "5"]) == 5
        assert relax.transform.RewriteCUDAGraph is original
        # a console script of this environment (cgraph's own), found by its entry point
        assert run_with_cgraph(["cgraph", "--version"]) == 0
    finally:
        sys.argv[:] = saved
    assert relax.transform.RewriteCUDAGraph is original
