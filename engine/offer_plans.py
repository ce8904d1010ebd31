"""One node shape, planned: how a workload runs on one offer's nodes, before any price.

Why its own module: these are the rules that turn "fits on N GPUs" into what is actually rented
and run: training uses whole rented nodes data-parallel and scales out when one run overruns its
slot; serving spreads over a node's spare GPUs when that speeds each sequence, and for a
throughput target picks the batch per replica and adds replicas. engine.recommend prices and
ranks the results.
"""

from __future__ import annotations

import math

from catalog.records import GpuRecord, OfferRecord
from engine.architecture import Architecture
from engine.cluster import plan_cluster
from engine.defaults import MAX_SERVING_BATCH, MIN_TOKENS_PER_S_PER_USER
from engine.models import TRAINING_MODES, ClusterPlan, MemoryEstimate, ThroughputEstimate, Workload
from engine.throughput import estimate_inference, estimate_training
from engine.units import HOURS_PER_MONTH

MAX_SCALE_OUT_NODES = 128  # scale-out limit where a provider states none (beyond that: a reservation, not an offer)


def relabel(plan: ClusterPlan, gpu: GpuRecord, offer: OfferRecord) -> ClusterPlan:
    """A plan shared by offers of the same shape, described with this offer's own link names."""
    between = f"; between nodes: {offer.inter_node_fabric or 'none (independent replicas)'}" if plan.nodes > 1 else ""
    interconnect = f"{offer.intra_node_link or gpu.scaleup_link or 'PCIe only'}{between}"
    return plan if interconnect == plan.interconnect else plan.model_copy(update={"interconnect": interconnect})


def node_cap(offer: OfferRecord | None) -> int | None:
    """One copy of the model spans at most one node where the offer has no inter-node fabric: a
    plan across such nodes is not for sale, so it is not searched for."""
    return 1 if offer is not None and offer.inter_node_fabric is None else None


def slot_hours(w: Workload) -> float:
    """How long one run may take: the user's target, else a month (or its share of several months
    when there is less than one run a month)."""
    if w.deadline_hours:
        return float(w.deadline_hours)
    return HOURS_PER_MONTH / min(float(w.runs_per_month or 1.0), 1.0)


