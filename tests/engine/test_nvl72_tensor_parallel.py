"""GB200 NVL72: tensor parallel across the trays of one 72-GPU NVLink domain. Each GPU reaches any other in the rack
at the same 1.8 TB/s NVLink as the GPUs of its own 4-GPU tray (NVIDIA's GB200 NVL72 spec), so a TP8 group over two
trays is an 8-GPU NVLink group, as vLLM and TensorRT-LLM run Llama 3.1 405B there. Before, TP stopped at the tray:
"serve llama 3.1 405b on GB200 for 100 users" was 2 replicas of TP4 at 22.7 tokens/s per user, BF16 as published
64 GPUs in TP4 x PP2, and "pretrain llama 3.1 405b on GB200" TP4 with ZeRO-3 over 18 replicas."""

from __future__ import annotations

import pytest

from catalog.query import open_catalog
from engine.architecture import from_record
from engine.cluster import (
    DOMAIN_TP_CHECKLIST,
    DOMAIN_TP_NOTE,
    domain_tensor_parallel_width,
    max_tensor_parallel,
    plan_cluster,
)
from engine.models import Workload
from engine.offer_plans import plan_offer
from engine.serving import _groups, choose

NVL72 = "coreweave:gb200-nvl72:us"
ACROSS_TRAYS = "tensor parallel x8 over NVLink across 2 trays of one 72-GPU NVLink domain"


@pytest.fixture(scope="module")
def data():  # type: ignore[no-untyped-def]
    return open_catalog().data()


def test_tensor_parallel_reaches_8_across_trays_only_inside_an_nvlink_domain(data) -> None:  # type: ignore[no-untyped-def]
    gpu, nvl72 = data.gpu("gb200"), data.offer(NVL72)
    assert max_tensor_parallel(gpu, nvl72, 4) == 8
    assert domain_tensor_parallel_width(72, 4) == 8 and domain_tensor_parallel_width(None, 4) == 0
    assert domain_tensor_parallel_width(72, 8) == 0  # an 8-GPU node holds TP8 already
    # a 4-GPU NVLink machine whose NVLink ends at its edge keeps TP inside it
    four = next(o for o in data.offers if o.gpus_per_node == 4 and o.gpu != "gb200" and o.intra_node_link
                and "nvlink" in o.intra_node_link.lower() and "domain" not in o.intra_node_link.lower())
    assert max_tensor_parallel(data.gpu(four.gpu), four, 4) == 4
    hgx = next(o for o in data.offers if o.gpu == "b200" and o.gpus_per_node == 8)
    assert max_tensor_parallel(data.gpu("b200"), hgx, 8) == 8
    arch = from_record(data.model("llama-3.1-405b"))
    assert (8, 1, 0) in _groups(arch, 4, True, 72)
    assert max(tp for tp, _pp, _ep in _groups(arch, 4, True)) == 4


def test_tp8_over_two_trays_costs_what_tp8_in_an_nvlink_node_does(data) -> None:  # type: ignore[no-untyped-def]
    """The all-reduces of a group across trays run at NVLink's bandwidth: the same per-token time as the same GPUs in
    one 8-GPU NVLink node, billed as two whole trays."""
    arch, gpu = from_record(data.model("llama-3.1-405b")), data.gpu("gb200")
    # back to back (no pause between turns): 100 users who pause 20 s fit TP4 on one tray
    w = Workload(mode="inference", model="llama-3.1-405b", precision="fp8", concurrency=100, think_time_s=0.0)
    trays = choose(w, arch, gpu, 4, "fast", True, domain=72)
    node = choose(w, arch, gpu, 8, "fast", True)
    assert trays is not None and node is not None
    assert (trays.tp, trays.pp, trays.replicas) == (node.tp, node.pp, node.replicas) == (8, 1, 1)
    assert trays.step_s == pytest.approx(node.step_s)
    assert trays.nodes == 2 and trays.billed_gpus == 8
    # over the tray's edge without a domain: TP4 replicas, slower per user
    alone = choose(w, arch, gpu, 4, "fast", True)
    assert alone is not None and alone.tp == 4 and alone.per_user_tokens_s < trays.per_user_tokens_s


def test_405b_on_gb200_is_served_tp8_across_two_trays(data) -> None:  # type: ignore[no-untyped-def]
    arch, gpu, offer = from_record(data.model("llama-3.1-405b")), data.gpu("gb200"), data.offer(NVL72)
    w = Workload(mode="inference", model="llama-3.1-405b", precision="fp8", concurrency=100, think_time_s=0.0)
    plan, _memory, throughput = plan_offer(w, arch, gpu, offer)
    assert plan.tensor_parallel == 8 and plan.gpus_per_replica == 8 and plan.gpus == 8 and plan.nodes == 2
    assert plan.parallelism == ACROSS_TRAYS
    assert "between the replica's trays: NVLink (one rack)" in plan.interconnect
    assert plan.needs_nvlink and not plan.needs_infiniband and plan.checklist == DOMAIN_TP_CHECKLIST
    assert any(n.startswith(DOMAIN_TP_NOTE) and "900 GB/s" in n for n in plan.notes)
    speed = throughput.decode_tokens_per_s_per_sequence
    assert speed is not None and speed.value > 22.7  # 2 replicas of TP4 before
    # BF16 as published: two TP8 replicas on 4 trays, not 8 replicas of TP4 x PP2 on 16
    bf16, _memory, _throughput = plan_offer(w.model_copy(update={"precision": "bf16"}), arch, gpu, offer)
    assert (bf16.tensor_parallel, bf16.pipeline_parallel, bf16.gpus) == (8, 1, 16)
    assert bf16.nodes * 4 == bf16.gpus  # billed in whole trays


def test_405b_training_on_gb200_splits_layers_over_two_trays(data) -> None:  # type: ignore[no-untyped-def]
    arch, gpu, offer = from_record(data.model("llama-3.1-405b")), data.gpu("gb200"), data.offer(NVL72)
    w = Workload(mode="pretrain", model="llama-3.1-405b", dataset_tokens=100e9)
    plan, _memory = plan_cluster(w, arch, gpu, offer, fixed_gpus=72)
    assert plan.tensor_parallel == 8 and plan.data_parallel == 9
    assert plan.parallelism.startswith(ACROSS_TRAYS)
    assert plan.checklist[:len(DOMAIN_TP_CHECKLIST)] == DOMAIN_TP_CHECKLIST
    assert any(n.startswith(DOMAIN_TP_NOTE) for n in plan.notes)
    # an HGX B200 node's TP8 is inside the node, said as before
    hgx = next(o for o in data.offers if o.gpu == "b200" and o.gpus_per_node == 8 and o.inter_node_fabric)
    node_plan, _memory = plan_cluster(w, arch, data.gpu("b200"), hgx, fixed_gpus=72)
    assert "across" not in node_plan.parallelism.split(",")[0] and not any(n.startswith(DOMAIN_TP_NOTE)
                                                                           for n in node_plan.notes)
