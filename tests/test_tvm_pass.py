"""cudagraph_cli.tvm: cgraph's rewrite as a TVM pass, and README's
"Use with TVM and MLC-LLM" section, run as written.

The reference is TVM's own pass on the same in-memory module: each corpus model is rebuilt as
bench/corpus/build_corpus.py builds it (its model functions, target, config and pass
instrument), and the instrument hands over the module objects right before and right after
TVM's RewriteCUDAGraph inside relax.build. The static_plan_* modules are TVM's reading of the
corpus files (TVM's own test modules), through TVM's pass alone as the script does.
"""

from __future__ import annotations

import logging
import re
import subprocess
import sys

import pytest

from bench.corpus import build_corpus, tvm_capture
from conftest import REAL_SAMPLES, ROOT, run_cli
from cudagraph_cli.passes.options import RewriteOptions


FRONTEND_MODELS = list(build_corpus.MODELS)
STATIC_PLAN = sorted(p.name.split(".")[0] for p in REAL_SAMPLES.glob("static_plan_*.before.relax"))
CORPUS = FRONTEND_MODELS + STATIC_PLAN


@pytest.fixture(scope="session")
def captured(tvm):
    """name -> (module right before TVM's pass, module right after it), built once a session."""
    cache: dict = {}

    def get(name):
        if name not in cache:
            cache[name] = capture(tvm, name)
        return cache[name]

    return get


def capture(tvm, name):
    from tvm import relax

    recorder = tvm_capture.Capture()
    context = tvm.transform.PassContext(opt_level=3, config=tvm_capture.CONFIG,
                                        instruments=[recorder.instrument()])
    if name in build_corpus.MODELS:
        try:
            mod = build_corpus.MODELS[name][2]()
        except ImportError as e:  # torch is optional, as in the script
            pytest.skip(f"{name}: {e.name or e} is not installed")
        with context:
            relax.build(mod, target=tvm.target.Target(tvm_capture.TARGET))
    else:
        mod = tvm.script.from_source((REAL_SAMPLES / f"{name}.before.relax").read_text())
        with context:
            relax.transform.RewriteCUDAGraph()(mod)
    recorder.single(name)
    return recorder.before_modules[0], recorder.after_modules[0]


def cgraph_pass(tvm, mod, **options):
    from cudagraph_cli.tvm import RewriteCUDAGraph

    with tvm.transform.PassContext(config=tvm_capture.CONFIG):
        return RewriteCUDAGraph(**options)(mod)


def is_tensor(e) -> bool:
    """A tensor constant (what TVM prints as metadata), not a scalar or an integer."""
    import tvm

    return isinstance(e, tvm.ir.expr.GenericConst) and len(getattr(e.value, "shape", ())) > 0


def constants_of(tvm, mod) -> list:
    """The tensor constants of the module's Relax functions, in visiting order."""
    from tvm import relax

    found = []
    for f in mod.functions.values():
        if isinstance(f, relax.Function):
            relax.analysis.post_order_visit(
                f, lambda e: found.append(e) if is_tensor(e) else None)
    return found


# Where cgraph's rewrite differs from TVM's on the corpus, by one of its documented corrections
# (docs/REWRITE.md): module -> (function, attribute cgraph adds). static_plan_view's `main` has
# no relax.force_pure and TVM's pass makes it call the impure cuda_graph builtins, which TVM's
# well-formedness check rejects; cgraph marks it relax.force_pure (correction 6).
CORRECTIONS = {"static_plan_view": ("main", "relax.force_pure")}


def without_corrections(tvm, name, mod):
    """`mod` with the correction cgraph makes on this module undone (TVM's pass output then)."""
    if name not in CORRECTIONS:
        return mod
    function, attr = CORRECTIONS[name]
    assert mod[function].attrs[attr], f"{name}: cgraph no longer makes its correction"
    undone = tvm.IRModule(dict(mod.functions.items()), attrs=mod.attrs)
    undone[function] = mod[function].without_attr(attr)
    return undone


