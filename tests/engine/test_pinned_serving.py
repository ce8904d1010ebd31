"""Pinned figures: decode roofline, MoE experts touched per batch, cost per 1M tokens, break-even.

Hand arithmetic from public sources:
- decode is memory-bound: each step streams the weights (and each sequence's KV cache) once, time =
  bytes / (bandwidth x efficiency) (the roofline model, Williams et al. 2009); H100 SXM5 HBM3
  3.35 TB/s (NVIDIA H100 datasheet);
- MoE routing: with E experts and k routed per token, a batch of B tokens touches on average
  E x (1 - (1 - k/E)^B) distinct experts (each expert missed by one token with probability 1 - k/E,
  assuming uniform routing); Mixtral 8x7B routes 2 of 8 (config.json `num_local_experts`,
  `num_experts_per_tok`);
- cost per 1M tokens: USD per hour / (tokens/s x 3600) x 1e6.
"""

from __future__ import annotations

import math

import pytest

from engine.architecture import from_record
from engine.throughput import (
    buy_vs_rent_break_even,
    cloud_cost_per_1m_tokens,
    cost_per_1m_tokens,
    decode_step_seconds,
    estimate_inference,
    weight_bytes_read_per_step,
)
from tests.engine.fixtures_physics import A100_80, H100_SXM, L40S, LLAMA2_7B, MIXTRAL_8X7B, T4, workload

# Mixtral 8x7B routed expert weights: 32 layers x 8 experts x 3 SwiGLU matrices x 4096 x 14336.
MIXTRAL_EXPERT_PARAMS = 32 * 8 * 3 * 4096 * 14336
N_7B = 6_738_415_616


def expected_touched_fraction(experts: int, k: int, batch: int) -> float:
    return 1 - (1 - k / experts) ** batch


def test_mixtral_parameter_counts() -> None:
    """46.7B total, 12.9B active (Mistral AI's Mixtral announcement; config.json shape)."""
    arch = from_record(MIXTRAL_8X7B)
    assert MIXTRAL_EXPERT_PARAMS == 45_097_156_608
    assert arch.total_params == 46_702_792_704
    assert arch.active_params == arch.total_params - MIXTRAL_EXPERT_PARAMS * 6 // 8 == 12_879_925_248


@pytest.mark.parametrize("batch", [1, 2, 4, 16])
def test_moe_decode_reads_only_the_experts_the_batch_touches(batch: int) -> None:
    arch = from_record(MIXTRAL_8X7B)
    every_expert = weight_bytes_read_per_step(arch, "bf16", 100_000)  # (3/4)^100000 == 0: all experts read
    skipped = MIXTRAL_EXPERT_PARAMS * (1 - expected_touched_fraction(8, 2, batch)) * 2  # bf16 bytes not read
    assert weight_bytes_read_per_step(arch, "bf16", batch) == pytest.approx(every_expert - skipped, rel=1e-9)


def test_moe_touched_fractions_by_hand() -> None:
    """Batch 1: 2 of 8 experts (25%); batch 4: 1 - 0.75^4 = 68.36%; batch 16: 99.0%."""
    arch = from_record(MIXTRAL_8X7B)
    full = weight_bytes_read_per_step(arch, "bf16", 100_000)
    b1 = weight_bytes_read_per_step(arch, "bf16", 1)
    b4 = weight_bytes_read_per_step(arch, "bf16", 4)
    assert full - b1 == pytest.approx(MIXTRAL_EXPERT_PARAMS * 0.75 * 2, rel=1e-9)
    assert full - b4 == pytest.approx(MIXTRAL_EXPERT_PARAMS * (1 - 0.68359375) * 2, rel=1e-9)


def test_dense_model_reads_all_weights_whatever_the_batch() -> None:
    arch = from_record(LLAMA2_7B)
    assert weight_bytes_read_per_step(arch, "bf16", 1) == weight_bytes_read_per_step(arch, "bf16", 64)


def test_decode_step_seconds() -> None:
    # 13.5 GB over 3.35 TB/s at 68% efficiency: 13.5e9 / 2.278e12 = 5.926 ms
    assert decode_step_seconds(13.5e9, 3.35, 0.68) == pytest.approx(13.5e9 / (3.35e12 * 0.68), rel=1e-12)
    assert decode_step_seconds(1.0, 0.0, 0.68) == math.inf


