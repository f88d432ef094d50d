"""The rewriter shares a lifted function by its region's key (passes/rewriter.py, region_key).

Two regions with equal keys must lift to structurally equal functions: then the function the
first one got is the one `add_function` would give the second, and the second need not be
built. Checked over every region of every sample, TVM's model dumps and generated modules
(with symbolic shapes, two functions, branches): equal keys, equal structural keys of the
lifted functions; and each module rewritten with and without the sharing prints the same.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import for_every_sample_test
from cudagraph_cli.gen import chain_module, decode_module
from cudagraph_cli.ir.equality import structural_key
from cudagraph_cli.passes import rewriter
from cudagraph_cli.passes.options import RewriteOptions
from cudagraph_cli.passes.pipeline import rewrite
from cudagraph_cli.passes.region_planner import plan_module
from cudagraph_cli.passes.storage_collector import collect
from cudagraph_cli.text.printer import print_module
from cudagraph_cli.text.reader import parse_module

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = for_every_sample_test(sorted((ROOT / "samples").rglob("*.relax")))
GENERATED = {
    "decode-24": decode_module(24),
    "prefill-decode-6": decode_module(6, functions=("prefill", "decode"), hidden=64),
    "chain-60": chain_module(60),
}
TEXTS = [(str(p.relative_to(ROOT)), p) for p in SAMPLES] + sorted(GENERATED.items())


def text_of(source) -> str:
    return source.read_text() if isinstance(source, Path) else source


def readable(text: str):
    try:
        return parse_module(text)
    except Exception:  # samples of bad input are not what this is about
        return None


@pytest.mark.parametrize("name,source", TEXTS, ids=[n for n, _ in TEXTS])
def test_equal_region_keys_lift_to_equal_functions(name, source):
    module = readable(text_of(source))
    if module is None:
        pytest.skip("not a module that reads")
    options = RewriteOptions()
    plan = plan_module(module, options, collect(module, options.follow_getitem,
                                                options.functions))
    functions = {f.name: f for f in module.functions}
    by_key: dict = {}
    for region in plan.kept_captures():
        outputs = list(region.outputs.values())
        key = rewriter.region_key(region, outputs)
        lifted = structural_key(rewriter.build_lifted(region, functions, outputs))
        by_key.setdefault(key, set()).add(lifted)
    assert all(len(lifted) == 1 for lifted in by_key.values())


@pytest.mark.parametrize("name,source", TEXTS, ids=[n for n, _ in TEXTS])
def test_sharing_by_region_key_changes_no_output(name, source, monkeypatch):
    text = text_of(source)
    module = readable(text)
    if module is None:
        pytest.skip("not a module that reads")
    shared = print_module(rewrite(module)[0])
    monkeypatch.setattr(rewriter.Rewriter, "share_by_region_key", False)
    assert print_module(rewrite(parse_module(text))[0]) == shared


def test_a_decode_module_builds_each_lifted_function_once(monkeypatch):
    # 24 layers: 26 regions (a vm.builtin call, the kv-cache append, ends each), 22 of them
    # alike; six distinct functions among them (the first regions and the last differ).
    # Each is built once: no region was built only to be found equal to one before it.
    built = []
    real = rewriter.build_lifted

    def counting(*args):
        built.append(1)
        return real(*args)

    monkeypatch.setattr(rewriter, "build_lifted", counting)
    out, report = rewrite(parse_module(GENERATED["decode-24"]))
    assert len(report.plan.kept_captures()) == 26
    captures = [f for f in out.functions if "_cuda_graph_capture" in f.name]
    assert len(built) == len(captures) == 6
