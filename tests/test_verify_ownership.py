"""verify checks ownership, not only values (docs/EXECUTOR.md, "Ownership").

Each broken rewrite below computes, call after call, exactly the values its original
computes, so comparing values cannot catch it; what is wrong is whose memory a value is in.
The derivations are beside the modules. TVM's own outputs (samples/tvm/*_expected.relax,
samples/real/*.after.relax) share memory correctly and must not be reported.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import ROOT, run_cli
from cudagraph_cli.diagnostics import SourceError
from cudagraph_cli.exec.verify import verify
from cudagraph_cli.text.reader import parse_module
from cudagraph_cli.passes.pipeline import rewrite

ADD_ONE = '''    @T.prim_func
    def add_one(a: T.Buffer((4,), "float32"), b: T.Buffer((4,), "float32")):
        for i in range(4):
            b[i] = a[i] + T.float32(1)
'''
T4 = 'R.Tensor((4,), "float32")'

# main(x, w), w a weight (num_input 1): o = (w + 1) + 1 depends on w only; y = x + 1.
# Returns (o, y).
WEIGHTS_ONLY = f'''@I.ir_module
class Module:
{ADD_ONE}
    @R.function
    def main(x: {T4}, w: {T4}) -> R.Tuple({T4}, {T4}):
        R.func_attr({{"relax.force_pure": True, "num_input": 1}})
        cls = Module
        s0 = R.memory.alloc_storage(R.shape([16]), 0, "global", "float32")
        a0 = R.memory.alloc_tensor(s0, 0, R.shape([4]), "float32")
        cls.add_one(w, a0)
        s1 = R.memory.alloc_storage(R.shape([16]), 0, "global", "float32")
        o = R.memory.alloc_tensor(s1, 0, R.shape([4]), "float32")
        cls.add_one(a0, o)
        y = R.builtin.alloc_tensor(R.shape([4]), "float32", 0)
        cls.add_one(x, y)
        gv = (o, y)
        return gv
'''

# Broken: both kernels of o captured, s0 and s1 lifted into cuda_graph_alloc -- s1 included,
# though o, returned, lives in it. Every call's replay writes w + 2 into s1 again: what the
# previous call returned is overwritten with the same values, so every comparison of values
# agrees (o of call 1 = o of call 2 = w + 2). The ownership check sees that output [0] is in
# a storage of get_cached_alloc on call 1; `o = gv1[0]` is the binding that made it.
WEIGHTS_ONLY_LIFTED = f'''@I.ir_module
class Module:
{ADD_ONE}
    @R.function(private=True)
    def cuda_graph_alloc() -> R.Tuple(R.Any, R.Any):
        R.func_attr({{"relax.force_pure": True}})
        s0 = R.memory.alloc_storage(R.shape([16]), 0, "global", "float32")
        s1 = R.memory.alloc_storage(R.shape([16]), 0, "global", "float32")
        gv = (s0, s1)
        return gv

    @R.function(private=True)
    def main_cuda_graph_capture(w: {T4}, s0: R.Any, s1: R.Any) -> R.Tuple({T4}):
        R.func_attr({{"relax.force_pure": True}})
        cls = Module
        a0 = R.memory.alloc_tensor(s0, 0, R.shape([4]), "float32")
        cls.add_one(w, a0)
        o = R.memory.alloc_tensor(s1, 0, R.shape([4]), "float32")
        cls.add_one(a0, o)
        gv = (o,)
        return gv

    @R.function
    def main(x: {T4}, w: {T4}) -> R.Tuple({T4}, {T4}):
        R.func_attr({{"relax.force_pure": True, "num_input": 1}})
        cls = Module
        gv = R.call_builtin_with_ctx("vm.builtin.cuda_graph.get_cached_alloc", (cls.cuda_graph_alloc, 0), ty_args=(R.Tuple(R.Any, R.Any),))
        s0 = gv[0]
        s1 = gv[1]
        gv1 = R.call_builtin_with_ctx("vm.builtin.cuda_graph.run_or_capture", (cls.main_cuda_graph_capture, (w, s0, s1), 0), ty_args=(R.Tuple({T4}),))
        o = gv1[0]
        y = R.builtin.alloc_tensor(R.shape([4]), "float32", 0)
        cls.add_one(x, y)
        gv2 = (o, y)
        return gv2
'''

# main(x, w): c = w + 1 in fresh memory each call, a1 = c + 1 in s1, out = a1 + 1: w + 3.
FRESH_INPUT = f'''@I.ir_module
class Module:
{ADD_ONE}
    @R.function
    def main(x: {T4}, w: {T4}) -> {T4}:
        R.func_attr({{"relax.force_pure": True, "num_input": 1}})
        cls = Module
        c = R.builtin.alloc_tensor(R.shape([4]), "float32", 0)
        cls.add_one(w, c)
        s1 = R.memory.alloc_storage(R.shape([16]), 0, "global", "float32")
        a1 = R.memory.alloc_tensor(s1, 0, R.shape([4]), "float32")
        cls.add_one(c, a1)
        out = R.builtin.alloc_tensor(R.shape([4]), "float32", 0)
        cls.add_one(a1, out)
        return out
'''

# Broken: the graph takes c, allocated afresh by every call, as its input. Call 1 captures
# with call 1's c; call 2 passes another c (another address) and the replay reads call 1's,
# which still holds w + 1 (the graph keeps it; nothing writes it again). So a1 = w + 2 and
# out = w + 3 on every call, as in the original: values agree, and the ownership check
# reports graph input [0] ('c') on call 2, at the run_or_capture call.
FRESH_INPUT_CAPTURED = f'''@I.ir_module
class Module:
{ADD_ONE}
    @R.function(private=True)
    def cuda_graph_alloc() -> R.Tuple(R.Any):
        R.func_attr({{"relax.force_pure": True}})
        s1 = R.memory.alloc_storage(R.shape([16]), 0, "global", "float32")
        gv = (s1,)
        return gv

    @R.function(private=True)
    def main_cuda_graph_capture(c: {T4}, s1: R.Any) -> R.Tuple({T4}):
        R.func_attr({{"relax.force_pure": True}})
        cls = Module
        a1 = R.memory.alloc_tensor(s1, 0, R.shape([4]), "float32")
        cls.add_one(c, a1)
        gv = (a1,)
        return gv

    @R.function
    def main(x: {T4}, w: {T4}) -> {T4}:
        R.func_attr({{"relax.force_pure": True, "num_input": 1}})
        cls = Module
        c = R.builtin.alloc_tensor(R.shape([4]), "float32", 0)
        cls.add_one(w, c)
        gv = R.call_builtin_with_ctx("vm.builtin.cuda_graph.get_cached_alloc", (cls.cuda_graph_alloc, 0), ty_args=(R.Tuple(R.Any),))
        s1 = gv[0]
        gv1 = R.call_builtin_with_ctx("vm.builtin.cuda_graph.run_or_capture", (cls.main_cuda_graph_capture, (c, s1), 0), ty_args=(R.Tuple({T4}),))
        a1 = gv1[0]
        out = R.builtin.alloc_tensor(R.shape([4]), "float32", 0)
        cls.add_one(a1, out)
        return out
'''


# main(x, w): o = w + 1, in fresh memory each call.
WEIGHT_PLUS_ONE = f'''@I.ir_module
class Module:
{ADD_ONE}
    @R.function
    def main(x: {T4}, w: {T4}) -> {T4}:
        R.func_attr({{"relax.force_pure": True, "num_input": 1}})
        cls = Module
        o = R.builtin.alloc_tensor(R.shape([4]), "float32", 0)
        cls.add_one(w, o)
        return o
'''

# Broken: o allocated inside the captured function. No cuda_graph_alloc at all, but o is the
# graph's output: the same buffer on every replay, which writes w + 1 into it again. Values
# agree on every call; the finding is output "" of call 1, made by `o = gv1[0]`.
WEIGHT_PLUS_ONE_IN_GRAPH = f'''@I.ir_module
class Module:
{ADD_ONE}
    @R.function(private=True)
    def main_cuda_graph_capture(w: {T4}) -> R.Tuple({T4}):
        R.func_attr({{"relax.force_pure": True}})
        cls = Module
        o = R.builtin.alloc_tensor(R.shape([4]), "float32", 0)
        cls.add_one(w, o)
        gv = (o,)
        return gv

    @R.function
    def main(x: {T4}, w: {T4}) -> {T4}:
        R.func_attr({{"relax.force_pure": True, "num_input": 1}})
        cls = Module
        gv1 = R.call_builtin_with_ctx("vm.builtin.cuda_graph.run_or_capture", (cls.main_cuda_graph_capture, (w,), 0), ty_args=(R.Tuple({T4}),))
        o = gv1[0]
        return o
'''


def line_of(text: str, needle: str) -> int:
    [n] = [i for i, line in enumerate(text.split("\n"), 1) if needle in line]
    return n


def test_returned_value_in_graph_storage_is_reported_though_values_agree():
    r = verify(parse_module(WEIGHTS_ONLY), parse_module(WEIGHTS_ONLY_LIFTED), calls=3)
    d = r.difference
    assert d is not None and d.kind == "ownership" and d.module == "rewritten"
    assert (d.function, d.call, d.output, d.graph_input) == ("main", 0, "[0]", None)
    assert d.loc.line == line_of(WEIGHTS_ONLY_LIFTED, "o = gv1[0]") and d.loc.col == 9
    assert "cuda_graph_alloc" in d.message and r.outputs_compared == 6  # 1 + 2 + 3: all agreed
    assert (r.captures, r.replays) == (1, 2)


def test_returned_graph_output_is_reported_without_an_allocation_function():
    r = verify(parse_module(WEIGHT_PLUS_ONE), parse_module(WEIGHT_PLUS_ONE_IN_GRAPH), calls=3)
    d = r.difference
    assert d is not None and d.kind == "ownership"
    assert (d.function, d.call, d.output) == ("main", 0, "")
    assert "graph 0 writes on every replay" in d.message
    assert d.loc.line == line_of(WEIGHT_PLUS_ONE_IN_GRAPH, "o = gv1[0]")


def test_cgraphs_rewrite_of_it_keeps_o_and_passes():
    # cgraph's correction 3 keeps s1 (o is returned) in main: nothing to report.
    out, _ = rewrite(parse_module(WEIGHTS_ONLY))
    r = verify(parse_module(WEIGHTS_ONLY), out, calls=3)
    assert r.equal, r.difference
    assert r.captures == 1


def test_graph_input_at_a_new_address_is_reported_though_values_agree():
    r = verify(parse_module(FRESH_INPUT), parse_module(FRESH_INPUT_CAPTURED), calls=3)
    d = r.difference
    assert d is not None and d.kind == "ownership" and d.module == "rewritten"
    assert (d.function, d.call, d.graph_input, d.output) == ("main", 1, "[0]", "")
    assert "parameter 'c' of main_cuda_graph_capture, graph 0" in d.message
    line = line_of(FRESH_INPUT_CAPTURED, "gv1 = R.call_builtin_with_ctx(")
    assert (d.loc.line, d.loc.col) == (line, 15)  # the call, right of `gv1 = `


def test_the_same_storage_at_the_same_offset_is_the_same_address():
    # The fix: c in storage s2 of the allocation function, a new alloc_tensor view of it on
    # every call (a new tensor object, the same bytes): a graph input by address, not by
    # object, so nothing is reported.
    fixed = FRESH_INPUT_CAPTURED.replace(
        '        c = R.builtin.alloc_tensor(R.shape([4]), "float32", 0)\n'
        '        cls.add_one(w, c)\n', "")
    fixed = fixed.replace("        s1 = gv[0]\n", "        s1 = gv[0]\n        s2 = gv[1]\n"
                          '        c = R.memory.alloc_tensor(s2, 0, R.shape([4]), "float32")\n'
                          "        cls.add_one(w, c)\n")
    fixed = fixed.replace("gv = (s1,)", "gv = (s1, s2)").replace(
        '        s1 = R.memory.alloc_storage(R.shape([16]), 0, "global", "float32")\n',
        '        s1 = R.memory.alloc_storage(R.shape([16]), 0, "global", "float32")\n'
        '        s2 = R.memory.alloc_storage(R.shape([16]), 0, "global", "float32")\n', 1)
    fixed = fixed.replace("R.Tuple(R.Any)", "R.Tuple(R.Any, R.Any)")
    r = verify(parse_module(FRESH_INPUT), parse_module(fixed), calls=3)
    assert r.equal, r.difference
    assert (r.captures, r.replays) == (1, 2)


def test_a_value_difference_is_reported_before_ownership():
    # test_verify's PARAM_CAPTURED passes x (fresh each call) to the graph: an ownership
    # finding on call 2, but the values differ at that call too, and that is what is shown.
    from test_verify import ORIGINAL, PARAM_CAPTURED

    d = verify(parse_module(ORIGINAL), parse_module(PARAM_CAPTURED)).difference
    assert d is not None and d.kind == "values" and d.call == 1


def test_ownership_is_checked_in_the_original_too():
    # Swapped: the lifted module is the original. The finding is the original's.
    d = verify(parse_module(WEIGHTS_ONLY_LIFTED), parse_module(WEIGHTS_ONLY)).difference
    assert d is not None and d.kind == "ownership" and d.module == "original"


# ---- TVM's own outputs are not reported ----------------------------------------------------

def pairs():
    # the real-size mlc_* pairs verify (values and ownership) in tests/test_real_size.py
    for before in sorted((ROOT / "samples" / "real").glob("*.before.relax")):
        if not before.name.startswith("mlc_"):
            yield before, before.with_name(before.name.replace(".before.", ".after."))
    for before in sorted((ROOT / "samples" / "tvm").glob("*_before.relax")):
        after = before.with_name(before.name.replace("_before.", "_expected."))
        if after.exists():
            yield before, after


PAIRS = list(pairs())


@pytest.mark.parametrize("before,after", PAIRS, ids=[b.name for b, _ in PAIRS])
def test_tvm_outputs_have_no_ownership_finding(before: Path, after: Path):
    try:
        a = parse_module(before.read_text())
        b = parse_module(after.read_text())
        r = verify(a, b)
    except SourceError as e:
        # Modules the executor cannot run yet (R.reshape, metadata constants, storages
        # sized in elements) or that do not correspond (capture_fixed_inputs).
        pytest.skip(f"{before.name}: {e.message[:120]}")
    assert r.equal, r.difference


# ---- the command line ------------------------------------------------------------------------

def test_cli_reports_ownership_located_exit_1(tmp_path):
    a, b = tmp_path / "a.relax", tmp_path / "b.relax"
    a.write_text(WEIGHTS_ONLY)
    b.write_text(WEIGHTS_ONLY_LIFTED)
    r = run_cli("verify", str(a), str(b))
    out = r.stdout.decode()
    assert r.returncode == 1, out + r.stderr.decode()
    lines = out.splitlines()
    assert lines[0].startswith("differ: ownership in the rewritten module: function 'main', "
                               "call 1, output[0]: a tensor (4,) float32 in a storage owned by "
                               "cuda_graph_alloc (vm.builtin.cuda_graph.get_cached_alloc, "
                               "index 0): ")
    line = line_of(WEIGHTS_ONLY_LIFTED, "o = gv1[0]")
    assert lines[1] == f"{b}:{line}:9: note: the binding that made the returned value"
    assert lines[2] == "        o = gv1[0]" and lines[3] == " " * 8 + "^"

    j = run_cli("verify", str(a), str(b), "--format", "json")
    report = json.loads(j.stdout)
    assert j.returncode == 1 and report["equal"] is False
    d = report["difference"]
    assert (d["kind"], d["module"], d["function"], d["call"], d["output"]) == \
        ("ownership", "rewritten", "main", 1, "[0]")
    assert (d["file"], d["line"], d["column"], d["graph_input"]) == (str(b), line, 9, None)


def test_cli_reports_a_graph_input_at_its_run_or_capture(tmp_path):
    a, b = tmp_path / "a.relax", tmp_path / "b.relax"
    a.write_text(FRESH_INPUT)
    b.write_text(FRESH_INPUT_CAPTURED)
    j = run_cli("verify", str(a), str(b), "--format", "json")
    d = json.loads(j.stdout)["difference"]
    assert j.returncode == 1
    line = line_of(FRESH_INPUT_CAPTURED, "gv1 = R.call_builtin_with_ctx(")
    assert (d["kind"], d["call"], d["graph_input"], d["line"], d["column"]) == \
        ("ownership", 2, "[0]", line, 15)


def test_values_difference_json_says_its_kind(tmp_path):
    from test_verify import ORIGINAL, PARAM_CAPTURED

    a, b = tmp_path / "a.relax", tmp_path / "b.relax"
    a.write_text(ORIGINAL)
    b.write_text(PARAM_CAPTURED)
    j = run_cli("verify", str(a), str(b), "--format", "json")
    d = json.loads(j.stdout)["difference"]
    assert j.returncode == 1 and d["kind"] == "values" and "graph_input" not in d


def test_rewrite_verify_locates_a_finding_in_its_input(tmp_path):
    # The input is already the broken rewrite: the finding is in the original (IN) at call 1,
    # which comes first whatever the rewrite of it does.
    src = tmp_path / "in.relax"
    src.write_text(WEIGHTS_ONLY_LIFTED)
    r = run_cli("rewrite", str(src), "--verify", "-o", str(tmp_path / "out.relax"))
    err = r.stderr.decode().splitlines()
    assert r.returncode == 1 and not (tmp_path / "out.relax").exists()
    assert err[0].startswith("differ: ownership in the original module: function 'main', "
                             "call 1, output[0]: ")
    line = line_of(WEIGHTS_ONLY_LIFTED, "o = gv1[0]")
    assert err[1] == f"{src}:{line}:9: note: the binding that made the returned value"
