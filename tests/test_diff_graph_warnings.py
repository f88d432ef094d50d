"""cgraph diff: the warning on a function whose CUDA graphs are unbounded or more than
--warn-over-graphs, the --capture-symbolic VAR:MAX it suggests, and the gate --fail-over-graphs
(report/graph_warnings.py).

Every golden figure is derived by hand in the comment beside it, from the module's text and the
counts test_diff_symbolic_cost.py derives (the 1B's batch_decode: 18 graph launches keyed by
batch_size, 1..32; decode 18 and prefill 65 unkeyed launches; with --capture-symbolic seq_len,
prefill 18 launches keyed by seq_len, 1..2048 from its tir_var_upper_bound). A suggested bound
is then checked against the rewrite it names: the count it predicts is what `cgraph diff`
counts once the option is given.
"""

from __future__ import annotations

import json

import pytest

from conftest import ROOT, run_cli
from test_diff_symbolic_cost import TWO_VARS
from cudagraph_cli.passes.options import RewriteOptions
from cudagraph_cli.passes.pipeline import rewrite
from cudagraph_cli.report.analysis import analyze
from cudagraph_cli.report.graph_cost import suggest_bounds
from cudagraph_cli.report.graph_warnings import DEFAULT_WARN_OVER_GRAPHS, check_graph_counts
from cudagraph_cli.report.views import to_json
from cudagraph_cli.text.reader import parse_module

REAL_DIR = ROOT / "samples" / "real"
BEFORE_1B = REAL_DIR / "mlc_llama_1b.before.relax"
AFTER_1B = REAL_DIR / "mlc_llama_1b.after.relax"  # TVM's own rewrite of BEFORE_1B
HINT = "relax.rewrite_cuda_graph.capture_symbolic_vars"
# The functions' places (the name after `def`, as every located message in the file points):
# `    def batch_decode(` is line 2748, `    def prefill(` line 4249; the name at column 9.
BATCH_DECODE_AT = "2748:9"
PREFILL_AT = "4249:9"
PREFILL_ATTRS = 4250  # prefill's R.func_attr line


def _facts(text: str, name: str, *capture_symbolic: str):
    original = parse_module(text, name)
    rewritten, report = rewrite(original, RewriteOptions(capture_symbolic=capture_symbolic))
    return analyze(original, rewritten, report)


def _graphs(facts, function: str):
    return next(f.graphs_at_most for f in facts.functions if f.name == function)


def _edited_1b(tmp_path, name: str, old: str, new: str):
    """The 1B with prefill's attributes edited (one replacement on its R.func_attr line)."""
    lines = BEFORE_1B.read_text().split("\n")
    assert old in lines[PREFILL_ATTRS - 1]
    lines[PREFILL_ATTRS - 1] = lines[PREFILL_ATTRS - 1].replace(old, new, 1)
    path = tmp_path / name
    path.write_text("\n".join(lines))
    return path


def _warnings(stderr: bytes) -> list:
    return [ln for ln in stderr.decode().splitlines() if ": warning: " in ln]


# ---- the 1B model: MLC-LLM's own hints stay under the default ------------------------------

def test_default_threshold_passes_mlc_hints_on_the_1b():
    # batch_decode 576, decode 18, prefill 65: none over 4096, nothing unbounded.
    r = run_cli("diff", str(BEFORE_1B), "--format", "json", "--fail-over-graphs", "576")
    assert r.returncode == 0, r.stderr.decode()
    assert _warnings(r.stderr) == []
    assert json.loads(r.stdout)["graph_count"] == {
        "warn_over_graphs": DEFAULT_WARN_OVER_GRAPHS, "fail_over_graphs": 576,
        "threshold": 576, "warnings": [], "failed": False}
    assert DEFAULT_WARN_OVER_GRAPHS == 4096
    # the help says the same default (cli.py reads the constant only when diff runs)
    assert "(default 4096:" in run_cli("diff", "--help").stdout.decode()


