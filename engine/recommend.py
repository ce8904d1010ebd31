"""Enumerate the configurations worth considering, keep those that fit, rank them, explain the winner.

Candidates: every GPU type with offers (or the user's GPU), the GPU count from `plan_cluster`,
and every offer (provider x pricing kind) of that GPU. Precision/mode variants are added only
when the user did not fix them and the asked-for variant fits nowhere (seed 000: QLoRA turns a
16-GPU full fine-tune into one GPU; int8/int4 halve serving hardware).

Cost: monthly four-row TCO (engine.tco). Time: wall-clock hours per run. Plans and throughput are
computed once per (variant, GPU, node shape) and shared across offers, which keeps a
5,000-offer catalog well under 50 ms.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from catalog.records import CatalogData, GpuRecord, OfferRecord, ProviderRecord
from engine.architecture import Architecture, lora_trainable_params
from engine.cluster import max_tensor_parallel, plan_cluster
from engine.defaults import MAX_SERVING_BATCH, MIN_TOKENS_PER_S_PER_USER
from engine.egress import egress_for
from engine.models import (
    TRAINING_MODES,
    ClusterPlan,
    Figure,
    MemoryEstimate,
    Option,
    Problem,
    Recommendation,
    TcoOption,
    ThroughputEstimate,
    Workload,
)
from engine.tco import (
    managed_split,
    row_usd,
    storage_footprint,
    tco_options,
    usd_per_gpu_hour,
    workflows_for,
)
from engine.throughput import cloud_cost_per_1m_tokens, estimate_inference, estimate_training

SERVING_HOURS_PER_MONTH = 730.0  # an always-on endpoint: 24 x 365 / 12
MONTH_HOURS = 730.0  # a month of wall clock, for "do the runs fit in a month" notes
MAX_SCALE_OUT_NODES = 128  # scale-out limit where a provider states none (beyond that: a reservation, not an offer)
MAX_ALTERNATIVES = 5
SHORTLIST_CHEAPEST = 25  # options built in full and returned, cheapest first
SHORTLIST_FASTEST = 5
PRICING_LABEL = {"on_demand": "on-demand", "spot": "spot", "reserved": "reserved"}


@dataclass
class Ranked:
    """What `evaluate` found: ranked options, the recommendation, problems and notes."""

    options: list[Option]
    recommendation: Recommendation
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    largest: tuple[str, int, float] | None = None  # (gpu name, gpus, per-GPU peak GB) of the largest plan tried
    # When the cost cannot be computed (training without a token count) but plans fit: the cheapest
    # per cluster-hour, so memory / cluster / speed can still be answered (/vram).
    fit_only: FitOnly | None = None


@dataclass
class FitOnly:
    """A configuration that fits but whose monthly cost is unknown (no token count)."""

    name: str
    usd_per_hour: float
    plan: ClusterPlan
    memory: MemoryEstimate
    throughput: ThroughputEstimate
    offer: OfferRecord | None


def data_source(w: Workload, data: CatalogData) -> ProviderRecord | None:
    """The provider whose egress table applies to the data's location ("aws" -> AWS)."""
    if w.data_location is None:
        return None
    direct = data.provider(w.data_location)
    if direct is not None:
        return direct
    return next((p for p in data.providers if p.cloud == w.data_location and p.kind == "hyperscaler"), None)


def variants(w: Workload, given: Workload) -> list[tuple[Workload, str]]:
    """The asked-for variant first, then cheaper-memory fallbacks the user left open.

    Serving without a fixed precision: int8 then int4 weights. Training without a fixed mode
    (full/LoRA were defaults): QLoRA. A fixed choice is never overridden; fallbacks are only
    evaluated when the asked-for variant fits nowhere (see `evaluate`).
    """
    out: list[tuple[Workload, str]] = [(w, "")]
    mode = w.mode or "inference"
    if mode == "inference" and given.precision is None:
        for precision in ("int8", "int4"):
            if precision != w.precision:
                out.append((w.model_copy(update={"precision": precision}), f"{precision} weights"))
    elif mode in ("full", "lora") and given.mode is None and given.precision is None:
        qlora = w.model_copy(
            update={"mode": "qlora", "precision": "nf4", "optimizer": "paged_adamw_8bit", "lora_rank": w.lora_rank or 16, "zero_stage": None}
        )
        out.append((qlora, "QLoRA (NF4 base)"))
    return out


