"""A sample of the mutation suite (issue 31): wrong rewrites of real models that verify must
catch, at early, middle and late layers, and right ones it must find equal.

The generator is bench/mutants/; the whole suite (every class, position and model, with the
table of docs/EXECUTOR.md) is bench/bench_mutants.py. Here: each class at one or more positions
of the Llama-3.2-1B decode (prefill for the guards), a few of the 2-layer nn_llama_kv, and the
controls. Nothing is marked xfail: a case that fails names a verify that misses a wrong rewrite
(or flags a right one).
"""

from __future__ import annotations

import gc

import pytest

from bench import mutants
from bench.mutants import buckets, controls, graph, guards, kernel, shape, suite
from conftest import ROOT
from cudagraph_cli import api
from cudagraph_cli.passes.options import RewriteOptions
from shared_inputs import inputs_made_once

CALLS = 3
REAL = ROOT / "samples" / "real"


@pytest.fixture(scope="module", autouse=True)
def weights_made_once():
    """The 1B's weights made once for the file's twenty verifies, not once each: the same
    values (tests/helpers/shared_inputs.py), half of each verify's time."""
    with inputs_made_once():
        yield


@pytest.fixture(scope="module")
def llama_1b():
    original = api.load(REAL / "mlc_llama_1b.before.relax")
    rewritten = mutants.rewrite_text(original, "mlc_llama_1b.rewritten.relax")
    fn, options = mutants.bounded_options("mlc_llama_1b", original)
    bounded = mutants.rewrite_text(original, "mlc_llama_1b.bounded.relax", options)
    return {"original": original, "rewritten": rewritten,
            "decode": mutants.Builder("mlc_llama_1b", original, rewritten, "decode"),
            "bounded": mutants.Builder("mlc_llama_1b", original, bounded, fn)}


@pytest.fixture(scope="module")
def llama_kv():
    original = api.load(REAL / "nn_llama_kv.before.relax")
    rewritten = mutants.rewrite_text(original, "nn_llama_kv.rewritten.relax")
    return {"original": original, "rewritten": rewritten,
            "decode": mutants.Builder("nn_llama_kv", original, rewritten, "decode")}


def caught(original, m) -> bool:
    try:
        report = api.verify(original, m.module, calls=CALLS, functions=[m.function])
    finally:
        gc.collect()  # the executors' buffers sit in reference cycles
    return not report.equal


def equal(original, module, function=None) -> bool:
    try:
        report = api.verify(original, module, calls=CALLS,
                            functions=[function] if function else None)
    finally:
        gc.collect()
    assert report.equal, report.difference
    return True


# ---- the generator itself (no verify) ---------------------------------------------------------


def test_layers_of_the_1b_decode_are_found(llama_1b):
    t = llama_1b["decode"].trace
    assert sorted({e.layer for e in t.events}) == list(range(16))
    # Layer 0 starts at the first kernel (the input norm), layer 15 ends at the logits.
    assert (t.events[0].kernel, t.events[0].layer) == ("rms_norm1", 0)
    assert (t.events[-1].kernel, t.events[-1].layer) == ("matmul9", 15)
    # The 14 launches of the shared capture of layers 1..14 are one layer each.
    shared = {e.launch[2]: e.layer for e in t.events
              if e.function == "decode_cuda_graph_capture3" and e.kernel == "fused_matmul6_add1"}
    assert sorted(shared.values()) == list(range(1, 15))


@pytest.mark.parametrize("position,layer", [("early", 0), ("middle", 8), ("late", 15)])
def test_a_drop_is_at_its_layer_and_changes_what_a_launch_reads(llama_1b, position, layer):
    b = llama_1b["decode"]
    m = kernel.drop(b, position)
    assert m.layer == layer and m.kind == "drop"
    after = mutants.trace(m.module, "decode")
    assert len(after.events) == len(b.trace.events) - 1
    assert api.print_module(m.module) != api.print_module(llama_1b["rewritten"])


def test_the_trace_of_a_module_equals_itself(llama_1b):
    t = llama_1b["decode"].trace
    again = mutants.trace(llama_1b["rewritten"], "decode")
    assert mutants.first_divergent_launch(t, again) is None