def test_gate_fails_on_batch_decode_and_names_the_bound(tmp_path):
    # --fail-over-graphs 575: batch_decode's 576 = 18 x 32 are over it. The largest power of
    # two P with 18 * P <= 575 is 16 (18 * 16 = 288; 18 * 32 = 576 is over): batch_size:16,
    # 288 graphs. batch_size comes from batch_decode's hint ["batch_size"].
    r = run_cli("diff", str(BEFORE_1B), "--summary", "--fail-over-graphs", "575")
    assert r.returncode == 1
    err = r.stderr.decode()
    warnings = _warnings(r.stderr)
    assert warnings == [
        f"{BEFORE_1B}:{BATCH_DECODE_AT}: warning: batch_decode: up to 576 CUDA graphs, over "
        "575 (--fail-over-graphs); --capture-symbolic batch_size:16 bounds them to 288 (the "
        "largest power of two within 575): 18 graph launch(es) keyed by batch_size (1..32, "
        f"tir_var_upper_bound), from its capture hint {HINT} [batch_size]"]
    # the excerpt under it: the function's line, a caret under its name
    lines = err.splitlines()
    at = lines.index(warnings[0])
    assert lines[at + 1].startswith("    def batch_decode(") and lines[at + 2] == " " * 8 + "^"
    assert "cgraph diff: batch_decode makes up to 576 CUDA graphs, over --fail-over-graphs " \
        "575" in err
    # The bound it names does what it says: 288 graphs, and the gate passes.
    out = tmp_path / "r.json"
    r = run_cli("diff", str(BEFORE_1B), "--format", "json", "-o", str(out),
                "--capture-symbolic", "batch_size:16", "--fail-over-graphs", "575")
    assert r.returncode == 0, r.stderr.decode()
    data = json.loads(out.read_text())
    assert {f["name"]: f["graphs_at_most"] for f in data["functions"]}["batch_decode"] == 288
    assert data["graph_count"]["failed"] is False and data["graph_count"]["warnings"] == []


def test_gate_reads_tvms_rewrite_and_function_selects():
    # The two-file form (TVM's own rewrite): the same 576 graphs of batch_decode.
    r = run_cli("diff", str(BEFORE_1B), str(AFTER_1B), "--format", "json",
                "--fail-over-graphs", "575")
    assert r.returncode == 1
    count = json.loads(r.stdout)["graph_count"]
    assert count["failed"] is True
    assert [(w["function"], w["graphs"], w["suggestion"]["option"], w["suggestion"]["graphs"],
             w["line"], w["column"]) for w in count["warnings"]] == \
        [("batch_decode", 576, "--capture-symbolic batch_size:16", 288, 2748, 9)]
    # --function prefill: prefill's 65 graphs alone, within 575.
    r = run_cli("diff", str(BEFORE_1B), str(AFTER_1B), "--function", "prefill", "--summary",
                "--fail-over-graphs", "575")
    assert r.returncode == 0 and _warnings(r.stderr) == []


def test_more_launches_than_the_threshold_has_no_bound():
    # --warn-over-graphs 17: decode's 18 unkeyed launches make 18 graphs whatever the bound;
    # batch_decode's 18 keyed ones at least 18 (batch_size:1); prefill's 65. Warned, no
    # suggestion; no gate, so exit 0.
    facts = _facts(BEFORE_1B.read_text(), "1b.relax")
    check = check_graph_counts(facts, 17)
    assert [(w.function, w.graphs, w.suggestion.bounds, w.suggestion.graphs)
            for w in check.warnings] == [("batch_decode", 576, {}, None),
                                         ("decode", 18, {}, None), ("prefill", 65, {}, None)]
    assert check.failed is None
    assert check.warnings[1].message() == (
        "decode: up to 18 CUDA graphs, over 17 (--warn-over-graphs); no --capture-symbolic "
        "bound brings them within 17 (its 18 graph launches make a graph each at least) (none "
        "of its graph launches is keyed by a symbolic value)")
    assert to_json(facts, "1b.relax", check)["graph_count"]["warnings"][0]["suggestion"] is None


