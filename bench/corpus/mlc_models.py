"""MLC-LLM-style models at the dimensions of public model configs (issue 24).

What MLC-LLM compiles, rebuilt with TVM's own `relax.frontend.nn` and `nn.llm` (MLC-LLM itself is
not a dependency): the model definition follows mlc-ai/mlc-llm's `model/llama/llama_model.py` and
`model/qwen2/qwen2_model.py` (fused QKV projection, fused gate/up projection, RMSNorm, the paged
KV cache's `attention_with_fused_qkv`, float16, weights packed into one tuple parameter), with
the five functions a chat model is served by:

    embed(input_ids[seq_len], packed_params)
    prefill(input_embed[1, seq_len, hidden], paged_kv_cache, packed_params)
    decode(input_embed[1, 1, hidden], paged_kv_cache, packed_params)
    batch_decode(input_embeds[batch_size, 1, hidden], paged_kv_cache, packed_params)
    create_tir_paged_kv_cache(max_batch_size, max_total_seq_len, prefill_chunk_size,
                              page_size, support_sliding_window)

`create_tir_paged_kv_cache` is what MLC-LLM's DispatchKVCacheCreation pass makes of its generic
cache creation for a TIR-only target: `nn.llm.TIRPagedKVCache`, whose PrimFuncs (attention,
RoPE, page copies) are passed as values to `vm.builtin.paged_attention_kv_cache_create`.

MLC-LLM's function attributes are attached as its AttachVariableBounds and
AttachCUDAGraphSymbolicCaptureHints passes attach them: every Relax function gets
`tir_var_upper_bound` {seq_len: prefill_chunk_size, total_seq_len: context window,
batch_size: max_batch_size} and `tir_non_negative_var` ["vocab_size"]; `batch_decode` gets
`relax.rewrite_cuda_graph.capture_symbolic_vars` ["batch_size"].

Issue 34 adds `mlc_llama_8b_tp2`: the 8B with MLC-LLM's `tensor_parallel_shards` = 2, the
module one disco worker runs (llama_model.py's sharded attention and MLP, `op.ccl_allreduce`
before each residual add, `op.ccl_broadcast_from_worker0` on embed's input_ids and
batch_prefill's logit_positions; `build`'s docstring), exporting all of SERVING_FUNCTIONS with
MLC-LLM's method bodies (`batch_forward`). The first three keep the five functions above
(`Config.functions`), so their committed samples stay byte-identical. Its bounds are the 8B's
(UPPER_BOUNDS): the same model, served the same way.

One departure: MLC-LLM's vocabulary is symbolic (`vocab_size`); here it is the config's number,
because TVM 0.27's `dl.gpu.Matmul` crashes the process (SIGSEGV) on the LM head of
`batch_decode` when both its batch and its vocabulary are symbolic. MLC-LLM's
`tir_non_negative_var` ["vocab_size"] is attached all the same, as MLC-LLM attaches it.
"""

from __future__ import annotations

from dataclasses import dataclass

# MLC-LLM's defaults for a served model: prefill_chunk_size 2048, max_batch_size 32 (its
# "server" mode), and a context window of 8192 for the bound on total_seq_len.
UPPER_BOUNDS = {"seq_len": 2048, "batch_size": 32, "total_seq_len": 8192}
NON_NEGATIVE = ["vocab_size"]
# MLC-LLM's AttachCUDAGraphSymbolicCaptureHints (batch_verify's input has no batch_size: the
# hint names it all the same, as MLC-LLM does).
CAPTURE_HINTS = {"batch_decode": ["batch_size"], "batch_verify": ["batch_size", "seq_len"]}

# The functions MLC-LLM serves a chat model by (its models' get_default_spec), and the five the
# first three models of the corpus (Llama-3.2-1B, Qwen2-0.5B, Llama-3.1-8B) were built with.
SERVING_FUNCTIONS = ("embed", "prefill", "decode", "batch_prefill", "batch_decode",
                     "batch_verify", "create_tir_paged_kv_cache")
FIRST_FUNCTIONS = ("embed", "prefill", "decode", "batch_decode", "create_tir_paged_kv_cache")


