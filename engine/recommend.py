"""Enumerate the configurations worth considering, keep those that fit, price and rank them.

How one node shape is planned lives in engine.offer_plans; the sentences about the winner and
what would change it in engine.recommendation.

Candidates: every GPU type with offers (or the user's GPU), the GPU count from `plan_cluster`,
and every offer (provider x pricing kind) of that GPU. Precision/mode variants are added only
when the user did not fix them and the asked-for variant fits nowhere (QLoRA turns a
16-GPU full fine-tune into one GPU; int8/int4 halve serving hardware).

Cost: monthly four-row TCO (engine.tco). Time: wall-clock hours per run. Plans and throughput are
computed once per (variant, GPU, node shape) and shared across offers, which keeps a
5,000-offer catalog well under 50 ms.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from catalog.records import CatalogData, GpuRecord, OfferRecord, ProviderRecord, instance_matches
from engine.architecture import Architecture, lora_trainable_params
from engine.cluster import (
    compute_capability,
    fp8_weight_only,
    integer_kernels,
    max_tensor_parallel,
    sixteen_bit,
)
from engine.egress import egress_for
from engine.models import (
    DEFAULT_SETUP_HOURS,
    TRAINING_MODES,
    ClusterPlan,
    Figure,
    MemoryEstimate,
    Option,
    Problem,
    Recommendation,
    TargetCheck,
    TcoOption,
    TcoRow,
    ThroughputEstimate,
    Workload,
)
from engine.offer_plans import (
    CAPACITY_NODES,
    PlannedShape,
    is_late,
    lateness,
    offer_fabric_gb_s,
    plan_shape,
    relabel,
    serving_shape,
    setup_hours,
    spot_factor,
)
from engine.recommendation import (
    FASTEST_COST_FACTOR,
    FASTEST_GPU_FACTOR,
    FASTEST_MIN_GPUS,
    JOB_SPOT_HINT,
    JOB_SPOT_NOTE,
    at_the_edge,
    budget_note,
    edge_note,
    job_note,
    job_rate_and_hours,
    off_target,
    per_user_speed,
    recommend,
    recommended,
    runs_asked,
    work_usd,
)
from engine.serving import (
    MISS_TIE,
    TTFT_REACH_NOTE,
    below_floor,
    cache_share_within,
    prompt_within,
    user_floor,
)
from engine.spot import SPOT_SERVING_PREFIX, spot_overhead, spot_training_note
from engine.tco import (
    billed_service_hours_per_month,
    managed_split,
    monthly_gpu_hours,
    offer_usd_per_gpu_hour,
    scheduled_service,
    storage_footprint,
    tco_options,
    usd_per_gpu_hour,
    workflows_for,
)
from engine.throughput import cloud_cost_per_1m_tokens, link_kind, prefill_seconds_for, prefill_tokens
from engine.units import HOURS_PER_MONTH

SHORTLIST_CHEAPEST = 12  # options built in full and returned, cheapest first
SHORTLIST_FASTEST = 3
GPU_TYPE_SHORTLIST_FACTOR = 3.0  # the best plan of each GPU type is listed when within 3x of the cheapest
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
    # each variant searched, with its search memo (engine.serving.choose: what no offer changes): a later search
    # of an equal workload in the same answer (`bf16_reference`) reads it instead of sizing every group again
    memos: list[tuple[Workload, dict[tuple[object, ...], object]]] = field(default_factory=list)


@dataclass
class FitOnly:
    """A configuration that fits but whose monthly cost is unknown (no token count)."""

    name: str
    usd_per_hour: float
    plan: ClusterPlan
    memory: MemoryEstimate
    throughput: ThroughputEstimate
    offer: OfferRecord | None
    workload: Workload | None = None  # the variant that fits (LoRA or QLoRA when the method was open)
    usd_per_token: float = math.inf  # the ranking key: rent per token trained, so a slow cheap GPU does not win


def data_source(w: Workload, data: CatalogData) -> ProviderRecord | None:
    """The provider whose egress table applies to the data's location ("aws" -> AWS)."""
    if w.data_location is None:
        return None
    direct = data.provider(w.data_location)
    if direct is not None:
        return direct
    return next((p for p in data.providers if p.cloud == w.data_location and p.kind == "hyperscaler"), None)


def compares_methods(w: Workload, given: Workload) -> bool:
    """Fine-tuning with no method named: LoRA and QLoRA are both planned and ranked together, so the
    cheaper one that fits is recommended (the method question is still asked)."""
    return given.mode is None and given.precision is None and w.mode == "lora"


def compares_precisions(w: Workload, given: Workload) -> bool:
    """Serving a 16-bit model with no precision named: BF16 and FP8 (W8A8) weights are both planned and
    ranked together, FP8 on GPUs with FP8 tensor cores only. FP8 is how 70B-class models are usually
    served on Hopper, Ada, Blackwell and MI300 (vLLM: half the weight memory, up to 1.6x throughput,
    minimal accuracy loss), and it often halves the GPUs; the user can still say 'bf16'."""
    return (w.mode or "inference") == "inference" and given.precision is None and w.precision == "bf16"


# Labels of variants ranked together: the cheaper that fits (and meets the targets) is recommended
RANKED_TOGETHER = {"LoRA", "QLoRA", "BF16", "FP8"}


def variants(w: Workload, given: Workload) -> list[tuple[Workload, str]]:
    """The asked-for variant first, then cheaper-memory variants the user left open.

    Serving without a fixed precision: int8 then int4 weights, evaluated only when the asked-for
    variant fits nowhere. Fine-tuning without a method: LoRA and QLoRA, both always evaluated (see
    `compares_methods`). A fixed choice is never overridden.
    """
    mode = w.mode or "inference"
    if compares_methods(w, given):
        qlora = w.model_copy(
            update={"mode": "qlora", "precision": "nf4", "optimizer": "paged_adamw_8bit", "lora_rank": w.lora_rank or 16, "zero_stage": None}
        )
        return [(w, "LoRA"), (qlora, "QLoRA")]
    out: list[tuple[Workload, str]] = [(w, "")]
    if compares_precisions(w, given):
        out = [(w, "BF16"), (w.model_copy(update={"precision": "fp8"}), "FP8")]
    if mode == "inference" and given.precision is None:
        for precision in ("int8", "int4"):
            if precision != w.precision and not (precision == "int8" and w.precision == "int4"):
                out.append((w.model_copy(update={"precision": precision}), f"{precision} weights"))
    elif mode == "full" and given.mode is None and given.precision is None:
        qlora = w.model_copy(
            update={"mode": "qlora", "precision": "nf4", "optimizer": "paged_adamw_8bit", "lora_rank": w.lora_rank or 16, "zero_stage": None}
        )
        out.append((qlora, "QLoRA (NF4 base)"))
    return out

NOMINAL_RUN_TOKENS = 100e6  # ranks the fit-only answer (no token count yet): a typical fine-tuning run
SUSPECT_SPOT_FRACTION = 0.20  # a spot price below a fifth of on-demand is more likely a data error than a deal
STACK_RISK_PREMIUM = 0.15  # AMD for a CUDA-first training stack not asked for: ranked as if 15% dearer


IDLE_FIXED_NOTE = "the GPU count you fixed: "  # a training GPU count the user fixed, on an offer that rents bigger nodes
FALLBACK_NOTE = "as asked it fits on no offered configuration; "  # then the variant that does ("int4 weights does")
OWNED_PREFIX = "your own"
SERVER_POWER_FACTOR = 1.8  # a GPU server draws ~1.8x its GPUs' TDP (NVIDIA DGX H100: 10.2 kW for 8 x 700 W)
PUE = 1.3  # cooling and power distribution in a typical colocation site
USD_PER_KWH = 0.12


