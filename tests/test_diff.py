"""cgraph diff: its numbers agree with the rewritten module; every reason shows; every view."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from conftest import ROOT, chromium_or_skip, run_cli
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
    # not-row-wise: --capture-buckets on kernels that mix rows (tests/buckets/rows.relax)
    rows = parse_module((ROOT / "tests" / "buckets" / "rows.relax").read_text())
    out, report = rewrite(rows, RewriteOptions(capture_buckets=("n:2,4,8",)))
    seen |= {b["reason"]["code"] for f in to_json(analyze(rows, out, report), "m")["functions"]
             for b in f["bindings"] if b["reason"]}
    assert seen == set(REASON_CODES), set(REASON_CODES) - seen


def test_already_rewritten_module_is_refused_by_the_one_file_diff():
    """A rewrite's output given alone: its capture functions would count as the model's and
    its graphs' kernels as kernels to capture again (TVM's rewrite of the 1B model showed
    `total 193 -> 294`, 'saved by sharing' -667,947,008 and passed --fail-under 0.5).
    Refused, located at the first function that launches graphs, exit 2, one line."""
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
    assert "function main: 1 of 3 kernel launches captured in 1 graph launch" in text
    assert " R0   ┌ _2: R.Tuple = cls.exp(alloc, alloc1)" in text
    assert "-> cuda_graph_alloc slot 0" in text
    assert "✗ vm-builtin:" in text
    # main's host work, by hand: 3 calls of cls.exp and vm.builtin.dummy (a builtin not known
    # to launch nothing counts) before; after, _2 in one graph: 2 kernels, 1 graph, the builtin
    assert "4 -> 4" in text and "1 of 3 (33.3%)" in text
    assert "1 of them a single kernel, saving nothing (--min-kernels 2)" in text


def test_no_color_even_when_forced(tmp_path):
    r = run_cli("diff", str(TVM_DIR / "vm_builtin_before.relax"), env={"NO_COLOR": "1"})
    assert r.returncode == 0 and b"\x1b[" not in r.stdout


def test_folding_and_function_filter(tmp_path):
    src = tmp_path / "decode.relax"
    src.write_text(decode_module(layers=3, kernels_per_layer=12))
    folded = run_cli("diff", str(src), "--function", "decode", "--fold", "4").stdout.decode()
    assert "more bindings in graph R1" in folded
    full = run_cli("diff", str(src), "--fold", "0").stdout.decode()
    assert "more bindings" not in full and len(full.splitlines()) > len(folded.splitlines())
    bad = run_cli("diff", str(src), "--function", "nope")
    assert bad.returncode == 2 and b"Traceback" not in bad.stderr


def test_fail_under_gate():
    path = str(TVM_DIR / "vm_builtin_before.relax")  # 1 of 3 launches captured
    # ... in a graph of one kernel: host work 4 -> 4 (test_terminal_view_plain_when_not_a_tty),
    # nothing removed, so any gate above 0 fails; the captured ratio's gate is still there.
    assert run_cli("diff", path, "--summary", "--fail-under", "0").returncode == 0
    r = run_cli("diff", path, "--summary", "--fail-under", "0.01")
    assert r.returncode == 1
    assert r.stderr.decode() == ("cgraph diff: host work per call 4 -> 4 (0.0% removed), below "
                                 "--fail-under 1.0%\n")
    assert run_cli("diff", path, "--summary", "--fail-under-captured", "0.3").returncode == 0
    r = run_cli("diff", path, "--summary", "--fail-under-captured", "0.5")
    assert r.returncode == 1 and b"below --fail-under-captured 50.0%" in r.stderr
    # --min-kernels 2 leaves the one-kernel graph out: 3 kernels and the builtin, 4 -> 4 still
    j = json.loads(run_cli("diff", path, "--format", "json", "--min-kernels", "2").stdout)
    assert (j["totals"]["host_work_before"], j["totals"]["host_work_after"],
            j["totals"]["single_kernel_graphs"], j["totals"]["regions"]) == (4, 4, 0, 0)


def test_json_schema():
    r = run_cli("diff", str(TVM_DIR / "merge_alloc_funcs_before.relax"), "--format", "json")
    data = json.loads(r.stdout)
    assert data["schema"] == 1 and set(data) == {"schema", "module", "functions", "totals",
                                                 "memory", "graph_count", "notes"}
    # func1 and func2 each launch one packed call ("dummy": not a vm.builtin, a kernel), each
    # lifted alone into a graph: a graph launch where a kernel launch was, nothing removed.
    assert data["totals"] == {"kernel_launches": 2, "captured": 2, "captured_ratio": 1.0,
                              "regions": 2, "host_launches_before": 2,
                              "host_launches_after": 2, "kernel_launches_after": 0,
                              "builtins_before": 0, "builtins_after": 0,
                              "host_work_before": 2, "host_work_after": 2,
                              "host_work_removed": 0.0, "single_kernel_graphs": 2,
                              "graphs_at_most": 2}  # two graphs with no key: one each
    assert data["memory"]["global"] == {"static_bytes": 768, "unshared_bytes": 1152,
                                        "saved_bytes": 384}
    f = data["functions"][0]
    assert set(f) == {"name", "kernel_launches", "captured", "captured_ratio", "regions",
                      "graph_launches_per_call", "host_launches_before",
                      "host_launches_after", "kernel_launches_after", "builtins_before",
                      "builtins_after", "host_work_before", "host_work_after",
                      "host_work_removed", "single_kernel_graphs", "host_work_above_bound",
                      "graphs_at_most", "keyed_graphs", "buckets", "reasons", "bindings"}
    assert f["host_work_above_bound"] is None  # no --capture-symbolic VAR:MAX guard
    assert set(f["bindings"][0]) == {"line", "text", "region", "slot", "launch", "reason"}


def test_unified_view(tmp_path):
    r = run_cli("diff", str(TVM_DIR / "vm_builtin_before.relax"), "--format", "unified")
    text = r.stdout.decode()
    assert r.returncode == 0 and text.startswith("--- ")
    assert "+    def cuda_graph_alloc() -> R.Tuple(R.Any, R.Any):" in text


def test_html_view_renders_in_headless_chromium(tmp_path):
    page = tmp_path / "report.html"
    r = run_cli("diff", str(TVM_DIR / "merge_alloc_funcs_before.relax"), "--format", "html",
                "-o", str(page))
    assert r.returncode == 0 and r.stdout == b""
    html_text = page.read_text()
    assert "http://" not in html_text and "https://" not in html_text  # self-contained
    browser = chromium_or_skip()
    dom = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                          "--dump-dom", page.as_uri()], capture_output=True, timeout=120)
    assert dom.returncode == 0, dom.stderr.decode()[-2000:]
    shown = dom.stdout.decode()
    # the summary leads with host work, then kernel launches captured (issue 47)
    assert ("host work per call 2 → 2 (0% removed); 2 of 2 kernel launches captured (100%) "
            "in 2 graph launches, 2 of them one-kernel (saving nothing)") in shown
    assert ("<td><a href=\"#fn-func1\">func1</a></td><td>1 → 1</td><td>0%</td>"
            "<td>1 of 1 (100%)</td><td>1</td><td>1</td>") in shown
    assert "cuda_graph_alloc slot" in shown
    assert ("1 of them a single kernel, saving nothing (<span class=\"opt\">--min-kernels 2"
            "</span>)") in shown
    shot = tmp_path / "shot.png"
    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                    f"--screenshot={shot}", "--window-size=1200,900", page.as_uri()],
                   capture_output=True, timeout=120)
    assert shot.exists() and shot.stat().st_size > 10_000


# ---- host work: what the graphs save --------------------------------------------------------

def _functions_by_text(text: str) -> tuple[set, dict]:
    """Independently of the parser: the PrimFuncs' names, and each Relax function's body lines
    (a function runs from its `def` to the next decorator), from the TVMScript text alone."""
    prims, bodies, current, kind = set(), {}, None, None
    for line in text.splitlines():
        if line.startswith("    @"):
            kind, current = line.strip(), None
        elif line.startswith("    def "):
            name = line[8:line.index("(")]
            if kind.startswith("@T.prim_func"):
                prims.add(name)
            else:
                current = bodies.setdefault(name, [])
        elif current is not None:
            current.append(line)
    return prims, bodies


def _count_by_text(text: str) -> dict:
    """Per Relax function, by grepping TVM's text: kernel launches (`cls.<PrimFunc>(` calls),
    attention builtin calls, graph launches (run_or_capture), and graphs whose capture
    function launches exactly one kernel."""
    import re

    prims, bodies = _functions_by_text(text)

    def kernels(lines):
        return sum(1 for ln in lines for m in re.finditer(r"\bcls\.(\w+)\(", ln)
                   if m.group(1) in prims)

    counts = {}
    for name, lines in bodies.items():
        graphs = [re.search(r'run_or_capture", \(cls\.(\w+),', ln).group(1)
                  for ln in lines if '"vm.builtin.cuda_graph.run_or_capture"' in ln]
        counts[name] = {
            "kernels": kernels(lines),
            "attention": sum('R.call_packed("vm.builtin.attention_kv_cache_attention_with_'
                             'fused_qkv"' in ln for ln in lines),
            "graphs": len(graphs),
            "single": sum(kernels(bodies[g]) == 1 for g in graphs),
        }
    return counts


def test_host_work_on_the_1b_model():
    """The 1B model (MLC-LLM's Llama-3.2-1B as TVM dumps it) and TVM's own rewrite of it: the
    expected figures come from grepping both texts, not from cgraph. decode keeps its 16
    attention builtin calls on the host (each launches kernels there); prefill's 65 graphs
    each hold one weight transpose, so its host work does not move although 36% of its
    kernel launches are 'captured'."""
    before_text = (REAL_DIR / "mlc_llama_1b.before.relax").read_text()
    after_text = (REAL_DIR / "mlc_llama_1b.after.relax").read_text()
    a, b = _count_by_text(before_text), _count_by_text(after_text)
    # What grep says, written out: the figures docs/DIFF.md shows.
    assert {n: (c["kernels"], c["attention"]) for n, c in a.items()} == {
        "batch_decode": (179, 16), "create_tir_paged_kv_cache": (0, 0), "decode": (179, 16),
        "embed": (1, 0), "prefill": (180, 16)}
    assert {n: (b[n]["kernels"], b[n]["graphs"], b[n]["single"], b[n]["attention"])
            for n in a} == {
        "batch_decode": (3, 18, 1, 16), "create_tir_paged_kv_cache": (0, 0, 0, 0),
        "decode": (3, 18, 1, 16), "embed": (1, 0, 0, 0), "prefill": (115, 65, 65, 16)}
    # create_tir_paged_kv_cache's one builtin, paged_attention_kv_cache_create, allocates.
    assert 'R.call_packed("vm.builtin.paged_attention_kv_cache_create"' in before_text
    expected = {n: (a[n]["kernels"] + a[n]["attention"],
                    b[n]["kernels"] + b[n]["graphs"] + b[n]["attention"], b[n]["single"])
                for n in a}
    assert expected["decode"] == (195, 37, 1) and expected["prefill"] == (196, 196, 65)
    before = sum(e[0] for e in expected.values())
    after = sum(e[1] for e in expected.values())
    assert (before, after) == (587, 271)
    original = str(REAL_DIR / "mlc_llama_1b.before.relax")
    # cgraph's rewrite makes the same graphs as TVM's (its default is TVM's planning).
    for pair in ([original], [original, str(REAL_DIR / "mlc_llama_1b.after.relax")]):
        j = json.loads(run_cli("diff", *pair, "--format", "json").stdout)
        got = {f["name"]: (f["host_work_before"], f["host_work_after"],
                           f["single_kernel_graphs"]) for f in j["functions"]}
        assert got == expected, pair
        prefill = next(f for f in j["functions"] if f["name"] == "prefill")
        assert (prefill["kernel_launches_after"], prefill["builtins_before"],
                prefill["builtins_after"], prefill["host_work_removed"]) == (115, 16, 16, 0.0)
        t = j["totals"]
        assert (t["host_work_before"], t["host_work_after"]) == (before, after)
        assert t["host_work_removed"] == round(1 - after / before, 6)  # 0.538330
        # the old fields are kept, with their old meaning (kernel + graph launches)
        assert (t["host_launches_before"], t["host_launches_after"]) == (539, 122 + 101)
        # every graph of prefill is one kernel: the note says it saves nothing, and what would
        assert any(n.startswith("prefill: all 65 of its graphs launch a single kernel: host "
                                "work 196 -> 196 per call, nothing saved; 97 kernel launches "
                                "stay outside for symbolic-shape (seq_len): "
                                "--capture-symbolic seq_len:MAX would capture them")
                   and "--min-kernels 2" in n for n in j["notes"])
        assert any(n.startswith("decode: 1 of 18 graph(s) launch a single kernel")
                   for n in j["notes"])
    # The gate: 1 - 271/587 = 53.8% removed; 417/539 = 77.4% captured.
    assert run_cli("diff", original, "--summary", "--fail-under", "0.53").returncode == 0
    r = run_cli("diff", original, "--summary", "--fail-under", "0.54")
    assert r.returncode == 1 and r.stderr.decode() == (
        "cgraph diff: host work per call 587 -> 271 (53.8% removed), below --fail-under "
        "54.0%\n")
    assert run_cli("diff", original, "--summary", "--fail-under-captured",
                   "0.77").returncode == 0
    assert run_cli("diff", original, "--summary", "--fail-under-captured",
                   "0.78").returncode == 1
    text = run_cli("diff", original, "--summary").stdout.decode()
    # host work first, then kernel launches captured, graph launches, one-kernel ones
    assert "│ prefill                   │ 196 -> 196 │      0% │  65 of 180 (36.1%) │       65 " \
           "│         65 │" in text
    assert "│ total                     │ 587 -> 271 │   53.8% │ 417 of 539 (77.4%) │      101 " \
           "│         67 │" in text
    assert " ".join(text.split()).startswith(
        "cgraph diff: host work per call 587 -> 271 (53.8% removed); 417 of 539 kernel "
        "launches captured (77.4%) in 101 graph launches, 67 of them one-kernel (saving "
        "nothing) ")
    # --min-kernels 2: no graph of one kernel, prefill's kernels stay launches; same host work
    j = json.loads(run_cli("diff", original, "--format", "json", "--min-kernels", "2").stdout)
    assert j["totals"]["single_kernel_graphs"] == 0
    assert (j["totals"]["host_work_before"], j["totals"]["host_work_after"]) == (587, 271)
    assert not any("single kernel" in n for n in j["notes"])


SMALL_BUILTINS = """@I.ir_module
class Module:
    @T.prim_func
    def add(x: T.Buffer((4,), "float32"), y: T.Buffer((4,), "float32")):
        for i in range(4):
            y[i] = x[i] + T.float32(1)

    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), cache: R.Any) -> R.Tensor((4,), dtype="float32"):
        R.func_attr({"relax.force_pure": True, "num_input": 0})
        cls = Module
        storage: R.Any = R.memory.alloc_storage(R.shape([16]), 0, "global", "float32")
        a: R.Tensor((4,), dtype="float32") = R.memory.alloc_tensor(storage, 0, R.shape([4]), "float32")
        storage1: R.Any = R.memory.alloc_storage(R.shape([16]), 0, "global", "float32")
        b: R.Tensor((4,), dtype="float32") = R.memory.alloc_tensor(storage1, 0, R.shape([4]), "float32")
        _1: R.Tuple = cls.add(x, a)
        _2: R.Tuple = cls.add(a, b)
        _3: R.Tuple = R.call_packed("BUILTIN", cache, b, ty_args=R.Tuple())
        _4: R.Tuple = cls.add(b, a)
        _5: R.Tuple = cls.add(a, b)
        out: R.Tensor((4,), dtype="float32") = R.builtin.alloc_tensor(R.shape([4]), "float32", 0)
        _6: R.Tuple = cls.add(b, out)
        return out