def test_a_control_swaps_independent_launches_only(llama_1b):
    b = llama_1b["decode"]
    c = controls.reorder_control(b, "middle")
    after = mutants.trace(c.module, "decode")
    assert [e.kernel for e in after.events] != [e.kernel for e in b.trace.events]
    assert sorted(e.kernel for e in after.events) == sorted(e.kernel for e in b.trace.events)


def test_what_cannot_be_built_says_why(llama_1b):
    # The 1B's graphs never return two outputs of one type: no off-by-one that type-checks.
    with pytest.raises(mutants.NotBuildable, match="two outputs of one type"):
        graph.output_index(llama_1b["decode"], "middle")
    with pytest.raises(mutants.NotBuildable, match="after the last layer"):
        graph.graph_owned_return(llama_1b["decode"], "early")
    with pytest.raises(mutants.NotBuildable, match="no guarded graph"):
        guards.guard_inverted(llama_1b["decode"], "early")


# ---- verify catches them ----------------------------------------------------------------------

CASES_1B = [("drop", "early"), ("drop", "middle"), ("drop", "late"),
            ("reorder", "early"),
            ("wrong-arg", "middle"), ("overlap-offset", "early"), ("overlap-slot", "early"),
            ("storage-twice", "middle"), ("frozen-input", "early"),
            ("frozen-object", "middle"), ("graph-owned-return", "late")]


@pytest.mark.parametrize("kind,position", CASES_1B)
def test_verify_catches_a_mutant_of_the_1b(llama_1b, kind, position):
    m = mutants.BUILDERS[kind](llama_1b["decode"], position)
    assert caught(llama_1b["original"], m), f"missed: {m.site} ({m.proof})"


@pytest.mark.parametrize("kind,position", [("guard-inverted", "middle"),
                                           ("graph-unkeyed", "early")])
def test_verify_catches_a_wrong_guard_of_the_1b(llama_1b, kind, position):
    m = mutants.BUILDERS[kind](llama_1b["bounded"], position)
    assert m.function == "prefill"
    assert caught(llama_1b["original"], m), f"missed: {m.site} ({m.proof})"


@pytest.mark.parametrize("kind", ["drop", "wrong-arg", "overlap-offset", "storage-twice",
                                  "overlap-slot"])
def test_verify_catches_a_mutant_of_a_small_model(llama_kv, kind):
    m = mutants.BUILDERS[kind](llama_kv["decode"], "early")
    assert caught(llama_kv["original"], m), f"missed: {m.site} ({m.proof})"


# ---- controls: right rewrites verify equal ----------------------------------------------------


@pytest.mark.parametrize("position", mutants.POSITIONS)
def test_independent_launches_swapped_verify_equal(llama_1b, position):
    c = controls.reorder_control(llama_1b["decode"], position)
    assert equal(llama_1b["original"], c.module, "decode"), f"{c.name}: {c.proof}"


@pytest.mark.parametrize("options", [RewriteOptions.tvm_compat(), RewriteOptions(min_kernels=2),
                                     RewriteOptions(capture_symbolic=("total_seq_len",))],
                         ids=["compat-tvm", "min-kernels-2", "capture-symbolic"])
def test_right_rewrites_of_a_small_model_verify_equal(llama_kv, options):
    module = mutants.rewrite_text(llama_kv["original"], "nn_llama_kv.control.relax", options)
    assert equal(llama_kv["original"], module)


# ---- the shape class: wrong only past 2, within the bounds (bench/mutants/shape.py) ---------

SMALL_BOUNDED = "static_plan_tir_var_upper_bound"  # main(x: (2, n)), n <= 4


@pytest.fixture(scope="module")
def small_bounded():
    original = api.load(REAL / f"{SMALL_BOUNDED}.before.relax")
    rewritten = mutants.rewrite_text(original, f"{SMALL_BOUNDED}.rewritten.relax")
    made = list(suite.shape_mutants_of(SMALL_BOUNDED, original, rewritten,
                                       shape.SHAPE_CLASSES))
    return {"original": original, "rewritten": rewritten,
            "mutants": [m for m in made if isinstance(m, mutants.Mutant)]}


