"""A monthly budget ("under $5k a month") is a target: options over it rank after those within it, the pick's
bill is checked against it, and the answer says what it costs in speed or that nothing is within it. Before, the
budget was said back and every option ranked as if it had not been given."""

from __future__ import annotations

from typing import Any

import pytest

from engine.advise import advise
from engine.models import Workload
from engine.recommendation import BUDGET_NOTE, per_user_speed, work_usd
from engine.serving import DEFAULT_FLOOR_SLACK

KEPT_AT = 20 * (1 - DEFAULT_FLOOR_SLACK)  # the assumed chat floor counts as kept within its slack

SERVE_70B = Workload(mode="inference", model="llama-3.1-70b", concurrency=100)


def _budget_note(notes: tuple[str, ...] | list[str]) -> str:
    return next((n for n in notes if n.startswith(BUDGET_NOTE)), "")


def test_without_a_budget_the_pick_keeps_the_floor_and_costs_more_than_the_cheapest(data: Any) -> None:
    """The premise of the tests below: the floor-keeping pick costs more than a slower option."""
    advice = advise(SERVE_70B, data)
    pick = advice.options[0]
    assert per_user_speed(pick) >= KEPT_AT
    assert min(o.total_usd for o in advice.options) < pick.total_usd
    assert not _budget_note(advice.notes)


def test_a_budget_under_the_floor_keeping_pick_picks_within_it_and_says_what_the_floor_costs(data: Any) -> None:
    served = SERVE_70B.model_copy(update={"think_time_s": 0.0})  # back to back: the floor needs 2 GPUs
    free = advise(served, data).options[0]
    budget = free.total_usd * 0.6
    advice = advise(served.model_copy(update={"budget_usd_per_month": budget}), data)
    pick = advice.options[0]
    assert pick.total_usd <= budget
    assert per_user_speed(pick) < KEPT_AT  # the budget buys less speed than the floor: said, not hidden
    check = next(t for t in pick.throughput.targets if t.name == "budget_usd_per_month")
    assert check.met and check.wanted == pytest.approx(budget) and check.got == pytest.approx(pick.total_usd, abs=0.01)
    note = _budget_note(advice.notes)
    assert "under the 20 tokens/s assumed" in note
    assert f"20+ needs {free.name} at ${free.total_usd:,.0f} a month" in note
    # the floor-keeping options are still listed, after the pick
    assert any(o.total_usd > budget * 1.0001 and per_user_speed(o) >= KEPT_AT for o in advice.options[1:])


def test_a_budget_the_pick_already_meets_changes_nothing(data: Any) -> None:
    free = advise(SERVE_70B, data)
    advice = advise(SERVE_70B.model_copy(update={"budget_usd_per_month": free.options[0].total_usd * 1.5}), data)
    assert advice.options[0].name == free.options[0].name
    assert not _budget_note(advice.notes)


def test_a_budget_nothing_meets_names_the_cheapest_and_the_pick_says_it_misses_it(data: Any) -> None:
    free = advise(SERVE_70B, data)
    cheapest = min(free.options, key=lambda o: o.total_usd)
    advice = advise(SERVE_70B.model_copy(update={"budget_usd_per_month": cheapest.total_usd / 3}), data)
    assert advice.options[0].name == free.options[0].name  # over budget everywhere: the floor still decides
    check = next(t for t in advice.options[0].throughput.targets if t.name == "budget_usd_per_month")
    assert not check.met
    assert _budget_note(advice.notes) == (f"{BUDGET_NOTE}no option is within ${cheapest.total_usd / 3:,.0f} a month; "
                                          f"the cheapest is {cheapest.name} at ${cheapest.total_usd:,.0f}, "
                                          f"{per_user_speed(cheapest):.1f} tokens/s per user")


def test_a_training_budget_is_checked_against_the_monthly_bill(data: Any) -> None:
    w = Workload(mode="qlora", params_b=70, dataset_tokens=1_000_000_000, runs_per_month=20)
    free = advise(w, data)
    advice = advise(w.model_copy(update={"budget_usd_per_month": free.options[0].total_usd / 2}), data)
    check = next(t for t in advice.options[0].throughput.targets if t.name == "budget_usd_per_month")
    assert check.got == pytest.approx(advice.options[0].total_usd, abs=0.01)


def test_a_training_run_budget_is_held_against_a_runs_cost(data: Any) -> None:
    """"pretrain 7B on 2T tokens on 64 H100s, total budget $150k" printed $188,374 for the job without a word on the
    budget. A run over it is a missed target, and the note names the cheapest run; a budget it fits is within it."""
    w = Workload(mode="pretrain", params_b=7, dataset_tokens=2_000_000_000_000, gpu="h100-sxm", gpu_count=64)
    free = advise(w, data)
    run = work_usd(free.options[0], free.effective)
    tight = advise(w.model_copy(update={"budget_usd_per_run": run * 0.8}), data)
    check = next(t for t in tight.options[0].throughput.targets if t.name == "budget_usd_per_run")
    assert not check.met and check.got == pytest.approx(run, rel=1e-6)
    assert _budget_note(tight.notes).startswith(f"{BUDGET_NOTE}no option is within ${run * 0.8:,.0f} a run; the cheapest")
    roomy = advise(w.model_copy(update={"budget_usd_per_run": run * 1.2}), data)
    assert next(t for t in roomy.options[0].throughput.targets if t.name == "budget_usd_per_run").met
    assert not _budget_note(roomy.notes)
