"""Self-hosting against a hosted API: the answer says the API's bill beside the plan's, where they cross and the
cost at a realistic load (review: "whats our cost per 1M tokens serving llama 3.3 70b at 50 users vs gpt-4o-mini
api" answered the plan and asked what gpt-4o-mini was); `ask --json` carries it as `api_comparison`."""

from __future__ import annotations

import pytest

from tests.bot.answers import answered


def test_self_hosted_vs_gpt_4o_mini(real_advisor) -> None:
    response, view, text = answered(
        real_advisor, "whats our cost per 1M tokens serving llama 3.3 70b at 50 users vs gpt-4o-mini api")
    assert "I don't know" not in text
    assert view.api.startswith("GPT-4o mini $"), view.api
    assert "($0.15/$0.60 per 1M in/out, openai.com/api/pricing, 2026-11-25)" in view.api
    assert "the API is cheaper below" in view.api and "at 30% load: API $" in view.api
    assert "a different model: compare quality first" in view.api
    assert "API:     GPT-4o mini" in text
    contract = real_advisor.contract(response)
    api = contract["api_comparison"]
    assert api["api"] == "openai:gpt-4o-mini" and api["load"] == "full"
    assert api["api_usd_per_1m_output_with_prompts"] == pytest.approx(1.20)
    assert api["self_hosted_usd_per_month"] == pytest.approx(contract["report"]["tco"]["options"][0]["total_usd"], abs=1)
    assert 0 < api["break_even_load"] < 1.5 and api["realistic_load"] == 0.3
    assert api["api_usd_per_month_realistic"] == pytest.approx(api["api_usd_per_month"] * 0.3, rel=1e-3)


def test_other_questions_have_no_api_comparison(real_advisor) -> None:
    response, view, _ = answered(real_advisor, "serve Llama 3.1 8B for 20 users")
    assert view.api == "" and real_advisor.contract(response)["api_comparison"] is None


def test_an_api_alone_is_priced_for_the_tokens_said(real_advisor) -> None:
    response, view, text = answered(real_advisor, "how much would gpt-4o cost for 1B tokens a month")
    assert response.advice is None and view.headline == "💳 GPT-4o: $4,000 a month for the tokens said", view.headline
    assert "800.0M input + 200.0M output tokens" in view.cost
    assert not any("Which model" in q for q in view.questions)
    api = real_advisor.contract(response)["api_comparison"]
    assert api["api_usd_per_month"] == pytest.approx(4000.0) and api["self_hosted_usd_per_month"] is None


def test_a_thread_switches_the_api(real_advisor) -> None:
    conversation = real_advisor.new_conversation()
    first = real_advisor.respond(conversation, "serve llama 3.1 8b for 20 users vs gpt-4o-mini")
    assert first.api is not None and first.api.price.id == "openai:gpt-4o-mini"
    second = real_advisor.respond(conversation, "vs claude haiku?", first.advice)
    assert second.api is not None and second.api.price.id == "anthropic:claude-haiku-4.5"
    assert second.advice is not None and second.advice.effective.model == "llama-3.1-8b"
    assert not any("already" in c for c in second.changes), second.changes


def test_together_api_is_its_serverless_price_not_its_gpu_clusters(real_advisor) -> None:
    response, view, _ = answered(real_advisor, "should we self-host llama 70b or use the together api")
    assert response.workload.provider is None
    assert view.api.startswith("Llama 3.3 70B Instruct Turbo $") and "together.ai/pricing" in view.api
    assert "different model" not in view.api  # the same weights on both sides
