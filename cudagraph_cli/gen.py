"""`cgraph gen`: realistic post-memory-planning modules of any size, deterministic per seed.

The shape of an LLM after TVM's lowering and StaticPlanBlockMemory: each function takes its
inputs, a KV cache object, and the weights (parameters past `num_input`); each of `layers`
transformer layers is a run of `kernels_per_layer` PrimFunc launches (norm, projections,
attention, MLP, residual adds), broken by a `vm.builtin` KV-cache call, the way attention
reaches the paged KV cache. Intermediate tensors live in storages that are reused as soon as
the tensor in them is dead (`R.memory.kill_tensor`, then the next tensor takes the storage),
as StaticPlanBlockMemory plans them; the result is copied into an `R.builtin.alloc_tensor`.

`prefill` has a symbolic sequence length `n` (storages sized for `max_seq` tokens) and asks
for it to be captured (`relax.rewrite_cuda_graph.capture_symbolic_vars`); `decode` handles
one token. A module with both shares its storages through `cuda_graph_alloc` after rewriting.
Weights are shared by all layers (`kernels_per_layer` of them), which keeps the module, and
running it, small.
"""

from __future__ import annotations

import random

ROLES = ("rms_norm", "q_proj", "k_proj", "v_proj", "rotary", "attention", "o_proj",
         "residual_add", "rms_norm2", "gate_up_proj", "silu_multiply", "down_proj")
KV_AFTER = 4  # the KV-cache builtin comes after the first KV_AFTER kernels of a layer


def _kernel_names(k: int) -> list[str]:
    return [ROLES[i % len(ROLES)] + ("" if i < len(ROLES) else f"_{i // len(ROLES)}")
            for i in range(k)]


def _prim_func(name: str, hidden: int, symbolic: bool) -> str:
    if symbolic:
        return f'''    @T.prim_func(s_tir=True)
    def {name}(a_handle: T.handle, w: T.Buffer((T.int64({hidden}), T.int64({hidden})), "float16"), c_handle: T.handle):
        T.func_attr({{"tirx.noalias": True}})
        n = T.int64()
        A = T.match_buffer(a_handle, (T.int64(1), n, T.int64({hidden})), "float16")
        C = T.match_buffer(c_handle, (T.int64(1), n, T.int64({hidden})), "float16")
        # with T.sblock("root"):
        for i, j, k in T.grid(T.int64(1), n, T.int64({hidden})):
            with T.sblock("compute"):
                vi, vj, vk = T.axis.remap("SSS", [i, j, k])
                T.reads(A[vi, vj, vk], w[vk, vk])
                T.writes(C[vi, vj, vk])
                C[vi, vj, vk] = A[vi, vj, vk] * w[vk, vk]
'''
    return f'''    @T.prim_func(s_tir=True)
    def {name}(A: T.Buffer((T.int64(1), T.int64({hidden})), "float16"), w: T.Buffer((T.int64({hidden}), T.int64({hidden})), "float16"), C: T.Buffer((T.int64(1), T.int64({hidden})), "float16")):
        T.func_attr({{"tirx.noalias": True}})
        # with T.sblock("root"):
        for i, j in T.grid(T.int64(1), T.int64({hidden})):
            with T.sblock("compute"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj], w[vj, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = A[vi, vj] * w[vj, vj]
'''


