"""cgraph diff: what graphs keyed by symbolic values cost (report/graph_cost.py), and the option
`--explain` names for a launch left outside for a symbolic shape.

Every golden number here is derived by hand from the module's text, in the comment beside it.
"""

from __future__ import annotations

import io
import json

from rich.console import Console

from conftest import ROOT, run_cli
from cudagraph_cli import ir
from cudagraph_cli.passes.guards import find_guards, guard_terms, largest_values
from cudagraph_cli.passes.pipeline import rewrite
from cudagraph_cli.report.analysis import analyze
from cudagraph_cli.report.views import render_html, render_terminal, to_json
from cudagraph_cli.text.reader import parse_module

REAL_DIR = ROOT / "samples" / "real"
BEFORE_1B = REAL_DIR / "mlc_llama_1b.before.relax"
AFTER_1B = REAL_DIR / "mlc_llama_1b.after.relax"  # TVM's own rewrite of BEFORE_1B
TVM_DIR = ROOT / "samples" / "tvm"


def _terminal(facts) -> str:
    out = io.StringIO()
    render_terminal(facts, Console(file=out, width=200, color_system=None), summary_only=True)
    return out.getvalue()


# ---- the 1B model, TVM's rewrite ------------------------------------------------------------

# batch_decode's attributes (mlc_llama_1b.after.relax, line 2749): capture_symbolic_vars
# ["batch_size"], tir_non_negative_var ["vocab_size"] (not batch_size: its values are 1..32),
# tir_var_upper_bound {batch_size: 32, ...}. Its 18 run_or_capture calls all end in
# `R.shape([batch_size])`: capture, capture1, capture2 once each, capture3 14 times (layers
# 1..14), capture4 once: 32 graphs a launch, 18 * 32 = 576 in all, capture3's 14 * 32 = 448.
# cuda_graph_alloc (line 3163) returns (storage1, storage10, storage11, storage8, storage12):
# slot 0 525,336,576 bytes, 1 67,108,864, 2 67,108,864, 3 8,388,608, 4 4,096.
# capture (line 2858) is given alloc1 (in storage1 = gv[0]), storage2 = gv[3], rms_norm66 =
# alloc (in storage = gv[2]) and storage: slots 0, 2, 3 = 525,336,576 + 67,108,864 + 8,388,608
# = 600,834,048. capture1 is given alloc4 (in gv[0]) and storage2 (gv[3]): 533,725,184.
# decode (18 graphs) and prefill (65) have no key: a graph each; the total 576 + 18 + 65 = 659.
KEYED_1B = [("batch_decode_cuda_graph_capture", 1, 32, 600_834_048),
            ("batch_decode_cuda_graph_capture1", 1, 32, 533_725_184),
            ("batch_decode_cuda_graph_capture2", 1, 32, None),
            ("batch_decode_cuda_graph_capture3", 14, 448, None),
            ("batch_decode_cuda_graph_capture4", 1, 32, None)]


def test_real_1b_keyed_graphs_json():
    r = run_cli("diff", str(BEFORE_1B), str(AFTER_1B), "--format", "json")
    assert r.returncode == 0, r.stderr.decode()
    data = json.loads(r.stdout)
    by_name = {f["name"]: f for f in data["functions"]}
    bd = by_name["batch_decode"]
    assert [(k["capture_function"], k["launches"], k["graphs"]) for k in bd["keyed_graphs"]] == \
        [(c, n, g) for c, n, g, _ in KEYED_1B]
    for k, (_, _, _, held) in zip(bd["keyed_graphs"], KEYED_1B):
        assert k["keys"] == [{"name": "batch_size", "values": 32, "least": 1,
                              "bound_from": "tir_var_upper_bound"}]
        assert k["graphs_per_launch"] == 32
        if held is not None:
            assert k["shared_static_bytes"] == {"global": held}
        # never more than the whole shared allocation, counted once however many graphs
        assert k["shared_static_bytes"]["global"] <= data["memory"]["global"]["static_bytes"]
    assert bd["graphs_at_most"] == 576
    assert (by_name["decode"]["graphs_at_most"], by_name["decode"]["keyed_graphs"]) == (18, [])
    assert by_name["prefill"]["graphs_at_most"] == 65
    assert by_name["embed"]["graphs_at_most"] == 0
    assert data["totals"]["graphs_at_most"] == 659
    assert not any("unbounded" in n for n in data["notes"])


