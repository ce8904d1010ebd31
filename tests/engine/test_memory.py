"""Memory components: bytes per parameter, activations, KV cache, adapters, sharding, headroom."""

import pytest

from engine.architecture import Architecture, architecture_for, param_count
from engine.memory import (
    MemoryOptions,
    activation_bytes,
    estimate_memory,
    kv_cache_bytes,
    layer_activation_bytes,
    optimizer_bytes_per_param,
)
from tests.engine.fixtures_physics import A100_40, H100_SXM, LLAMA2_7B, LLAMA3_8B, LLAMA3_70B, workload


@pytest.mark.parametrize(("precision", "optimizer", "recipe", "total"), [
    ("bf16", "adamw", "amp_fp32_grads", 18),  # seeds 000/001
    ("bf16", "adamw", "amp_bf16_grads", 16),  # ZeRO paper (Rajbhandari et al. 2020): bf16 gradients
    ("bf16", "adamw", "pure_bf16", 8),
    ("bf16", "adamw_8bit", "amp_fp32_grads", 12),
    ("bf16", "paged_adamw_8bit", "pure_bf16", 6),
    ("bf16", "sgd", "amp_fp32_grads", 14),
    ("fp32", "adamw", "amp_fp32_grads", 16),
])
def test_bytes_per_param(precision, optimizer, recipe, total):
    assert sum(optimizer_bytes_per_param("full", precision, optimizer, recipe).values()) == total


def test_full_finetune_components_are_decimal_gb_with_formulas():
    arch = architecture_for(LLAMA2_7B, None)
    m = estimate_memory(workload(), arch, 1, H100_SXM)
    assert m.components["weights_gb"].value == pytest.approx(arch.total_params * 2 / 1e9, rel=1e-3)
    assert m.components["optimizer_gb"].value == pytest.approx(arch.total_params * 12 / 1e9, rel=1e-3)
    assert all(f.formula for f in m.components.values())
    assert m.per_gpu_gb == pytest.approx(sum(f.value for f in m.components.values()), abs=0.01)
    assert m.fits is False and m.usable_gb_per_gpu == pytest.approx(72.0)


def test_korthikanti_gpt_shape():
    """A GPT layer (f = 4h, MHA): the paper's 34sbh + 5as²b, minus 2sbh of dropout masks (Llama-style
    models have none), plus 8sbh for the fp32 RMSNorm upcasts HF/litgpt/torchtune save = 40sbh."""
    gpt = Architecture(name="gpt", layers=1, hidden=1024, heads=16, kv_heads=16, head_dim=64, ffn=4096, vocab=1000,
                       gated_mlp=False, total_params=1, active_params=1)
    s, b, h, a = 512, 2, 1024, 16
    assert layer_activation_bytes(gpt, s, b, flash=True) == 40 * s * b * h
    assert layer_activation_bytes(gpt, s, b, flash=False) == 40 * s * b * h + 5 * a * s * s * b


def test_checkpointing_keeps_layer_inputs_plus_one_layer():
    arch = architecture_for(LLAMA2_7B, None)
    full = activation_bytes(arch, 2048, 1, True, False)
    ckpt = activation_bytes(arch, 2048, 1, True, True)
    assert ckpt == 2 * 2048 * 4096 * 32 + full // 32
    assert activation_bytes(arch, 2048, 1, True, False, tp=4) == full // 4


def test_kv_cache_formula_gqa():
    arch = architecture_for(LLAMA3_70B, None)
    assert kv_cache_bytes(arch, 8192, 1, 2) == 2 * 80 * 8 * 128 * 8192 * 2


def test_zero_stages_shard_in_order():
    arch = architecture_for(LLAMA3_8B, None)
    per = [estimate_memory(workload(zero_stage=z), arch, 8).components for z in range(4)]
    assert per[1]["optimizer_gb"].value == pytest.approx(per[0]["optimizer_gb"].value / 8, rel=1e-3)
    assert per[1]["gradients_gb"].value == per[0]["gradients_gb"].value
    assert per[2]["gradients_gb"].value == pytest.approx(per[0]["gradients_gb"].value / 8, rel=1e-3)
    assert per[3]["weights_gb"].value == pytest.approx(per[0]["weights_gb"].value / 8, rel=1e-3)
    assert "buffers_gb" in per[3]


