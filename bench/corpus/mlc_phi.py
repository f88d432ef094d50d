"""MLC-LLM's Phi family at the dimensions of microsoft/phi-2 (issue 34).

The model follows mlc-ai/mlc-llm's `python/mlc_llm/model/phi/phi_model.py`, written here with
TVM's own `relax.frontend.nn` and `nn.llm` (MLC-LLM is not a dependency):

  - PhiParallelBlock: one LayerNorm (with bias) feeds both the attention (PhiMHA) and the MLP
    (PhiMLP), and the block returns attention + MLP + residual;
  - PhiMHA: the fused `Wqkv` projection with bias, the paged KV cache's
    `attention_with_fused_qkv`, `out_proj` with bias;
  - PhiMLP: fc1, gelu with the tanh approximation (Hugging Face's `gelu_new`), fc2, with biases;
  - PhiCausalLMHead: a final LayerNorm and a Linear with bias (untied from the embedding);
  - the methods embed / prefill / decode / batch_prefill / batch_decode / batch_verify (MLC's
    `batch_forward`, which `op.take`s logit_positions for batch_prefill) and its
    `get_default_spec` (mlc_models.serving_spec);
  - create_tir_paged_kv_cache: what MLC-LLM's DispatchKVCacheCreation makes of the model's
    `create_paged_kv_cache` (`PagedKVCache.create_generic`) for a TIR-only target, i.e.
    `nn.llm.TIRPagedKVCache` with RopeMode.NORMAL and rotary_dim = 32: the partial rotary
    (partial_rotary_factor 0.4 of head_dim 80) is applied by the cache's RoPE kernels to the
    first 32 of each head's 80 channels, as MLC-LLM does it (PhiConfig.from_phi1).

Bounds (MLC-LLM's AttachVariableBounds for this config): MLC-LLM reads phi-2's config.json
(model_type "phi") as its Phi1Config, which takes the context window from
max_position_embeddings (2048) and the prefill chunk as min(context window, 8192) = 2048, and
converts it with PhiConfig.from_phi1; so `tir_var_upper_bound` is {seq_len: 2048,
batch_size: 32, total_seq_len: 2048}, not mlc_models.UPPER_BOUNDS's total_seq_len 8192 (a
longer context than the model was trained for).

As in mlc_models, the vocabulary is the config's number rather than MLC-LLM's symbolic
`vocab_size` (TVM 0.27's dlight Matmul crashes on a symbolic batch and vocabulary), and
MLC-LLM's `op_ext.configure()` (which only picks FlashInfer / cuBLAS, off for this target) is
left out.
"""

from __future__ import annotations

from dataclasses import dataclass

from bench.corpus import mlc_models


@dataclass(frozen=True)
class PhiConfig:
    """The fields of microsoft/phi-2's config.json that MLC-LLM's Phi model reads."""

    hidden_size: int
    intermediate_size: int
    num_hidden_layers: int
    num_attention_heads: int
    partial_rotary_factor: float
    layer_norm_eps: float
    rope_theta: float
    max_position_embeddings: int
    vocab_size: int
    source: str

    family = "phi"

    @property
    def head_dim(self) -> int:
        return self.hidden_size // self.num_attention_heads

    @property
    def rotary_dim(self) -> int:
        # PhiConfig.from_phi1: int(partial_rotary_factor * head_dim)
        return int(self.partial_rotary_factor * self.head_dim)

    @property
    def bounds(self) -> dict:
        """MLC-LLM's tir_var_upper_bound: context window = max_position_embeddings, prefill
        chunk = min(context window, 8192), batch as mlc_models.UPPER_BOUNDS."""
        context = self.max_position_embeddings
        return {"seq_len": min(context, 8192),
                "batch_size": mlc_models.UPPER_BOUNDS["batch_size"],
                "total_seq_len": context}

    def describe(self) -> str:
        return (f"{self.source}: hidden {self.hidden_size}, intermediate "
                f"{self.intermediate_size}, {self.num_hidden_layers} layers, "
                f"{self.num_attention_heads} heads, head_dim {self.head_dim}, rotary_dim "
                f"{self.rotary_dim} (partial_rotary_factor {self.partial_rotary_factor}), "
                f"parallel attention and MLP, LayerNorm, vocab {self.vocab_size}, "
                f"context {self.max_position_embeddings}")


# microsoft/phi-2 config.json (num_key_value_heads = num_attention_heads; untied embeddings)
CONFIGS = {
    "mlc_phi2": PhiConfig(2560, 10240, 32, 32, 0.4, 1e-5, 10000.0, 2048, 51200,
                          "microsoft/phi-2"),
}


