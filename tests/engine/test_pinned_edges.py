"""Pinned edges the mutation run found unguarded: defaults, tiny and zero rates, exact rounding,
the PCIe tensor-parallel penalty, and absolute (not only relative) MoE weight reads."""

from __future__ import annotations

import math

import pytest

from engine.architecture import from_record
from engine.cluster import plan_cluster
from engine.memory import estimate_memory, layer_activation_bytes, resolve_layout
from engine.think_time import DEFAULT_THINK_TIME_S
from engine.throughput import (
    buy_vs_rent_break_even,
    cloud_cost_per_1m_tokens,
    cost_per_1m_tokens,
    decode_step_seconds,
    estimate_inference,
    loaded_step,
    weight_bytes_read_per_step,
)
from tests.engine.fixtures_physics import H100_SXM, LLAMA2_7B, MIXTRAL_8X7B, RTX_3090, workload


def test_costs_at_tiny_throughput_are_exact() -> None:
    """At 0.001 tokens/s the dollar figures are large enough to show any drift in the formula."""
    assert cloud_cost_per_1m_tokens(2.0, 1, 0.001).value == pytest.approx(2.0 / (0.001 * 3600) * 1e6, rel=1e-9)
    assert cloud_cost_per_1m_tokens(2.0, 1, 0.0001).value == pytest.approx(2.0 / (0.0001 * 3600) * 1e6, rel=1e-9)
    per_s = 30_000 / (3 * 8760 * 3600) + 0.4 * 0.12 / 3600  # default 400 W
    assert cost_per_1m_tokens(30_000, 1.0, 0.001).value == pytest.approx(per_s / 0.001 * 1e6, rel=1e-9)
    short = 1e-8  # years: a 0.3-second life is still amortised, not dropped
    assert cost_per_1m_tokens(1.0, 1.0, 1.0, lifetime_years=short, tdp_w=0).value == pytest.approx(
        1.0 / (short * 8760 * 3600) * 1e6, rel=1e-6)


def test_break_even_defaults_and_small_margins() -> None:
    assert buy_vs_rent_break_even(30_000, 2.0).value == 15_000  # no power given: rent is all margin
    small = buy_vs_rent_break_even(1_000, 0.5, tdp_w=700)
    assert small.notes == () and small.value == round(1_000 / 0.416)


def test_decode_step_at_a_tiny_bandwidth() -> None:
    assert decode_step_seconds(1.0, 1e-13, 1.0) == pytest.approx(1.0 / 0.1)  # 0.1 B/s: 10 s, not "never"


def test_bridged_pair_tensor_parallel_is_priced_as_pcie() -> None:
    """Two RTX 3090s over an NVLink bridge count as PCIe-class for the all-reduce: 2 per layer x 32 layers,
    each 2(2-1) hops of 6 us plus 2(1/2) x 4,096 x 2 bytes over PCIe Gen4's ~25 GB/s."""
    arch = from_record(LLAMA2_7B)
    plan, _ = plan_cluster(workload(mode="inference", gpu_count=2), arch, RTX_3090)
    assert plan.tensor_parallel == 2
    inputs = estimate_inference(workload(mode="inference"), arch, RTX_3090, plan).decode_tokens_per_s_per_sequence.inputs
    assert inputs["allreduce_s"] == pytest.approx(2 * 32 * (2 * 3e-6 + 1.0 * 4096 * 2 / 20e9), abs=1e-6)


def test_figures_are_rounded_from_the_step_time() -> None:
    arch = from_record(LLAMA2_7B)
    est = estimate_inference(workload(mode="inference", concurrency=3, hourly_rate=2.0, utilization=0.5), arch, H100_SXM)
    inputs = est.decode_tokens_per_s_per_sequence.inputs
    step = max(inputs["memory_time_s"], inputs["compute_time_s"]) + inputs["allreduce_s"]
    # three users' turns (1,024 prompt tokens, 256 out, the defaults, 20 s apart): their prefills share each step
    assert est.prefill_seconds is not None and est.prefill_seconds.inputs["input_tokens"] == 1024
    felt = loaded_step(step, 3, est.prefill_seconds.value, 256, DEFAULT_THINK_TIME_S)
    assert felt > step
    assert est.decode_tokens_per_s_per_sequence.value == round(1 / felt, 1)
    assert est.decode_tokens_per_s.value == round(3 / felt, 1)
    assert est.decode_tokens_per_s_per_sequence.notes == est.notes
    assert est.cost_per_1m_tokens_usd is not None and est.cost_per_1m_tokens_usd.inputs["utilization"] == 0.5


def test_moe_decode_reads_in_absolute_bytes() -> None:
    """Mixtral at batch 1 in bf16: linear layers minus the 6 of 8 experts not routed to, lm_head,
    norms. Linear params = total - 2 x 32000 x 4096 (embeddings, lm_head) - 65 x 4096 (norms)."""
    arch = from_record(MIXTRAL_8X7B)
    linear = 46_702_792_704 - 2 * 32000 * 4096 - 65 * 4096 - 32 * 8 * 4096  # minus the routers
    assert arch.linear_params in (linear, linear + 32 * 8 * 4096)
    experts = 32 * 8 * 3 * 4096 * 14336
    expected = (arch.linear_params - experts * 0.75) * 2 + 32000 * 4096 * 2 + 2 * 4096 * 32 * 2
    assert weight_bytes_read_per_step(arch, "bf16") == pytest.approx(expected, rel=1e-12)  # batch 1 by default
    est = estimate_inference(workload(mode="inference", precision="int8", concurrency=4), arch, H100_SXM)
    assert est.decode_tokens_per_s_per_sequence.inputs["weight_bytes_read"] == int(weight_bytes_read_per_step(arch, "int8", 4))


def test_layer_activations_default_to_a_dense_layer() -> None:
    arch = from_record(MIXTRAL_8X7B)
    assert layer_activation_bytes(arch, 512, 1, True) == layer_activation_bytes(arch, 512, 1, True, False)
    assert layer_activation_bytes(arch, 512, 1, True) < layer_activation_bytes(arch, 512, 1, True, True)


def test_layout_edges() -> None:
    assert resolve_layout(workload(mode="full"), 0).gpus == 1
    lay = resolve_layout(workload(mode="full"), 8, 3, 4)
    assert (lay.tp, lay.pp, lay.dp) == (3, 2, 1) and isinstance(lay.pp, int)


def test_overhead_note_and_an_inference_allowance() -> None:
    est = estimate_memory(workload(mode="inference"), from_record(LLAMA2_7B), 1)
    assert est.components["overhead_gb"].notes == ("measured allocator peaks (torch.cuda.max_memory_allocated) exclude this",)
    odd = estimate_memory(workload(mode="inference", adapter_overhead_gb=6.0), from_record(LLAMA2_7B), 1)
    assert odd.components["overhead_gb"].value == 1.0  # serving always carries the CUDA context
    assert math.isclose(sum(c.value for c in est.components.values()), est.per_gpu_gb, abs_tol=0.01)
