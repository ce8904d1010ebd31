"""Pinned serving figures under tensor parallelism: step time, aggregate tokens/s, prefill, the
bound, and cost per 1M tokens; and which tensor peak each precision runs at.

Datasheet figures (NVIDIA H100 SXM5): 3.35 TB/s HBM3, 989.4 dense BF16 TFLOPS, 1,978.9 dense FP8,
66.9 FP32. Decode efficiency 0.68 of peak bandwidth (gpt-fast, A100) and 0.5 of the tensor peak for
decode/prefill matmuls; tensor-parallel all-reduces at 1.5 us per ring hop over NVLink plus the bytes over
half the GPU's 900 GB/s NVLink (fitted on gpt-fast's TP runs); under load, arriving requests' prefills
take their share of the replica's time (a fixed point, worked out by hand below).
"""

from __future__ import annotations

import math

import pytest

from engine.architecture import from_record
from engine.cluster import plan_cluster
from engine.throughput import (
    ALLREDUCE_HOP_S,
    estimate_inference,
    estimate_training,
    peak_tflops,
    training_tokens,
    weight_bytes_read_per_step,
)
from tests.engine.fixtures_physics import A100_80, H100_SXM, LLAMA2_7B, T4, workload

N = 6_738_415_616
BW = 3.35e12 * 0.68  # bytes/s at decode efficiency
PEAK = 989.4e12 * 0.5  # FLOP/s at matmul efficiency
ATTN = 989.4e12 * 0.5 * 0.53  # FLOP/s of prefill attention: BF16, at 0.53 of the matmul utilisation


def attention_flops(prompt: int) -> float:
    """Causal prefill attention of Llama 2 7B: QK^T and AV, 2 x L^2 x 4096 each per layer, halved by the mask."""
    return 2 * 32 * prompt**2 * 32 * 128


def test_allreduce_hop_latencies() -> None:
    assert ALLREDUCE_HOP_S == {"fast": 1.5e-6, "pcie": 3e-6}  # PCIe: 42 us per tiny TP8 all-reduce (nccl issue 1530)


def test_llama2_7b_on_two_h100s_serving_256_sequences() -> None:
    arch = from_record(LLAMA2_7B)
    plan, _ = plan_cluster(workload(mode="inference", gpu_count=2), arch, H100_SXM)
    assert plan.tensor_parallel == 2
    # 256 sequences kept in flight (no pause between turns)
    w = workload(mode="inference", concurrency=256, hourly_rate=2.0, input_tokens=1000, output_tokens=200, think_time_s=0.0)
    est = estimate_inference(w, arch, H100_SXM, plan)
    weights = weight_bytes_read_per_step(arch, "bf16")
    kv = 2 * 32 * 32 * 128 * 2 * 1100 * 256  # context = 1,000 prompt + 200 / 2 output
    memory_s = (weights / 2 + kv / 2) / BW  # both split over 2 GPUs (32 KV heads >= 2)
    compute_s = (2 * N * 256 + 4 * 32 * 32 * 128 * 1100 * 256) / (PEAK * 2)
    # 2 all-reduces x 32 layers, each 2(2-1) hops of 1.5 us + 2(1/2) x 256 x 4096 x 2 bytes over 450 GB/s
    allreduce_s = 2 * 32 * (2 * 1.5e-6 + 1.0 * 256 * 4096 * 2 / 450e9)
    raw = max(memory_s, compute_s) + allreduce_s
    prefill = 2 * N * 1000 / (PEAK * 2) + attention_flops(1000) / (ATTN * 2) + weights / 2 / BW
    # prefill share x: 0 = p x^2 - (200 raw + p + 256 p) x + 256 p, smaller root
    b_coef = 200 * raw + prefill + 256 * prefill
    busy = (b_coef - (b_coef**2 - 4 * prefill * 256 * prefill) ** 0.5) / (2 * prefill)
    step = raw / (1 - min(0.9, busy))
    inputs = est.decode_tokens_per_s_per_sequence.inputs
    assert inputs["memory_time_s"] == pytest.approx(memory_s, rel=1e-9)
    assert inputs["compute_time_s"] == pytest.approx(compute_s, rel=1e-9)
    assert inputs["allreduce_s"] == pytest.approx(allreduce_s, abs=1e-6)
    assert inputs["ridge_flop_per_byte"] == round(989.4 / 3.35, 1)  # 295.3 FLOP/byte
    assert est.bound == "bandwidth"
    assert est.decode_tokens_per_s_per_sequence.value == pytest.approx(1 / step, abs=0.06)
    assert est.decode_tokens_per_s.value == pytest.approx(256 / step, abs=0.06)  # ~6,972 tokens/s
    assert est.prefill_seconds is not None
    assert est.prefill_seconds.value == pytest.approx(prefill, abs=1e-4)  # 13.6 ms linear + 0.5 ms attention + 2.9 ms weight read
    assert est.cost_per_1m_tokens_usd is not None
    assert est.cost_per_1m_tokens_usd.value == pytest.approx(2.0 * 2 / (256 / step * 3600) * 1e6, abs=1e-4)  # $0.16
    assert any("tensor parallel x2 over NVLink" in n and "ms per token" in n for n in est.notes)


