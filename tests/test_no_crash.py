"""Modules that cannot run, and options that cannot apply, are located errors (exit 2), never
a Python exception (exit 3), the --shape and `diff A B` edges included.

Each case is a small edit of a sample (or of cgraph's rewrite of it) that gave exit 3, or a
silent wrong answer, before the executor checked the construct it interprets.
"""

from __future__ import annotations

import json

from pathlib import Path

import numpy as np
import pytest

from cli_runner import cgraph
from conftest import SAMPLES, run_cli
from cudagraph_cli.exec.backend import MAX_ALLOC_BYTES, ExecError, check_alloc_size
from cudagraph_cli.text.reader import parse_module
from cudagraph_cli.passes.pipeline import rewrite
from cudagraph_cli.text.printer import print_module
from cudagraph_cli.report.rewrite_of import NotARewrite, check_is_rewrite

TVM_DIR = SAMPLES / "tvm"
MODELS = SAMPLES / "models"
BEFORE = (TVM_DIR / "rewrite_cuda_graph_before.relax").read_text()
RUN_OR_CAPTURE_ARGS = "(cls.main_cuda_graph_capture, (alloc, alloc1, storage, storage2), " \
    "R.prim_value(0))"


def rewritten_text() -> str:
    out, _ = rewrite(parse_module(BEFORE))
    text = print_module(out)
    assert RUN_OR_CAPTURE_ARGS in text  # the edits below start from this call
    return text


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def line_of(text: str, needle: str) -> int:
    """1-based number of the line holding `needle` (the binding an error must point at)."""
    return next(i for i, line in enumerate(text.split("\n"), 1) if needle in line)


def assert_located(code, err, path: Path, line: int, *words):
    assert code == 2, err
    assert "internal error" not in err and "Traceback" not in err
    first = err.splitlines()[0]
    assert first.startswith(f"{path}:{line}:"), err
    for w in words:
        assert w in first, first


# ---- the rewritten module's CUDA-graph builtins --------------------------------------------

@pytest.mark.parametrize("args, words", [
    ("((alloc, alloc1, storage, storage2), cls.main_cuda_graph_capture, R.prim_value(0))",
     ("first argument is a tuple", "not a function")),
    ("(cls.main_cuda_graph_capture, (alloc, alloc1, storage, storage2), R.prim_value(0), "
     "R.shape([1]), R.prim_value(1))", ("5 argument(s) given",)),
    ("(cls.main_cuda_graph_capture, (alloc, alloc1, storage, storage2))",
     ("2 argument(s) given",)),
    ("(cls.main_cuda_graph_capture, alloc, R.prim_value(0))", ("not a tuple",)),
    ("(cls.main_cuda_graph_capture, (alloc, alloc1, storage, storage2), R.str(\"0\"))",
     ("index", "not an integer")),
    ("(cls.exp, (alloc, alloc1, storage, storage2), R.prim_value(0))",
     ("'exp', which is not a Relax function",)),
], ids=["reordered", "extra", "missing", "args-not-tuple", "string-index", "prim-func"])
def test_run_or_capture_arguments_are_checked(tmp_path, args, words):
    text = rewritten_text().replace(RUN_OR_CAPTURE_ARGS, args)
    bad = write(tmp_path, "bad.relax", text)
    code, _, err = cgraph("verify", TVM_DIR / "rewrite_cuda_graph_before.relax", bad)
    assert_located(code, err, bad, line_of(text, "run_or_capture"), *words)


def test_a_misspelled_cuda_graph_builtin_names_the_right_one(tmp_path):
    text = rewritten_text().replace("get_cached_alloc", "get_cacHed_alloc")
    bad = write(tmp_path, "bad.relax", text)
    code, _, err = cgraph("verify", TVM_DIR / "rewrite_cuda_graph_before.relax", bad)
    assert_located(code, err, bad, line_of(text, "get_cacHed_alloc"),
                   "'vm.builtin.cuda_graph.get_cacHed_alloc'",
                   "did you mean 'vm.builtin.cuda_graph.get_cached_alloc'")


def test_get_cached_alloc_arguments_are_checked(tmp_path):
    text = rewritten_text().replace("(cls.cuda_graph_alloc, R.prim_value(0))",
                                    "(R.prim_value(0), cls.cuda_graph_alloc)")
    bad = write(tmp_path, "bad.relax", text)
    code, _, err = cgraph("run", bad, "--device", "cpu")
    assert_located(code, err, bad, line_of(text, "get_cached_alloc"), "not a function")


