"""Budget first, model second: "we have $20k a month, what's the biggest model we can serve for 100 users?", and its
training twin, "with $50k, what's the biggest model we can full fine-tune on 1B tokens?".

Why its own module: nothing can be sized without a model, so the question is answered by sizing a ladder of
current open-weight models, smallest to largest, on the load (or the data and method) and budget said, and reading
off the largest whose best plan fits the budget. Each rung is the engine's ordinary plan for that model (`advise`),
so its figures are the ones the user gets by naming it. A fine-tune with no method said is laddered twice, QLoRA and
full side by side: the two differ ~10x in memory and cost, so either alone would answer a question not asked.

The ladder is the general-purpose chat models a team would shortlist in 2026, one per size class, dense and MoE:
"biggest" is by total parameters, which is what sets the GPU memory; it is not a ranking of quality, and the answer
says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from catalog.records import CatalogData
from engine.advise import advise
from engine.models import TRAINING_MODES, Advice, Option, Workload
from engine.recommend import run_cost_usd
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
# a fine-tune said with no method ("fine-tune for $1000"): the cheapest way and the dearest, side by side
UNSAID_METHODS: tuple[str, ...] = ("qlora", "full")


@dataclass(frozen=True)
class Rung:
    """One model of the ladder planned on the load (or the data) said: its cheapest plan and whether it is within the
    budget."""

    model: str
    params_b: float
    advice: Advice
    option: Option | None  # the recommended option (None: nothing priced fits)
    usd_per_month: float | None
    tokens_per_s_per_user: float | None  # serving
    within: bool  # within the budget, and at the per-user speed floor (serving) or on time (training)
    mode: str = "inference"  # the method a training rung is planned with ("qlora", "full", "lora")
    usd_per_run: float | None = None  # training: one run as the answer prints it
    hours_per_run: float | None = None  # training


def ladder_methods(w: Workload) -> tuple[str, ...]:
    """The modes the ladder is planned in: serving; the training method said; both ends (QLoRA, full) when a
    fine-tune's method is not said."""
    if w.mode in TRAINING_MODES:
        return (str(w.mode),)
    return UNSAID_METHODS if w.intent == "train" else ("inference",)


def budget_ladder(w: Workload, data: CatalogData) -> tuple[Rung, ...]:
    """Each ladder model planned on `w` (served on its load, or fine-tuned on its data, with provider and pricing as
    said), smallest first, method by method (`ladder_methods`)."""
    rungs: list[Rung] = []
    for mode in ladder_methods(w):
        planned_as = {"mode": mode, "intent": "serve" if mode == "inference" else "train"}
        for model_id in LADDER:
            record = data.model(model_id)
            if record is None:
                continue
            planned = advise(w.model_copy(update={"model": model_id, "params_b": record.total_params_b, **planned_as}),
                             data)
            rungs.append(_rung(model_id, record.total_params_b, planned))
    return tuple(rungs)


def _rung(model_id: str, params_b: float, planned: Advice) -> Rung:
    """One model's plan read against the budget. Serving: the recommended option's monthly total is at most the
    monthly budget and it keeps the per-user speed floor (within a budget the ranking may pick a plan under it:
    DeepSeek-V3.1 for 100 users on 8 MI300X at 16 tokens/s fits $20k a month, at a speed nobody chats at).
    Training: one run's cost is at most the budget a run, the month's runs at most a monthly budget, and every
    other target said (a deadline) is met."""
    w = planned.effective
    option = recommended(list(planned.options), planned.recommendation) if planned.recommendation else None
    if planned.cluster is None or not planned.cluster.fits or option is None:
        return Rung(model=model_id, params_b=params_b, advice=planned, option=None, usd_per_month=None,
                    tokens_per_s_per_user=None, within=False, mode=str(w.mode))
    usd = option.total_usd
    if w.mode not in TRAINING_MODES:
        per_user = option.throughput.decode_tokens_per_s_per_sequence
        speed = per_user.value if per_user is not None else None
        within = (w.budget_usd_per_month is not None and usd <= w.budget_usd_per_month
                  and (speed or 0.0) >= user_floor(w) * 0.999)
        return Rung(model=model_id, params_b=params_b, advice=planned, option=option, usd_per_month=usd,
                    tokens_per_s_per_user=speed, within=within)
    per_run = run_cost_usd(option.tco, w)
    within = ((w.budget_usd_per_run is not None or w.budget_usd_per_month is not None)
              and (w.budget_usd_per_run is None or per_run <= w.budget_usd_per_run * 1.0001)
              and (w.budget_usd_per_month is None or usd <= w.budget_usd_per_month * 1.0001)
              and all(t.met for t in option.throughput.targets if not t.name.startswith("budget_")))
    return Rung(model=model_id, params_b=params_b, advice=planned, option=option, usd_per_month=usd,
                tokens_per_s_per_user=None, within=within, mode=str(w.mode), usd_per_run=per_run,
                hours_per_run=option.hours_per_run)


def largest_within(rungs: tuple[Rung, ...]) -> Rung | None:
    """The largest model whose plan fits the budget (None: not even the smallest does); of a ladder planned in two
    methods, the first method's."""
    first = [r for r in rungs if r.mode == rungs[0].mode] if rungs else []
    return next((r for r in reversed(first) if r.within), None)
