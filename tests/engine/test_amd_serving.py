"""Serving on AMD reaches about 70% of what the spec-sheet arithmetic predicts (`AMD_SERVING_EFFICIENCY`):
Oracle Cloud's vLLM run of Llama 3.1 405B FP8 on 8 MI300X decoded 36 tokens/s at batch 1 and 24.9 per sequence at
batch 32 (calibration rows f19-f20), where the unadjusted model says 51 and 38; MLPerf Inference v4.1 measured
8 MI300X level with 8 H100 on Llama 2 70B. A bandwidth efficiency the user gives is taken as given."""

from __future__ import annotations

import pytest

from engine.architecture import from_record
from engine.models import ClusterPlan, Workload
from engine.throughput import (
    AMD_SERVING_EFFICIENCY,
    AMD_SERVING_NOTE,
    DEFAULT_BANDWIDTH_EFFICIENCY,
    DEFAULT_COMPUTE_EFFICIENCY,
    compute_efficiency,
    decode_efficiency,
    estimate_inference,
    vendor_serving_factor,
)
from tests.engine.fixtures_physics import H100_SXM, _model

# Instinct MI300X: 192 GB HBM3 at 5.3 TB/s, 1,307 / 2,615 TFLOPS dense BF16 / FP8 (amd.com product page)
MI300X = H100_SXM.model_copy(update={
    "id": "mi300x", "name": "Instinct MI300X 192GB", "vendor": "AMD", "architecture": "CDNA 3", "memory_gb": 192,
    "memory_bandwidth_tb_s": 5.3, "bf16_dense_tflops": 1307.4, "fp16_dense_tflops": 1307.4, "fp8_dense_tflops": 2614.9,
    "scaleup_link": "Infinity Fabric", "scaleup_bandwidth_gb_s": 896, "compute_capability": None})
SAME_SPECS_NVIDIA = MI300X.model_copy(update={"vendor": "NVIDIA"})  # the spec sheet alone, as before the factor
# Llama 3.1 405B (huggingface.co/meta-llama/Llama-3.1-405B config.json)
LLAMA31_405B = _model("llama-3.1-405b", "Llama 3.1 405B", "llama", 126, 16384, 128, 8, 128, 53248, 128256, 131072,
                      405.85, 405.85)
TP8 = ClusterPlan(gpu="mi300x", gpus=8, nodes=1, gpus_per_node=8, fits=True, data_parallel=1, tensor_parallel=8,
                  pipeline_parallel=1, zero_stage=0, interconnect="", parallelism="", needs_nvlink=True,
                  needs_infiniband=False, gpus_per_replica=8, replicas=1)


def _oracle(batch: int) -> Workload:
    # a benchmark's batch: requests kept in flight, each sent as the last ends (no pause between turns)
    return Workload(mode="inference", precision="fp8", seq_len=256, concurrency=batch, input_tokens=128, output_tokens=128,
                    think_time_s=0.0)


def test_the_factor_applies_to_amd_only_and_never_to_a_stated_efficiency() -> None:
    assert pytest.approx(0.7) == AMD_SERVING_EFFICIENCY
    assert vendor_serving_factor(MI300X) == pytest.approx(0.7) and vendor_serving_factor(H100_SXM) == 1.0
    w = Workload(mode="inference", precision="bf16")
    assert decode_efficiency(w, MI300X) == pytest.approx(DEFAULT_BANDWIDTH_EFFICIENCY * 0.7)
    assert decode_efficiency(w, H100_SXM) == pytest.approx(DEFAULT_BANDWIDTH_EFFICIENCY)
    assert compute_efficiency(MI300X) == pytest.approx(DEFAULT_COMPUTE_EFFICIENCY * 0.7)
    said = w.model_copy(update={"bandwidth_efficiency": 0.6})
    assert decode_efficiency(said, MI300X) == 0.6  # the user's own measurement is not derated again


@pytest.mark.parametrize(("batch", "measured"), [(1, 36.0), (32, 24.9)])
def test_oracles_mi300x_run_is_met_within_the_error_of_the_nvidia_rows(batch: int, measured: float) -> None:
    """The NVIDIA serving rows come out 0-28% fast (scheduler and sampling time are not modelled); so do these,
    where the spec sheet alone would say 42-52% fast."""
    arch = from_record(LLAMA31_405B)
    amd = estimate_inference(_oracle(batch), arch, MI300X, TP8).decode_tokens_per_s_per_sequence
    bare = estimate_inference(_oracle(batch), arch, SAME_SPECS_NVIDIA, TP8).decode_tokens_per_s_per_sequence
    assert amd is not None and bare is not None
    assert 0.0 <= amd.value / measured - 1 <= 0.20, amd.value
    assert bare.value / measured - 1 > 0.35, bare.value  # without the factor: far outside the NVIDIA rows' band
    assert AMD_SERVING_NOTE in amd.notes and AMD_SERVING_NOTE not in bare.notes
    assert amd.inputs["bandwidth_efficiency"] == pytest.approx(DEFAULT_BANDWIDTH_EFFICIENCY * 0.7)
