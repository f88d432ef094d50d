"""cgraph diff: its numbers agree with the rewritten module; every reason shows; every view."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from conftest import ROOT, run_cli
from cudagraph_cli import ir
from cudagraph_cli.gen import decode_module
from cudagraph_cli.text.reader import parse_module
from cudagraph_cli.passes.explain import REASON_CODES
from cudagraph_cli.passes.options import RewriteOptions
from cudagraph_cli.passes.pipeline import rewrite
from cudagraph_cli.report.analysis import analyze
from cudagraph_cli.report.views import to_json
from module_gen import random_module
from test_rewrite import DATAFLOW_THEN_OTHER, EVERY_REASON

REAL_DIR = ROOT / "samples" / "real"
TVM_DIR = ROOT / "samples" / "tvm"
SAMPLES = sorted(TVM_DIR.glob("*_before.relax"))


def count_in_rewrite(out: ir.Module) -> dict:
    """Independently of report/analysis.py: per function, graphs launched and the kernel
    launches inside them; bytes allocated by the shared allocation function, per scope."""
    prims = {f.name for f in out.functions if isinstance(f, ir.PrimFunc)}

    def kernels(f):
        n = 0
        for blk in f.blocks:
            for b in blk.bindings:
                v = b.value
                if not isinstance(v, ir.Call):
                    continue
                if isinstance(v.op, ir.GlobalVarRef) and v.op.name in prims:
                    n += 1
                elif isinstance(v.op, ir.ExternFunc) and not v.op.name.startswith("vm.builtin"):
                    n += 1
        return n

    result = {"functions": {}, "memory": {}}
    alloc_fns = set()
    for f in out.relax_functions():
        graphs = captured = 0
        for blk in f.blocks:
            for b in blk.bindings:
                v = b.value
                if isinstance(v, ir.Call) and isinstance(v.op, ir.Op) and \
                        v.op.name == "relax.call_builtin_with_ctx":
                    target = v.args[1].fields[0].name
                    if v.args[0].name == "vm.builtin.cuda_graph.run_or_capture":
                        graphs += 1
                        captured += kernels(out.function(target))
                    else:
                        alloc_fns.add(target)
        result["functions"][f.name] = (graphs, captured)
    for name in alloc_fns:
        for blk in out.function(name).blocks:
            for b in blk.bindings:
                v = b.value
                if isinstance(v, ir.Call) and v.op.name == "relax.memory.alloc_storage":
                    scope = v.args[2].value
                    result["memory"][scope] = result["memory"].get(scope, 0) + \
                        v.args[0].values[0].value
    return result


def check_numbers(original: ir.Module, out: ir.Module, report):
    expected = count_in_rewrite(out)
    for facts in (analyze(original, out, report), analyze(original, out, None)):
        data = to_json(facts, "m")
        for fj in data["functions"]:
            graphs, captured = expected["functions"][fj["name"]]
            assert (fj["regions"], fj["captured"]) == (graphs, captured), fj["name"]
            # Every binding marked as in a graph is there; as many kernels as counted.
            marked = [b for b in fj["bindings"] if b["region"] is not None
                      and b["launch"] == "kernel"]
            assert len(marked) == captured, fj["name"]
        assert {s: m["static_bytes"] for s, m in data["memory"].items()
                if m["static_bytes"]} == expected["memory"]
        assert data["totals"]["captured"] == sum(c for _, c in expected["functions"].values())


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_numbers_agree_with_the_rewritten_module(path):
    original = parse_module(path.read_text())
    out, report = rewrite(original)
    check_numbers(original, out, report)


@pytest.mark.parametrize("seed", range(30))
def test_numbers_agree_on_generated_modules(seed):
    original = parse_module(random_module(seed))
    out, report = rewrite(original)
    check_numbers(original, out, report)


@pytest.mark.parametrize("case", ["tuple", "vm_builtin", "rewrite_cuda_graph",
                                  "merge_alloc_funcs", "dynamic_capture"])
def test_given_pair_from_tvm(case):
    """A pair whose OUT TVM wrote: the graphs are found by matching names."""
    original = parse_module((TVM_DIR / f"{case}_before.relax").read_text())
    expected = parse_module((TVM_DIR / f"{case}_expected.relax").read_text())
    ours, report = rewrite(original)
    by_plan = to_json(analyze(original, ours, report), "m")
    by_match = to_json(analyze(original, expected, None), "m")
    for a, b in zip(by_plan["functions"], by_match["functions"]):
        assert [x["region"] for x in a["bindings"]] == [x["region"] for x in b["bindings"]]
        assert [x["slot"] for x in a["bindings"]] == [x["slot"] for x in b["bindings"]]


def test_every_reason_code_shows_in_the_diff():
    seen = set()
    facts = analyze(*_rewritten(EVERY_REASON, min_kernels=2, exclude=("k_excluded",)))
    seen |= {b["reason"]["code"] for f in to_json(facts, "m")["functions"]
             for b in f["bindings"] if b["reason"]}
    dataflow = DATAFLOW_THEN_OTHER
    facts = analyze(*_rewritten(dataflow, functions=("main",)))
    seen |= {b["reason"]["code"] for f in to_json(facts, "m")["functions"]
             for b in f["bindings"] if b["reason"]}
    # open-dataflow-region is TVM's planning (--compat tvm); cgraph opens no region there
    original = parse_module(dataflow)
    out, report = rewrite(original, RewriteOptions.tvm_compat(functions=("main",)))
    seen |= {b["reason"]["code"] for f in to_json(analyze(original, out, report),
                                                   "m")["functions"]
             for b in f["bindings"] if b["reason"]}
    assert seen == set(REASON_CODES), set(REASON_CODES) - seen


def test_already_rewritten_module_is_refused_by_the_one_file_diff():
    """A rewrite's output given alone: its capture functions would count as the model's and
    its graphs' kernels as kernels to capture again (TVM's rewrite of the 1B model showed
    `total 193 -> 294`, 'saved by sharing' -667,947,008 and passed --fail-under 0.5: issue
    26). Refused, located at the first function that launches graphs, exit 2, one line."""
    after = REAL_DIR / "mlc_llama_1b.after.relax"
    line = next(i for i, ln in enumerate(after.read_text().splitlines(), 1)
                if ln.startswith("    def batch_decode("))
    for extra in ([], ["--summary", "--fail-under", "0.5"], ["--format", "html"]):
        r = run_cli("diff", str(after), *extra)
        assert r.returncode == 2 and r.stdout == b""
        first = r.stderr.decode().splitlines()[0]
        assert first.startswith(f"{after}:{line}:9: error: 'batch_decode' already launches CUDA "
                                "graphs"), first
    j = json.loads(run_cli("diff", str(after), "--format", "json").stdout)
    assert j["error"]["line"] == line
    # both files given: what the rewrite did, as before
    assert run_cli("diff", str(REAL_DIR / "mlc_llama_1b.before.relax"), str(after),
                   "--summary").returncode == 0


def test_already_rewritten_module_gets_one_note_from_rewrite():
    """rewrite is idempotent: a module that already launches CUDA graphs is left as it is,
    with one note saying why."""
    path = TVM_DIR / "vm_builtin_expected.relax"
    r = run_cli("rewrite", str(path), "--explain", "-o", os.devnull)
    assert r.returncode == 0
    assert r.stderr.decode().splitlines() == [
        f"{path}: note: the module already launches CUDA graphs (vm.builtin.cuda_graph.*); "
        "left as it is"]


def _rewritten(text: str, **options):
    original = parse_module(text)
    out, report = rewrite(original, RewriteOptions(**options))
    return original, out, report


# ---- the command line ------------------------------------------------------------------------

def test_terminal_view_plain_when_not_a_tty():
    r = run_cli("diff", str(TVM_DIR / "vm_builtin_before.relax"))
    text = r.stdout.decode()
    assert r.returncode == 0 and "\x1b[" not in text
    assert "function main: 1 of 3 kernel launches captured in 1 graph(s)" in text
    assert " R0  ┌ _2: R.Tuple = cls.exp(alloc, alloc1)" in text
    assert "-> cuda_graph_alloc slot 0" in text
    assert "<- vm-builtin:" in text and "3 -> 3" in text


def test_no_color_even_when_forced(tmp_path):
    r = run_cli("diff", str(TVM_DIR / "vm_builtin_before.relax"), env={"NO_COLOR": "1"})
    assert r.returncode == 0 and b"\x1b[" not in r.stdout


def test_folding_and_function_filter(tmp_path):
    src = tmp_path / "decode.relax"
    src.write_text(decode_module(layers=3, kernels_per_layer=12))
    folded = run_cli("diff", str(src), "--function", "decode", "--fold", "4").stdout.decode()
    assert "more bindings in graph R1 ..." in folded
    full = run_cli("diff", str(src), "--fold", "0").stdout.decode()
    assert "more bindings" not in full and len(full.splitlines()) > len(folded.splitlines())
    bad = run_cli("diff", str(src), "--function", "nope")
    assert bad.returncode == 2 and b"Traceback" not in bad.stderr


def test_fail_under_gate():
    path = str(TVM_DIR / "vm_builtin_before.relax")  # 1 of 3 launches captured
    assert run_cli("diff", path, "--summary", "--fail-under", "0.3").returncode == 0
    r = run_cli("diff", path, "--summary", "--fail-under", "0.5")
    assert r.returncode == 1 and b"below --fail-under 50.0%" in r.stderr


def test_json_schema():
    r = run_cli("diff", str(TVM_DIR / "merge_alloc_funcs_before.relax"), "--format", "json")
    data = json.loads(r.stdout)
    assert data["schema"] == 1 and set(data) == {"schema", "module", "functions", "totals",
                                                 "memory", "notes"}
    assert data["totals"] == {"kernel_launches": 2, "captured": 2, "captured_ratio": 1.0,
                              "regions": 2, "host_launches_before": 2,
                              "host_launches_after": 2}
    assert data["memory"]["global"] == {"static_bytes": 768, "unshared_bytes": 1152,
                                        "saved_bytes": 384}
    f = data["functions"][0]
    assert set(f) == {"name", "kernel_launches", "captured", "captured_ratio", "regions",
                      "graph_launches_per_call", "host_launches_before",
                      "host_launches_after", "reasons", "bindings"}
    assert set(f["bindings"][0]) == {"line", "text", "region", "slot", "launch", "reason"}


def test_unified_view(tmp_path):
    r = run_cli("diff", str(TVM_DIR / "vm_builtin_before.relax"), "--format", "unified")
    text = r.stdout.decode()
    assert r.returncode == 0 and text.startswith("--- ")
    assert "+    def cuda_graph_alloc() -> R.Tuple(R.Any, R.Any):" in text


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def test_html_view_renders_in_headless_chromium(tmp_path):
    page = tmp_path / "report.html"
    r = run_cli("diff", str(TVM_DIR / "merge_alloc_funcs_before.relax"), "--format", "html",
                "-o", str(page))
    assert r.returncode == 0 and r.stdout == b""
    html_text = page.read_text()
    assert "http://" not in html_text and "https://" not in html_text  # self-contained
    browser = _chromium()
    if browser is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is required on CI (make test installs Debian's chromium)")
        pytest.skip("chromium not installed (make test installs it)")
    dom = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                          "--dump-dom", page.as_uri()], capture_output=True, timeout=120)
    assert dom.returncode == 0, dom.stderr.decode()[-2000:]
    shown = dom.stdout.decode()
    assert "2 of 2 kernel launches captured (100%) in 2 graph(s)" in shown
    assert "<td>func1</td><td>1</td><td>1</td><td>100%</td>" in shown
    assert "cuda_graph_alloc slot" in shown
    shot = tmp_path / "shot.png"
    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                    f"--screenshot={shot}", "--window-size=1200,900", page.as_uri()],
                   capture_output=True, timeout=120)
    assert shot.exists() and shot.stat().st_size > 10_000


# ---- why, in aggregate (issue 26, item 2) ----------------------------------------------------

MLC_LLAMA = REAL_DIR / "mlc_llama_1b.before.relax"


def _prefill_causes_from_text() -> dict:
    """Independently of cgraph: for each kernel launch of the Llama prefill (a `cls.NAME(...)`
    line), the first argument that changes between calls, read from TVM's text alone (aliases
    followed): the function input, a buffer of R.builtin.alloc_tensor, an
    R.memory.alloc_tensor whose shape mentions seq_len, or an R.reshape (of such a buffer)."""
    import re

    body = MLC_LLAMA.read_text().split("    def prefill(")[1].split("\n    @R.function")[0]
    defs, counts = {}, {}
    for ln in (x.strip() for x in body.splitlines()[1:]):
        m = re.match(r"(\w+): .*? = (.*)$", ln)
        if m:
            defs[m.group(1)] = m.group(2)
            continue
        m = re.match(r"cls\.\w+\((.*)\)$", ln)
        for a in ([x.strip() for x in m.group(1).split(",")] if m else []):
            while re.fullmatch(r"\w+", defs.get(a, "")):
                a = defs[a]
            d = defs.get(a, "")
            cause = ("param-input" if a == "input_embed" else
                     "dynamic-alloc" if d.startswith("R.builtin.alloc_tensor") else
                     "symbolic-shape" if d.startswith("R.memory.alloc_tensor") and
                     "seq_len" in d else
                     "non-static-input" if d.startswith("R.reshape") else None)
            if cause:
                counts[cause] = counts.get(cause, 0) + 1
                break
    return counts


def test_real_prefill_reasons_are_counted_and_name_seq_len():
    # 97 kernel launches of prefill write a buffer of shape (..., seq_len, ...): counted from
    # the text by _prefill_causes_from_text, which gives 97 symbolic-shape, 16 reshapes,
    # 1 input_embed, 1 alloc_tensor (alloc586); the 16 vm.builtin attention calls are the rest.
    by_text = _prefill_causes_from_text()
    assert by_text == {"symbolic-shape": 97, "non-static-input": 16, "param-input": 1,
                       "dynamic-alloc": 1}
    r = run_cli("diff", str(MLC_LLAMA), "--function", "prefill", "--format", "json")
    assert r.returncode == 0, r.stderr.decode()
    data = json.loads(r.stdout)
    assert [f["name"] for f in data["functions"]] == ["prefill"]
    reasons = {x["code"]: x for x in data["functions"][0]["reasons"]}
    assert reasons["symbolic-shape"] == {"code": "symbolic-shape", "count": 97,
                                         "names": ["seq_len"]}
    assert reasons["param-input"]["names"] == ["input_embed"]
    assert reasons["dynamic-alloc"]["names"] == ["alloc586"]
    assert reasons["vm-builtin"]["count"] == 16
    assert {c: x["count"] for c, x in reasons.items() if c != "vm-builtin"} == by_text
    symbolic = [b["reason"] for b in data["functions"][0]["bindings"]
                if b["reason"] and b["reason"]["code"] == "symbolic-shape"]
    assert len(symbolic) == 97
    assert all("seq_len (from the shape of parameter 'input_embed')" in x["message"]
               and x["names"] == ["seq_len"] for x in symbolic)
    # the reshapes say what made them so, not only that they are computed each call
    reshapes = [b["reason"]["message"] for b in data["functions"][0]["bindings"]
                if b["reason"] and b["reason"]["code"] == "non-static-input"]
    assert len(reshapes) == 16 and all("seq_len" in m for m in reshapes)


def test_real_reasons_in_terminal_html_and_explain(tmp_path):
    term = run_cli("diff", str(MLC_LLAMA), "--summary", env={"COLUMNS": "200"})
    assert term.returncode == 0, term.stderr.decode()
    rows = [ln for ln in term.stdout.decode().splitlines() if "symbolic-shape" in ln]
    assert len(rows) == 1 and "prefill" in rows[0] and " 97 " in rows[0] and "seq_len" in rows[0]
    page = tmp_path / "r.html"
    assert run_cli("diff", str(MLC_LLAMA), "--format", "html", "-o", str(page)).returncode == 0
    assert "<tr><td>prefill</td><td>symbolic-shape</td><td>97</td><td>seq_len</td></tr>" in \
        page.read_text()
    explain = run_cli("rewrite", str(MLC_LLAMA), "--explain", "-o", str(tmp_path / "o.relax"))
    summary = [ln for ln in explain.stderr.decode().splitlines()
               if ln.startswith(f"{MLC_LLAMA}: prefill: left outside: ")]
    assert len(summary) == 1 and "symbolic-shape: 97 (seq_len)" in summary[0]
    assert "param-input: 1 (input_embed)" in summary[0]


def test_small_module_reasons_counted_per_function():
    facts = analyze(*_rewritten(EVERY_REASON, min_kernels=2, exclude=("k_excluded",)))
    data = to_json(facts, "m")
    main = next(f for f in data["functions"] if f["name"] == "main")
    counted = {x["code"]: (x["count"], x["names"]) for x in main["reasons"]}
    # k_param and k_makes both take the input y; the other causes one launch each
    assert counted["param-input"] == (2, ["y"])
    assert counted["symbolic-shape"] == (1, ["n"])
    assert counted["dynamic-storage"] == (1, ["s"])
    assert counted["non-static-input"] == (1, ["q"])
    assert sum(n for n, _ in counted.values()) == sum(
        1 for b in main["bindings"] if b["reason"])
    helper = next(f for f in data["functions"] if f["name"] == "helper")
    assert helper["reasons"] == []


# ---- --function in every view (issue 26, item 3) ---------------------------------------------

def test_function_selects_in_every_view(tmp_path):
    src = tmp_path / "m.relax"
    src.write_text(decode_module(layers=2, kernels_per_layer=4, functions=("prefill", "decode"),
                                 hidden=64))
    whole = json.loads(run_cli("diff", str(src), "--format", "json").stdout)
    assert [f["name"] for f in whole["functions"]] == ["prefill", "decode"]
    data = json.loads(run_cli("diff", str(src), "--function", "decode", "--format",
                              "json").stdout)
    assert [f["name"] for f in data["functions"]] == ["decode"]
    assert data["functions"][0] == whole["functions"][1]
    # the totals are the selected function's (they gate --fail-under)
    assert data["totals"]["kernel_launches"] == whole["functions"][1]["kernel_launches"] < \
        whole["totals"]["kernel_launches"]
    page = run_cli("diff", str(src), "--function", "decode", "--format", "html").stdout.decode()
    assert "function decode" in page and "prefill" not in page
    unified = run_cli("diff", str(src), "--function", "decode", "--format",
                      "unified").stdout.decode()
    assert "def decode(" in unified and "prefill" not in unified
    assert "prefill" in run_cli("diff", str(src), "--format", "unified").stdout.decode()
    term = run_cli("diff", str(src), "--function", "decode", env={"COLUMNS": "200"})
    assert "decode" in term.stdout.decode() and "prefill" not in term.stdout.decode()


def test_real_unified_function_holds_its_capture_functions_only():
    text = run_cli("diff", str(MLC_LLAMA), "--function", "decode", "--format",
                   "unified").stdout.decode()
    defs = {ln.split("def ")[1].split("(")[0] for ln in text.splitlines() if "    def " in ln}
    assert "decode" in defs and "cuda_graph_alloc" in defs
    assert not defs & {"prefill", "batch_decode", "embed", "create_tir_paged_kv_cache"}
    assert all(d in ("decode", "cuda_graph_alloc") or d.startswith("decode_cuda_graph")
               for d in defs), defs


def test_unknown_function_is_a_usage_error_listing_the_functions():
    r = run_cli("diff", str(MLC_LLAMA), "--function", "matmul9", "--format", "json")
    err = r.stderr.decode()
    assert r.returncode == 2 and "Traceback" not in err
    # matmul9 is a PrimFunc of the module: no Relax function, so no listing to show
    assert "no Relax function named matmul9 in" in err
    assert "(it has batch_decode, create_tir_paged_kv_cache, decode, embed, prefill)" in err