@pytest.mark.parametrize("name", CORPUS)
def test_pass_equals_tvms_pass_on_the_same_module(tvm, captured, name):
    before, theirs = captured(name)
    ours = cgraph_pass(tvm, before)
    exact = cgraph_pass(tvm, before, options=RewriteOptions.tvm_compat())
    tvm.ir.assert_structural_equal(exact, theirs)
    tvm.ir.assert_structural_equal(without_corrections(tvm, name, ours), theirs)
    # well-formed, as TVM's own pass output is not on static_plan_view (correction 6)
    tvm.relax.analysis.well_formed(ours)

    originals = {gv.name_hint: f for gv, f in before.functions.items()}
    for gv, f in ours.functions.items():
        if isinstance(f, tvm.tirx.PrimFunc):
            assert f.same_as(originals[gv.name_hint]), gv.name_hint
    originals = constants_of(tvm, before)
    for c in constants_of(tvm, ours):
        assert any(c.same_as(o) for o in originals), c
    if not ours.same_as(before):
        # a new module, with the input's attrs and global infos (TVM's printer and reader do
        # not carry all of them)
        assert {k: v for k, v in (ours.attrs or {}).items()} == \
            {k: v for k, v in (before.attrs or {}).items()}
        assert ours.global_infos.same_as(before.global_infos) or \
            dict(ours.global_infos) == dict(before.global_infos)


def test_the_in_memory_modules_are_the_corpus_files(tvm, captured):
    # What this file tests the pass on is what samples/real records (below its header).
    for name in ("nn_mlp", "onnx_convnet"):
        before, after = captured(name)
        for stage, mod in (("before", before), ("after", after)):
            text = (REAL_SAMPLES / f"{name}.{stage}.relax").read_text()
            body = text[text.index("# from tvm.script import ir as I"):]
            assert body == mod.script() + ("" if mod.script().endswith("\n") else "\n")


def test_constants_come_back_as_the_original_objects(tvm, captured):
    # onnx: four weights printed as metadata["ir.GenericConst"][0..3], each passed to a kernel
    before, _ = captured("onnx_convnet")
    ours = cgraph_pass(tvm, before)
    got, originals = constants_of(tvm, ours), constants_of(tvm, before)
    assert len(originals) == 4 and len(got) == 4
    assert all(g.same_as(o) for g, o in zip(got, originals))


def test_unchanged_module_is_returned_as_is(tvm, captured):
    # static_plan_add: nothing TVM captures (README), so the pass hands back its input
    before, theirs = captured("static_plan_add")
    tvm.ir.assert_structural_equal(before, theirs)
    assert cgraph_pass(tvm, before).same_as(before)


def test_like_tvms_pass_it_does_nothing_without_the_config(tvm, captured):
    from tvm import relax

    from cudagraph_cli.tvm import RewriteCUDAGraph

    before, _ = captured("nn_mlp")
    with tvm.transform.PassContext(opt_level=3):
        assert relax.transform.RewriteCUDAGraph()(before).same_as(before)
        assert RewriteCUDAGraph()(before).same_as(before)


def test_options_are_cgraph_rewrites(tvm, captured):
    # TVM lifts two graphs from nn_mlp's forward, one kernel each (cls.transpose and
    # cls.transpose1, samples/real/nn_mlp.after.relax): with at least 2 kernels a graph, no
    # graph is captured; the static storages are still allocated once (cuda_graph_alloc), as
    # `cgraph rewrite --min-kernels 2` does
    before, theirs = captured("nn_mlp")
    names = {gv.name_hint for gv in cgraph_pass(tvm, before, min_kernels=2).functions}
    assert "cuda_graph_alloc" in names
    assert not any("cuda_graph_capture" in n for n in names)
    tvm.ir.assert_structural_equal(cgraph_pass(tvm, before, functions=("forward",)), theirs)


def test_pass_info_is_tvms(tvm):
    from tvm import relax

    from cudagraph_cli.tvm import RewriteCUDAGraph

    ours, theirs = RewriteCUDAGraph().info, relax.transform.RewriteCUDAGraph().info
    assert isinstance(RewriteCUDAGraph(), tvm.transform.Pass)
    assert (ours.name, ours.opt_level, list(ours.required)) == \
        (theirs.name, theirs.opt_level, list(theirs.required)) == ("RewriteCUDAGraph", 0, [])


