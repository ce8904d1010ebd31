"""GB200 NVL72: 18 trays of 4 GPUs share one 72-GPU NVLink domain, so expert parallelism between the trays of a rack
runs over NVLink (900 GB/s per GPU each way), not over a 50 GB/s NIC, and goes as wide as the domain. Before:
"serve deepseek v3 on GB200 NVL72 for 2000 concurrent users" planned 26 trays in replicas of EP8 over the inter-node
fabric (4.7 ms of all-to-all per token) and called it a poor fit, 3x dearer than HGX B200.

Checked against LMSYS, "Deploying DeepSeek on GB200 NVL72 with PD and Large Scale EP (Part I)" (lmsys.org/blog/
2025-06-16-gb200-part-1, June 2025): SGLang decoded DeepSeek at 7,583 tokens/s per GPU on 12 trays (48 GPUs) of a
GB200 NVL72, 2,000-token inputs, decode saturated, 2.7x H100 per GPU (its H100 baseline, lmsys.org/blog/
2025-05-05-large-scale-ep: 22.3k output tokens/s per 8-GPU node, ~2,790 per GPU); 2.5-3.4x across the lengths shown."""

from __future__ import annotations

import pytest

from catalog.query import open_catalog
from engine.architecture import from_record
from engine.cluster import nvlink_domain_gpus, nvlink_gb_s_per_direction
from engine.models import Workload
from engine.offer_plans import offer_fabric_gb_s, plan_offer
from engine.serving import DEFAULT_FLOOR_SLACK, _groups
from engine.throughput import decode_step_seconds_for

KEPT_AT = 20 * (1 - DEFAULT_FLOOR_SLACK)  # the assumed chat floor counts as kept within its slack

LMSYS_GB200_DECODE_PER_GPU = 7583.0
LMSYS_H100_DECODE_PER_GPU = 22300.0 / 8


@pytest.fixture(scope="module")
def data():  # type: ignore[no-untyped-def]
    return open_catalog().data()


def test_the_nvl72_offer_is_one_72_gpu_nvlink_domain_of_4_gpu_trays(data) -> None:  # type: ignore[no-untyped-def]
    nvl72 = data.offer("coreweave:gb200-nvl72:us")
    assert nvl72.gpus_per_node == 4 and nvlink_domain_gpus(nvl72) == 72
    assert nvlink_gb_s_per_direction(nvl72) == 900.0 and offer_fabric_gb_s(nvl72) == 900.0
    hgx = next(o for o in data.offers if o.gpu == "b200" and o.gpus_per_node == 8 and o.inter_node_fabric)
    assert nvlink_domain_gpus(hgx) is None  # an HGX node's NVLink ends at its edge
    arch = from_record(data.model("deepseek-v3"))
    wide = {ep for _tp, _pp, ep in _groups(arch, 4, True, 72)}
    assert {32, 64} <= wide and max(wide) <= 72
    assert max(ep for _tp, _pp, ep in _groups(arch, 8, True)) == 32  # HGX: 2-4 nodes over the NIC, as before


def test_wide_ep_over_nvlink_decodes_near_lmsys_gb200_figures(data) -> None:  # type: ignore[no-untyped-def]
    """128 sequences per GPU, 2,000-token prompts, decode alone (LMSYS ran prefill on other trays): EP32 over the
    rack's NVLink within 25% of LMSYS's 7,583 tokens/s per GPU, and 2.5-3.4x H100 in EP32 over 50 GB/s NICs at the
    same batch (LMSYS: 2.7x at 2,000 tokens, 2.5-3.4x across lengths); its H100 figure within 25% of LMSYS's too."""
    arch = from_record(data.model("deepseek-v3"))
    gb200, h100 = data.gpu("gb200"), data.gpu("h100-sxm")
    ep, per_gpu = 32, 128
    batch = ep * per_gpu
    w = Workload(mode="inference", model="deepseek-v3", precision="fp8", concurrency=batch, input_tokens=2000,
                 output_tokens=100, seq_len=4096)
    gb_step = decode_step_seconds_for(w, arch, gb200, 4, 1, batch, "fast", ep=ep, fabric_gb_s=900.0)[0]
    h_step = decode_step_seconds_for(w, arch, h100, 8, 1, batch, "fast", ep=ep, fabric_gb_s=50.0)[0]
    gb_per_gpu, h_per_gpu = batch / gb_step / ep, batch / h_step / ep
    assert abs(gb_per_gpu / LMSYS_GB200_DECODE_PER_GPU - 1) < 0.25, gb_per_gpu
    assert abs(h_per_gpu / LMSYS_H100_DECODE_PER_GPU - 1) < 0.25, h_per_gpu
    assert 2.5 <= gb_per_gpu / h_per_gpu <= 3.4
    # the same EP32 over a NIC instead of NVLink pays the all-to-all a rack does not
    nic_step = decode_step_seconds_for(w, arch, gb200, 4, 1, batch, "fast", ep=ep, fabric_gb_s=50.0)[0]
    assert nic_step > 1.2 * gb_step


def test_deepseek_on_nvl72_is_planned_over_the_racks_nvlink(data) -> None:  # type: ignore[no-untyped-def]
    """The 2,000-user plan: expert parallel between trays of one NVLink domain, no RDMA checklist, fewer trays and
    a lower bill than the 26 trays ($797,160 a month) planned over the NIC."""
    arch = from_record(data.model("deepseek-v3"))
    gpu, offer = data.gpu("gb200"), data.offer("coreweave:gb200-nvl72:us")
    w = Workload(mode="inference", model="deepseek-v3", precision="fp8", concurrency=2000, seq_len=4096,
                 target_tokens_per_s_per_user=None)
    plan, _memory, throughput = plan_offer(w, arch, gpu, offer)
    # across trays (4 GPUs each) of the domain: EP x8 over 2 trays, 9 replicas, 72 GPUs at the floor within its slack
    assert "NVLink domain" in plan.parallelism and plan.gpus_per_replica and plan.gpus_per_replica > 4
    assert not plan.needs_infiniband
    assert any(n.startswith("one NVLink domain: ") for n in plan.notes)
    assert plan.nodes < 26 and plan.gpus < 104
    a2a = throughput.decode_tokens_per_s_per_sequence
    assert a2a is not None and a2a.value >= KEPT_AT
