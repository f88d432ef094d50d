"""`cgraph diff --format unified` is a patch of the input: the real `patch` program applies it
with no fuzz and no reject, and the result is what `cgraph rewrite` gives (`cgraph check`
equal, compared in-process); `--function` patches apply too; the two-file form turns IN's
own text into OUT's own text."""

from __future__ import annotations

import difflib
import functools
import os
import re
import shutil
import subprocess

import pytest

from conftest import ROOT, for_every_sample_test, run_cli
from cudagraph_cli import api, ir
from cudagraph_cli.report.analysis import one_function
from cudagraph_cli.report.patch_view import (
    Edit, Layout, PatchText, count_hunks, rewrite_patch, selected, split_lines, text_patch,
    unified,
)
from cudagraph_cli.text.difference import module_difference

TVM_DIR = ROOT / "samples" / "tvm"
REAL_DIR = ROOT / "samples" / "real"
CASES_DIR = ROOT / "tests" / "cases"
MLC_LLAMA = REAL_DIR / "mlc_llama_1b.before.relax"
KV_LLAMA = REAL_DIR / "nn_llama_kv.before.relax"  # a small Llama (three functions, 1.6k lines)
# Every module TVM's tests and the real corpus give the pass, and a few of the hand-written
# cases (a kept head without `cls = Module`, names made unique, storages returned).
INPUTS = (sorted(TVM_DIR.glob("*_before.relax"))
          + for_every_sample_test(sorted(REAL_DIR.glob("*.before.relax")))
          + [CASES_DIR / f"{n}.relax" for n in ("ops_in_region", "names_made_unique",
                                               "returned_storages", "functions_live_at_once")])
MLC = for_every_sample_test(sorted(REAL_DIR.glob("mlc_*.before.relax")))


def _patch_program() -> str:
    path = shutil.which("patch")
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("GNU patch is required on CI (Debian's `patch` package)")
        pytest.skip("the patch program is not installed")
    return path


def _id(path) -> str:
    return path.name


@functools.lru_cache(maxsize=None)
def _rewrite(path):
    """(IN's text as read, IN, its rewrite): once per module for every test here."""
    text = api.read(path, keep_line_ends=True).text
    mod = api.loads(text.replace("\r\n", "\n"), name=str(path))
    out, _ = api.rewrite(mod)
    return text, mod, out


def apply_patch(original: str, diff: str, tmp_path, *args: str, name="m.relax") -> str:
    """`patch` run on a copy of `original`: it must apply every hunk at its own line, with no
    fuzz (-F0) and no reject; returns the patched text."""
    target = tmp_path / name
    target.write_bytes(original.encode())
    r = subprocess.run([_patch_program(), "--no-backup-if-mismatch", "-F0", "--reject-file=-",
                        *args, str(target)], input=diff.encode(), capture_output=True,
                       timeout=60)
    said = (r.stdout + r.stderr).decode()
    assert r.returncode == 0, said
    assert not re.search(r"fuzz|offset|FAILED|reject", said, re.I), said
    return target.read_bytes().decode()


def check_equal(got_text: str, expected_text: str) -> None:
    """`cgraph check GOT EXPECTED`, in-process."""
    d = api.difference(api.loads(got_text), api.loads(expected_text))
    assert d is None, d.message


def changed_old_lines(diff: str) -> set[int]:
    """The original's line numbers (1-based) that the diff removes, and those it inserts
    before (an insertion touches the line after it)."""
    touched = set()
    old = 0
    for line in diff.split("\n"):
        m = re.match(r"@@ -(\d+)(?:,(\d+))? ", line)
        if m:
            old = int(m.group(1)) if m.group(2) != "0" else int(m.group(1)) + 1
        elif line.startswith("-") and not line.startswith("---"):
            touched.add(old)
            old += 1
        elif line.startswith("+") and not line.startswith("+++"):
            touched.add(old)
        elif line.startswith(" "):
            old += 1
    return touched


def _spans(path, mod):
    text = api.read(path, keep_line_ends=True).text
    return Layout(split_lines(text), mod).spans


@pytest.mark.parametrize("path", INPUTS, ids=_id)
def test_patch_applies_and_gives_the_rewrite(path, tmp_path):
    text, mod, out = _rewrite(path)
    patch = rewrite_patch(text, mod, out, None, str(path))
    # every sample is cut at its bindings: no fallback to printing whole functions
    assert patch.granularity == "binding"
    diff = unified(patch, str(path), str(path))
    patched = apply_patch(text, diff, tmp_path)
    check_equal(patched, api.print_module(out))
    # a function the rewrite did not change keeps its text: every line the patch touches
    # lies in a function the rewrite changed, or between functions (the ones it adds)
    spans = _spans(path, mod)
    unchanged = [spans[f.name] for f in mod.functions if api.print_module(_alone(mod, f)) ==
                 api.print_module(_alone(mod, out.function(f.name)))]
    for line in changed_old_lines(diff):
        assert not any(start < line - 1 < stop for start, stop in unchanged), line