def test_real_1b_keyed_graphs_terminal_and_html(tmp_path):
    r = run_cli("diff", str(BEFORE_1B), str(AFTER_1B), "--summary", env={"COLUMNS": "200"})
    assert r.returncode == 0, r.stderr.decode()
    text = r.stdout.decode()
    assert "graphs keyed by symbolic values" in text
    row = next(ln for ln in text.splitlines() if "batch_decode_cuda_graph_capture3 " in ln)
    cells = [c.strip() for c in row.strip("│ ").split("│")]
    # capture3 is given storages in slots 0..3: 525,336,576 + 2 * 67,108,864 + 8,388,608
    assert cells == ["batch_decode", "batch_decode_cuda_graph_capture3", "14",
                     "batch_size: 1..32 (upper bound)", "448", "667,942,912"]
    total = next(ln for ln in text.splitlines() if "all its graphs, at most" in ln)
    assert [c.strip() for c in total.strip("│ ").split("│") if c.strip()] == \
        ["batch_decode", "all its graphs, at most", "18", "576"]
    page = tmp_path / "r.html"
    assert run_cli("diff", str(BEFORE_1B), str(AFTER_1B), "--format", "html",
                   "-o", str(page)).returncode == 0
    html = page.read_text()
    assert "<table id=\"keyed-graphs\">" in html
    assert ("<tr><td><a href=\"#fn-batch_decode\">batch_decode</a></td>"
            "<td>batch_decode_cuda_graph_capture</td><td>1</td>"
            "<td>batch_size: 1..32 (upper bound)</td><td>32</td><td>600,834,048</td></tr>") in html
    assert "<td>all its graphs, at most</td><td>18</td><td></td><td>576</td>" in html


def test_real_1b_explain_names_the_option(tmp_path):
    # prefill's 97 symbolic-shape launches are about seq_len (test_diff.py counts them)
    explain = run_cli("rewrite", str(BEFORE_1B), "--explain", "-o", str(tmp_path / "o.relax"))
    lines = explain.stderr.decode().splitlines()
    summary = [ln for ln in lines if ln.startswith(f"{BEFORE_1B}: prefill: left outside: ")]
    assert len(summary) == 1
    assert "symbolic-shape: 97 (seq_len) [--capture-symbolic seq_len[:MAX] would capture " \
        "them]" in summary[0]
    one = [ln for ln in lines if "[symbolic-shape]" in ln]
    assert len(one) == 97 and all(ln.endswith("; --capture-symbolic seq_len[:MAX] would "
                                              "capture it") for ln in one)
    # the attribute stays named beside the option (a model's author writes that)
    assert all("relax.rewrite_cuda_graph.capture_symbolic_vars" in ln for ln in one)
    # another code names the option only through its root cause, a symbolic shape (16
    # reshapes of prefill, to shapes of seq_len)
    others = [ln for ln in lines if "--capture-symbolic" in ln and "not captured [" in ln
              and "[symbolic-shape]" not in ln]
    assert len(others) == 16 and all("[non-static-input]" in ln and ", because the shape of "
                                     in ln for ln in others)
    term = run_cli("diff", str(BEFORE_1B), "--summary", "--function", "prefill",
                   env={"COLUMNS": "250"})
    row = [ln for ln in term.stdout.decode().splitlines()
           if "symbolic-shape" in ln and ln.startswith("│")]
    assert len(row) == 1 and "seq_len; --capture-symbolic seq_len[:MAX] would capture them" \
        in row[0]
    data = json.loads(run_cli("diff", str(BEFORE_1B), "--format", "json", "--function",
                              "prefill").stdout)
    messages = [b["reason"]["message"] for b in data["functions"][0]["bindings"]
                if b["reason"] and b["reason"]["code"] == "symbolic-shape"]
    assert len(messages) == 97 and all("--capture-symbolic seq_len[:MAX] would capture it" in m
                                       for m in messages)