def test_an_item_of_a_value_that_is_no_tuple(tmp_path):
    text = rewritten_text().replace("storage1: R.Any = gv[1]", "storage1: R.Any = gv[7]")
    bad = write(tmp_path, "bad.relax", text)
    code, _, err = cgraph("run", bad, "--device", "cpu")
    # The reader refuses it now (as TVM's does: index out of bounds), before the executor would.
    assert_located(code, err, bad, line_of(text, "gv[7]"),
                   "index 7 out of range: the tuple has 3 fields")


# ---- memory ops and kernels ---------------------------------------------------------------

def test_a_string_where_alloc_tensor_takes_a_storage(tmp_path):
    text = rewritten_text().replace("R.memory.alloc_tensor(storage1, ",
                                    "R.memory.alloc_tensor(R.str(\"x\"), ")
    bad = write(tmp_path, "bad.relax", text)
    code, _, err = cgraph("verify", TVM_DIR / "rewrite_cuda_graph_before.relax", bad)
    assert_located(code, err, bad, line_of(text, "alloc_tensor(R.str"),
                   "the string 'x', not a storage")


def test_a_kernel_given_a_storage_instead_of_a_tensor(tmp_path):
    # Before, the storage was dropped from the launch and the module ran (wrongly).
    text = BEFORE.replace("_1: R.Tuple = cls.exp(x, alloc)",
                          "_1: R.Tuple = cls.exp(storage, alloc)")
    bad = write(tmp_path, "bad.relax", text)
    code, _, err = cgraph("run", bad, "--device", "cpu")
    # The reader refuses it now (TVM's well-formedness check does: an R.Any is no tensor).
    assert_located(code, err, bad, line_of(text, "cls.exp(storage, alloc)"),
                   "argument 0 of 'cls.exp' does not match its parameter", "given R.Any")


def test_the_executor_refuses_a_storage_given_to_a_kernel():
    # The reader refuses this text (above); the executor's own guard still stands behind it
    # for modules built in Python: the same call with the storage put in after reading.
    from cudagraph_cli import ir
    from cudagraph_cli.exec.backend import CpuBackend
    from cudagraph_cli.exec.interpreter import Executor

    mod = parse_module(BEFORE)
    main = mod.function("main")
    bindings = [b for block in main.blocks for b in block.bindings]
    storage = next(b.var for b in bindings if b.var.name == "storage")
    launch = next(b for b in bindings if "cls.exp(x, alloc)" in line_text(b.loc.line))
    launch.value = ir.replace(launch.value, args=(storage,) + launch.value.args[1:])
    x = np.zeros((2, 4), "float32")
    executor = Executor(mod, CpuBackend())
    with pytest.raises(ExecError) as e:
        executor.call("main", [executor.backend.from_numpy(x)])
    assert e.value.loc.line == launch.loc.line
    assert "argument 0 of kernel 'exp'" in e.value.message
    assert "a storage of 32 bytes, not a tensor" in e.value.message


def line_text(n: int) -> str:
    return BEFORE.split("\n")[n - 1]


def test_a_kernel_given_too_few_arguments(tmp_path):
    text = BEFORE.replace("_1: R.Tuple = cls.exp(x, alloc)", "_1: R.Tuple = cls.exp(alloc)")
    bad = write(tmp_path, "bad.relax", text)
    code, _, err = cgraph("run", bad, "--device", "cpu")
    # The reader refuses it now (as TVM's does), before the executor would.
    assert_located(code, err, bad, line_of(text, "cls.exp(alloc)"),
                   "'cls.exp' takes 2 arguments (exp's parameters), 1 given")


def test_a_returned_tuple_of_storages_verifies_equal(tmp_path):
    # Storages are compared by size and bytes (before: by identity, so a module differed
    # from itself, with a repr of every byte on stdout).
    text = BEFORE.replace("        return alloc4", "        r = (storage, storage1)\n"
                                                    "        return r") \
        .replace('-> R.Tensor((2,4), dtype="float32")', "-> R.Tuple(R.Any, R.Any)")
    mod = write(tmp_path, "stor.relax", text)
    code, out, err = cgraph("verify", mod, mod)
    assert code == 0 and out.startswith("equal: "), out + err