class _Function:
    """Emits one function's body, planning storages as StaticPlanBlockMemory would."""

    def __init__(self, name: str, layers: int, kernels: list[str], hidden: int,
                 symbolic: bool, max_seq: int, rng: random.Random):
        self.name, self.layers, self.kernels = name, layers, kernels
        self.hidden, self.symbolic, self.max_seq, self.rng = hidden, symbolic, max_seq, rng
        self.lines: list[str] = []
        self.free: list[str] = []  # storages whose tensor is dead
        self.storages: list[str] = []
        self.storage_of: dict[str, str] = {}
        self.counter = 0

    def fresh(self, base: str) -> str:
        self.counter += 1
        return f"{base}{self.counter}"

    @property
    def tensor_type(self) -> str:
        dims = f"(1, n, {self.hidden})" if self.symbolic else f"(1, {self.hidden})"
        return f'R.Tensor({dims}, dtype="float16")'

    @property
    def shape(self) -> str:
        return f"R.shape([1, n, {self.hidden}])" if self.symbolic else \
            f"R.shape([1, {self.hidden}])"

    def alloc(self) -> str:
        if self.free:
            # Which free storage the planner picks depends on its internals: vary it by seed.
            storage = self.free.pop(self.rng.randrange(len(self.free)))
        else:
            storage = f"storage{len(self.storages)}"
            tokens = self.max_seq if self.symbolic else 1
            self.storages.append(storage)
            self.lines.append(f"{storage}: R.Any = R.memory.alloc_storage("
                              f"R.shape([{2 * self.hidden * tokens}]), R.prim_value(0), "
                              f'R.str("global"), R.dtype("float16"))')
        t = self.fresh("alloc")
        self.storage_of[t] = storage
        self.lines.append(f"{t}: {self.tensor_type} = R.memory.alloc_tensor({storage}, "
                          f'R.prim_value(0), {self.shape}, R.dtype("float16"))')
        return t

    def kill(self, t: str):
        if t in self.storage_of:
            self.lines.append(f"R.memory.kill_tensor({t})")
            self.free.append(self.storage_of.pop(t))

    def kernel(self, name: str, a: str, w: str) -> str:
        out = self.alloc()
        prefix = "prefill_" if self.symbolic else ""
        self.lines.append(f"cls.{prefix}{name}({a}, {w}, {out})")
        return out

    def body(self) -> list[str]:
        layer_in = "x"
        for layer in range(self.layers):
            cur = layer_in
            for k, name in enumerate(self.kernels):
                if name.startswith("residual_add"):
                    out = self.kernel(name, cur, f"w{k}")  # adds the layer input back
                    self.lines.append(f'R.call_packed("residual_accumulate", {layer_in}, {out}, '
                                      f"ty_args=(R.Tuple,))")
                else:
                    out = self.kernel(name, cur, f"w{k}")
                if cur != layer_in:
                    self.kill(cur)
                cur = out
                if k == KV_AFTER - 1 or (len(self.kernels) < KV_AFTER and k == 0):
                    self.lines.append(f'R.call_packed("vm.builtin.kv_cache_append", kv_cache, '
                                      f"{cur}, R.prim_value({layer}), ty_args=(R.Tuple,))")
            if layer_in != "x":
                self.kill(layer_in)
            layer_in = cur
        dims = "[1, n, %d]" % self.hidden if self.symbolic else "[1, %d]" % self.hidden
        self.lines.append(f"result: {self.tensor_type} = R.builtin.alloc_tensor(R.shape({dims}), "
                          f'R.dtype("float16"), R.prim_value(0))')
        self.lines.append(f'R.call_packed("vm.builtin.copy", {layer_in}, result, '
                          "ty_args=(R.Tuple,))")
        self.kill(layer_in)
        for s in self.storages:
            self.lines.append(f"R.memory.kill_storage({s})")
        self.lines.append("return result")
        return self.lines

    def text(self) -> str:
        h = self.hidden
        x_ty = f'R.Tensor((1, "n", {h}), dtype="float16")' if self.symbolic else \
            f'R.Tensor((1, {h}), dtype="float16")'
        params = [f"x: {x_ty}", "kv_cache: R.Any"]
        params += [f'w{k}: R.Tensor(({h}, {h}), dtype="float16")'
                   for k in range(len(self.kernels))]
        attrs = ['"num_input": 2', '"relax.force_pure": True']
        if self.symbolic:
            attrs.append('"relax.rewrite_cuda_graph.capture_symbolic_vars": ["n"]')
        head = ["n = T.int64()"] if self.symbolic else []
        head += ["R.func_attr({" + ", ".join(attrs) + "})", "cls = Module"]
        body = self.body()
        lines = ["    @R.function", f"    def {self.name}({', '.join(params)}) -> {x_ty}:"]
        lines += ["        " + ln for ln in head + body]
        return "\n".join(lines) + "\n"


