"""Synthetic post-memory-planning modules in the shape of an LLM decode step.

Used by the benchmarks (bench/) and tests to get large, realistic inputs: `layers` transformer
layers of `kernels_per_layer` PrimFunc launches each, outputs carved from a small set of reused
storages (as StaticPlanBlockMemory leaves them), weights as parameters past `num_input`, and a
`vm.builtin` KV-cache call between layers. Deterministic for a given seed.
"""

from __future__ import annotations

import random

HIDDEN = 4096
KERNELS = ("rms_norm", "q_proj", "k_proj", "v_proj", "rotary", "attention", "o_proj",
           "residual_add", "gate_up_proj", "silu_multiply", "down_proj", "residual_add2")

_PRIM_TEMPLATE = '''    @T.prim_func(s_tir=True)
    def {name}(A: T.Buffer((T.int64(1), T.int64({n})), "float16"), B: T.Buffer((T.int64({n}), T.int64({n})), "float16"), C: T.Buffer((T.int64(1), T.int64({n})), "float16")):
        T.func_attr({{"tirx.noalias": True}})
        # with T.sblock("root"):
        for i, j in T.grid(T.int64(1), T.int64({n})):
            with T.sblock("compute"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj], B[vj, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = A[vi, vj] * B[vj, vj]
'''


def decode_module(layers: int, kernels_per_layer: int = 12, seed: int = 0) -> str:
    """TVMScript text of a one-function decode module, as TVM 0.27's printer writes it."""
    rng = random.Random(seed)
    n = HIDDEN
    kernels = [KERNELS[i % len(KERNELS)] + ("" if i < len(KERNELS) else f"_{i}")
               for i in range(kernels_per_layer)]
    out = ["# from tvm.script import ir as I", "# from tvm.script import tirx as T",
           "# from tvm.script import relax as R", "", "@I.ir_module(s_tir=True)",
           "class Module:"]
    for name in kernels:
        out.append(_PRIM_TEMPLATE.format(name=name, n=n))
    tensor = f'R.Tensor((1, {n}), dtype="float16")'
    weight = f'R.Tensor(({n}, {n}), dtype="float16")'
    params = ["x: " + tensor, "kv_cache: R.Any"]
    params += [f"w{i}: {weight}" for i in range(kernels_per_layer)]
    out.append("    @R.function")
    out.append(f"    def decode({', '.join(params)}) -> {tensor}:")
    out.append('        R.func_attr({"num_input": 2, "relax.force_pure": True})')
    out.append("        cls = Module")
    storages = 4
    nbytes = 2 * n
    for s in range(storages):
        out.append(f"        storage{s}: R.Any = R.memory.alloc_storage(R.shape([{nbytes}]), "
                   f'0, R.str("global"), R.dtype("uint8"))')
    prev = "x"
    counter = 0
    for layer in range(layers):
        for k, name in enumerate(kernels):
            s = rng.randrange(storages)
            var = f"alloc{counter}"
            counter += 1
            out.append(f"        {var}: {tensor} = R.memory.alloc_tensor(storage{s}, "
                       f'0, R.shape([1, {n}]), R.dtype("float16"), 0)')
            out.append(f"        cls.{name}({prev}, w{k}, {var})")
            prev = var
        out.append(f"        R.call_packed(\"vm.builtin.kv_cache_append\", "
                   f"kv_cache, {prev}, {layer}, ty_args=(R.Tuple,))")
    out.append(f"        result: {tensor} = R.builtin.alloc_tensor(R.shape([1, {n}]), "
               f'R.dtype("float16"), 0, R.str("global"))')
    out.append(f"        _copy: R.Tuple = R.call_packed(\"vm.builtin.copy\", {prev}, result, "
               f"ty_args=(R.Tuple,))")
    for s in range(storages):
        out.append(f"        _kill{s}: R.Tuple = R.memory.kill_storage(storage{s})")
    out.append("        return result")
    return "\n".join(out) + "\n"
