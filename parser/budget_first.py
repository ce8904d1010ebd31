"""A budget said with no model: "$20k a month, what's the biggest model we can serve for 100 users?", "what's the
biggest model we can fine-tune for $1000?".

Why here: the parser decides what to ask, and a budget-first question is answered by a ladder of models
(engine.budget_ladder), so its model is never asked back; what a fine-tune's ladder cannot do without is the data a
run trains on, which moves a run's cost (and so the largest model a budget buys) by orders of magnitude between 10M
and 10B tokens. No token count is assumed for it: it is asked until it is said. The bot reads the same test to decide
when to plan the ladder.
"""

from __future__ import annotations

from typing import Literal

from engine.models import DEFAULT_TRAINING_SEQ_LEN, RL_OBJECTIVES, Workload, steps_tokens

# the methods a training ladder is planned in; pretraining from scratch is no "biggest model we can afford" question
LADDER_METHODS = ("full", "lora", "qlora")


def budget_first(w: Workload) -> Literal["serve", "train"] | None:
    """"serve" for a monthly budget and something to serve but no model; "train" for a budget (a run's, or a
    month's) and a fine-tune but no model; None otherwise. Online RL is left out: its run is counted in prompts and
    rollouts, not in the data a ladder can hold fixed."""
    if w.model is not None or w.params_b is not None:
        return None
    if w.mode in (None, "inference") and w.intent in (None, "serve") and w.budget_usd_per_month is not None:
        return "serve"
    fine_tune = w.mode in LADDER_METHODS or (w.mode is None and w.intent == "train")
    if (fine_tune and w.objective not in RL_OBJECTIVES
            and (w.budget_usd_per_run is not None or w.budget_usd_per_month is not None)):
        return "train"
    return None


def training_data_said(w: Workload) -> bool:
    """The data a run trains on is known: tokens, a corpus size, a count of examples, or steps × batch."""
    return bool(w.dataset_tokens or w.dataset_gb or w.dataset_examples
                or steps_tokens(w, int(w.seq_len or DEFAULT_TRAINING_SEQ_LEN)) is not None)


def budget_words(w: Workload) -> str:
    """"$1,000 a run", "$10,000 a month (4 runs a month)": the budget as the question and the answer say it."""
    if w.budget_usd_per_run is not None:
        return f"${w.budget_usd_per_run:,.0f} a run"
    runs = w.runs_per_month or 1
    return f"${float(w.budget_usd_per_month or 0):,.0f} a month ({runs:g} run{'s' if runs != 1 else ''} a month)"