def _alone(mod, f):
    return ir.Module(mod.name, [f], mod.decorator_args, mod.globals_text, (), mod.dialect)


# The larger MLC models add nothing the 1B does not have here, at 7 s each.
@pytest.mark.parametrize("path", [p for p in INPUTS if p not in MLC or p == MLC_LLAMA], ids=_id)
def test_function_patches_apply(path, tmp_path):
    text, mod, out = _rewrite(path)
    spans = _spans(path, mod)
    for f in mod.relax_functions():
        names = {g.name for g in one_function(mod, out, f.name)[1].functions}
        patch = rewrite_patch(text, mod, out, names, str(path))
        assert patch.granularity == "binding"
        diff = unified(patch, str(path), str(path))
        patched = api.loads(apply_patch(text, diff, tmp_path))  # well formed
        assert module_difference(patched, selected(mod, out, names)) is None
        # only that function's lines change (the functions it adds go in before another's
        # decorator: the line touched is that decorator's, not inside it)
        start, stop = spans[f.name]
        for line in changed_old_lines(diff):
            inside = [n for n, (a, b) in spans.items() if a < line - 1 < b]
            assert inside in ([], [f.name]), (f.name, line, inside)


@pytest.mark.parametrize("path", MLC, ids=_id)
def test_hunks_are_the_rewrites_real_change(path):
    """Derivation: cgraph prints IN and REWRITTEN with one printer, so their canonical texts
    differ exactly where the rewrite changed a binding or added a function. A TVM dump has one
    binding a line, so a patch that keeps every unchanged binding's own line has the same
    hunks and changed lines as the diff of the two canonical texts (which `patch` refuses:
    its left side is not the file)."""
    text, mod, out = _rewrite(path)
    diff = unified(rewrite_patch(text, mod, out, None, "m"), "m", "m")
    canonical = "".join(difflib.unified_diff(
        api.print_module(mod).splitlines(keepends=True),
        api.print_module(out).splitlines(keepends=True), "m", "m"))

    def counts(d):
        lines = d.split("\n")
        return (count_hunks(d), sum(ln.startswith("-") and not ln.startswith("---")
                                    for ln in lines),
                sum(ln.startswith("+") and not ln.startswith("+++") for ln in lines))

    assert counts(diff) == counts(canonical)


def test_a_canonical_left_side_fails(tmp_path):
    """What the view gave before: the canonical text of IN on the left. The checks above
    refuse it (66 of its 69 hunks fail on the Llama 1B)."""
    text, mod, out = _rewrite(MLC_LLAMA)
    canonical = "".join(difflib.unified_diff(
        api.print_module(mod).splitlines(keepends=True),
        api.print_module(out).splitlines(keepends=True), "m.relax", "m.relax"))
    with pytest.raises(AssertionError, match="FAILED"):
        apply_patch(text, canonical, tmp_path)


def test_unchanged_module_gives_an_empty_diff():
    path = REAL_DIR / "static_plan_add.before.relax"
    _, mod, out = _rewrite(path)
    assert api.print_module(mod) == api.print_module(out)  # the rewrite lifts nothing here
    r = run_cli("diff", str(path), "--format", "unified")
    assert r.returncode == 0 and r.stdout == b"", r.stderr


