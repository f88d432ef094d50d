"""Build samples/real/capture_safety: real modules whose static runs call external functions that
break under CUDA-graph capture or replay, dumped right before and after TVM's RewriteCUDAGraph.

TVM's RewriteCUDAGraph lifts every call with static arguments to a PrimFunc or to an external
function into a capture function, `vm.builtin*` symbols excepted. These modules show what that
does to the external functions real models call: data-dependent output sizes (relax.run.unique,
relax.run.nonzero), library sorts and scans with and without a workspace (thrust), BYOC and TE
extern library calls (cuBLAS), an extern TVM knows nothing about, random number generators, and
a copy between devices (relax.to_vdevice).

    python bench/corpus/build_capture_safety.py [--out samples/real/capture_safety] [--only NAME]

Each module is compiled as build_corpus.py compiles the real corpus: `relax.build(mod,
target=cuda sm_80)` under `relax.backend.use_cuda_graph`, a pass instrument printing the module
right before and right after RewriteCUDAGraph (no GPU needed). Writes OUT/NAME.before.relax and
OUT/NAME.after.relax, a comment header then TVM's text exactly; running it twice gives identical
files (`make corpus` runs it).

Stand-ins. The PyPI wheel of apache-tvm 0.27 is built without thrust and without the cuBLAS BYOC
codegen. Where a module needs them, the script registers, for the duration of that one build,
a global function of the missing name that does nothing (`STAND_INS`):
  - `tvm.contrib.thrust.sort` / `tvm.contrib.thrust.sum_scan`: DispatchSortScan asks
    `can_use_thrust(target, name)` whether the function exists (and the target lists thrust in
    its libs); with the stand-in it dispatches to topi's thrust kernels as a TVM built with
    thrust does. The stand-in is never called: the kernels call it by name at run time.
  - `relax.ext.cublas`: RunCodegen calls it to compile the partitioned functions into a runtime
    module and then replaces each call of one by `R.call_dps_packed("<function name>", ...)`;
    the stand-in returns no module, so everything RunCodegen does to the Relax module is TVM's
    own (only the compiled cuBLAS library module is missing, which no pass before
    RewriteCUDAGraph reads).
So every file here is TVM's output; nothing in them is written by hand.

Modules (NAME: unsafe external calls in it):
  unique_nonzero               relax.run.unique, relax.run.nonzero (LegalizeOps of R.unique
                               and R.nonzero) of a weight-derived tensor
  sampler_tir                  a top-p style sampler (softmax, sort, argsort, cumsum) for
                               cuda with libs=["thrust"], as the wheel builds it: no thrust,
                               DispatchSortScan falls back to TIR sort and scan (no extern)
  sampler_thrust               the same with the thrust stand-ins: tvm.contrib.thrust.sort
                               (sort, argsort) and tvm.contrib.thrust.sum_scan (cumsum), each
                               with the uint8 workspace DispatchSortScan allocates
  sampler_thrust_no_workspace  the same thrust kernels without a workspace (topi's
                               sort_thrust / argsort_thrust / cumsum with workspace=None, as
                               DispatchSortScan called them before apache/tvm#16851): thrust
                               allocates its temporary memory itself on every call
  cublas_byoc                  partition_for_cublas + RunCodegen (stand-in codegen):
                               R.call_dps_packed("fused_relax_matmul_cublas", ...)
  cublas_te_extern             tvm.contrib.cublas.matmul, a te.extern PrimFunc whose body is
                               T.call_packed("tvm.contrib.cublas.matmul", ...), via R.call_tir
  unknown_extern               R.call_dps_packed("my_company.fused_op", ...)
  rng                          tvm.contrib.random.uniform and runtime.contrib.curand.RandomFill
                               through R.call_dps_packed
  to_vdevice                   relax.to_vdevice to the host and back between matmuls of a
                               weight (two vdevices in the module's global infos)

Why a folder of its own under samples/real: these are TVM's dumps like the rest of samples/real
(so the per-sample tests over samples/ leave them out, tests/conftest.py), but small modules
made to show one property each, not models: tests/test_capture_safety_modules.py tests them.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT))  # the bench package, run as a script

from bench.corpus.tvm_capture import (PASS_NAME, TARGET, THRUST_FUNCS,  # noqa: E402
                                      build_and_capture_tolerant, stand_ins)
from bench.corpus.tvm_capture import write_pair as write_corpus_pair  # noqa: E402

# DispatchSortScan uses thrust only when the target lists it (dispatch_sort_scan.py, line 96)
THRUST_TARGET = {**TARGET, "libs": ["thrust"]}
COMMAND = "python bench/corpus/build_capture_safety.py (make corpus)"


# --- the modules -----------------------------------------------------------------------------

def tensor(name, shape, dtype="float32"):
    from tvm import relax

    return relax.Var(name, relax.TensorType(shape, dtype))


def unique_nonzero():
    from tvm import relax

    x, w = tensor("x", (8,)), tensor("w", (8,))
    bb = relax.BlockBuilder()
    # num_input: w is a weight, static for the pass; so is everything computed from it alone
    with bb.function("main", [x, w], attrs={"num_input": 1}):
        with bb.dataflow():
            a = bb.emit(relax.op.multiply(w, relax.const(2.0, "float32")))
            u = bb.emit(relax.op.unique(a, sorted=True, return_index=False,
                                        return_inverse=False, return_counts=False, axis=None))
            nz = bb.emit(relax.op.nonzero(a))
            y = bb.emit(relax.op.add(x, a))
            out = bb.emit_output(relax.Tuple([u, nz, y]))
        bb.emit_func_output(out)
    return bb.get()


def sampler(kernels=None):
    """Top-p style: softmax of the logits, probabilities sorted descending with their indices,
    their running sum, and the kept prefix. The sort, argsort and cumsum write intermediates (a
    kernel writing a returned tensor is never captured) and read the softmax's output, a planned
    intermediate: static, so TVM's pass may capture them. `kernels`: the three as TE functions
    for call_te instead of the Relax ops."""
    from tvm import relax

    logits = tensor("logits", (1, 32))
    bb = relax.BlockBuilder()
    with bb.function("main", [logits], attrs={"num_input": 1}):
        with bb.dataflow():
            p = bb.emit(relax.op.nn.softmax(logits, axis=-1))
            if kernels is None:
                s = bb.emit(relax.op.sort(p, axis=-1, descending=True))
                i = bb.emit(relax.op.argsort(p, axis=-1, descending=True, dtype="int32"))
                c = bb.emit(relax.op.cumsum(s, axis=-1))
            else:
                sort, argsort, cumsum = kernels
                s = bb.emit_te(sort, p, axis=-1, is_ascend=False)
                i = bb.emit_te(argsort, p, axis=-1, is_ascend=False, dtype="int32")
                c = bb.emit_te(cumsum, s, axis=-1)
            keep = bb.emit(relax.op.less(c, relax.const(0.9, "float32")))
            probs = bb.emit(relax.op.where(keep, s, relax.const(0.0, "float32")))
            index = bb.emit(relax.op.where(keep, i, relax.const(-1, "int32")))
            out = bb.emit_output(relax.Tuple([probs, index]))
        bb.emit_func_output(out)
    return bb.get()


def sampler_thrust_no_workspace():
    import tvm
    from tvm import topi

    # topi.gpu.cumsum picks thrust's scan from the target in scope (topi/gpu/scan.py); sort and
    # argsort are thrust's by name. None of them is given a workspace.
    with tvm.target.Target(THRUST_TARGET):
        return sampler((topi.gpu.sort_thrust, topi.gpu.argsort_thrust, topi.gpu.cumsum))


def mlp_fp16(matmul):
    """relu, matmul by w1, relu, matmul by w2, relu: the matmuls read a planned intermediate
    and a weight (static), between kernels TVM captures. `matmul(bb, h, w)` emits one."""
    from tvm import relax

    x = tensor("x", (4, 64), "float16")
    w1, w2 = tensor("w1", (64, 64), "float16"), tensor("w2", (64, 64), "float16")
    bb = relax.BlockBuilder()
    with bb.function("main", [x, w1, w2], attrs={"num_input": 1}):
        with bb.dataflow():
            h = bb.emit(relax.op.nn.relu(x))
            h = matmul(bb, h, w1)
            h = bb.emit(relax.op.nn.relu(h))
            h = matmul(bb, h, w2)
            out = bb.emit_output(relax.op.nn.relu(h))
        bb.emit_func_output(out)
    return bb.get()


def cublas_byoc():
    from tvm import relax
    from tvm.relax.backend.cuda.cublas import partition_for_cublas

    mod = mlp_fp16(lambda bb, h, w: bb.emit(relax.op.matmul(h, w)))
    mod = partition_for_cublas(mod)
    with stand_ins(["relax.ext.cublas"], returns=[]):
        return relax.transform.RunCodegen()(mod)


def cublas_te_extern():
    from tvm.contrib import cublas

    return mlp_fp16(lambda bb, h, w: bb.emit_te(cublas.matmul, h, w, dtype="float16"))


UNKNOWN_EXTERN = """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 16), "float32"), w: R.Tensor((4, 16), "float32")):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            a = R.multiply(w, R.const(2.0, "float32"))
            b = R.call_dps_packed("my_company.fused_op", (a, w),
                                  out_ty=R.Tensor((4, 16), "float32"))
            c = R.exp(b)
            d = R.add(c, R.const(1.0, "float32"))
            e = R.add(x, d)
            R.output(e)
        return e
