"""Every command through the command line and through the library, with the same inputs: the
same results and the same exit statuses (issue 46, item 2). The policy (modes, defaults, exit
statuses) lives in the library (commands.py, api.py, report/); `cgraph` parses and prints.
The CLI runs in this process (helpers/cli_runner.py)."""

from __future__ import annotations

import json
import shutil

import pytest

from cli_runner import cgraph
from conftest import ROOT
from cudagraph_cli import api, commands, gen
from cudagraph_cli.passes.options import RewriteOptions
from cudagraph_cli.report import check_view, run_view, verify_view, views

TVM_DIR = ROOT / "samples" / "tvm"
MODELS = ROOT / "samples" / "models"
BEFORE, EXPECTED = TVM_DIR / "tuple_before.relax", TVM_DIR / "tuple_expected.relax"
DYNAMIC = MODELS / "dynamic_shape.relax"
PREFILL_DECODE = MODELS / "prefill_decode.relax"


def cli_json(*args) -> tuple[int, dict]:
    code, out, err = cgraph(*args, "--format", "json")
    return code, json.loads(out)


# ---- fmt ------------------------------------------------------------------------------------

def test_fmt(tmp_path):
    code, out, _ = cgraph("fmt", BEFORE, "--dialect", "legacy")
    assert (code, out) == (0, commands.fmt(str(BEFORE), "legacy").text)
    assert out == api.print_module(api.load(BEFORE), "legacy")
    # --check: the exit status is the library's, canonical or not
    canonical, unformatted = tmp_path / "canonical.relax", tmp_path / "x.relax"
    canonical.write_text(api.print_module(api.load(BEFORE)))
    unformatted.write_text(BEFORE.read_text().replace("    ", "  "))
    for path, status in ((canonical, 0), (unformatted, 1)):
        assert cgraph("fmt", "--check", path).exit_code == \
            commands.fmt(str(path)).check_status == status


# ---- check: one pair, a batch, --list, --diff, --update ------------------------------------

@pytest.mark.parametrize("pair", [(BEFORE, BEFORE), (BEFORE, EXPECTED)], ids=["equal", "differ"])
@pytest.mark.parametrize("review", [False, True], ids=["", "diff"])
def test_check_one_pair(pair, review):
    flags = ["--diff"] * review
    run = commands.check(*map(str, pair), review=review)
    code, report = cli_json("check", *pair, *flags)
    assert (code, report) == (run.exit_status, check_view.run_json(run))
    assert code == (0 if pair[0] == pair[1] else 1)


@pytest.fixture
def trees(tmp_path):
    """GOT and EXPECTED directories: a pair equal, one that differs, one unreadable, one on
    each side only."""
    got, expected = tmp_path / "got", tmp_path / "expected"
    for d in (got, expected):
        d.mkdir()
    shutil.copy(BEFORE, got / "same.relax")
    shutil.copy(BEFORE, expected / "same.relax")
    shutil.copy(BEFORE, got / "changed.relax")
    shutil.copy(EXPECTED, expected / "changed.relax")
    (got / "broken.relax").write_text("not a module\n")
    shutil.copy(BEFORE, expected / "broken.relax")
    shutil.copy(BEFORE, got / "new.relax")
    shutil.copy(BEFORE, expected / "gone.relax")
    return got, expected


@pytest.mark.parametrize("review", [False, True], ids=["", "diff"])
def test_check_a_batch_and_a_list(trees, tmp_path, review):
    got, expected = trees
    flags = ["--diff"] * review
    run = commands.check(str(got), str(expected), review=review)
    code, report = cli_json("check", got, expected, *flags)
    assert (code, report) == (run.exit_status, check_view.run_json(run)) and code == 2
    listed = tmp_path / "pairs.txt"
    listed.write_text(f"{got}/same.relax {expected}/same.relax\n"
                      f"{got}/changed.relax {expected}/changed.relax\n")
    run = commands.check(pairs_file=str(listed), review=review)
    code, report = cli_json("check", "--list", listed, *flags)
    assert (code, report) == (run.exit_status, check_view.run_json(run)) and code == 1


def test_check_update(trees, tmp_path):
    """--update writes: the CLI on one copy of the trees, the library on another."""
    got, expected = trees
    copies = []
    for name in ("cli", "api"):
        shutil.copytree(got.parent, tmp_path / name)
        copies.append((tmp_path / name / "got", tmp_path / name / "expected"))
    code, report = cli_json("check", *copies[0], "--update", "--diff")
    run = commands.check(*map(str, copies[1]), update=True, review=True)
    wanted = check_view.run_json(run)
    assert code == run.exit_status == 2  # broken.relax cannot be read
    assert json.dumps(report).replace("/cli/", "/api/") == json.dumps(wanted)
    for rel in ("same.relax", "changed.relax", "new.relax", "gone.relax"):
        assert (copies[0][1] / rel).read_bytes() == (copies[1][1] / rel).read_bytes()


