"""Pinned figures: how memory splits over a layout (data x tensor x pipeline, ZeRO), the working
buffers, adapters, MLA's KV cache and the usable share of a card.

Hand arithmetic on Llama-2-7B's Hugging Face shape (32 layers, hidden 4096, FFN 11008, 32 heads,
vocab 32000, untied embeddings: 2 x 131,072,000 embedding parameters) and DeepSeek-V3's (61 layers,
MLA latent 512 + RoPE key 64: arXiv:2412.19437 section 2.1.1). ZeRO-3 gathers one layer's
parameters for compute and prefetches the next (Rajbhandari et al. 2020; PyTorch FSDP docs).
"""

from __future__ import annotations

import math

import pytest

from engine.architecture import from_record
from engine.memory import MemoryOptions, estimate_memory, per_gpu_bytes, resolve_layout, usable_gb
from engine.units import GB
from tests.engine.fixtures_physics import DEEPSEEK_V3, H100_SXM, LLAMA2_7B, workload

N = 6_738_415_616
EMBED = 32000 * 4096  # input embedding; lm_head is the same size (untied)
BODY = N - 2 * EMBED
LAYER = BODY / 32  # parameters per transformer layer (attention + MLP + norms share)


@pytest.mark.parametrize(("mode", "gpus", "tp", "pp", "expected"), [
    ("inference", 8, None, None, (8, 1, 8, 1)),  # serving splits tensor-parallel by default
    ("full", 8, None, None, (8, 8, 1, 1)),  # training: data parallel by default
    ("full", 8, 2, 2, (8, 2, 2, 2)),
    ("full", 4, 8, None, (4, 1, 4, 1)),  # tensor parallel cannot exceed the GPUs
    ("full", 8, 4, 4, (8, 1, 4, 2)),  # pipeline limited to gpus // tp
])
def test_resolve_layout(mode: str, gpus: int, tp, pp, expected) -> None:
    lay = resolve_layout(workload(mode=mode), gpus, tp, pp)
    assert (lay.gpus, lay.dp, lay.tp, lay.pp) == expected


def test_inference_never_uses_zero() -> None:
    assert resolve_layout(workload(mode="inference", zero_stage=3), 8).zero_stage == 0
    assert resolve_layout(workload(mode="full", zero_stage=3), 8).zero_stage == 3


@pytest.mark.parametrize(("headroom", "usable"), [(None, 72.0), (0.2, 64.0), (0.0, 80.0), (0.95, 8.0), (-1.0, 80.0)])
def test_usable_memory_after_headroom(headroom, usable: float) -> None:
    """80 GB x (1 - headroom); headroom defaults to 10% and is clamped to 0-90%."""
    assert usable_gb(H100_SXM, headroom) == pytest.approx(usable)


def test_fits_compares_the_busiest_gpu_with_usable_memory() -> None:
    arch = from_record(LLAMA2_7B)
    est = estimate_memory(workload(mode="inference"), arch, 1, H100_SXM)
    assert est.usable_gb_per_gpu == 72.0 and est.fits is True
    full = estimate_memory(workload(mode="full"), arch, 1, H100_SXM)  # 18 B/param = 121 GB: no
    assert full.fits is False and full.per_gpu_gb > 121
    assert full.total_gb == full.per_gpu_gb  # one GPU
    assert per_gpu_bytes(workload(mode="full"), arch, resolve_layout(workload(mode="full"), 1)) / GB == pytest.approx(full.per_gpu_gb, abs=1e-3)


def test_pipeline_stage_holds_its_layers_and_the_bigger_edge() -> None:
    """pp 4: the busiest stage has 32/4 = 8 layers plus the embedding (or the lm_head)."""
    est = estimate_memory(workload(mode="full"), from_record(LLAMA2_7B), 4, tensor_parallel=1, pipeline_parallel=4, zero_stage=0)
    stage = BODY * 8 / 32 + EMBED
    assert est.components["weights_gb"].value == pytest.approx(stage * 2 / GB, abs=1e-3)
    assert est.components["optimizer_gb"].value == pytest.approx(stage * 12 / GB, abs=1e-3)


