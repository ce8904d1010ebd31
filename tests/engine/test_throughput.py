"""Throughput: training FLOPs/GPU-hours, MFU defaults, decode roofline, cost per token, break-even."""

import math

import pytest

from engine.architecture import architecture_for
from engine.cluster import plan_cluster
from engine.throughput import (
    buy_vs_rent_break_even,
    cloud_cost_per_1m_tokens,
    default_mfu,
    estimate_inference,
    estimate_training,
    flops_per_token,
    peak_tflops,
)
from tests.engine.fixtures_physics import (
    A100_80,
    H100_SXM,
    LLAMA2_7B,
    LLAMA3_8B,
    LLAMA3_70B,
    MIXTRAL_8X7B,
    RTX_4090,
    T4,
    workload,
)


def test_worked_example_gpu_hours_at_full_utilisation():
    """The worked example: 6 x 70e9 x 1e9 tokens x 3 epochs / 989e12 / 3600 = 353.9 GPU-hours at MFU 1.0 (never reached)."""
    h100_article = H100_SXM.model_copy(update={"bf16_dense_tflops": 989.0})
    w = workload(mode="qlora", precision="nf4", mfu=1.0, flops_per_token_factor=6, dataset_tokens=10**9, epochs=3)
    t = estimate_training(w, architecture_for(None, 70), h100_article, 1)
    assert t.gpu_hours.value == pytest.approx(353.9, abs=0.05)
    # the catalog's 989.4 dense TFLOPS gives 353.8
    t2 = estimate_training(w, architecture_for(None, 70), H100_SXM, 1)
    assert t2.gpu_hours.value == pytest.approx(353.77, abs=0.1)


def test_default_mfu_is_stated_and_realistic():
    mfu, why = default_mfu(H100_SXM, "full", 8)
    assert mfu == 0.48 and "Llama" in why  # dense-matmul utilisation; attention runs at ATTENTION_UTILISATION of it
    assert default_mfu(H100_SXM, "qlora", 1)[0] < mfu
    assert default_mfu(RTX_4090, "full", 4)[0] < default_mfu(RTX_4090, "full", 1)[0] < mfu
    assert default_mfu(H100_SXM, "full", 4096)[0] < mfu


def test_lora_factor_lower_than_full():
    arch = architecture_for(LLAMA3_8B, None)
    full = flops_per_token(workload(mode="full"), arch).value
    lora = flops_per_token(workload(mode="lora"), arch).value
    assert lora == pytest.approx(full * 4 / 6, rel=1e-6)


def test_training_gpu_hours_with_default_mfu():
    arch = architecture_for(LLAMA2_7B, None)
    w = workload(mode="pretrain", seq_len=4096, dataset_tokens=2 * 10**12)
    t = estimate_training(w, arch, A100_80, 1024)
    # Llama 2 7B model card: 184,320 A100-hours for 2.0T tokens (implied 6ND MFU 39%, 45% with attention FLOPs)
    assert t.gpu_hours.value == pytest.approx(184_320, rel=0.10)
    assert t.wall_clock_hours.value == pytest.approx(t.gpu_hours.value / 1024, rel=1e-3)


def test_peak_never_uses_sparsity_or_shader_figures():
    assert peak_tflops(H100_SXM, "bf16")[0] == 989.4  # dense BF16 (NVIDIA's 1,979 headline is 2:4 sparse)
    assert peak_tflops(RTX_4090, "bf16")[0] == 165.2  # dense BF16 with FP32 accumulate (the 330 headline is sparse)
    assert peak_tflops(T4, "bf16")[1].startswith("FP32")


def test_decode_7b_a100_matches_gpt_fast():
    arch = architecture_for(LLAMA2_7B, None)
    w = workload(mode="inference", input_tokens=5, output_tokens=200)
    plan, _ = plan_cluster(w, arch, A100_80)
    t = estimate_inference(w, arch, A100_80, plan)
    assert t.bound == "bandwidth"
    assert t.decode_tokens_per_s_per_sequence.value == pytest.approx(104.9, rel=0.05)  # calibration c01


def test_large_batch_becomes_compute_bound():
    arch = architecture_for(LLAMA2_7B, None)
    w = workload(mode="inference", concurrency=1024, input_tokens=5, output_tokens=10)
    t = estimate_inference(w, arch, A100_80, None)
    assert t.bound == "compute"
    assert t.decode_tokens_per_s.value > 1000


def test_tensor_parallel_speeds_decode_less_than_linearly():
    arch = architecture_for(LLAMA3_70B, None)
    w = workload(mode="inference", input_tokens=5, output_tokens=200)
    t2 = estimate_inference(w.model_copy(update={"tensor_parallel": 2}), arch, H100_SXM, plan_cluster(w.model_copy(update={"tensor_parallel": 2, "gpu_count": 2}), arch, H100_SXM)[0])
    t8 = estimate_inference(w, arch, H100_SXM, plan_cluster(w.model_copy(update={"tensor_parallel": 8, "gpu_count": 8}), arch, H100_SXM)[0])
    ratio = t8.decode_tokens_per_s.value / t2.decode_tokens_per_s.value
    assert 2.5 < ratio < 4


def test_moe_decode_reads_only_routed_experts():
    arch = architecture_for(MIXTRAL_8X7B, None)
    w = workload(mode="inference", input_tokens=5, output_tokens=200, precision="bf16")
    t = estimate_inference(w, arch, H100_SXM, None)
    assert t.decode_tokens_per_s_per_sequence.inputs["weight_bytes_read"] < 0.35 * arch.total_params * 2


def test_replicas_and_cloud_cost():
    arch = architecture_for(LLAMA2_7B, None)
    w = workload(mode="inference", concurrency=8, target_tokens_per_s=4000, hourly_rate=2.0, input_tokens=200, output_tokens=200)
    t = estimate_inference(w, arch, A100_80, None)
    assert t.replicas == math.ceil(4000 / t.decode_tokens_per_s.value)
    assert t.cost_per_1m_tokens_usd.value == pytest.approx(2.0 / (t.decode_tokens_per_s.value * 3600) * 1e6, rel=1e-3)
    assert cloud_cost_per_1m_tokens(2.0, 1, 0.0).value == 0.0


def test_break_even_hours():
    f = buy_vs_rent_break_even(12_000, 1.53, tdp_w=400)
    assert f.value == pytest.approx(12_000 / (1.53 - 0.048), rel=1e-3)
    assert buy_vs_rent_break_even(12_000, 0.01, tdp_w=400).notes


def test_long_sequences_lower_the_model_flops_utilisation():
    """Attention's FLOPs run at about half the dense utilisation, so MFU falls with sequence length
    (calibration d14: 28.6% at 64k tokens vs 46% at 2k)."""
    arch = architecture_for(LLAMA3_8B, None)
    short = estimate_training(workload(mode="full", seq_len=2048), arch, H100_SXM, 8)
    long = estimate_training(workload(mode="full", seq_len=65536), arch, H100_SXM, 8)
    mfu_short = short.training_tokens_per_s.inputs["mfu"]
    mfu_long = long.training_tokens_per_s.inputs["mfu"]
    assert 0.40 <= mfu_short <= 0.50 and 0.22 <= mfu_long <= 0.34