def test_a_negative_storage_size(tmp_path):
    text = BEFORE.replace("R.shape([32])", "R.shape([-32])", 1)
    bad = write(tmp_path, "bad.relax", text)
    code, _, err = cgraph("run", bad, "--device", "cpu")
    assert_located(code, err, bad, line_of(text, "[-32]"), "negative dimension")


def test_a_storage_size_whose_product_overflows_int64(tmp_path):
    # 2**32 * 2**32 wrapped to 0 in int64: the storage was 0 bytes, and the error came from
    # the first view of it, naming the wrong line.
    text = BEFORE.replace("R.shape([32])", "R.shape([4294967296, 4294967296])", 1)
    bad = write(tmp_path, "bad.relax", text)
    code, _, err = cgraph("run", bad, "--device", "cpu")
    assert_located(code, err, bad, line_of(text, "4294967296"),
                   f"a storage of {2**64} bytes", "over the executor's limit of 8 GiB")


def test_a_huge_result_shape_is_refused_before_numpy_tries(tmp_path):
    # The annotation leaves the shape open, so the reader (as TVM's) lets it through and the
    # executor's guard is what refuses it.
    text = BEFORE.replace('alloc4: R.Tensor((2, 4), dtype="float32") = '
                          'R.builtin.alloc_tensor(R.shape([2, 4])',
                          'alloc4: R.Tensor(dtype="float32", ndim=2) = '
                          'R.builtin.alloc_tensor(R.shape([1099511627776, 4])')
    assert text != BEFORE
    bad = write(tmp_path, "bad.relax", text)
    code, _, err = cgraph("run", bad, "--device", "cpu")
    assert_located(code, err, bad, line_of(text, "1099511627776"),
                   "a tensor of 17592186044416 bytes")


def test_the_reader_refuses_a_huge_shape_its_annotation_contradicts(tmp_path):
    text = BEFORE.replace('R.builtin.alloc_tensor(R.shape([2, 4])',
                          'R.builtin.alloc_tensor(R.shape([1099511627776, 4])')
    bad = write(tmp_path, "bad.relax", text)
    code, _, err = cgraph("run", bad, "--device", "cpu")
    # The binding's annotation says (2, 4), which TVM's reader checks too.
    assert_located(code, err, bad, line_of(text, "1099511627776"),
                   "does not match the value", "R.Tensor((1099511627776, 4)")


def test_an_infinite_prim_value_offset(tmp_path):
    text = BEFORE.replace("alloc_tensor(storage, 0,", "alloc_tensor(storage, R.prim_value(1e400),",
                          1)
    bad = write(tmp_path, "bad.relax", text)
    code, _, err = cgraph("run", bad, "--device", "cpu")
    assert_located(code, err, bad, line_of(text, "1e400"), "offset is inf, not an integer")


def test_the_allocation_limit():
    assert check_alloc_size(MAX_ALLOC_BYTES, "a storage") == MAX_ALLOC_BYTES
    with pytest.raises(ExecError, match="over the executor's limit"):
        check_alloc_size(MAX_ALLOC_BYTES + 1, "a storage")
    with pytest.raises(ExecError, match="negative size"):
        check_alloc_size(-1, "a storage")


# ---- verify is symmetric ------------------------------------------------------------------

def test_a_rewritten_module_that_cannot_place_a_tensor_is_a_located_difference(tmp_path):
    # The original runs; the rewrite places a tensor past its storage's end: the rewrite is
    # wrong (a difference of kind "shape", exit 1), located in it, not an input error.
    text = rewritten_text().replace("R.memory.alloc_tensor(storage1, R.prim_value(0)",
                                    "R.memory.alloc_tensor(storage1, R.prim_value(64)")
    bad = write(tmp_path, "bad.relax", text)
    code, out, err = cgraph("verify", TVM_DIR / "rewrite_cuda_graph_before.relax", bad)
    assert code == 1 and "Traceback" not in err, err
    # the fact of the text that explains it, for every value (here: no symbolic value)
    assert out.startswith("differ: shape in the rewritten module: function 'main':")
    assert "a tensor of 32 bytes at offset 64 in a storage of 32 bytes" in out
    assert f"{bad}:{line_of(text, 'R.prim_value(64)')}:" in out


