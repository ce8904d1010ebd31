"""The first message's "Assumes" line: a training plan whose memory is nearly full says the sequence length
it assumed, since a longer one may not fit (full fine-tune of 70B on 8 MI300X: 164 of 173 GB at 2,048 tokens)."""

from __future__ import annotations

from typing import Any

import pytest

from bot.summary import TRAINING_SEQ_SAID_AT, build_answer_view


def _assumes(real_advisor: Any, *texts: str) -> tuple[str, Any]:
    conversation = real_advisor.new_conversation()
    for text in texts:
        response = real_advisor.respond(conversation, text)
    view = build_answer_view(response, real_advisor.display_names())
    return view.key_assumptions, response.advice


def test_a_nearly_full_training_plan_says_its_assumed_sequence_length(real_advisor: Any) -> None:
    line, advice = _assumes(real_advisor, "full fine-tune Llama 3.1 70B on 1B tokens on MI300X")
    assert advice.memory.per_gpu_gb >= TRAINING_SEQ_SAID_AT * advice.memory.usable_gb_per_gpu
    assert "· 2,048-token sequences ·" in line, line


@pytest.mark.parametrize("texts", [
    ("QLoRA fine-tune Llama 3.1 8B on 50M tokens",),  # 10 of 72 GB: the length cannot change the plan
    ("full fine-tune Llama 3.1 70B on 1B tokens on MI300X", "8k-token sequences"),  # stated, not assumed
    ("serve Llama 3.1 8B for 32 users",),  # serving says its context its own way
])
def test_otherwise_the_sequence_length_is_not_in_the_line(real_advisor: Any, texts: tuple[str, ...]) -> None:
    line, _ = _assumes(real_advisor, *texts)
    assert "-token sequences" not in line, line


def test_an_amd_serving_pick_says_its_bandwidth_is_derated(real_advisor: Any) -> None:
    """48% of peak memory bandwidth reads as a typo next to NVIDIA answers' 68%: the line says why."""
    line, advice = _assumes(real_advisor, "serve Llama 3.1 405B in fp8 on MI300X")
    assert advice.cluster.gpu == "mi300x"
    assert "48% of peak memory bandwidth (x0.7 on AMD)" in line, line
    nvidia, advice = _assumes(real_advisor, "serve Llama 3.1 405B in fp8 on H200")
    assert advice.cluster.gpu.startswith("h200") and "68% of peak memory bandwidth ·" in nvidia, nvidia


def test_a_chat_context_longer_than_one_turn_says_earlier_turns_are_in_it(real_advisor: Any) -> None:
    """5,000 users are sized at 4,096 tokens of context beside 1,024-token prompts and 256-token replies: read side
    by side they looked contradictory. The context is the conversation so far (earlier turns prefix-cached), and the
    line says so; a request rate sized at one prompt and reply says its context plainly."""
    line, advice = _assumes(real_advisor, "serve Llama 3.1 8B for 5000 concurrent users")
    assert advice.effective.seq_len == 4096
    assert "· 4.1k tokens of context per user (earlier turns included) · 1,024-token prompts, 256-token replies ·" in line
    rate, rate_advice = _assumes(real_advisor, "inference Llama 3.1 8B at 1000 requests per second")
    assert rate_advice.effective.seq_len == 1024 + 256
    assert "· 1.3k tokens of context · 1,024-token prompts" in rate and "earlier turns" not in rate, rate
