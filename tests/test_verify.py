"""cgraph verify: rewrites that compute what the original computes pass; broken ones are caught.

The broken rewrites are written by hand (or are TVM 0.27's own output where TVM is wrong),
each breaking one rule a CUDA graph depends on; `cgraph verify` must exit 1 on each.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import ROOT, run_cli
from cudagraph_cli.exec.functions import ModuleMismatch
from cudagraph_cli.exec.verify import verify
from cudagraph_cli.text.reader import parse_module
from cudagraph_cli.passes.options import Check, RewriteOptions
from cudagraph_cli.passes.pipeline import rewrite
from cudagraph_cli.text.printer import print_module
from cudagraph_cli.ir.wellformed import check_module
from module_gen import random_module

# main holds a tensor across its call of helper (docs/REWRITE.md, correction 2).
CALLER_CALLEE = (ROOT / "tests" / "cases" / "functions_live_at_once.relax").read_text()

TVM_DIR = ROOT / "samples" / "tvm"

ADD_ONE = '''    @T.prim_func
    def add_one(a: T.Buffer((4,), "float32"), b: T.Buffer((4,), "float32")):
        for i in range(4):
            b[i] = a[i] + T.float32(1)
'''

# x -> a0 -> a1 -> a2 -> out, each step `add_one`; the middle two steps are static.
ORIGINAL = '''@I.ir_module
class Module:
''' + ADD_ONE + '''
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        R.func_attr({"relax.force_pure": True})
        cls = Module
        s0 = R.memory.alloc_storage(R.shape([16]), 0, "global", "float32")
        a0 = R.memory.alloc_tensor(s0, 0, R.shape([4]), "float32")
        cls.add_one(x, a0)
        s1 = R.memory.alloc_storage(R.shape([16]), 0, "global", "float32")
        a1 = R.memory.alloc_tensor(s1, 0, R.shape([4]), "float32")
        cls.add_one(a0, a1)
        a2 = R.memory.alloc_tensor(s0, 0, R.shape([4]), "float32")
        cls.add_one(a1, a2)
        out = R.builtin.alloc_tensor(R.shape([4]), "float32", 0)
        cls.add_one(a2, out)
        return out
'''

ALLOC_S0_S1 = '''    @R.function(private=True)
    def cuda_graph_alloc() -> R.Tuple(R.Any, R.Any):
        R.func_attr({"relax.force_pure": True})
        s0 = R.memory.alloc_storage(R.shape([16]), 0, "global", "float32")
        s1 = R.memory.alloc_storage(R.shape([16]), 0, "global", "float32")
        gv = (s0, s1)
        return gv
'''
GET_ALLOC = ('gv = R.call_builtin_with_ctx("vm.builtin.cuda_graph.get_cached_alloc", '
             '(cls.cuda_graph_alloc, 0), ty_args=(R.Tuple(R.Any, R.Any),))')
T4 = 'R.Tensor((4,), "float32")'

# Broken: the graph captures `add_one(x, a0)`, whose input x is a parameter.
PARAM_CAPTURED = '''@I.ir_module
class Module:
''' + ADD_ONE + ALLOC_S0_S1 + f'''
    @R.function(private=True)
    def main_cuda_graph_capture(x: {T4}, s0: R.Any, s1: R.Any) -> R.Tuple({T4}):
        R.func_attr({{"relax.force_pure": True}})
        cls = Module
        a0 = R.memory.alloc_tensor(s0, 0, R.shape([4]), "float32")
        cls.add_one(x, a0)
        a1 = R.memory.alloc_tensor(s1, 0, R.shape([4]), "float32")
        cls.add_one(a0, a1)
        a2 = R.memory.alloc_tensor(s0, 0, R.shape([4]), "float32")
        cls.add_one(a1, a2)
        gv = (a2,)
        return gv

    @R.function
    def main(x: {T4}) -> {T4}:
        R.func_attr({{"relax.force_pure": True}})
        cls = Module
        {GET_ALLOC}
        s0 = gv[0]
        s1 = gv[1]
        gv1 = R.call_builtin_with_ctx("vm.builtin.cuda_graph.run_or_capture", (cls.main_cuda_graph_capture, (x, s0, s1), 0), ty_args=(R.Tuple({T4}),))
        a2 = gv1[0]
        out = R.builtin.alloc_tensor(R.shape([4]), "float32", 0)
        cls.add_one(a2, out)
        return out
'''

# Broken: `a2`, an output of the graph, is read before the graph runs.
READ_BEFORE_GRAPH = '''@I.ir_module
class Module:
''' + ADD_ONE + ALLOC_S0_S1 + f'''
    @R.function(private=True)
    def main_cuda_graph_capture(a0: {T4}, s0: R.Any, s1: R.Any) -> R.Tuple({T4}):
        R.func_attr({{"relax.force_pure": True}})
        cls = Module
        a1 = R.memory.alloc_tensor(s1, 0, R.shape([4]), "float32")
        cls.add_one(a0, a1)
        a2 = R.memory.alloc_tensor(s0, 0, R.shape([4]), "float32")
        cls.add_one(a1, a2)
        gv = (a2,)
        return gv

    @R.function
    def main(x: {T4}) -> {T4}:
        R.func_attr({{"relax.force_pure": True}})
        cls = Module
        {GET_ALLOC}
        s0 = gv[0]
        s1 = gv[1]
        a0 = R.memory.alloc_tensor(s0, 0, R.shape([4]), "float32")
        cls.add_one(x, a0)
        a2 = R.memory.alloc_tensor(s0, 0, R.shape([4]), "float32")
        out = R.builtin.alloc_tensor(R.shape([4]), "float32", 0)
        cls.add_one(a2, out)
        gv1 = R.call_builtin_with_ctx("vm.builtin.cuda_graph.run_or_capture", (cls.main_cuda_graph_capture, (a0, s0, s1), 0), ty_args=(R.Tuple({T4}),))
        return out
'''

# Two regions (a vm.builtin call between them), with a weight so that both are static.
TWO_REGIONS = '''@I.ir_module
class Module:
''' + ADD_ONE + '''
    @R.function
    def main(x: R.Tensor((4,), "float32"), w: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        R.func_attr({"relax.force_pure": True, "num_input": 1})
        cls = Module
        s0 = R.memory.alloc_storage(R.shape([16]), 0, "global", "float32")
        a0 = R.memory.alloc_tensor(s0, 0, R.shape([4]), "float32")
        cls.add_one(w, a0)
        s1 = R.memory.alloc_storage(R.shape([16]), 0, "global", "float32")
        a1 = R.memory.alloc_tensor(s1, 0, R.shape([4]), "float32")
        cls.add_one(a0, a1)
        R.call_packed("vm.builtin.sync", x, ty_args=(R.Tuple,))
        s2 = R.memory.alloc_storage(R.shape([16]), 0, "global", "float32")
        a2 = R.memory.alloc_tensor(s2, 0, R.shape([4]), "float32")
        cls.add_one(a1, a2)
        a3 = R.memory.alloc_tensor(s0, 0, R.shape([4]), "float32")
        cls.add_one(a2, a3)
        out = R.builtin.alloc_tensor(R.shape([4]), "float32", 0)
        R.call_packed("combine", x, a3, out, ty_args=(R.Tuple,))
        return out
'''

# The returned tensor lives in storage s1, which flows to the return value.
RETURNS_STORAGE = '''@I.ir_module
class Module:
''' + ADD_ONE + '''
    @R.function
    def main(x: R.Tensor((4,), "float32"), w: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        R.func_attr({"relax.force_pure": True, "num_input": 1})
        cls = Module
        s0 = R.memory.alloc_storage(R.shape([16]), 0, "global", "float32")
        a0 = R.memory.alloc_tensor(s0, 0, R.shape([4]), "float32")
        cls.add_one(w, a0)
        s1 = R.memory.alloc_storage(R.shape([16]), 0, "global", "float32")
        o = R.memory.alloc_tensor(s1, 0, R.shape([4]), "float32")
        R.call_packed("combine", x, a0, o, ty_args=(R.Tuple,))
        return o
'''

# Broken: s1 lifted into the shared allocation anyway (the next call overwrites the result).
RETURNS_STORAGE_LIFTED = '''@I.ir_module
class Module:
''' + ADD_ONE + ALLOC_S0_S1 + f'''
    @R.function
    def main(x: {T4}, w: {T4}) -> {T4}:
        R.func_attr({{"relax.force_pure": True, "num_input": 1}})
        cls = Module
        {GET_ALLOC}
        s0 = gv[0]
        a0 = R.memory.alloc_tensor(s0, 0, R.shape([4]), "float32")
        cls.add_one(w, a0)
        s1 = gv[1]
        o = R.memory.alloc_tensor(s1, 0, R.shape([4]), "float32")
        R.call_packed("combine", x, a0, o, ty_args=(R.Tuple,))
        return o
'''


def verified(original: str, rewritten: str, **kw):
    return verify(parse_module(original), parse_module(rewritten), **kw)


def test_correct_rewrite_passes():
    out, _ = rewrite(parse_module(ORIGINAL))
    report = verify(parse_module(ORIGINAL), out)
    assert report.equal and report.captures == 1 and report.replays == 3


def test_mutation_param_captured():
    r = verified(ORIGINAL, PARAM_CAPTURED)
    d = r.difference
    assert d is not None and (d.function, d.call) == ("main", 1)  # call 2 replays call 1's x


def test_mutation_output_read_before_graph_runs():
    d = verified(ORIGINAL, READ_BEFORE_GRAPH).difference
    assert d is not None and (d.function, d.call) == ("main", 0)


def test_mutation_capture_index_reused():
    out, _ = rewrite(parse_module(TWO_REGIONS))
    good = print_module(out)
    assert verified(TWO_REGIONS, good).equal
    assert good.count("R.prim_value(1)),") == 1
    broken = good.replace("R.prim_value(1)),", "R.prim_value(0)),")
    d = verified(TWO_REGIONS, broken).difference
    assert d is not None and d.call == 0  # the second launch replays the first graph


def test_mutation_returned_tensor_in_graph_storage():
    out, _ = rewrite(parse_module(RETURNS_STORAGE))
    assert verified(RETURNS_STORAGE, print_module(out)).equal  # cgraph keeps s1
    d = verified(RETURNS_STORAGE, RETURNS_STORAGE_LIFTED).difference
    assert d is not None and d.call == 0 and d.checked_after == "main, call 2"




def test_mutation_storages_of_live_functions_merged_by_tvm():
    """TVM's own rewrite gives `a` of main and `a` of helper the same slot; helper's graph
    overwrites main's `a` while main still needs it. cgraph's rewrite does not."""
    tvm_out, _ = rewrite(parse_module(CALLER_CALLEE), RewriteOptions.tvm_compat())
    d = verify(parse_module(CALLER_CALLEE), tvm_out).difference
    assert d is not None and d.function == "main"
    ours, _ = rewrite(parse_module(CALLER_CALLEE))
    assert verify(parse_module(CALLER_CALLEE), ours).equal


def test_symbolic_shapes_capture_once_per_value():
    before = parse_module((TVM_DIR / "dynamic_capture_before.relax").read_text())
    out, _ = rewrite(before)
    two = verify(before, out, calls=4, shapes={"m": [2, 4]})
    assert two.equal and (two.captures, two.replays) == (2, 2)
    one = verify(before, out, calls=4, shapes={"m": [3]})
    assert one.equal and (one.captures, one.replays) == (1, 3)


@pytest.mark.parametrize("case", ["rewrite_cuda_graph", "tuple", "vm_builtin",
                                  "dynamic_capture"])
def test_tvm_expected_outputs_verify_against_their_inputs(case):
    # Only dynamic_capture has a symbolic variable m; --shape naming one a module lacks is
    # an error.
    shape = ("--shape", "m=2,4") if case == "dynamic_capture" else ()
    r = run_cli("verify", str(TVM_DIR / f"{case}_before.relax"),
                str(TVM_DIR / f"{case}_expected.relax"), *shape)
    assert r.returncode == 0, r.stdout.decode() + r.stderr.decode()
    assert r.stdout.startswith(b"equal: ")


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=2**31 - 1))
def test_property_rewrite_is_well_formed_and_equal(seed):
    original = parse_module(random_module(seed))
    out, _ = rewrite(original, RewriteOptions(check=Check.ALL))
    check_module(out)
    report = verify(original, out, calls=3, seed=seed)
    assert report.equal, report.difference


# ---- the command line ------------------------------------------------------------------------

def test_verify_cli_reports_the_first_difference(tmp_path):
    a, b = tmp_path / "a.relax", tmp_path / "b.relax"
    a.write_text(ORIGINAL)
    b.write_text(PARAM_CAPTURED)
    r = run_cli("verify", str(a), str(b))
    assert r.returncode == 1
    assert r.stdout.decode().startswith("differ: function 'main', call 2, output, element [0]")
    j = run_cli("verify", str(a), str(b), "--format", "json")
    report = json.loads(j.stdout)
    assert j.returncode == 1 and report["equal"] is False
    assert report["difference"]["function"] == "main" and report["difference"]["call"] == 2


def test_verify_cli_rejects_modules_that_do_not_correspond(tmp_path):
    a, b = tmp_path / "a.relax", tmp_path / "b.relax"
    a.write_text(ORIGINAL)
    b.write_text(ORIGINAL.replace("def main(", "def main2("))
    r = run_cli("verify", str(a), str(b))
    assert r.returncode == 2 and b"different public functions" in r.stderr
    assert b"Traceback" not in r.stderr
    with pytest.raises(ModuleMismatch):
        verified(ORIGINAL, TWO_REGIONS)


def test_rewrite_verify_flag(tmp_path):
    src = tmp_path / "in.relax"
    src.write_text(ORIGINAL)
    out = tmp_path / "out.relax"
    r = run_cli("rewrite", str(src), "--verify", "-o", str(out))
    assert r.returncode == 0 and b"verified" in r.stderr and out.exists()


def test_run_cpu_prints_checksums_and_rejects_missing_gpu(tmp_path):
    src = tmp_path / "in.relax"
    src.write_text(ORIGINAL)
    r = run_cli("run", str(src), "--device", "cpu", "--calls", "2")
    lines = r.stdout.decode().splitlines()
    assert r.returncode == 0 and lines[0].startswith("main call 1 output: (4,) float32 crc32 ")
    assert lines[-1] == \
        "main: 2 call(s) each; 8 kernel launches, 0 graph capture(s), 0 replay(s)"
    g = run_cli("run", str(src), "--device", "0")
    assert g.returncode == 2 and b"--device cpu" in g.stderr and b"Traceback" not in g.stderr


def test_run_reports_uninitialized_reads_located(tmp_path):
    """Reading memory nothing wrote gives garbage on a GPU; the reference refuses to guess."""
    text = ORIGINAL.replace("        cls.add_one(x, a0)\n", "        cls.add_one(a0, x)\n", 1)
    src = tmp_path / "uninit.relax"
    src.write_text(text)
    line = text.split("\n").index("        cls.add_one(a0, x)") + 1
    r = run_cli("verify", str(src), str(src))
    assert r.returncode == 2 and b"before anything wrote it" in r.stderr
    assert r.stderr.decode().startswith(f"{src}:{line}:9: error: kernel 'add_one' reads")


def test_a_rewritten_without_graphs_is_said(tmp_path):
    """`cgraph verify a.relax a.relax`: equal, exit 0, and the report says that REWRITTEN
    launches no CUDA graph (issue 47: "equal" alone read as a checked rewrite)."""
    sample = str(TVM_DIR / "vm_builtin_before.relax")
    r = run_cli("verify", sample, sample)
    text = r.stdout.decode()
    assert r.returncode == 0 and text.startswith("equal: ")
    assert f"note: no CUDA graph was captured: {sample} launches none in main" in text
    rewritten = tmp_path / "out.relax"
    assert run_cli("rewrite", sample, "-o", str(rewritten)).returncode == 0
    r = run_cli("verify", sample, str(rewritten))
    assert r.returncode == 0 and "no CUDA graph was captured" not in r.stdout.decode()
    # the JSON keeps its fields: the captures say it
    data = json.loads(run_cli("verify", sample, sample, "--format", "json").stdout)
    assert data["equal"] is True and data["captures"] == 0 and "note" not in data