def test_an_original_that_cannot_run_is_located_in_it(tmp_path):
    text = BEFORE.replace("alloc_tensor(storage, 0,", "alloc_tensor(storage, 64,", 1)
    bad = write(tmp_path, "bad.relax", text)
    code, _, err = cgraph("verify", bad, TVM_DIR / "rewrite_cuda_graph_expected.relax")
    assert_located(code, err, bad, line_of(text, "storage, 64,"), "does not fit")


def test_rewrite_verify_still_reports_its_own_failure_as_a_difference(tmp_path):
    text = BEFORE.replace("alloc_tensor(storage, 0,", "alloc_tensor(storage, 64,", 1)
    bad = write(tmp_path, "bad.relax", text)
    code, _, err = cgraph("rewrite", bad, "--verify", "-o", tmp_path / "out.relax")
    assert_located(code, err, bad, line_of(text, "storage, 64,"), "does not fit")
    assert not (tmp_path / "out.relax").exists()


# ---- --shape ------------------------------------------------------------------------------

def test_shape_too_big_for_memory_is_located_at_the_parameter():
    # Before: MemoryError (exit 3) making a 12 TB input. A real process: the CLI as users
    # see it.
    path = MODELS / "dynamic_shape.relax"
    r = run_cli("run", str(path), "--device", "cpu", "--shape", "b=99999999999")
    err = r.stderr.decode()
    text = path.read_text()
    assert_located(r.returncode, err, path, line_of(text, "def embed("),
                   "the input 'x', (99999999999, 32) float32,", "over the executor's limit")


@pytest.mark.parametrize("command", ["run", "verify"])
def test_shape_naming_no_variable_lists_those_there_are(command):
    path = MODELS / "dynamic_shape.relax"
    args = [path, "--device", "cpu"] if command == "run" else [path, path]
    code, out, err = cgraph(command, *args, "--shape", "n=4,8")
    assert code == 2 and out == ""
    assert "no symbolic variable named n in" in err and "(it has b, m)" in err


def test_shape_on_a_module_without_symbolic_variables():
    path = TVM_DIR / "tuple_before.relax"
    code, _, err = cgraph("run", path, "--device", "cpu", "--shape", "b=2")
    assert code == 2 and "the public functions have no symbolic dimension" in err


def test_shape_naming_the_variables_there_are_runs():
    path = MODELS / "dynamic_shape.relax"
    code, out, err = cgraph("run", path, "--device", "cpu", "--shape", "b=2,4", "--calls", "2")
    assert code == 0, err
    assert "embed call 1 output: (2, 32)" in out and "embed call 2 output: (4, 32)" in out


# ---- diff A B: B must be a rewrite of A ---------------------------------------------------

TVM_PAIRS = ["tuple", "vm_builtin", "rewrite_cuda_graph", "merge_alloc_funcs", "dynamic_capture",
             "disable_capture_output", "static_args", "static_input_with_symbolic_shape"]


@pytest.mark.parametrize("case", TVM_PAIRS)
def test_tvm_expected_outputs_are_rewrites_of_their_inputs(case):
    before = parse_module((TVM_DIR / f"{case}_before.relax").read_text())
    check_is_rewrite(before, parse_module((TVM_DIR / f"{case}_expected.relax").read_text()))
    out, _ = rewrite(before)
    check_is_rewrite(before, out)
    check_is_rewrite(before, before)  # nothing captured is a rewrite too


@pytest.mark.parametrize("path", sorted(MODELS.glob("*.relax")), ids=lambda p: p.stem)
def test_cgraphs_rewrites_are_rewrites(path):
    before = parse_module(path.read_text())
    out, _ = rewrite(before)
    check_is_rewrite(before, out)
    check_is_rewrite(out, rewrite(out)[0])  # a rewrite of a rewrite (idempotent)