@dataclass(frozen=True)
class Config:
    """The fields of a Hugging Face config.json that the model reads."""

    family: str           # "llama" or "qwen2"
    hidden_size: int
    intermediate_size: int
    num_attention_heads: int
    num_key_value_heads: int
    num_hidden_layers: int
    rms_norm_eps: float
    rope_theta: float
    tie_word_embeddings: bool
    vocab_size: int
    source: str           # which public config the numbers are
    # MLC-LLM's tensor_parallel_shards: above 1 the module is one worker's (its share of the
    # heads and of the MLP, NCCL collectives through disco), as MLC-LLM compiles it
    tensor_parallel_shards: int = 1
    functions: tuple = FIRST_FUNCTIONS   # which of SERVING_FUNCTIONS the module exports

    @property
    def head_dim(self) -> int:
        return self.hidden_size // self.num_attention_heads

    @property
    def qkv_bias(self) -> bool:
        return self.family == "qwen2"   # Qwen2's q/k/v projections have biases

    def describe(self) -> str:
        return (f"{self.source}: hidden {self.hidden_size}, intermediate "
                f"{self.intermediate_size}, {self.num_hidden_layers} layers, "
                f"{self.num_attention_heads} heads / {self.num_key_value_heads} KV heads, "
                f"head_dim {self.head_dim}, vocab {self.vocab_size}"
                f"{', tied embeddings' if self.tie_word_embeddings else ''}"
                + (f", over {self.tensor_parallel_shards} tensor-parallel shards (one "
                   "worker's module)" if self.tensor_parallel_shards > 1 else ""))


# Public config.json values (Hugging Face model cards).
CONFIGS = {
    "mlc_llama_1b": Config("llama", 2048, 8192, 32, 8, 16, 1e-5, 500000.0, True, 128256,
                           "meta-llama/Llama-3.2-1B"),
    "mlc_qwen2_0_5b": Config("qwen2", 896, 4864, 14, 2, 24, 1e-6, 1000000.0, True, 151936,
                             "Qwen/Qwen2-0.5B"),
    "mlc_llama_8b": Config("llama", 4096, 14336, 32, 8, 32, 1e-5, 500000.0, False, 128256,
                           "meta-llama/Llama-3.1-8B"),
    # issue 34: the 8B as `mlc_llm compile --overrides tensor_parallel_shards=2` makes it, with
    # every serving function
    "mlc_llama_8b_tp2": Config("llama", 4096, 14336, 32, 8, 32, 1e-5, 500000.0, False, 128256,
                               "meta-llama/Llama-3.1-8B", tensor_parallel_shards=2,
                               functions=SERVING_FUNCTIONS),
}


class BatchServing:
    """MLC-LLM's batch_prefill, batch_decode and batch_verify, the same in every model: its
    `batch_forward(input_embeds, paged_kv_cache, logit_positions=None)` (the model's own),
    with the cache handed back."""

    def batch_prefill(self, input_embeds, logit_positions, paged_kv_cache):
        return self.batch_forward(input_embeds, paged_kv_cache, logit_positions), paged_kv_cache

    def batch_decode(self, input_embeds, paged_kv_cache):
        return self.batch_forward(input_embeds, paged_kv_cache), paged_kv_cache

    def batch_verify(self, input_embeds, paged_kv_cache):
        return self.batch_forward(input_embeds, paged_kv_cache), paged_kv_cache


