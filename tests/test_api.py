"""The public API (cudagraph_cli/api.py, docs/API.md): what the CLI and the TVM pass call.

Expected values come from the CLI itself (the API must be the CLI, byte for byte) or are
derived by hand beside the check."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from conftest import ROOT, run_cli
import cudagraph_cli
from cudagraph_cli import (NotARewrite, RewriteOptions, Source, SourceError, UnknownName,
                           diff, load, loads, print_module, rewrite, run_cpu, verify)
from cudagraph_cli.report.views import to_json

SAMPLE = ROOT / "samples" / "tvm" / "rewrite_cuda_graph_before.relax"
REWRITE_SAMPLES = ["samples/tvm/rewrite_cuda_graph_before.relax",
                   "samples/tvm/merge_alloc_funcs_before.relax",
                   "samples/tvm/dynamic_capture_before.relax",
                   "samples/branches/if_region_before.relax",
                   "samples/models/prefill_decode.relax"]


def test_load_from_path_str_path_and_text_give_the_same_module():
    by_str = load(str(SAMPLE))
    by_path = load(SAMPLE)
    by_text = loads(SAMPLE.read_text(), name="x.relax")
    assert print_module(by_str) == print_module(by_path) == print_module(by_text)
    assert print_module(by_str) == run_cli("fmt", str(SAMPLE)).stdout.decode()


def test_load_errors_are_located_in_the_file():
    with pytest.raises(SourceError) as info:
        loads("@I.ir_module\nclass Module:\n    x = 1\n", name="bad.relax")
    err = info.value
    assert (err.filename, err.loc.line, err.loc.col) == ("bad.relax", 3, 5)
    # what `cgraph fmt` prints for the same file
    assert err.render().splitlines() == [
        "bad.relax:3:5: error: only functions may appear in a module class", "    x = 1",
        "    ^"]


def test_load_error_matches_the_cli(tmp_path):
    bad = tmp_path / "bad.relax"
    bad.write_text(SAMPLE.read_text().replace("R.memory.alloc_storage", "R.memory.alloc_storag",
                                              1))
    with pytest.raises(SourceError) as info:
        load(bad)
    got = run_cli("fmt", str(bad))
    assert got.returncode == 2
    assert got.stderr.decode().rstrip("\n") == info.value.render()


def test_load_missing_file_names_it():
    with pytest.raises(SourceError) as info:
        load("no/such/file.relax")
    assert info.value.render() == "no/such/file.relax: error: no such file"


def test_load_name_replaces_the_path_in_errors(tmp_path):
    bad = tmp_path / "bad.relax"
    bad.write_text("x = 1\n")
    with pytest.raises(SourceError) as info:
        load(bad, name="shown.relax")
    assert info.value.render().startswith("shown.relax:1:")


@pytest.mark.parametrize("path", REWRITE_SAMPLES)
def test_rewrite_and_print_are_cgraph_rewrite_byte_for_byte(path):
    out, _ = rewrite(load(ROOT / path))
    assert print_module(out) == run_cli("rewrite", path).stdout.decode()


def test_rewrite_options_are_the_flags():
    module = load(SAMPLE)
    out, _ = rewrite(module, RewriteOptions.tvm_compat(min_kernels=2))
    got = run_cli("rewrite", str(SAMPLE), "--compat", "tvm", "--min-kernels", "2",
                  "--dialect", "legacy")
    assert print_module(out, "legacy") == got.stdout.decode()


def test_unknown_function_names():
    module = load(SAMPLE)
    cudagraph_cli.api.check_functions(module, ("main",), "s.relax")
    with pytest.raises(UnknownName) as info:
        cudagraph_cli.api.check_functions(module, ("main", "decode"), "s.relax")
    assert str(info.value) == "no Relax function named decode in s.relax (it has main)"
    got = run_cli("rewrite", str(SAMPLE), "--functions", "main,decode")
    assert got.returncode == 2 and str(info.value).replace("s.relax", str(SAMPLE)) in \
        got.stderr.decode()


def test_rewrite_report_holds_the_plans():
    # rewrite_cuda_graph_before.relax: main launches 5 kernels; TVM's expected output lifts
    # the 3 between the two vm builtins into one graph, and 3 storages of 32 bytes.
    _, report = rewrite(load(SAMPLE))
    [region] = report.plan.kept_captures()
    assert (region.function, region.kernels) == ("main", 3)
    assert report.merged.sizes == [32, 32, 32]
    assert len(report.reasons) == 2


def test_rewrite_error_is_located_in_the_source_given():
    # A planned storage on virtual device 1: the merger (not the reader) refuses it, as
    # TVM's pass assumes device 0 (tests/test_rewrite.py checks the CLI's message).
    text = SAMPLE.read_text().replace("R.shape([32]), 0,", "R.shape([32]), 1,", 1)
    line = text.split("\n").index(next(ln for ln in text.split("\n") if ", 1," in ln)) + 1
    module = loads(text, name="dev.relax")
    with pytest.raises(SourceError) as info:
        rewrite(module)
    assert info.value.filename is None and info.value.loc.line == line
    with pytest.raises(SourceError) as info:
        rewrite(module, source=Source("dev.relax", text))
    rendered = info.value.render().splitlines()
    assert rendered[0] == (f"dev.relax:{line}:9: error: CUDA graph storages must be on "
                           "virtual device 0 (TVM's pass assumes so)")
    assert rendered[1] == text.split("\n")[line - 1]


def test_verify_result():
    module = load(SAMPLE)
    out, _ = rewrite(module)
    result = verify(module, out, calls=3, seed=1)
    assert result.equal and result.difference is None
    # one graph, captured on the first call and replayed on the next two
    assert (result.functions, result.calls, result.captures, result.replays) == \
        (["main"], 3, 1, 2)
    cli = json.loads(run_cli("verify", str(SAMPLE), "-", "--calls", "3", "--seed", "1",
                             "--format", "json", input=print_module(out).encode()).stdout)
    assert cli["equal"] and (cli["captures"], cli["replays"]) == (1, 2)


def test_verify_finds_a_difference():
    # if_reuse: TVM 0.27 moves a kernel after an `if` into the region before it (correction
    # 5, docs/REWRITE.md), so main's first call already returns other values.
    module = load(ROOT / "samples" / "branches" / "if_reuse_before.relax")
    out, _ = rewrite(module, RewriteOptions.tvm_compat())
    result = verify(module, out)
    assert not result.equal
    d = result.difference
    assert (d.kind, d.function, d.call) == ("values", "main", 0)
    ours, _ = rewrite(module)
    assert verify(module, ours).equal


def test_verify_unknown_shape_name():
    module = load(SAMPLE)
    with pytest.raises(UnknownName, match="no symbolic variable named q in the module"):
        verify(module, module, shapes={"q": [1]})


@pytest.mark.parametrize("path", REWRITE_SAMPLES)
def test_diff_facts_are_cgraph_diff_json(path):
    facts = diff(load(ROOT / path))
    cli = json.loads(run_cli("diff", path, "--format", "json").stdout)
    assert to_json(facts, path) == cli


def test_diff_of_a_given_rewrite_is_cgraph_diff_json():
    path = "samples/tvm/rewrite_cuda_graph_before.relax"
    expected = "samples/tvm/rewrite_cuda_graph_expected.relax"
    facts = diff(load(ROOT / path), load(ROOT / expected))
    cli = json.loads(run_cli("diff", path, expected, "--format", "json").stdout)
    assert to_json(facts, path) == cli
    # TVM's output and cgraph's plans agree on this sample: same slots, same graphs
    assert to_json(facts, path) == to_json(diff(load(ROOT / path)), path)


def test_diff_refuses_what_is_not_a_rewrite():
    with pytest.raises(NotARewrite):
        diff(load(SAMPLE), load(ROOT / "samples" / "tvm" / "tuple_before.relax"))


def test_run_cpu_is_cgraph_run():
    run = run_cpu(load(SAMPLE), calls=2)
    cli = json.loads(run_cli("run", str(SAMPLE), "--device", "cpu", "--calls", "2",
                             "--format", "json").stdout)
    assert run.rows == cli["outputs"]
    assert (run.kernel_launches, run.graph_captures, run.graph_replays) == \
        (cli["kernel_launches"], cli["graph_captures"], cli["graph_replays"])


# ---- what people pass: a path, TVMScript text or a module (issue 47) -------------------------

def test_rewrite_takes_a_path_a_text_or_a_module():
    expected = run_cli("rewrite", str(SAMPLE)).stdout.decode()
    for given in (str(SAMPLE), SAMPLE, SAMPLE.read_text(), load(SAMPLE)):
        out, _ = rewrite(given)
        assert print_module(out) == expected, type(given)


def test_verify_diff_check_take_paths_and_texts():
    from cudagraph_cli import check

    out_text = run_cli("rewrite", str(SAMPLE)).stdout.decode()
    result = verify(str(SAMPLE), out_text)
    assert result.equal and result.captures > 0
    assert to_json(diff(SAMPLE, out_text), "s") == to_json(diff(load(SAMPLE), loads(out_text)), "s")
    assert to_json(diff(str(SAMPLE)), "s") == to_json(diff(load(SAMPLE)), "s")
    assert check(out_text, rewrite(SAMPLE)[0]) is None
    # the sides named as given (issue 52): a path by itself, text and modules got / expected
    message = check(SAMPLE, out_text).message
    assert message == cudagraph_cli.difference(load(SAMPLE), loads(out_text),
                                               sides=(str(SAMPLE), "expected")).message
    assert message.endswith(f"is only in expected, not in {SAMPLE}")
    assert cudagraph_cli.difference(load(SAMPLE), loads(out_text)).message.endswith(
        "is only in expected, not in got")


def test_errors_of_a_path_or_text_are_located_in_it(tmp_path):
    bad = tmp_path / "bad.relax"
    bad.write_text("@I.ir_module\nclass Module:\n    x = 1\n")
    with pytest.raises(SourceError) as info:
        rewrite(str(bad))
    assert (info.value.filename, info.value.loc.line) == (str(bad), 3)
    with pytest.raises(SourceError) as info:
        verify(bad.read_text(), SAMPLE)
    assert (info.value.filename, info.value.loc.line) == ("<string>", 3)
    with pytest.raises(SourceError) as info:
        diff(tmp_path / "missing.relax")
    assert "missing.relax" in info.value.render()


@pytest.mark.parametrize("call", [lambda x: rewrite(x), lambda x: verify(x, x),
                                  lambda x: diff(x), lambda x: cudagraph_cli.check(x, x)])
def test_anything_else_is_a_type_error_naming_load(call):
    for wrong in (3, b"@I.ir_module", None, ["x.relax"]):
        with pytest.raises(TypeError, match=r"\(\) takes a module \(cudagraph_cli\.load\(path\) "
                           r"reads one\), a path \(str or Path\) or TVMScript text, not "):
            call(wrong)


def test_reports_as_text_are_the_commands_output():
    from cudagraph_cli import diff_text, verify_text

    out = ROOT / "samples" / "tvm" / "rewrite_cuda_graph_expected.relax"
    cli = run_cli("verify", str(SAMPLE), str(out)).stdout.decode()
    assert verify_text(verify(SAMPLE, out), str(SAMPLE), str(out)) + "\n" == cli
    cli = run_cli("diff", str(SAMPLE), "--summary", env={"COLUMNS": "90"}).stdout.decode()
    assert diff_text(diff(SAMPLE), width=90, summary=True) == cli


def test_source_is_name_and_text():
    source = cudagraph_cli.read(SAMPLE)
    assert source == Source(str(SAMPLE), SAMPLE.read_text())


def test_import_is_lazy():
    code = ("import sys, cudagraph_cli\n"
            "heavy = [m for m in ('lark', 'numpy', 'click', 'rich', 'cudagraph_cli.api') "
            "if m in sys.modules]\n"
            "print(heavy)\n"
            "cudagraph_cli.load\n"
            "print('cudagraph_cli.api' in sys.modules)\n")
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True)
    assert got.stdout.split("\n")[:2] == ["[]", "True"]


def test_unknown_attribute_and_subpackages():
    with pytest.raises(AttributeError):
        cudagraph_cli.no_such_name  # noqa: B018
    from cudagraph_cli import ir  # a subpackage, not an export: still importable
    assert ir.__name__ == "cudagraph_cli.ir" and "ir" not in cudagraph_cli.EXPORTS
    assert isinstance(ir.Module, type)
    assert set(cudagraph_cli.EXPORTS) <= set(dir(cudagraph_cli))


# --- docs/API.md: every example runs as written ----------------------------------------

def api_doc_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "API.md").read_text(), re.S)


def test_api_doc_examples_run(monkeypatch, capsys):
    blocks = api_doc_blocks()
    assert len(blocks) >= 6
    monkeypatch.chdir(ROOT)
    namespace: dict = {}
    for i, block in enumerate(blocks):
        exec(compile(block, f"docs/API.md (example {i + 1})", "exec"), namespace)
    printed = capsys.readouterr().out
    assert "3 of 5 kernel launches captured (60%)" in printed


def test_verify_text_is_wrapped_and_says_what_the_bounds_run_took():
    """Issue 52: verify's lines ran to 280 characters and more (a list of values at the bounds),
    and "n = 2, 64, 1, 3 calls each, terms only" needed words."""
    from cudagraph_cli.report.verify_view import verify_text

    rows = ROOT / "tests" / "buckets" / "rows.relax"
    out, _ = rewrite(rows, RewriteOptions(capture_buckets=("n:auto",)))
    report = verify(rows, out)
    text = verify_text(report, str(rows), "<rewrite>", width=60)
    lines = text.splitlines()
    assert report.equal and len(lines) > 4 and all(len(x) <= 60 for x in lines), text
    assert all(x.startswith("  ") for x in lines[1:])  # continuation lines indented
    words = " ".join(text.split())
    assert "at the upper bounds: n = 2, 3, 4, 5, 8, 9, 16, 1 (a function's calls take each " \
        "list's values in turn), 8 calls a function at most, outputs compared by terms only" \
        in words, words
    assert "for every n ≤ 16 (" in text  # a bound never split over two lines
    # docs/REWRITE.md: the carves at the bucket are proved, none unproven
    assert report.shapes.unproven() == [] and "), 0 unproven" in words
    # and, last, what rests on the static analysis (the kernels split into real and pad rows)
    assert words.endswith("not proved by the runs or the proof: row independence of 2 kernels, "
                          "read from their TIR (add, scale)"), words


def test_str_of_a_source_error_names_its_file(tmp_path):
    """Issue 52: str() of the error for a missing file was "no such file", without the path."""
    missing = tmp_path / "missing.relax"
    with pytest.raises(SourceError) as e:
        load(missing)
    assert str(e.value) == f"{missing}: no such file" and e.value.message == "no such file"
    with pytest.raises(SourceError) as e:
        loads("@I.ir_module\nclass Module:\n    x = 1\n", name="bad.relax")
    assert str(e.value) == "bad.relax:3:5: only functions may appear in a module class"
    assert str(SourceError("unlocated")) == "unlocated"