@pytest.mark.parametrize("a, b, where, words", [
    # Hand-derived: vm_builtin_before has the PrimFunc exp, mlp_block has none of that name.
    ("tvm/vm_builtin_before", "models/mlp_block", "a", "it has no PrimFunc 'exp'"),
    # rewrite_cuda_graph's main launches exp 5 times; tuple_expected's main launches 4.
    ("tvm/rewrite_cuda_graph_before", "tvm/tuple_expected", "b",
     "'main' makes 4 kernel launch(es) (its graphs included), the original 5"),
    # A rewrite adds no PrimFunc; the lowered Conv2dx3 is not a rewrite of the model.
    ("tvm/capture_fixed_inputs_conv2dx3", "tvm/capture_fixed_inputs_before", "b",
     "adds the PrimFunc"),
    # The rewrite's cuda_graph_alloc is not in the module it was made from.
    ("tvm/tuple_expected", "tvm/tuple_before", "a", "no Relax function 'cuda_graph_alloc'"),
])
def test_diff_refuses_a_pair_that_is_not_a_rewrite(a, b, where, words):
    pa, pb = SAMPLES / f"{a}.relax", SAMPLES / f"{b}.relax"
    code, out, err = cgraph("diff", pa, pb, "--format", "json")
    # Under --format json the error is also a JSON object on stdout (docs/CLI.md).
    assert code == 2 and json.loads(out)["error"]["message"] in err.splitlines()[0], out
    assert err.startswith(f"{pa if where == 'a' else pb}:") and words in err.splitlines()[0]


def test_diff_refuses_a_rewrite_with_an_edited_call_outside_graphs(tmp_path):
    text = (TVM_DIR / "tuple_expected.relax").read_text()
    # The kill of a storage outside graphs becomes a kill of a tensor: another operator.
    edited = text.replace("_6: R.Tuple = R.memory.kill_storage(storage)",
                          "_6: R.Tuple = R.memory.kill_tensor(alloc3)", 1)
    assert edited != text
    b = write(tmp_path, "b.relax", edited)
    with pytest.raises(NotARewrite, match="is not one of the original's"):
        check_is_rewrite(parse_module((TVM_DIR / "tuple_before.relax").read_text()),
                         parse_module(edited))
    code, _, err = cgraph("diff", TVM_DIR / "tuple_before.relax", b)
    assert code == 2 and err.startswith(f"{b}:")


def test_a_division_by_zero_in_a_shape(tmp_path):
    text = (TVM_DIR / "dynamic_capture_before.relax").read_text() \
        .replace("R.shape([m])", "R.shape([m // 0])")
    bad = write(tmp_path, "bad.relax", text)
    code, _, err = cgraph("run", bad, "--device", "cpu")
    # The first shape with m // 0 is alloc1's, a binding over several lines: located at its
    # first line.
    assert_located(code, err, bad, line_of(text, "alloc1: R.Tensor"),
                   "division by zero in a symbolic expression (1 // 0)")


def test_an_allocation_function_asking_for_its_own_index_is_located(tmp_path):
    # TVM's pass run over its own output rewrites cuda_graph_alloc into a function that calls
    # get_cached_alloc(cuda_graph_alloc, 0): TVM 0.27 writes that too (--compat tvm keeps it),
    # and running it recurses forever. It was reported as "input nested too deeply".
    out = tmp_path / "twice.relax"
    code, _, err = cgraph("rewrite", TVM_DIR / "rewrite_cuda_graph_expected.relax",
                          "--compat", "tvm", "-o", out)
    assert code == 0, err
    text = out.read_text()
    alloc_fn = text[text.index("def cuda_graph_alloc"):]
    code, out_text, err = cgraph("verify", TVM_DIR / "rewrite_cuda_graph_expected.relax", out)
    assert out_text == ""
    assert_located(code, err, out, line_of(text, alloc_fn.split("\n")[3].strip()),
                   "asks for index 0 while 'cuda_graph_alloc' is computing it")
    assert "nested too deeply" not in err


def test_a_function_calling_itself_without_end_is_located(tmp_path):
    text = ("@I.ir_module\nclass Module:\n    @R.function\n"
            "    def main(x: R.Tensor((2,), dtype=\"float32\")) -> R.Tensor((2,), dtype=\"float32\"):\n"
            "        cls = Module\n"
            "        y: R.Tensor((2,), dtype=\"float32\") = cls.main(x)\n"
            "        return y\n")
    path = write(tmp_path, "loop.relax", text)
    code, _, err = cgraph("run", path, "--device", "cpu")
    assert_located(code, err, path, line_of(text, "cls.main(x)"),
                   "calls nest too deeply while running 'main'")