def _billed_gpus(plan: ClusterPlan, offer: OfferRecord | None) -> int:
    """GPUs you pay for: whole nodes of the offer's shape (a 1-GPU job on an 8-GPU node pays 8)."""
    if offer is None or offer.gpus_per_node <= 0:
        return plan.gpus
    return int(math.ceil(plan.gpus / offer.gpus_per_node)) * offer.gpus_per_node


def _gpu_hours_per_run(w: Workload, t: ThroughputEstimate, billed: int) -> tuple[float, float]:
    """(GPU-hours billed per run, wall-clock hours per run).

    Training: the work is fixed GPU-hours; extra GPUs in a whole node run data-parallel, so the
    bill stays the same and the wall clock shrinks. Serving: an always-on endpoint (730 h/month),
    counted as one "run" per month.
    """
    if (w.mode or "inference") in TRAINING_MODES:
        gpu_hours = t.gpu_hours.value if t.gpu_hours is not None else math.nan
        return gpu_hours, gpu_hours / max(1, billed)
    return SERVING_HOURS_PER_MONTH * billed, SERVING_HOURS_PER_MONTH


def _name(provider: ProviderRecord | None, offer: OfferRecord | None, gpu: GpuRecord, gpus: int, pricing: str, label: str) -> str:
    who = provider.name if provider is not None else (offer.provider if offer is not None else "your quote")
    shape = f"{gpus}x {gpu.name}"
    price = PRICING_LABEL.get(pricing, pricing)
    suffix = f", {label}" if label else ""
    return f"{who} {shape} ({price}{suffix})"


def _gpus_for(w: Workload, data: CatalogData) -> list[GpuRecord]:
    if w.gpu is not None:
        gpu = data.gpu(w.gpu)
        return [gpu] if gpu is not None else []
    with_offers = {o.gpu for o in data.offers}
    gpus = [g for g in data.gpus if g.id in with_offers]
    if w.gpu_memory_gb:
        gpus = [g for g in gpus if abs(g.memory_gb - w.gpu_memory_gb) <= 0.05 * w.gpu_memory_gb]
    return gpus


def _offers_for(w: Workload, gpu: GpuRecord, by_gpu: dict[str, list[OfferRecord]]) -> list[OfferRecord]:
    offers = by_gpu.get(gpu.id, [])
    if w.provider is not None:
        offers = [o for o in offers if o.provider == w.provider]
    return offers


def evaluate(w: Workload, arch: Architecture, data: CatalogData, given: Workload | None = None) -> Ranked:
    """Enumerate, plan, cost and rank. `w` is the effective workload, `given` what the user said."""
    return _evaluate(w, arch, data, given)


def _relabel(plan: ClusterPlan, gpu: GpuRecord, offer: OfferRecord) -> ClusterPlan:
    """A plan shared by offers of the same shape, described with this offer's own link names."""
    between = f"; between nodes: {offer.inter_node_fabric or 'none (independent replicas)'}" if plan.nodes > 1 else ""
    interconnect = f"{offer.intra_node_link or gpu.scaleup_link or 'PCIe only'}{between}"
    return plan if interconnect == plan.interconnect else plan.model_copy(update={"interconnect": interconnect})


def _node_cap(offer: OfferRecord | None) -> int | None:
    """One copy of the model spans at most one node where the offer has no inter-node fabric: a
    plan across such nodes is not for sale, so it is not searched for."""
    return 1 if offer is not None and offer.inter_node_fabric is None else None


def _slot_hours(w: Workload) -> float:
    """How long one run may take: the user's target, else a month (or its share of several months
    when there is less than one run a month)."""
    if w.max_hours_per_run:
        return float(w.max_hours_per_run)
    return MONTH_HOURS / min(float(w.runs_per_month or 1.0), 1.0)


