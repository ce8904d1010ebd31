"""A serving question that asks for the load ("how many users can 8 H100s serve Llama 3.1 70B to?") is answered
with the users the GPUs hold at the speed floor; it asked back "How many users at once?" and led with the cost of
one stream, the 315 users buried in the Plan line. The real catalog, parser and engine answer."""

from __future__ import annotations

import pytest

from bot.summary import build_answer_view
from parser import capacity_asked


def _view(real_advisor, text: str):
    response = real_advisor.respond(real_advisor.new_conversation(), text)
    return response, build_answer_view(response, real_advisor.display_names())


@pytest.mark.parametrize(("text", "asked"), [
    ("how many users can 8 H100s serve Llama 3.1 70B to?", True),
    ("max concurrent users for llama 3.1 8b on one L40S", True),
    ("what's the most users we can serve on 4 MI300X", True),
    ("serve Llama 3.1 70B for 100 users", False),
    ("how many GPUs do I need for 100 users", False),
])
def test_capacity_questions_are_recognised(text: str, asked: bool) -> None:
    assert capacity_asked(text) is asked


def test_the_users_held_lead_the_answer(real_advisor) -> None:
    response, view = _view(real_advisor, "how many users can 8 H100s serve Llama 3.1 70B to?")
    assert view.headline == ("✅ 8× H100 SXM5 80GB serve Llama 3.1 70B to about 315 users at once at ≥20 tokens/s each "
                             "(memory for 733 at 4,096 tokens)"), view.headline
    assert not any("How many users at once" in q for q in response.questions), response.questions


def test_a_fleet_of_replicas_counts_them_all(real_advisor) -> None:
    _response, view = _view(real_advisor, "we own 64 H100s; how many concurrent users can we serve gpt-oss-120b to?")
    assert view.headline.startswith("✅ 64× H100 SXM5 80GB serve gpt-oss-120b to about 8,064 users at once"), view.headline


def test_a_capacity_question_with_no_verb_is_read_as_serving(real_advisor) -> None:
    response, view = _view(real_advisor, "what's the max number of concurrent users for Llama 3.1 8B on one L40S?")
    assert response.advice.effective.mode == "inference"
    assert view.headline.startswith("✅ 1× L40S 48GB serves Llama 3.1 8B to about 52 users at once"), view.headline


def test_a_speed_in_a_capacity_question_is_each_users(real_advisor) -> None:
    """"how many users can 2 L40S serve Qwen3 32B at 30 tokens/s?" read 30 tokens/s as the whole service's and
    answered "14.4 tokens/s per user, 578 in total" with no user count."""
    response, view = _view(real_advisor, "how many users can 2 L40S serve Qwen3 32B at 30 tokens/s?")
    assert response.advice.workload.target_tokens_per_s_per_user == 30 and response.advice.workload.target_tokens_per_s is None
    assert view.headline.startswith("✅ 2× L40S 48GB serve Qwen3 32B to about ") and "at ≥30 tokens/s each" in view.headline
