"""OLMoE-1B-7B built as MLC-LLM builds a mixture-of-experts model (issue 34).

MLC-LLM has no OLMoE model of its own; this one puts together the MLC-LLM parts OLMoE is made
of (mlc-ai/mlc-llm 79d603f085f50500e9509fa01785ffa7ecfaaa93):
  - attention: python/mlc_llm/model/olmo2/olmo2_model.py (OLMo2Attention): fused QKV
    projection, then RMSNorm over all of Q's heads together and over all of K's (OLMoE's
    q_norm / k_norm, applied to the projections as in Hugging Face's OlmoeAttention), then the
    paged KV cache's attention_with_fused_qkv;
  - decoder layer: pre-norm as python/mlc_llm/model/mixtral/mixtral_model.py
    (MixtralDecoderLayer: input_layernorm, attention, residual, post_attention_layernorm,
    MoE, residual);
  - MoE block: python/mlc_llm/model/qwen3_moe/qwen3_moe_model.py (Qwen3MoeSparseMoeBlock,
    Mixtral's with norm_topk_prob): router Linear, softmax and top-8 without renormalising
    (OLMoE's norm_topk_prob false), then for a single token (`decode`) the GEMV over the chosen
    experts' weights, otherwise cumsum / get_indices / get_indptr / take / group GEMM /
    scatter_output; the expert weights are python/mlc_llm/nn/expert.py's MixtralExperts
    (one [experts, out, in] parameter for gate+up and one for down);
  - the functions and their bodies: qwen3_moe_model.py (embed, prefill with index_last_token,
    decode, batch_prefill taking logit_positions, batch_decode and batch_verify through
    batch_forward), an untied lm_head;
  - the operators: mlc_moe_ops.py (MLC-LLM's op/moe_misc.py and op/moe_matmul.py).
Everything else (export, MLC-LLM's attributes, the pipeline) is mlc_models.py's.

Two builds of the same model: `mlc_olmoe_1b_7b` for the default cuda target, where TVM lowers
the cumsum to its own GPU scan, and `mlc_olmoe_1b_7b_thrust` for a target with libs=["thrust"],
as MLC-LLM sets it when TVM has thrust, where the scan is `tvm.contrib.thrust.sum_scan`.

Bounds: OLMoE's config has max_position_embeddings 4096, which MLC-LLM takes as its
context_window_size, so total_seq_len is bounded by 4096 (not mlc_models' 8192); the prefill
chunk (seq_len) stays 2048 and max_batch_size 32.
"""

from __future__ import annotations

from dataclasses import dataclass

from bench.corpus import mlc_models, mlc_moe_ops


@dataclass(frozen=True)
class Config:
    """The fields of OLMoE's config.json that the model reads."""

    hidden_size: int
    intermediate_size: int      # per expert
    num_attention_heads: int
    num_key_value_heads: int
    num_hidden_layers: int
    num_experts: int
    num_experts_per_tok: int
    norm_topk_prob: bool
    rms_norm_eps: float
    rope_theta: float
    max_position_embeddings: int
    tie_word_embeddings: bool
    vocab_size: int
    source: str
    libs: tuple = ()            # the target's libs: ("thrust",) for the thrust build
    family: str = "olmoe"

    @property
    def head_dim(self) -> int:
        return self.hidden_size // self.num_attention_heads

    def target(self, base: dict) -> dict:
        return {**base, "libs": list(self.libs)} if self.libs else dict(base)

    def bounds(self) -> dict:
        return {**mlc_models.UPPER_BOUNDS,
                "total_seq_len": min(mlc_models.UPPER_BOUNDS["total_seq_len"],
                                     self.max_position_embeddings)}

    def describe(self) -> str:
        return (f"{self.source}: hidden {self.hidden_size}, {self.num_experts} experts "
                f"({self.num_experts_per_tok} per token, intermediate "
                f"{self.intermediate_size} each), {self.num_hidden_layers} layers, "
                f"{self.num_attention_heads} heads / {self.num_key_value_heads} KV heads, "
                f"head_dim {self.head_dim}, vocab {self.vocab_size}, q/k RMSNorm"
                f"{', target libs ' + '+'.join(self.libs) if self.libs else ''}")


# allenai/OLMoE-1B-7B-0924's config.json
OLMOE_1B_7B = dict(hidden_size=2048, intermediate_size=1024, num_attention_heads=16,
                   num_key_value_heads=16, num_hidden_layers=16, num_experts=64,
                   num_experts_per_tok=8, norm_topk_prob=False, rms_norm_eps=1e-5,
                   rope_theta=10000.0, max_position_embeddings=4096,
                   tie_word_embeddings=False, vocab_size=50304,
                   source="allenai/OLMoE-1B-7B-0924")
CONFIGS = {
    "mlc_olmoe_1b_7b": Config(**OLMOE_1B_7B),
    "mlc_olmoe_1b_7b_thrust": Config(**OLMOE_1B_7B, libs=("thrust",)),
}