def owns_gpus(w: Workload) -> bool:
    """"We have 16 A100s on prem": the user's own GPUs, not a rental. Costed at their power only; naming a
    rate ('at $1.50/GPU-hour') or a provider prices them as given instead."""
    return bool(w.data_location == "onprem" and w.gpu and (w.gpu_count or w.nodes)
                and w.hourly_rate is None and w.provider is None)


def rented_nowhere(given: Workload, data: CatalogData) -> bool:
    """A GPU named that no provider in the catalog rents (an H20, an RTX 3090), with no price, provider or machine
    given: it can only be the user's own, so it is planned as their own hardware, costed at its power. Planned
    from the memory alone it kept no speed floor (GLM-4.6 on 5 H20 at 6.1 tokens/s per user, with a tick)."""
    return bool(given.gpu and given.hourly_rate is None and given.provider is None and given.instance_type is None
                and data.gpu(given.gpu) is not None and not any(o.gpu == given.gpu for o in data.offers))


def unpriced_rental(given: Workload, data: CatalogData) -> bool:
    """A GPU no provider in the catalog rents, and nothing saying it is the user's own ("serve R1 on MI355X", "we'd
    rent them from a neocloud"): the plan is sized (costed at power inside, to rank), but its cost is a question, and
    power alone is never set against a rental as if it were the price (Gaudi 3 "cheaper than H100: $369 vs $5,825")."""
    return rented_nowhere(given, data) and given.data_location != "onprem"


BASEBOARD_GPUS = 8  # OAM (MI300X/MI325X/MI355X, Gaudi 3 HLS) and HGX/SXM parts are sold on 8-GPU baseboards


def baseboard(gpu: GpuRecord) -> bool:
    """A GPU sold only on an 8-GPU baseboard (OAM, SXM/HGX): bought, or quoted by a neocloud, in whole 8-GPU nodes."""
    form = (gpu.form_factor or "").upper()
    return any(k in form for k in ("OAM", "SXM", "HGX"))


def power_usd_per_gpu_hour(gpu: GpuRecord) -> float:
    """What an owned GPU costs per busy hour in electricity: its server share and cooling included."""
    return (gpu.tdp_w or 0.0) * SERVER_POWER_FACTOR * PUE / 1000 * USD_PER_KWH


def suspect_spot(offer: OfferRecord | None) -> bool:
    return bool(offer is not None and offer.spot_usd_per_hour and offer.on_demand_usd_per_hour
                and offer.spot_usd_per_hour < SUSPECT_SPOT_FRACTION * offer.on_demand_usd_per_hour)


def _gpu_hours_per_run(w: Workload, run_gpu_hours: float | None, billed: int,
                       running: int | None = None, nodes: int = 1) -> tuple[float, float]:
    """(GPU-hours billed per run, wall-clock hours per run).

    Training: the work is fixed GPU-hours; extra GPUs in a whole node run data-parallel, so the
    bill stays the same and the wall clock shrinks. A GPU count the user fixed (`running`) is kept:
    the rest of a whole node is billed and idle, so the run takes as long as on that count and costs
    more. On spot, the reclaims of its `nodes` nodes add their share (engine.spot: it grows with the nodes).
    Serving: an always-on endpoint (730 h/month), counted as one "run" per month.
    """
    if (w.mode or "inference") in TRAINING_MODES:
        gpu_hours = run_gpu_hours if run_gpu_hours is not None else math.nan
        gpu_hours *= spot_factor(w, nodes)
        wall = gpu_hours / max(1, min(running or billed, billed)) + setup_hours(w)
        return wall * max(1, billed), wall
    # a service kept to some hours of the week is billed for those on hourly capacity (engine.tco), so ranking and
    # budgets read the bill the answer prints
    return billed_service_hours_per_month(w) * billed, HOURS_PER_MONTH


def _kept(w: Workload, gpus: int) -> int | None:
    """The GPUs a training run keeps to on a bigger rented node: the count the user fixed (the rest is billed and
    idles), else None (the plan runs data-parallel on the whole node)."""
    return gpus if (w.mode or "inference") in TRAINING_MODES and w.gpu_count else None


def _name(provider: ProviderRecord | None, offer: OfferRecord | None, gpu: GpuRecord, gpus: int, pricing: str, label: str,
          owned: bool = False) -> str:
    if owned:
        return f"{OWNED_PREFIX} {gpus}x {gpu.name} (power only{', ' + label if label else ''})"
    who = provider.name if provider is not None else (offer.provider if offer is not None else "your quote")
    shape = f"{gpus}x {gpu.name}"
    if offer is not None and offer.gpus_per_node < gpus:  # several rented instances (single-GPU ones too): say so
        shape += f" ({gpus // offer.gpus_per_node} nodes of {offer.gpus_per_node})"
    price = PRICING_LABEL.get(pricing, pricing)
    if pricing == "reserved" and offer is not None and offer.reserved_usd_per_hour is None:
        price = "reserved, estimated at on-demand -30%"  # no published commitment price: say so where it is read
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
    if w.mode == "qlora":  # bitsandbytes' 4-bit kernels are CUDA-first: AMD only when asked for by name
        gpus = [g for g in gpus if g.vendor.upper() != "AMD"]
    if w.gpu_memory_gb:
        gpus = [g for g in gpus if abs(g.memory_gb - w.gpu_memory_gb) <= 0.05 * w.gpu_memory_gb]
    return gpus


NO_INTEGER_KERNELS_NOTE = "no AWQ/GPTQ 4-bit or W8A8 8-bit kernels on "
INTEGER_WEIGHTS = ("int4", "int8")  # served through AWQ/GPTQ (4-bit) or W8A8/GPTQ (8-bit) kernels


def placed(offer: OfferRecord, w: Workload, marketplaces: frozenset[str] | set[str]) -> bool:
    """Whether an offer may hold this workload's data: in a region said ("in the EU", "data can't leave germany"),
    and, under a residency constraint, not on a marketplace host (an individual's machine, no data processing
    agreement). True when neither was said."""
    if w.regions and not any(offer.in_region(r) for r in w.regions):
        return False
    return not (w.data_residency and offer.provider in marketplaces)


def _offers_for(w: Workload, gpu: GpuRecord, by_gpu: dict[str, list[OfferRecord]],
                marketplaces: frozenset[str] | set[str] = frozenset()) -> list[OfferRecord]:
    offers = by_gpu.get(gpu.id, [])
    if w.provider is not None:
        offers = [o for o in offers if o.provider == w.provider]
    if w.regions or w.data_residency:  # where the data may be: the offers elsewhere are not options
        offers = [o for o in offers if placed(o, w, marketplaces)]
    if w.instance_type:  # the machine the user named, in any region it is listed in (a family or series: its sizes)
        named = [o for o in offers if instance_matches(o.instance_type, w.instance_type)]
        offers = named or offers
    return offers


