"""Enumerate the configurations worth considering, keep those that fit, price and rank them.

How one node shape is planned lives in engine.offer_plans; the sentences about the winner and
what would change it in engine.recommendation.

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
from dataclasses import dataclass, field
from typing import Any

from catalog.records import CatalogData, GpuRecord, OfferRecord, ProviderRecord
from engine.architecture import Architecture, lora_trainable_params
from engine.cluster import compute_capability, max_tensor_parallel
from engine.egress import egress_for
from engine.models import (
    TRAINING_MODES,
    ClusterPlan,
    Figure,
    MemoryEstimate,
    Option,
    Problem,
    Recommendation,
    ThroughputEstimate,
    Workload,
)
from engine.offer_plans import is_late, plan_offer, relabel
from engine.recommendation import recommend
from engine.tco import (
    managed_split,
    storage_footprint,
    tco_options,
    usd_per_gpu_hour,
    workflows_for,
)
from engine.throughput import cloud_cost_per_1m_tokens
from engine.units import HOURS_PER_MONTH

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
    return HOURS_PER_MONTH * billed, HOURS_PER_MONTH


def _name(provider: ProviderRecord | None, offer: OfferRecord | None, gpu: GpuRecord, gpus: int, pricing: str, label: str) -> str:
    who = provider.name if provider is not None else (offer.provider if offer is not None else "your quote")
    shape = f"{gpus}x {gpu.name}"
    price = PRICING_LABEL.get(pricing, pricing)
    suffix = f", {label}" if label else ""
    return f"{who} {shape} ({price}{suffix})"


def _on_gpu(w: Workload, gpu: GpuRecord, given: Workload) -> Workload:
    """The workload as it runs on this GPU: FlashAttention-2 needs Ampere or newer, so a T4 or V100
    keeps the quadratic attention scores in memory unless the user said otherwise."""
    cc = compute_capability(gpu)
    if given.flash_attention is None and w.flash_attention and cc is not None and cc < 8.0:
        return w.model_copy(update={"flash_attention": False})
    return w


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
            tp_by_link: dict[tuple[str, int], int] = {}
            offers: list[OfferRecord | None] = list(_offers_for(variant, gpu, by_gpu))
            if variant.hourly_rate is not None:
                offers.append(None)  # the user's quote, as its own option
            # per (node shape, provider, managed premium): everything but the offer's price
            context: dict[tuple[Any, ...], tuple[float, float, float, int, str] | None] = {}
            for offer in offers:
                if offer is None:
                    shape = None
                else:
                    link_key = (offer.intra_node_link, offer.gpus_per_node)
                    if link_key not in tp_by_link:
                        tp_by_link[link_key] = max_tensor_parallel(gpu, offer, offer.gpus_per_node)
                    # what the plan depends on; the intra-node link's wording is relabelled per offer when kept
                    shape = (offer.gpus_per_node, offer.inter_node_fabric, offer.max_nodes, tp_by_link[link_key])
                if shape not in plans:
                    on_gpu = _on_gpu(variant, gpu, given)
                    plan, memory, throughput = plan_offer(on_gpu, arch, gpu, offer)
                    plans[shape] = (plan, memory, throughput, on_gpu)
                    if plan.gpus * gpu.memory_gb > largest_gb:
                        largest, largest_gb = (gpu.id, plan.gpus, memory.per_gpu_gb), plan.gpus * gpu.memory_gb
                plan, memory, throughput, vw = plans[shape]
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
                    billed = _billed_gpus(plan, offer)
                    hourly = rate * billed
                    if fit_only is None or hourly < fit_only.usd_per_hour:
                        name = _name(provider, offer, gpu, billed, pricing, label)
                        fit_only = FitOnly(name, hourly, relabel(plan, gpu, offer) if offer is not None else plan, memory, throughput, offer)
                    continue
                per_rate, fixed_usd, wall_hours, _billed, name = ctx
                total = rate * per_rate + fixed_usd
                best = candidates.get(name)
                if best is None or total < best.total:
                    own_plan = relabel(plan, gpu, offer) if offer is not None else plan
                    candidates[name] = _Candidate(total, wall_hours, name, gpu, offer, provider, vw, own_plan, memory,
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
    by_cost = sorted(candidates, key=lambda c: (is_late(c.w, c.wall_hours), c.total, c.wall_hours, c.name))
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
        return w is not None and is_late(w, o.hours_per_run or 0.0)

    by_cost = sorted(options, key=lambda o: (late(o), o.total_usd, o.hours_per_run or 0.0, o.name))
    time_order = {o.name: i + 1 for i, o in enumerate(sorted(options, key=lambda o: (o.hours_per_run or 0.0, o.total_usd, o.name)))}
    return [o.model_copy(update={"rank_by_cost": i + 1, "rank_by_time": time_order[o.name]}) for i, o in enumerate(by_cost)]


def rank(w: Workload, arch: Architecture, data: CatalogData) -> tuple[list[Option], Recommendation]:
    """Interface form of `evaluate` (docs/interfaces.md)."""
    result = evaluate(w, arch, data)
    return result.options, result.recommendation