def test_relax_build_with_cuda_pipeline_on_the_llama_model(tvm, captured, caplog):
    from tvm import relax

    from cudagraph_cli.tvm import cuda_pipeline

    _, theirs = captured("nn_llama_kv")
    caplog.set_level(logging.INFO, logger="cudagraph_cli")
    recorder = tvm_capture.Capture()
    with tvm.transform.PassContext(opt_level=3, config=tvm_capture.CONFIG,
                                   instruments=[recorder.instrument()]):
        ex = relax.build(build_corpus.nn_llama_kv(), target=tvm.target.Target(tvm_capture.TARGET),
                         relax_pipeline=cuda_pipeline())
    # The pipeline ran cgraph's pass (the instrument finds it by TVM's name) exactly once,
    # where TVM's runs, and it made what TVM's makes.
    recorder.single("nn_llama_kv")
    tvm.ir.assert_structural_equal(recorder.after_modules[0], theirs)
    # Issue 52: the build says that cgraph ran, one line a module, as `cgraph diff` counts
    [line] = [r.getMessage() for r in caplog.records if r.name == "cudagraph_cli"]
    assert re.fullmatch(r"cgraph: (\w+ \d+ graph launch(es)?, host work \d+ -> \d+ a call"
                        r"(; )?)+", line), line
    text = ex.as_text()
    assert "vm.builtin.cuda_graph.run_or_capture" in text
    assert "vm.builtin.cuda_graph.get_cached_alloc" in text


def test_docs_own_model_snippet_runs_as_written(tvm, tmp_path, monkeypatch, caplog):
    """Issue 52: docs/TVM.md's copy-paste way to a model without MLC-LLM, run as written: the
    build logs cgraph's line, and the module it writes is the CLI's input."""
    from cudagraph_cli import api

    text = (ROOT / "docs" / "TVM.md").read_text(encoding="utf-8")
    block = text.split("<!-- snippet: own-model")[1].split("```python\n")[1].split("```")[0]
    monkeypatch.chdir(tmp_path)
    caplog.set_level(logging.INFO, logger="cudagraph_cli")
    exec(compile(block, "docs/TVM.md (own-model)", "exec"), {"__name__": "own_model"})
    assert [r.getMessage() for r in caplog.records if r.name == "cudagraph_cli"] == \
        ["cgraph: forward 2 graph launches, host work 6 -> 4 a call"]
    out, report = api.rewrite(api.load(tmp_path / "mlp.relax"))
    assert sorted(r.code for r in report.reasons) == ["dynamic-alloc", "param-input"]


def test_cuda_pipeline_refuses_another_target(tvm, captured):
    from tvm import relax

    from cudagraph_cli.tvm import cuda_pipeline

    with pytest.raises(ValueError, match="cuda pipeline; the target is llvm$"):
        relax.build(build_corpus.nn_mlp(), target="llvm", relax_pipeline=cuda_pipeline())


def test_cuda_pipeline_runs_before_schedule_passes_right_before_tvms_schedule(tvm, monkeypatch):
    from tvm import relax
    from tvm.relax.backend.cuda import pipeline as cuda

    from cudagraph_cli.tvm import cuda_pipeline

    ran = []

    @tvm.ir.instrument.pass_instrument
    class Order:
        def run_before_pass(self, mod, info):
            ran.append(info.name)

    marker = tvm.transform.module_pass(lambda mod, ctx: mod, opt_level=0, name="Marker")
    target = tvm.target.Target(tvm_capture.TARGET)
    with tvm.transform.PassContext(opt_level=3, config=tvm_capture.CONFIG, instruments=[Order()]):
        relax.build(build_corpus.nn_mlp(), target=target,
                    relax_pipeline=cuda_pipeline(before_schedule=[marker]))
    at = ran.index("Marker")
    # (FuseTIR runs passes of its own, such as DeadCodeElimination, after its start)
    assert ran.count("Marker") == 1 and ran.index("FuseTIR") < at and \
        ran[at + 1] == "ApplyDefaultSchedule"

    # a TVM whose legalize passes have no dlight schedule: no build, rather than one elsewhere
    legalize = cuda.legalize_passes
    monkeypatch.setattr(cuda, "legalize_passes", lambda t: legalize(t)[:-1])
    with pytest.raises(RuntimeError, match="no single ApplyDefaultSchedule"):
        relax.build(build_corpus.nn_mlp(), target=target,
                    relax_pipeline=cuda_pipeline(before_schedule=[marker]))