@pytest.mark.parametrize("args,kwargs", [
    (("--update", "--prim-bodies", "ignore"), dict(update=True, prim_bodies="ignore")),
    (("-",), dict(expected="-")),
])
def test_check_refuses_alike(args, kwargs):
    kwargs = {"got": "-", "expected": str(EXPECTED), **kwargs}
    with pytest.raises(commands.RequestError) as refused:
        commands.check(**kwargs)
    cli_args = [kwargs["got"], kwargs["expected"], *[a for a in args if a != "-"]]
    code, out, err = cgraph("check", *cli_args)
    assert code == 2 and err == f"cgraph check: error: {refused.value}\n"


# ---- rewrite, rewrite --verify -----------------------------------------------------------

@pytest.mark.parametrize("flags,options", [
    ((), RewriteOptions()),
    (("--min-kernels", "2", "--compat", "tvm"), RewriteOptions.tvm_compat(min_kernels=2)),
    (("--function", "main", "--exclude", "add*"), RewriteOptions(functions=("main",),
                                                                 exclude=("add*",))),
])
def test_rewrite(flags, options):
    code, out, _ = cgraph("rewrite", PREFILL_DECODE if "main" not in flags else BEFORE, *flags)
    module = api.load(PREFILL_DECODE if "main" not in flags else BEFORE)
    assert (code, out) == (0, api.print_module(api.rewrite(module, options)[0]))


def test_rewrite_verify_is_verifys_policy(monkeypatch):
    """rewrite --verify's verdict, exit status and sentence are commands.verify_rewrite's;
    a rewrite that cannot run exits 2, as `cgraph verify` exits for a module that cannot run."""
    module = api.load(DYNAMIC)
    out, _ = api.rewrite(module)
    verdict = commands.verify_rewrite(module, out, source=api.read(DYNAMIC))
    code, _, err = cgraph("rewrite", DYNAMIC, "--verify", "-o", "/dev/null")
    assert (code, err.strip()) == (verdict.exit_status, verdict.summary) == (0, err.strip())

    from cudagraph_cli.exec.verify import ModuleFails
    from cudagraph_cli.diagnostics import SourceError

    def cannot_run(*args, **kwargs):
        raise ModuleFails("rewritten", SourceError("this rewrite's kernel is missing"))

    monkeypatch.setattr(api, "verify", cannot_run)
    verdict = commands.verify_rewrite(module, out, source=api.read(DYNAMIC))
    code, out_text, err = cgraph("rewrite", DYNAMIC, "--verify")
    assert (code, err.strip()) == (verdict.exit_status, verdict.summary)
    assert code == 2 and out_text == ""  # nothing written
    assert "cannot run" in err and "this rewrite's kernel is missing" in err


# ---- verify ------------------------------------------------------------------------------

@pytest.mark.parametrize("rewritten", [EXPECTED, BEFORE], ids=["rewrite", "same"])
def test_verify(rewritten):
    a, b = api.read(BEFORE), api.read(rewritten)
    report = api.verify(api.loads(a.text, name=a.name), api.loads(b.text, name=b.name),
                        calls=2, sources=(a, b))
    code, got = cli_json("verify", BEFORE, rewritten, "--calls", "2")
    assert code == commands.verify_exit_status(report)
    assert got == verify_view.verify_json(report, a.name, b.name)


def test_verify_and_run_take_function_as_rewrite_does():
    """--function NAME or NAME,NAME, repeated or not, --functions too: one grammar."""
    for flags in (["--function", "decode"], ["--functions", "decode"],
                  ["--function", "decode,prefill"], ["--function", "prefill", "--function",
                                                     "decode"]):
        code, report = cli_json("run", PREFILL_DECODE, *flags)
        names = [n for f in flags[1::2] for n in f.split(",")]
        api_run = commands.run(api.load(PREFILL_DECODE), functions=names,
                               source=api.read(PREFILL_DECODE))
        assert code == api_run.exit_status == 0
        assert report == run_view.cpu_to_json(api_run.report, str(PREFILL_DECODE),
                                              api_run.calls)
        code, _, err = cgraph("verify", PREFILL_DECODE, PREFILL_DECODE, "--calls", "1", *flags)
        assert code == 0, err
    code, _, err = cgraph("verify", PREFILL_DECODE, PREFILL_DECODE, "--functions", "nope")
    assert code == 2 and err.startswith("cgraph verify: error: --function: no public function "
                                        "named nope")


# ---- diff ----------------------------------------------------------------------------------

