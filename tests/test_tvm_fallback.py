"""Where cgraph cannot read a module TVM holds (issue 46, item 1): TVM's own RewriteCUDAGraph
stands in only where its output keeps every promise the options make (the defaults, or
tvm_compat()), warned of for every module every time; any other option, or
on_fallback="error", refuses with cgraph's located error, what ruled the fallback out, and
what to do; cgraph's own inconsistencies are raised as bugs, never handed to TVM's pass.

The modules: TVM reads them, cgraph reads no T.popcount of a symbolic value (in memory, then
as text). The pass directly, inside relax.build through use_in_tvm(), and through the
launcher's `main` in this process.
"""

from __future__ import annotations

import sys
import textwrap
import warnings

import pytest

from bench.corpus import tvm_capture
from conftest import REAL_SAMPLES

pytestmark = pytest.mark.tvm

from unreadable_modules import UNREADABLE

# Each option TVM's pass has no counterpart of; with any of them, no fallback.
NOT_DEFAULT = [dict(min_kernels=2), dict(exclude=("fused_*",)), dict(functions=("main",)),
               dict(strict_extern=True), dict(trust_extern=("my_*",)),
               dict(capture_symbolic=("n:64",)), dict(if_ends_region=False)]


@pytest.fixture(autouse=True)
def python_default_warning_filter():
    """Python's own filters, not this repository's (pyproject.toml makes the fallback warning
    an error in tests): what a build script runs under."""
    with warnings.catch_warnings():
        warnings.resetwarnings()
        warnings.simplefilter("default")
        yield


@pytest.fixture
def tvms_pass_must_not_run(monkeypatch):
    from tvm.relax.transform import _ffi_api

    def forbidden():
        raise AssertionError("TVM's own pass ran in place of cgraph's")

    monkeypatch.setattr(_ffi_api, "RewriteCUDAGraph", forbidden)


def run_pass(tvm, mod, **options):
    from cudagraph_cli.tvm import RewriteCUDAGraph

    with tvm.transform.PassContext(config=tvm_capture.CONFIG):
        return RewriteCUDAGraph(**options)(mod)


def tvms_output(tvm, mod):
    from tvm import relax

    with tvm.transform.PassContext(config=tvm_capture.CONFIG):
        return relax.transform.RewriteCUDAGraph()(mod)


def fallbacks(caught) -> list[str]:
    from cudagraph_cli.tvm import TvmPassFallbackWarning

    return [str(w.message) for w in caught if w.category is TvmPassFallbackWarning]


@pytest.mark.parametrize("options", NOT_DEFAULT, ids=lambda o: next(iter(o)))
def test_with_any_option_the_pass_refuses_instead_of_running_tvms(tvm, options,
                                                                  tvms_pass_must_not_run):
    from cudagraph_cli.tvm import CgraphPassError, FallbackRefused

    mod = tvm.script.from_source(UNREADABLE[0])
    with pytest.raises(FallbackRefused) as raised, warnings.catch_warnings(record=True):
        run_pass(tvm, mod, **options)
    assert isinstance(raised.value, CgraphPassError)
    message = str(raised.value)
    name, value = next(iter(options.items()))
    assert f"it would ignore {name}=" in message  # what made the fallback impossible
    assert "build without these options" in message  # what to do
    # cgraph's located error, its source line and caret
    assert "<mod.script()>:" in message and \
        "error: 'T.popcount' is not a symbolic integer expression" in message
    assert message.rstrip().endswith("^")