def evaluate(w: Workload, arch: Architecture, data: CatalogData, given: Workload | None = None, *,
             ranking_only: bool = False) -> Ranked:
    """Enumerate, plan, cost and rank. `w` is the effective workload, `given` what the user said.
    `ranking_only`: the ranked options alone, for a caller that reads no recommendation or note of this search
    (the full fine-tune priced beside an adapter plan): the recommendation is left empty and the notes unfinished."""
    given = given or w
    pricing = w.pricing or "on_demand"
    source = data_source(w, data)
    providers = {p.id: p for p in data.providers}
    marketplaces = {p.id for p in data.providers if p.kind == "marketplace"}
    by_gpu: dict[str, list[OfferRecord]] = {}
    for record in data.offers:
        by_gpu.setdefault(record.gpu, []).append(record)
    trainable = lora_trainable_params(arch, w.lora_rank, w.lora_targets) if w.mode in ("lora", "qlora") else arch.total_params
    candidates: dict[str, _Candidate] = {}
    notes: list[str] = []
    largest: tuple[str, int, float] | None = None
    largest_gb = 0.0
    tried: list[PlannedShape] = []
    egress_cache: dict[str, dict[str, Any]] = {}
    fit_only: FitOnly | None = None
    both_methods = compares_methods(w, given)
    precisions = compares_precisions(w, given)
    owned = owns_gpus(given) or rented_nowhere(given, data)
    training = (w.mode or "inference") in TRAINING_MODES
    guessed = training and given.dataset_tokens is None and given.dataset_gb is not None and bool(w.dataset_tokens)
    suspect_skipped: set[str] = set()
    found_by_label: dict[str, int] = {}
    risky_stack = training and given.gpu is None
    no_integer_kernels: set[str] = set()
    memos: list[tuple[Workload, dict[tuple[object, ...], object]]] = []
    spot, reserved, is_moe = pricing == "spot", pricing == "reserved", arch.is_moe

    def risky(gpu: GpuRecord, provider: ProviderRecord | None) -> bool:
        """Options an engineer would not take at face value: AMD for a CUDA-first training stack; for an
        always-on service, consumer cards (GeForce's licence excludes datacenter deployment; no ECC) and
        marketplace hosts (individual machines, no SLA). Naming the GPU or provider lifts it."""
        if training:
            return risky_stack and gpu.vendor.upper() == "AMD"
        return (given.gpu is None and gpu.tier == "consumer") or (
            given.provider is None and provider is not None and provider.kind == "marketplace")

    named = data.gpu(given.gpu) if given.gpu else None
    released = data.model(w.model) if w.model else None
    mxfp4 = bool(released is not None and released.native_precision == "mxfp4" and w.precision == "int4")
    if not training and w.precision in INTEGER_WEIGHTS and named is not None and not integer_kernels(named, mxfp4):
        # a GPU the user named that vLLM cannot serve these weights on: planned with weights that run there
        runs = "fp8" if named.fp8_dense_tflops else "bf16"
        notes.append(f"{NO_INTEGER_KERNELS_NOTE}{named.name} (vLLM's supported-hardware table): planned with {runs.upper()} "
                     f"weights instead ({'the FP8 release, or --quantization fp8 on the BF16 weights' if runs == 'fp8' else 'the BF16 release'}); "
                     "the 4- or 8-bit checkpoint runs on NVIDIA GPUs")
        w = w.model_copy(update={"precision": runs})
    for variant, label in variants(w, given):
        storage = storage_footprint(variant, arch.total_params, trainable)
        found = 0
        memo: dict[tuple[object, ...], object] = {}  # serving search: what no offer changes, per variant
        owned_gpu = data.gpu(variant.gpu) if owned and variant.gpu else None
        if owned_gpu is not None:  # their own GPUs, not a rental: costed at their power, as a quote would be
            variant = variant.model_copy(update={"hourly_rate": round(power_usd_per_gpu_hour(owned_gpu), 4)})
        memos.append((variant, memo))
        variant_training = (variant.mode or "inference") in TRAINING_MODES
        quote_rate = variant.hourly_rate
        # storage and egress USD per provider: `_on_gpu`'s copies (FlashAttention off) change neither
        fixed_by_provider: dict[str, float] = {}
        for gpu in _gpus_for(variant, data):
            if variant.precision == "fp8" and not gpu.fp8_dense_tflops and (
                    (label == "FP8" and not fp8_weight_only(gpu, arch)) or (arch.is_moe and not training and given.gpu is None)):
                continue  # no FP8 tensor cores: weight-only at best, and FP8 MoE kernels need SM 8.9+ (vLLM)
            if label == "BF16" and gpu.fp8_dense_tflops:
                continue  # FP8 on this GPU needs no more GPUs and runs faster: its BF16 plan can only lose
            if not training and variant.precision in INTEGER_WEIGHTS and not integer_kernels(gpu, mxfp4):
                no_integer_kernels.add(gpu.name)
                continue  # vLLM's AWQ/GPTQ/W8A8 kernels are CUDA-only (its supported-hardware table)
            # FP8 served on a GPU without FP8 tensor cores runs weight-only (W8A16): the row says so, as "(FP8)" would
            # read as FP8 compute (an 8x A100 runner-up under "serve 405B in fp8")
            row_label = ("FP8 weight-only" if not training and variant.precision == "fp8" and not gpu.fp8_dense_tflops
                         else sixteen_bit(gpu) if label == "BF16" else label)
            plans: dict[tuple[Any, ...] | None, tuple[tuple[PlannedShape, bool, int, _Hours | None], ...]] = {}
            tp_by_link: dict[tuple[str, int], tuple[int, str]] = {}
            offers: list[OfferRecord | None] = list(_offers_for(variant, gpu, by_gpu, marketplaces))
            if owned:
                offers = [None]  # planned on their GPUs alone: no catalog offer is theirs
            elif variant.hourly_rate is not None:
                offers.append(None)  # the user's quote, as its own option
            # per (node shape, provider, managed premium): everything but the offer's price
            context: dict[tuple[Any, ...], tuple[float, float, float, float, int, str] | None] = {}
            standing: dict[tuple[Any, ...], tuple[int, bool, float, bool]] = {}
            for offer in offers:
                shape: tuple[Any, ...] | None
                if offer is None:
                    shape = None
                else:
                    link_key = (offer.intra_node_link, offer.gpus_per_node)
                    tp_kind = tp_by_link.get(link_key)
                    if tp_kind is None:  # the largest tensor-parallel group and the link's kind, per link
                        tp_kind = tp_by_link[link_key] = (max_tensor_parallel(gpu, offer, offer.gpus_per_node),
                                                          link_kind(offer.intra_node_link or gpu.scaleup_link))
                    # what the plan depends on; the intra-node link's wording is relabelled per offer when kept
                    max_tp, kind = tp_kind
                    if variant_training:
                        shape = (offer.gpus_per_node, offer.inter_node_fabric, offer.max_nodes, max_tp, kind)
                    else:  # serving plans depend only on the node size, whether nodes link, and the link's kind
                        shape = (offer.gpus_per_node, offer.inter_node_fabric is not None, kind,
                                 offer_fabric_gb_s(offer) if is_moe else None)  # EP's all-to-all
                shaped = plans.get(shape)
                if shaped is None:
                    on_gpu = _on_gpu(variant, gpu, given)
                    planned = plan_shape(on_gpu, arch, gpu, offer, scale_out=not guessed,
                                         memo=memo if on_gpu is variant else None)
                    # a cheaper serving plan below the floor, or a training plan with room beside one at the edge of memory
                    slower = planned.slower() or planned.roomier()
                    alternatives = (planned, slower) if slower is not None else (planned,)
                    # what every offer of this shape shares, once per shape: whether the plan is sold on it (its node
                    # size and whether nodes link are the shape's), the GPUs billed, and the hours a month they run
                    shaped = plans[shape] = tuple(_shape_terms(p, offer, gpu) for p in alternatives)
                    tried.append(planned)  # for the largest plan tried, read only if nothing fits anywhere
                # read once per offer, when a plan of its shape is viable: its provider, its rate, and whether it is
                # sold that way at all (each `continue` below skips every alternative alike)
                provider: ProviderRecord | None = None
                rate: float | None = None
                priced = False
                for alternative, (planned, viable, billed, hours) in enumerate(shaped):
                    # the plan, then a cheaper one below the floor
                    if not viable:
                        continue  # does not fit; or spans nodes an offer without a fabric does not link; or clusters consumer cards
                    vw = planned.w
                    if spot and suspect_spot(offer):
                        suspect_skipped.add(offer.id if offer is not None else "")
                        continue
                    if not priced:
                        priced = True
                        provider = providers.get(offer.provider) if offer is not None else providers.get(variant.provider or "")
                        rate = quote_rate if offer is None else offer_usd_per_gpu_hour(offer, pricing)
                        if rate is not None and reserved and _no_commitment_sold(
                                offer, provider.kind if provider is not None else None, pricing):
                            rate = None
                    if alternative and not training and risky(gpu, provider):
                        continue  # a slower plan on hardware not recommended for a service is not worth a row
                    if rate is None:
                        continue
                    if offer is not None and _marketplace_fleet(offer, provider, billed, given):
                        continue
                    ckey = (shape, alternative, provider.id if provider is not None else "",
                            offer.managed if offer is not None else False,
                            offer.managed_premium_fraction if offer is not None else None)
                    ctx = context.get(ckey, _UNSET)
                    if ctx is _UNSET:
                        ctx = context[ckey] = _context(vw, offer, provider, billed, hours, storage, egress_cache, source,
                                                       gpu, pricing, row_label, owned, fixed_by_provider)
                        # what no offer's price changes, once per context: targets missed and lateness, the premium,
                        # the runs a budget per run divides by, and whether there is a budget at all
                        standing[ckey] = ((hours[4], risky(gpu, provider), runs_asked(vw),
                                           vw.budget_usd_per_month is not None or vw.budget_usd_per_run is not None)
                                          if ctx and hours is not None else (0, False, 1.0, False))
                    if ctx is None:
                        hourly = rate * billed
                        # rank for a nominal run until the data size is known, start-up included, so a whole 8-GPU
                        # node does not win a job one GPU does in an afternoon
                        tokens_s = planned.tokens_per_s
                        run_hours = NOMINAL_RUN_TOKENS / tokens_s / 3600 + DEFAULT_SETUP_HOURS if tokens_s > 0 else math.inf
                        per_token = hourly * run_hours / NOMINAL_RUN_TOKENS
                        risk = 1 + STACK_RISK_PREMIUM * risky(gpu, provider)
                        if fit_only is None or (per_token * risk, hourly) < (fit_only.usd_per_token, fit_only.usd_per_hour):
                            name = _name(provider, offer, gpu, billed, pricing, row_label, owned)
                            plan, memory, throughput = planned.built()
                            fit_only = FitOnly(name, hourly, relabel(plan, gpu, offer) if offer is not None else plan, memory,
                                               throughput, offer, vw, per_token * risk)
                        continue
                    per_rate, work_rate, fixed_usd, wall_hours, _billed, name = ctx
                    total = rate * per_rate + fixed_usd
                    work = rate * work_rate + fixed_usd
                    best = candidates.get(name)
                    if best is None or work < best.work or (work == best.work and _abroad(offer) < _abroad(best.offer)):
                        missed, risk, asked_runs, budgeted = standing[ckey]
                        misses = missed + (over_budget(vw, total, work / asked_runs) if budgeted else 0)
                        candidates[name] = _Candidate(total, wall_hours, name, gpu, offer, provider, vw, planned, storage,
                                                      egress_cache[ckey[2]], misses, risk, work)
                        found += 1
        if precisions and label in RANKED_TOGETHER:
            found_by_label[label] = found
            if label == "FP8" and (found or found_by_label.get("BF16")):
                break  # BF16 and FP8 are ranked together; int8/int4 only when neither fits anywhere
            continue
        if both_methods:
            found_by_label[label] = found
            if label == "QLoRA" and found and not found_by_label.get("LoRA"):
                notes.append("LoRA on a 16-bit base fits on no offered configuration; QLoRA (4-bit base) does")
            continue  # LoRA and QLoRA are ranked together
        if found and not label:
            break  # the asked-for variant fits somewhere: fallbacks are not needed
        if label and found:
            notes.append(f"{FALLBACK_NOTE}{label} does")
    if no_integer_kernels and given.precision in INTEGER_WEIGHTS:
        notes.append(f"{' and '.join(sorted(no_integer_kernels))} left out: vLLM has no kernels for AWQ/GPTQ 4-bit or W8A8 "
                     "8-bit weights on them (its supported-hardware table); their FP8 release would run there")
    if suspect_skipped:
        notes.append(f"{len(suspect_skipped)} spot price(s) below a fifth of on-demand were left out as suspect (more likely a "
                     "stale or mistyped catalog row than a real price)")
    if not training and any(c.risk for c in candidates.values()):
        notes.append("consumer GPUs and marketplace hosts are not recommended for an always-on service unless named "
                     "(listed, and named as the cheapest when they are): GeForce's driver licence excludes datacenter "
                     "deployment and has no ECC, and marketplace machines come without an SLA; name the GPU or provider "
                     "to rank it on price alone")
    if risky_stack and any(c.risk for c in candidates.values()):
        notes.append("AMD options are ranked as if 15% dearer for training: FlashAttention, bitsandbytes and custom CUDA "
                     "kernels in most fine-tuning stacks need porting or ROCm builds; name an AMD GPU to rank it on price alone")
    if pricing == "spot" and training:
        notes.append(spot_training_note(1, 0.0))  # restated for the pick's nodes once it is known
    elif pricing == "spot" and w.batch_items:
        notes.append(JOB_SPOT_NOTE + "a reclaimed instance's unfinished prompts are sent again to the rest; the time the "
                     "fleet finishes ahead of the deadline absorbs a few reclaims, which the figures do not count")
    elif pricing == "spot":
        notes.append(f"{SPOT_SERVING_PREFIX}: instances can be reclaimed at a minute's notice, so keep on-demand capacity behind "
                     "the load balancer; the figures are for the spot fleet alone")

    if not candidates and fit_only is None:
        for planned in tried:  # a serving shape that fits nowhere is built only now, for its breakdown
            # (a plan on no offer, for GPUs the user owns or that nobody rents, names its GPU in its plan)
            tried_gpu = planned.gpu or (data.gpu(planned.plan.gpu) if planned.plan is not None else None)
            if tried_gpu is None:
                continue
            per_gpu_gb = planned.built()[1].per_gpu_gb if planned.nowhere else planned.per_gpu_gb
            if per_gpu_gb is not None and planned.gpus * tried_gpu.memory_gb > largest_gb:
                largest, largest_gb = (tried_gpu.id, planned.gpus, per_gpu_gb), planned.gpus * tried_gpu.memory_gb
    shortlisted = _shortlist(list(candidates.values()))
    if guessed and w.dataset_tokens:
        # the runs' whole cost (a job longer than a month is not one monthly bill), on an option the answer lists;
        # named, since it need not be the pick (a cheaper, slower one is ranked after a faster one)
        tokens = float(w.dataset_tokens) * float(w.epochs or 1) * runs_asked(w)  # `work` counts every run asked
        cheapest_c = min(shortlisted, key=lambda c: (c.work, c.name), default=None)
        if cheapest_c is not None:
            notes.append(f"cost per 1B training tokens on the cheapest option ({cheapest_c.name}): "
                         f"${cheapest_c.work * 1e9 / tokens:,.0f} (scale it to your real token count)")
    flags = {c.name: (c.misses, c.risk) for c in shortlisted}
    rows: dict[tuple[object, ...], TcoRow] = {}  # storage and egress rows the options share (`tco_options`)
    options = [_build(c, given, rows) for c in shortlisted]
    ranked = _rank(options, w, flags)
    if ranking_only:
        return Ranked(options=ranked, recommendation=Recommendation(primary=None), notes=notes, largest=largest,
                      fit_only=None if ranked else fit_only, memos=memos)
    rec = recommend(ranked, w, frozenset(g.id for g in data.gpus if g.vendor.upper() == "AMD"),
                    frozenset(name for name, (_misses, risk) in flags.items() if risk))
    reach = ttft_reach_note(ranked, w, arch, data)
    if reach:
        notes.append(reach)
    edge = edge_note(ranked, w)
    if edge:
        notes.append(edge)
    budget = budget_note(ranked, w, user_floor(w))
    if budget:
        notes.insert(0, budget)
    if pricing == "spot" and training:
        picked = recommended(ranked, rec)
        baseline = _on_demand_baseline(picked, data)
        said = spot_training_note(picked.cluster.nodes, picked.hours_per_run or 0.0) if picked is not None else None
        notes = [(said or n) + (f"; {baseline}" if baseline else "") if n.startswith("spot: checkpoint") else n
                 for n in notes]
    job = job_note(ranked, rec, w)
    if job:
        notes.insert(0, job)
        if pricing != "spot":
            notes.append(JOB_SPOT_HINT + "an offline job restarts from the prompts it has not finished, so interruptible "
                         "(spot) instances suit it: say “spot” to price it on them")
    if not ranked and fit_only is not None:  # it fits; only the cost waits for a token count
        rec = rec.model_copy(update={"why": (
            f"fits; no token count yet, so no run cost to rank by: the cheapest per token trained is {fit_only.name} at "
            f"${fit_only.usd_per_hour:,.2f}/hour; give the tokens per run to cost and rank the options",)})
    return Ranked(options=ranked, recommendation=rec, notes=notes, largest=largest, fit_only=None if ranked else fit_only,
                  memos=memos)