def test_tensor_parallel_divides_weights() -> None:
    est = estimate_memory(workload(mode="inference"), from_record(LLAMA2_7B), 4)
    assert est.components["weights_gb"].value == pytest.approx(N * 2 / 4 / GB, abs=1e-3)
    assert est.total_gb == pytest.approx(est.per_gpu_gb * 4, abs=0.01)


def test_zero3_all_gather_buffer_is_two_layers() -> None:
    est = estimate_memory(workload(mode="full", zero_stage=3), from_record(LLAMA2_7B), 8, tensor_parallel=1, zero_stage=3)
    assert est.components["buffers_gb"].value == pytest.approx(2 * 2.0 * LAYER / GB, abs=1e-3)


def test_qlora_dequantisation_buffer_is_the_widest_projection_in_bf16() -> None:
    est = estimate_memory(workload(mode="qlora"), from_record(LLAMA2_7B), 1)
    assert est.components["buffers_gb"].value == pytest.approx(2 * 4096 * 11008 / GB, abs=5e-4)  # figures carry 3 decimals


def test_lora_adapter_carries_its_own_adam_state() -> None:
    """r=8 on q,v: 4,194,304 adapter parameters x 18 bytes (weights, fp32 grads, master, m, v)."""
    est = estimate_memory(workload(mode="lora"), from_record(LLAMA2_7B), 1)
    assert est.components["adapter_gb"].value == pytest.approx(4_194_304 * 18 / GB, abs=5e-4)  # figures carry 3 decimals
    assert est.components["weights_gb"].value == pytest.approx(N * 2 / GB, abs=1e-3)  # frozen bf16 base
    assert "gradients_gb" not in est.components and "optimizer_gb" not in est.components


def test_flat_adapter_allowance_replaces_the_working_terms() -> None:
    est = estimate_memory(workload(mode="qlora", adapter_overhead_gb=6.0), from_record(LLAMA2_7B), 1)
    assert est.components["adapter_gb"].value == 6.0
    assert est.components["weights_gb"].value == pytest.approx(N * 0.5 / GB, abs=1e-3)  # params x 0.5 B, flat
    assert set(est.components) == {"weights_gb", "adapter_gb"}


def test_training_options() -> None:
    arch = from_record(LLAMA2_7B)
    w = workload(mode="full", gradient_checkpointing=True, seq_len=4096, batch_size=2)
    base = estimate_memory(w, arch, 1).components
    fused = estimate_memory(w, arch, 1, options=MemoryOptions(optimizer_in_backward=True)).components
    assert fused["gradients_gb"].value == 0.0
    offload = estimate_memory(w, arch, 1, options=MemoryOptions(activation_offload=True)).components
    assert base["activations_gb"].value - offload["activations_gb"].value == pytest.approx(2 * 4096 * 2 * 4096 * 32 / GB, abs=1e-3)
    chunked = estimate_memory(w, arch, 1, options=MemoryOptions(loss_chunks=8)).components
    assert chunked["logits_gb"].value == pytest.approx(4096 * 2 * 32000 * 6 / 8 / GB, abs=1e-3)
    bare = estimate_memory(w, arch, 1, options=MemoryOptions(overhead_gb=0.0, include_activations=False)).components
    assert "overhead_gb" not in bare and "activations_gb" not in bare and "logits_gb" not in bare
    amp16 = estimate_memory(w, arch, 1, options=MemoryOptions(recipe="amp_bf16_grads")).components
    assert amp16["gradients_gb"].value == pytest.approx(N * 2 / GB, abs=1e-3)


