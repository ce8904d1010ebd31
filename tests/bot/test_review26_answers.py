"""Answers fixed this round: a capacity question's prompt length said as "with 4k prompts" (dropped before, so the
users held were those of 1,024-token prompts), and a one-stream first token that prefills the whole window (17 s
for Llama 4 Scout at 128k read as slow serving, with nothing saying it was a full 131k-token prompt)."""

from __future__ import annotations

from tests.bot.answers import answered


def test_a_capacity_question_keeps_its_prompt_length(real_advisor) -> None:
    short, short_view, _ = answered(real_advisor, "how many users can 4 H100s serve Llama 3.1 70B to?")
    long, long_view, text = answered(real_advisor, "how many users can 4 H100s serve Llama 3.1 70B to with 4k prompts?")
    assert long.advice.effective.input_tokens == 4000
    assert "4,000-token prompts" in text
    # four times the prompt: fewer users at the same speed floor (prefill takes its share of the GPUs)
    assert long.capacity is not None and short.capacity is not None
    assert long.capacity.users < short.capacity.users


def test_one_stream_first_token_says_it_prefills_the_whole_window(real_advisor) -> None:
    response, view, text = answered(real_advisor, "serve Llama 4 Scout with 128k context")
    first = response.advice.throughput.ttft_s.value
    assert first > 10
    assert f"first token in {first:,.2g} s (a full 131,072-token prompt)" in text, text


def test_a_prompt_said_or_a_load_keeps_the_old_labels(real_advisor) -> None:
    _, _, said = answered(real_advisor, "serve Llama 4 Scout with 32k-token prompts")
    assert "(a full" not in said
    _, _, busy = answered(real_advisor, "serve Llama 3.1 8B for 20 users")
    assert "(its prefill, before any queueing)" in busy and "(a full" not in busy
