"""MLC-LLM's GPT-2 family at the dimensions of openai-community/gpt2-medium (issue 34).

The model follows mlc-ai/mlc-llm's `python/mlc_llm/model/gpt2/gpt2_model.py`, written here
with TVM's own `relax.frontend.nn` and `nn.llm` (MLC-LLM is not a dependency):

  - GPT2Block: pre-LayerNorm attention and MLP with residuals (ln_1, attn, ln_2, mlp);
  - GPT2Attention: the fused `c_attn` projection with bias, the paged KV cache's
    `attention_with_fused_qkv` (scale head_dim ** -0.5: gpt2-medium does not scale by the
    inverse layer index), `c_proj` with bias;
  - GPT2MLP: c_fc, gelu with the tanh approximation (Hugging Face's `gelu_new`), c_proj;
  - GPT2Model: the learned positions are added in the model body, not in `embed`: MLC-LLM
    asks the paged KV cache for the query positions (`get_query_positions(inputs.shape[1])`,
    the packed function `vm.builtin.attention_kv_cache_get_query_positions`) and looks them up
    in `wpe`, so prefill, decode and the batch functions all carry the wpe lookup and
    `embed` is `wte` alone. Done here the same way. (For batch_decode, whose input is
    [batch_size, 1, n_embd], MLC-LLM asks for inputs.shape[1] = 1 position and broadcasts it
    over the batch; kept as MLC-LLM has it.)
  - the LM head is MLC-LLM's separate `lm_head` Linear without bias: Hugging Face ties it to
    `wte`, and MLC-LLM's loader fills both parameters from the same weight, so the module
    (and the packed parameter tuple) has its own lm_head weight;
  - the methods embed / prefill / decode / batch_prefill / batch_decode / batch_verify (MLC's
    `batch_forward`, which `op.take`s logit_positions for batch_prefill) and its
    `get_default_spec` (mlc_models.serving_spec);
  - create_tir_paged_kv_cache: what MLC-LLM's DispatchKVCacheCreation makes of
    `PagedKVCache.create_generic(rope_mode=RopeMode.NONE, rope_scale=-1, rope_theta=-1)`
    for a TIR-only target: `nn.llm.TIRPagedKVCache` with no rotary embedding (rotary_dim
    defaults to head_dim in MLC-LLM's create_generic; unused with RopeMode.NONE).

Bounds (MLC-LLM's AttachVariableBounds for this config): GPT2Config takes the context window
from n_positions (1024) and the prefill chunk as min(context window, 8192) = 1024, so
`tir_var_upper_bound` is {seq_len: 1024, batch_size: 32, total_seq_len: 1024}. The defaults
of mlc_models.UPPER_BOUNDS (seq_len 2048, total_seq_len 8192) would bound the shapes past the
1024 rows of `wpe`: no position beyond 1023 exists in this model.

As in mlc_models, the vocabulary is the config's number rather than MLC-LLM's symbolic
`vocab_size` (TVM 0.27's dlight Matmul crashes on a symbolic batch and vocabulary), and
MLC-LLM's `op_ext.configure()` (which only picks FlashInfer / cuBLAS, off for this target) is
left out.
"""

from __future__ import annotations

from dataclasses import dataclass

from bench.corpus import mlc_models


@dataclass(frozen=True)
class GPT2Config:
    """The fields of gpt2-medium's config.json that MLC-LLM's GPT-2 model reads."""

    n_embd: int
    n_inner: int          # null in config.json: MLC-LLM (and Hugging Face) take 4 * n_embd
    n_layer: int
    n_head: int
    n_positions: int
    layer_norm_epsilon: float
    vocab_size: int
    source: str

    family = "gpt2"

    @property
    def head_dim(self) -> int:
        return self.n_embd // self.n_head

    @property
    def bounds(self) -> dict:
        """MLC-LLM's tir_var_upper_bound: context window = n_positions, prefill chunk =
        min(context window, 8192), batch as mlc_models.UPPER_BOUNDS."""
        context = self.n_positions
        return {"seq_len": min(context, 8192),
                "batch_size": mlc_models.UPPER_BOUNDS["batch_size"],
                "total_seq_len": context}

    def describe(self) -> str:
        return (f"{self.source}: n_embd {self.n_embd}, n_inner {self.n_inner}, "
                f"{self.n_layer} layers, {self.n_head} heads, head_dim {self.head_dim}, "
                f"{self.n_positions} learned positions (wpe), LayerNorm, vocab "
                f"{self.vocab_size}")


# openai-community/gpt2-medium config.json
CONFIGS = {
    "mlc_gpt2_medium": GPT2Config(1024, 4 * 1024, 24, 16, 1024, 1e-5, 50257,
                                  "openai-community/gpt2-medium"),
}


