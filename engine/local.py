"""Run a model on hardware the user buys or owns: "what GPU do I need to run Llama 3.1 8B locally?", "can I run
Qwen2.5 32B on my 3090?". Inference for one person (one stream unless a load was said), on cards a person buys.

A rented service ranks offers by their monthly price; a local question ranks cards by what they cost to buy. The
candidates are the desktop cards with a purchase price in the catalog (GeForce and workstation tiers: a datacenter
GPU is neither sold to nor cooled in a home or office), one to MAX_CARDS of a kind in one PC, and for each the
weights a local runtime loads: BF16 as published, then 8-bit and 4-bit (llama.cpp's GGUF Q8_0 / Q4_K_M, or vLLM's
AWQ/GPTQ). A plan must hold the model with engine.cluster's headroom and keep the per-user speed floor
(engine.serving.user_floor); the pick is the cheapest such plan, the higher precision on a tie. The plans are the
engine's own (engine.cluster.plan_cluster, engine.throughput.estimate_inference), on the card's own PCIe link.

Sized as people run models at home, not as a rented server is: one user, nothing kept back as a share of the card
(vLLM's server default keeps 10%, `gpu_memory_utilization` 0.9; home setups run llama.cpp/Ollama, or vLLM at 0.95),
only the memory model's 1 GB per card for the CUDA context and the runtime's buffers (Ollama alone reserves 457 MiB
per CUDA GPU, its discover/gpu.go `cudaMinimumMemory`). The catalog's "24 GB" is counted as 24 x 10^9 bytes while
the card holds 24 GiB (25.8 GB): the 7% between them is left for a display on the same card. 8- and 4-bit are sized
as the GGUF files those runtimes load (Q8_0 at 8.50 and Q4_K_M at 4.89 bits a weight, every tensor included:
llama.cpp's quantize table for Llama 3.1 8B), or as AWQ/GPTQ when the user said so (`runtime="vllm"`). The KV cache
is sized at the context said (4,096 tokens unless said), and each plan says the most context that fits, so a card
that holds the model with a shorter context says so instead of failing.
"""

from __future__ import annotations

from dataclasses import dataclass

from catalog.records import CatalogData, GpuRecord
from engine.architecture import Architecture, architecture_for, architecture_like, reference_shape
from engine.cluster import plan_cluster
from engine.defaults import apply_defaults
from engine.models import Figure, Workload
from engine.serving import user_floor
from engine.throughput import estimate_inference

LOCAL_TIERS = ("consumer", "workstation")  # cards sold to people and offices, in the catalog's `tier`
MAX_CARDS = 4  # a desktop or workstation board holds up to four double-width cards
# the weights a local runtime loads, most faithful first: BF16 as published, then 8- and 4-bit quantised
PRECISIONS = ("bf16", "int8", "int4")
PRECISION_LABEL = {"bf16": "BF16", "int8": "8-bit (GGUF Q8_0 or GPTQ/AWQ int8)",
                   "int4": "4-bit (GGUF Q4_K_M or AWQ/GPTQ int4)"}