# ---- small modules: no bound, two keying variables, a guard ----------------------------------

def test_no_bound_is_unbounded_with_a_note():
    # TVM's test_dynamic_capture: main names m in capture_symbolic_vars and has no
    # tir_var_upper_bound, no guard: each value of m captures another graph. Its one launch
    # is given alloc1 (in storage = gv[0]) and alloc2 (in storage1 = gv[1]), each
    # R.shape([16]): 32 shared bytes.
    r = run_cli("diff", str(TVM_DIR / "dynamic_capture_before.relax"),
                str(TVM_DIR / "dynamic_capture_expected.relax"), "--format", "json")
    assert r.returncode == 0, r.stderr.decode()
    data = json.loads(r.stdout)
    main = data["functions"][0]
    assert main["keyed_graphs"] == [{
        "capture_function": "main_cuda_graph_capture", "launches": 1,
        "keys": [{"name": "m", "values": "unbounded", "least": 1, "bound_from": None}],
        "graphs_per_launch": "unbounded", "graphs": "unbounded",
        "shared_static_bytes": {"global": 32}}]
    assert main["graphs_at_most"] == "unbounded"
    assert data["totals"]["graphs_at_most"] == "unbounded"
    note = [n for n in data["notes"] if "unbounded" in n]
    assert note == ["main: 1 graph launch(es) keyed by m can make unbounded graphs: each "
                    "distinct value captures one more graph per launch (no guard, no "
                    "tir_var_upper_bound); --capture-symbolic m:MAX bounds them"]
    term = run_cli("diff", str(TVM_DIR / "dynamic_capture_before.relax"),
                   str(TVM_DIR / "dynamic_capture_expected.relax"), "--summary",
                   env={"COLUMNS": "200"}).stdout.decode()
    rows = [[c.strip() for c in ln.strip("│ ").split("│")] for ln in term.splitlines()
            if ln.startswith("│ main ")]
    assert rows[-2:] == [["main", "main_cuda_graph_capture", "1", "m: unbounded", "unbounded",
                          "32"], ["main", "all its graphs, at most", "1", "", "unbounded"]]
    assert "note: main: 1 graph launch(es) keyed by m can make unbounded graphs" in term


TWO_VARS = '''\
@I.ir_module
class Module:
    @T.prim_func
    def add_one(x_handle: T.handle, y_handle: T.handle):
        m = T.int64()
        n = T.int64()
        x = T.match_buffer(x_handle, (m, n), "float32")
        y = T.match_buffer(y_handle, (m, n), "float32")
        for i, j in T.grid(m, n):
            with T.block("add"):
                vi, vj = T.axis.remap("SS", [i, j])
                y[vi, vj] = x[vi, vj] + T.float32(1)

    @R.function
    def main(x: R.Tensor(("m", "n"), "float32"), w: R.Tensor((4, 3), "float32")) -> R.Tensor(("m", "n"), "float32"):
        m = T.int64()
        n = T.int64()
        R.func_attr({"num_input": 1, "relax.force_pure": True, "relax.rewrite_cuda_graph.capture_symbolic_vars": ["m", "n"], "tir_non_negative_var": ["n"], "tir_var_upper_bound": {"m": 4, "n": 3}})
        storage: R.Any = R.memory.alloc_storage(R.shape([48]), 0, "global", "float32")
        alloc1: R.Tensor((m, n), "float32") = R.memory.alloc_tensor(storage, 0, R.shape([m, n]), "float32")
        _1 = Module.add_one(x, alloc1)
        storage1: R.Any = R.memory.alloc_storage(R.shape([48]), 0, "global", "float32")
        alloc2: R.Tensor((m, n), "float32") = R.memory.alloc_tensor(storage1, 0, R.shape([m, n]), "float32")
        _2 = Module.add_one(alloc1, alloc2)
        _3 = Module.add_one(alloc2, alloc1)
        alloc3: R.Tensor((m, n), "float32") = R.builtin.alloc_tensor(R.shape([m, n]), "float32", 0, "global")
        _4 = Module.add_one(alloc1, alloc3)
        return alloc3
'''