def test_big_batch_short_context_is_compute_bound() -> None:
    arch = from_record(LLAMA2_7B)
    est = estimate_inference(workload(mode="inference", concurrency=1024, input_tokens=8, output_tokens=4), arch, H100_SXM)
    assert est.bound == "compute"  # 2N x 1,024 tokens = 13.8 TFLOP per step vs 13.2 GB of weights
    assert est.notes[0].startswith("compute-bound: ridge point 295 FLOP/byte (BF16 dense)")


def test_owned_hardware_cost_when_no_rate_is_given() -> None:
    """H100 at $30,000 and 700 W, 70% busy, 3 years, $0.12/kWh."""
    arch = from_record(LLAMA2_7B)
    est = estimate_inference(workload(mode="inference", concurrency=16), arch, H100_SXM)
    tps = est.decode_tokens_per_s.value
    per_s = 30_000 / (3 * 8760 * 3600) + 0.7 * 0.12 / 3600
    assert est.cost_per_1m_tokens_usd is not None
    assert est.cost_per_1m_tokens_usd.value == pytest.approx(per_s / (tps * 0.7) * 1e6, rel=1e-3)
    assert estimate_inference(workload(mode="inference"), arch, T4).cost_per_1m_tokens_usd is None  # no price known


@pytest.mark.parametrize(("gpu", "precision", "tflops", "label"), [
    (H100_SXM, "fp8", 1978.9, "FP8 dense"),
    (H100_SXM, "bf16", 989.4, "BF16 dense"),
    (H100_SXM, "fp32", 66.9, "FP32"),
    (A100_80, "fp8", 312, "BF16 dense"),  # no FP8 tensor cores: runs at BF16
    (T4.model_copy(update={"fp16_dense_tflops": 65.0}), "bf16", 65.0, "FP16 dense (no BF16 tensor path)"),
    (T4, "bf16", 8.1, "FP32 (no 16-bit tensor path)"),
])
def test_peak_per_precision(gpu, precision: str, tflops: float, label: str) -> None:
    assert peak_tflops(gpu, precision) == (tflops, label)


def test_quantised_training_computes_in_bf16() -> None:
    est = estimate_training(workload(mode="qlora", precision="nf4", mfu=0.4), from_record(LLAMA2_7B), H100_SXM, 1)
    assert est.training_tokens_per_s.inputs["peak_tflops"] == 989.4


def test_no_dataset_no_hours() -> None:
    assert training_tokens(workload(mode="full")) == (None, "no dataset size: GPU-hours not computed")
    est = estimate_training(workload(mode="full"), from_record(LLAMA2_7B), H100_SXM, 8)
    assert est.gpu_hours is None and est.wall_clock_hours is None


def test_fp8_and_fp32_decode_use_their_own_peaks() -> None:
    arch = from_record(LLAMA2_7B)
    flops = 2 * N + 4 * 32 * 32 * 128 * 2048  # one sequence at the full 2,048-token context
    for precision, peak in (("fp8", 1978.9e12), ("fp32", 66.9e12), ("int8", 989.4e12)):
        est = estimate_inference(workload(mode="inference", precision=precision, seq_len=2048), arch, H100_SXM)
        inputs = est.decode_tokens_per_s_per_sequence.inputs
        assert inputs["peak_tflops"] == peak / 1e12
        assert inputs["compute_time_s"] == pytest.approx(flops / (peak * 0.5), rel=1e-9)


def test_defaults_one_sequence_at_2048_tokens_worst_case() -> None:
    arch = from_record(LLAMA2_7B)
    est = estimate_inference(workload(mode="inference", concurrency=None, seq_len=None), arch, H100_SXM)
    inputs = est.decode_tokens_per_s_per_sequence.inputs
    assert (inputs["sequences"], inputs["context_tokens"]) == (1, 2048)
    assert inputs["kv_bytes_read"] == 2 * 32 * 32 * 128 * 2 * 2048
    assert est.notes[0].endswith("context = full seq_len for every sequence (worst case)")
    given = estimate_inference(workload(mode="inference", input_tokens=900, output_tokens=300), arch, H100_SXM)
    assert given.decode_tokens_per_s_per_sequence.inputs["context_tokens"] == 1050
    assert given.notes[0].endswith("context = prompt + half the output (mean context while decoding)")
    assert given.prefill_seconds is not None
    assert given.prefill_seconds.value == pytest.approx(
        2 * N * 900 / PEAK + attention_flops(900) / ATTN + weight_bytes_read_per_step(arch, "bf16") / BW, abs=1e-4)


