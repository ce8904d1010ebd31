"""Pinned figures: parameter counts from a model's shape, LoRA adapter sizes, KV widths.

The expected counts are the totals Hugging Face shows for each checkpoint (safetensors index
`total_size` / 2 bytes for bf16 checkpoints), i.e. independent of this code's formula:
meta-llama/Llama-2-7b-hf 6,738,415,616; Llama-2-13b-hf 13,015,864,320; Llama-2-70b-hf 68,976,648,192;
Meta-Llama-3-8B 8,030,261,248; Meta-Llama-3-70B 70,553,706,496; Mixtral-8x7B-v0.1 46,702,792,704.
LoRA: rank x (in + out) per adapted matrix (Hu et al. 2021).
"""

from __future__ import annotations

import pytest

from engine.architecture import from_record, generic_architecture, lora_trainable_params, normalise_targets
from tests.engine.fixtures_physics import (
    DEEPSEEK_V3,
    LLAMA2_7B,
    LLAMA2_13B,
    LLAMA2_70B,
    LLAMA3_8B,
    LLAMA3_70B,
    MIXTRAL_8X7B,
)


@pytest.mark.parametrize(("model", "params"), [
    (LLAMA2_7B, 6_738_415_616), (LLAMA2_13B, 13_015_864_320), (LLAMA2_70B, 68_976_648_192),
    (LLAMA3_8B, 8_030_261_248), (LLAMA3_70B, 70_553_706_496), (MIXTRAL_8X7B, 46_702_792_704),
])
def test_parameter_counts_match_the_published_checkpoints(model, params: int) -> None:
    arch = from_record(model)
    assert arch.total_params == params
    assert not arch.notes, "the shape reproduces the published size: no 'using the published' note"


def test_deepseek_v3_counts() -> None:
    """DeepSeek-V3: 671B total, 37B activated per token (technical report, arXiv:2412.19437)."""
    arch = from_record(DEEPSEEK_V3)
    assert arch.total_params == pytest.approx(671e9, rel=0.002)
    assert arch.active_params == pytest.approx(37.5e9, rel=0.01)
    assert arch.moe_layers == 61 - 3
    assert arch.kv_values_per_token_per_layer == 512 + 64  # MLA latent + decoupled RoPE key


def test_kv_values_per_token_for_gqa() -> None:
    assert from_record(LLAMA2_70B).kv_values_per_token_per_layer == 2 * 8 * 128  # 8 KV heads (GQA)
    assert from_record(LLAMA2_7B).kv_values_per_token_per_layer == 2 * 32 * 128  # MHA


@pytest.mark.parametrize(("targets", "expected"), [
    (("q_proj", "v_proj"), 32 * 2 * 8 * (4096 + 4096)),  # 4,194,304 (the PEFT default on Llama-2-7B)
    (("all-linear",), 32 * 8 * (4 * (4096 + 4096) + 2 * (4096 + 11008) + (11008 + 4096))),  # 19,988,480
])
def test_lora_adapter_parameters_llama2_7b(targets, expected: int) -> None:
    assert lora_trainable_params(from_record(LLAMA2_7B), 8, targets) == expected


def test_lora_on_gqa_uses_the_narrow_kv_projection() -> None:
    """Llama-3-8B: v_proj is 4096 -> 1024 (8 KV heads x 128): r16 q,v = 32 x 16 x (8192 + 5120)."""
    assert lora_trainable_params(from_record(LLAMA3_8B), 16, ("q", "v")) == 32 * 16 * ((4096 + 4096) + (4096 + 1024))


def test_lora_on_moe_adapts_every_expert() -> None:
    """Mixtral: an MLP target adapts each of the 8 experts in each of the 32 layers."""
    got = lora_trainable_params(from_record(MIXTRAL_8X7B), 8, ("down_proj",))
    assert got == 32 * 8 * 8 * (14336 + 4096)


def test_target_spellings() -> None:
    assert normalise_targets(["q,v"]) == ("q_proj", "v_proj")
    assert normalise_targets(["attn"]) == ("q_proj", "k_proj", "v_proj", "o_proj")
    assert normalise_targets(None) == ("q_proj", "v_proj")


def test_generic_shape_keeps_the_users_parameter_count() -> None:
    arch = generic_architecture(13.0)
    assert arch.total_params == arch.active_params == 13_000_000_000
    assert arch.generic and arch.head_dim == 128 and arch.kv_heads == 8
    assert arch.hidden // 128 == arch.layers  # hidden / layers = 128