"""


@pytest.mark.parametrize("builtin, counted", [
    ("vm.builtin.attention_kv_cache_attention_with_fused_qkv", True),  # launches kernels
    ("vm.builtin.dummy", True),  # unknown: counted, before and after alike
    ("vm.builtin.make_tuple", False),  # a tuple, built on the host
    ("vm.builtin.shape_of", False),
])
def test_host_work_counts_builtins_that_launch(tmp_path, builtin, counted):
    """By hand: 5 kernel launches (cls.add; num_input 0: x is a weight, static); the builtin
    closes the first graph (_1, _2) and _4, _5 open a second one; _6 writes the returned tensor and stays outside. After: 2 graph
    launches and 1 kernel launch. The builtin is one host call before and after, when it
    launches device work."""
    path = tmp_path / "m.relax"
    path.write_text(SMALL_BUILTINS.replace("BUILTIN", builtin))
    j = json.loads(run_cli("diff", str(path), "--format", "json").stdout)
    f = j["functions"][0]
    n = 1 if counted else 0
    assert (f["kernel_launches"], f["kernel_launches_after"], f["regions"]) == (5, 1, 2)
    assert (f["builtins_before"], f["builtins_after"]) == (n, n)
    assert (f["host_work_before"], f["host_work_after"]) == (5 + n, 3 + n)
    assert f["host_work_removed"] == round(1 - (3 + n) / (5 + n), 6)
    assert f["single_kernel_graphs"] == 0 and not j["notes"]


# ---- why, in aggregate ----------------------------------------------------------------------

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
                                         "names": ["seq_len"],
                                         "hint": "--capture-symbolic seq_len[:MAX]"}
    assert reasons["param-input"]["hint"] is None
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
    rows = [ln for ln in term.stdout.decode().splitlines()
            if "symbolic-shape" in ln and ln.startswith("│")]
    assert len(rows) == 1 and "prefill" in rows[0] and " 97 " in rows[0] and "seq_len" in rows[0]
    page = tmp_path / "r.html"
    assert run_cli("diff", str(MLC_LLAMA), "--format", "html", "-o", str(page)).returncode == 0
    assert ("<tr><td><a href=\"#fn-prefill\">prefill</a></td><td class=\"l\">symbolic-shape</td>"
            "<td>97</td><td class=\"l names\">seq_len; --capture-symbolic seq_len[:MAX] would "
            "capture them</td></tr>") in page.read_text()
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


# ---- --function in every view ---------------------------------------------------------------

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
    def changed(args):  # the unified view's lines that a patch removes or adds
        text = run_cli("diff", str(src), *args, "--format", "unified").stdout.decode()
        return "\n".join(ln for ln in text.splitlines()
                         if ln[:1] in "+-" and not ln.startswith(("+++", "---")))

    unified = changed(("--function", "decode"))
    assert "def decode_cuda_graph_capture" in unified and "prefill" not in unified
    assert "prefill" in changed(())
    term = run_cli("diff", str(src), "--function", "decode", env={"COLUMNS": "200"})
    assert "decode" in term.stdout.decode() and "prefill" not in term.stdout.decode()


def test_real_unified_function_holds_its_capture_functions_only():
    text = run_cli("diff", str(MLC_LLAMA), "--function", "decode", "--format",
                   "unified").stdout.decode()
    # A patch of the original: the functions it adds (its other lines: decode's changed
    # bindings, and context; test_diff_unified_patch.py checks that nothing else changes).
    defs = {ln.split("def ")[1].split("(")[0] for ln in text.splitlines()
            if ln.startswith("+    def ")}
    assert "cuda_graph_alloc" in defs
    assert all(d == "cuda_graph_alloc" or d.startswith("decode_cuda_graph") for d in defs), defs


def test_unknown_function_is_a_usage_error_listing_the_functions():
    r = run_cli("diff", str(MLC_LLAMA), "--function", "matmul9", "--format", "json")
    err = r.stderr.decode()
    assert r.returncode == 2 and "Traceback" not in err
    # matmul9 is a PrimFunc of the module: no Relax function, so no listing to show
    assert "no Relax function named matmul9 in" in err
    assert "(it has batch_decode, create_tir_paged_kv_cache, decode, embed, prefill)" in err


def test_function_keeps_only_its_own_notes():
    """The one-kernel-graph notes are per function (`decode: 1 of 18 graph(s) ...`): with
    --function prefill, decode's and batch_decode's are not shown."""
    notes = json.loads(run_cli("diff", str(MLC_LLAMA), "--function", "prefill", "--format",
                               "json").stdout)["notes"]
    assert [n.split(":")[0] for n in notes] == ["prefill"]
    everything = json.loads(run_cli("diff", str(MLC_LLAMA), "--format", "json").stdout)["notes"]
    assert sorted(n.split(":")[0] for n in everything) == ["batch_decode", "decode", "prefill"]