def test_mla_kv_is_split_by_data_parallel_attention() -> None:
    """The MLA latent has no heads to split: it is served with data-parallel attention, each rank reading
    its own sequences' cache (SGLang --enable-dp-attention, vLLM DP+EP), so a GPU reads 1/tp of it."""
    from tests.engine.fixtures_physics import DEEPSEEK_V3

    arch = from_record(DEEPSEEK_V3)
    plan, _ = plan_cluster(workload(mode="inference", gpu_count=8, precision="fp8"), arch, H100_SXM)
    w = workload(mode="inference", precision="fp8", seq_len=4096, concurrency=4)
    inputs = estimate_inference(w, arch, H100_SXM, plan).decode_tokens_per_s_per_sequence.inputs
    kv = 61 * (512 + 64) * 1 * 4096 * 4  # FP8 latent cache, 1 byte
    assert inputs["kv_bytes_read"] == kv
    tp = inputs["tensor_parallel"]
    assert inputs["memory_time_s"] == pytest.approx((inputs["weight_bytes_read"] / tp + kv / tp) / (3.35e12 * 0.68), rel=1e-6)


def test_mfu_reasons_as_the_reply_states_them() -> None:
    """The 'why' behind each MFU is printed with the estimate: pinned word for word."""
    from engine.throughput import default_mfu
    from tests.engine.fixtures_physics import RTX_4090

    nvlink = ("NVLink datacenter GPU, dense matmuls at 48% of peak and attention at about half that, fitted to the "
              "calibration runs (PaLM convention, attention FLOPs counted) - Llama 2 on A100 43-46%, MosaicML MPT on "
              "H100/A100 40-51% at 2k tokens")
    assert default_mfu(H100_SXM, "full", 8) == (0.48, nvlink)
    assert default_mfu(RTX_4090, "full", None) == (0.35, "single PCIe/consumer GPU: no communication, but smaller kernels and power/thermal limits")  # type: ignore[arg-type]
    assert default_mfu(RTX_4090, "full", 4) == (0.25, "multi-GPU over PCIe (no NVLink): gradient all-reduce competes with compute")
    amd = default_mfu(H100_SXM.model_copy(update={"vendor": "AMD", "scaleup_link": "Infinity Fabric (7 links)"}),
                      "full", 2048)[1]
    assert amd == (nvlink.replace("NVLink", "Infinity Fabric", 1) + "; x0.9 beyond 1,024 GPUs (Llama 3 405B: 38-43% on 16k H100s); x0.7 on AMD (low confidence, "
                   "no AMD run in calibration.csv): SemiAnalysis's Dec 2024 MI300X/H100/H200 training benchmarks found the "
                   "MI300X's paper advantage over the H100 not realised in practice (semianalysis.com, 'MI300X vs H100 vs "
                   "H200 Benchmark Part 1: Training'); x0.7 puts it about level with an H100")


def test_inference_figures_carry_units_formulas_and_inputs() -> None:
    arch = from_record(LLAMA2_7B)
    plan, _ = plan_cluster(workload(mode="inference", gpu_count=2), arch, H100_SXM)
    w = workload(mode="inference", precision=None, concurrency=4, input_tokens=500, output_tokens=100, hourly_rate=2.0)
    est = estimate_inference(w, arch, H100_SXM, plan)
    per_seq, agg, prefill = est.decode_tokens_per_s_per_sequence, est.decode_tokens_per_s, est.prefill_seconds
    assert prefill is not None
    assert (per_seq.unit, per_seq.formula) == (
        "tokens/s", "1 / (max(bytes / (bandwidth x eff), FLOPs / (peak x eff)) + all-reduce time)")
    assert per_seq.inputs["bandwidth_tb_s"] == 3.35 and per_seq.inputs["compute_efficiency"] == 0.5
    assert per_seq.inputs["weight_bytes_read"] == int(weight_bytes_read_per_step(arch, "bf16"))  # no precision: bf16
    assert per_seq.value == round(per_seq.value, 1) and agg.value == round(agg.value, 1)
    assert (agg.unit, agg.formula) == ("tokens/s", "sequences / step time (one replica)")
    assert agg.inputs["gpus_per_replica"] == 2 and agg.inputs["sequences"] == 4
    assert (prefill.unit, prefill.formula, prefill.inputs) == (
        "s", "2 x N_active x prompt tokens / (peak x eff x tp) + 2 x layers x prompt² x heads x head_dim / "
        "(BF16 peak x eff x attention utilisation x tp) + one weight read",
        {"input_tokens": 500, "attention_flops": attention_flops(500), "attention_utilisation": 0.53})
    assert prefill.value == round(prefill.value, 4)
    assert est.notes[1] == "assumes an optimised server (vLLM/TGI/SGLang, CUDA graphs); eager HF generate is ~3x slower"
    assert est.cost_per_1m_tokens_usd is not None and est.cost_per_1m_tokens_usd.inputs["gpus"] == 2
    one = estimate_inference(workload(mode="inference", output_tokens=100), arch, H100_SXM)
    assert one.decode_tokens_per_s_per_sequence.inputs["context_tokens"] == 2048  # output alone: worst case
    assert len(one.notes) == 2  # no tensor-parallel note on one GPU