def test_each_shape_mutant_is_right_at_1_and_2_and_wrong_where_it_says(small_bounded):
    original, made = small_bounded["original"], small_bounded["mutants"]
    assert {m.kind for m in made} == set(shape.SHAPE_CLASSES)
    for m in made:
        (var, v), = m.breaks_at.items()
        assert v > 2, m.site
        # by runs alone: the facts of the text would catch it at any values
        at_small = api.verify(original, m.module, calls=4, functions=[m.function],
                              shapes={var: [1, 2]}, facts=False)
        assert at_small.equal, (m.site, at_small.difference)
        at_break = api.verify(original, m.module, calls=3, functions=[m.function],
                              shapes={var: [2, v]}, facts=False)
        assert not at_break.equal, m.site


def test_default_verify_catches_every_shape_mutant_at_the_bounds(small_bounded):
    for m in small_bounded["mutants"]:
        report = api.verify(small_bounded["original"], m.module, calls=CALLS,
                            functions=[m.function])
        assert not report.equal, f"missed: {m.site} ({m.proof})"
        # and by the bounds run alone, without the facts of the text
        runs = api.verify(small_bounded["original"], m.module, calls=CALLS,
                          functions=[m.function], facts=False)
        assert not runs.equal and runs.bounds.difference, m.site


def test_a_storage_larger_than_needed_verifies_equal(small_bounded):
    c = shape.slot_larger(SMALL_BOUNDED, small_bounded["rewritten"], "main")
    assert "made" in c.proof
    assert equal(small_bounded["original"], c.module, c.function)


def test_a_guard_raised_to_the_upper_bound_verifies_equal(small_bounded):
    # main's n <= 4 (tir_var_upper_bound): the storages are planned at 4, so the graph
    # guarded by n <= 2 replays right up to 4; default verify runs n = 2, 4, 1.
    fn, options = mutants.bounded_options(SMALL_BOUNDED, small_bounded["original"])
    bounded = mutants.rewrite_text(small_bounded["original"], f"{SMALL_BOUNDED}.bounded.relax",
                                   options)
    c = shape.guard_raised(SMALL_BOUNDED, bounded, fn)
    assert c.proof.startswith("the guard n <= 2 raised to n <= 4"), c.proof
    assert "R.prim_value(n <= 4)" in api.print_module(c.module)
    assert equal(small_bounded["original"], c.module, c.function)


def test_a_reshape_made_a_view_of_the_same_shape_verifies_equal(small_bounded):
    # The mutant's control in kind: the view of reshape-wrong with the reshape's own shape
    # reads the same bytes as the same tensor at every n.
    m = next(m for m in small_bounded["mutants"] if m.kind == "reshape-wrong")
    text = api.print_module(m.module)
    assert "R.shape([2 * T.min(n, 2)])" in text
    same = api.loads(text.replace("R.shape([2 * T.min(n, 2)])", "R.shape([2 * n])"))
    assert equal(small_bounded["original"], same, m.function)


# ---- issue 44: the graph key and the storage unit (bench/mutants/keys.py) ------------------

@pytest.fixture(scope="module")
def batch_decode(llama_1b):
    fn, var, top = next(x for x in shape.shape_functions(llama_1b["rewritten"])
                        if x[0] == "batch_decode")
    return fn, var, top


@pytest.mark.parametrize("kind,position", [("key-halved", "early"), ("key-capped", "late"),
                                           ("key-dropped", "middle")])
def test_default_verify_catches_a_key_two_values_share(llama_1b, batch_decode, kind, position):
    fn, var, top = batch_decode
    m = mutants.suite.SHAPE_BUILDERS[kind]("mlc_llama_1b", llama_1b["original"],
                                           llama_1b["rewritten"], fn, var, top, position)
    assert caught(llama_1b["original"], m), f"missed: {m.site} ({m.proof})"


def test_a_key_capped_past_every_value_run_is_caught_by_the_key_fact(llama_1b, batch_decode):
    # T.min(batch_size, 16): the values verify runs (1, 2; 2, 32, 1) have distinct keys, so
    # only the fact sees it, at 16 and 17 (both give 16).
    fn, var, top = batch_decode
    m = mutants.suite.SHAPE_BUILDERS["key-capped"]("mlc_llama_1b", llama_1b["original"],
                                                   llama_1b["rewritten"], fn, var, top, "early")
    report = api.verify(llama_1b["original"], m.module, calls=CALLS, functions=[fn])
    gc.collect()
    d = report.difference
    assert d.kind == "shape" and d.site == "the key fact that fails"
    assert d.message.startswith("at batch_size = 16 and 17: one key (16), a graph captured at "
                                "16 replayed at 17")