def build(name: str, target):
    """The exported IRModule of model NAME, with MLC-LLM's function attributes."""
    from tvm import relax, te
    from tvm.relax.frontend import nn
    from tvm.relax.frontend.nn import op
    from tvm.relax.frontend.nn.llm.kv_cache import PagedKVCache, RopeMode, TIRPagedKVCache

    cfg = CONFIGS[name]
    d, h = cfg.head_dim, cfg.n_head

    class GPT2Attention(nn.Module):
        def __init__(self):
            self.c_attn = nn.Linear(cfg.n_embd, 3 * h * d, bias=True)
            self.c_proj = nn.Linear(h * d, cfg.n_embd, bias=True)

        def forward(self, x, cache: PagedKVCache, layer_id: int):
            b, s, _ = x.shape
            qkv = op.reshape(self.c_attn(x), (b, s, 3 * h, d))
            out = cache.attention_with_fused_qkv(layer_id, qkv, h, sm_scale=d ** -0.5)
            return self.c_proj(op.reshape(out, (b, s, h * d)))

    class GPT2MLP(nn.Module):
        def __init__(self):
            self.c_fc = nn.Linear(cfg.n_embd, cfg.n_inner)
            self.c_proj = nn.Linear(cfg.n_inner, cfg.n_embd)

        def forward(self, x):
            return self.c_proj(op.gelu(self.c_fc(x), approximate="tanh"))

    class GPT2Block(nn.Module):
        def __init__(self):
            self.ln_1 = nn.LayerNorm(cfg.n_embd, eps=cfg.layer_norm_epsilon)
            self.attn = GPT2Attention()
            self.ln_2 = nn.LayerNorm(cfg.n_embd, eps=cfg.layer_norm_epsilon)
            self.mlp = GPT2MLP()

        def forward(self, x, cache, layer_id):
            x = self.attn(self.ln_1(x), cache, layer_id) + x
            return self.mlp(self.ln_2(x)) + x

    class GPT2Model(nn.Module):
        def __init__(self):
            self.wte = nn.Embedding(cfg.vocab_size, cfg.n_embd)
            self.wpe = nn.Embedding(cfg.n_positions, cfg.n_embd)
            self.h = nn.ModuleList([GPT2Block() for _ in range(cfg.n_layer)])
            self.ln_f = nn.LayerNorm(cfg.n_embd, eps=cfg.layer_norm_epsilon)

        def forward(self, inputs, cache):
            # the cache knows where each query token sits in its sequence
            positions = cache.get_query_positions(inputs.shape[1])
            x = inputs + self.wpe(positions)
            for layer_id, layer in enumerate(self.h):
                x = layer(x, cache, layer_id)
            return self.ln_f(x)

    class GPT2LMHeadModel(mlc_models.BatchServing, nn.Module):
        def __init__(self):
            self.transformer = GPT2Model()
            self.lm_head = nn.Linear(cfg.n_embd, cfg.vocab_size, bias=False)
            self.dtype = "float32"

        def logits(self, hidden):
            logits = self.lm_head(hidden)
            return logits.astype("float32") if logits.dtype != "float32" else logits

        def batch_forward(self, input_embeds, paged_kv_cache, logit_positions=None):
            hidden = self.transformer(input_embeds, paged_kv_cache)
            if logit_positions is not None:
                hidden = op.take(hidden, logit_positions, axis=1)
            return self.logits(hidden)

        def embed(self, input_ids):
            return self.transformer.wte(input_ids)

        def prefill(self, input_embed, paged_kv_cache):
            def last(x):  # x[:, -1:, :]: prefill's logits are the last position's
                b, s, k = x.shape
                return te.compute((b, 1, k), lambda i, _, j: x[i, s - 1, j], name="index")

            hidden = op.tensor_expr_op(last, name_hint="index",
                                       args=[self.transformer(input_embed, paged_kv_cache)])
            return self.logits(hidden), paged_kv_cache

        def decode(self, input_embed, paged_kv_cache):
            return self.logits(self.transformer(input_embed, paged_kv_cache)), paged_kv_cache

        def create_tir_paged_kv_cache(self, max_batch_size, max_total_seq_len,
                                      prefill_chunk_size, page_size, support_sliding_window):
            return TIRPagedKVCache(
                attn_kind="mha", max_batch_size=max_batch_size,
                max_total_seq_len=max_total_seq_len, prefill_chunk_size=prefill_chunk_size,
                page_size=page_size, support_sliding_window=support_sliding_window,
                layer_partition=relax.ShapeExpr([0, cfg.n_layer]),
                num_hidden_layers=cfg.n_layer, num_attention_heads=h, num_key_value_heads=h,
                qk_head_dim=d, v_head_dim=d,
                mla_original_qk_head_dim=0, mla_original_v_head_dim=0,
                rope_mode=RopeMode.NONE, rope_scale=-1, rope_theta=-1,
                rope_scaling={}, rope_ext_factors=relax.prim_value(0), rotary_dim=d,
                enable_disaggregation=False, dtype=self.dtype, target=target)

    model = GPT2LMHeadModel()
    model.to("float16")   # nn.Module.to also sets model.dtype, the cache's dtype
    return mlc_models.export(model, cfg.n_embd, bounds=cfg.bounds)
