"""Answers about hardware the user buys or owns, between the parser's cues and the engine's pure functions.

Two questions are routed here by `bot.service.Advisor.respond`: a local question ("what GPU do I need to run Llama 3.1 8B
locally?", `parser.owning.LOCAL_CUE`), answered with engine.local's cheapest desktop cards and an advice planned on the
pick (or on the user's own card); and a buy-or-rent question with no model ("should we buy or rent 8 H100s?",
`BUY_RENT_CUE`), answered with engine.buy_or_rent's break-even alone. Their `ask --json` keys (`local`, `buy_or_rent`)
are built here too (docs/json.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from catalog.records import CatalogData
from engine.buy_or_rent import BreakEven, break_even
from engine.models import Workload
from parser.owning import BUY_RENT_CUE, LOCAL_CUE, card_said, owning_settings, runtime_said

if TYPE_CHECKING:  # engine.local is imported when a local question is asked, not at every start (cold start)
    from engine.local import LocalAnswer, LocalPlan

SERVER_GPUS = 8  # "buy or rent 2 nodes of H100": a node is an 8-GPU server


@dataclass(frozen=True)
class BuyOrRent:
    """A buy-or-rent question with no model: the GPUs asked about and their break-even (None: no purchase price, or
    nobody in the catalog rents them), at the assumptions the thread said (`said`; the rest are engine defaults)."""

    gpu: str
    gpu_name: str
    gpus: int
    result: BreakEven | None
    said: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Local:
    """A local question's answer: the engine's plans, whether the card named is the user's own, and a card the
    catalog lacks that the user named (its name and memory in GB, when said)."""

    answer: LocalAnswer
    owned: bool = False
    unlisted_card: tuple[str, float | None] | None = None
    unsupported: str | None = None  # hardware named that the catalog does not cover ("Apple silicon")


def buy_or_rent_only(w: Workload, cues: set[str] | frozenset[str]) -> bool:
    """A buy-or-rent question about GPUs with no model or size: the break-even is the whole answer. A use said with
    it ("for 3 years of training", "for inference") names no workload to size, and owning's break-even does not
    depend on it; a load said (tokens, users) is a workload, planned with its model once named."""
    return (BUY_RENT_CUE in cues and bool(w.gpu) and w.model is None and w.params_b is None
            and not any(getattr(w, name, None) for name in _LOAD_SAID))


# what makes a buy-or-rent question a workload to plan, not the break-even alone (a model or size is asked for)
_LOAD_SAID = ("dataset_gb", "dataset_tokens", "concurrency", "requests_per_s", "runs_per_month",
              "target_tokens_per_s", "load_tokens_per_s", "dataset_examples", "train_steps")


def break_even_said(w: Workload, cues: set[str] | frozenset[str], data: CatalogData) -> BuyOrRent:
    """The break-even of the GPUs the thread names, at the assumptions it said."""
    gpu = data.gpu(str(w.gpu))
    count = int(w.gpu_count or (w.nodes or 0) * SERVER_GPUS or 1)
    said = owning_settings(cues)
    settings = {k: v for k, v in said.items() if k in ("utilisation", "usd_per_kwh", "years", "resale")}
    if "resale_usd" in said and gpu is not None and gpu.purchase_price_usd:  # "resale $8k a GPU": its share of the price
        settings["resale"] = min(1.0, said["resale_usd"] / float(gpu.purchase_price_usd))
    result = break_even(gpu, count, data, **settings) if gpu is not None else None
    return BuyOrRent(gpu=str(w.gpu), gpu_name=gpu.name if gpu is not None else str(w.gpu), gpus=count, result=result,
                     said=settings)


def local_asked(w: Workload, cues: set[str] | frozenset[str]) -> bool:
    """A thread asking what to run its model on locally, for inference (a fine-tune on the user's card is planned as
    one, not answered with cards to buy)."""
    return LOCAL_CUE in cues and w.mode == "inference" and bool(w.model or w.params_b) and not w.batch_items


def _catalog_card(w: Workload, cues: set[str] | frozenset[str], data: CatalogData) -> str | None:
    """The catalog card the thread names, unless the card said is another one of the same number: a laptop's
    ("laptop 4070 8GB" is not the desktop 4070 12GB) or one of another memory ("3060 8GB"), checked by its memory."""
    gpu = data.gpu(str(w.gpu)) if w.gpu else None
    if gpu is None:
        return None
    said = card_said(cues)
    if said is not None and ("Laptop" in said[0] or (said[1] is not None and abs(said[1] - gpu.memory_gb) > 0.5)):
        return None
    return gpu.id


def _context_that_fits(plan: LocalPlan) -> int:
    """A shorter context the plan holds, rounded down to 256 tokens (as vLLM's --max-model-len is usually said)."""
    return max(256, plan.max_context_tokens // 256 * 256)


def local_plans(w: Workload, cues: set[str] | frozenset[str], data: CatalogData) -> tuple[Local | None, Workload]:
    """The local answer, and the workload the answer's plan is drawn for: the user's own card at the most faithful
    precision that runs (at the shorter context it holds, when only that fits; kept as asked when none does), else
    the cheapest card(s) to buy at their precision. Either is planned as engine.local sizes it (no share of the card
    kept back, 8- and 4-bit as the runtime's files)."""
    from engine.local import local_answer_for, local_workload

    named = _catalog_card(w, cues, data)
    owned = bool(named and w.data_location == "onprem")
    runtime = runtime_said(cues)
    answer = local_answer_for(w, data, owned_gpu=named, owned_count=w.gpu_count, named_owned=owned, runtime=runtime)
    if answer is None:
        return None, w
    local = Local(answer=answer, owned=owned, unlisted_card=None if named else card_said(cues),
                  unsupported=w.unsupported_accelerator)
    if named:  # run locally on the card named: theirs, or the one they would buy (costed at its power either way)
        mine = answer.owned_pick
        if mine is None:  # drawn at the smallest precision tried, as the headline's "even 4-bit needs" says
            least = answer.owned[-1].precision if answer.owned else w.precision or "bf16"
            return local, w.model_copy(update={**local_workload(w, least, runtime), "gpu": named})
        here = w.model_copy(update={**local_workload(w, mine.precision, runtime), "gpu": named})
        if not mine.fits:
            here = here.model_copy(update={"seq_len": _context_that_fits(mine)})
        return local, here
    pick = answer.pick
    if pick is None:
        return local, w
    return local, w.model_copy(update={**local_workload(w, pick.precision, runtime), "gpu": pick.gpu,
                                       "gpu_count": pick.gpus})


def _plan_contract(plan: LocalPlan | None) -> dict[str, Any] | None:
    if plan is None:
        return None
    return {"gpu": plan.gpu, "gpus": plan.gpus, "precision": plan.precision,
            "memory_gb_per_gpu": round(plan.need_gb_per_gpu, 2), "usable_gb_per_gpu": round(plan.usable_gb_per_gpu, 2),
            "weights_gb": round(plan.weights_gb, 2), "tokens_per_s_per_user": round(plan.tokens_per_s_per_user, 2),
            "fits": plan.fits, "fast_enough": plan.fast_enough, "context_tokens": plan.context_tokens,
            "max_context_tokens": plan.max_context_tokens, "weights_as": plan.file_label,
            "purchase_usd": plan.price_usd, "purchase_source": plan.price_source or None}


def local_contract(local: Local | None) -> dict[str, Any] | None:
    """`local` in `ask --json` (docs/json.md): what to buy to run the model locally; None for other questions."""
    if local is None:
        return None
    answer = local.answer
    card = local.unlisted_card
    return {"users": answer.users, "tokens_per_s_per_user_floor": answer.floor_tokens_per_s,
            "pick": _plan_contract(answer.pick),
            "by_precision": [_plan_contract(p) for p in answer.by_precision],
            "named_gpu": [_plan_contract(p) for p in answer.owned], "named_gpu_owned": local.owned,
            "unlisted_card": {"name": card[0], "memory_gb": card[1]} if card is not None else None}


def break_even_contract(asked: BuyOrRent | None) -> dict[str, Any] | None:
    """`buy_or_rent` in `ask --json` (docs/json.md): the break-even of a buy-or-rent question with no model."""
    if asked is None:
        return None
    b = asked.result
    out: dict[str, Any] = {"gpu": asked.gpu, "gpus": asked.gpus, "verdict": b.verdict if b is not None else None}
    if b is None:
        return out
    never = None  # JSON has no infinity: a break-even that never comes is null

    def months(value: float) -> float | None:
        return round(value, 1) if value != float("inf") else never

    out.update({
        "utilisation": b.utilisation, "usd_per_kwh": b.usd_per_kwh, "years": b.years,
        "purchase_usd_per_gpu": b.purchase_usd_per_gpu, "purchase_source": b.purchase_source,
        "hardware_usd": round(b.hardware_usd, 2), "power_usd_per_month": round(b.power_usd_per_month, 2),
        "colocation_usd_per_month": round(b.space_usd_per_month, 2), "server_kw": round(b.server_kw, 2),
        "rent_usd_per_gpu_hour": b.rent_usd_per_gpu_hour, "rent_provider": b.rent_provider, "rent_sla": b.rent_sla,
        "reserved_usd_per_gpu_hour": round(b.reserved_usd_per_gpu_hour, 4),
        "months_to_break_even_on_demand": months(b.months_on_demand),
        "months_to_break_even_reserved": months(b.months_reserved),
        "own_usd": round(b.own_usd, 2), "on_demand_usd": round(b.on_demand_usd, 2), "reserved_usd": round(b.reserved_usd, 2),
        "owning_wins_from_utilisation": round(b.min_utilisation, 4) if b.min_utilisation is not None else None,
        "resale_share": round(b.resale_share, 4), "resale_said": b.resale_said, "resale_usd": round(b.resale_usd, 2),
        "own_before_resale_usd": round(b.own_before_resale_usd, 2),
        "resale_to_flip_usd_per_gpu": round(b.resale_to_flip_usd_per_gpu, 2),
        "price_low_usd_per_gpu": b.price_low_usd, "price_high_usd_per_gpu": b.price_high_usd,
        "price_range_published": b.price_range_published,
        "own_low_usd": round(b.own_low_usd, 2), "own_high_usd": round(b.own_high_usd, 2), "close_call": b.close,
    })
    return out