def build(name: str, target):
    """The exported IRModule of model NAME, with MLC-LLM's function attributes.

    With tensor_parallel_shards N > 1 it is one worker's module, as MLC-LLM's llama_model.py
    makes it: each worker holds 1/N of the query and KV heads (the fused QKV projection and
    o_proj, sharded by heads: its _set_tp's ShardSingleDim on dim 0 / dim 1) and 1/N of the
    MLP (gate/up rows, down_proj columns); the partial sums of o_proj and down_proj meet in
    `op.ccl_allreduce(out, "sum") + residual`; embed's input_ids and batch_prefill's
    logit_positions come from worker 0 (`op.ccl_broadcast_from_worker0`). The embedding, the
    norms and the LM head are whole on every worker (MLC-LLM sets no shard strategy on them).
    Not ported: MLC-LLM's compile also adds one PrimFunc per shard strategy to the module
    (`_shard_qkv`, `_shard_o`, `_shard_mlp_up`, `_shard_mlp_down`: ShardSingleDim.gen_tir,
    interface/compile.py's extra_tirs), which its loader calls to split the checkpoint; no
    Relax function calls them, so the CUDA-graph rewrite has nothing to do with them.
    """
    from tvm import relax, tirx
    from tvm.relax.frontend import nn
    from tvm.relax.frontend.nn import op
    from tvm.relax.frontend.nn.llm.kv_cache import PagedKVCache, RopeMode, TIRPagedKVCache

    cfg = CONFIGS[name]
    shards = cfg.tensor_parallel_shards
    if cfg.num_key_value_heads % shards or cfg.intermediate_size % shards:
        raise ValueError(f"{name}: {shards} shards do not divide the KV heads and the MLP")
    d = cfg.head_dim
    h_q, h_kv = cfg.num_attention_heads // shards, cfg.num_key_value_heads // shards
    intermediate = cfg.intermediate_size // shards

    def residual(out, x):
        """MLC-LLM's _apply_residual: the workers' partial sums are added up first."""
        return (op.ccl_allreduce(out, "sum") if shards > 1 else out) + x

    class Attention(nn.Module):
        def __init__(self):
            self.qkv_proj = nn.Linear(cfg.hidden_size, (h_q + 2 * h_kv) * d, bias=cfg.qkv_bias)
            self.o_proj = nn.Linear(h_q * d, cfg.hidden_size, bias=False)

        def forward(self, x, cache: PagedKVCache, layer_id: int):
            b, s, _ = x.shape
            qkv = op.reshape(self.qkv_proj(x), (b, s, h_q + 2 * h_kv, d))
            out = cache.attention_with_fused_qkv(layer_id, qkv, h_q, sm_scale=d ** -0.5)
            return self.o_proj(op.reshape(out, (b, s, h_q * d)))

    class FFN(nn.Module):
        def __init__(self):
            self.gate_up_proj = nn.Linear(cfg.hidden_size, 2 * intermediate, bias=False)
            self.down_proj = nn.Linear(intermediate, cfg.hidden_size, bias=False)

        def forward(self, x):
            x1, x2 = op.split(self.gate_up_proj(x), 2, axis=-1)
            return self.down_proj(op.silu(x1) * x2)

    class Layer(nn.Module):
        def __init__(self):
            self.self_attn = Attention()
            self.mlp = FFN()
            self.input_layernorm = nn.RMSNorm(cfg.hidden_size, -1, cfg.rms_norm_eps, bias=False)
            self.post_attention_layernorm = nn.RMSNorm(cfg.hidden_size, -1, cfg.rms_norm_eps,
                                                       bias=False)

        def forward(self, x, cache, layer_id):
            x = residual(self.self_attn(self.input_layernorm(x), cache, layer_id), x)
            return residual(self.mlp(self.post_attention_layernorm(x)), x)

    class Embedding(nn.Embedding):
        def lm_head_forward(self, x):
            return op.matmul(x, op.permute_dims(self.weight), out_dtype="float32")

    class Model(nn.Module):
        def __init__(self):
            self.embed_tokens = Embedding(cfg.vocab_size, cfg.hidden_size)
            self.layers = nn.ModuleList([Layer() for _ in range(cfg.num_hidden_layers)])
            self.norm = nn.RMSNorm(cfg.hidden_size, -1, cfg.rms_norm_eps, bias=False)

        def forward(self, x, cache):
            for layer_id, layer in enumerate(self.layers):
                x = layer(x, cache, layer_id)
            return self.norm(x)

    class ForCausalLM(BatchServing, nn.Module):
        def __init__(self):
            self.model = Model()
            if not cfg.tie_word_embeddings:
                self.lm_head = nn.Linear(cfg.hidden_size, cfg.vocab_size, bias=False)
            self.dtype = "float32"

        def get_logits(self, hidden):
            if cfg.tie_word_embeddings:
                logits = self.model.embed_tokens.lm_head_forward(hidden)
            else:
                logits = self.lm_head(hidden)
            return logits.astype("float32") if logits.dtype != "float32" else logits

        def batch_forward(self, input_embeds, paged_kv_cache, logit_positions=None):
            hidden = self.model(input_embeds, paged_kv_cache)
            if logit_positions is not None:
                if shards > 1:
                    logit_positions = op.ccl_broadcast_from_worker0(logit_positions)
                hidden = op.take(hidden, logit_positions, axis=1)
            return self.get_logits(hidden)

        def embed(self, input_ids):
            if shards > 1:
                input_ids = op.ccl_broadcast_from_worker0(input_ids)
            return self.model.embed_tokens(input_ids)

        def prefill(self, input_embed, paged_kv_cache):
            def last(x):  # x[:, -1:, :], as MLC-LLM's prefill takes the last position
                from tvm import te
                b, s, h = x.shape
                return te.compute((b, 1, h), lambda i, _, k: x[i, s - 1, k], name="index")

            hidden = op.tensor_expr_op(last, name_hint="index",
                                       args=[self.model(input_embed, paged_kv_cache)])
            return self.get_logits(hidden), paged_kv_cache

        def decode(self, input_embed, paged_kv_cache):
            return self.get_logits(self.model(input_embed, paged_kv_cache)), paged_kv_cache

        def create_tir_paged_kv_cache(self, max_batch_size, max_total_seq_len,
                                      prefill_chunk_size, page_size, support_sliding_window):
            return TIRPagedKVCache(
                attn_kind="mha", max_batch_size=max_batch_size,
                max_total_seq_len=max_total_seq_len, prefill_chunk_size=prefill_chunk_size,
                page_size=page_size, support_sliding_window=support_sliding_window,
                layer_partition=relax.ShapeExpr([0, cfg.num_hidden_layers]),
                num_hidden_layers=cfg.num_hidden_layers, num_attention_heads=h_q,
                num_key_value_heads=h_kv, qk_head_dim=d, v_head_dim=d,
                mla_original_qk_head_dim=0, mla_original_v_head_dim=0,
                rope_mode=RopeMode.NORMAL, rope_scale=1, rope_theta=cfg.rope_theta,
                rope_scaling={}, rope_ext_factors=relax.prim_value(0), rotary_dim=d,
                enable_disaggregation=False, dtype=self.dtype, target=target)

    model = ForCausalLM()
    model.to("float16")
    del tirx
    return export(model, cfg.hidden_size, cfg.functions)


