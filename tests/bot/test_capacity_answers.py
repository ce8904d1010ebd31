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
    assert view.headline == ("✅ 8× H100 SXM5 80GB serve Llama 3.1 70B to about 523 users at once at ≥20 tokens/s each "
                             "(memory for 733 at 4,096 tokens)"), view.headline
    assert not any("How many users at once" in q for q in response.questions), response.questions


def test_a_fleet_of_replicas_counts_them_all(real_advisor) -> None:
    _response, view = _view(real_advisor, "we own 64 H100s; how many concurrent users can we serve gpt-oss-120b to?")
    # gpt-oss reasons before it answers: its users are counted at the 2,000-token replies its plan is sized for (at
    # 256-token replies, a prompt every 13 s per user, the prefills held it to 8,064); 16 TP4 replicas of 1,024
    assert view.headline.startswith("✅ 64× H100 SXM5 80GB serve gpt-oss-120b to about 16,384 users at once"), view.headline
    assert _response.advice.effective.output_tokens == 2000


def test_a_capacity_question_with_no_verb_is_read_as_serving(real_advisor) -> None:
    response, view = _view(real_advisor, "what's the max number of concurrent users for Llama 3.1 8B on one L40S?")
    assert response.advice.effective.mode == "inference"
    assert view.headline.startswith("✅ 1× L40S 48GB serves Llama 3.1 8B to about 66 users at once"), view.headline


def test_a_speed_in_a_capacity_question_is_each_users(real_advisor) -> None:
    """"how many users can 2 L40S serve Qwen3 32B at 30 tokens/s?" read 30 tokens/s as the whole service's and
    answered "14.4 tokens/s per user, 578 in total" with no user count."""
    response, view = _view(real_advisor, "how many users can 2 L40S serve Qwen3 32B at 30 tokens/s?")
    assert response.advice.workload.target_tokens_per_s_per_user == 30 and response.advice.workload.target_tokens_per_s is None
    assert view.headline.startswith("✅ 2× L40S 48GB serve Qwen3 32B to about ") and "at ≥30 tokens/s each" in view.headline


def test_the_answer_is_sized_at_the_capacity_it_states(real_advisor) -> None:
    """The lines under the headline described one stream on the GPUs ("137.4 tokens/s per user · 137.4 tokens/s in
    total", "$47.71 per 1M output tokens at 1 stream", "1 concurrent user") beside "about 315 users": a cost per
    token 46x what the full GPUs make it. They are now the same GPUs planned for the users held."""
    response, view = _view(real_advisor, "how many users can 8 H100s serve Llama 3.1 70B to?")
    advice = response.advice
    # users who pause ~20 s between turns (315 back to back): the answer says so
    assert advice.workload.concurrency == 523 and advice.cluster.gpus == 8
    tp = advice.throughput
    assert tp.decode_tokens_per_s_per_sequence.value >= 20
    assert tp.decode_tokens_per_s.value == pytest.approx(523 * tp.decode_tokens_per_s_per_sequence.value, rel=0.01)
    assert "10.8k tokens/s in total" in view.speed, view.speed
    assert "at 1 stream" not in view.cost and "$0.61 per 1M output tokens" in view.cost, view.cost
    assert "users pause ~20 s between turns (sized for all 523 generating at once)" in view.key_assumptions
    assert not any("1 concurrent user" in a for a in view.key_assumptions), view.key_assumptions
    assert view.headline.startswith("✅ 8× H100 SXM5 80GB serve Llama 3.1 70B to about 523 users"), view.headline