@pytest.mark.parametrize("args,kwargs", [
    ((), {}),
    (("--function", "decode"), dict(functions=("decode",))),
    (("--min-kernels", "2"), dict(options=RewriteOptions(min_kernels=2))),
    (("--fail-under", "0.99", "--fail-over-graphs", "1"),
     dict(fail_under=0.99, fail_over_graphs=1)),
    (("--warn-over-graphs", "1",), dict(warn_over_graphs=1)),
])
def test_diff(args, kwargs):
    code, got = cli_json("diff", PREFILL_DECODE, *args)
    source = api.read(PREFILL_DECODE)
    result = commands.diff(api.loads(source.text, name=source.name), sources=(source, None),
                           **kwargs)
    assert (code, got) == (result.exit_status,
                           views.to_json(result.facts, source.name, result.graphs))
    assert code == (1 if "--fail-under" in args else 0)


def test_diff_of_a_given_rewrite():
    a, b = api.read(BEFORE), api.read(EXPECTED)
    result = commands.diff(api.loads(a.text, name=a.name), api.loads(b.text, name=b.name),
                           sources=(a, b), fail_under_captured=1.0)
    code, got = cli_json("diff", BEFORE, EXPECTED, "--fail-under-captured", "1")
    assert (code, got) == (result.exit_status, views.to_json(result.facts, a.name,
                                                             result.graphs))
    with pytest.raises(commands.RequestError):
        commands.diff(api.load(BEFORE), api.load(EXPECTED), options=RewriteOptions())
    assert cgraph("diff", BEFORE, EXPECTED, "--min-kernels", "2").exit_code == 2


# ---- run ------------------------------------------------------------------------------------

def test_run_on_the_cpu():
    for flags, calls in (((), None), (("--calls", "3", "--shape", "b=2,5"), 3)):
        shapes = {"b": [2, 5]} if flags else None
        result = commands.run(api.load(DYNAMIC), calls=calls, shapes=shapes,
                              source=api.read(DYNAMIC))
        code, got = cli_json("run", DYNAMIC, "--device", "cpu", *flags)
        assert (code, got) == (result.exit_status, run_view.cpu_to_json(result.report,
                                                                         str(DYNAMIC),
                                                                         result.calls))
    assert result.calls == 3 and commands.run(api.load(DYNAMIC)).calls == commands.CPU_CALLS


def test_run_on_a_gpu_has_one_default_of_calls(monkeypatch):
    """The GPU run's options as the CLI and the library make them: RunOptions' own default
    of calls (3, or twice the --shape values) whoever asks."""
    from cudagraph_cli.cuda import gpu_run

    seen = []

    def record(module, name, options, *args):
        seen.append(options)
        raise gpu_run.DriverError("recorded")

    monkeypatch.setattr(gpu_run, "run_on_gpu", record)
    shapes = {"b": [1, 2, 3]}
    with pytest.raises(commands.CommandError, match="CUDA: recorded"):
        commands.run(api.load(DYNAMIC), device=0, shapes=shapes)
    code, _, err = cgraph("run", DYNAMIC, "--device", "0", "--shape", "b=1,2,3")
    assert code == 2 and err == "cgraph: error: CUDA: recorded\n"
    assert seen[0] == seen[1] and seen[0].calls == 6 == gpu_run.RunOptions(shapes=shapes).calls
    assert gpu_run.RunOptions().calls == 3


def test_run_refuses_gpu_arguments_on_the_cpu_alike():
    with pytest.raises(commands.RequestError) as refused:
        commands.run(api.load(DYNAMIC), kernels=("", "k.cu"))
    code, _, err = cgraph("run", DYNAMIC, "--kernels", "no-such.cu")
    assert code == 2 and err == f"cgraph run: error: {refused.value}\n"


# ---- gen ------------------------------------------------------------------------------------

def test_gen():
    code, out, _ = cgraph("gen", "decode", "--layers", "2", "--functions", "prefill,decode")
    assert (code, out) == (0, gen.decode_module(2, 12, 0, ("prefill", "decode"), 4096, 128))
    code, out, _ = cgraph("gen", "chain", "--length", "5")
    assert (code, out) == (0, gen.chain_module(5))


# ---- kernels ---------------------------------------------------------------------------------

@pytest.mark.tvm
def test_kernels(tvm):
    from cudagraph_cli.cuda.tvm_kernels import lower_module

    path = TVM_DIR / "vm_builtin_before.relax"
    code, out, err = cgraph("kernels", path, "--arch", "sm_90")
    kernels = lower_module(api.load(path), str(path), "sm_90")
    assert (code, out) == (0, kernels.source)
    assert err == "".join(f"{path}: note: {n}\n" for n in kernels.notes)
    # --arch: one check, the library's, before anything is read
    for arch in ("80", "sm_9x0", "sm_90ab"):
        with pytest.raises(ValueError) as refused:
            lower_module(api.load(path), str(path), arch)
        assert cgraph("kernels", "no-such.relax", "--arch", arch) == \
            (2, "", f"cgraph kernels: error: --arch: {refused.value}\n")
