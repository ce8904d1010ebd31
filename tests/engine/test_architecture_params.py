"""Architecture shapes: parameter counts from the real shapes, generic shapes, LoRA adapter sizes."""

import pytest

from engine.architecture import (
    architecture_for,
    generic_architecture,
    lora_trainable_params,
    normalise_targets,
    param_count,
)
from tests.engine.fixtures_physics import (
    DEEPSEEK_V3,
    LLAMA2_7B,
    LLAMA2_13B,
    LLAMA2_70B,
    LLAMA3_8B,
    LLAMA3_70B,
    MIXTRAL_8X7B,
    MODELS,
)


@pytest.mark.parametrize("record", MODELS, ids=lambda m: m.id)
def test_shape_reproduces_published_counts(record):
    arch = architecture_for(record, None)
    total, active = param_count(arch)
    assert total == pytest.approx(record.total_params_b * 1e9, rel=0.005)
    assert active == pytest.approx(record.active_params_b * 1e9, rel=0.005)
    assert not arch.generic


def test_record_wins_over_rounded_user_size():
    arch = architecture_for(LLAMA3_70B, 70)
    assert arch.total_params == pytest.approx(70.55e9, rel=1e-3)
    assert arch.kv_heads == 8 and arch.layers == 80


def test_generic_shape_is_flagged_and_exact_size():
    arch = architecture_for(None, 13)
    assert arch.generic and arch.total_params == 13_000_000_000
    assert any("generic" in n for n in arch.notes)
    assert param_count(generic_architecture(13))[0] == pytest.approx(13e9, rel=0.05)


def test_no_size_no_model_assumes_7b_and_says_so():
    arch = architecture_for(None, None)
    assert arch.total_params == 7_000_000_000 and "assumed 7B" in arch.notes[-1]


@pytest.mark.parametrize(("record", "rank", "targets", "expected"), [
    (LLAMA2_7B, 8, ("q_proj", "v_proj"), 4_194_304),  # litgpt resource table a01
    (LLAMA2_13B, 8, ("q_proj", "v_proj"), 6_553_600),  # litgpt a05
    (LLAMA2_70B, 8, ("q_proj", "v_proj"), 80 * 8 * ((8192 + 8192) + (8192 + 1024))),  # GQA: v is 1024 wide
])
def test_lora_params_from_real_shapes(record, rank, targets, expected):
    assert lora_trainable_params(architecture_for(record, None), rank, targets) == expected


def test_lora_all_targets_and_aliases():
    arch = architecture_for(LLAMA3_8B, None)
    per_layer = 16 * ((4096 + 4096) + 2 * (4096 + 1024) + (4096 + 4096) + 2 * (4096 + 14336) + (14336 + 4096))
    assert lora_trainable_params(arch, 16, ("all",)) == 32 * per_layer
    assert normalise_targets(("q,v",)) == ("q_proj", "v_proj")
    assert normalise_targets(("attn", "mlp")) == normalise_targets(("all-linear",))


def test_moe_adapters_count_every_expert():
    arch = architecture_for(MIXTRAL_8X7B, None)
    mlp = lora_trainable_params(arch, 8, ("mlp",))
    assert mlp == 32 * 8 * 3 * 8 * (4096 + 14336)


def test_mla_cache_width_and_moe_counts():
    arch = architecture_for(DEEPSEEK_V3, None)
    assert arch.is_mla and arch.kv_values_per_token_per_layer == 512 + 64
    assert arch.is_moe and arch.moe_layers == 58