def ttft_reach_note(ranked: list[Option], w: Workload, arch: Architecture, data: CatalogData) -> str | None:
    """When the pick misses a time to first token because its prompt's prefill alone is over the target (no replica
    count helps: 130,816-token prompts of a 70B model take 5.7 s on 8 B200s), what would meet it on the pick's GPUs:
    prompts under a length, or a share of each prompt served from the prefix cache. None otherwise (a queue alone is
    met with more replicas, which the search adds)."""
    target = w.target_ttft_s
    if not ranked or not target or (w.mode or "inference") in TRAINING_MODES:
        return None
    primary = ranked[0]
    missed = next((t for t in primary.throughput.targets if t.name == "target_ttft_s" and not t.met), None)
    prefill = primary.throughput.prefill_seconds
    plan = primary.cluster
    gpu = data.gpu(primary.gpu)
    tp = plan.tensor_parallel
    if (missed is None or prefill is None or prefill.value <= target or gpu is None
            or (plan.gpus_per_replica or 0) > tp * plan.pipeline_parallel):  # expert parallel: prefilled otherwise
        return None
    offer = data.offer(primary.offer_id)
    kind = link_kind((offer.intra_node_link if offer is not None else None) or gpu.scaleup_link) if tp > 1 else ""
    on = w.model_copy(update={"precision": primary.precision})
    prompt = prefill_tokens(on)
    # the widest tensor-parallel group the pick's nodes hold prefills fastest (8 GPUs fixed and planned as 8 replicas of
    # one for their queue: as one TP8 group each prompt takes an eighth as long), and is where the prompt length is said
    wide = max((t for t in (1, 2, 4, 8) if t <= min(plan.gpus_per_node, plan.gpus) and arch.heads % t == 0), default=tp)
    if wide > tp:
        tp, kind = wide, link_kind((offer.intra_node_link if offer is not None else None) or gpu.scaleup_link)
    alone = prefill_seconds_for(on, arch, gpu, tp, prompt, None, 0, None, kind)
    longest = prompt_within(on, arch, gpu, tp, kind, float(target), prompt)
    share = cache_share_within(on, arch, gpu, tp, kind, float(target), prompt)
    group = f"{tp} {gpu.name} (TP {tp})" if tp > 1 else f"one {gpu.name}"
    said = (f"{TTFT_REACH_NOTE}no option prefills a {prompt:,}-token prompt in {target:g} s; on {group} it "
            f"takes {alone:.1f} s before any queue. A {target:g} s first token needs")
    ways = []
    if longest >= 1000:
        ways.append(f"prompts under about {longest // 1000 * 1000:,} tokens there")
    if share is not None:
        ways.append(f"{share:.0%} of each prompt served from the prefix cache (passages or instructions reused across "
                    f"turns: say “{share:.0%} prefix cache hits”)")
    return f"{said} {', or '.join(ways)}" if ways else None