"""

RNG = """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 16), "float32"), w: R.Tensor((4, 16), "float32")):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            a = R.multiply(w, R.const(2.0, "float32"))
            n = R.call_dps_packed("tvm.contrib.random.uniform",
                                  (R.prim_value(T.float32(0)), R.prim_value(T.float32(1))),
                                  out_ty=R.Tensor((4, 16), "float32"))
            m = R.call_dps_packed("runtime.contrib.curand.RandomFill", (),
                                  out_ty=R.Tensor((4, 16), "float32"))
            b = R.add(a, n)
            c = R.exp(b)
            d = R.add(c, m)
            e = R.add(x, d)
            R.output(e)
        return e
"""

TO_VDEVICE = """
@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice({"kind": "cuda", "arch": "sm_80"}, 0, "global"),
                                       I.vdevice("llvm", 0, "global")]})

    @R.function
    def main(x: R.Tensor((16, 16), "float32"), w: R.Tensor((16, 16), "float32")):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            a = R.matmul(w, w)
            b = R.matmul(a, w)
            h = R.to_vdevice(b, "llvm:0")
            g = R.to_vdevice(h, "cuda:0")
            c = R.matmul(g, w)
            d = R.matmul(c, w)
            e = R.add(x, d)
            R.output(e)
        return e
