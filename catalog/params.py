"""Parameter counts from a transformer's shape (what config.json says), total and active per token.

Why compute them instead of copying the vendor's figure: the vendor figure is rounded marketing
("70B"), and MoE models only state totals loosely. Counting from the shape gives one method for
every model, and the catalog tests check the count lands within 2% of what the vendor states,
which catches a mistyped config value.

Counted: embeddings, untied LM head, attention projections (standard/GQA or DeepSeek MLA),
MLP (gated 3-matrix or plain 2-matrix; dense, routed experts, shared experts, router) and
norm weights. Not counted: biases (Qwen2's QKV bias, Falcon's layer-norm bias; well under 0.1%)
and multi-token-prediction heads (DeepSeek-V3's 14B MTP module is not part of the 671B).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Shape:
    """The config values the count needs. Field names follow `ModelRecord`."""

    num_layers: int
    hidden_size: int
    num_attention_heads: int
    num_kv_heads: int
    head_dim: int
    intermediate_size: int
    vocab_size: int
    tie_word_embeddings: bool = False
    gated_mlp: bool = True
    moe_intermediate_size: int | None = None
    num_experts: int | None = None
    experts_per_token: int | None = None
    shared_experts: int | None = None
    first_dense_layers: int | None = None
    kv_lora_rank: int | None = None
    q_lora_rank: int | None = None
    qk_rope_head_dim: int | None = None
    v_head_dim: int | None = None  # MLA value head width; defaults to head_dim


def _attention_params(s: Shape) -> int:
    """Weights of one attention block: q, k, v, o projections (or MLA's low-rank factors)."""
    h = s.hidden_size
    if s.kv_lora_rank:  # DeepSeek multi-head latent attention
        rope = s.qk_rope_head_dim or 0
        nope = s.head_dim
        v_dim = s.v_head_dim or s.head_dim
        q_head = nope + rope
        if s.q_lora_rank:
            q = h * s.q_lora_rank + s.q_lora_rank + s.q_lora_rank * s.num_attention_heads * q_head
        else:
            q = h * s.num_attention_heads * q_head
        kv_down = h * (s.kv_lora_rank + rope) + s.kv_lora_rank  # + latent norm
        kv_up = s.kv_lora_rank * s.num_attention_heads * (nope + v_dim)
        o = s.num_attention_heads * v_dim * h
        return q + kv_down + kv_up + o
    q = h * s.num_attention_heads * s.head_dim
    kv = 2 * h * s.num_kv_heads * s.head_dim
    o = s.num_attention_heads * s.head_dim * h
    return q + kv + o


def _mlp_params(hidden: int, width: int, gated: bool) -> int:
    return (3 if gated else 2) * hidden * width


def count_params(s: Shape) -> tuple[int, int]:
    """(total, active-per-token) parameter counts as integers.

    MoE layers hold `num_experts` routed experts (+ `shared_experts`), each an MLP of width
    `moe_intermediate_size` (Mixtral has none: its experts use `intermediate_size`); a token
    passes through `experts_per_token` routed experts plus the shared ones. The first
    `first_dense_layers` layers (DeepSeek) use a dense MLP of width `intermediate_size`.
    """
    h = s.hidden_size
    embed = s.vocab_size * h
    head = 0 if s.tie_word_embeddings else s.vocab_size * h
    norms_per_layer = 2 * h
    attn = _attention_params(s)

    dense_mlp = _mlp_params(h, s.intermediate_size, s.gated_mlp)
    total = embed + head + h  # final norm
    active = total
    if s.num_experts:
        expert_width = s.moe_intermediate_size or s.intermediate_size
        expert = _mlp_params(h, expert_width, s.gated_mlp)
        shared = (s.shared_experts or 0) * expert
        router = h * s.num_experts
        moe_total = s.num_experts * expert + shared + router
        moe_active = (s.experts_per_token or 1) * expert + shared + router
        dense_layers = min(s.first_dense_layers or 0, s.num_layers)
        moe_layers = s.num_layers - dense_layers
        total += s.num_layers * (attn + norms_per_layer) + dense_layers * dense_mlp + moe_layers * moe_total
        active += s.num_layers * (attn + norms_per_layer) + dense_layers * dense_mlp + moe_layers * moe_active
    else:
        per_layer = attn + dense_mlp + norms_per_layer
        total += s.num_layers * per_layer
        active = total
    return total, active


def count_params_b(s: Shape) -> tuple[float, float]:
    """(total, active) in billions, rounded to 2 decimals as the data files store them."""
    total, active = count_params(s)
    return round(total / 1e9, 2), round(active / 1e9, 2)
