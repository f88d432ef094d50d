"""Build the real-model corpus: TVM's own dumps right before and after its RewriteCUDAGraph.

Each model is built with one of TVM's frontends and compiled the way a TVM user compiles it,
`relax.build(mod, target="cuda")` (arch sm_80) under `relax.backend.use_cuda_graph`; a pass instrument
prints the module (`mod.script()`) right before and right after TVM's `RewriteCUDAGraph`
inside that build. No GPU is needed: `relax.build` only generates code for cuda here.

    python bench/corpus/build_corpus.py [--out samples/real] [--tvm-tests FILE] [--only NAME]

Writes OUT/NAME.before.relax and OUT/NAME.after.relax for each model: a few comment lines
saying where the file came from, then TVM's text exactly as printed (a final newline is
added when TVM's text has none). Running it twice gives identical files (`make corpus`).

Models:
  nn_mlp          relax.frontend.nn: two Linear layers and a ReLU
  nn_llama_kv     relax.frontend.nn: a 2-layer Llama-style decoder (embedding, RMSNorm,
                  attention, SwiGLU MLP) with `prefill` and `decode` functions sharing one
                  nn.KVCache per layer for K and V (TVM's effect-based cache, the one nn offers
                  without MLC-LLM's runtime; the paged cache of nn.llm makes files far over
                  the size this corpus aims at), weights packed as in MLC-LLM
  nn_convnet      relax.frontend.nn: two Conv2D, ReLU, a Linear head
  bb_convnet      relax.BlockBuilder: conv2d, relu, max_pool2d, conv2d, relu, mean
  onnx_convnet    relax.frontend.onnx.from_onnx of a Conv, Relu, Flatten, Gemm graph built
                  with onnx.helper; its weights are initializers, so TVM embeds them as
                  `metadata[...]` constants
  torch_convnet   relax.frontend.torch.from_exported_program of a torch.export'ed Conv2d,
                  ReLU, Linear module (weights as constants too); skipped without torch
  mlc_llama_1b, mlc_qwen2_0_5b, mlc_llama_8b
                  MLC-LLM-style models at the dimensions of Llama-3.2-1B, Qwen2-0.5B and
                  Llama-3.1-8B (bench/corpus/mlc_models.py): paged KV cache (nn.llm's
                  TIRPagedKVCache), float16, packed weights, functions embed / prefill /
                  decode / batch_decode / create_tir_paged_kv_cache with MLC-LLM's
                  attributes; built with TVM's cuda pipeline plus MLC-LLM's LowBatchGEMV
  mlc_olmoe_1b_7b, mlc_olmoe_1b_7b_thrust
                  OLMoE-1B-7B built as MLC-LLM builds a mixture of experts
                  (bench/corpus/mlc_olmoe.py, its MoE ops in mlc_moe_ops.py), all of MLC-LLM's
                  serving functions; the second for a target with libs=["thrust"] (with
                  tvm_capture.py's stand-ins for the thrust functions the wheel lacks)
  mlc_llama_8b_tp2
                  Llama-3.1-8B over 2 tensor-parallel shards, one worker's module
                  (mlc_models.py, tensor_parallel_shards=2): disco's allreduce and
                  broadcast_from_worker0, all seven of MLC-LLM's serving functions
  mlc_gemma2_2b   Gemma-2-2B (bench/corpus/mlc_gemma2.py): sliding window on alternating
                  layers through the paged KV cache's per-layer attn_kind, all seven functions
  mlc_phi2, mlc_gpt2_medium
                  MLC-LLM's Phi and GPT-2 models at the dimensions of microsoft/phi-2 and
                  openai-community/gpt2-medium (bench/corpus/mlc_phi.py, mlc_gpt2.py): all
                  seven of MLC-LLM's serving functions, its hints, and the bounds MLC-LLM
                  derives from each config (context windows 2048 and 1024)
  static_plan_*   with --tvm-tests FILE (apache/tvm's
                  tests/python/relax/test_transform_static_plan_block_memory.py): every
                  class named `Expected` there (the module right after StaticPlanBlockMemory,
                  the pass before RewriteCUDAGraph in TVM's pipeline) read by TVM and run
                  through RewriteCUDAGraph alone, with the same instrument and config. The
                  file is read, not copied: it is TVM's code, the dumps are TVM's output.

Why here and not in samples/real: samples/ holds inputs only (the tests glob it), and this
script, like the benchmarks beside it, needs optional dependencies (apache-tvm, onnx; torch).
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT))  # the bench package, run as a script

from bench.corpus import mlc_gemma2, mlc_gpt2, mlc_models, mlc_olmoe, mlc_phi  # noqa: E402
from bench.corpus.tvm_capture import (PASS_NAME, TARGET, THRUST_FUNCS,  # noqa: E402
                                      build_and_capture, build_and_capture_tolerant,
                                      rewrite_and_capture, stand_ins)
from bench.corpus.tvm_capture import write_pair as write_corpus_pair  # noqa: E402

# The model families of issue 34, one module each beside mlc_models.py: CONFIGS (name -> a
# record with `family`, `describe()` and, where its target needs libraries, `libs`) and
# build(name, target), built with mlc_models.relax_pipeline.
FAMILIES = [mlc_gemma2, mlc_olmoe, mlc_phi, mlc_gpt2]


def mlc_family(name: str):
    """The module (mlc_models or a family's) that builds the MLC-LLM-style model NAME."""
    for family in [mlc_models, *FAMILIES]:
        if name in family.CONFIGS:
            return family
    raise KeyError(f"no MLC-LLM-style model named {name!r}")


COMMAND = "python bench/corpus/build_corpus.py (make corpus)"


# --- relax.frontend.nn -------------------------------------------------------------------

def nn_mlp():
    from tvm.relax.frontend import nn

    class MLP(nn.Module):
        def __init__(self):
            self.fc1 = nn.Linear(16, 32)
            self.fc2 = nn.Linear(32, 8)

        def forward(self, x):
            return self.fc2(nn.relu(self.fc1(x)))

    mod, _ = MLP().export_tvm(spec={"forward": {"x": nn.spec.Tensor((4, 16), "float32")}})
    return mod


def nn_llama_kv():
    from tvm.relax.frontend import nn
    from tvm.relax.frontend.nn import op

    vocab, hidden, heads, inter, layers, max_seq = 64, 32, 4, 64, 2, 64
    head_dim = hidden // heads

    class Attention(nn.Module):
        def __init__(self):
            self.q_proj = nn.Linear(hidden, hidden, bias=False)
            self.k_proj = nn.Linear(hidden, hidden, bias=False)
            self.v_proj = nn.Linear(hidden, hidden, bias=False)
            self.o_proj = nn.Linear(hidden, hidden, bias=False)
            self.k_cache = nn.KVCache(max_seq, [heads, head_dim])
            self.v_cache = nn.KVCache(max_seq, [heads, head_dim])

        def forward(self, x, total_seq_len):
            b, s, _ = x.shape
            q = op.reshape(self.q_proj(x), (b, s, heads, head_dim))
            k = op.reshape(self.k_proj(x), (b, s, heads, head_dim))
            v = op.reshape(self.v_proj(x), (b, s, heads, head_dim))
            self.k_cache.append(op.squeeze(k, axis=0))
            self.v_cache.append(op.squeeze(v, axis=0))
            k = op.unsqueeze(self.k_cache.view(total_seq_len), 0)
            v = op.unsqueeze(self.v_cache.view(total_seq_len), 0)
            q = op.permute_dims(q, [0, 2, 1, 3])
            k = op.permute_dims(k, [0, 2, 3, 1])
            v = op.permute_dims(v, [0, 2, 1, 3])
            scores = op.matmul(q, k) * (1.0 / head_dim ** 0.5)
            out = op.matmul(op.softmax(scores, axis=-1), v)
            out = op.reshape(op.permute_dims(out, [0, 2, 1, 3]), (b, s, hidden))
            return self.o_proj(out)

    class MLP(nn.Module):
        def __init__(self):
            self.gate_proj = nn.Linear(hidden, inter, bias=False)
            self.up_proj = nn.Linear(hidden, inter, bias=False)
            self.down_proj = nn.Linear(inter, hidden, bias=False)

        def forward(self, x):
            return self.down_proj(op.silu(self.gate_proj(x)) * self.up_proj(x))

    class Layer(nn.Module):
        def __init__(self):
            self.input_norm = nn.RMSNorm(hidden, axes=-1, bias=False)
            self.attn = Attention()
            self.post_norm = nn.RMSNorm(hidden, axes=-1, bias=False)
            self.mlp = MLP()

        def forward(self, x, total_seq_len):
            x = x + self.attn(self.input_norm(x), total_seq_len)
            return x + self.mlp(self.post_norm(x))

    class Llama(nn.Module):
        def __init__(self):
            self.embed = nn.Embedding(vocab, hidden)
            self.layers = nn.ModuleList([Layer() for _ in range(layers)])
            self.norm = nn.RMSNorm(hidden, axes=-1, bias=False)
            self.lm_head = nn.Linear(hidden, vocab, bias=False)

        def forward(self, input_ids, total_seq_len):
            x = self.embed(input_ids)
            for layer in self.layers:
                x = layer(x, total_seq_len)
            return self.lm_head(self.norm(x))

        def prefill(self, input_ids, total_seq_len):
            return self.forward(input_ids, total_seq_len)

        def decode(self, input_ids, total_seq_len):
            return self.forward(input_ids, total_seq_len)

    packed = {"param_mode": "packed", "effect_mode": "packed"}
    mod, _ = Llama().export_tvm(spec={
        "prefill": {"input_ids": nn.spec.Tensor([1, "seq_len"], "int32"),
                    "total_seq_len": int, "$": packed},
        "decode": {"input_ids": nn.spec.Tensor([1, 1], "int32"),
                   "total_seq_len": int, "$": packed},
    })
    return mod


def nn_convnet():
    from tvm.relax.frontend import nn
    from tvm.relax.frontend.nn import op

    class ConvNet(nn.Module):
        def __init__(self):
            self.conv1 = nn.Conv2D(3, 8, 3, padding=1)
            self.conv2 = nn.Conv2D(8, 8, 3, padding=1)
            self.fc = nn.Linear(8 * 8 * 8, 10)

        def forward(self, x):
            x = nn.relu(self.conv1(x))
            x = nn.relu(self.conv2(x))
            return self.fc(op.reshape(x, (1, 8 * 8 * 8)))

    mod, _ = ConvNet().export_tvm(
        spec={"forward": {"x": nn.spec.Tensor((1, 3, 8, 8), "float32")}})
    return mod


# --- relax.BlockBuilder ----------------------------------------------------------------------

def bb_convnet():
    from tvm import relax

    def tensor(name, shape):
        return relax.Var(name, relax.TensorType(shape, "float32"))

    x = tensor("x", (1, 3, 16, 16))
    w1, w2 = tensor("w1", (8, 3, 3, 3)), tensor("w2", (16, 8, 3, 3))
    bb = relax.BlockBuilder()
    # num_input: the weights are parameters, static for the pass (as nn's export marks them)
    with bb.function("main", [x, w1, w2], attrs={"num_input": 1}):
        with bb.dataflow():
            y = bb.emit(relax.op.nn.relu(relax.op.nn.conv2d(x, w1, padding=1)))
            y = bb.emit(relax.op.nn.max_pool2d(y, pool_size=2, strides=2))
            y = bb.emit(relax.op.nn.relu(relax.op.nn.conv2d(y, w2, padding=1)))
            out = bb.emit_output(relax.op.mean(y, axis=[2, 3]))
        bb.emit_func_output(out)
    return bb.get()


# --- ONNX --------------------------------------------------------------------------------

def onnx_convnet():
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    from tvm.relax.frontend.onnx import from_onnx

    rng = np.random.default_rng(0)

    def init(name, shape):
        return numpy_helper.from_array(rng.standard_normal(shape).astype("float32"), name)

    nodes = [
        helper.make_node("Conv", ["x", "conv_w", "conv_b"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"]),
        helper.make_node("Flatten", ["r"], ["f"], axis=1),
        helper.make_node("Gemm", ["f", "fc_w", "fc_b"], ["y"], transB=1),
    ]
    graph = helper.make_graph(
        nodes, "convnet",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])],
        initializer=[init("conv_w", (4, 3, 3, 3)), init("conv_b", (4,)),
                     init("fc_w", (10, 4 * 8 * 8)), init("fc_b", (10,))])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    return from_onnx(model)


