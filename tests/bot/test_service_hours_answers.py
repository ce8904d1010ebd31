"""The first message of a service kept to working hours: the cost line says the hours the month pays for, the
Assumes line says the schedule in plain words, and a reserved plan says it pays around the clock. Before, "only
9am-6pm on weekdays" priced the service always on and read "9am-6pm" as a model name."""

from __future__ import annotations

import re
from typing import Any

import pytest

from bot.summary import build_answer_view

SERVICE = "serve Llama 3.3 70B for 50 users"


def _view(real_advisor: Any, *texts: str) -> Any:
    conversation = real_advisor.new_conversation()
    for text in texts:
        response = real_advisor.respond(conversation, text)
    return build_answer_view(response, real_advisor.display_names()), response


def _monthly(cost_line: str) -> float:
    found = re.search(r"\$([\d,]+) a month", cost_line)
    assert found, cost_line
    return float(found.group(1).replace(",", ""))


def test_working_hours_on_demand(real_advisor: Any) -> None:
    view, response = _view(real_advisor, f"{SERVICE}, only 9am-6pm on weekdays")
    always, _ = _view(real_advisor, SERVICE)
    assert "a month* (45 h a week, stopped outside)" in view.cost, view.cost
    assert ("runs 45 h a week (9am-6pm weekdays): stopped outside; reserved capacity is paid around the clock"
            in view.key_assumptions), view.key_assumptions
    assert "busy 100% of the time it runs" in view.key_assumptions
    assert "(always on)" in always.cost and "runs 45 h" not in always.key_assumptions
    # the month is 45 of 168 hours of the always-on one (whole dollars as printed)
    assert _monthly(view.cost) == pytest.approx(_monthly(always.cost) * 45 / 168, abs=1)
    assert not any("9am" in note for note in [*view.notes, *response.notes]), view.notes
    assert any(note.startswith("Cold start: ") for note in view.notes), view.notes


def test_reserved_is_paid_around_the_clock(real_advisor: Any) -> None:
    view, _ = _view(real_advisor, "serve Llama 3.1 8B for 20 users, 8 hours a day, reserved")
    always, _ = _view(real_advisor, "serve Llama 3.1 8B for 20 users, reserved")
    assert "(reserved: paid around the clock)" in view.cost, view.cost
    assert _monthly(view.cost) == _monthly(always.cost)
    assert ("runs 56 h a week (8 h a day, every day), but reserved capacity is paid around the clock (730 h a month)"
            in view.key_assumptions), view.key_assumptions
    assert any(note.startswith("Reserved, part-time: ") and "stopped outside its 56 h a week" in note
               for note in view.notes), view.notes


def test_a_follow_up_puts_it_back_around_the_clock(real_advisor: Any) -> None:
    scheduled, _ = _view(real_advisor, f"{SERVICE}, 9-5")
    back, response = _view(real_advisor, f"{SERVICE}, 9-5", "what about 24/7?")
    assert "(40 h a week, stopped outside)" in scheduled.cost
    assert "(always on)" in back.cost and "runs " not in back.key_assumptions, back.cost
    assert response.advice.effective.service_hours_per_week == 168
    assert _monthly(back.cost) == pytest.approx(_monthly(scheduled.cost) * 168 / 40, abs=2)


def test_buy_or_rent_weighs_the_hours_it_runs(real_advisor: Any) -> None:
    """A service kept to 40 h a week leaves owned GPUs idle 76% of the week: the around-the-clock break-even is not
    the answer's headline; one kept 120 h a week (71%) still gets it."""
    view, _ = _view(real_advisor, "serve Llama 3.1 8B for 20 users on H100 9-5, should we buy or rent?")
    assert view.headline.startswith("💸 Buy or rent: rent: 40 h a week keep 1× H100"), view.headline
    assert "busy 24% of the time" in view.headline
    busy, _ = _view(real_advisor, "serve Llama 3.1 8B for 20 users on H100 weekdays only, should we buy or rent?")
    assert busy.headline.startswith("💸 Buy or rent: close call: 1× H100 SXM5 80GB pays off at"), busy.headline


def test_a_budget_is_held_against_the_scheduled_bill(real_advisor) -> None:
    """"9-5, under $3,000 a month": the catalog search priced services always on while the answer billed 40 h a week,
    so 2 MI300X ($831 scheduled, $3,489 always on) were ranked over budget and a GeForce marketplace box won."""
    response = real_advisor.respond(real_advisor.new_conversation(), "serve 70B for 50 users 9-5, under $3,000 a month")
    advice = response.advice
    winner = next(o for o in advice.options if o.name == advice.recommendation.primary)
    assert "GeForce" not in winner.name and "marketplace" not in winner.name, winner.name
    budget = next(t for t in advice.throughput.targets if t.name == "budget_usd_per_month")
    assert budget.met and budget.got == pytest.approx(winner.total_usd, abs=1) and winner.total_usd < 1500