def plan_offer(w: Workload, arch: Architecture, gpu: GpuRecord,
              offer: OfferRecord | None) -> tuple[ClusterPlan, MemoryEstimate, ThroughputEstimate]:
    """Plan, memory and speed for one node shape.

    Training uses whole nodes data-parallel: they are paid for anyway, so the bill is the same and
    the wall clock shorter. A run longer than its slot (the user's target, else a month) scales out
    data-parallel, across nodes only where the offer has an inter-node fabric; where it cannot, the
    plan says so and the option ranks after those that can. Several runs a month are independent
    experiments: when they do not fit one after another they run side by side on separate clusters
    (same GPU-hours and cost, no InfiniBand needed), and the plan says how many at once.
    """
    if (w.mode or "inference") not in TRAINING_MODES:
        return serving_plan(w, arch, gpu, offer)
    plan, memory = plan_cluster(w, arch, gpu, offer, max_nodes=node_cap(offer))
    throughput = estimate_training(w, arch, gpu, plan.gpus)
    if not plan.fits or w.gpu_count or w.nodes:
        return plan, memory, throughput
    gpn = max(1, offer.gpus_per_node if offer is not None else plan.gpus_per_node)
    target = math.ceil(plan.gpus / gpn) * gpn if offer is not None else plan.gpus
    notes: list[str] = []
    slot = slot_hours(w)
    if throughput.gpu_hours is not None and throughput.gpu_hours.value / target > slot:
        wanted = math.ceil(math.ceil(throughput.gpu_hours.value / slot) / gpn) * gpn
        cap_nodes = 1 if offer is not None and offer.inter_node_fabric is None else (
            offer.max_nodes if offer is not None and offer.max_nodes else MAX_SCALE_OUT_NODES)
        scaled = min(wanted, cap_nodes * gpn)
        if scaled > target:
            notes.append(f"scaled out data-parallel to {scaled} GPUs so one run of {throughput.gpu_hours.value:,.0f} "
                         f"GPU-hours finishes within {slot:,.0f} h")
            target = scaled
    if target > plan.gpus:
        replanned, memory2 = plan_cluster(w.model_copy(update={"gpu_count": target}), arch, gpu, offer)
        if replanned.fits:
            if not notes:
                notes.append(f"the offer rents whole {gpn}-GPU nodes: training runs data-parallel on all {target} GPUs")
            plan, memory, throughput = replanned, memory2, estimate_training(w, arch, gpu, target)
    if throughput.wall_clock_hours is not None:
        runs = float(w.runs_per_month or 1.0)
        wall = throughput.wall_clock_hours.value
        if wall > slot * 1.0001:
            why = "the offer sells single nodes" if offer is not None and offer.inter_node_fabric is None else "cluster size limit"
            notes.append(f"one run takes {wall:,.0f} h ({wall / 24:,.1f} days) on {plan.gpus} GPU(s), longer than the "
                         f"{slot:,.0f} h target ({why}): ranked after options that make it")
        side_by_side = math.ceil(runs * wall / HOURS_PER_MONTH - 1e-9)
        if runs > 1 and side_by_side > 1:
            notes.append(f"{runs:g} runs x {wall:,.0f} h each do not fit one after another in a month: run "
                         f"{side_by_side} side by side on separate {plan.gpus}-GPU clusters ({side_by_side * plan.gpus} GPUs at "
                         "once, same GPU-hours and cost); assumes the runs are independent experiments")
    if notes:
        plan = plan.model_copy(update={"notes": (*notes, *plan.notes)})
    return plan, memory, throughput


def serving_plan(w: Workload, arch: Architecture, gpu: GpuRecord,
                  offer: OfferRecord | None) -> tuple[ClusterPlan, MemoryEstimate, ThroughputEstimate]:
    """Serving: the user's batch, or, for a throughput target, the batch per replica that gives the
    most tokens/s per GPU while it fits and each user still gets a usable rate; then replicas."""
    if w.concurrency is not None or not w.target_tokens_per_s:
        plan, memory = plan_cluster(w, arch, gpu, offer, max_nodes=node_cap(offer))
        throughput = estimate_inference(w, arch, gpu, plan)
        plan, memory, throughput = whole_node_serving(w, arch, gpu, offer, plan, memory, throughput)
        return with_replicas(w, plan, memory, throughput, offer)
    best: tuple[float, ClusterPlan, MemoryEstimate, ThroughputEstimate, Workload] | None = None
    batch = 1
    while batch <= MAX_SERVING_BATCH:
        wb = w.model_copy(update={"concurrency": batch})
        plan, memory = plan_cluster(wb, arch, gpu, offer, max_nodes=node_cap(offer))
        if plan.fits:
            throughput = estimate_inference(wb, arch, gpu, plan)
            per_user = throughput.decode_tokens_per_s_per_sequence
            aggregate = throughput.decode_tokens_per_s
            if aggregate is not None and per_user is not None and (per_user.value >= MIN_TOKENS_PER_S_PER_USER or batch == 1):
                score = aggregate.value / max(1, plan.gpus)
                if best is None or score > best[0] * 1.0001:
                    best = (score, plan, memory, throughput, wb)
        batch *= 2
    if best is None:
        plan, memory = plan_cluster(w.model_copy(update={"concurrency": 1}), arch, gpu, offer)
        return plan, memory, estimate_inference(w.model_copy(update={"concurrency": 1}), arch, gpu, plan)
    _score, plan, memory, throughput, wb = best
    note = f"batch of {wb.concurrency} sequences per replica: the most tokens/s per GPU that fits (each user ~" \
           f"{throughput.decode_tokens_per_s_per_sequence.value:,.0f} tokens/s)" if throughput.decode_tokens_per_s_per_sequence else ""
    if note:
        plan = plan.model_copy(update={"notes": (note, *plan.notes)})
    return with_replicas(wb, plan, memory, throughput, offer)