def test_inference_working_set() -> None:
    """A 2,048-token prefill chunk: 2 B x chunk x (3h + 2f), plus fp32 logits for each sequence."""
    est = estimate_memory(workload(mode="inference", seq_len=8192, concurrency=4), from_record(LLAMA2_7B), 1)
    assert est.components["activations_gb"].value == pytest.approx((2 * 2048 * (3 * 4096 + 2 * 11008) + 4 * 32000 * 4) / GB, abs=5e-4)  # figures carry 3 decimals
    assert est.components["overhead_gb"].value == 1.0


def test_mla_kv_cache_is_the_latent_and_is_sharded_by_data_parallel_attention() -> None:
    """DeepSeek-V3 caches 512 + 64 values per token per layer (not 2 x 128 heads x 128). The latent has no
    heads to split, so it is served with data-parallel attention (each of the 8 ranks holds its own
    sequences' cache: SGLang --enable-dp-attention, vLLM DP+EP): the group's cache / 8 per GPU."""
    arch = from_record(DEEPSEEK_V3)
    per_token = 61 * (512 + 64) * 2  # bytes, bf16
    for gpus in (8, 16):
        est = estimate_memory(workload(mode="inference", seq_len=32_768, concurrency=8), arch, gpus, tensor_parallel=8,
                              pipeline_parallel=gpus // 8)
        stage = math.ceil(61 / (gpus // 8)) / 61
        assert est.components["kv_cache_gb"].value == pytest.approx(per_token * 32_768 * 8 * stage / 8 / GB, abs=1e-3)


def test_inference_components_carry_their_formula_and_inputs() -> None:
    """What the reply's "Show formulas" prints for Llama-3-8B INT4 at 2 x 4,096 tokens: each
    component names its formula and the inputs a reader needs to redo it by hand."""
    from tests.engine.fixtures_physics import LLAMA3_8B

    est = estimate_memory(workload(mode="inference", precision="int4", seq_len=4096, concurrency=2), from_record(LLAMA3_8B), 1)
    c = est.components
    assert list(c) == ["weights_gb", "quant_constants_gb", "kv_cache_gb", "activations_gb", "overhead_gb"]
    assert (c["weights_gb"].formula, c["weights_gb"].inputs) == (
        "linear params x 0.5 B + embeddings/norms x 2 B", {"params_on_gpu": 8_030_261_248, "precision": "int4"})
    assert (c["quant_constants_gb"].formula, c["quant_constants_gb"].inputs) == (
        "linear params x 0.0312 B (group scales/zeros)", {"bytes_per_param": 4 / 128})
    assert c["kv_cache_gb"].formula == "2 x layers x kv_heads x head_dim x seq_len x sequences x bytes"
    assert c["kv_cache_gb"].inputs == {"layers": 32, "kv_heads": 8, "head_dim": 128, "seq_len": 4096, "sequences": 2,
                                       "bytes_per_element": 2.0, "split_over_gpus": 1}
    assert c["activations_gb"].formula == "prefill chunk x 2 B x (3h + 2f) + logits for each sequence's last token"
    assert c["activations_gb"].inputs == {"prefill_chunk_tokens": 2048}
    assert (c["overhead_gb"].formula, c["overhead_gb"].inputs) == (
        "CUDA context + framework workspaces (stated constant)", {"overhead_gb": 1.0})
    assert est.notes[:2] == ("layout: 1 GPU(s) = data 1 x tensor 1 x pipeline 1",
                             "decimal GB (10^9 bytes); per-GPU figures are the busiest GPU")
    bf16 = estimate_memory(workload(mode="inference", precision="bf16"), from_record(LLAMA3_8B), 1).components["weights_gb"]
    assert (bf16.formula, bf16.inputs) == ("params x 2 B", {"params_on_gpu": 8_030_261_248, "precision": "bf16"})


def test_mla_kv_formula_and_mixtral_moe_activations() -> None:
    from tests.engine.fixtures_physics import MIXTRAL_8X7B

    mla = estimate_memory(workload(mode="inference"), from_record(DEEPSEEK_V3), 8).components["kv_cache_gb"]
    assert mla.formula == "layers x (kv_lora_rank + rope_dim) x seq_len x sequences x bytes (MLA)"
    assert mla.inputs["split_over_gpus"] == 8  # data-parallel attention: each of the 8 ranks holds its own sequences
    arch = from_record(MIXTRAL_8X7B)
    s, b, h = 2048, 1, 4096
    f_moe = 2 * 14336  # the two routed experts a token uses
    attention = 2 * s * b * (h + 2 * 4096 + 2 * 8 * 128)  # GQA: K and V are 8 heads x 128 wide
    moe_layer = attention + 2 * s * b * h + 8 * s * b * f_moe + 12 * s * b * h
    from engine.memory import activation_bytes, layer_activation_bytes

    assert layer_activation_bytes(arch, s, b, flash=True, moe_layer=True) == moe_layer
    assert activation_bytes(arch, s, b, flash=True, checkpointing=False) == 32 * moe_layer
    assert activation_bytes(arch, s, b, flash=True, checkpointing=True) == 2 * s * b * h * 32 + moe_layer


def test_kv_cache_of_nothing_is_nothing() -> None:
    from engine.memory import kv_cache_bytes

    arch = from_record(LLAMA2_7B)
    assert kv_cache_bytes(arch, 0, 4) == 0 and kv_cache_bytes(arch, None, 4) == 0  # type: ignore[arg-type]
    assert kv_cache_bytes(arch, 4096, 0) == 0 and kv_cache_bytes(arch, 4096, None) == 0  # type: ignore[arg-type]
    assert kv_cache_bytes(arch, 1, 1) == 2 * 32 * 32 * 128 * 2  # default 2 bytes per element


def test_optimizer_defaults_and_paged_8bit_adam() -> None:
    from engine.memory import optimizer_bytes_per_param

    assert optimizer_bytes_per_param("full", "bf16", None) == {"weights": 2.0, "gradients": 4.0, "optimizer": 12.0}
    assert optimizer_bytes_per_param("full", "bf16", "paged_adamw_8bit")["optimizer"] == 4.0 + 2.0


def test_moe_layers_use_the_routed_and_shared_expert_widths() -> None:
    """A model with one dense layer (FFN 4096) and MoE layers of 2 routed + 1 shared experts of 1024:
    dense layers keep 8sbf with f = 4096, MoE layers with f = 3 x 1024."""
    from engine.architecture import Architecture
    from engine.memory import activation_bytes, layer_activation_bytes

    arch = Architecture(name="moe", layers=4, hidden=1024, heads=8, kv_heads=8, head_dim=128, ffn=4096, vocab=1000,
                        experts=8, active_experts=2, shared_experts=1, moe_ffn=1024, first_dense_layers=1,
                        total_params=1, active_params=1)
    s, b, h = 512, 1, 1024
    common = 10 * s * b * h + 2 * s * b * h + 12 * s * b * h  # attention (MHA) + MLP input + norms
    dense, moe = common + 8 * s * b * 4096, common + 8 * s * b * 3 * 1024
    assert layer_activation_bytes(arch, s, b, flash=True, moe_layer=False) == dense
    assert layer_activation_bytes(arch, s, b, flash=True, moe_layer=True) == moe
    assert activation_bytes(arch, s, b, flash=True, checkpointing=False) == dense + 3 * moe
    assert activation_bytes(arch, s, b, flash=True, checkpointing=True) == 2 * s * b * h * 4 + max(dense, moe)
    wide = arch.model_copy(update={"moe_ffn": 4096})  # now the MoE layer is the bigger working set
    assert activation_bytes(wide, s, b, flash=True, checkpointing=True) == 2 * s * b * h * 4 + common + 8 * s * b * 3 * 4096
