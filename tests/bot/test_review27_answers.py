"""Answers a senior reviewer would not forward (fourth review round), each as the user asked it."""

from __future__ import annotations

from tests.bot.answers import answered


def test_a_service_s_fastest_alternative_is_one_a_team_would_pay_for(real_advisor) -> None:
    """'Mixtral 8x22B serving 30 users on A100 80GB' listed 'fastest: RunPod 60x A100 (15 nodes of 4), $70k/month,
    29.1 tokens/s per user' beside a $9,286 pick at 20.2: 7.5x the bill for 44% more speed."""
    response, view, text = answered(real_advisor, "Mixtral 8x22B serving 30 users on A100 80GB")
    pick = response.advice.recommendation
    primary = next(o for o in response.advice.options if o.name == pick.primary)
    assert "60x A100" not in text and "fastest" not in text
    for option in response.advice.options:
        if option.name in (pick.fastest, *pick.alternatives) and option.name != pick.runner_up:
            assert option.total_usd <= 3 * primary.total_usd, option.name