# The clash of MLC-LLM's paged-KV-cache kernels, in small: the Relax function's symbolic `n`
# is printed as a module-level `n = TypeVar("n")`, the kernel's own `n = T.int32()` in its body,
# and TVM cannot read its own printing back ("Variable n already defined in current scope").
# The kernel also carries an attribute TVM's printer writes, `layout_free_buffers`.
CLASH = '''
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add_one(a: T.handle, b: T.handle):
        T.func_attr({"layout_free_buffers": [0]})
        n = T.int32()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        for i in range(n):
            with T.sblock("b"):
                vi = T.axis.spatial(n, i)
                B[vi] = A[vi] + T.float32(1)

    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        R.func_attr({"relax.force_pure": True})
        storage: R.Any = R.memory.alloc_storage(R.shape([64]), 0, R.str("global"), R.dtype("float32"))
        a: R.Tensor((16,), dtype="float32") = R.memory.alloc_tensor(storage, 0, R.shape([16]), R.dtype("float32"), 0)
        cls = Module
        cls.add_one(a, a)
        return x
'''


def test_a_kernel_tvm_cannot_read_back_comes_back_as_the_original(tvm):
    from tvm import relax

    mod = tvm.script.from_source(CLASH)
    with pytest.raises(Exception, match="Variable n already defined"):
        tvm.script.from_source(mod.script())  # the premise: TVM's own round trip fails
    with tvm.transform.PassContext(config=tvm_capture.CONFIG):
        theirs = relax.transform.RewriteCUDAGraph()(mod)
    ours = cgraph_pass(tvm, mod)
    tvm.ir.assert_structural_equal(ours, theirs)
    assert len(ours.functions) == 4  # main, add_one, the capture and the alloc functions
    assert ours["add_one"].same_as(mod["add_one"])


def test_constants_in_the_wrong_order_are_refused(tvm, captured, monkeypatch):
    # The text route (what the pass falls back to for a module its in-memory reader does not
    # read) infers the numbering of TVM's metadata (printing order); were it wrong, the
    # kernels' parameter shapes would tell: it refuses rather than swapping weights.
    import cudagraph_cli.tvm.rewrite_pass as cgraph_tvm

    before, _ = captured("onnx_convnet")
    inferred = cgraph_tvm.printed_constants
    monkeypatch.setattr(cgraph_tvm, "printed_constants",
                        lambda mod, ours: list(reversed(inferred(mod, ours))))
    with pytest.raises(cgraph_tvm.CgraphPassError, match="metadata numbering was not followed"):
        with tvm.transform.PassContext(config=tvm_capture.CONFIG):
            cgraph_tvm.rewrite_module_through_text(before)


# TVM reads it; cgraph reads no T.popcount of a symbolic value, in memory (a TextRouteWarning)
# or as text
UNREADABLE = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32"), s: R.Shape(["n"])) -> R.Tensor((2,), "float32"):
        n = T.int64()
        R.func_attr({"relax.force_pure": True})
        y = R.add(x, x)
        p = R.prim_value(T.popcount(n))
        return y