def build(name: str, target):
    """The exported IRModule of model NAME, with MLC-LLM's function attributes."""
    from tvm import relax, te
    from tvm.relax.frontend import nn
    from tvm.relax.frontend.nn import op
    from tvm.relax.frontend.nn.llm.kv_cache import PagedKVCache, RopeMode, TIRPagedKVCache

    cfg = CONFIGS[name]
    d, h = cfg.head_dim, cfg.num_attention_heads

    class PhiMHA(nn.Module):
        def __init__(self):
            self.Wqkv = nn.Linear(cfg.hidden_size, 3 * h * d, bias=True)
            self.out_proj = nn.Linear(h * d, cfg.hidden_size, bias=True)

        def forward(self, x, cache: PagedKVCache, layer_id: int):
            b, s, _ = x.shape
            qkv = op.reshape(self.Wqkv(x), (b, s, 3 * h, d))
            out = cache.attention_with_fused_qkv(layer_id, qkv, h, sm_scale=d ** -0.5)
            return self.out_proj(op.reshape(out, (b, s, h * d)))

    class PhiMLP(nn.Module):
        def __init__(self):
            self.fc1 = nn.Linear(cfg.hidden_size, cfg.intermediate_size)
            self.fc2 = nn.Linear(cfg.intermediate_size, cfg.hidden_size)

        def forward(self, x):
            return self.fc2(op.gelu(self.fc1(x), approximate="tanh"))

    class PhiParallelBlock(nn.Module):
        def __init__(self):
            self.ln = nn.LayerNorm(cfg.hidden_size, eps=cfg.layer_norm_eps)
            self.mixer = PhiMHA()
            self.mlp = PhiMLP()

        def forward(self, x, cache, layer_id):
            normed = self.ln(x)
            return self.mixer(normed, cache, layer_id) + self.mlp(normed) + x

    class PhiCausalLMHead(nn.Module):
        def __init__(self):
            self.ln = nn.LayerNorm(cfg.hidden_size, eps=cfg.layer_norm_eps)
            self.linear = nn.Linear(cfg.hidden_size, cfg.vocab_size)

        def forward(self, x):
            logits = self.linear(self.ln(x))
            return logits.astype("float32") if logits.dtype != "float32" else logits

    class PhiModel(nn.Module):
        def __init__(self):
            self.embd = nn.Embedding(cfg.vocab_size, cfg.hidden_size)
            self.h = nn.ModuleList([PhiParallelBlock() for _ in range(cfg.num_hidden_layers)])

        def forward(self, x, cache):
            for layer_id, layer in enumerate(self.h):
                x = layer(x, cache, layer_id)
            return x

    class PhiForCausalLM(mlc_models.BatchServing, nn.Module):
        def __init__(self):
            self.transformer = PhiModel()
            self.lm_head = PhiCausalLMHead()
            self.dtype = "float32"

        def batch_forward(self, input_embeds, paged_kv_cache, logit_positions=None):
            hidden = self.transformer(input_embeds, paged_kv_cache)
            if logit_positions is not None:
                hidden = op.take(hidden, logit_positions, axis=1)
            return self.lm_head(hidden)

        def embed(self, input_ids):
            return self.transformer.embd(input_ids)

        def prefill(self, input_embed, paged_kv_cache):
            def last(x):  # x[:, -1:, :]: prefill's logits are the last position's
                b, s, k = x.shape
                return te.compute((b, 1, k), lambda i, _, j: x[i, s - 1, j], name="index")

            hidden = op.tensor_expr_op(last, name_hint="index",
                                       args=[self.transformer(input_embed, paged_kv_cache)])
            return self.lm_head(hidden), paged_kv_cache

        def decode(self, input_embed, paged_kv_cache):
            return self.lm_head(self.transformer(input_embed, paged_kv_cache)), paged_kv_cache

        def create_tir_paged_kv_cache(self, max_batch_size, max_total_seq_len,
                                      prefill_chunk_size, page_size, support_sliding_window):
            return TIRPagedKVCache(
                attn_kind="mha", max_batch_size=max_batch_size,
                max_total_seq_len=max_total_seq_len, prefill_chunk_size=prefill_chunk_size,
                page_size=page_size, support_sliding_window=support_sliding_window,
                layer_partition=relax.ShapeExpr([0, cfg.num_hidden_layers]),
                num_hidden_layers=cfg.num_hidden_layers, num_attention_heads=h,
                num_key_value_heads=h, qk_head_dim=d, v_head_dim=d,
                mla_original_qk_head_dim=0, mla_original_v_head_dim=0,
                rope_mode=RopeMode.NORMAL, rope_scale=1, rope_theta=cfg.rope_theta,
                rope_scaling={}, rope_ext_factors=relax.prim_value(0),
                rotary_dim=cfg.rotary_dim, enable_disaggregation=False, dtype=self.dtype,
                target=target)

    model = PhiForCausalLM()
    model.to("float16")   # nn.Module.to also sets model.dtype, the cache's dtype
    return mlc_models.export(model, cfg.hidden_size, bounds=cfg.bounds)
