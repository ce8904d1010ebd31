"""Run a model on hardware the user buys or owns: "what GPU do I need to run Llama 3.1 8B locally?", "can I run
Qwen2.5 32B on my 3090?". Inference for one person (one stream unless a load was said), on cards a person buys.

A rented service ranks offers by their monthly price; a local question ranks cards by what they cost to buy. The
candidates are the desktop cards with a purchase price in the catalog (GeForce and workstation tiers: a datacenter
GPU is neither sold to nor cooled in a home or office), one to MAX_CARDS of a kind in one PC, and for each the
weights a local runtime loads: BF16 as published, then 8-bit and 4-bit (llama.cpp's GGUF Q8_0 / Q4_K_M, or vLLM's
AWQ/GPTQ). A plan must hold the model with engine.cluster's headroom and keep the per-user speed floor
(engine.serving.user_floor); the pick is the cheapest such plan, the higher precision on a tie. The plans are the
engine's own (engine.cluster.plan_cluster, engine.throughput.estimate_inference), on the card's own PCIe link.
"""

from __future__ import annotations

from dataclasses import dataclass

from catalog.records import CatalogData, GpuRecord
from engine.architecture import Architecture, architecture_for, architecture_like, reference_shape
from engine.cluster import plan_cluster
from engine.defaults import apply_defaults
from engine.models import Workload
from engine.serving import user_floor
from engine.throughput import estimate_inference

LOCAL_TIERS = ("consumer", "workstation")  # cards sold to people and offices, in the catalog's `tier`
MAX_CARDS = 4  # a desktop or workstation board holds up to four double-width cards
# the weights a local runtime loads, most faithful first: BF16 as published, then 8- and 4-bit quantised
PRECISIONS = ("bf16", "int8", "int4")
PRECISION_LABEL = {"bf16": "BF16", "int8": "8-bit (GGUF Q8_0 or GPTQ/AWQ int8)",
                   "int4": "4-bit (GGUF Q4_K_M or AWQ/GPTQ int4)"}


@dataclass(frozen=True)
class LocalPlan:
    """`gpus` of one card at one precision: the memory it takes per card, the speed one user sees, what it costs."""

    gpu: str
    gpu_name: str
    gpus: int
    precision: str
    need_gb_per_gpu: float
    usable_gb_per_gpu: float
    weights_gb: float  # the whole model's weights at this precision
    tokens_per_s_per_user: float
    fits: bool
    fast_enough: bool
    price_usd: float | None  # all the cards, at the catalog's purchase price (None: no price)
    price_source: str
    owned: bool = False  # the user's own card(s): no price to pay

    @property
    def label(self) -> str:
        return PRECISION_LABEL.get(self.precision, self.precision.upper())

    @property
    def usable(self) -> bool:
        return self.fits and self.fast_enough


@dataclass(frozen=True)
class LocalAnswer:
    """What to buy (or whether the user's card does) to run one model for `users` people."""

    model: str
    users: int
    floor_tokens_per_s: float
    pick: LocalPlan | None  # the cheapest card(s) that hold it at the floor, higher precision on a tie
    by_precision: tuple[LocalPlan, ...]  # the cheapest usable plan at each precision, in PRECISIONS order
    owned: tuple[LocalPlan, ...] = ()  # the user's card(s) at each precision, most faithful first
    # the model at each precision on one card of the most memory: its weights and its need, for a card the catalog
    # does not have ("my laptop's 8 GB")
    one_card: tuple[LocalPlan, ...] = ()

    @property
    def owned_pick(self) -> LocalPlan | None:
        """The most faithful precision that runs usably on the user's own card(s)."""
        return next((p for p in self.owned if p.usable), next((p for p in self.owned if p.fits), None))


def local_cards(data: CatalogData) -> list[GpuRecord]:
    """Desktop cards a person can buy, with a purchase price: the candidates for a local question."""
    return [g for g in data.gpus if g.tier in LOCAL_TIERS and g.purchase_price_usd]