def test_two_keying_vars_multiply():
    # cgraph's rewrite of TWO_VARS lifts the two launches between alloc1 and alloc2 (the first
    # reads the input x, the last writes an R.builtin.alloc_tensor) into one graph keyed by
    # R.shape([m, n]). m: 1..4 (upper bound 4), 4 values; n: in tir_non_negative_var, 0..3,
    # 4 values; 4 * 4 = 16 graphs. Given alloc1 and alloc2, in the two R.shape([48]) storages
    # of the shared allocation: 96 bytes.
    original = parse_module(TWO_VARS, "two.relax")
    rewritten, report = rewrite(original)
    data = to_json(analyze(original, rewritten, report), "two.relax")
    main = data["functions"][0]
    assert main["keyed_graphs"] == [{
        "capture_function": "main_cuda_graph_capture", "launches": 1,
        "keys": [{"name": "m", "values": 4, "least": 1, "bound_from": "tir_var_upper_bound"},
                 {"name": "n", "values": 4, "least": 0, "bound_from": "tir_var_upper_bound"}],
        "graphs_per_launch": 16, "graphs": 16, "shared_static_bytes": {"global": 96}}]
    assert main["graphs_at_most"] == 16
    text = _terminal(analyze(original, rewritten, report))
    row = next(ln for ln in text.splitlines() if "main_cuda_graph_capture" in ln)
    assert "m: 1..4 (upper bound), n: 0..3 (upper bound)" in row and " 16 " in row


GUARDED_BEFORE = '''\
@I.ir_module
class Module:
    @T.prim_func
    def add_one(x_handle: T.handle, y_handle: T.handle):
        m = T.int64()
        x = T.match_buffer(x_handle, (m,), "float32")
        y = T.match_buffer(y_handle, (m,), "float32")
        for i in range(m):
            with T.block("add"):
                vi = T.axis.remap("S", [i])
                y[vi] = x[vi] + T.float32(1)

    @R.function
    def main(x: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
        m = T.int64()
        R.func_attr({"relax.force_pure": True, "tir_var_upper_bound": {"m": 16}})
        storage: R.Any = R.memory.alloc_storage(R.shape([64]), 0, "global", "float32")
        alloc1: R.Tensor((m,), "float32") = R.memory.alloc_tensor(storage, 0, R.shape([m]), "float32")
        _1 = Module.add_one(x, alloc1)
        storage1: R.Any = R.memory.alloc_storage(R.shape([64]), 0, "global", "float32")
        alloc2: R.Tensor((m,), "float32") = R.memory.alloc_tensor(storage1, 0, R.shape([m]), "float32")
        _2 = Module.add_one(alloc1, alloc2)
        alloc3: R.Tensor((m,), "float32") = R.builtin.alloc_tensor(R.shape([m]), "float32", 0, "global")
        _3 = Module.add_one(alloc2, alloc3)
        return alloc3
'''