# ---- prefill keyed by seq_len: over the default, bounded, unbounded ------------------------

def test_prefill_keyed_by_seq_len_is_over_the_default():
    text = BEFORE_1B.read_text()
    # --capture-symbolic seq_len: 18 x 2048 = 36,864. The largest P with 18 * P <= 4096:
    # 227, so the power of two 128: 18 x 128 = 2,304 (256 gives 4,608, over).
    facts = _facts(text, "1b.relax", "seq_len")
    (w,) = check_graph_counts(facts).warnings
    assert (w.function, w.graphs, w.suggestion.bounds, w.suggestion.graphs) == \
        ("prefill", 36_864, {"seq_len": 128}, 2_304)
    assert w.message() == (
        "prefill: up to 36,864 CUDA graphs, over 4,096 (--warn-over-graphs); "
        "--capture-symbolic seq_len:128 bounds them to 2,304 (the largest power of two within "
        "4,096): 18 graph launch(es) keyed by seq_len (1..2,048, tir_var_upper_bound)")
    # --capture-symbolic seq_len:256 (the issue's): 18 x 256 = 4,608, still over 4,096; the
    # same suggestion, from the guard's bound.
    facts = _facts(text, "1b.relax", "seq_len:256")
    (w,) = check_graph_counts(facts).warnings
    assert (w.graphs, w.suggestion.option(), w.suggestion.graphs) == \
        (4_608, "--capture-symbolic seq_len:128", 2_304)
    assert "keyed by seq_len (1..256, guard)" in w.message()
    # ... and --fail-over-graphs 4608 passes it (not over), 4607 fails
    assert check_graph_counts(facts, fail_over=4608).failed is False
    assert check_graph_counts(facts, fail_over=4607).failed is True
    # the suggestion, given: 2,304, no warning
    facts = _facts(text, "1b.relax", "seq_len:128")
    assert _graphs(facts, "prefill") == 2_304 and check_graph_counts(facts).warnings == []


def test_unbounded_prefill_fails_any_gate(tmp_path):
    # prefill without its tir_var_upper_bound of seq_len, with --capture-symbolic seq_len:
    # nothing bounds seq_len, so the graphs are unbounded; seq_len:128 gives 18 x 128 = 2,304.
    path = _edited_1b(tmp_path, "unbounded.relax", '"seq_len": 2048, ', "")
    r = run_cli("diff", str(path), "--format", "json", "--capture-symbolic", "seq_len",
                "--fail-over-graphs", "1000000")
    assert r.returncode == 1
    assert _warnings(r.stderr) == [
        f"{path}:{PREFILL_AT}: warning: prefill: its CUDA graphs are unbounded; "
        "--capture-symbolic seq_len:128 bounds them to 2,304 (the largest power of two "
        "within 4,096): 18 graph launch(es) keyed by seq_len (unbounded)"]
    assert "cgraph diff: prefill makes unbounded CUDA graphs, over --fail-over-graphs " \
        "1,000,000" in r.stderr.decode()
    data = json.loads(r.stdout)
    assert data["graph_count"]["failed"] is True
    assert data["graph_count"]["warnings"] == [{
        "function": "prefill", "line": 4249, "column": 9, "graphs": "unbounded",
        "threshold": 4096, "keyed_launches": 18,
        "keyed_by": [{"name": "seq_len", "values": "unbounded", "least": 1, "bound_from": None,
                      "in_capture_hint": False}],
        "capture_hint": [],
        "suggestion": {"option": "--capture-symbolic seq_len:128", "bounds": {"seq_len": 128},
                       "graphs": 2304},
        "message": data["graph_count"]["warnings"][0]["message"]}]
    # the existing note on unbounded graphs stays as it was
    assert any(n.startswith("prefill: 18 graph launch(es) keyed by seq_len can make "
                            "unbounded graphs") for n in data["notes"])
    # the suggestion, given: 2,304 graphs, the gate at 2,304 passes
    r = run_cli("diff", str(path), "--format", "json", "--capture-symbolic", "seq_len:128",
                "--fail-over-graphs", "2304")
    assert r.returncode == 0, r.stderr.decode()
    assert {f["name"]: f["graphs_at_most"] for f in json.loads(r.stdout)["functions"]}[
        "prefill"] == 2304