def plan_local(w: Workload, arch: Architecture, gpu: GpuRecord, gpus: int, precision: str, data: CatalogData,
               *, owned: bool = False) -> LocalPlan:
    """`gpus` of this card at this precision for the load in `w` (one stream unless said), as the engine plans it."""
    given = w.model_copy(update={"mode": "inference", "gpu": gpu.id, "gpu_count": gpus, "nodes": None,
                                 "precision": precision, "concurrency": w.concurrency or 1,
                                 "provider": None, "hourly_rate": None, "data_location": "onprem"})
    effective, _, _ = apply_defaults(given, data)
    plan, memory = plan_cluster(effective, arch, gpu, None)
    speed = estimate_inference(effective, arch, gpu, plan).decode_tokens_per_s_per_sequence
    per_user = float(speed.value) if speed is not None else 0.0
    weights = memory.components.get("weights_gb")
    price = None if owned or not gpu.purchase_price_usd else float(gpu.purchase_price_usd) * gpus
    return LocalPlan(gpu=gpu.id, gpu_name=gpu.name, gpus=gpus, precision=precision,
                     need_gb_per_gpu=float(memory.per_gpu_gb), usable_gb_per_gpu=float(memory.usable_gb_per_gpu or 0.0),
                     weights_gb=float(weights.value) * max(1, plan.gpus) if weights is not None else 0.0,
                     tokens_per_s_per_user=per_user, fits=bool(plan.fits and memory.fits),
                     fast_enough=per_user >= user_floor(effective) * 0.999, price_usd=price,
                     price_source="" if owned else (gpu.purchase_price_source or gpu.source), owned=owned)


def _cost_key(plan: LocalPlan) -> tuple[float, int, float]:
    """Cheapest first; on a tie the more faithful precision, then the faster."""
    return (plan.price_usd if plan.price_usd is not None else float("inf"), PRECISIONS.index(plan.precision),
            -plan.tokens_per_s_per_user)


def local_answer(w: Workload, arch: Architecture, data: CatalogData, *, owned_gpu: str | None = None,
                 owned_count: int | None = None, named_owned: bool = True) -> LocalAnswer:
    """The cheapest desktop card(s) to run `w`'s model locally, per precision and overall; with `owned_gpu`, also
    how it runs on the card(s) the user named (their own, unless `named_owned` is False: then priced to buy). A
    precision the user said is the only one planned. Pure: the plans are the engine's, over the catalog's local cards."""
    floor = user_floor(w)
    precisions = (w.precision,) if w.precision in PRECISIONS else PRECISIONS
    usable: list[LocalPlan] = []
    for gpu in local_cards(data):
        for precision in precisions:
            for gpus in range(1, MAX_CARDS + 1):
                plan = plan_local(w, arch, gpu, gpus, precision, data)
                if plan.usable:
                    usable.append(plan)
                    break  # more of the same card at this precision only costs more
    by_precision = tuple(min(ps, key=_cost_key) for precision in precisions
                         if (ps := [p for p in usable if p.precision == precision]))
    pick = min(usable, key=_cost_key) if usable else None
    owned: tuple[LocalPlan, ...] = ()
    mine = data.gpu(owned_gpu) if owned_gpu else None
    if mine is not None:
        owned = tuple(plan_local(w, arch, mine, max(1, owned_count or 1), p, data, owned=named_owned)
                      for p in precisions)
    largest = max(local_cards(data), key=lambda g: (g.memory_gb, g.id), default=None)
    one_card = tuple(plan_local(w, arch, largest, 1, p, data) for p in precisions) if largest is not None else ()
    return LocalAnswer(model=str(w.model or ""), users=int(w.concurrency or 1), floor_tokens_per_s=floor, pick=pick,
                       by_precision=by_precision, owned=owned, one_card=one_card)


def local_answer_for(w: Workload, data: CatalogData, *, owned_gpu: str | None = None,
                     owned_count: int | None = None, named_owned: bool = True) -> LocalAnswer | None:
    """`local_answer` for a workload as the user gave it: its architecture as engine.advise builds it (the catalog's,
    or a generic one of the size said); None with neither a model nor a size."""
    model = data.model(w.model) if w.model else None
    params_b = w.params_b or (model.total_params_b if model is not None else None)
    if model is None and not params_b:
        return None
    reference = reference_shape(params_b, data.models) if model is None and params_b else None
    arch = architecture_like(reference, params_b) if reference is not None and params_b else architecture_for(model, params_b)
    return local_answer(w, arch, data, owned_gpu=owned_gpu, owned_count=owned_count, named_owned=named_owned)