def _on_demand_baseline(chosen: Option | None, data: CatalogData) -> str:
    """A spot training pick against the same offer on demand: what a run's compute would cost without preemptions
    (the reclaims' allowance for its nodes taken out) and what spot saves, so the spot discount is weighed, not
    assumed."""
    offer = data.offer(chosen.offer_id) if chosen is not None else None
    row = next((r for t in (chosen.tco if chosen is not None else ()) for r in t.rows if r.item == "compute"), None)
    if offer is None or not offer.on_demand_usd_per_hour or row is None:
        return ""
    gpu_hours, rate = row.inputs.get("gpu_hours_per_run"), row.inputs.get("usd_per_gpu_hour")
    if not isinstance(gpu_hours, int | float) or not isinstance(rate, int | float) or gpu_hours <= 0 or rate <= 0:
        return ""
    spot = float(gpu_hours) * float(rate)
    hours = float(gpu_hours) / (1 + spot_overhead(chosen.cluster.nodes if chosen is not None else 1))
    on_demand = hours * offer.on_demand_usd_per_hour / max(1, offer.gpus_per_node)
    if on_demand <= spot:
        return ""
    # what the plan the answer would pick on demand costs is said beside it (engine.advise, SPOT_SAVES_SAID)
    return f"on demand the same plan's compute is ${on_demand:,.0f} per run: spot saves {1 - spot / on_demand:.0%} after the restarts"


def over_budget(w: Workload, monthly_usd: float, per_run_usd: float | None = None) -> int:
    """1 when a monthly bill, or a training run's cost, is over the user's budget: ranked like any missed target."""
    monthly = w.budget_usd_per_month is not None and monthly_usd > w.budget_usd_per_month * 1.0001
    per_run = (w.budget_usd_per_run is not None and per_run_usd is not None
               and (w.mode or "inference") in TRAINING_MODES and per_run_usd > w.budget_usd_per_run * 1.0001)
    return int(monthly or per_run)


def budget_check(w: Workload, monthly_usd: float, per_run_usd: float | None = None) -> TargetCheck | None:
    """The user's budget as a target: a monthly one against the monthly bill, a training run's against its cost."""
    if w.budget_usd_per_month is not None:
        return TargetCheck(name="budget_usd_per_month", wanted=float(w.budget_usd_per_month), got=round(monthly_usd, 2),
                           met=monthly_usd <= w.budget_usd_per_month * 1.0001)
    if w.budget_usd_per_run is not None and per_run_usd is not None and (w.mode or "inference") in TRAINING_MODES:
        return TargetCheck(name="budget_usd_per_run", wanted=float(w.budget_usd_per_run), got=round(per_run_usd, 2),
                           met=per_run_usd <= w.budget_usd_per_run * 1.0001)
    return None


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
    planned: PlannedShape  # built into result objects only when shortlisted
    storage: Figure
    egress: dict[str, Any]
    misses: int = 0  # targets missed (per-user speed, TTFT, request rate, deadline)
    risk: bool = False  # ranked with a premium: see `risky` in `evaluate`
    work: float = 0.0  # the runs asked for, however many months they take (ranking key; total is per month)


def _abroad(offer: OfferRecord | None) -> bool:
    """A row outside the US. One provider often lists a shape at one price in several regions; with no region
    asked, the tie goes to the US row (the catalog's prices are USD list prices, mostly of US regions), so
    an answer does not silently pick, say, a provider's India SKU."""
    region = (offer.region or "").lower() if offer is not None else ""
    return bool(region) and not region.startswith("us")


def _no_commitment_sold(offer: OfferRecord | None, provider_kind: str | None, pricing: str) -> bool:
    """Reserved pricing on a marketplace row with no published commitment price: a marketplace sells no
    commitments, so no reserved price is estimated for it (the row is left out)."""
    return (pricing == "reserved" and offer is not None and offer.reserved_usd_per_hour is None
            and provider_kind == "marketplace")


MARKETPLACE_MAX_HOSTS = CAPACITY_NODES  # more rented machines than this from a marketplace is not a fleet to run


