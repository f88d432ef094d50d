"""`cgraph diff` of a bucketed rewrite (`--capture-buckets`; report/bucket_facts.py,
report/bucket_view.py): graphs counted per bucket, against one per value, the padding, what
runs as before and why; in the terminal, JSON and HTML; the graph-count warning counts buckets.

tests/buckets/rows.relax with `n:2,4,8` (n's tir_var_upper_bound 16): two graphs launched once
each per call are keyed by n's bucket. By hand: 3 graphs each (the buckets), 8 for exact capture
to the last bucket, 16 for TVM's hint; padding sum_{n=1..8} B(n) / sum n =
(2 + 2 + 4 + 4 + 8 + 8 + 8 + 8) / 36 = 44 / 36."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_runner import cgraph

from cudagraph_cli import api
from cudagraph_cli.passes.options import RewriteOptions
from cudagraph_cli.report.rewrite_of import options_of

ROOT = Path(__file__).resolve().parent.parent
ROWS = ROOT / "tests" / "buckets" / "rows.relax"
REAL = ROOT / "samples" / "real"


def diff_json(*args) -> dict:
    r = cgraph("diff", *args, "--format", "json")
    assert r.exit_code == 0, r.stderr
    return json.loads(r.stdout)


def test_sites_graphs_padding_and_what_runs_as_before():
    data = diff_json(ROWS, "--capture-buckets", "n:2,4,8")
    [main] = data["functions"]
    sites = main["buckets"]["sites"]
    assert [s["capture_function"] for s in sites] == ["main_cuda_graph_capture",
                                                       "main_cuda_graph_capture1"]
    for s in sites:
        assert s["buckets"] == [2, 4, 8] and s["launches"] == 1 and s["upper_bound"] == 16
        assert s["graphs"] == {"bucketed": 3, "exact": 8, "tvm_hint": 16}
        assert abs(s["padding"] - 44 / 36) < 1e-6
    assert main["graphs_at_most"] == 6
    [kept] = main["buckets"]["not_bucketed"]
    assert kept["kernels"] == ["cumsum", "last_row"] and kept["kept_exact"] is False
    assert kept["reason"].startswith("kernel cumsum is not row-wise: block 'cumsum': the "
                                     "reduction iterator vk")
    keys = [k["keys"] for k in main["keyed_graphs"]]
    assert keys == [[{"name": "n_bucket", "values": 3, "least": 2,
                      "bound_from": "buckets"}]] * 2


def test_the_rewritten_file_alone_is_read_back_from_its_text(tmp_path):
    out = tmp_path / "rows.buckets.relax"
    assert cgraph("rewrite", ROWS, "--capture-buckets", "n:2,4,8", "-o", out).exit_code == 0
    [main] = diff_json(ROWS, out)["functions"]
    assert [s["graphs"]["bucketed"] for s in main["buckets"]["sites"]] == [3, 3]
    # What runs as before, and why: the rewrite's own words, as the one-file form gives them
    [kept] = main["buckets"]["not_bucketed"]
    assert kept["kernels"] == ["cumsum", "last_row"] and kept["kept_exact"] is False


def test_terminal_and_html(tmp_path):
    r = cgraph("diff", ROWS, "--capture-buckets", "n:2,4,8", "--summary",
               env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.stderr
    row = next(ln for ln in r.stdout.splitlines() if "main_cuda_graph_capture1 " in ln and
               "2, 4, 8" in ln)
    assert row.split("│")[6:10] == ["      3 ", "     8 ", "         16 ", "   1.22x "]
    assert "not bucketed: main: cumsum, last_row not bucketed (eagerly): kernel cumsum is " \
        "not row-wise" in r.stdout
    page = tmp_path / "d.html"
    assert cgraph("diff", ROWS, "--capture-buckets", "n:2,4,8", "--format", "html", "-o",
                  page).exit_code == 0
    text = page.read_text()
    assert "<tr><td>main</td><td>main_cuda_graph_capture</td><td>1</td><td>n</td>" \
        "<td>2, 4, 8</td><td>3</td><td>8</td><td>16</td><td>1.22x</td></tr>" in text
    assert "<li>not bucketed: main: cumsum, last_row not bucketed (eagerly)" in text


def test_the_graph_count_warning_counts_buckets():
    r = cgraph("diff", ROWS, "--capture-buckets", "n:2,4,8", "--warn-over-graphs", "4",
               "--summary")
    warning = next(ln for ln in r.stderr.splitlines() if "warning: main" in ln)
    assert "up to 6 CUDA graphs, over 4" in warning
    assert "a shorter --capture-buckets list does" in warning
    assert "n_bucket (3 buckets, --capture-buckets)" in warning
    quiet = cgraph("diff", ROWS, "--capture-buckets", "n:2,4,8", "--warn-over-graphs", "6",
                   "--summary")
    assert "warning" not in quiet.stderr


def test_llama_prefill_and_decode_at_the_goals():
    """The issue's goals on the 1B dump: batch_decode at most 24 graphs a site (7 at the corpus
    bound of 32), prefill in graphs for every seq_len up to 2,048 with at most 40 buckets."""
    data = diff_json(REAL / "mlc_llama_1b.before.relax", "--capture-buckets", "seq_len:auto",
                     "--capture-buckets", "batch_size:auto")
    by_name = {f["name"]: f for f in data["functions"]}
    for s in by_name["prefill"]["buckets"]["sites"]:
        assert len(s["buckets"]) == 31 and s["buckets"][-1] == 2048
        assert s["graphs"]["tvm_hint"] == 2048 * s["launches"]
    for s in by_name["batch_decode"]["buckets"]["sites"]:
        assert s["buckets"] == [1, 2, 4, 8, 16, 24, 32]
    assert [n["kernels"] for n in by_name["prefill"]["buckets"]["not_bucketed"]] == [["index"]]


@pytest.fixture(scope="module")
def llama_prefill_bucketed():
    """The 1B's dump, its rewrite with --capture-buckets seq_len:auto (report and text, read
    back as the two-file form reads OUT)."""
    original = api.load(REAL / "mlc_llama_1b.before.relax")
    out, report = api.rewrite(original, RewriteOptions(capture_buckets=("seq_len:auto",)))
    return original, api.loads(api.print_module(out)), report


def test_both_forms_give_the_rewrites_own_reason_for_each_launch(llama_prefill_bucketed):
    """Issue 52: `diff before after` said symbolic-shape and non-static-input where `rewrite
    --explain` said not-row-wise; every form now gives the rewrite's reasons."""
    original, rewritten, report = llama_prefill_bucketed
    own = {(r.function, r.binding.loc.line): (r.code, r.message) for r in report.reasons}
    for facts in (api.diff(original, rewritten),
                  api.diff(original, options=RewriteOptions(capture_buckets=("seq_len:auto",)))):
        given = {(f.name, b.line): b.reason[:2] for f in facts.functions for b in f.bindings
                 if b.reason}
        assert given == own
        prefill = next(f for f in facts.functions if f.name == "prefill")
        assert [code for code, _, _ in prefill.reasons] == \
            ["vm-builtin", "param-input", "dynamic-alloc", "not-row-wise"]
        assert [n["kernels"] for n in map(vars, prefill.not_bucketed)] == [("index",)]
    code, message = next(v for (f, _), v in own.items() if f == "prefill" and
                         v[0] == "not-row-wise")
    assert "kernel index is not row-wise: block 'index'" in message