# bits per weight of the GGUF files local runtimes load, scales and every tensor included (llama.cpp
# tools/quantize/README.md, Llama 3.1 8B: Q8_0 8.5008, Q4_K_M 4.8944): Llama 3.1 70B's Q4_K_M is 43.1 GB
GGUF_BITS = {"int8": 8.50, "int4": 4.89}
GGUF_NAME = {"int8": "Q8_0", "int4": "Q4_K_M"}
RUNTIMES = ("gguf", "vllm")  # llama.cpp/Ollama/LM Studio GGUF files; vLLM/ExLlama AWQ/GPTQ checkpoints
LOCAL_HEADROOM = 0.0  # no share of the card kept back: the 1 GB per card of engine.memory's overhead is the reserve
MIN_CONTEXT = 1024  # a card that holds the model with less context than this does not run it usefully


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
    context_tokens: int = 0  # the context per user the KV cache was sized at
    max_context_tokens: int = 0  # the most context per user that fits the cards (0: not even the weights fit)
    kv_gb_per_gpu: float = 0.0  # the KV cache's share of need_gb_per_gpu, at context_tokens
    runtime: str = "gguf"  # how 8- and 4-bit were sized (RUNTIMES)

    @property
    def label(self) -> str:
        return PRECISION_LABEL.get(self.precision, self.precision.upper())

    @property
    def usable(self) -> bool:
        return self.fits and self.fast_enough

    @property
    def fits_shorter(self) -> bool:
        """Holds the model, with less context than asked (but MIN_CONTEXT or more): runs, with a shorter context."""
        return not self.fits and self.max_context_tokens >= MIN_CONTEXT

    @property
    def file_label(self) -> str:
        """What the weights were sized as: 'GGUF Q4_K_M', 'AWQ/GPTQ int4', 'BF16'."""
        if self.precision not in GGUF_BITS:
            return PRECISION_LABEL.get(self.precision, self.precision.upper())
        return f"GGUF {GGUF_NAME[self.precision]}" if self.runtime == "gguf" else f"AWQ/GPTQ {self.precision}"

    def context_on(self, memory_gb: float) -> int:
        """The most context per user one card of `memory_gb` (all of it usable, as here) holds at this precision."""
        if self.context_tokens <= 0 or self.kv_gb_per_gpu <= 0:
            return self.context_tokens if self.need_gb_per_gpu <= memory_gb else 0
        room = memory_gb - (self.need_gb_per_gpu - self.kv_gb_per_gpu)
        return max(0, int(room / (self.kv_gb_per_gpu / self.context_tokens))) if room > 0 else 0


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
    context_tokens: int = 0  # the context per user asked (DEFAULT_SERVING_SEQ_LEN unless said)
    runtime: str = "gguf"

    @property
    def owned_pick(self) -> LocalPlan | None:
        """The most faithful precision that runs usably on the user's own card(s); else one that fits but is slow;
        else the one that holds the most context, when that is a shorter context than asked."""
        return next((p for p in self.owned if p.usable), next((p for p in self.owned if p.fits), max(
            (p for p in self.owned if p.fits_shorter), key=lambda p: p.max_context_tokens, default=None)))


def local_cards(data: CatalogData) -> list[GpuRecord]:
    """Desktop cards a person can buy, with a purchase price: the candidates for a local question."""
    return [g for g in data.gpus if g.tier in LOCAL_TIERS and g.purchase_price_usd]


def local_workload(w: Workload, precision: str, runtime: str = "gguf") -> dict[str, object]:
    """The fields a local plan sets on the workload: inference for one stream unless said, on the user's own machine,
    nothing kept back as a share of the card, and 8-/4-bit weights sized as the runtime's files."""
    return {"mode": "inference", "precision": precision, "concurrency": w.concurrency or 1, "provider": None,
            "hourly_rate": None, "data_location": "onprem", "headroom": LOCAL_HEADROOM,
            "weight_bits": GGUF_BITS.get(precision) if runtime == "gguf" else None}


def _max_context(parts: dict[str, Figure], need_gb: float, usable_gb: float, context: int,
                 model_context: int | None) -> int:
    """The most context per user the cards hold: the KV cache grows linearly with it, the rest does not."""
    kv = parts.get("kv_cache_gb")
    kv_gb = float(kv.value) if kv is not None else 0.0
    if kv_gb <= 0 or context <= 0:
        return context if need_gb <= usable_gb else 0
    room = usable_gb - (need_gb - kv_gb)
    most = int(room / (kv_gb / context)) if room > 0 else 0  # this card's share of the cache, per token of context
    return max(0, min(most, model_context or most))


def plan_local(w: Workload, arch: Architecture, gpu: GpuRecord, gpus: int, precision: str, data: CatalogData,
               *, owned: bool = False, runtime: str = "gguf") -> LocalPlan:
    """`gpus` of this card at this precision for the load in `w` (one stream unless said), as the engine plans it."""
    given = w.model_copy(update={**local_workload(w, precision, runtime), "gpu": gpu.id, "gpu_count": gpus,
                                 "nodes": None})
    effective, _, _ = apply_defaults(given, data)
    plan, memory = plan_cluster(effective, arch, gpu, None)
    speed = estimate_inference(effective, arch, gpu, plan).decode_tokens_per_s_per_sequence
    per_user = float(speed.value) if speed is not None else 0.0
    weights = memory.components.get("weights_gb")
    price = None if owned or not gpu.purchase_price_usd else float(gpu.purchase_price_usd) * gpus
    model = data.model(w.model) if w.model else None
    context = int(effective.seq_len or 0)
    usable = float(memory.usable_gb_per_gpu or 0.0)
    most = _max_context(memory.components, float(memory.per_gpu_gb), usable, context,
                        model.max_context if model is not None else None)
    return LocalPlan(gpu=gpu.id, gpu_name=gpu.name, gpus=gpus, precision=precision,
                     need_gb_per_gpu=float(memory.per_gpu_gb), usable_gb_per_gpu=usable,
                     weights_gb=float(weights.value) * max(1, plan.gpus) if weights is not None else 0.0,
                     tokens_per_s_per_user=per_user, fits=bool(plan.fits and memory.fits),
                     fast_enough=per_user >= user_floor(effective) * 0.999, price_usd=price,
                     price_source="" if owned else (gpu.purchase_price_source or gpu.source), owned=owned,
                     context_tokens=context, max_context_tokens=most, runtime=runtime,
                     kv_gb_per_gpu=float(kv.value) if (kv := memory.components.get("kv_cache_gb")) is not None else 0.0)


