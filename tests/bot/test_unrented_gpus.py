"""A GPU no provider in the catalog rents (H20, RTX 3090) is planned as the user's own hardware: the first message
says why it is costed at power, and does not ask "yours or to rent? Priced as a rental" of a card priced as theirs."""

from __future__ import annotations

from bot.summary import build_answer_view


def _view(real_advisor, text: str):
    response = real_advisor.respond(real_advisor.new_conversation(), text)
    return response, build_answer_view(response, real_advisor.display_names())


def test_an_unrented_gpu_is_planned_and_said_as_their_own(real_advisor) -> None:
    response, view = _view(real_advisor, "serve GLM-4.6 on H20 for 50 users")
    assert view.headline.startswith("✅ Fits: serving GLM-4.6 (355B MoE) on 8× H20 96GB"), view.headline
    # not said to be theirs: sized, and its price asked, power alone a floor (review 29b: never a price)
    assert view.cost.startswith("? No provider in the catalog rents the H20 96GB: give a price per GPU-hour"), view.cost
    assert "power alone would be $" in view.cost and "on your own 8x" in view.cost, view.cost
    assert view.key_assumptions.endswith("no rental price in the catalog"), view.key_assumptions
    owned, view = _view(real_advisor, "serve GLM-4.6 on our 8 H20s on prem for 50 users")
    assert "your own 8x H20 96GB (power only" in view.cost, view.cost
    assert view.key_assumptions.endswith("your own GPUs at power cost"), view.key_assumptions


def test_no_rent_question_for_a_card_nobody_rents(real_advisor) -> None:
    response, view = _view(real_advisor, "serve Llama 3.1 70B on 4x RTX 3090 for 5 users")
    assert not any("yours or to rent" in q for q in response.questions), response.questions
    assert view.cost.startswith("? No provider in the catalog rents the GeForce RTX 3090"), view.cost
    assert "(or say “our own”)" in view.cost, view.cost
    # a card that is rented still gets the question
    rented, _ = _view(real_advisor, "serve Llama 3.1 8B on a 4090 for 5 users")
    assert any("yours or to rent" in q for q in rented.questions), rented.questions


def test_an_unrented_gpu_that_does_not_fit_is_reported_not_an_error(real_advisor) -> None:
    """2 RTX 3090s for Llama 3.1 70B: planned as their own, it fits on no count they fixed; the report of the plan
    tried named no GPU and stopped the estimator ("internal error")."""
    response, view = _view(real_advisor, "serve Llama 3.1 70B on 2x 3090")
    assert view.headline.startswith("❌ Does not fit: serving Llama 3.1 70B on 2× GeForce RTX 3090 24GB"), view.headline
    assert not any("internal error" in p.message for p in response.advice.problems)
    assert not any("yours or to rent" in q for q in response.questions), response.questions
    assert view.key_assumptions.endswith("no rental price in the catalog"), view.key_assumptions