def test_llama2_7b_bf16_decode_on_one_h100() -> None:
    """Batch 1, 2,048-token context: bandwidth-bound; tokens/s = 1 / step."""
    arch = from_record(LLAMA2_7B)
    est = estimate_inference(workload(mode="inference", precision="bf16", seq_len=2048, concurrency=1), arch, H100_SXM)
    linear = N_7B - 2 * 32000 * 4096 - 65 * 4096
    weights = (linear + 32000 * 4096 + 2 * 4096 * 32) * 2  # linear + lm_head + norms, bf16
    kv = 2 * 32 * 32 * 128 * 2048 * 2  # 1.07 GB
    step = (weights + kv) / (3.35e12 * 0.68)
    inputs = est.decode_tokens_per_s_per_sequence.inputs
    assert inputs["weight_bytes_read"] == int(weights)
    assert inputs["kv_bytes_read"] == kv
    assert est.bound == "bandwidth"
    assert est.decode_tokens_per_s_per_sequence.value == pytest.approx(1 / step, abs=0.06)  # ~155 tokens/s
    # decode FLOPs: 2N per token + 4 x layers x width x context for attention
    flops = 2 * N_7B + 4 * 32 * 4096 * 2048
    assert inputs["compute_time_s"] == pytest.approx(flops / (989.4e12 * 0.5), rel=1e-9)


def test_quantised_decode_kernel_efficiency() -> None:
    """Reading the weights: AWQ/GPTQ 4-bit through Marlin on SM 8.0+ at 0.9 of bf16's bandwidth efficiency (Marlin's
    near-ideal 4x to batch 16-32); dequantising kernels elsewhere (T4) and for NF4 at 0.6 (gpt-fast's int4), INT8 0.85."""
    arch = from_record(LLAMA2_7B)
    for gpu, precision, factor in ((H100_SXM, "bf16", 1.0), (H100_SXM, "fp8", 1.0), (H100_SXM, "int8", 0.85),
                                   (H100_SXM, "int4", 0.9), (A100_80, "int4", 0.9), (L40S, "int4", 0.9),
                                   (T4, "int4", 0.6), (H100_SXM, "nf4", 0.6)):
        est = estimate_inference(workload(mode="inference", precision=precision), arch, gpu)
        assert est.decode_tokens_per_s_per_sequence.inputs["bandwidth_efficiency"] == pytest.approx(0.68 * factor), (
            gpu.id, precision)


def test_the_kv_cache_is_read_without_the_weights_kernel_penalty() -> None:
    """A 4-bit model's step: its packed weights at the kernel's efficiency, its 16-bit KV cache at the plain one
    (the attention kernels read it as stored). Applying the weights' 0.6 to the KV too made a batched T4 slower."""
    arch = from_record(LLAMA2_7B)
    est = estimate_inference(workload(mode="inference", precision="int4", concurrency=16), arch, T4)
    inputs = est.decode_tokens_per_s_per_sequence.inputs
    bandwidth = 0.32e12 * 0.68
    expected = inputs["weight_bytes_read"] / (bandwidth * 0.6) + inputs["kv_bytes_read"] / bandwidth
    assert inputs["memory_time_s"] == pytest.approx(expected, rel=1e-9)


def test_replicas_for_a_target_are_a_ceiling() -> None:
    arch = from_record(LLAMA2_7B)
    one = estimate_inference(workload(mode="inference", concurrency=8), arch, H100_SXM)
    per_replica = one.decode_tokens_per_s.value
    target = per_replica * 2.2
    est = estimate_inference(workload(mode="inference", concurrency=8, target_tokens_per_s=target), arch, H100_SXM)
    assert est.replicas == 3  # ceil(2.2)


def test_cloud_cost_per_million_tokens() -> None:
    # $2/GPU-hour, 1 GPU, 1,000 tokens/s: $2 / 3.6M tokens = $0.5556 per 1M
    assert cloud_cost_per_1m_tokens(2.0, 1, 1000.0).value == pytest.approx(0.5556, abs=1e-4)
    # 8 GPUs at $2 and 60% utilisation, 10,000 tokens/s: $16 / (6,000 x 3600) x 1e6 = $0.7407
    assert cloud_cost_per_1m_tokens(2.0, 8, 10_000.0, 0.6).value == pytest.approx(16 / (6000 * 3600) * 1e6, abs=1e-4)


def test_owned_hardware_cost_per_million_tokens() -> None:
    """$30,000 over 3 years (3 x 8,760 h) + 700 W at $0.12/kWh, 1,000 tokens/s at 70% busy."""
    hw_per_s = 30_000 / (3 * 8760 * 3600)
    power_per_s = 0.700 * 0.12 / 3600
    expected = (hw_per_s + power_per_s) / (1000 * 0.7) * 1e6  # $0.4863
    got = cost_per_1m_tokens(30_000, 0.7, 1000.0, tdp_w=700)
    assert got.value == pytest.approx(expected, abs=1e-4)