def test_with_the_defaults_each_module_is_warned_of_every_time(tvm):
    """Two modules in a row, then the first again: three warnings under Python's default
    filter (which shows a message once per place), and TVM's output each time."""
    mods = [tvm.script.from_source(text) for text in UNREADABLE]
    with warnings.catch_warnings(record=True) as caught:
        outs = [run_pass(tvm, m) for m in (mods[0], mods[1], mods[0])]
    said = fallbacks(caught)
    assert len(said) == 3, said
    assert "T.popcount(n)" in said[0] and "T.popcount(m)" in said[1] and said[2] == said[0]
    for mod, out in zip((mods[0], mods[1], mods[0]), outs):
        tvm.ir.assert_structural_equal(out, tvms_output(tvm, mod))
    assert all("TVM's own RewriteCUDAGraph ran instead" in s and "on_fallback=\"error\"" in s
               for s in said)
    # the warning points at the caller's line (here: this file), not into cgraph or TVM
    assert all(w.filename == __file__ for w in caught if str(w.message) in said)


def test_tvm_compat_asks_for_tvms_output_and_may_fall_back(tvm):
    from cudagraph_cli.passes.options import RewriteOptions

    mod = tvm.script.from_source(UNREADABLE[0])
    with warnings.catch_warnings(record=True) as caught:
        out = run_pass(tvm, mod, options=RewriteOptions.tvm_compat())
    assert len(fallbacks(caught)) == 1
    tvm.ir.assert_structural_equal(out, tvms_output(tvm, mod))
    with pytest.raises(Exception, match="it would ignore min_kernels=2"), \
            warnings.catch_warnings(record=True):
        run_pass(tvm, mod, options=RewriteOptions.tvm_compat(min_kernels=2))


def test_on_fallback_error_refuses_with_the_defaults(tvm, tvms_pass_must_not_run):
    from cudagraph_cli.tvm import FallbackRefused, RewriteCUDAGraph

    mod = tvm.script.from_source(UNREADABLE[0])
    with pytest.raises(FallbackRefused, match='on_fallback="error"') as raised, \
            warnings.catch_warnings(record=True):
        run_pass(tvm, mod, on_fallback="error")
    assert "'T.popcount' is not a symbolic integer expression" in str(raised.value)
    with pytest.raises(ValueError, match="on_fallback must be one of 'warn', 'error'"):
        RewriteCUDAGraph(on_fallback="never")


def test_inside_relax_build_the_refusal_reaches_the_build_as_itself(tvm):
    """Through TVM's C++ (relax.build's pipeline): the registered class, not a RuntimeError."""
    from tvm import relax

    from cudagraph_cli.tvm import FallbackRefused, use_in_tvm

    mod = tvm.script.from_source(UNREADABLE[0])
    with pytest.raises(FallbackRefused, match="it would ignore exclude="), \
            warnings.catch_warnings(record=True):
        with use_in_tvm(exclude=["fused_*"]):
            with tvm.transform.PassContext(opt_level=3, config=tvm_capture.CONFIG):
                relax.build(mod, target="cuda")
    with pytest.raises(FallbackRefused, match='on_fallback="error"'), \
            warnings.catch_warnings(record=True):
        with use_in_tvm(on_fallback="error"):
            with tvm.transform.PassContext(opt_level=3, config=tvm_capture.CONFIG):
                relax.build(mod, target="cuda")


# ---- cgraph's own inconsistencies: bugs, never a fallback -------------------------------

def readable(tvm):
    return tvm.script.from_source((REAL_SAMPLES / "static_plan_basic.before.relax").read_text())


def test_tvm_unable_to_read_cgraphs_text_is_cgraphs_bug(tvm, monkeypatch,
                                                        tvms_pass_must_not_run):
    from cudagraph_cli.tvm import CgraphInternalError
    from cudagraph_cli.tvm.from_tvm import Unsupported

    def no_memory_route(mod):
        raise Unsupported("(this test's construct)")

    def unreadable(*args, **kwargs):
        raise RuntimeError("TVM's reader refuses")

    mod = readable(tvm)
    monkeypatch.setattr("cudagraph_cli.tvm.from_tvm.read_module", no_memory_route)
    monkeypatch.setattr(tvm.script, "from_source", unreadable)
    with pytest.raises(CgraphInternalError, match="TVM cannot read cgraph's rewrite"), \
            warnings.catch_warnings(record=True):
        run_pass(tvm, mod)