def _marketplace_fleet(offer: OfferRecord | None, provider: ProviderRecord | None, billed: int, given: Workload) -> bool:
    """A plan on more than MARKETPLACE_MAX_HOSTS marketplace machines (156 single-GPU hosts for a 1,000 requests/s
    service): individual owners' machines with no SLA, no shared network and prices that move daily are not a
    fleet anyone runs, so it is not an option unless the marketplace was named."""
    return (offer is not None and provider is not None and provider.kind == "marketplace" and given.provider is None
            and billed > MARKETPLACE_MAX_HOSTS * max(1, offer.gpus_per_node))


_UNSET: Any = object()  # a context not worked out yet (None is a context: the run has no finite length)


def _rate(offer: OfferRecord | None, pricing: str, hourly_rate: float | None) -> float | None:
    """USD per GPU-hour; catalog offers ignore the user's quote (the quote is its own option)."""
    return hourly_rate if offer is None else offer_usd_per_gpu_hour(offer, pricing)


# (GPU-hours per run, wall hours per run, GPU-hours billed a month, GPU-hours of the runs asked, targets missed and
# lateness) of one planned shape: what `_priced` reads of it; None without a finite run length (no token count)
_Hours = tuple[float, float, float, float, int]


def _shape_terms(planned: PlannedShape, offer: OfferRecord | None, gpu: GpuRecord) -> tuple[PlannedShape, bool, int, _Hours | None]:
    """(the plan, whether it is an option on the offers of this node shape, GPUs billed, `_Hours`): what `evaluate`
    reads of a plan for every offer of its shape, worked out once. `offer` is the shape's first offer; the checks
    read only its node size and whether its nodes link, which every offer of the shape shares."""
    copy_gpus = planned.copy_gpus  # serving replicas need no fabric
    # an offer without an inter-node fabric is sold as single nodes only; consumer cards are never clustered across
    # nodes (no fabric, no NVLink, no support)
    viable = (planned.fits and not (offer is not None and copy_gpus > offer.gpus_per_node and offer.inter_node_fabric is None)
              and not (gpu.tier == "consumer" and copy_gpus > (offer.gpus_per_node if offer is not None else 8)))
    if not viable:
        return planned, False, 0, None
    w = planned.w
    billed = planned.billed(offer)
    gpu_hours, wall_hours = _gpu_hours_per_run(w, planned.gpu_hours, billed, _kept(w, planned.gpus),
                                               _nodes_billed(billed, offer))
    if not math.isfinite(gpu_hours):
        return planned, True, billed, None
    runs = float(w.runs_per_month or 1.0)
    return planned, True, billed, (gpu_hours, wall_hours, monthly_gpu_hours(gpu_hours, runs, billed, wall_hours),
                                   gpu_hours * runs, planned.misses() + lateness(w, wall_hours))


def _nodes_billed(billed: int, offer: OfferRecord | None) -> int:
    """The rented nodes a plan's billed GPUs make: what a spot run's reclaims scale with (one, on the user's quote)."""
    return max(1, math.ceil(billed / offer.gpus_per_node)) if offer is not None and offer.gpus_per_node > 0 else 1


def _context(w: Workload, offer: OfferRecord | None, provider: ProviderRecord | None, billed: int, hours: _Hours | None,
             storage: Figure, egress_cache: dict[str, dict[str, Any]], source: ProviderRecord | None, gpu: GpuRecord,
             pricing: str, label: str, owned: bool = False,
             fixed_cache: dict[str, float] | None = None) -> tuple[float, float, float, float, int, str] | None:
    """(USD per unit of $/GPU-hr, fixed USD, wall hours, billed GPUs, name) shared by offers of one shape
    and provider: the same arithmetic as engine.tco, without building models. `hours`: the shape's (`_shape_terms`),
    None when the run has no finite length (no token count yet).
    `fixed_cache`: the storage and egress USD per provider, for one workload variant and its `storage` (they
    read neither the GPU nor the node shape)."""
    if hours is None:
        return None
    _gpu_hours, wall_hours, monthly, run_hours, _late = hours
    key = provider.id if provider is not None else ""
    if key not in egress_cache:
        egress_cache[key] = egress_for(w, source, provider)
    egress = egress_cache[key]
    base_factor, fraction, _ = managed_split(w, offer, provider)
    fixed_usd = fixed_cache.get(key) if fixed_cache is not None else None
    if fixed_usd is None:
        if w.storage_usd_per_month is not None:
            storage_usd = w.storage_usd_per_month
        else:
            storage_usd = storage.value * (provider.storage_usd_per_gb_month if provider is not None else 0.0)
        egress_usd = min(
            0.0 if f in ("same_cloud", "none") else (egress["uncached"].value if f == "uncached" else egress["cached"].value)
            for f in workflows_for(w, egress)
        )
        fixed_usd = storage_usd + egress_usd
        if fixed_cache is not None:
            fixed_cache[key] = fixed_usd
    per_rate = monthly * base_factor * (1 + fraction)
    work_rate = run_hours * base_factor * (1 + fraction)  # the runs asked for, however many months they take
    return per_rate, work_rate, fixed_usd, wall_hours, billed, _name(provider, offer, gpu, billed, pricing, label, owned)


def _shortlist(candidates: list[_Candidate]) -> list[_Candidate]:
    """The options worth building in full: cheapest, fastest, and the best of each provider, GPU
    type, same-cloud and managed offer, plus the user's quote. Keeps a 5,000-offer catalog fast."""
    by_cost = sorted(candidates, key=lambda c: (c.misses, c.work * (1 + STACK_RISK_PREMIUM * c.risk), c.wall_hours, c.name))
    keep: dict[str, _Candidate] = {c.name: c for c in by_cost[:SHORTLIST_CHEAPEST]}
    # a GPU type whose best plan costs several times the cheapest is not an option worth building
    # (a B200 for a 7B chat model); providers, same-cloud, managed and the quote are kept regardless
    cheapest = min((c.work for c in by_cost if not c.misses), default=math.inf)
    for c in sorted(candidates, key=lambda c: (c.wall_hours, c.total, c.name))[:SHORTLIST_FASTEST]:
        keep.setdefault(c.name, c)
    pick = next((c for c in by_cost if not c.misses), None)
    if pick is None:
        # nothing meets the targets: the closest in what was asked is ranked first (`_rank`), whatever its cost, so
        # the closest few are built too (80 B200s at 5.7 s against 5 s was not among the cheapest, all at 11-46 s)
        closest = sorted(candidates, key=lambda c: (c.misses, c.planned.off_target(), c.work, c.name))
        for c in closest[:SHORTLIST_CHEAPEST]:
            keep.setdefault(c.name, c)
    if pick is not None and (pick.w.mode or "inference") in TRAINING_MODES:
        # the fastest runs a team would take instead of the cheapest (engine.recommendation.runnable_instead): the
        # catalog's fastest above are often a scale-out of hundreds of nodes, which the answer no longer offers
        most = max(FASTEST_MIN_GPUS, FASTEST_GPU_FACTOR * pick.planned.gpus)
        near = [c for c in candidates if not c.misses and c.planned.gpus <= most and c.work <= FASTEST_COST_FACTOR * pick.work]
        for c in sorted(near, key=lambda c: (c.wall_hours, c.total, c.name))[:SHORTLIST_FASTEST]:
            keep.setdefault(c.name, c)
    seen: set[tuple[str, str]] = set()
    for c in by_cost:
        for key in (("provider", c.provider.id if c.provider else ""), ("gpu", c.gpu.id), ("quote", str(c.offer is None)),
                    ("same_cloud", str(bool(c.egress.get("same_cloud")))), ("managed", str(bool(c.offer and c.offer.managed)))):
            if key not in seen:
                seen.add(key)
                if key[0] != "gpu" or c.misses or c.work <= GPU_TYPE_SHORTLIST_FACTOR * cheapest:
                    keep.setdefault(c.name, c)
    return list(keep.values())