def test_total_is_all_gpus():
    arch = architecture_for(LLAMA3_8B, None)
    m = estimate_memory(workload(zero_stage=3), arch, 4)
    assert m.total_gb == pytest.approx(m.per_gpu_gb * 4, rel=1e-6) and m.gpus == 4


def test_qlora_nf4_constants_and_adapter():
    arch = architecture_for(LLAMA2_7B, None)
    w = workload(mode="qlora", precision="nf4", optimizer="paged_adamw_8bit", seq_len=1304)
    dq = estimate_memory(w, arch, 1, A100_40)
    plain = estimate_memory(w, arch, 1, A100_40, options=MemoryOptions(double_quant=False))
    assert dq.components["quant_constants_gb"].value == pytest.approx(arch.linear_params * 0.127 / 8 / 1e9, abs=1e-3)
    assert plain.components["quant_constants_gb"].value == pytest.approx(arch.linear_params * 0.5 / 8 / 1e9, abs=1e-3)
    assert dq.components["adapter_gb"].inputs["adapter_params"] == 4_194_304
    assert "gradients_gb" not in dq.components and "optimizer_gb" not in dq.components


def test_adapter_overhead_article_mode():
    arch = architecture_for(None, 70)
    w = workload(mode="qlora", precision="nf4", adapter_overhead_gb=12.0)
    m = estimate_memory(w, arch, 1, H100_SXM)
    # the published worked example: 70B x 0.5 B = 35 GB NF4 base + ~12 GB adapter/paged Adam = ~47 GB (embeddings kept bf16 add ~0.4)
    assert m.per_gpu_gb == pytest.approx(47.0, abs=0.8)
    assert m.fits


def test_inference_components():
    arch = architecture_for(LLAMA3_70B, None)
    m = estimate_memory(workload(mode="inference", seq_len=8192, concurrency=10), arch, 2, H100_SXM)
    assert m.components["kv_cache_gb"].value == pytest.approx(2 * 80 * 8 * 128 * 8192 * 10 * 2 / 2 / 1e9, rel=1e-3)
    assert m.components["weights_gb"].value == pytest.approx(param_count(arch)[0] * 2 / 2 / 1e9, rel=1e-3)


def test_headroom_and_fits():
    arch = architecture_for(LLAMA2_7B, None)
    w = workload(mode="inference", headroom=0.15)
    m = estimate_memory(w, arch, 1, A100_40)
    assert m.usable_gb_per_gpu == pytest.approx(34.0) and m.fits


def test_cpu_offload_keeps_only_the_working_set_and_the_layer_in_flight_on_the_gpu() -> None:
    """FSDP CPU offload / ZeRO-Offload: weights, gradients, optimizer state (and a QLoRA's constants and adapters)
    live in host memory; the GPU keeps activations, logits, overhead and the layers being gathered, even on one GPU."""
    from engine.memory import OFFLOADED_PARTS

    arch = architecture_for(LLAMA3_8B, None)
    for mode in ("full", "qlora"):
        w = workload(mode=mode, precision="nf4" if mode == "qlora" else "bf16", gradient_checkpointing=True)
        kept = estimate_memory(w, arch, 1, options=MemoryOptions())
        moved = estimate_memory(w, arch, 1, options=MemoryOptions(state_offload=True))
        assert all(moved.components[k].value == 0 for k in OFFLOADED_PARTS if k in moved.components)
        kept_buffers = kept.components["buffers_gb"].value if "buffers_gb" in kept.components else 0.0
        assert moved.components["buffers_gb"].value > kept_buffers
        for k in ("activations_gb", "logits_gb", "overhead_gb"):
            assert moved.components[k].value == kept.components[k].value
        assert moved.per_gpu_gb < kept.per_gpu_gb / 2