def test_batch_verify_like_two_variable_hint(tmp_path):
    # prefill given MLC-LLM's batch_verify hint ["batch_size", "seq_len"]: its input
    # [1, seq_len, 2048] has no batch_size (nor has batch_verify's), so only seq_len keys its
    # graphs: 18 x 2048 = 36,864, as with --capture-symbolic seq_len, now from the input's
    # own attribute, which the warning says; seq_len:128 again gives 2,304.
    path = _edited_1b(tmp_path, "verify_like.relax", '"relax.force_pure": True, ',
                      f'"relax.force_pure": True, "{HINT}": ["batch_size", "seq_len"], ')
    r = run_cli("diff", str(path), "--format", "json")
    assert r.returncode == 0, r.stderr.decode()
    assert _warnings(r.stderr) == [
        f"{path}:{PREFILL_AT}: warning: prefill: up to 36,864 CUDA graphs, over 4,096 "
        "(--warn-over-graphs); --capture-symbolic seq_len:128 bounds them to 2,304 (the "
        "largest power of two within 4,096): 18 graph launch(es) keyed by seq_len (1..2,048, "
        f"tir_var_upper_bound), from its capture hint {HINT} [batch_size, seq_len] "
        "(batch_size keys none)"]
    (w,) = json.loads(r.stdout)["graph_count"]["warnings"]
    assert (w["capture_hint"], w["keyed_by"][0]["in_capture_hint"], w["graphs"]) == \
        (["batch_size", "seq_len"], True, 36864)
    # The bound on a hinted variable guards its launches as on any other: 2,304.
    facts = _facts(path.read_text(), "v.relax", "seq_len:128")
    assert _graphs(facts, "prefill") == 2_304 and check_graph_counts(facts).warnings == []


# ---- two keying variables (test_diff_symbolic_cost.TWO_VARS) --------------------------------

def test_two_keying_variables_bound_one_then_both():
    # One launch keyed by R.shape([m, n]): m 1..4 (bound 4), n 0..3 (bound 3,
    # tir_non_negative_var): 4 x 4 = 16 graphs.
    facts = _facts(TWO_VARS, "two.relax")
    assert _graphs(facts, "main") == 16
    # Within 5: m and n have 4 values each; m first (key order). m:1 gives 1 x 4 = 4 <= 5,
    # m:2 gives 2 x 4 = 8 > 5: m:1, 4 graphs.
    (w,) = check_graph_counts(facts, 5).warnings
    assert (w.suggestion.bounds, w.suggestion.graphs) == ({"m": 1}, 4)
    assert w.message().endswith("keyed by m (1..4, tir_var_upper_bound), n (0..3, "
                                "tir_var_upper_bound), from its capture hint "
                                f"{HINT} [m, n]; bounding m: it has the most values (4; n: 4)")
    # Within 3: m:1 leaves 4 > 3, so n too, the same MAX: m:1 (1 value), n:1 (0..1, 2
    # values): 2; MAX 2 gives 2 x 3 = 6 > 3.
    (w,) = check_graph_counts(facts, 3).warnings
    assert (w.suggestion.bounds, w.suggestion.graphs) == ({"m": 1, "n": 1}, 2)
    # Each suggestion, given, is the count diff then makes.
    assert _graphs(_facts(TWO_VARS, "two.relax", "m:1"), "main") == 4
    assert _graphs(_facts(TWO_VARS, "two.relax", "m:1", "n:1"), "main") == 2