def run_cost_usd(tcos: Sequence[TcoOption], w: Workload) -> float:
    """A run's cost as the answer prints it ("$304 per run"; a job over a month: its whole cost), the cheapest
    workflow's; with no run length, the month's total over the runs asked."""
    runs = [float(cost) for cost in (t.job_usd or t.per_run_usd for t in tcos) if cost is not None]
    return min(runs) if runs else min(t.total_usd for t in tcos) / runs_asked(w)


def _build(c: _Candidate, given: Workload | None = None, rows: dict[tuple[object, ...], TcoRow] | None = None) -> Option:
    pricing = c.w.pricing or "on_demand"
    rate, rate_source = usd_per_gpu_hour(c.offer, pricing, c.w.hourly_rate if c.offer is None else None)
    if c.name.startswith(OWNED_PREFIX):
        rate_source = (f"your own GPUs at their power only: {c.gpu.tdp_w or 0:g} W TDP x {SERVER_POWER_FACTOR:g} for the "
                       f"server x PUE {PUE:g} x ${USD_PER_KWH:g}/kWh; no purchase, space or staff cost counted")
    plan, memory, throughput = c.planned.built()
    plan = relabel(plan, c.gpu, c.offer) if c.offer is not None else plan
    billed = c.planned.billed(c.offer)
    training = (c.w.mode or "inference") in TRAINING_MODES
    kept = _kept(c.w, plan.gpus)
    gpu_hours, _wall = _gpu_hours_per_run(c.w, throughput.gpu_hours.value if throughput.gpu_hours is not None else None, billed,
                                          kept, _nodes_billed(billed, c.offer))
    if billed > plan.gpus and c.offer is not None and kept and training:
        share = plan.gpus / billed
        faster = ("half as long, for about half the cost" if abs(share - 0.5) < 0.01
                  else f"{share:.0%} as long, for about {share:.0%} of the cost")
        plan = plan.model_copy(update={"notes": (*plan.notes, (
            f"{IDLE_FIXED_NOTE}{billed - plan.gpus} of the {billed} GPUs billed sit idle (the offer rents whole "
            f"{c.offer.gpus_per_node}-GPU nodes): on all {billed} the run would take about {faster}; "
            f"say “{billed} GPUs” to plan on them"))})
    if billed > plan.gpus and c.offer is not None:
        rate_source += (
            f"; the offer rents whole {c.offer.gpus_per_node}-GPU nodes: {billed} GPUs billed for the {plan.gpus} you fixed"
            if kept else
            f"; the offer rents whole {c.offer.gpus_per_node}-GPU nodes: the {plan.gpus}-GPU plan runs data-parallel "
            f"on all {billed} (same GPU-hours, shorter wall clock)"
            if training
            else f"; the offer rents whole {c.offer.gpus_per_node}-GPU nodes: {billed} GPUs billed for a {plan.gpus}-GPU replica"
        )
    tcos = tco_options(
        c.w, name=c.name, offer=c.offer, provider=c.provider, gpu_hours_per_run=gpu_hours,
        usd_per_gpu_hr=rate or 0.0, rate_source=rate_source, storage_gb=c.storage, egress=c.egress,
        billed_gpus=billed, wall_hours=c.wall_hours if training else None,
        tokens_per_run=float(c.w.dataset_tokens or 0) * float(c.w.epochs or 1) or None
        if training else None, shared=rows,
    )
    if not training and rate and throughput.decode_tokens_per_s is not None:
        # Serving: what a million generated tokens cost on this option's rent, at the stated load.
        load = float(c.w.utilization or 1.0)
        cost = cloud_cost_per_1m_tokens(rate, billed, throughput.decode_tokens_per_s.value, load)
        if load >= 1.0:
            when = "while it runs" if scheduled_service(c.w) else "around the clock"
            cost = cost.model_copy(update={"notes": (f"at full load {when}; at 30% average load it is 3.3x this",)})
        throughput = throughput.model_copy(update={"cost_per_1m_tokens_usd": cost})
    per_run = run_cost_usd(tcos, c.w)
    budget = budget_check(c.w, min(t.total_usd for t in tcos), per_run)
    if budget is not None:
        throughput = throughput.model_copy(update={"targets": (*throughput.targets, budget)})
    if given is not None and throughput.targets:
        # only the targets the user set are reported as met or missed (an assumed single user is not a target)
        # an offline job keeps its rate check: the fleet's capacity is how fast the job really runs (engine.recommendation)
        asked = tuple(t for t in throughput.targets if getattr(given, t.name, None) is not None
                      or (t.name == "requests_per_s" and given.batch_items))
        if asked != throughput.targets:
            throughput = throughput.model_copy(update={"targets": asked})
    return Option(
        name=c.name, offer_id=c.offer.id if c.offer is not None else None, gpu=c.gpu.id,
        mode=c.w.mode or "inference", precision=c.w.precision or "bf16", memory=memory,
        cluster=plan, throughput=throughput, tco=tcos,
        total_usd=min(t.total_usd for t in tcos), hours_per_run=c.wall_hours,
    )


NARROW_WEIGHTS = {"int8": 1, "int4": 2}  # a tie goes to the wider weights: fewer quality questions for the same money
TIE_FRACTION = 0.03  # costs within 3% are a tie: the plan with fewer nodes and GPUs is the better buy


def _rank(options: list[Option], w: Workload | None = None,
          flags: dict[str, tuple[int, bool]] | None = None) -> list[Option]:
    """Cost first, with judgement: options that miss a target (speed, TTFT, rate, deadline) after those
    that meet them; AMD for a CUDA-first training stack ranked as if 15% dearer; for an always-on
    service, consumer cards and marketplace hosts (no SLA, GeForce's licence) after the rest, still
    named as the cheapest when they are; among options within 3% of the cheapest left, fewer nodes and
    fewer GPUs first (simpler to run, same money), then the faster per user."""
    flags = flags or {}
    serving = w is not None and (w.mode or "inference") not in TRAINING_MODES

    # a training plan at the edge of memory (over COMFORT_FRACTION of usable per GPU) after the plans with room: it fits
    # on paper and OOMs on allocator fragmentation, NCCL buffers or a checkpoint's spike (8 B200s at 161.9 of 162 GB
    # for a 70B full fine-tune led, where 16 hold it at half that for about the same money)
    lates = {o.name: 2 * (flags.get(o.name, (0, False))[0] if flags
                          else int(w is not None and is_late(w, o.hours_per_run or 0.0)))
             + int(serving and flags.get(o.name, (0, False))[1]) + int(not serving and at_the_edge(o)) for o in options}
    scores = {o.name: work_usd(o, w) * (1 + STACK_RISK_PREMIUM * flags.get(o.name, (0, False))[1]) for o in options}

    def late(o: Option) -> int:
        return lates[o.name]

    def score(o: Option) -> float:
        return scores[o.name]

    # a service that misses the user's targets: the closest in what they asked (a TTFT of 5.7 s against 5 s before
    # 28 s for less money), plans within MISS_TIE of the closest a near tie that cost breaks (engine.serving.miss_factor)
    offs = {o.name: off_target(o, w) for o in options} if serving else {}
    pool = sorted(options, key=lambda o: (late(o), score(o), o.hours_per_run or 0.0, o.name))
    by_cost: list[Option] = []
    # among ties: fewer nodes, then (training) the run that finishes sooner for the same money before fewer GPUs (one
    # 8-GPU node in 6 h for the price of one GPU for 44 h: the GPU count matters to a service's operations, not to a
    # batch job's), then wider weights (8-bit before 4-bit: less quality at stake for the same money), then faster
    training = w is not None and not serving
    # the pool stays sorted by (late, score), so the ties are the run of it from its head (no NaN score, which
    # would not sort): reading that run instead of the whole pool keeps the ranking linear in the options listed
    ordered = not any(math.isnan(v) for v in scores.values())
    while pool:
        head = pool[0]
        head_late, ceiling = late(head), score(head) * (1 + TIE_FRACTION)
        missing: list[Option] = []
        if head_late and offs:  # the pool is sorted by `late` first: the options missing as much as the head lead it
            for o in pool:
                if late(o) == head_late:
                    missing.append(o)
                elif ordered:
                    break
        closest = min((offs[o.name] for o in missing), default=1.0)
        if closest > 1.0:
            near = [o for o in missing if offs[o.name] <= closest * (1 + MISS_TIE)]  # in pool order: cheapest first
            ceiling = min(score(o) for o in near) * (1 + TIE_FRACTION)
            ties = [o for o in near if score(o) <= ceiling]
        elif ordered:
            ties = []
            for o in pool:
                if late(o) != head_late or score(o) > ceiling:
                    break
                ties.append(o)
        else:
            ties = [o for o in pool if late(o) == head_late and score(o) <= ceiling]
        pick = min(ties, key=lambda o: (_at_the_limit(o), o.cluster.nodes, (o.hours_per_run or 0.0) if training else 0.0,
                                        o.cluster.gpus,
                                        NARROW_WEIGHTS.get(o.precision, 0), -per_user_speed(o), score(o), o.name))
        by_cost.append(pick)
        pool.remove(pick)
    time_order = {o.name: i + 1 for i, o in enumerate(sorted(options, key=lambda o: (o.hours_per_run or 0.0, o.total_usd, o.name)))}
    return [o.model_copy(update={"rank_by_cost": i + 1, "rank_by_time": time_order[o.name]}) for i, o in enumerate(by_cost)]


