"""Budget first, model second: "we have $20k a month, what's the biggest model we can serve for 100 users?"

Why its own module: nothing can be sized without a model, so the question is answered by sizing a ladder of
current open-weight models, smallest to largest, on the load and budget said, and reading off the largest whose
best plan fits the budget. Each rung is the engine's ordinary plan for that model (`advise`), so its figures are the
ones the user gets by naming it.

The ladder is the general-purpose chat models a team would shortlist in 2026, one per size class, dense and MoE:
"biggest" is by total parameters, which is what sets the GPU memory; it is not a ranking of quality, and the answer
says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from catalog.records import CatalogData
from engine.advise import advise
from engine.models import Advice, Option, Workload
from engine.recommendation import recommended
from engine.serving import user_floor

# smallest to largest; models missing from a catalog are skipped
LADDER: tuple[str, ...] = (
    "llama-3.1-8b",
    "qwen3-32b",
    "llama-3.3-70b",
    "gpt-oss-120b",
    "qwen3-235b-a22b-instruct-2507",
    "glm-4.6",
    "deepseek-v3.1",
    "kimi-k2",
)


@dataclass(frozen=True)
class Rung:
    """One model of the ladder planned on the load said: its cheapest plan and whether it is within the budget."""

    model: str
    params_b: float
    advice: Advice
    option: Option | None  # the recommended option (None: nothing priced fits)
    usd_per_month: float | None
    tokens_per_s_per_user: float | None
    within: bool  # within the budget and at the per-user speed floor


def budget_ladder(w: Workload, data: CatalogData) -> tuple[Rung, ...]:
    """Each ladder model served on `w`'s load (users, rate, speed, provider, pricing as said), smallest first.
    `within`: the recommended option's monthly total is at most `w.budget_usd_per_month` and it keeps the per-user
    speed floor (within a budget the ranking may pick a plan under it: DeepSeek-V3.1 for 100 users on 8 MI300X at
    16 tokens/s fits $20k a month, at a speed nobody chats at)."""
    budget = w.budget_usd_per_month
    floor = user_floor(w)
    rungs: list[Rung] = []
    for model_id in LADDER:
        record = data.model(model_id)
        if record is None:
            continue
        planned = advise(w.model_copy(update={"model": model_id, "params_b": record.total_params_b,
                                              "mode": "inference", "intent": "serve"}), data)
        option = recommended(list(planned.options), planned.recommendation) if planned.recommendation else None
        fits = planned.cluster is not None and planned.cluster.fits and option is not None
        usd = option.total_usd if fits and option is not None else None
        per_user = option.throughput.decode_tokens_per_s_per_sequence if fits and option is not None else None
        speed = per_user.value if per_user is not None else None
        within = usd is not None and budget is not None and usd <= budget and (speed or 0.0) >= floor * 0.999
        rungs.append(Rung(model=model_id, params_b=record.total_params_b, advice=planned, option=option if fits else None,
                          usd_per_month=usd, tokens_per_s_per_user=speed, within=within))
    return tuple(rungs)


def largest_within(rungs: tuple[Rung, ...]) -> Rung | None:
    """The largest model whose plan fits the budget (None: not even the smallest does)."""
    return next((r for r in reversed(rungs) if r.within), None)
