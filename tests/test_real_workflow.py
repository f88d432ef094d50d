"""The whole workflow on every model of samples/real: one test per model.

Each step is what a user runs on a dump of TVM's, through the CLI (in process) and TVM 0.27:

1. `cgraph fmt`: exit 0, and TVM loads the output, equal to TVM's reading of the input.
2. `cgraph rewrite`: exit 0; TVM loads the output with its well-formedness check on, equal to
   TVM's own pass output (the after file) but for a documented correction; the TVM-compatible
   rewrite (corrections off) equals it exactly.
3. `cgraph diff --format json`: per function, the kernels cgraph captures = the kernels TVM's
   pass captured (counted here in TVM's reading of the after file, not by cgraph).
4. `cgraph verify`: the input against cgraph's output, and against TVM's output: exit 0.
5. `cgraph run --device cpu`: the input and cgraph's output: exit 0.
6. The TVM pass (`cudagraph_cli.tvm.RewriteCUDAGraph`) on TVM's reading of the input: equal to
   TVM's own pass on the same module, but for the same corrections.

Where TVM cannot read its own dump, it reads it after the hand fix-up of tests/helpers/tvm_oracle.py
(`without_alloc_ty_args`); metadata constants are given to TVM's reader in `extra_vars`
(`tvm_parse_with_constants`). The corrections are cgraph's documented ones (docs/REWRITE.md);
here only correction 6 shows: TVM's static_plan_view `main` calls the cuda_graph builtins with
no relax.force_pure (TVM's own reader rejects it), cgraph's says relax.force_pure.
"""

from __future__ import annotations

import json

import pytest

from cli_runner import cgraph
from conftest import REAL_SAMPLES
from cudagraph_cli.text.reader import parse_module
from cudagraph_cli.passes.options import RewriteOptions
from cudagraph_cli.passes.pipeline import rewrite
from cudagraph_cli.text.printer import print_module
from tvm_oracle import tvm_equal, tvm_parse_with_constants, without_alloc_ty_args

# The MLC-LLM-style models at real size (mlc_*) go through the same steps in files of their own,
# where each costly TVM reading of a 5,000-line module is made once: tests/test_real_size_tvm.py
# (fmt and rewrite outputs read by TVM with its well-formedness check and equal to its reading
# of the dumps, the TVM pass inside relax.build) and tests/test_real_size.py (rewrite equal to
# TVM's after file, diff's captured kernels counted in TVM's text, verify against both
# rewrites, run --device cpu, memory).
NAMES = sorted({p.name.split(".")[0] for p in REAL_SAMPLES.glob("*.relax")
                if not p.name.startswith("mlc_")})
# The functions of a module where cgraph corrects TVM's pass (docs/REWRITE.md): correction 6,
# relax.force_pure on a function the pass makes call the impure cuda_graph builtins.
FORCE_PURE = {"static_plan_view": ["main"]}


def tvm_reading(path: str, check_well_formed: bool = True):
    """TVM's reading of a stored dump of TVM's (the ty_args fix-up applied)."""
    return tvm_parse_with_constants(without_alloc_ty_args(open(path).read()),
                                    check_well_formed=check_well_formed)


def with_force_pure(module, names):
    for name in names:
        gv = module.get_global_var(name)
        module[gv] = module[gv].with_attr("relax.force_pure", True)
    return module


def tvm_captured(module) -> dict:
    """Per public function, the kernels TVM's pass put in graphs: the PrimFunc and packed calls
    of the capture functions each of its run_or_capture calls names (TVM's IR, read by TVM)."""
    from tvm import relax, tirx

    def calls(func):
        return [b.value for blk in func.body.blocks for b in blk.bindings
                if isinstance(b.value, relax.Call)]

    def is_kernel(call):
        op = call.op
        if isinstance(op, relax.ExternFunc):
            return True
        return type(op).__name__ == "GlobalVar" and isinstance(module[op], tirx.PrimFunc)

    counts = {}
    for gv, func in module.functions_items():
        if not isinstance(func, relax.Function) or "global_symbol" not in (func.attrs or {}):
            continue
        n = 0
        for c in calls(func):
            if getattr(c.op, "name", "") != "relax.call_builtin_with_ctx":
                continue
            if c.args[0].global_symbol != "vm.builtin.cuda_graph.run_or_capture":
                continue
            n += sum(map(is_kernel, calls(module[c.args[1].fields[0]])))
        counts[gv.name_hint] = n
    return counts


@pytest.mark.tvm
@pytest.mark.parametrize("name", NAMES)
def test_workflow(tvm, name, tmp_path):
    from tvm import relax

    from cudagraph_cli.tvm import RewriteCUDAGraph

    before = str(REAL_SAMPLES / f"{name}.before.relax")
    after = str(REAL_SAMPLES / f"{name}.after.relax")
    corrected = FORCE_PURE.get(name, [])
    # TVM's well-formedness check is most of the time TVM takes to read a module (7 of 10 s on
    # nn_llama_kv): it runs where it is the point, on cgraph's rewrite.
    tvm_before = tvm_reading(before, check_well_formed=False)
    tvm_after = tvm_reading(after, check_well_formed=False)

    # 1. fmt
    code, out, err = cgraph("fmt", before)
    assert (code, err) == (0, "")
    assert tvm_equal(tvm_parse_with_constants(out, check_well_formed=False), tvm_before) is None

    # 2. rewrite
    rewritten = str(tmp_path / "rewritten.relax")
    r = cgraph("rewrite", before, "-o", rewritten)
    assert r.exit_code == 0, r.stderr
    mine = tvm_parse_with_constants(open(rewritten).read())  # well-formed, checked
    if corrected:
        assert tvm_equal(mine, tvm_after) is not None
        expected = with_force_pure(tvm_parse_with_constants(without_alloc_ty_args(
            open(after).read()), check_well_formed=False), corrected)  # a copy of its own
        assert tvm_equal(mine, expected) is None
    else:
        assert tvm_equal(mine, tvm_after) is None
    exact, _ = rewrite(parse_module(open(before).read()), RewriteOptions.tvm_compat())
    assert tvm_equal(tvm_parse_with_constants(print_module(exact), check_well_formed=False),
                     tvm_after) is None

    # 3. diff: what cgraph captures is what TVM captured
    code, out, err = cgraph("diff", before, "--format", "json")
    assert (code, err) == (0, "")
    assert {f["name"]: f["captured"] for f in json.loads(out)["functions"]} == \
        tvm_captured(tvm_after)

    # 4. verify, against cgraph's rewrite and against TVM's
    for other in (rewritten, after):
        code, out, err = cgraph("verify", before, other)
        assert code == 0, err
        assert "equal: " in out, out

    # 5. run on the reference executor
    for module in (before, rewritten):
        code, out, err = cgraph("run", module, "--device", "cpu")
        assert code == 0, err

    # 6. the TVM pass, on the module TVM read, against TVM's own pass
    with tvm.transform.PassContext(config={"relax.backend.use_cuda_graph": True}):
        ours = RewriteCUDAGraph()(tvm_before)
        theirs = relax.transform.RewriteCUDAGraph()(tvm_before)
    assert tvm_equal(ours, with_force_pure(theirs, corrected)) is None