def test_cli_patch_applies_with_p0(tmp_path):
    """The headers name IN on both sides: `patch -p0` from where IN's path is relative."""
    src = KV_LLAMA.read_bytes()
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "llama.relax").write_bytes(src)
    r = run_cli("diff", "models/llama.relax", "--format", "unified", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    diff = r.stdout.decode()
    assert diff.startswith("--- models/llama.relax\n+++ models/llama.relax\n@@ ")
    p = subprocess.run([_patch_program(), "-p0", "-F0", "--no-backup-if-mismatch"],
                       input=r.stdout, capture_output=True, cwd=tmp_path, timeout=60)
    assert p.returncode == 0 and b"fuzz" not in p.stdout, p.stdout
    _, _, out = _rewrite(KV_LLAMA)
    check_equal((tmp_path / "models" / "llama.relax").read_text(), api.print_module(out))


def test_stdin_with_crlf_left_side_is_the_bytes_read(tmp_path):
    crlf = (TVM_DIR / "rewrite_cuda_graph_before.relax").read_bytes().replace(b"\n", b"\r\n")
    r = run_cli("diff", "-", "--format", "unified", input=crlf)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(b"--- <stdin>\n+++ <stdin>\n")
    patched = apply_patch(crlf.decode(), r.stdout.decode(), tmp_path)
    assert patched.count("\n") == patched.count("\r\n")  # the file's line ends throughout
    _, _, out = _rewrite(TVM_DIR / "rewrite_cuda_graph_before.relax")
    check_equal(patched.replace("\r\n", "\n"), api.print_module(out))


def test_last_line_without_newline(tmp_path):
    """`\\ No newline at end of file` where a line without an end is shown, as `diff -u`."""
    changed = PatchText(("a\n", "b"), (Edit(1, 2, ("c\n",)),), "binding")
    diff = unified(changed, "f", "f")
    assert "-b\n\\ No newline at end of file\n+c\n" in diff
    assert apply_patch("a\nb", diff, tmp_path) == "a\nc\n"
    context = PatchText(("a\n", "b\n", "c"), (Edit(0, 1, ("x\n",)),), "binding")
    assert apply_patch("a\nb\nc", unified(context, "f", "f"), tmp_path) == "x\nb\nc"
    # a module whose file ends without a newline
    text = (TVM_DIR / "rewrite_cuda_graph_before.relax").read_text().rstrip("\n")
    mod = api.loads(text)
    out, _ = api.rewrite(mod)
    patched = apply_patch(text, unified(rewrite_patch(text, mod, out), "m", "m"), tmp_path)
    check_equal(patched, api.print_module(out))


def test_other_indentation_keeps_its_own(tmp_path):
    """Two spaces a level: the printed lines take the file's indentation."""
    text = (REAL_DIR / "nn_llama_kv.before.relax").read_text()
    text = re.sub(r"(?m)^((?:    )+)", lambda m: "  " * (len(m.group(1)) // 4), text)
    mod = api.loads(text)
    out, _ = api.rewrite(mod)
    patch = rewrite_patch(text, mod, out)
    assert patch.granularity == "binding"
    diff = unified(patch, "m", "m")
    added = [ln[1:] for ln in diff.split("\n") if ln.startswith("+") and ln[1:].strip()
             and not ln.startswith("+++")]
    # the class level at 2 spaces, function bodies at 4: none at the printer's 8
    assert {len(ln) - len(ln.lstrip()) for ln in added} == {2, 4}
    check_equal(apply_patch(text, diff, tmp_path), api.print_module(out))


def test_unreadable_layout_falls_back_to_a_valid_patch(tmp_path):
    """A decorator on two lines is not a layout the line numbers can cut: the right side is
    then the canonical text, still a patch of IN's own bytes."""
    text = (TVM_DIR / "rewrite_cuda_graph_before.relax").read_text().replace(
        "    @R.function\n", "    @R.function(\n        pure=True)\n")
    mod = api.loads(text)
    out, _ = api.rewrite(mod)
    patch = rewrite_patch(text, mod, out)
    assert patch.granularity == "module"
    check_equal(apply_patch(text, unified(patch, "m", "m"), tmp_path), api.print_module(out))


def test_two_files_turn_in_into_out(tmp_path):
    """`diff IN OUT`: IN's own text on the left, OUT's own text on the right."""
    after = REAL_DIR / "nn_llama_kv.after.relax"
    r = run_cli("diff", str(KV_LLAMA), str(after), "--format", "unified")
    assert r.returncode == 0, r.stderr
    diff = r.stdout.decode()
    assert diff.startswith(f"--- {KV_LLAMA}\n+++ {after}\n")
    assert apply_patch(KV_LLAMA.read_text(), diff, tmp_path) == after.read_text()


def test_two_files_function_takes_outs_own_text(tmp_path):
    before, after = MLC_LLAMA.read_text(), (REAL_DIR / "mlc_llama_1b.after.relax").read_text()
    mod, out = api.loads(before), api.loads(after)
    names = {g.name for g in one_function(mod, out, "decode")[1].functions}
    patch = text_patch(before, after, mod, out, names)
    assert patch.granularity == "text"
    patched = apply_patch(before, unified(patch, "in", "out"), tmp_path)
    assert module_difference(api.loads(patched), selected(mod, out, names)) is None
    assert "    def decode_cuda_graph_capture(" in patched and \
        "    def prefill_cuda_graph_capture(" not in patched