def test_owned_cost_scales_with_the_replica() -> None:
    arch = from_record(LLAMA2_7B)
    plan, _ = plan_cluster(workload(mode="inference", gpu_count=2), arch, H100_SXM)
    est = estimate_inference(workload(mode="inference", concurrency=16, utilization=0.5), arch, H100_SXM, plan)
    cost = est.cost_per_1m_tokens_usd
    assert cost is not None
    assert cost.inputs["hardware_cost_usd"] == 60_000 and cost.inputs["num_gpus"] == 2 and cost.inputs["tdp_w"] == 700
    assert cost.inputs["utilization"] == 0.5


def test_replicas_when_one_replica_is_slow() -> None:
    arch = from_record(LLAMA2_7B)
    est = estimate_inference(workload(mode="inference", seq_len=2048, target_tokens_per_s=1.0), arch,
                             H100_SXM.model_copy(update={"memory_bandwidth_tb_s": 0.01}))
    inputs = est.decode_tokens_per_s.inputs
    step = max(inputs["memory_time_s"], inputs["compute_time_s"]) + inputs["allreduce_s"]
    assert 1 / step < 1  # under one token a second per replica
    assert est.replicas == math.ceil(1.0 * step)  # target / per-replica rate, rounded up


def test_long_prompts_pay_for_attention_in_prefill() -> None:
    """At 32k tokens causal attention is no longer a rounding error: for Llama 3 70B it is 1.4 PFLOP against
    4.6 PFLOP of linear layers, and it runs at about half the matmul utilisation. Leaving it out made a
    32k-prompt first token look 1.5-2x faster than servers deliver."""
    from engine.throughput import prefill_attention_flops, prefill_seconds_for
    from tests.engine.fixtures_physics import LLAMA3_70B

    arch = from_record(LLAMA3_70B)
    assert prefill_attention_flops(arch, 32768) == 2 * 80 * 32768**2 * 64 * 128  # 1.41e15
    w = workload(mode="inference", precision="bf16")
    linear = 2 * arch.active_params * 32768 / (PEAK * 8)
    attention = prefill_attention_flops(arch, 32768) / (ATTN * 8)
    read = weight_bytes_read_per_step(arch, "bf16") / 8 / BW
    assert prefill_seconds_for(w, arch, H100_SXM, 8, 32768) == pytest.approx(linear + attention + read, rel=1e-9)
    assert attention / linear == pytest.approx(0.58, abs=0.02)  # 1.41 / 4.62 PFLOP at 0.53 of the utilisation


def test_local_attention_layers_cache_and_attend_to_their_window_only() -> None:
    """Gemma 3 27B at 32k: 10 global layers hold 32,768 tokens, 52 local layers 1,024: 380,928 token-layers
    instead of 62 x 32,768 = 2,031,616, a 5.3x smaller cache; prefill attention shrinks the same way."""
    from engine.architecture import Architecture
    from engine.memory import kv_cache_bytes
    from engine.throughput import prefill_attention_flops

    base = dict(name="g", layers=62, hidden=5376, heads=32, kv_heads=16, head_dim=128, ffn=21504, vocab=262208,
                total_params=27_000_000_000, active_params=27_000_000_000)
    full = Architecture(**base)
    local = Architecture(**base, sliding_window=1024, local_layers=52)
    assert local.attended_tokens(32768) == 10 * 32768 + 52 * 1024
    assert kv_cache_bytes(local, 32768, 1) == 2 * 16 * 128 * 2 * (10 * 32768 + 52 * 1024)
    assert kv_cache_bytes(full, 32768, 1) == 2 * 16 * 128 * 2 * 62 * 32768
    assert kv_cache_bytes(local, 512, 3) == kv_cache_bytes(full, 512, 3)  # shorter than the window: no saving
    d = 32 * 128
    assert prefill_attention_flops(local, 32768) == d * (10 * 2 * 32768**2 + 52 * 2 * (2 * 32768 * 1024 - 1024**2))
    assert prefill_attention_flops(local, 1000) == prefill_attention_flops(full, 1000)