# Its rewrite, as `--capture-symbolic m` makes it (TVM's test_dynamic_capture's Expected with a
# storage of 64): the graph keyed by R.shape([m]); guarded() below puts its launch under
# `if m <= MAX`.
GUARDED_AFTER = '''\
@I.ir_module
class Module:
    @T.prim_func
    def add_one(x_handle: T.handle, y_handle: T.handle):
        m = T.int64()
        x = T.match_buffer(x_handle, (m,), "float32")
        y = T.match_buffer(y_handle, (m,), "float32")
        for i in range(m):
            with T.block("add"):
                vi = T.axis.remap("S", [i])
                y[vi] = x[vi] + T.float32(1)

    @R.function(private=True)
    def cuda_graph_alloc() -> R.Tuple(R.Any, R.Any):
        R.func_attr({"relax.force_pure": True})
        storage: R.Any = R.memory.alloc_storage(R.shape([64]), R.prim_value(0), R.str("global"), R.dtype("float32"))
        storage1: R.Any = R.memory.alloc_storage(R.shape([64]), R.prim_value(0), R.str("global"), R.dtype("float32"))
        gv: R.Tuple(R.Any, R.Any) = storage, storage1
        return gv

    @R.function(private=True)
    def main_cuda_graph_capture(alloc1: R.Tensor(("m",), dtype="float32"), alloc2: R.Tensor(("m",), dtype="float32"), shape_expr: R.Shape(["m"])) -> R.Tuple:
        m = T.int64()
        R.func_attr({"relax.force_pure": True})
        cls = Module
        cls.add_one(alloc1, alloc2)
        gv: R.Tuple = R.tuple()
        return gv

    @R.function
    def main(x: R.Tensor(("m",), dtype="float32")) -> R.Tensor(("m",), dtype="float32"):
        m = T.int64()
        R.func_attr({"relax.force_pure": True, "tir_var_upper_bound": {"m": 16}})
        cls = Module
        gv: R.Tuple(R.Any, R.Any) = R.call_builtin_with_ctx("vm.builtin.cuda_graph.get_cached_alloc", (cls.cuda_graph_alloc, R.prim_value(0)), ty_args=(R.Tuple(R.Any, R.Any),))
        storage: R.Any = gv[0]
        alloc1: R.Tensor((m,), dtype="float32") = R.memory.alloc_tensor(storage, R.prim_value(0), R.shape([m]), R.dtype("float32"))
        cls.add_one(x, alloc1)
        storage1: R.Any = gv[1]
        alloc2: R.Tensor((m,), dtype="float32") = R.memory.alloc_tensor(storage1, R.prim_value(0), R.shape([m]), R.dtype("float32"))
        graph: R.Tuple = R.call_builtin_with_ctx("vm.builtin.cuda_graph.run_or_capture", (cls.main_cuda_graph_capture, (alloc1, alloc2, R.shape([m])), R.prim_value(0), R.shape([m])), ty_args=(R.Tuple,))
        alloc3: R.Tensor((m,), dtype="float32") = R.builtin.alloc_tensor(R.shape([m]), R.dtype("float32"), R.prim_value(0), R.str("global"))
        cls.add_one(alloc2, alloc3)
        return alloc3
'''