def _plan_for(w: Workload, arch: Architecture, gpu: GpuRecord,
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
        return _serving_plan(w, arch, gpu, offer)
    plan, memory = plan_cluster(w, arch, gpu, offer, max_nodes=_node_cap(offer))
    throughput = estimate_training(w, arch, gpu, plan.gpus)
    if not plan.fits or w.gpu_count or w.nodes:
        return plan, memory, throughput
    gpn = max(1, offer.gpus_per_node if offer is not None else plan.gpus_per_node)
    target = math.ceil(plan.gpus / gpn) * gpn if offer is not None else plan.gpus
    notes: list[str] = []
    slot = _slot_hours(w)
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
        side_by_side = math.ceil(runs * wall / MONTH_HOURS - 1e-9)
        if runs > 1 and side_by_side > 1:
            notes.append(f"{runs:g} runs x {wall:,.0f} h each do not fit one after another in a month: run "
                         f"{side_by_side} side by side on separate {plan.gpus}-GPU clusters ({side_by_side * plan.gpus} GPUs at "
                         "once, same GPU-hours and cost); assumes the runs are independent experiments")
    if notes:
        plan = plan.model_copy(update={"notes": (*notes, *plan.notes)})
    return plan, memory, throughput


def _serving_plan(w: Workload, arch: Architecture, gpu: GpuRecord,
                  offer: OfferRecord | None) -> tuple[ClusterPlan, MemoryEstimate, ThroughputEstimate]:
    """Serving: the user's batch, or, for a throughput target, the batch per replica that gives the
    most tokens/s per GPU while it fits and each user still gets a usable rate; then replicas."""
    if w.concurrency is not None or not w.target_tokens_per_s:
        plan, memory = plan_cluster(w, arch, gpu, offer, max_nodes=_node_cap(offer))
        throughput = estimate_inference(w, arch, gpu, plan)
        plan, memory, throughput = _whole_node_serving(w, arch, gpu, offer, plan, memory, throughput)
        return _with_replicas(w, plan, memory, throughput, offer)
    best: tuple[float, ClusterPlan, MemoryEstimate, ThroughputEstimate, Workload] | None = None
    batch = 1
    while batch <= MAX_SERVING_BATCH:
        wb = w.model_copy(update={"concurrency": batch})
        plan, memory = plan_cluster(wb, arch, gpu, offer, max_nodes=_node_cap(offer))
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
    return _with_replicas(wb, plan, memory, throughput, offer)


def _whole_node_serving(w: Workload, arch: Architecture, gpu: GpuRecord, offer: OfferRecord | None, plan: ClusterPlan,
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


def _with_replicas(w: Workload, plan: ClusterPlan, memory: MemoryEstimate, throughput: ThroughputEstimate,
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


def _late(w: Workload, wall_hours: float) -> bool:
    """A training option whose single run overruns its slot: shown, but ranked after the rest."""
    return (w.mode or "inference") in TRAINING_MODES and math.isfinite(wall_hours) and wall_hours > _slot_hours(w) * 1.0001


def _evaluate(w: Workload, arch: Architecture, data: CatalogData, given: Workload | None) -> Ranked:
    given = given or w
    pricing = w.pricing or "on_demand"
    source = data_source(w, data)
    providers = {p.id: p for p in data.providers}
    by_gpu: dict[str, list[OfferRecord]] = {}
    for record in data.offers:
        by_gpu.setdefault(record.gpu, []).append(record)
    trainable = lora_trainable_params(arch, w.lora_rank, w.lora_targets) if w.mode in ("lora", "qlora") else arch.total_params
    candidates: dict[str, _Candidate] = {}
    notes: list[str] = []
    largest: tuple[str, int, float] | None = None
    largest_gb = 0.0
    egress_cache: dict[str, dict[str, Any]] = {}
    fit_only: FitOnly | None = None

    for variant, label in variants(w, given):
        storage = storage_footprint(variant, arch.total_params, trainable)
        found = 0
        for gpu in _gpus_for(variant, data):
            plans: dict[tuple[Any, ...] | None, tuple[ClusterPlan, MemoryEstimate, ThroughputEstimate, Workload]] = {}
            offers: list[OfferRecord | None] = list(_offers_for(variant, gpu, by_gpu))
            if variant.hourly_rate is not None:
                offers.append(None)  # the user's quote, as its own option
            # per (node shape, provider, managed premium): everything but the offer's price
            context: dict[tuple[Any, ...], tuple[float, float, float, int, str] | None] = {}
            for offer in offers:
                shape = (
                    None
                    if offer is None
                    else (offer.gpus_per_node, offer.inter_node_fabric, offer.max_nodes,
                          max_tensor_parallel(gpu, offer, offer.gpus_per_node))
                )  # what the plan depends on; the intra-node link's wording is relabelled per offer below
                if shape not in plans:
                    plan, memory, throughput = _plan_for(variant, arch, gpu, offer)
                    plans[shape] = (plan, memory, throughput, variant)
                    if plan.gpus * gpu.memory_gb > largest_gb:
                        largest, largest_gb = (gpu.id, plan.gpus, memory.per_gpu_gb), plan.gpus * gpu.memory_gb
                plan, memory, throughput, vw = plans[shape]
                if offer is not None:
                    plan = _relabel(plan, gpu, offer)
                copy_gpus = plan.gpus // max(1, throughput.replicas or 1)  # serving replicas need no fabric
                if not plan.fits or (offer is not None and copy_gpus > offer.gpus_per_node and offer.inter_node_fabric is None):
                    continue  # an offer without an inter-node fabric is sold as single nodes only
                provider = providers.get(offer.provider) if offer is not None else providers.get(variant.provider or "")
                rate = _rate(offer, pricing, variant.hourly_rate)
                if rate is None:
                    continue
                ckey = (shape, provider.id if provider is not None else "", offer.managed if offer else False,
                        offer.managed_premium_fraction if offer else None)
                if ckey not in context:
                    context[ckey] = _context(vw, offer, provider, plan, throughput, storage, egress_cache, source, gpu, pricing, label)
                ctx = context[ckey]
                if ctx is None:
                    hourly = rate * _billed_gpus(plan, offer)
                    if fit_only is None or hourly < fit_only.usd_per_hour:
                        name = _name(provider, offer, gpu, _billed_gpus(plan, offer), pricing, label)
                        fit_only = FitOnly(name, hourly, plan, memory, throughput, offer)
                    continue
                per_rate, fixed_usd, wall_hours, _billed, name = ctx
                total = rate * per_rate + fixed_usd
                best = candidates.get(name)
                if best is None or total < best.total:
                    candidates[name] = _Candidate(total, wall_hours, name, gpu, offer, provider, vw, plan, memory,
                                                  throughput, storage, egress_cache[ckey[1]])
                    found += 1
        if found and not label:
            break  # the asked-for variant fits somewhere: fallbacks are not needed
        if label and found:
            notes.append(f"as asked it fits on no offered configuration; {label} does")

    options = [_build(c) for c in _shortlist(list(candidates.values()))]
    ranked = _rank(options, w)
    rec = recommend(ranked, w)
    return Ranked(options=ranked, recommendation=rec, notes=notes, largest=largest, fit_only=None if ranked else fit_only)


@dataclass
class _Candidate:
    """An offer that fits, costed with floats only; turned into an `Option` if shortlisted."""

    total: float
    wall_hours: float
    name: str
    gpu: GpuRecord
    offer: OfferRecord | None
    provider: ProviderRecord | None
    w: Workload
    plan: ClusterPlan
    memory: MemoryEstimate
    throughput: ThroughputEstimate
    storage: Figure
    egress: dict[str, Any]


def _rate(offer: OfferRecord | None, pricing: str, hourly_rate: float | None) -> float | None:
    """USD per GPU-hour; catalog offers ignore the user's quote (the quote is its own option)."""
    return usd_per_gpu_hour(offer, pricing, hourly_rate if offer is None else None)[0]


def _context(w: Workload, offer: OfferRecord | None, provider: ProviderRecord | None, plan: ClusterPlan,
             throughput: ThroughputEstimate, storage: Figure, egress_cache: dict[str, dict[str, Any]],
             source: ProviderRecord | None, gpu: GpuRecord, pricing: str, label: str) -> tuple[float, float, float, int, str] | None:
    """(USD per unit of $/GPU-hr, fixed USD, wall hours, billed GPUs, name) shared by offers of one shape
    and provider: the same arithmetic as engine.tco, without building models."""
    billed = _billed_gpus(plan, offer)
    gpu_hours, wall_hours = _gpu_hours_per_run(w, throughput, billed)
    if not math.isfinite(gpu_hours):
        return None
    key = provider.id if provider is not None else ""
    if key not in egress_cache:
        egress_cache[key] = egress_for(w, source, provider)
    egress = egress_cache[key]
    base_factor, fraction, _ = managed_split(w, offer, provider)
    if w.storage_usd_per_month is not None:
        storage_usd = w.storage_usd_per_month
    else:
        storage_usd = storage.value * (provider.storage_usd_per_gb_month if provider is not None else 0.0)
    egress_usd = min(
        0.0 if f in ("same_cloud", "none") else (egress["uncached"].value if f == "uncached" else egress["cached"].value)
        for f in workflows_for(w, egress)
    )
    per_rate = gpu_hours * float(w.runs_per_month or 1.0) * base_factor * (1 + fraction)
    return per_rate, storage_usd + egress_usd, wall_hours, billed, _name(provider, offer, gpu, billed, pricing, label)


def _shortlist(candidates: list[_Candidate]) -> list[_Candidate]:
    """The options worth building in full: cheapest, fastest, and the best of each provider, GPU
    type, same-cloud and managed offer, plus the user's quote. Keeps a 5,000-offer catalog fast."""
    by_cost = sorted(candidates, key=lambda c: (_late(c.w, c.wall_hours), c.total, c.wall_hours, c.name))
    keep: dict[str, _Candidate] = {c.name: c for c in by_cost[:SHORTLIST_CHEAPEST]}
    for c in sorted(candidates, key=lambda c: (c.wall_hours, c.total, c.name))[:SHORTLIST_FASTEST]:
        keep.setdefault(c.name, c)
    seen: set[tuple[str, str]] = set()
    for c in by_cost:
        for key in (("provider", c.provider.id if c.provider else ""), ("gpu", c.gpu.id), ("quote", str(c.offer is None)),
                    ("same_cloud", str(bool(c.egress.get("same_cloud")))), ("managed", str(bool(c.offer and c.offer.managed)))):
            if key not in seen:
                seen.add(key)
                keep.setdefault(c.name, c)
    return list(keep.values())


def _build(c: _Candidate) -> Option:
    pricing = c.w.pricing or "on_demand"
    rate, rate_source = usd_per_gpu_hour(c.offer, pricing, c.w.hourly_rate if c.offer is None else None)
    billed = _billed_gpus(c.plan, c.offer)
    gpu_hours, _wall = _gpu_hours_per_run(c.w, c.throughput, billed)
    if billed > c.plan.gpus and c.offer is not None:
        rate_source += (
            f"; the offer rents whole {c.offer.gpus_per_node}-GPU nodes: the {c.plan.gpus}-GPU plan runs data-parallel "
            f"on all {billed} (same GPU-hours, shorter wall clock)"
            if (c.w.mode or "inference") in TRAINING_MODES
            else f"; the offer rents whole {c.offer.gpus_per_node}-GPU nodes: {billed} GPUs billed for a {c.plan.gpus}-GPU replica"
        )
    tcos = tco_options(
        c.w, name=c.name, offer=c.offer, provider=c.provider, gpu_hours_per_run=gpu_hours,
        usd_per_gpu_hr=rate or 0.0, rate_source=rate_source, storage_gb=c.storage, egress=c.egress,
    )
    throughput = c.throughput
    if (c.w.mode or "inference") not in TRAINING_MODES and rate and throughput.decode_tokens_per_s is not None:
        # Serving: what a million generated tokens cost on this option's rent, at the stated load.
        load = float(c.w.utilization or 1.0)
        cost = cloud_cost_per_1m_tokens(rate, billed, throughput.decode_tokens_per_s.value, load)
        if load >= 1.0:
            cost = cost.model_copy(update={"notes": ("at full load around the clock; at 30% average load it is 3.3x this",)})
        throughput = throughput.model_copy(update={"cost_per_1m_tokens_usd": cost})
    return Option(
        name=c.name, offer_id=c.offer.id if c.offer is not None else None, gpu=c.gpu.id,
        mode=c.w.mode or "inference", precision=c.w.precision or "bf16", memory=c.memory,
        cluster=c.plan, throughput=throughput, tco=tcos,
        total_usd=min(t.total_usd for t in tcos), hours_per_run=c.wall_hours,
    )


def _rank(options: list[Option], w: Workload | None = None) -> list[Option]:
    def late(o: Option) -> bool:
        return w is not None and _late(w, o.hours_per_run or 0.0)

    by_cost = sorted(options, key=lambda o: (late(o), o.total_usd, o.hours_per_run or 0.0, o.name))
    time_order = {o.name: i + 1 for i, o in enumerate(sorted(options, key=lambda o: (o.hours_per_run or 0.0, o.total_usd, o.name)))}
    return [o.model_copy(update={"rank_by_cost": i + 1, "rank_by_time": time_order[o.name]}) for i, o in enumerate(by_cost)]


def rank(w: Workload, arch: Architecture, data: CatalogData) -> tuple[list[Option], Recommendation]:
    """Interface form of `evaluate` (docs/interfaces.md)."""
    result = evaluate(w, arch, data)
    return result.options, result.recommendation


def _tco(option: Option, workflow: str) -> TcoOption | None:
    return next((t for t in option.tco if t.workflow == workflow), None)


def _workflow_total(option: Option, workflow: str) -> float:
    """Monthly total under a workflow; same-cloud/none options cost the same under every workflow."""
    tco = _tco(option, workflow) or _tco(option, "same_cloud") or _tco(option, "none")
    return tco.total_usd if tco is not None else option.total_usd


def _per_run_and_fixed(option: Option, workflow: str, runs: float) -> tuple[float, float]:
    """Linearise a workflow's total as fixed + per_run x runs (egress tiers make it approximate)."""
    tco = _tco(option, workflow) or _tco(option, "same_cloud") or _tco(option, "none") or option.tco[0]
    variable = row_usd(tco, "compute") + row_usd(tco, "managed")
    if tco.workflow == "uncached":
        variable += row_usd(tco, "egress")
        fixed = row_usd(tco, "storage")
    else:
        fixed = row_usd(tco, "storage") + row_usd(tco, "egress")
    return fixed, variable / max(runs, 1e-9)


def _pick_alternatives(options: list[Option], primary: Option) -> list[Option]:
    picks: list[Option] = []

    def add(o: Option | None) -> None:
        if o is not None and o.name != primary.name and o.name not in {p.name for p in picks}:
            picks.append(o)

    add(min(options, key=lambda o: (o.hours_per_run or 0.0, o.total_usd)))  # fastest
    add(next((o for o in options if any(t.workflow == "same_cloud" for t in o.tco)), None))  # best same-cloud
    add(next((o for o in options if any(r.item == "managed" and r.usd > 0 for t in o.tco for r in t.rows)), None))
    add(next((o for o in options if o.gpu != primary.gpu), None))  # cheapest other GPU type
    add(next((o for o in options if o.offer_id is None), None))  # your quote
    add(next((o for o in options if _provider_of(o) != _provider_of(primary)), None))  # runner-up elsewhere
    return picks[:MAX_ALTERNATIVES]


def recommend(options: list[Option], w: Workload) -> Recommendation:
    """Primary = cheapest monthly total; alternatives; why; what would change it."""
    if not options:
        return Recommendation(primary=None, why=("no configuration in the catalog fits this workload",))
    primary = options[0]
    alternatives = _pick_alternatives(options, primary)
    shown = [primary, *alternatives]
    totals = [o.total_usd for o in shown]
    serving = (w.mode or "inference") not in TRAINING_MODES
    basis = "always on" if serving else f"for {w.runs_per_month or 1:g} run(s)"
    why = [f"lowest monthly total: ${primary.total_usd:,.0f} {basis}"]
    runner = next((o for o in options[1:] if _provider_of(o) != _provider_of(primary)), None)
    if runner is not None:
        why.append(f"${runner.total_usd - primary.total_usd:,.0f}/month less than {runner.name} (${runner.total_usd:,.0f})")
    if primary.hours_per_run is not None and (w.mode or "inference") in TRAINING_MODES:
        why.append(f"{primary.hours_per_run:,.1f} h wall clock per run on {primary.cluster.gpus} GPU(s)")
    return Recommendation(
        primary=primary.name,
        alternatives=tuple(o.name for o in alternatives),
        cost_range_usd=(min(totals), max(totals)),
        why=tuple(why),
        what_would_change_it=tuple(what_would_change(options, w)),
    )


def _provider_of(option: Option) -> str:
    return option.tco[0].provider if option.tco else option.name


def _winner(options: Iterable[Option], workflow: str, w: Workload | None = None) -> tuple[Option, float, Option | None, float]:
    """Cheapest option under a workflow and the cheapest from a *different* provider (a 1-GPU and an
    8-GPU shape of one provider tie, and 'wins by $0' helps nobody). Options whose run overruns its
    target come last."""
    ordered = sorted(options, key=lambda o: (w is not None and _late(w, o.hours_per_run or 0.0),
                                             _workflow_total(o, workflow), o.name))
    first = ordered[0]
    second = next((o for o in ordered[1:] if _provider_of(o) != _provider_of(first)), None)
    return first, _workflow_total(first, workflow), second, (_workflow_total(second, workflow) if second else math.nan)


def what_would_change(options: list[Option], w: Workload) -> list[str]:
    """Workflow flips and run-count break-evens, in dollars."""
    lines: list[str] = []
    has_both = any(_tco(o, "cached") for o in options) and any(_tco(o, "uncached") for o in options)
    if has_both:
        cw, c_total, c_second, c_second_total = _winner(options, "cached", w)
        uw, u_total, u_second, u_second_total = _winner(options, "uncached", w)
        if c_second is not None and u_second is not None and _provider_of(cw) == _provider_of(uw):
            lines.append(
                f"cached or pulled every run, {cw.name} stays cheapest: by ${c_second_total - c_total:,.0f} cached, "
                f"${u_second_total - u_total:,.0f} pulling every run"
            )
        elif c_second is not None:
            lines.append(f"if you cache the dataset after one pull: {cw.name} wins by ${c_second_total - c_total:,.0f} (over {c_second.name})")
        if u_second is not None and _provider_of(cw) != _provider_of(uw):
            lines.append(f"if every run pulls the dataset from {w.data_location}: {uw.name} wins by ${u_second_total - u_total:,.0f} (over {u_second.name})")
    runs = float(w.runs_per_month or 1.0)
    primary = options[0]
    workflow = "uncached" if w.cache_dataset is not True and has_both else "cached"
    p_fixed, p_per_run = _per_run_and_fixed(primary, workflow, runs)
    best: tuple[float, Option] | None = None
    for other in [o for o in options if _provider_of(o) != _provider_of(primary)][:12]:
        o_fixed, o_per_run = _per_run_and_fixed(other, workflow, runs)
        if o_per_run < p_per_run - 1e-9:
            crossing = (o_fixed - p_fixed) / (p_per_run - o_per_run)
            if crossing > 0 and (best is None or crossing < best[0]):
                best = (crossing, other)
    if best is not None:
        at = math.ceil(best[0] + 1e-9)
        lines.append(f"at {at:g}+ runs a month ({workflow.replace('uncached', 'pulling every run')}), {best[1].name} becomes cheaper")
    if (w.pricing or "on_demand") == "on_demand":
        lines.append("reserved capacity is typically 30-50% below on-demand for multi-quarter commitments (seed 002)")
    return lines


def fits_nowhere_problem(result: Ranked, w: Workload, data: CatalogData) -> Problem | None:
    """Problem naming the largest configuration tried and what would make the workload fit."""
    if result.options or result.fit_only is not None:
        return None
    if result.largest is None:
        return Problem(
            code="fits_nowhere",
            message="No GPU offer in the catalog matches these constraints (GPU / provider / pricing).",
        )
    gpu_id, gpus, per_gpu_gb = result.largest
    gpu = data.gpu(gpu_id)
    name = gpu.name if gpu else gpu_id
    if gpu is not None and per_gpu_gb <= gpu.memory_gb * (1 - (w.headroom or 0.0)):
        return Problem(
            code="fits_nowhere",
            message=(f"The memory fits ({per_gpu_gb:,.1f} GB per GPU on {name}), but no offer in the catalog sells the "
                     f"{gpus}-GPU shape this needs (multi-node without an inter-node fabric, or past a provider's cluster "
                     "size). A provider with InfiniBand/EFA clusters, fewer GPUs per copy (int8/int4), or your own quote "
                     "('at $2/hr') would give an answer."),
        )
    fixes: list[str] = []
    mode = w.mode or "inference"
    if mode in ("full", "pretrain", "lora"):
        fixes.append("QLoRA (NF4 base, ~0.5 bytes/param)")
    if mode == "inference" and w.precision not in ("int4", "nf4"):
        fixes.append("int8/int4 weights")
    fixes.append("more nodes or a provider with a larger cluster")
    if w.gpu_count:
        fixes.append(f"more than the {w.gpu_count} GPUs you fixed")
    return Problem(
        code="fits_nowhere",
        message=(
            f"Fits nowhere in the catalog: the largest configuration tried, {gpus}x {name}, still needs "
            f"{per_gpu_gb:,.1f} GB per GPU. What would make it fit: {'; '.join(fixes)}."
        ),
    )