"""


def from_script(text):
    def make():
        from tvm.script import from_source

        return from_source(text)
    return make


# name: (what it is, the unsafe external calls in it, make the module, target, stand-ins)
MODULES = {
    "unique_nonzero": (
        "R.unique and R.nonzero of a weight-derived tensor (relax.BlockBuilder)",
        "relax.run.unique, relax.run.nonzero (LegalizeOps makes them R.call_pure_packed)",
        unique_nonzero, TARGET, ()),
    "sampler_tir": (
        "a top-p style sampler: softmax, R.sort, R.argsort, R.cumsum (relax.BlockBuilder)",
        "none: the wheel has no thrust, DispatchSortScan falls back to TIR sort and scan",
        sampler, THRUST_TARGET, ()),
    "sampler_thrust": (
        "the sampler of sampler_tir with thrust (relax.BlockBuilder)",
        "tvm.contrib.thrust.sort (sort, argsort), tvm.contrib.thrust.sum_scan (cumsum), each "
        "given the workspace DispatchSortScan allocates (dispatch_sort_scan.py, lines 96-98, "
        "109-111, 219-220, 257-265)",
        sampler, THRUST_TARGET, THRUST_FUNCS),
    "sampler_thrust_no_workspace": (
        "the sampler of sampler_tir calling topi's thrust kernels through emit_te with no "
        "workspace (relax.BlockBuilder)",
        "tvm.contrib.thrust.sort (sort, argsort), tvm.contrib.thrust.sum_scan (cumsum), "
        "without a workspace: thrust allocates its temporary memory on each call",
        sampler_thrust_no_workspace, THRUST_TARGET, THRUST_FUNCS),
    "cublas_byoc": (
        "a float16 MLP's matmuls offloaded to cuBLAS: partition_for_cublas, RunCodegen",
        "fused_relax_matmul_cublas (RunCodegen's R.call_dps_packed of the partitioned function)",
        cublas_byoc, TARGET, ()),
    "cublas_te_extern": (
        "the float16 MLP of cublas_byoc with tvm.contrib.cublas.matmul (a te.extern) via emit_te",
        "tvm.contrib.cublas.matmul (T.call_packed in the te.extern PrimFunc, R.call_tir)",
        cublas_te_extern, TARGET, ()),
    "unknown_extern": (
        "an extern TVM knows nothing about between kernels (TVMScript)",
        "my_company.fused_op (R.call_dps_packed)",
        from_script(UNKNOWN_EXTERN), TARGET, ()),
    "rng": (
        "random numbers added to a weight-derived tensor (TVMScript)",
        "tvm.contrib.random.uniform, runtime.contrib.curand.RandomFill (R.call_dps_packed)",
        from_script(RNG), TARGET, ()),
    "to_vdevice": (
        "a copy to the host and back between matmuls (TVMScript, two vdevices)",
        "relax.to_vdevice (an operator, still there at RewriteCUDAGraph)",
        from_script(TO_VDEVICE), TARGET, ()),
}


def write_pair(out: Path, name: str, lines: list[str], before: str, after: str):
    write_corpus_pair(out, name, lines, before, after,
                            corpus="cgraph capture-safety corpus", command=COMMAND)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "samples" / "real" / "capture_safety")
    parser.add_argument("--only", action="append", metavar="NAME", help="build only these")
    args = parser.parse_args(argv)

    if importlib.util.find_spec("tvm") is None:
        print("apache-tvm is required: pip install -e '.[corpus]'", file=sys.stderr)
        return 2
    unknown = sorted(set(args.only or []) - set(MODULES))
    if unknown:
        print(f"unknown module(s): {', '.join(unknown)}; known: {', '.join(MODULES)}",
              file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)

    for name, (model, unsafe, make, target, stand_in_names) in MODULES.items():
        if args.only and name not in args.only:
            continue
        print(f"{name}: relax.build(target={target}) with {PASS_NAME} captured")
        with stand_ins(stand_in_names):
            before, after, stopped = build_and_capture_tolerant(make(), name, target)
        lines = [
            f"model: {model}",
            f"unsafe external calls: {unsafe}",
            "captured inside relax.build(mod, target) under",
            "PassContext(config={\"relax.backend.use_cuda_graph\": True}) by a pass instrument;",
            f"target {target}",
        ]
        if stand_in_names:
            lines.append(f"stand-ins registered (the wheel lacks them): {', '.join(stand_in_names)}")
        if name == "cublas_byoc":
            lines.append("stand-in registered for RunCodegen (the wheel lacks it): relax.ext.cublas")
        if stopped:
            lines.append(f"relax.build stopped after {PASS_NAME}, in code generation: {stopped}")
        write_pair(args.out, name, lines, before, after)
    return 0


if __name__ == "__main__":
    sys.exit(main())