def guarded(module: ir.Module, most: int, op: str = "<=", test=None) -> ir.Module:
    """GUARDED_AFTER's main with its graph launch under the guard of `--capture-symbolic
    m:MAX`: `cond: R.Prim("bool") = R.prim_value(m <= T.int64(MAX))` (TVM 0.27 prints it
    `cond: T.bool = m <= MAX`), then `if cond:` launching the graph, `else:` the same launch
    eagerly. Built as IR: cgraph's parser reads no comparison yet (the option's own change
    adds it). `op`: "<=", "<", "and" (`m <= MAX and m <= 2 * MAX`) or "+" (no guard);
    `test(m)`: the condition itself, in place of `op`'s."""
    main = module.function("main")
    bindings = list(main.blocks[0].bindings)
    k = next(i for i, b in enumerate(bindings) if ir.builtin_called(b.value) == ir.RUN_OR_CAPTURE)
    launch = bindings[k]
    m = next(s for s in main.sym_vars if s.name == "m")
    cond = ir.Var("cond", ir.PrimSInfo("bool"))
    eager_call = next(b for b in bindings[k + 1:] if isinstance(b.value, ir.Call) and
                      ir.callee_name(b.value) == "add_one").value
    alloc1, alloc2 = (next(b.var for b in bindings if b.var.name == n)
                      for n in ("alloc1", "alloc2"))
    eager = ir.VarBinding(ir.Var("_eager"), ir.replace(eager_call, args=(alloc1, alloc2)))
    result = ir.Var("graph_or_eager")
    branch = ir.VarBinding(result, ir.If(
        cond,
        ir.SeqExpr((ir.BindingBlock((launch,)),), launch.var),
        ir.SeqExpr((ir.BindingBlock((eager,)),), ir.Tuple(()))))
    if test is not None:  # the condition given whole, as a function of the variable m
        test = test(m)
    elif op == "and":
        test = ir.PrimBinOp("and", ir.PrimBinOp("<=", m, ir.IntImm(most)),
                            ir.PrimBinOp("<=", m, ir.IntImm(2 * most)))
    else:
        test = ir.PrimBinOp(op, m, ir.IntImm(most))
    guard = ir.VarBinding(cond, ir.PrimValue(test))
    bindings[k:k + 1] = [guard, branch]
    main = ir.replace(main, blocks=(ir.replace(main.blocks[0], bindings=tuple(bindings)),))
    return ir.Module(module.name, [main if f.name == "main" else f for f in module.functions],
                     module.decorator_args, module.globals_text, module.leading_comments,
                     module.dialect, module.loc)


def test_guard_bounds_the_graphs():
    original = parse_module(GUARDED_BEFORE, "g.relax")
    plain = parse_module(GUARDED_AFTER, "g.after.relax")
    # Unguarded: m <= 16 (tir_var_upper_bound), 1..16: 16 graphs. The one launch is given
    # alloc1 and alloc2, in the two R.shape([64]) storages of cuda_graph_alloc: 128 bytes.
    keyed = to_json(analyze(original, plain), "g")["functions"][0]["keyed_graphs"]
    assert [(k["keys"], k["graphs"], k["shared_static_bytes"]) for k in keyed] == [
        ([{"name": "m", "values": 16, "least": 1, "bound_from": "tir_var_upper_bound"}], 16,
         {"global": 128})]
    # Guarded by m <= 4: 1..4, 4 graphs; the memory is the same storages, held once.
    facts = analyze(original, guarded(plain, 4))
    main = to_json(facts, "g")["functions"][0]
    assert main["keyed_graphs"] == [{
        "capture_function": "main_cuda_graph_capture", "launches": 1,
        "keys": [{"name": "m", "values": 4, "least": 1, "bound_from": "guard"}],
        "graphs_per_launch": 4, "graphs": 4, "shared_static_bytes": {"global": 128}}]
    assert main["graphs_at_most"] == 4
    row = next(ln for ln in _terminal(facts).splitlines() if "main_cuda_graph_capture" in ln)
    assert "m: 1..4 (guard)" in row and "128" in row
    assert "<td>m: 1..4 (guard)</td><td>4</td><td>128</td>" in render_html(facts, "g")
    # A guard above the upper bound bounds nothing more: 16 again, from the attribute; so
    # does a condition that is no bound (m + 4).
    for plan in (guarded(plain, 100), guarded(plain, 4, "+")):
        main = to_json(analyze(original, plan), "g")["functions"][0]
        assert main["keyed_graphs"][0]["keys"] == [
            {"name": "m", "values": 16, "least": 1, "bound_from": "tir_var_upper_bound"}]
    # m < 5 is m <= 4; (m <= 3 and m <= 6) bounds m by 3
    for plan, values in ((guarded(plain, 5, "<"), 4), (guarded(plain, 3, "and"), 3)):
        main = to_json(analyze(original, plan), "g")["functions"][0]
        assert main["keyed_graphs"][0]["keys"] == [
            {"name": "m", "values": values, "least": 1, "bound_from": "guard"}]