AT_THE_LIMIT = 0.98  # a plan at 98%+ of usable memory fits on paper only: it loses a cost tie to one with room


def _at_the_limit(o: Option) -> bool:
    """8x B200 at 161.9 of 162.0 GB usable won a tie (fewer nodes) over a cheaper, faster 24x H100 plan at 62 of 72 GB."""
    usable = o.memory.usable_gb_per_gpu
    return bool(usable and o.memory.per_gpu_gb >= AT_THE_LIMIT * usable)


def rank(w: Workload, arch: Architecture, data: CatalogData) -> tuple[list[Option], Recommendation]:
    """Interface form of `evaluate` (docs/interfaces.md)."""
    result = evaluate(w, arch, data)
    return result.options, result.recommendation


def bf16_reference(w_bf16: Workload, arch: Architecture, data: CatalogData, chosen: Option,
                   searched: list[tuple[Workload, dict[tuple[object, ...], object]]] | None = None) -> str:
    """What the FP8 pick would take with the BF16 weights as published, on the same GPU (any instance size,
    from any provider a service would run on; the pick's own provider first on a tie, and only it when the user
    named one): GPUs, monthly rent and per-user speed, so the FP8 assumption is a choice the reader can see the
    price of. Held to the pick's provider, a provider selling 1- and 8-GPU shapes only priced BF16's 2 GPUs as 8.
    `searched`: `Ranked.memos` of the answer's search, whose BF16 variant's memo is this workload's."""
    picked = data.offer(chosen.offer_id)
    gpu = data.gpu(chosen.gpu)
    if picked is None or gpu is None:
        return ""
    pricing = w_bf16.pricing or "on_demand"
    kinds = {p.id: p.kind for p in data.providers}
    names = {p.id: p.name for p in data.providers}
    marketplace_ok = kinds.get(picked.provider) == "marketplace"  # a marketplace pick compares with its peers
    # (targets missed, below the floor, monthly, another provider, billed, per-user speed, shape, provider, requests/s)
    best: tuple[int, bool, float, bool, int, float, str, str, float] | None = None
    # what the search already sized for this workload (any GPU-independent part, this GPU's groups when BF16 was
    # searched on it), else a memo of its own
    memo = next((m for searched_w, m in searched or () if searched_w == w_bf16), {})
    # one plan per node shape (providers list shapes per region): a serving plan reads the offer's node size,
    # link kind and whether nodes link, nothing else
    plans: dict[tuple[int, str, bool, float | None], PlannedShape] = {}
    for offer in data.offers:
        if offer.gpu != picked.gpu or (w_bf16.provider is not None and offer.provider != picked.provider):
            continue
        if offer.provider != picked.provider and kinds.get(offer.provider) == "marketplace" and not marketplace_ok:
            continue  # no SLA: not where a service's BF16 price would come from
        gpn, link = serving_shape(w_bf16, gpu, offer)
        node = (gpn, link_kind(link), offer.inter_node_fabric is not None, offer_fabric_gb_s(offer) if arch.is_moe else None)
        if node not in plans:
            plans[node] = plan_shape(w_bf16, arch, gpu, offer, memo=memo)
        planned = plans[node]
        rate = _rate(offer, pricing, None)
        if not planned.fits or planned.choice is None or rate is None:
            continue
        if _no_commitment_sold(offer, kinds.get(offer.provider), pricing):
            continue
        billed = planned.billed(offer)
        # ranked as the options are: a plan that keeps the interactive floor before a cheaper one that cannot
        choice = planned.choice
        # several replicas are there for the users' speed, not to hold the weights: the shape says which
        shape = (f" ({choice.replicas} replicas of {choice.gpus_per_replica} GPUs)"
                 if choice.replicas > 1 and choice.gpus_per_replica > 1 else "")
        # a plan that misses a target the user set is not BF16's price for what they asked (7 L4s at 10 tokens/s
        # under a 30 tokens/s target read as cheaper than the FP8 pick that meets it)
        candidate = (len(choice.misses), below_floor(w_bf16, choice.per_user_tokens_s),
                     round(rate * billed * billed_service_hours_per_month(w_bf16), 2), offer.provider != picked.provider, billed,
                     choice.per_user_tokens_s, shape, offer.provider, choice.replicas * (choice.capacity_rps or 0.0))
        if best is None or candidate[:4] < best[:4]:
            best = candidate
    if best is None:
        return f"BF16 as published does not fit {gpu.name} instances at this load"
    missing, slow, monthly, elsewhere, billed, speed, shape, provider, capacity = best
    # GPUs the user fixed are the only count tried: "on no instance" would read as no count of this GPU doing it
    fixed = f"{w_bf16.gpu_count}× {gpu.name}" if w_bf16.gpu_count else ""
    if missing:
        return (f"BF16 as published misses the targets on {fixed} at this load" if fixed else
                f"BF16 as published meets the targets on no {gpu.name} instance at this load")
    picked_speed = chosen.throughput.decode_tokens_per_s_per_sequence
    if slow and picked_speed is not None and not below_floor(w_bf16, picked_speed.value):
        # the FP8 pick keeps the speed floor: a BF16 plan below it is not the same service's price
        return (f"BF16 as published cannot keep {user_floor(w_bf16):g} tokens/s per user on {fixed} at this load" if fixed
                else f"BF16 as published keeps {user_floor(w_bf16):g} tokens/s per user on no {gpu.name} instance at this load")
    at = f" at {names.get(provider, provider)}" if elsewhere else ""
    if w_bf16.batch_items and w_bf16.requests_per_s:  # an offline job: what the job costs, each prompt's speed
        job = monthly / HOURS_PER_MONTH * job_rate_and_hours(w_bf16, capacity)[1]  # as the pick's job is costed
        return f"BF16 as published: {billed}x {gpu.name}{shape}{at}, ${job:,.0f} for the job, {speed:,.1f} tokens/s per prompt"
    rent = f"${monthly / 1e6:,.2f}M" if monthly >= 1e6 else f"${monthly:,.0f}"  # as the answer prints money
    return f"BF16 as published: {billed}x {gpu.name}{shape}{at}, {rent}/month, {speed:,.1f} tokens/s per user"