TIGHT_FRACTION = 0.95  # a plan filling more than this share of a card's memory is tight (engine.cluster's comfort)
TIGHT_PENALTY = 1.10  # ... and ranked as if 10% dearer: a used 3090 ($700, 93% full) before two 3060s ($658, 97%)


def _cost_key(plan: LocalPlan) -> tuple[float, int, float]:
    """Cheapest first, a tight fit ranked as if TIGHT_PENALTY dearer (it leaves no room for a longer context or a
    display); on a tie the more faithful precision, then the faster."""
    price = plan.price_usd if plan.price_usd is not None else float("inf")
    tight = plan.need_gb_per_gpu > TIGHT_FRACTION * plan.usable_gb_per_gpu
    return (price * (TIGHT_PENALTY if tight else 1.0), PRECISIONS.index(plan.precision), -plan.tokens_per_s_per_user)


def local_answer(w: Workload, arch: Architecture, data: CatalogData, *, owned_gpu: str | None = None,
                 owned_count: int | None = None, named_owned: bool = True, runtime: str = "gguf") -> LocalAnswer:
    """The cheapest desktop card(s) to run `w`'s model locally, per precision and overall; with `owned_gpu`, also
    how it runs on the card(s) the user named (their own, unless `named_owned` is False: then priced to buy). A
    precision the user said is the only one planned. Pure: the plans are the engine's, over the catalog's local cards."""
    floor = user_floor(w)
    precisions = (w.precision,) if w.precision in PRECISIONS else PRECISIONS
    usable: list[LocalPlan] = []
    for gpu in local_cards(data):
        for precision in precisions:
            for gpus in range(1, MAX_CARDS + 1):
                plan = plan_local(w, arch, gpu, gpus, precision, data, runtime=runtime)
                if plan.usable:
                    usable.append(plan)
                    break  # more of the same card at this precision only costs more
    by_precision = tuple(min(ps, key=_cost_key) for precision in precisions
                         if (ps := [p for p in usable if p.precision == precision]))
    pick = min(usable, key=_cost_key) if usable else None
    owned: tuple[LocalPlan, ...] = ()
    mine = data.gpu(owned_gpu) if owned_gpu else None
    if mine is not None:
        owned = tuple(plan_local(w, arch, mine, max(1, owned_count or 1), p, data, owned=named_owned,
                                 runtime=runtime) for p in precisions)
    largest = max(local_cards(data), key=lambda g: (g.memory_gb, g.id), default=None)
    one_card = (tuple(plan_local(w, arch, largest, 1, p, data, runtime=runtime) for p in precisions)
                if largest is not None else ())
    context = next((p.context_tokens for p in (*one_card, *owned, *usable) if p.context_tokens), 0)
    return LocalAnswer(model=str(w.model or ""), users=int(w.concurrency or 1), floor_tokens_per_s=floor, pick=pick,
                       by_precision=by_precision, owned=owned, one_card=one_card, context_tokens=context,
                       runtime=runtime)


def local_answer_for(w: Workload, data: CatalogData, *, owned_gpu: str | None = None,
                     owned_count: int | None = None, named_owned: bool = True,
                     runtime: str = "gguf") -> LocalAnswer | None:
    """`local_answer` for a workload as the user gave it: its architecture as engine.advise builds it (the catalog's,
    or a generic one of the size said); None with neither a model nor a size."""
    model = data.model(w.model) if w.model else None
    params_b = w.params_b or (model.total_params_b if model is not None else None)
    if model is None and not params_b:
        return None
    reference = reference_shape(params_b, data.models) if model is None and params_b else None
    arch = architecture_like(reference, params_b) if reference is not None and params_b else architecture_for(model, params_b)
    return local_answer(w, arch, data, owned_gpu=owned_gpu, owned_count=owned_count, named_owned=named_owned,
                        runtime=runtime)