def test_two_unbounded_variables_share_one_bound():
    # TWO_VARS without its tir_var_upper_bound: m and n unbounded, both must be bounded. The
    # same MAX P for both: m takes 1..P (P values), n 0..P (P + 1): P * (P + 1) <= 4096 for
    # P = 32 (1,056), not 64 (4,160).
    text = TWO_VARS.replace(', "tir_var_upper_bound": {"m": 4, "n": 3}', "")
    assert text != TWO_VARS
    facts = _facts(text, "two.relax")
    assert _graphs(facts, "main") is None
    (w,) = check_graph_counts(facts).warnings
    assert (w.graphs, w.suggestion.bounds, w.suggestion.graphs) == \
        (None, {"m": 32, "n": 32}, 1_056)
    assert w.message().endswith("; bounding m: nothing else bounds it, n: nothing else "
                                "bounds it")
    assert w.suggestion.option() == "--capture-symbolic m:32 --capture-symbolic n:32"
    assert _graphs(_facts(text, "two.relax", "m:32", "n:32"), "main") == 1_056


def test_within_the_threshold_nothing_is_suggested():
    facts = _facts(TWO_VARS, "two.relax")
    main = facts.functions[0]
    assert suggest_bounds(main.keyed, main.unkeyed_launches, 16) is None
    assert suggest_bounds(main.keyed, main.unkeyed_launches, 15).bounds == {"m": 2}  # 2 x 4 = 8


# ---- MLC-LLM's batch_verify hint at full size (the corpus of issue 34, branch dense1) --------

# (sample, batch_verify's graph launches in TVM's own rewrite, the MAX suggested, its graphs)
# Each launch of batch_verify in TVM's rewrite (the .after file, counted below) is keyed by
# R.shape([seq_len]), bound 2048 by tir_var_upper_bound (MLC-LLM's prefill_chunk_size):
# - Llama-3.1-8B over 2 shards: 34 x 2,048 = 69,632 (issue 34's figure); 34 x 64 = 2,176
#   <= 4,096 < 34 x 128 = 4,352: seq_len:64.
# - Gemma-2-2B: 27 x 2,048 = 55,296 (issue 34's figure); 27 x 128 = 3,456 <= 4,096 <
#   27 x 256 = 6,912: seq_len:128.
BATCH_VERIFY = [("mlc_llama_8b_tp2", 34, 69_632, 64, 2_176),
                ("mlc_gemma2_2b", 27, 55_296, 128, 3_456)]


@pytest.mark.parametrize("sample, launches, graphs, most, bounded", BATCH_VERIFY,
                         ids=[s[0] for s in BATCH_VERIFY])
def test_mlc_batch_verify_hint_at_full_size(sample, launches, graphs, most, bounded):
    before, after = REAL_DIR / f"{sample}.before.relax", REAL_DIR / f"{sample}.after.relax"
    if not before.exists():
        pytest.skip(f"{before.name} comes with the corpus of issue 34 (branch dense1)")
    text = before.read_text()
    verify = after.read_text().split("\n    def batch_verify(", 1)[1].split("\n    def ", 1)[0]
    assert verify.count("vm.builtin.cuda_graph.run_or_capture") == launches
    line = text.split("\n").index(next(ln for ln in text.split("\n")
                                       if ln.startswith("    def batch_verify("))) + 1
    facts = _facts(text, sample)
    (w,) = [w for w in check_graph_counts(facts).warnings if w.function == "batch_verify"]
    assert (w.graphs, w.keyed_launches, w.suggestion.bounds, w.suggestion.graphs,
            w.loc.line, w.loc.col) == (graphs, launches, {"seq_len": most}, bounded, line, 9)
    assert w.message() == (
        f"batch_verify: up to {graphs:,} CUDA graphs, over 4,096 (--warn-over-graphs); "
        f"--capture-symbolic seq_len:{most} bounds them to {bounded:,} (the largest power of "
        f"two within 4,096): {launches} graph launch(es) keyed by seq_len (1..2,048, "
        f"tir_var_upper_bound), from its capture hint {HINT} [batch_size, seq_len] "
        "(batch_size keys none)")
    # the bound, given: batch_verify's count is the one predicted
    assert _graphs(_facts(text, sample, f"seq_len:{most}"), "batch_verify") == bounded