@pytest.mark.parametrize("position", ["early", "middle"])
def test_default_verify_catches_a_slot_sized_in_elements(llama_1b, position):
    m = mutants.BUILDERS["slot-elements"](llama_1b["decode"], position)
    report = api.verify(llama_1b["original"], m.module, calls=CALLS, functions=["decode"])
    gc.collect()
    assert report.difference is not None and report.difference.kind == "shape", m.site
    assert "sizes this storage in elements, the original sizes every storage in bytes" in \
        report.difference.message


def test_a_key_shifted_one_to_one_verifies_equal(llama_1b, batch_decode):
    fn, var, _ = batch_decode
    c = mutants.suite.keys.key_shifted("mlc_llama_1b", llama_1b["rewritten"], fn, var)
    assert "R.shape([batch_size + 1])" in api.print_module(c.module)
    assert equal(llama_1b["original"], c.module, fn)


def test_both_modules_sized_in_elements_verify_equal(llama_1b):
    c = mutants.suite.keys.elements_both("mlc_llama_1b", llama_1b["original"],
                                         llama_1b["rewritten"])
    assert equal(c.original, c.module, "decode")


# ---- the bucket class: --capture-buckets (bench/mutants/buckets.py) ---------------------------

def test_every_bucket_mutant_is_caught_and_its_controls_are_equal():
    """On tests/buckets/rows.relax (main, n up to 16): each class built, default verify finds
    each mutant different and each control equal."""
    rows = ROOT / "tests" / "buckets" / "rows.relax"
    original = api.load(rows)
    made = [m for m in suite.bucket_mutants_of("rows", original, buckets.BUCKET_CLASSES)
            if not isinstance(m, tuple)]
    assert {m.kind for m in made} == set(buckets.BUCKET_CLASSES)
    for m in made:
        if m.kind not in buckets.NOT_CAUGHT_YET:
            assert not api.verify(m.original or original, m.module).equal, \
                (m.kind, m.position, m.site)
    controls = buckets.bucket_controls("rows", original, "main", "n", 16)
    assert len(controls) == 2
    for c in controls:
        assert api.verify(original, c.module).equal, c.name


def test_a_bucketed_input_read_again_after_its_region_is_equal():
    """The stale-alias control: eager code reads the input of a bucketed region again after
    it; the carve at the bucket's rows is that input, not a second tensor overlapping it."""
    reread = api.load(ROOT / "tests" / "buckets" / "reread.relax")
    c = buckets.reread_control("reread", reread, "n")
    report = api.verify(reread, c.module)
    assert report.equal, report.difference
    assert report.shapes.count("failed") == 0


def test_a_kernel_whose_real_rows_depend_on_the_row_count_is_caught():
    original = api.load(ROOT / "tests" / "buckets" / "rows.relax")
    m = buckets.row_count("rows", original, "main", "n", 16, "early")
    assert not api.verify(m.original, m.module).equal, m.site


@pytest.fixture(scope="module")
def gemma2():
    return api.load(REAL / "mlc_gemma2_2b.before.relax")


@pytest.mark.parametrize("model,fname,var,specs", [
    ("mlc_llama_1b", "prefill", "seq_len", None),
    ("mlc_gemma2_2b", "batch_prefill", "batch_size", ("seq_len:auto", "batch_size:auto"))])
def test_a_bucket_one_row_short_is_caught_by_default_verify(llama_1b, gemma2, model, fname,
                                                            var, specs):
    """bucket-formula-short on the real-size 1B's prefill, and on Gemma-2's batch_prefill,
    which buckets two variables: the bucket fact fails at the bucket it cuts short, located."""
    original = llama_1b["original"] if model == "mlc_llama_1b" else gemma2
    top = original.function(fname).upper_bounds()[var]
    m = buckets.formula_short(model, original, fname, var, top, "middle", specs)
    try:
        report = api.verify(original, m.module, calls=CALLS, functions=[fname])
    finally:
        gc.collect()
    assert not report.equal
    bi = m.breaks_at[var]
    failed = [f for f in report.shapes.rewritten.failed if f.kind == "bucket"]
    assert [f.values for f in failed] == [{var: bi}], failed
    assert failed[0].loc.line > 0 and f"{bi - 1} rows of the {bi}" in failed[0].message