'''


def test_a_module_cgraph_cannot_read_gets_tvms_pass_and_cgraphs_located_error(tvm):
    """Where cgraph cannot read a module TVM holds, TVM's own pass runs instead: the build goes
    on as without cgraph, and a TvmPassFallbackWarning carries cgraph's located error."""
    from tvm import relax

    from cudagraph_cli.diagnostics import SourceError
    from cudagraph_cli.text.reader import parse_module
    from cudagraph_cli.ir.wellformed import check_module
    from cudagraph_cli.tvm.rewrite_pass import (SCRIPT_NAME, TextRouteWarning,
                                                TvmPassFallbackWarning)

    mod = tvm.script.from_source(UNREADABLE)
    text = mod.script()
    line = next(i for i, s in enumerate(text.split("\n"), 1) if "T.popcount(n)" in s)
    try:
        check_module(parse_module(text, SCRIPT_NAME))
    except SourceError as e:
        expected = e
    else:
        pytest.fail("cgraph now reads this module: give this test one it cannot read")
    assert expected.loc.line == line
    with pytest.warns(TextRouteWarning, match="popcount"), \
            pytest.warns(TvmPassFallbackWarning) as fallback:
        got = cgraph_pass(tvm, mod)
    with tvm.transform.PassContext(config=tvm_capture.CONFIG):
        theirs = relax.transform.RewriteCUDAGraph()(mod)
    tvm.ir.assert_structural_equal(got, theirs)
    message = str(next(w.message for w in fallback if w.category is TvmPassFallbackWarning))
    assert "TVM's own RewriteCUDAGraph ran instead" in message
    assert f"{SCRIPT_NAME}:{line}:{expected.loc.col}: error: {expected.message}" in message
    assert "p: T.int64 = T.popcount(n)" in message  # the source line, with its caret


def test_where_tvms_pass_fails_too_cgraphs_error_is_raised(tvm, monkeypatch):
    from tvm.relax.transform import _ffi_api

    from cudagraph_cli.tvm.rewrite_pass import CgraphPassError, TextRouteWarning

    def broken():
        raise RuntimeError("TVM's pass broke")

    monkeypatch.setattr(_ffi_api, "RewriteCUDAGraph", broken)
    mod = tvm.script.from_source(UNREADABLE)
    with pytest.raises(CgraphPassError, match="'T.popcount' is not a symbolic") as raised, \
            pytest.warns(TextRouteWarning):
        cgraph_pass(tvm, mod)
    assert str(raised.value).endswith("TVM's own RewriteCUDAGraph, tried instead, failed too: "
                                      "TVM's pass broke")


def run_python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)


def test_importing_cgraph_does_not_import_tvm():
    got = run_python("import sys, cudagraph_cli, cudagraph_cli.tvm, cudagraph_cli.cli\n"
                     "print(sorted(m for m in sys.modules if m == 'tvm' or m.startswith('tvm.')))")
    assert got.returncode == 0, got.stderr
    assert got.stdout.strip() == "[]"


def test_without_tvm_the_pass_names_the_extra():
    # sys.modules[name] = None makes `import name` raise ImportError, as if not installed
    got = run_python("import sys\nsys.modules['tvm'] = None\n"
                     "from cudagraph_cli.tvm import RewriteCUDAGraph\n"
                     "try:\n    RewriteCUDAGraph()\n"
                     "except ImportError as e:\n    print(e)\n")
    assert got.returncode == 0, got.stderr
    assert "pip install apache-tvm==0.27.0.post1, or pip install '.[tvm]' in cgraph's " \
        "checkout" in got.stdout


# --- README: "Use with TVM and MLC-LLM" --------------------------------------------------

def readme_blocks() -> list[str]:
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Use with TVM and MLC-LLM"):]
    section = section[:section.index("\n## ", 1)]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def test_readme_snippets_run_as_written(tvm, tmp_path, monkeypatch):
    blocks = readme_blocks()
    assert len(blocks) == 3, "the section's three Python blocks: the dump, the pass, use_in_tvm"
    monkeypatch.chdir(tmp_path)
    # `mod`: the reader's model; here the corpus MLP
    dump = {"mod": build_corpus.nn_mlp()}
    exec(compile(blocks[0], "README.md (dump)", "exec"), dump)
    # the module right before TVM's pass, as build_corpus.py's instrument sees it
    recorder = tvm_capture.Capture()
    with tvm.transform.PassContext(opt_level=3, config=tvm_capture.CONFIG,
                                   instruments=[recorder.instrument()]):
        tvm.relax.build(build_corpus.nn_mlp(), target="cuda")
    assert (tmp_path / "model.relax").read_text() == recorder.single("nn_mlp")[0]

    build = {"mod": build_corpus.nn_mlp()}
    exec(compile(blocks[1], "README.md (pass)", "exec"), build)
    assert "vm.builtin.cuda_graph.run_or_capture" in build["ex"].as_text()

    # use_in_tvm: TVM's default pipeline with cgraph's pass, min_kernels=2: nn_mlp's graphs are
    # of one kernel each (samples/real/nn_mlp.after.relax), so none is lifted
    block = {"mod": build_corpus.nn_mlp()}
    exec(compile(blocks[2], "README.md (use_in_tvm)", "exec"), block)
    text = block["ex"].as_text()
    assert "vm.builtin.cuda_graph.get_cached_alloc" in text
    assert "vm.builtin.cuda_graph.run_or_capture" not in text
    assert tvm.relax.transform.RewriteCUDAGraph is tvm.relax.transform.transform.RewriteCUDAGraph

    # the CLI workflow the section shows, on that dump
    got = run_cli("rewrite", "model.relax", "-o", "model.graph.relax", cwd=tmp_path)
    assert got.returncode == 0, got.stderr
    got = run_cli("diff", "model.relax", "model.graph.relax", cwd=tmp_path)
    assert got.returncode == 0, got.stderr
    got = run_cli("verify", "model.relax", "model.graph.relax", cwd=tmp_path)
    assert got.returncode == 0, got.stderr
