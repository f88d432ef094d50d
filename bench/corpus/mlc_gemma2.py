"""Gemma-2 as MLC-LLM compiles it, at the dimensions of google/gemma-2-2b (issue 34).

Rebuilt with TVM's own `relax.frontend.nn` and `nn.llm` (MLC-LLM itself is not a dependency).
Which MLC-LLM file each part follows (mlc-ai/mlc-llm, python/mlc_llm/model/):
  - gemma/gemma_model.py: the attention (fused QKV projection, the paged KV cache's
    `attention_with_fused_qkv`, no biases), the MLP (fused gate/up projection, tanh-approximated
    GeLU), the embedding scaled by sqrt(hidden) before the first layer, the tied LM head
    (`lm_head_forward`: the embedding's transpose, float32 out) and the method bodies of
    embed / prefill / decode / batch_prefill / batch_decode / batch_verify (`batch_forward`,
    with `op.take` of logit_positions for batch_prefill);
  - gemma2/gemma2_model.py: the decoder layer's four RMSNorms (input, post-attention,
    pre-feedforward, post-feedforward, the post norms applied to the attention and MLP outputs
    before the residual add) and the final logit soft-capping tanh(logits / 30) * 30.

What MLC-LLM does and this module does as well:
  - Gemma's RMSNorm scales by (1 + weight); MLC-LLM adds the 1 to the weights in its loader
    (gemma2_loader.py), so the module holds plain `nn.RMSNorm`s.
  - attn_logit_softcapping (50) is not applied: MLC-LLM's Gemma2Config ignores it (the paged KV
    cache's attention kernels have no soft-cap).
  - The attention scale: MLC-LLM passes sm_scale = head_dim ** -0.5; Gemma-2's
    query_pre_attn_scalar is 256 = head_dim, so that is query_pre_attn_scalar ** -0.5 too.
  - The vocabulary is the config's number (256000), not symbolic, for the reason
    mlc_models.py gives (TVM 0.27's dl.gpu.Matmul crash).

The sliding window: Gemma-2 attends within 4096 tokens on every other layer (Hugging Face's
Gemma2: the even-numbered layers). TVM 0.27's `nn.llm.TIRPagedKVCache` takes a per-layer
`attn_kind` list ("mha_sliding" / "mha") and a `layer_sliding_window_size`, and that is how
MLC-LLM builds its alternating-window models (gemma3/gemma3_model.py's create_paged_kv_cache,
with PagedKVCache.create_generic, which DispatchKVCacheCreation turns into this TIR cache).
MLC-LLM's gemma2_model.py itself predates that support: it declares every layer "mha" and caps
the context window at the sliding window (4096). Here the cache carries the per-layer window
as gemma3's does, so the context window stays the config's max_position_embeddings, 8192,
which is UPPER_BOUNDS' total_seq_len: the bounds are mlc_models' (seq_len 2048 = MLC-LLM's
prefill chunk, batch_size 32).
"""

from __future__ import annotations

from dataclasses import dataclass

from bench.corpus import mlc_models


@dataclass(frozen=True)
class Gemma2Config:
    """The fields of Gemma-2's Hugging Face config.json that the model reads."""

    hidden_size: int
    intermediate_size: int
    num_attention_heads: int
    num_key_value_heads: int
    head_dim: int
    num_hidden_layers: int
    rms_norm_eps: float
    rope_theta: float
    vocab_size: int
    sliding_window: int
    final_logit_softcapping: float
    attn_logit_softcapping: float   # recorded, not applied (as MLC-LLM)
    query_pre_attn_scalar: int
    max_position_embeddings: int
    source: str
    family: str = "gemma2"

    def layer_attention_kinds(self) -> list[str]:
        """Per layer: "mha_sliding" on the even layers (Hugging Face's Gemma2), else "mha"."""
        return ["mha_sliding" if layer % 2 == 0 else "mha"
                for layer in range(self.num_hidden_layers)]

    def describe(self) -> str:
        return (f"{self.source}: hidden {self.hidden_size}, intermediate "
                f"{self.intermediate_size}, {self.num_hidden_layers} layers, "
                f"{self.num_attention_heads} heads / {self.num_key_value_heads} KV heads, "
                f"head_dim {self.head_dim}, vocab {self.vocab_size}, sliding window "
                f"{self.sliding_window} on alternating layers, final logit soft-cap "
                f"{self.final_logit_softcapping:g}, tied embeddings")


# google/gemma-2-2b's config.json.
CONFIGS = {
    "mlc_gemma2_2b": Gemma2Config(
        hidden_size=2304, intermediate_size=9216, num_attention_heads=8,
        num_key_value_heads=4, head_dim=256, num_hidden_layers=26, rms_norm_eps=1e-6,
        rope_theta=10000.0, vocab_size=256000, sliding_window=4096,
        final_logit_softcapping=30.0, attn_logit_softcapping=50.0, query_pre_attn_scalar=256,
        max_position_embeddings=8192, source="google/gemma-2-2b"),
}


def bounds(cfg: Gemma2Config) -> dict:
    """MLC-LLM's tir_var_upper_bound for CFG: its serving defaults, the context window from
    the config (8192 here, the same as UPPER_BOUNDS)."""
    return {**mlc_models.UPPER_BOUNDS, "total_seq_len": cfg.max_position_embeddings}