def test_buy_vs_rent_break_even_hours() -> None:
    # $30,000 card vs $2/h rent, power 0.7 kW x $0.12 = $0.084/h: 30,000 / 1.916 = 15,658 hours
    assert buy_vs_rent_break_even(30_000, 2.0, tdp_w=700).value == round(30_000 / (2.0 - 0.084))
    # rent below the power bill: never breaks even
    never = buy_vs_rent_break_even(30_000, 0.05, tdp_w=700)
    assert never.value == 0.0 and never.notes


def test_cloud_cost_figure_exactly() -> None:
    fig = cloud_cost_per_1m_tokens(2.0, 1, 1000.0)
    assert fig.value == 0.5556  # $2 / 3.6M tokens, 4 decimals
    assert (fig.unit, fig.formula) == ("USD/1M tokens", "rate x gpus / (tokens/s x utilisation x 3600) x 1e6")
    assert fig.inputs == {"usd_per_gpu_hour": 2.0, "gpus": 1, "tokens_per_s": 1000.0, "utilization": 1.0}
    assert cloud_cost_per_1m_tokens(2.0, 4, 1000.0).value == pytest.approx(4 * 0.5556, abs=1e-3)
    assert cloud_cost_per_1m_tokens(2.0, 1, 0.5).value == pytest.approx(2.0 / 1800 * 1e6)  # under 1 token/s still costs
    assert cloud_cost_per_1m_tokens(2.0, 1, 0.0).value == 0.0


def test_owned_cost_figure_exactly() -> None:
    fig = cost_per_1m_tokens(30_000, 0.7, 1000.0, tdp_w=700)
    assert fig.value == 0.4863
    assert (fig.unit, fig.formula) == ("USD/1M tokens", "(hardware / lifetime + TDP x $/kWh) per s / (tokens/s x utilisation) x 1e6")
    assert fig.inputs == {"hardware_cost_usd": 30_000, "utilization": 0.7, "tokens_per_s": 1000.0, "lifetime_years": 3.0,
                          "usd_per_kwh": 0.12, "tdp_w": 700, "num_gpus": 1}
    assert fig.notes[0].startswith("power billed at TDP around the clock") and fig.notes[0].endswith("cooling and ops labour")
    # defaults: 400 W, 3 years, $0.12/kWh; 8 GPUs draw 8 x TDP
    assert cost_per_1m_tokens(30_000, 1.0, 1000.0).value == pytest.approx(
        (30_000 / (3 * 8760 * 3600) + 0.4 * 0.12 / 3600) / 1000 * 1e6, abs=1e-4)
    assert cost_per_1m_tokens(0, 1.0, 1000.0, tdp_w=700, num_gpus=8).value == pytest.approx(8 * 0.7 * 0.12 / 3600 / 1000 * 1e6, abs=1e-4)
    assert cost_per_1m_tokens(30_000, 1.0, 1000.0, lifetime_years=0, tdp_w=0).value == 0.0  # no lifetime: no amortisation
    assert cost_per_1m_tokens(0, 1.0, 0.5, tdp_w=700).value == pytest.approx(0.7 * 0.12 / 3600 / 0.5 * 1e6, abs=1e-3)
    assert cost_per_1m_tokens(30_000, 0.7, 0.0).value == 0.0


def test_break_even_figure_exactly() -> None:
    fig = buy_vs_rent_break_even(30_000, 2.0, tdp_w=700, num_gpus=1)
    assert (fig.unit, fig.formula) == ("hours", "hardware / (rent per hour - TDP x $/kWh - colocation per hour)")
    assert fig.inputs == {"hardware_cost_usd": 30_000, "rent_usd_per_hour": 2.0, "power_usd_per_hour": pytest.approx(0.084),
                          "space_usd_per_hour": 0.0}
    racked = buy_vs_rent_break_even(30_000, 2.0, tdp_w=700, num_gpus=1, space_usd_per_hour=0.3)  # rack space is paid too
    assert racked.value == round(30_000 / (2.0 - 0.084 - 0.3))
    assert fig.notes == ()
    assert buy_vs_rent_break_even(1_000, 0.5, tdp_w=700).value == round(1_000 / (0.5 - 0.084))  # margin under $1/h
    assert buy_vs_rent_break_even(8_000, 2.0, tdp_w=700, num_gpus=8).value == round(8_000 / (2.0 - 8 * 0.084))
    free = buy_vs_rent_break_even(1_000, 0.0)
    assert free.value == 0.0 and free.notes == ("renting never costs more than the power and space: owning never breaks even",)