def test_a_rate_question_is_answered_in_requests_per_second(real_advisor) -> None:
    """"How many requests per second can one H100 handle?" answered in users only; the rate is the users held over
    the time each request takes (first token, then its reply at the per-user speed)."""
    response, view = _view(real_advisor, "how many requests per second can one H100 handle with Llama 3.1 8B?")
    rate = response.capacity.requests_per_s
    tp = response.advice.throughput
    per_request = tp.prefill_seconds.value + 256 / tp.decode_tokens_per_s_per_sequence.value
    assert rate.value == pytest.approx(response.capacity.users / per_request, rel=1e-6)
    assert view.headline.startswith("✅ 1× H100 SXM5 80GB serves Llama 3.1 8B at about 18 requests/s (256-token "
                                    "replies), 229 users at once"), view.headline
    # memory full is what a capacity answer means, not a risk to warn about
    assert not any(n.startswith("Tight:") for n in view.notes), view.notes


def test_a_said_reply_length_sets_the_rate(real_advisor) -> None:
    _short, _ = _view(real_advisor, "how many requests per second can one H100 handle with Llama 3.1 8B?")
    longer, view = _view(real_advisor, "how many requests per second can one H100 handle with Llama 3.1 8B "
                                       "with 1000-token replies?")
    assert longer.capacity.requests_per_s.inputs["reply_tokens"] == 1000
    assert longer.capacity.requests_per_s.value < _short.capacity.requests_per_s.value / 2
    assert "(1,000-token replies)" in view.headline, view.headline


def test_the_json_says_the_capacity(real_advisor) -> None:
    response = real_advisor.respond(real_advisor.new_conversation(), "max qps on one L40S for mistral 7b")
    out = real_advisor.contract(response)
    cap = out["capacity"]
    assert cap["gpus"] == 1 and cap["gpu"] == "l40s" and cap["users"] == out["workload"]["concurrency"] > 1
    assert cap["requests_per_s"] > 0 and cap["reply_tokens"] == 256
    plain = real_advisor.contract(real_advisor.respond(real_advisor.new_conversation(), "serve Llama 3.1 8B for 20 users"))
    assert plain["capacity"] is None


def test_a_capacity_the_loaded_plan_cannot_keep_falls_back_to_one_stream(real_advisor) -> None:
    """Where no user is held at the floor there is nothing to plan for: the one-stream answer stays."""
    response, view = _view(real_advisor, "how many users can one A100 40GB serve Llama 3.1 70B to?")
    assert response.capacity is None or response.capacity.users < 2
    assert response.advice.workload.concurrency is None


def test_a_capacity_thread_stays_one_until_a_load_is_said(real_advisor) -> None:
    """"What about 16 of them?" after "how many users can 8 H100s serve …?" asks the same question of 16 GPUs; it was
    answered for one stream with "How many users at once?" asked back. Saying a load ends it."""
    conversation = real_advisor.new_conversation()
    first = real_advisor.respond(conversation, "how many users can 8 H100s serve Llama 3.1 70B to?")
    more = real_advisor.respond(conversation, "what about 16 of them?", first.advice)
    view = build_answer_view(more, real_advisor.display_names())
    assert more.capacity is not None and more.capacity.gpus == 16 and more.capacity.users == 2 * first.capacity.users
    assert view.headline.startswith("✅ 16× H100 SXM5 80GB serve Llama 3.1 70B to about 1,046 users"), view.headline
    assert not more.questions, more.questions
    asked = real_advisor.respond(conversation, "how many users can it serve?", more.advice)
    assert asked.capacity is not None and asked.capacity.users == more.capacity.users
    loaded = real_advisor.respond(conversation, "ok, 200 users", more.advice)
    assert loaded.capacity is None and loaded.advice.workload.concurrency == 200


def test_the_capacity_cue_survives_the_thread_store(real_advisor) -> None:
    from parser import CAPACITY_CUE, RATE_CUE, Conversation

    conversation = real_advisor.new_conversation()
    real_advisor.respond(conversation, "how many requests per second can one H100 handle with Llama 3.1 8B?")
    restored = Conversation.from_dict(conversation.to_dict())
    assert {CAPACITY_CUE, RATE_CUE} <= restored.cues