def build(name: str, target):
    """The exported IRModule of model NAME, with MLC-LLM's function attributes."""
    from tvm import relax, te
    from tvm.relax.frontend import nn
    from tvm.relax.frontend.nn import op
    from tvm.relax.frontend.nn.llm.kv_cache import PagedKVCache, RopeMode, TIRPagedKVCache

    cfg = CONFIGS[name]
    d, h_q, h_kv = cfg.head_dim, cfg.num_attention_heads, cfg.num_key_value_heads

    def rms_norm():
        return nn.RMSNorm(cfg.hidden_size, -1, cfg.rms_norm_eps, bias=False)

    class Attention(nn.Module):
        def __init__(self):
            self.qkv_proj = nn.Linear(cfg.hidden_size, (h_q + 2 * h_kv) * d, bias=False)
            self.o_proj = nn.Linear(h_q * d, cfg.hidden_size, bias=False)

        def forward(self, x, cache: PagedKVCache, layer_id: int):
            b, s, _ = x.shape
            qkv = op.reshape(self.qkv_proj(x), (b, s, h_q + 2 * h_kv, d))
            out = cache.attention_with_fused_qkv(layer_id, qkv, h_q, sm_scale=d ** -0.5)
            return self.o_proj(op.reshape(out, (b, s, h_q * d)))

    class MLP(nn.Module):
        def __init__(self):
            self.gate_up_proj = nn.Linear(cfg.hidden_size, 2 * cfg.intermediate_size, bias=False)
            self.down_proj = nn.Linear(cfg.intermediate_size, cfg.hidden_size, bias=False)

        def forward(self, x):
            x1, x2 = op.split(self.gate_up_proj(x), 2, axis=-1)
            return self.down_proj(op.gelu(x1, approximate="tanh") * x2)

    class Layer(nn.Module):
        def __init__(self):
            self.self_attn = Attention()
            self.mlp = MLP()
            self.input_layernorm = rms_norm()
            self.post_attention_layernorm = rms_norm()
            self.pre_feedforward_layernorm = rms_norm()
            self.post_feedforward_layernorm = rms_norm()

        def forward(self, x, cache, layer_id):
            out = self.self_attn(self.input_layernorm(x), cache, layer_id)
            x = self.post_attention_layernorm(out) + x
            out = self.mlp(self.pre_feedforward_layernorm(x))
            return self.post_feedforward_layernorm(out) + x

    class Embedding(nn.Embedding):
        def lm_head_forward(self, x):
            return op.matmul(x, op.permute_dims(self.weight), out_dtype="float32")

    class Model(nn.Module):
        def __init__(self):
            self.embed_tokens = Embedding(cfg.vocab_size, cfg.hidden_size)
            self.layers = nn.ModuleList([Layer() for _ in range(cfg.num_hidden_layers)])
            self.norm = rms_norm()

        def forward(self, x, cache):
            x = x * (cfg.hidden_size ** 0.5)
            for layer_id, layer in enumerate(self.layers):
                x = layer(x, cache, layer_id)
            return self.norm(x)

    class ForCausalLM(mlc_models.BatchServing, nn.Module):
        def __init__(self):
            self.model = Model()
            self.dtype = "float32"

        def get_logits(self, hidden):
            logits = self.model.embed_tokens.lm_head_forward(hidden)
            if logits.dtype != "float32":
                logits = logits.astype("float32")
            cap = cfg.final_logit_softcapping
            return op.tanh(logits / cap) * cap

        def batch_forward(self, input_embeds, paged_kv_cache, logit_positions=None):
            hidden = self.model(input_embeds, paged_kv_cache)
            if logit_positions is not None:
                hidden = op.take(hidden, logit_positions, axis=1)
            return self.get_logits(hidden)

        def embed(self, input_ids):
            return self.model.embed_tokens(input_ids)

        def prefill(self, input_embed, paged_kv_cache):
            def last(x):  # x[:, -1:, :], as MLC-LLM's prefill takes the last position
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
                attn_kind=cfg.layer_attention_kinds(), max_batch_size=max_batch_size,
                max_total_seq_len=max_total_seq_len, prefill_chunk_size=prefill_chunk_size,
                page_size=page_size, support_sliding_window=support_sliding_window,
                layer_partition=relax.ShapeExpr([0, cfg.num_hidden_layers]),
                num_hidden_layers=cfg.num_hidden_layers, num_attention_heads=h_q,
                num_key_value_heads=h_kv, qk_head_dim=d, v_head_dim=d,
                mla_original_qk_head_dim=0, mla_original_v_head_dim=0,
                rope_mode=RopeMode.NORMAL, rope_scale=1, rope_theta=cfg.rope_theta,
                rope_scaling={}, rope_ext_factors=relax.prim_value(0), rotary_dim=d,
                enable_disaggregation=False, dtype=self.dtype, target=target,
                layer_sliding_window_size=cfg.sliding_window)

    model = ForCausalLM()
    model.to("float16")
    return mlc_models.export(model, cfg.hidden_size, mlc_models.SERVING_FUNCTIONS, bounds(cfg))
