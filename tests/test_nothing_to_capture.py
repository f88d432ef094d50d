"""A module with nothing to capture or run never passes a gate silently.

A file cut off after a complete line of its first PrimFunc is still valid TVMScript: TVM
reads it (a module of one PrimFunc), and so does cgraph. fmt and rewrite keep working on it
(it is a valid module), but with zero kernel launches `diff --fail-under` fails, and verify
and `run --device cpu`, which would run nothing, are located errors.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_runner import cgraph
from conftest import SAMPLES

BEFORE = (SAMPLES / "tvm" / "rewrite_cuda_graph_before.relax").read_text()
# Hand derivation: line 12 of the sample is `i0 = T.axis.spatial(...)`, the first statement
# inside `with T.sblock("compute"):`, so the first 12 lines end a complete PrimFunc body;
# the `class Before:` header, where a module-level error points, is line 4.
CUT = "\n".join(BEFORE.split("\n")[:12]) + "\n"
CLASS_LINE = 4


@pytest.fixture
def cut(tmp_path: Path) -> Path:
    assert CUT.split("\n")[11].lstrip().startswith("i0 = T.axis.spatial")
    assert CUT.split("\n")[CLASS_LINE - 1] == "class Before:"
    path = tmp_path / "cut.relax"
    path.write_text(CUT)
    return path


def test_tvm_reads_the_cut_module(tvm):
    mod = tvm.script.from_source(CUT)
    assert [gv.name_hint for gv in mod.get_global_vars()] == ["exp"]


def test_fmt_and_rewrite_still_work(cut):
    code, formatted, _ = cgraph("fmt", cut)
    assert code == 0 and "def exp(" in formatted and "R.function" not in formatted
    code, rewritten, err = cgraph("rewrite", cut)
    assert code == 0 and rewritten == formatted
    assert err.strip() == f"{cut}: note: no Relax function, nothing to rewrite"


@pytest.mark.parametrize("ratio", ["0.5", "0"])
def test_fail_under_fails_with_zero_kernel_launches(cut, ratio):
    code, _, err = cgraph("diff", cut, "--summary", "--fail-under", ratio)
    assert code == 1, err
    assert "nothing to capture" in err and "no Relax function" in err and str(cut) in err


def test_diff_without_a_gate_says_why_the_ratio_reads_one(cut):
    code, out, _ = cgraph("diff", cut, "--format", "json")
    assert code == 0
    report = json.loads(out)
    assert report["totals"]["kernel_launches"] == 0
    assert "nothing to capture: the module has no kernel launch (no Relax function)" \
        in report["notes"]
    code, out, _ = cgraph("diff", cut, "--summary")
    assert code == 0 and "note: nothing to capture" in out


def assert_nothing_to_run(code, err, path: Path, *words):
    assert code == 2, err
    first = err.splitlines()[0]
    assert first.startswith(f"{path}:{CLASS_LINE}:7: error: nothing to run"), err
    for w in words:
        assert w in first, first


def test_verify_refuses_a_module_with_nothing_to_run(cut):
    code, _, err = cgraph("verify", cut, cut)
    assert_nothing_to_run(code, err, cut, "only PrimFuncs (exp)", "cut off")


def test_verify_locates_it_in_rewritten(cut):
    # The original runs; the rewritten file is the one cut off, and the error says so.
    code, _, err = cgraph("verify", SAMPLES / "tvm" / "rewrite_cuda_graph_before.relax", cut)
    assert_nothing_to_run(code, err, cut)


def test_run_cpu_refuses_a_module_with_nothing_to_run(cut):
    code, out, err = cgraph("run", cut, "--device", "cpu")
    assert_nothing_to_run(code, err, cut, "no Relax function")
    assert "kernel launches" not in out


def test_rewrite_verify_refuses_it(cut):
    code, out, err = cgraph("rewrite", cut, "--verify")
    assert_nothing_to_run(code, err, cut)
    assert out == ""


def test_only_private_functions_is_nothing_to_run(tmp_path):
    text = BEFORE.replace("    @R.function\n    def main(", "    @R.function(private=True)\n"
                          "    def main(")
    assert text != BEFORE
    path = tmp_path / "private.relax"
    path.write_text(text)
    code, _, err = cgraph("verify", path, path)
    assert_nothing_to_run(code, err, path, "(main) are all private")
    # Its kernel launches still count for diff: a private function is rewritten too. Its host
    # work: 5 launches of exp, 3 of them into one graph: 5 -> 3, 40% removed.
    code, _, err = cgraph("diff", path, "--summary", "--fail-under", "0.4")
    assert code == 0, err


def test_relax_function_without_kernels_fails_the_gate_but_runs(tmp_path):
    text = ("@I.ir_module\nclass M:\n    @R.function\n"
            "    def main(x: R.Tensor((2,), dtype=\"float32\")) -> "
            "R.Tensor((2,), dtype=\"float32\"):\n        return x\n")
    path = tmp_path / "identity.relax"
    path.write_text(text)
    code, _, err = cgraph("diff", path, "--fail-under", "0.1")
    assert code == 1 and "nothing to capture" in err and "no Relax function" not in err
    code, out, err = cgraph("verify", path, path)
    assert code == 0, err
    code, out, err = cgraph("run", path, "--device", "cpu")
    assert code == 0 and "0 kernel launches" in out, err
