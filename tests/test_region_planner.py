"""The region planner (passes/region_planner.py, step 2 of the rewrite): which launches it
lifts into graphs under the options, and which calls it takes for allocating their result.
What it leaves outside and why is explain's (tests/test_rewrite.py, "reasons"); the regions'
keys, tests/test_region_key.py."""

from __future__ import annotations

from conftest import ROOT, run_cli
from cudagraph_cli import ir
from cudagraph_cli.text.printer import print_module
from cudagraph_cli.text.reader import parse_module
from test_rewrite import rw

TVM_DIR = ROOT / "samples" / "tvm"


def test_min_kernels_leaves_small_regions_and_says_why():
    text = (TVM_DIR / "vm_builtin_before.relax").read_text()
    out, report = rw(text, min_kernels=2)
    assert not any(f.name.endswith("_cuda_graph_capture") for f in out.functions)
    assert [r.code for r in report.reasons].count("min-kernels") == 1
    out1, _ = rw(text, min_kernels=1)
    assert any(f.name.endswith("_cuda_graph_capture") for f in out1.functions)


def test_exclude_glob():
    text = (TVM_DIR / "rewrite_cuda_graph_before.relax").read_text()
    out, report = rw(text, exclude=("ex*",))
    assert not any(f.name.endswith("_cuda_graph_capture") for f in out.functions)
    assert {r.code for r in report.reasons} >= {"excluded"}
    out2, _ = rw(text, exclude=("nothing*",))
    assert any(f.name.endswith("_cuda_graph_capture") for f in out2.functions)


def test_functions_option(tmp_path):
    text = (TVM_DIR / "merge_alloc_funcs_before.relax").read_text()
    out, report = rw(text, functions=("func2",))
    assert out.function("func2_cuda_graph_capture") is not None
    assert out.function("func1_cuda_graph_capture") is None
    assert print_module(ir.Module("M", [out.function("func1")])) == \
        print_module(ir.Module("M", [parse_module(text).function("func1")]))
    assert "function-not-selected" in {r.code for r in report.reasons}
    r = run_cli("rewrite", str(TVM_DIR / "merge_alloc_funcs_before.relax"), "--functions",
                "func1,nope")
    assert r.returncode == 2 and b"nope" in r.stderr and b"Traceback" not in r.stderr


def test_which_calls_allocate_their_result():
    """Correction 3 keeps a returned call outside only when the call makes its result (as the
    executor runs it, docs/EXECUTOR.md); one that writes a destination it is given, or returns
    a view (here of a weight, the caller's own memory), is lifted as before."""
    from cudagraph_cli.passes.region_planner import allocates_result

    text = '''@I.ir_module
class Module:
    @T.prim_func(private=True)
    def kernel(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        for i in range(16):
            B[i] = A[i]

    @R.function
    def main(w: R.Tensor((16,), "float32")):
        R.func_attr({"relax.force_pure": True, "num_input": 0})
        cls = Module
        s = R.memory.alloc_storage(R.shape([64]), 0, "global", "float32")
        a = R.memory.alloc_tensor(s, 0, R.shape([16]), "float32")
        op: R.Tensor((16,), "float32") = R.exp(w)
        op_bare = R.exp(w)
        packed_tensor = R.call_packed("make", w, ty_args=(R.Tensor((16,), "float32"),))
        packed_pair = R.call_packed("pair", w, ty_args=(R.Tuple(R.Tensor((16,), "float32"), R.Tensor((16,), "float32")),))
        packed_dps = R.call_packed("k", w, a, ty_args=(R.Tuple,))
        prim = cls.kernel(w, a)
        view: R.Tensor((4, 4), "float32") = R.reshape(w, R.shape([4, 4]))
        return (op, op_bare, packed_tensor, packed_pair, packed_dps, prim, view)
'''
    main = parse_module(text).function("main")
    made = {b.var.name: allocates_result(b.value, b.var.sinfo)
            for blk in main.blocks for b in blk.bindings if isinstance(b.value, ir.Call)}
    assert made == {"s": False, "a": False, "op": True, "op_bare": True, "packed_tensor": True,
                    "packed_pair": True, "packed_dps": False, "prim": False, "view": False}
    # and the planner: every call here reads only weights and is returned; those that make
    # their result stay outside (returned-result), the others are lifted
    _, report = rw(text)
    assert sorted(r.binding.var.name for r in report.reasons
                  if r.code == "returned-result") == ["op", "op_bare", "packed_pair",
                                                      "packed_tensor"]
    captured = {b.var.name for r in report.plan.kept_captures() for b in r.bindings}
    assert {"packed_dps", "prim", "view"} <= captured
