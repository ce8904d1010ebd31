"""Pinned serving figures under tensor parallelism: step time, aggregate tokens/s, prefill, the
bound, and cost per 1M tokens; and which tensor peak each precision runs at.

Datasheet figures (NVIDIA H100 SXM5): 3.35 TB/s HBM3, 989.4 dense BF16 TFLOPS, 1,978.9 dense FP8,
66.9 FP32. Decode efficiency 0.68 of peak bandwidth (gpt-fast, A100) and 0.5 of the tensor peak for
decode/prefill matmuls; +4% step time per extra tensor-parallel GPU over NVLink (gpt-fast TP runs).
"""

from __future__ import annotations

import pytest

from engine.architecture import from_record
from engine.cluster import plan_cluster
from engine.throughput import (
    TP_STEP_OVERHEAD,
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


def test_tp_step_overheads() -> None:
    assert TP_STEP_OVERHEAD == {"fast": 0.04, "pcie": 0.25}


def test_llama2_7b_on_two_h100s_serving_256_sequences() -> None:
    arch = from_record(LLAMA2_7B)
    plan, _ = plan_cluster(workload(mode="inference", gpu_count=2), arch, H100_SXM)
    assert plan.tensor_parallel == 2
    w = workload(mode="inference", concurrency=256, hourly_rate=2.0, input_tokens=1000, output_tokens=200)
    est = estimate_inference(w, arch, H100_SXM, plan)
    weights = weight_bytes_read_per_step(arch, "bf16")
    kv = 2 * 32 * 32 * 128 * 2 * 1100 * 256  # context = 1,000 prompt + 200 / 2 output
    memory_s = (weights / 2 + kv / 2) / BW  # both split over 2 GPUs (32 KV heads >= 2)
    compute_s = (2 * N * 256 + 4 * 32 * 32 * 128 * 1100 * 256) / (PEAK * 2)
    step = max(memory_s, compute_s) * 1.04
    inputs = est.decode_tokens_per_s_per_sequence.inputs
    assert inputs["memory_time_s"] == pytest.approx(memory_s, rel=1e-9)
    assert inputs["compute_time_s"] == pytest.approx(compute_s, rel=1e-9)
    assert inputs["tp_step_overhead"] == 1.04
    assert inputs["ridge_flop_per_byte"] == round(989.4 / 3.35, 1)  # 295.3 FLOP/byte
    assert est.bound == "bandwidth"
    assert est.decode_tokens_per_s_per_sequence.value == pytest.approx(1 / step, abs=0.06)
    assert est.decode_tokens_per_s.value == pytest.approx(256 / step, abs=0.06)  # ~6,972 tokens/s
    assert est.prefill_seconds is not None
    assert est.prefill_seconds.value == pytest.approx(2 * N * 1000 / (PEAK * 2) + weights / 2 / BW, abs=1e-4)
    assert est.cost_per_1m_tokens_usd is not None
    assert est.cost_per_1m_tokens_usd.value == pytest.approx(2.0 * 2 / (256 / step * 3600) * 1e6, abs=1e-4)  # $0.16
    assert any("+4% step time per extra GPU" in n for n in est.notes)


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
    assert given.prefill_seconds.value == pytest.approx(2 * N * 900 / PEAK + weight_bytes_read_per_step(arch, "bf16") / BW, abs=1e-4)


def test_mla_kv_is_read_whole_by_every_tensor_parallel_gpu() -> None:
    from tests.engine.fixtures_physics import DEEPSEEK_V3

    arch = from_record(DEEPSEEK_V3)
    plan, _ = plan_cluster(workload(mode="inference", gpu_count=8, precision="fp8"), arch, H100_SXM)
    w = workload(mode="inference", precision="fp8", seq_len=4096, concurrency=4)
    inputs = estimate_inference(w, arch, H100_SXM, plan).decode_tokens_per_s_per_sequence.inputs
    kv = 61 * (512 + 64) * 1 * 4096 * 4  # FP8 latent cache, 1 byte
    assert inputs["kv_bytes_read"] == kv
    tp = inputs["tensor_parallel"]
    assert inputs["memory_time_s"] == pytest.approx((inputs["weight_bytes_read"] / tp + kv) / (3.35e12 * 0.68), rel=1e-6)
