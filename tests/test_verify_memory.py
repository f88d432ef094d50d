"""verify keeps earlier outputs without keeping their memory (issue 34, "verify at the bounds").

After every call verify compares every output returned so far, so that one overwritten by a
later call shows. It used to hold each output alive for that: memory grew with the number of
calls times the outputs' size (an LLM's batch_verify logits are 2 GiB a call). Now an output
is kept as a watched byte range (exec/verify.py, Kept): freed when nothing else holds it,
its bytes saved only if something writes them again. These tests check both halves: the
peak memory does not grow with the calls, and an overwritten output is still found and located
with the values it held and holds.
"""

from __future__ import annotations

import numpy as np

from cudagraph_cli.exec.backend import CpuBackend
from cudagraph_cli.exec.interpreter import Executor
from cudagraph_cli.exec.inputs import Inputs, Weights, to_backend
from cudagraph_cli.exec.verify import verify
from cudagraph_cli.text.reader import parse_module
from test_real_size import peak_rss_mib
from test_verify import RETURNS_STORAGE, RETURNS_STORAGE_LIFTED

# 64 MiB returned by every call, fresh: two inputs whose lengths share no period (4 MiB and
# 4 MiB - 4 bytes) so that the output is dense, not a repeating block (kernels.Periodic).
OUT = 1 << 24
BIG_OUTPUT = f'''@I.ir_module
class Module:
    @T.prim_func
    def mix(x: T.Buffer((1048576,), "float32"), y: T.Buffer((1048575,), "float32"), out: T.Buffer(({OUT},), "float32")):
        for i in range({OUT}):
            out[i] = x[i % 1048576] + y[i % 1048575]

    @R.function
    def main(x: R.Tensor((1048576,), "float32"), y: R.Tensor((1048575,), "float32")) -> R.Tensor(({OUT},), "float32"):
        R.func_attr({{"relax.force_pure": True}})
        cls = Module
        out = R.builtin.alloc_tensor(R.shape([{OUT}]), "float32", 0)
        cls.mix(x, y, out)
        return out
'''


def test_peak_memory_does_not_grow_with_the_calls(tmp_path):
    path = tmp_path / "big_output.relax"
    path.write_text(BIG_OUTPUT)
    code_1, peak_1 = peak_rss_mib("verify", str(path), str(path), "--calls", "1")
    code_6, peak_6 = peak_rss_mib("verify", str(path), str(path), "--calls", "6")
    assert (code_1, code_6) == (0, 0)
    # Holding every output: 5 more calls x 2 modules x 64 MiB = 640 MiB more. Kept: the same
    # peak, within less than one output.
    assert peak_6 - peak_1 < 64, f"1 call: {peak_1:.0f} MiB, 6 calls: {peak_6:.0f} MiB"


def original_outputs(text: str, calls: int) -> list[np.ndarray]:
    """What the original returns on each call, with verify's inputs (same seed, same order of
    drawing weights and inputs), on an executor of its own."""
    mod = parse_module(text)
    f = mod.function("main")
    inputs = Inputs(0, {})
    backend = CpuBackend()
    ex = Executor(mod, backend)
    weights = Weights(inputs, [backend])
    outs = []
    for call in range(calls):
        (w,) = weights.of(f)
        args = [to_backend(backend, v) for v in inputs.fresh(f, call)] + w
        outs.append(backend.to_numpy(ex.call("main", args)).copy())
    return outs


def test_an_output_overwritten_later_is_located_with_the_values_it_held():
    """The lifted rewrite returns a tensor in the shared allocation: call 2 overwrites what
    call 1 returned. The original's call-1 output is freed by then (nothing holds it); the
    difference still names the first element that changed and both values: the original's
    call-1 value, and the call-2 value the rewritten's storage holds now."""
    d = verify(parse_module(RETURNS_STORAGE), parse_module(RETURNS_STORAGE_LIFTED)).difference
    assert d is not None and d.kind == "values"
    assert (d.function, d.call, d.checked_after) == ("main", 0, "main, call 2")
    first, second = original_outputs(RETURNS_STORAGE, 2)
    index = tuple(int(i) for i in np.argwhere(first != second)[0])
    assert d.element == index
    assert d.original.tobytes() == first[index].tobytes()
    assert d.rewritten.tobytes() == second[index].tobytes()


def test_kept_outputs_are_freed():
    """What verify keeps of an output the module does not hold is no reference: its storage is
    gone after the comparison."""
    import gc
    import weakref

    from cudagraph_cli.exec import compare as exec_compare

    seen = []
    kept_init = exec_compare.Kept.__init__

    def watching(self, backend, value, storage, *rest):
        kept_init(self, backend, value, storage, *rest)
        seen.append(weakref.ref(storage))

    exec_compare.Kept.__init__ = watching
    try:
        report = verify(parse_module(RETURNS_STORAGE), parse_module(RETURNS_STORAGE), calls=3)
    finally:
        exec_compare.Kept.__init__ = kept_init
    gc.collect()
    assert report.equal and len(seen) == 6  # 3 calls x 2 modules
    assert all(ref() is None for ref in seen)


def cyclic_garbage(run) -> dict:
    """What `run()` leaves in reference cycles (freed only by the garbage collector), by
    type: run once before (imports and caches), then again with the collector off."""
    import collections
    import gc

    run()
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        run()
        gc.collect()
        return dict(collections.Counter(type(o).__qualname__ for o in gc.garbage))
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


def test_verify_and_run_hold_nothing_after_they_return():
    """A long-running process (a server, the mutation bench) calls verify again and again: a
    reference cycle through a call's executor kept the backend, with every storage, alive
    until a garbage collection (the ownership check held the executor whose hooks were its
    own methods: RSS grew by hundreds of MiB a call of the 1B decode). nn_llama_kv has KV
    caches and graphs captured and replayed, which the ownership check watches.
    bench/bench_verify_memory.py measures the RSS of 20 calls of the 1B decode."""
    from cudagraph_cli import api
    from conftest import ROOT

    a = api.load(ROOT / "samples/real/nn_llama_kv.before.relax")
    b = api.load(ROOT / "samples/real/nn_llama_kv.after.relax")
    assert cyclic_garbage(lambda: api.verify(a, b)) == {}
    assert cyclic_garbage(lambda: api.run_cpu(b, calls=2)) == {}

    # And it does see a cycle.
    def cycle():
        x = []
        x.append(x)

    assert cyclic_garbage(cycle) == {"list": 1}


def test_the_tvm_pass_holds_nothing_after_it_returns(tvm):
    """The pass inside a TVM build, as a server compiling model after model runs it:
    what it made of a module is freed when it returns (a recursive closure over the IR, in
    the storage collector and in definable_sym_vars, was a cycle)."""
    from conftest import ROOT
    from cudagraph_cli.tvm import RewriteCUDAGraph

    mod = tvm.script.from_source((ROOT / "samples/tvm/rewrite_cuda_graph_before.relax")
                                 .read_text())

    def run():
        with tvm.transform.PassContext(config={"relax.backend.use_cuda_graph": True}):
            RewriteCUDAGraph()(mod)

    assert cyclic_garbage(run) == {}
