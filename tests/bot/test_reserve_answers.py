"""Reserve or on demand with no model ("is it cheaper to reserve 8xH100 for a year or use on-demand for 6 hrs a day?"):
answered from the catalog's rows, not with the help text; follow-ups change the use and the term; `ask --json` carries
both bills (`reserve_or_on_demand`) and the max-context answer (`max_context`)."""

from __future__ import annotations

import pytest

from tests.bot.answers import answered


def test_reserve_for_a_year_or_six_hours_a_day_on_demand(real_advisor) -> None:
    response, view, text = answered(
        real_advisor, "is it cheaper to reserve 8xH100 for a year or use on-demand for 6 hrs a day?")
    assert response.reserve is not None and "I size GPU jobs" not in text
    assert view.headline.startswith("🗓️ 8× H100 SXM5 80GB at 6 h a day: on demand, $4,307 a month vs $12,060 "
                                    "reserved"), view.headline
    assert "reserving pays from 16.8 h a day" in view.headline
    assert "$2.95/GPU-h × 8 GPUs × 6 h × 30.4 days = $4,307 a month" in view.cost, view.cost
    assert "× 730 h = $12,060 a month, busy or not" in view.cost
    assert view.comparison[0].name.startswith("Nebius") and view.comparison[0].winner
    assert "30.4 days a month" in view.key_assumptions and "a 1-year term (as you said)" in view.key_assumptions
    # the term and source of each reserved rate: Together's published one is for 7-30+ days, the rest estimated
    assert "published for reservations of 7-30+ days (together.ai/pricing" in view.key_assumptions
    assert "estimated at on-demand -30%" in view.key_assumptions
    assert any("commits $145k" in n for n in view.notes), view.notes
    contract = real_advisor.contract(response)
    asked = contract["reserve_or_on_demand"]
    assert asked["pick"] == "on_demand" and asked["gpus"] == 8 and asked["hours_per_day"] == 6
    assert asked["break_even_hours_per_day"] == 16.8 and asked["term_years"] == 1 and asked["term_said"]
    assert asked["on_demand_provider"] == "nebius" and asked["on_demand_usd_per_month"] == pytest.approx(4306.67, abs=1)
    assert asked["providers"][0]["reserved_published"] is False
    assert contract["buy_or_rent"] is None and contract["max_context"] is None and contract["report"]["tco"] is None


@pytest.mark.parametrize("question, start", [
    ("8 A100s 10 hours a day, reserve or not?", "🗓️ 8× A100 SXM4 80GB at 10 h a day: on demand, $3,869 a month"),
    ("we use 64 H100 about 40% of the time, 1yr commit worth it?",
     "🗓️ 64× H100 SXM5 80GB at 9.6 h a day: on demand, $55,130 a month vs $96,477 reserved"),
])
def test_the_variants_are_answered_too(real_advisor, question: str, start: str) -> None:
    response, view, _ = answered(real_advisor, question)
    assert response.reserve is not None and view.headline.startswith(start), view.headline


def test_follow_ups_change_the_hours_and_the_term(real_advisor) -> None:
    conversation = real_advisor.new_conversation()
    real_advisor.respond(conversation, "is it cheaper to reserve 8xH100 for a year or use on-demand for 6 hrs a day?")
    twelve = real_advisor.respond(conversation, "what about 12 hours a day?")
    assert twelve.reserve is not None and twelve.reserve.result.hours_per_day == 12
    three = real_advisor.respond(conversation, "3 year term")
    assert three.reserve is not None and three.reserve.result.term_years == 3 and three.reserve.result.hours_per_day == 12
    twenty = real_advisor.respond(conversation, "what about 20 hours a day?")
    contract = real_advisor.contract(twenty)["reserve_or_on_demand"]
    assert contract["pick"] == "reserve" and contract["term_years"] == 3
    assert contract["commitment_usd"] == pytest.approx(contract["reserved_usd_per_month"] * 36)


def test_with_no_use_said_it_asks_the_hours(real_advisor) -> None:
    response, view, _ = answered(real_advisor, "should we reserve 8 B200s or stay on demand?")
    assert response.reserve is not None and response.reserve.result.pick is None
    assert view.questions and "hours a day" in view.questions[0]
    assert "reserving pays from 16.8 h a day busy" in view.headline


def test_reserved_training_with_a_model_is_still_a_plan(real_advisor) -> None:
    response, _, _ = answered(real_advisor, "train llama 3.1 8b on 500B tokens with 64 B200s reserved")
    assert response.reserve is None and response.advice is not None
    assert real_advisor.contract(response)["reserve_or_on_demand"] is None


def test_max_context_has_a_json_key(real_advisor) -> None:
    """The 📏 answer's figures in `ask --json`: 131,072 tokens (the window), 3 sequences of it, ~420k tokens of KV."""
    response, _, _ = answered(real_advisor, "what's the max context for Llama 3.1 70B on 2x H100 in FP8")
    room = real_advisor.contract(response)["max_context"]
    assert room is not None
    assert room["tokens"] == 131_072 and room["model_window_tokens"] == 131_072 and room["sequences_at_max"] == 3
    assert 400_000 <= room["kv_cache_tokens"] <= 440_000 and room["limited_by"] == "window"
    assert room["gpu"] == "h100-sxm" and room["gpus"] == 2 and room["precision"] == "fp8"
    bound = real_advisor.contract(answered(real_advisor, "max context for llama 3.1 70b on 1x A100 80GB in int4")[0])
    assert bound["max_context"]["limited_by"] == "memory"
    other = real_advisor.contract(answered(real_advisor, "serve llama 3.1 70b on 2x H100 for 20 users")[0])
    assert other["max_context"] is None and other["reserve_or_on_demand"] is None
