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


def test_lora_on_mla_adapts_the_up_projections() -> None:
    """DeepSeek-V3 r=8 on q,k,v,o per layer: q 1536 -> 128 x (128 + 64), k and v 512 -> 128 x 128,
    o 128 x 128 -> 7168; 61 layers."""
    per_layer = 8 * ((1536 + 128 * 192) + 2 * (512 + 128 * 128) + (128 * 128 + 7168))
    assert lora_trainable_params(from_record(DEEPSEEK_V3), 8, ("q_proj", "k_proj", "v_proj", "o_proj")) == 61 * per_layer == 40_726_528


def test_lora_on_lm_head() -> None:
    assert lora_trainable_params(from_record(LLAMA2_7B), 8, ("lm_head",)) == 8 * (4096 + 32000)


def test_mixtral_shape_flags() -> None:
    arch = from_record(MIXTRAL_8X7B)
    assert (arch.moe_layers, arch.is_moe, arch.is_mla) == (32, True, False)
    assert (from_record(LLAMA2_7B).moe_layers, from_record(DEEPSEEK_V3).is_mla) == (0, True)


def test_published_size_wins_over_a_shape_that_does_not_reproduce_it() -> None:
    arch = from_record(LLAMA2_7B.model_copy(update={"total_params_b": 9.0}))
    assert arch.total_params == arch.active_params == 9_000_000_000
    assert arch.notes == ("shape gives 6.74B parameters; using the published 9.00B",)


MODELS = (LLAMA2_7B, LLAMA2_13B, LLAMA2_70B, LLAMA3_8B, LLAMA3_70B, MIXTRAL_8X7B, DEEPSEEK_V3)


@pytest.mark.parametrize(("size_b", "reference"), [(70, "llama-3-70b"), (65, "llama-2-70b"), (8, "llama-3-8b"), (30, None)])
def test_bare_size_borrows_the_nearest_dense_shape_within_15_percent(size_b: float, reference) -> None:
    """70B: Llama 3 70B (70.55, 0.8% off) beats Llama 2 70B (68.98, 1.5%); 65B: 68.98 is 6% off;
    30B: nothing within 15% (13B and 70B are far); MoE models never lend their shape."""
    from engine.architecture import reference_shape

    found = reference_shape(size_b, MODELS)
    assert (found.id if found else None) == reference


def test_architecture_like_and_architecture_for_notes() -> None:
    from engine.architecture import architecture_for, architecture_like

    like = architecture_like(LLAMA3_70B, 65)
    assert (like.name, like.total_params, like.active_params, like.generic, like.layers) == (
        "65B (Llama 3 70B-like)", 65_000_000_000, 65_000_000_000, True, 80)
    assert like.notes == ("no model named: assumed a Llama 3 70B-like architecture (80 layers, hidden 8192, 8 KV heads) "
                          "at 65B parameters; name the model for exact figures",)
    assert architecture_for(LLAMA2_7B, 13).notes == ("user said 13B; Llama 2 7B has 6.74B: using the catalog shape",)
    assert architecture_for(LLAMA2_7B, 7).notes == ()
    fallback = architecture_for(None, None)
    assert fallback.total_params == 7_000_000_000 and fallback.notes[-1] == "no model or size given: assumed 7B"
    generic = architecture_for(None, 13)
    assert (generic.layers, generic.hidden, generic.ffn, generic.vocab) == (42, 5376, 14336, 32000)
