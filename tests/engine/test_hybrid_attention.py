"""Hybrid linear-attention models (Qwen3-Next, Qwen3.5): 3 of every 4 layers are Gated DeltaNet with a constant-size
state per sequence; only the full-attention layers keep a KV cache that grows with context.

Modelled with the local-attention machinery Gemma's sliding windows use: the DeltaNet layers are local layers whose
window is their state expressed in tokens of full-attention KV (Qwen3-Next: 548,864 FP32 values = 1,072 BF16 tokens
of 1,024 values). Before, both models were unknown and sized as dense models with every layer caching every token.
"""

from __future__ import annotations

import pytest

from catalog.records import CatalogData
from engine.architecture import from_record
from engine.memory import kv_cache_bytes
from engine.throughput import prefill_attention_flops

CONTEXT = 32_768


def _hybrid_and_dense(data: CatalogData, model_id: str):
    row = data.model(model_id)
    assert row is not None, model_id
    hybrid = from_record(row)
    dense = hybrid.model_copy(update={"sliding_window": None, "local_layers": 0})  # every layer full attention
    return hybrid, dense


def test_qwen3_next_kv_cache_at_32k_is_about_a_quarter_of_an_equal_dense_model(data: CatalogData) -> None:
    hybrid, dense = _hybrid_and_dense(data, "qwen3-next-80b-a3b-instruct")
    assert (hybrid.layers, hybrid.local_layers, hybrid.sliding_window) == (48, 36, 1072)
    ratio = kv_cache_bytes(hybrid, CONTEXT, 1) / kv_cache_bytes(dense, CONTEXT, 1)
    # 12 full layers of 48 (1/4) plus 36 fixed states of 1,072 tokens each: 0.27
    assert ratio == pytest.approx((12 * CONTEXT + 36 * 1072) / (48 * CONTEXT))
    assert 0.25 <= ratio <= 0.28
    # 12 full-attention layers x 2 KV heads x 256 x 2 (K, V) x 2 bytes = 24 KiB per token, plus the states
    assert kv_cache_bytes(hybrid, CONTEXT, 1) == 2 * 1024 * (12 * CONTEXT + 36 * 1072)


def test_the_linear_layers_do_not_grow_with_context(data: CatalogData) -> None:
    for model_id, full_layers in (("qwen3-next-80b-a3b-thinking", 12), ("qwen3.5-397b-a17b", 15)):
        hybrid, dense = _hybrid_and_dense(data, model_id)
        per_token_full = hybrid.kv_values_per_token_per_layer * 2
        growth = kv_cache_bytes(hybrid, 2 * CONTEXT, 1) - kv_cache_bytes(hybrid, CONTEXT, 1)
        assert growth == per_token_full * full_layers * CONTEXT, model_id  # only the full-attention layers grow
        assert kv_cache_bytes(dense, 2 * CONTEXT, 1) - kv_cache_bytes(dense, CONTEXT, 1) == 4 * growth
        # and a long prompt's attention FLOPs follow: the linear layers cost a window's worth per token
        assert prefill_attention_flops(hybrid, CONTEXT) < 0.4 * prefill_attention_flops(dense, CONTEXT)


def test_qwen35_state_window_matches_its_deltanet_shape(data: CatalogData) -> None:
    """64 value heads x 128 x 128 + a 4-wide convolution over 12,288 channels (3 kept), in FP32, per layer:
    2,120 tokens of 1,024 BF16 KV values."""
    row = data.model("qwen3.5-397b-a17b")
    assert row is not None
    state_values = 64 * 128 * 128 + (2 * 16 * 128 + 64 * 128) * 3
    assert row.sliding_window == round(state_values * 4 / (2 * row.num_kv_heads * row.head_dim * 2))
    assert row.local_attention_layers == 45 and row.num_layers == 60