def serving_spec(hidden: int, functions=SERVING_FUNCTIONS, dtype: str = "float16") -> dict:
    """MLC-LLM's `get_default_spec` for FUNCTIONS of a model whose hidden size is HIDDEN."""
    from tvm.relax.frontend import nn
    from tvm.relax.frontend.nn.llm.kv_cache import PagedKVCache

    packed = {"param_mode": "packed", "effect_mode": "none"}
    kv = nn.spec.Object(object_type=PagedKVCache)
    spec = {
        "embed": {"input_ids": nn.spec.Tensor(["seq_len"], "int32"), "$": packed},
        "prefill": {"input_embed": nn.spec.Tensor([1, "seq_len", hidden], dtype),
                    "paged_kv_cache": kv, "$": packed},
        "decode": {"input_embed": nn.spec.Tensor([1, 1, hidden], dtype),
                   "paged_kv_cache": kv, "$": packed},
        "batch_prefill": {"input_embeds": nn.spec.Tensor([1, "seq_len", hidden], dtype),
                          "logit_positions": nn.spec.Tensor(["batch_size"], "int32"),
                          "paged_kv_cache": kv, "$": packed},
        "batch_decode": {"input_embeds": nn.spec.Tensor(["batch_size", 1, hidden], dtype),
                         "paged_kv_cache": kv, "$": packed},
        "batch_verify": {"input_embeds": nn.spec.Tensor([1, "seq_len", hidden], dtype),
                         "paged_kv_cache": kv, "$": packed},
        "create_tir_paged_kv_cache": {
            "max_batch_size": int, "max_total_seq_len": int, "prefill_chunk_size": int,
            "page_size": int, "support_sliding_window": int,
            "$": {"param_mode": "none", "effect_mode": "none"}},
    }
    return {name: spec[name] for name in functions}


def export(model, hidden: int, functions=SERVING_FUNCTIONS, bounds=None):
    """MODEL's exported IRModule (FUNCTIONS, MLC-LLM's specs), with MLC-LLM's attributes
    (BOUNDS: its tir_var_upper_bound, UPPER_BOUNDS unless the model's config says otherwise)."""
    mod, _ = model.export_tvm(spec=serving_spec(hidden, functions))
    return attach_mlc_attributes(mod, bounds or UPPER_BOUNDS)


def attach_mlc_attributes(mod, bounds=None):
    """MLC-LLM's AttachVariableBounds and AttachCUDAGraphSymbolicCaptureHints, as it runs them."""
    from tvm import relax

    for gvar, func in list(mod.functions_items()):
        if not isinstance(func, relax.Function):
            continue
        func = func.with_attr("tir_var_upper_bound", bounds or UPPER_BOUNDS)
        func = func.with_attr("tir_non_negative_var", NON_NEGATIVE)
        if gvar.name_hint in CAPTURE_HINTS:
            func = func.with_attr("relax.rewrite_cuda_graph.capture_symbolic_vars",
                                  CAPTURE_HINTS[gvar.name_hint])
        mod[gvar] = func
    return mod


def relax_pipeline(target):
    """TVM's cuda pipeline, with MLC-LLM's low-batch GEMV schedule tried first.

    MLC-LLM schedules the matmuls of `batch_decode` (a symbolic batch of single tokens) with
    dlight's LowBatchGEMV before its default rules (its LowBatchGemvSpecialize pass); TVM
    0.27's `dl.gpu.Matmul` crashes the process (SIGSEGV) on those PrimFuncs.
    """
    import tvm
    from tvm import relax
    from tvm.relax.backend.cuda import pipeline as cuda
    from tvm.s_tir import dlight as dl

    @tvm.transform.module_pass(opt_level=0, name="MLCStylePipeline")
    def _pipeline(mod, _ctx):
        legalize = cuda.legalize_passes(target)
        # LowBatchGEMV right before TVM's default dlight rules (the last legalize pass)
        legalize.insert(len(legalize) - 1, dl.ApplyDefaultSchedule(dl.gpu.LowBatchGEMV(4)))
        with target:
            return tvm.transform.Sequential(
                cuda.library_dispatch_passes(target) + legalize
                + cuda.dataflow_lower_passes(target) + cuda.finalize_passes(target))(mod)

    del relax
    return _pipeline