def build(name: str, target):
    """The exported IRModule of model NAME, with MLC-LLM's function attributes."""
    from tvm import relax
    from tvm.relax.frontend import nn
    from tvm.relax.frontend.nn import op
    from tvm.relax.frontend.nn.llm.kv_cache import PagedKVCache, RopeMode, TIRPagedKVCache

    cfg = CONFIGS[name]
    d, h_q, h_kv = cfg.head_dim, cfg.num_attention_heads, cfg.num_key_value_heads
    eps = cfg.rms_norm_eps

    class Attention(nn.Module):
        def __init__(self):
            self.qkv_proj = nn.Linear(cfg.hidden_size, (h_q + 2 * h_kv) * d, bias=False)
            self.o_proj = nn.Linear(h_q * d, cfg.hidden_size, bias=False)
            self.q_norm = nn.RMSNorm(h_q * d, -1, eps, bias=False)
            self.k_norm = nn.RMSNorm(h_kv * d, -1, eps, bias=False)

        def forward(self, x, cache: PagedKVCache, layer_id: int):
            b, s, _ = x.shape
            qkv = op.reshape(self.qkv_proj(x), (b, s, h_q + 2 * h_kv, d))
            q, k, v = op.split(qkv, [h_q, h_q + h_kv], axis=2)
            # the norms see all heads of Q (of K) as one vector, before RoPE
            q = op.reshape(self.q_norm(op.reshape(q, (b, s, h_q * d))), (b, s, h_q, d))
            k = op.reshape(self.k_norm(op.reshape(k, (b, s, h_kv * d))), (b, s, h_kv, d))
            out = cache.attention_with_fused_qkv(layer_id, op.concat([q, k, v], dim=2), h_q,
                                                 sm_scale=d ** -0.5)
            return self.o_proj(op.reshape(out, (b, s, h_q * d)))

    class Experts(nn.Module):
        """Every expert's weight of one projection in one [experts, out, in] parameter."""

        def __init__(self, in_features, out_features):
            self.weight = nn.Parameter((cfg.num_experts, out_features, in_features))

        def forward(self, x, indptr):
            if indptr.ndim == 2:   # one token: its experts' indices, [1, k]
                return mlc_moe_ops.expert_gemv(x, self.weight, indptr)
            return mlc_moe_ops.group_gemm(x, self.weight, indptr)

    class SparseMoE(nn.Module):
        def __init__(self):
            inter = cfg.intermediate_size
            self.gate = nn.Linear(cfg.hidden_size, cfg.num_experts, bias=False)
            self.moe_gate_up_proj = Experts(cfg.hidden_size, 2 * inter)
            self.moe_down_proj = Experts(inter, cfg.hidden_size)

        def experts(self, x, indptr):
            x1, x2 = op.split(self.moe_gate_up_proj(x, indptr), 2, axis=-1)
            return self.moe_down_proj(op.silu(x1) * x2, indptr)

        def forward(self, x):
            k, experts = cfg.num_experts_per_tok, cfg.num_experts
            b, s, hidden = x.shape
            tokens = b * s
            x = x.reshape(tokens, hidden)
            weights, chosen = mlc_moe_ops.softmax_top_k(self.gate(x), k)
            if tokens == 1:
                y = self.experts(x, chosen)
            else:
                cumsum = mlc_moe_ops.expert_cumsum(chosen, experts)
                reverse, token_of_row = mlc_moe_ops.shuffle_indices(cumsum, chosen)
                indptr = mlc_moe_ops.expert_indptr(cumsum, experts, tokens)
                y = self.experts(op.take(x, token_of_row, axis=0), indptr)
                y = mlc_moe_ops.scatter_rows(y, reverse)
            y = y.reshape(tokens, k, hidden) * weights.reshape(tokens, k, 1)
            return mlc_moe_ops.sum_over_experts(y).reshape(b, s, hidden)

    class Layer(nn.Module):
        def __init__(self):
            self.self_attn = Attention()
            self.mlp = SparseMoE()
            self.input_layernorm = nn.RMSNorm(cfg.hidden_size, -1, eps, bias=False)
            self.post_attention_layernorm = nn.RMSNorm(cfg.hidden_size, -1, eps, bias=False)

        def forward(self, x, cache, layer_id):
            x = self.self_attn(self.input_layernorm(x), cache, layer_id) + x
            return self.mlp(self.post_attention_layernorm(x)) + x

    class Model(nn.Module):
        def __init__(self):
            self.embed_tokens = nn.Embedding(cfg.vocab_size, cfg.hidden_size)
            self.layers = nn.ModuleList([Layer() for _ in range(cfg.num_hidden_layers)])
            self.norm = nn.RMSNorm(cfg.hidden_size, -1, eps, bias=False)

        def forward(self, x, cache):
            for layer_id, layer in enumerate(self.layers):
                x = layer(x, cache, layer_id)
            return self.norm(x)

    class ForCausalLM(mlc_models.BatchServing, nn.Module):
        def __init__(self):
            self.model = Model()
            self.lm_head = nn.Linear(cfg.hidden_size, cfg.vocab_size, bias=False)
            self.dtype = "float32"

        def to(self, dtype=None):
            super().to(dtype=dtype)
            if dtype is not None:
                self.dtype = dtype

        def get_logits(self, hidden):
            logits = self.lm_head(hidden)
            return logits.astype("float32") if logits.dtype != "float32" else logits

        def batch_forward(self, input_embeds, paged_kv_cache, logit_positions=None):
            hidden = self.model(input_embeds, paged_kv_cache)
            if logit_positions is not None:
                hidden = op.take(hidden, logit_positions, axis=1)
            return self.get_logits(hidden)

        def embed(self, input_ids):
            return self.model.embed_tokens(input_ids)

        def prefill(self, input_embed, paged_kv_cache):
            def last(x):  # MLC-LLM's index_last_token
                from tvm import te
                b, s, h = x.shape
                return te.compute((b, 1, h), lambda i, _, j: x[i, s - 1, j], name="index")

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
    return mlc_models.export(model, cfg.hidden_size, bounds=cfg.bounds())