# --- torch.export --------------------------------------------------------------------------

def torch_convnet():
    import torch
    from tvm.relax.frontend.torch import from_exported_program

    torch.manual_seed(0)

    class ConvNet(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
            self.fc = torch.nn.Linear(4 * 8 * 8, 10)

        def forward(self, x):
            return self.fc(torch.relu(self.conv(x)).flatten(1))

    program = torch.export.export(ConvNet().eval(), (torch.randn(1, 3, 8, 8),))
    return from_exported_program(program)


MODELS = {
    "nn_mlp": ("an MLP (Linear 16->32, ReLU, Linear 32->8)", "relax.frontend.nn", nn_mlp),
    "nn_llama_kv": ("a 2-layer Llama-style decoder, prefill and decode, nn.KVCache",
                    "relax.frontend.nn", nn_llama_kv),
    "nn_convnet": ("a conv net (Conv2D x2, ReLU, Linear)", "relax.frontend.nn", nn_convnet),
    "bb_convnet": ("a conv net (conv2d, relu, max_pool2d, conv2d, relu, mean)",
                   "relax.BlockBuilder", bb_convnet),
    "onnx_convnet": ("an ONNX graph (Conv, Relu, Flatten, Gemm; weights as initializers)",
                     "relax.frontend.onnx.from_onnx", onnx_convnet),
    "torch_convnet": ("a torch module (Conv2d, ReLU, Linear) through torch.export",
                      "relax.frontend.torch.from_exported_program", torch_convnet),
}


# --- TVM's StaticPlanBlockMemory test modules --------------------------------------------

def static_plan_modules(path: Path):
    """(test function name, text) of each `class Expected` in TVM's test file, in file order."""
    source = path.read_text()
    lines = source.splitlines()
    for function in ast.parse(source).body:
        if not isinstance(function, ast.FunctionDef):
            continue
        for node in ast.walk(function):
            if isinstance(node, ast.ClassDef) and node.name == "Expected":
                first = min([d.lineno for d in node.decorator_list] + [node.lineno])
                yield function.name, textwrap.dedent("\n".join(lines[first - 1:node.end_lineno]))


# --- output ------------------------------------------------------------------------------

def write_pair(out: Path, name: str, lines: list[str], before: str, after: str):
    write_corpus_pair(out, name, lines, before, after, corpus="cgraph real corpus",
                      command=COMMAND)


def build_mlc_model(out: Path, family, name: str, config):
    """NAME of FAMILY (mlc_models or a module beside it) built with the MLC-style pipeline for
    the target its config asks for, TVM's text before and after the pass written to OUT.
    Libraries on the target (`libs`: thrust) are built with tvm_capture's stand-ins,
    as a TVM built with thrust dispatches."""
    import tvm

    libs = tuple(getattr(config, "libs", ()))
    target = {**TARGET, "libs": list(libs)} if libs else TARGET
    print(f"{name}: relax.build(target={target}, MLC-style pipeline) with {PASS_NAME} captured")
    thrust, stopped = (), None
    if libs:
        thrust = THRUST_FUNCS if "thrust" in libs else ()
        with stand_ins(thrust):
            mod = family.build(name, tvm.target.Target(target))
            before, after, stopped = build_and_capture_tolerant(
                mod, name, target, mlc_models.relax_pipeline)
    else:
        mod = family.build(name, tvm.target.Target(target))
        before, after = build_and_capture(mod, name, mlc_models.relax_pipeline)
    lines = [
        f"model: MLC-LLM-style {config.family} at {config.describe()}",
        "frontend: relax.frontend.nn + nn.llm.TIRPagedKVCache, float16, packed params",
        f"(bench/corpus/{Path(family.__file__).name}); captured inside relax.build(mod, "
        "target=\"cuda\",",
        "relax_pipeline=mlc_models.relax_pipeline) under",
        "PassContext(config={\"relax.backend.use_cuda_graph\": True}) by a pass instrument;",
        f"target {target} (a fixed arch: the same files on every machine)",
    ]
    if thrust:
        lines.append(f"stand-ins for {', '.join(thrust)} (the wheel has no thrust; "
                     "build_capture_safety.py)")
    if stopped:
        lines.append(f"relax.build stopped after {PASS_NAME}, in code generation: {stopped}")
    write_pair(out, name, lines, before, after)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "samples" / "real")
    parser.add_argument("--tvm-tests", type=Path, metavar="FILE",
                        help="apache/tvm tests/python/relax/test_transform_static_plan_block_memory.py")
    parser.add_argument("--only", action="append", metavar="NAME", help="build only these")
    args = parser.parse_args(argv)

    try:
        import tvm
    except ImportError:
        print("apache-tvm is required: pip install -e '.[corpus]'", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)

    for name, (model, frontend, make) in MODELS.items():
        if args.only and name not in args.only:
            continue
        try:
            mod = make()
        except ImportError as e:
            print(f"{name}: skipped ({e.name or e} is not installed)")
            continue
        print(f"{name}: relax.build(target={TARGET}) with {PASS_NAME} captured")
        before, after = build_and_capture(mod, name)
        write_pair(args.out, name, [
            f"model: {model}",
            f"frontend: {frontend}; captured inside relax.build(mod, target=\"cuda\") under",
            "PassContext(config={\"relax.backend.use_cuda_graph\": True}) by a pass instrument;",
            f"target {TARGET} (a fixed arch: the same files on every machine)",
        ], before, after)

    for family in [mlc_models, *FAMILIES]:
        for name, config in family.CONFIGS.items():
            if args.only and name not in args.only:
                continue
            build_mlc_model(args.out, family, name, config)

    if args.tvm_tests is None:
        print("static_plan_*: skipped (give --tvm-tests FILE, apache/tvm's "
              "tests/python/relax/test_transform_static_plan_block_memory.py)")
        return 0
    digest = hashlib.sha256(args.tvm_tests.read_bytes()).hexdigest()[:16]
    for test, text in static_plan_modules(args.tvm_tests):
        name = "static_plan_" + test.removeprefix("test_")
        if args.only and name not in args.only:
            continue
        print(f"{name}: {PASS_NAME} alone on TVM's reading of {test}'s Expected")
        before, after = rewrite_and_capture(tvm.script.from_source(text), name)
        write_pair(args.out, name, [
            f"model: class Expected of {test}() in apache/tvm",
            f"tests/python/relax/test_transform_static_plan_block_memory.py (sha256 {digest}...),",
            "the module right after StaticPlanBlockMemory, read by tvm.script.from_source;",
            "captured around relax.transform.RewriteCUDAGraph() alone under",
            "PassContext(config={\"relax.backend.use_cuda_graph\": True}) by a pass instrument",
        ], before, after)
    return 0


if __name__ == "__main__":
    sys.exit(main())