def test_the_options_read_back_from_a_rewrite(llama_prefill_bucketed):
    original, rewritten, _ = llama_prefill_bucketed
    assert options_of(original, rewritten).capture_buckets == (("seq_len", "auto"),)
    assert options_of(original, original) == RewriteOptions()
    r = cgraph("rewrite", ROWS, "--capture-buckets", "n:2,4", "--capture-symbolic", "n:12")
    assert r.exit_code == 0, r.stderr
    read = options_of(api.load(ROWS), api.loads(r.stdout))
    assert (read.capture_buckets, read.capture_symbolic) == ((("n", (2, 4)),), (("n", 12),))


def test_every_table_stacks_at_80_columns_and_the_rows_add_up():
    """Issue 52: at 80 columns the bucketed table was cut (`captu…`, `funct…`, `28,6…`), and
    the keyed table's rows (18 sites, 558 graphs) did not add up to its total (19, 559)."""
    r = cgraph("diff", REAL / "mlc_llama_1b.before.relax", "--capture-buckets", "seq_len:auto",
               "--summary", env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.stderr
    assert "…" not in r.stdout and max(map(len, r.stdout.splitlines())) <= 80
    keyed = r.stdout[r.stdout.index("graphs keyed by"):r.stdout.index("bucketed graphs")]
    blocks = keyed.split("\nprefill\n")
    assert "  exact             28,672" in r.stdout  # the bucketed table, stacked
    sites = [int(b.split("  sites")[1].split()[0]) for b in blocks[1:] if "  sites" in b]
    graphs = [int(b.split("graphs at most")[1].split()[0].replace(",", ""))
              for b in blocks[1:] if "graphs at most" in b]
    assert sum(sites[:-1]) == sites[-1] == 19 and sum(graphs[:-1]) == graphs[-1] == 559
    assert "  capture function  not keyed (one graph each)" in r.stdout


def test_options_the_rewrite_refuses_fall_back_to_the_default_reasons(monkeypatch, tmp_path):
    """A module edited by hand may show options the rewrite refuses: its reasons are then the
    default rewrite's, as for TVM's output, never an error of diff's."""
    from cudagraph_cli.report import analysis

    out = tmp_path / "rows.buckets.relax"
    assert cgraph("rewrite", ROWS, "--capture-buckets", "n:2,4,8", "-o", out).exit_code == 0
    monkeypatch.setattr(analysis, "options_of",
                        lambda a, b: RewriteOptions(capture_symbolic=("no_such_var",)))
    [main] = diff_json(ROWS, out)["functions"]
    assert main["buckets"]["not_bucketed"] == []  # the default rewrite buckets nothing