# ---- one reader of a guard (passes/guards.py) for the cost, the notes and verify ------------
# report/analysis.py had a second reader for the cost (`_guard_bounds`); where the two read a
# condition differently, the cost now reads what find_guards reads. Each case below is one of
# those differences, with the figure the cost gives now.

def _keys_and_guards(test):
    original = parse_module(GUARDED_BEFORE, "g.relax")
    plan = guarded(parse_module(GUARDED_AFTER, "g.after.relax"), 0, test=test)
    facts = analyze(original, plan)
    main = to_json(facts, "g")["functions"][0]
    return main["keyed_graphs"][0]["keys"], [g.text() for g in find_guards(plan)], facts.notes


def test_a_flipped_comparison_bounds_the_graphs():
    # `4 >= m` is `m <= 4`: the old cost reader took only VAR on the left and counted 16
    # graphs (the tir_var_upper_bound), while find_guards (and so verify and the note) read
    # the guard m <= 4. The guard is right: within it m takes 1..4.
    keys, guards, notes = _keys_and_guards(lambda m: ir.PrimBinOp(">=", ir.IntImm(4), m))
    assert keys == [{"name": "m", "values": 4, "least": 1, "bound_from": "guard"}]
    assert guards == ["m <= 4"]
    # `5 > m` is `m < 5`: 1..4.
    keys, guards, _ = _keys_and_guards(lambda m: ir.PrimBinOp(">", ir.IntImm(5), m))
    assert keys == [{"name": "m", "values": 4, "least": 1, "bound_from": "guard"}]
    assert guards == ["m < 5"]


def test_a_strict_comparison_allows_one_value_less():
    # `m < 5`: find_guards keeps the operator; the largest value it allows is 4 (the cost
    # counts 4 graphs, not 5), as the old cost reader had it.
    keys, guards, _ = _keys_and_guards(lambda m: ir.PrimBinOp("<", m, ir.IntImm(5)))
    assert keys == [{"name": "m", "values": 4, "least": 1, "bound_from": "guard"}]
    assert guards == ["m < 5"]
    assert largest_values(guard_terms(ir.PrimBinOp("<", ir.SymVar("m"), ir.IntImm(5)))) == \
        {"m": 4}


def test_t_and_is_a_conjunction_for_every_reader():
    # `T.And(m <= 3, m <= 6)`: the old cost reader read it (3), find_guards did not, so the
    # note said "within its guards ()" and verify checked no guard. Now both read it.
    keys, guards, notes = _keys_and_guards(lambda m: ir.PrimCall("T.And", (
        ir.PrimBinOp("<=", m, ir.IntImm(3)), ir.PrimBinOp("<=", m, ir.IntImm(6)))))
    assert keys == [{"name": "m", "values": 3, "least": 1, "bound_from": "guard"}]
    assert guards == ["m <= 3 and m <= 6"]
    assert any("within its guards (m <= 3 and m <= 6)" in n for n in notes)


def test_a_condition_the_guard_reader_cannot_read_whole_bounds_nothing():
    # `m <= 4 and m + 1 >= 2`: its second part compares no variable with a constant, so it is
    # no guard (find_guards finds none, verify checks none); the old cost reader took m <= 4
    # from it all the same. The cost now agrees with the guard reader: the bound comes from
    # tir_var_upper_bound alone (still an upper bound of the graphs, 16).
    keys, guards, _ = _keys_and_guards(lambda m: ir.PrimBinOp(
        "and", ir.PrimBinOp("<=", m, ir.IntImm(4)),
        ir.PrimBinOp(">=", ir.PrimBinOp("+", m, ir.IntImm(1)), ir.IntImm(2))))
    assert keys == [{"name": "m", "values": 16, "least": 1,
                     "bound_from": "tir_var_upper_bound"}]
    assert guards == []