def decode_module(layers: int, kernels_per_layer: int = 12, seed: int = 0,
                  functions: tuple = ("decode",), hidden: int = 4096,
                  max_seq: int = 128) -> str:
    """TVMScript text of an LLM-style module (current dialect)."""
    for f in functions:
        if f not in ("prefill", "decode"):
            raise ValueError(f"unknown function '{f}' (prefill, decode)")
    rng = random.Random(seed)
    kernels = _kernel_names(kernels_per_layer)
    out = [f"# Generated by `cgraph gen decode --layers {layers} --kernels-per-layer "
           f"{kernels_per_layer} --functions {','.join(functions)} --hidden {hidden} "
           f"--max-seq {max_seq} --seed {seed}`.", "",
           "# from tvm.script import ir as I", "# from tvm.script import tirx as T",
           "# from tvm.tirx.layout import Axis",
           "# from tvm.script import relax as R", "", "@I.ir_module(s_tir=True)",
           "class Module:"]
    parts = []
    for name in kernels:
        if "decode" in functions:
            parts.append(_prim_func(name, hidden, False))
        if "prefill" in functions:
            parts.append(_prim_func("prefill_" + name, hidden, True))
    for f in functions:
        parts.append(_Function(f, layers, kernels, hidden, f == "prefill", max_seq, rng).text())
    return "\n".join(out) + "\n" + "\n".join(parts)


def chain_module(n: int, size: int = 1024, dtype: str = "float32") -> str:
    """TVMScript text of a chain of `n` tiny elementwise kernels (`add_one`, each reading the
    previous one's output), memory planned into two storages used in turn, the last one
    writing the destination `out`. Both parameters are weights (num_input 0: fixed buffers, as
    a benchmark's are), so the whole chain is static and becomes one CUDA graph: the benchmark
    of launch overhead, eager against graphs. `n` = 1 is one kernel from `x` to `out`: a
    one-kernel graph against one launch, the figure `--min-kernels`' default rests on."""
    if n < 1:
        raise ValueError("a chain has at least 1 kernel")
    itemsize = {"float16": 2, "float32": 4, "float64": 8}[dtype]
    ty = f'R.Tensor(({size},), dtype="{dtype}")'
    lines = [f"# Generated by `cgraph gen chain --length {n} --size {size} --dtype {dtype}`.",
             "", "@I.ir_module(s_tir=True)", "class Module:",
             "    @T.prim_func(s_tir=True)",
             f'    def add_one(A: T.Buffer((T.int64({size}),), "{dtype}"), '
             f'B: T.Buffer((T.int64({size}),), "{dtype}")):',
             '        T.func_attr({"tirx.noalias": True})',
             f"        for i in range(T.int64({size})):",
             '            with T.sblock("B"):',
             f"                vi = T.axis.spatial(T.int64({size}), i)",
             f"                B[vi] = A[vi] + T.{dtype}(1)",
             "",
             "    @R.function",
             f"    def chain(x: {ty}, out: {ty}) -> {ty}:",
             '        R.func_attr({"relax.force_pure": True, "num_input": 0})',
             "        cls = Module"]
    for s in (0, 1):
        lines.append(f"        storage{s}: R.Any = R.memory.alloc_storage("
                     f"R.shape([{size * itemsize}]), R.prim_value(0), R.str(\"global\"), "
                     f'R.dtype("{dtype}"))')
    prev = "x"
    for i in range(n - 1):
        lines.append(f"        t{i}: {ty} = R.memory.alloc_tensor(storage{i % 2}, "
                     f'R.prim_value(0), R.shape([{size}]), R.dtype("{dtype}"))')
        lines.append(f"        _{i}: R.Tuple = cls.add_one({prev}, t{i})")
        if i >= 1:
            lines.append(f"        _k{i}: R.Tuple = R.memory.kill_tensor({prev})")
        prev = f"t{i}"
    lines.append(f"        _{n - 1}: R.Tuple = cls.add_one({prev}, out)")
    if n > 1:  # x is a parameter: never killed
        lines.append(f"        _k{n - 1}: R.Tuple = R.memory.kill_tensor({prev})")
    lines.append("        _s0: R.Tuple = R.memory.kill_storage(storage0)")
    lines.append("        _s1: R.Tuple = R.memory.kill_storage(storage1)")
    lines.append("        return out")
    return "\n".join(lines) + "\n"
