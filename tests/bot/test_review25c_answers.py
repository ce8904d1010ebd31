"""Answers a third review would not forward, each pinned: a reasoning model's capacity counted at the reply length
its plan uses, a per-token comparison with no verb compared as a service, compared like with like (no marketplace
host on one side only), "max throughput" answered at capacity, availability read from "with HA" and "survive a node
failure" and kept on fixed GPUs, and a poor-fit plan without a tick."""

from __future__ import annotations

import pytest

from bot.summary import build_answer_view
from parser.availability import availability


def _view(real_advisor, text: str):
    response = real_advisor.respond(real_advisor.new_conversation(), text)
    return response, build_answer_view(response, real_advisor.display_names())


def test_a_reasoning_models_capacity_uses_one_reply_length(real_advisor) -> None:
    """The headline said 256-token replies (9.4 requests/s, 93 users) over a plan sized at 2,000 (26 tokens/s)."""
    response, view = _view(real_advisor, "how many requests per second can 8 H200s handle for DeepSeek R1?")
    rate = response.capacity.requests_per_s
    assert rate.inputs["reply_tokens"] == response.advice.effective.output_tokens == 2000
    assert "(2,000-token replies)" in view.headline, view.headline
    said = real_advisor.respond(real_advisor.new_conversation(),
                                "how many requests per second can 8 H200s handle for DeepSeek R1 with 2000-token replies?")
    assert said.capacity.users == response.capacity.users


def test_a_per_token_comparison_without_a_verb_is_a_service_at_capacity(real_advisor) -> None:
    response, view = _view(real_advisor, "is A100 or H100 cheaper per token for Llama 3.1 8B?")
    assert response.compared is not None and response.compared[0].capacity is not None
    assert "per 1M output tokens with the GPUs full" in view.headline, view.headline
    assert not response.questions, response.questions


def test_a_training_comparison_is_like_with_like(real_advisor) -> None:
    """H100 won on a marketplace host's price ($127 on Vast.ai) against B200 on Nebius ($170)."""
    response, _view_ = _view(real_advisor, "H100 or B200 for full fine-tuning llama 3.1 8b on 2B tokens?")
    kinds = real_advisor.hardware_kinds()
    for plan in response.compared:
        winner = next(o for o in plan.advice.options if o.gpu == plan.gpu and (o.offer_id or "").split(":")[0]
                      not in kinds.marketplaces)
        runs = [float(c) for c in (t.job_usd or t.per_run_usd for t in winner.tco) if c is not None]
        assert plan.usd_per_run == pytest.approx(min(runs))


@pytest.mark.parametrize("text", [
    "what's the max throughput in tokens per second of 8x H100 running Llama 3.1 70B?",
    "how many tokens per second can 8x H100 do with Llama 3.1 70B?",
])
def test_a_throughput_question_is_answered_at_capacity(real_advisor, text: str) -> None:
    response, view = _view(real_advisor, text)
    assert response.capacity is not None and response.capacity.users > 100
    assert "at 1 stream" not in view.cost and "1 concurrent user" not in view.key_assumptions


@pytest.mark.parametrize("text", ["serve llama 3.3 70b for 100 users with ha", "we need ha",
                                  "serve it, must survive a node failure"])
def test_availability_in_lower_case_and_in_words(text: str) -> None:
    found = availability(text)
    assert found is not None and found[0] == 2


def test_availability_on_fixed_gpus_prefers_two_replicas_and_says_a_single_one(real_advisor) -> None:
    response, view = _view(real_advisor, "serve Llama 3.1 70B for 100 users on 8x H100, 99.9% uptime")
    assert response.advice.cluster.replicas >= 2 and response.advice.cluster.gpus == 8
    assert any(n.startswith("Availability: 2 replicas on separate machines") for n in view.notes), view.notes
    single, single_view = _view(real_advisor, "serve Llama 3.1 405B in fp8 on 8x H100 for 10 users with HA")
    assert single.advice.cluster.replicas == 1
    assert any("a single point of failure" in n for n in single_view.notes), single_view.notes


def test_a_poor_fit_has_no_tick(real_advisor) -> None:
    _response, view = _view(real_advisor, "LoRA Llama 4 Maverick on 100M tokens on L40S")
    assert view.headline.startswith("⚠️ Fits, but a poor fit for this GPU: "), view.headline