def whole_node_serving(w: Workload, arch: Architecture, gpu: GpuRecord, offer: OfferRecord | None, plan: ClusterPlan,
                        memory: MemoryEstimate, throughput: ThroughputEstimate) -> tuple[ClusterPlan, MemoryEstimate, ThroughputEstimate]:
    """A model that fits on 3 of a node's 8 GPUs is billed for 8: spread it over the whole node
    (tensor/pipeline parallel) when that makes each sequence faster, and say so."""
    if offer is None or not plan.fits or w.gpu_count or w.nodes or plan.gpus >= offer.gpus_per_node:
        return plan, memory, throughput
    wide, wide_memory = plan_cluster(w.model_copy(update={"gpu_count": offer.gpus_per_node}), arch, gpu, offer)
    if not wide.fits:
        return plan, memory, throughput
    wide_throughput = estimate_inference(w, arch, gpu, wide)
    old, new = throughput.decode_tokens_per_s_per_sequence, wide_throughput.decode_tokens_per_s_per_sequence
    if old is None or new is None or new.value <= old.value * 1.05:
        return plan, memory, throughput
    note = (f"the offer rents whole {offer.gpus_per_node}-GPU nodes: the model fits on {plan.gpus}, so it is spread over "
            f"all {offer.gpus_per_node} ({wide.parallelism}) for {new.value:,.0f} instead of {old.value:,.0f} tokens/s per sequence")
    return wide.model_copy(update={"notes": (note, *wide.notes)}), wide_memory, wide_throughput


def with_replicas(w: Workload, plan: ClusterPlan, memory: MemoryEstimate, throughput: ThroughputEstimate,
                   offer: OfferRecord | None) -> tuple[ClusterPlan, MemoryEstimate, ThroughputEstimate]:
    """Serving for a throughput target: enough copies of the model (replicas) to sum to it.

    The plan, the aggregate decode rate and the memory total then describe the whole fleet; the
    per-GPU peak and the per-sequence rate are those of one replica.
    """
    replicas = throughput.replicas or 1
    if replicas <= 1 or not plan.fits or throughput.decode_tokens_per_s is None:
        return plan, memory, throughput
    gpus = plan.gpus * replicas
    gpn = offer.gpus_per_node if offer is not None and offer.gpus_per_node > 0 else max(plan.gpus_per_node, plan.gpus)
    per_replica = throughput.decode_tokens_per_s
    note = (f"{replicas} replicas of {plan.gpus} GPU(s) ({per_replica.value:,.0f} tokens/s each) to serve "
            f"{w.target_tokens_per_s:,.0f} tokens/s; replicas need no fast link between them")
    fleet = plan.model_copy(update={
        "gpus": gpus, "nodes": math.ceil(gpus / gpn), "gpus_per_node": min(gpus, gpn),
        "data_parallel": plan.data_parallel * replicas,
        "parallelism": f"{replicas} replicas x ({plan.parallelism})", "notes": (note, *plan.notes)})
    aggregate = per_replica.model_copy(update={
        "value": per_replica.value * replicas, "formula": f"{per_replica.formula} x replicas",
        "inputs": {**per_replica.inputs, "replicas": replicas}})
    return (fleet, memory.model_copy(update={"total_gb": memory.total_gb * replicas}),
            throughput.model_copy(update={"decode_tokens_per_s": aggregate}))


def is_late(w: Workload, wall_hours: float) -> bool:
    """A training option whose single run overruns its slot: shown, but ranked after the rest."""
    return (w.mode or "inference") in TRAINING_MODES and math.isfinite(wall_hours) and wall_hours > slot_hours(w) * 1.0001