def test_routes_that_disagree_are_cgraphs_bug(tvm, monkeypatch, tvms_pass_must_not_run):
    """The in-memory route raises what the text route does not: no fallback."""
    from cudagraph_cli import api
    from cudagraph_cli.diagnostics import SourceError
    from cudagraph_cli.tvm import CgraphInternalError

    real = api.rewrite
    calls = []

    def in_memory_fails_once(module, options=None, **kw):
        calls.append(1)
        if len(calls) == 1:
            raise SourceError("a fault only the in-memory route has")
        return real(module, options, **kw)

    monkeypatch.setattr(api, "rewrite", in_memory_fails_once)
    with pytest.raises(CgraphInternalError, match="the two disagree") as raised:
        run_pass(tvm, readable(tvm))
    assert "a fault only the in-memory route has" in str(raised.value)


def test_a_crash_of_cgraphs_is_its_bug_not_a_fallback(tvm, monkeypatch, tvms_pass_must_not_run):
    from cudagraph_cli.tvm import CgraphInternalError

    def crash(mod):
        raise KeyError("a node cgraph's reader forgot")

    mod = readable(tvm)
    monkeypatch.setattr("cudagraph_cli.tvm.from_tvm.read_module", crash)
    # (the cause does not cross TVM's C++ around the pass: the message carries it)
    with pytest.raises(CgraphInternalError, match="internal error: KeyError: .a node cgraph's "
                                                  "reader forgot"):
        run_pass(tvm, mod)


def test_metadata_numbering_mismatch_is_cgraphs_bug(tvm, monkeypatch, tvms_pass_must_not_run):
    import cudagraph_cli.tvm.rewrite_pass as rewrite_pass
    from cudagraph_cli.tvm import CgraphInternalError

    with pytest.raises(CgraphInternalError, match="metadata"):
        rewrite_pass.check_metadata_references('metadata["ir.GenericConst"][3]', [])


# ---- the launcher: --on-fallback, and the refusal as one message, status 2 --------------

SCRIPT = textwrap.dedent('''
    import sys
    import tvm
    from tvm import relax
    mod = tvm.script.from_source(open(sys.argv[1]).read())
    with tvm.transform.PassContext(config={"relax.backend.use_cuda_graph": True}):
        out = relax.transform.RewriteCUDAGraph()(mod)
    print("built", sorted(gv.name_hint for gv in out.functions))
''')


@pytest.fixture
def launch(tmp_path, monkeypatch, capsys):
    from cudagraph_cli.tvm.__main__ import main

    monkeypatch.setattr(sys, "argv", list(sys.argv))
    monkeypatch.setattr(sys, "path", list(sys.path))
    script, module = tmp_path / "build.py", tmp_path / "model.py"
    script.write_text(SCRIPT)
    module.write_text(UNREADABLE[0])

    def run(*flags):
        with warnings.catch_warnings(record=True) as caught:
            status = main([*flags, "--", "python", str(script), str(module)])
        out, err = capsys.readouterr()
        return status, out, err, fallbacks(caught)
    return run


def test_the_launcher_refuses_with_options_and_falls_back_with_defaults(tvm, launch):
    status, out, err, said = launch("--min-kernels", "2")
    assert status == 2 and "built" not in out, err
    assert err.startswith("python -m cudagraph_cli.tvm: error: ") and "Traceback" not in err
    assert "it would ignore min_kernels=2" in err and "'T.popcount'" in err
    status, out, err, said = launch("--on-fallback", "error")
    assert status == 2 and 'on_fallback="error"' in err and "built" not in out
    status, out, err, said = launch()
    assert status == 0 and "built" in out and len(said) == 1, err
    status, out, err, said = launch("--on-fallback", "never")
    assert status == 2 and "invalid choice: 'never'" in err
