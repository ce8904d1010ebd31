"""Pinned MoE decode: the fixed time each MoE layer adds to a decode step, worked out by hand and checked
against the public vLLM runs it was fitted on.

Without it, a step was the weights the batch's tokens route to over the bandwidth, and a 3B-active MoE
decoded at 3B-dense speed: Qwen3-30B-A3B at 210 tokens/s on one A100 where vLLM measured 104 (TPOT 9.6 ms,
tenstorrent/tt-inference-server issue 340), DeepSeek-V3 AWQ at 260 on 8 H100s where the
cognitivecomputations/DeepSeek-V3-AWQ model card measured 61.5. Routing, token permutation and grouped GEMMs
over small expert slices add time per MoE layer that bandwidth does not see: 0.15 ms a layer.
"""

from __future__ import annotations

import pytest

from catalog.records import ModelRecord
from engine.architecture import from_record
from engine.models import ClusterPlan
from engine.throughput import (
    MOE_LAYER_DECODE_S,
    decode_step_seconds_for,
    estimate_inference,
    kv_cache_bytes,
    moe_layer_seconds,
    weight_bytes_read_per_step,
)
from tests.engine.fixtures_physics import A100_80, DEEPSEEK_V3, H100_SXM, LLAMA3_8B, MIXTRAL_8X7B, workload

# huggingface.co/Qwen/Qwen3-30B-A3B/blob/main/config.json: 48 layers, all MoE, 128 experts, top-8, no shared expert
QWEN3_30B_A3B = ModelRecord(
    id="qwen3-30b-a3b", name="Qwen3 30B-A3B", family="qwen3_moe", hf_repo=None, num_layers=48, hidden_size=2048,
    num_attention_heads=32, num_kv_heads=4, head_dim=128, intermediate_size=6144, moe_intermediate_size=768,
    vocab_size=151936, max_context=40960, num_experts=128, experts_per_token=8, total_params_b=30.53,
    active_params_b=3.35, source="huggingface.co/Qwen/Qwen3-30B-A3B/blob/main/config.json", observed_on="2026-11-24")


def _plan(gpu_id: str, tp: int) -> ClusterPlan:
    return ClusterPlan(gpu=gpu_id, gpus=tp, nodes=1, gpus_per_node=tp, fits=True, data_parallel=1, tensor_parallel=tp,
                       pipeline_parallel=1, zero_stage=0, interconnect="", parallelism="", needs_nvlink=tp > 1,
                       needs_infiniband=False, gpus_per_replica=tp, replicas=1)


def test_the_constant_and_who_pays_it() -> None:
    assert MOE_LAYER_DECODE_S == 0.15e-3
    assert moe_layer_seconds(from_record(QWEN3_30B_A3B)) == pytest.approx(48 * 0.15e-3)
    assert moe_layer_seconds(from_record(DEEPSEEK_V3)) == pytest.approx(58 * 0.15e-3)  # its first 3 layers are dense
    assert moe_layer_seconds(from_record(MIXTRAL_8X7B)) == pytest.approx(32 * 0.15e-3)
    assert moe_layer_seconds(from_record(LLAMA3_8B)) == 0.0  # a dense model's step is unchanged


def test_qwen3_30b_a3b_one_request_on_an_a100_by_hand() -> None:
    """Batch 1, 128 + 128 tokens: 8 of 128 experts read per layer, plus attention, norms and the LM head."""
    arch = from_record(QWEN3_30B_A3B)
    w = workload(mode="inference", precision="bf16", concurrency=1, input_tokens=128, output_tokens=128, seq_len=256)
    step, mem_s, _comp_s, comm_s = decode_step_seconds_for(w, arch, A100_80, 1, 1, 1, "fast")
    weights = weight_bytes_read_per_step(arch, "bf16", 1)
    kv = kv_cache_bytes(arch, 128 + 64, 1, 2.0)
    by_hand = (weights + kv) / (2.039e12 * 0.68)
    assert mem_s == pytest.approx(by_hand)
    assert comm_s == 0.0
    assert step == pytest.approx(by_hand + 48 * 0.15e-3)
    measured = 1 / 9.6e-3  # vLLM TPOT at concurrency 1
    assert 1 / step == pytest.approx(measured, rel=0.25)
    assert 1 / by_hand > 1.8 * measured  # what the estimate said before: twice the measured speed


def test_deepseek_v3_awq_on_eight_h100s_near_the_model_card() -> None:
    arch = from_record(DEEPSEEK_V3)
    one = workload(mode="inference", precision="int4", concurrency=1, input_tokens=2, output_tokens=2048, seq_len=2050)
    est = estimate_inference(one, arch, H100_SXM, _plan("h100-sxm", 8))
    speed = est.decode_tokens_per_s_per_sequence
    assert speed.value == pytest.approx(61.5, rel=0.35)  # was 260 (+323%)
    assert speed.inputs["moe_layer_s"] == pytest.approx(58 * 0.15e-3)
    assert "MoE layers x 0.15 ms" in speed.formula
    assert any("58 MoE layers" in n for n in speed.notes)
    busy = workload(mode="inference", precision="int4", concurrency=32, input_tokens=4096, output_tokens=256,
                    seq_len=4352)
    at_32 = estimate_inference(busy, arch, H100_SXM, _plan("h100-sxm", 8)).decode_tokens_per_s_per_sequence.value
    assert at_32 == pytest.approx(30.1, rel=0.25)


def test_a_dense_models_figures_carry_no_moe_term() -> None:
    arch = from_record(LLAMA3_8B)
    w = workload(mode="inference", precision="bf16", concurrency=1, input_tokens=128, output_tokens=128, seq_len=256)
    speed = estimate_inference(w, arch, A100_80, _plan("a100-sxm-80gb", 1)).decode_tokens_per_s_per_sequence
    assert "moe_layer_s" not in speed.inputs
    assert "MoE" not in speed.formula


def test_pipeline_stages_pay_each_layer_once() -> None:
    """A token passes every stage in turn: the MoE time is per layer, not per stage."""
    arch = from_record(MIXTRAL_8X7B)
    w = workload(mode="inference", precision="bf16", concurrency=1, input_tokens=128, output_tokens=128, seq_len=256)
    one_stage = decode_step_seconds_for(w, arch, H100_SXM, 2, 1, 1, "fast")
    two_stages = decode_step_seconds_for(w, arch, H100_SXM, 2, 2, 1, "fast")
    moe = 32 * 0.15e-3
    assert one_stage[0] - max(one_stage[1], one_stage[2]) - one_stage[3] == pytest.approx(moe)
    assert two_stages[0] - max(two_stages[1], two_stages[2]) - two_stages[3] == pytest.approx(moe)
