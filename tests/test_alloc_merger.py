"""The allocation merger (passes/alloc_merger.py, step 4 of the rewrite): one slot list for
the whole module, as TVM merges it where no function calls another, and functions live at once
never sharing a slot (correction 2; tests/cases/functions_live_at_once, and against TVM on
random modules in tests/test_rewrite_differential.py)."""

from __future__ import annotations

from conftest import ROOT
from cudagraph_cli.passes.options import RewriteOptions
from cudagraph_cli.passes.pipeline import rewrite
from cudagraph_cli.text.printer import print_module
from cudagraph_cli.text.reader import parse_module
from rewrite_helpers import slots
from test_rewrite import case, rw

TVM_DIR = ROOT / "samples" / "tvm"


def test_tvm_shares_one_slot_between_functions_live_at_once():
    """tests/cases/functions_live_at_once: main holds `a` across its call of helper; TVM's
    behaviour gives both storages slot 0 (helper's graph overwrites main's `a`)."""
    compat, _ = rewrite(parse_module(case("functions_live_at_once")), RewriteOptions.tvm_compat())
    assert slots(compat.function("main")) == slots(compat.function("helper")) == {0}


def test_no_calls_means_tvm_merge():
    out, _ = rw((TVM_DIR / "merge_alloc_funcs_before.relax").read_text())
    compat, _ = rewrite(parse_module((TVM_DIR / "merge_alloc_funcs_before.relax").read_text()),
                        RewriteOptions.tvm_compat())
    assert print_module(out) == print_module(compat)
