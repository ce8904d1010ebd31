"""Numbers the user said, as the answer uses them: each was dropped, misread or silently ignored before.

- "10M documents of 2k tokens each ... into 200-token summaries" asked which of the two token counts was meant and
  sized the job at 1,024 in / 256 out;
- "2B tokens with 8192-token sequences" (and "8k sequences") was sized at 2,048-token sequences or not priced;
- "8-hour working days only" was billed as weekdays around the clock (120 h a week);
- "how long on 16 of them?" and "double the users" repeated the previous answer with nothing changed;
- "we need first token under 2 seconds" said "no change in the answer".
"""

from __future__ import annotations

from typing import Any

import pytest

from bot.summary import build_answer_view


def _answer(real_advisor: Any, *texts: str) -> tuple[Any, Any]:
    conversation = real_advisor.new_conversation()
    previous = None
    for text in texts:
        response = real_advisor.respond(conversation, text, previous)
        previous = response.advice
    return build_answer_view(response, real_advisor.display_names()), response


def test_an_offline_job_is_sized_at_the_lengths_said(real_advisor: Any) -> None:
    view, response = _answer(real_advisor, "summarize 10M documents of 2k tokens each with Llama 3.1 8B into 200-token "
                                           "summaries, must finish within 3 days")
    assert not any("You said both" in q for q in view.questions), view.questions
    effective = response.advice.effective
    assert (effective.input_tokens, effective.output_tokens, effective.batch_items) == (2000, 200, 10_000_000)
    assert "1,024-token prompts" not in view.key_assumptions, view.key_assumptions
    assert "10,000,000 in" in view.speed and "72.0 h" in view.speed, view.speed


@pytest.mark.parametrize("text", [
    "full fine-tune Qwen3-32B on 2B tokens with 8192-token sequences",
    "full fine-tune Qwen3-32B on 2B tokens, 8k sequences",
])
def test_a_training_sequence_length_beside_the_corpus(real_advisor: Any, text: str) -> None:
    view, response = _answer(real_advisor, text)
    at_8k, _ = _answer(real_advisor, "full fine-tune Qwen3-32B on 2B tokens at 8k context")
    assert not view.questions, view.questions
    assert response.advice.effective.seq_len == 8192 and response.advice.effective.dataset_tokens == 2_000_000_000
    assert "2,048-token sequences" not in view.key_assumptions, view.key_assumptions
    assert view.cost == at_8k.cost and view.speed == at_8k.speed


def test_an_agents_new_tokens_per_turn_are_not_a_reply_length(real_advisor: Any) -> None:
    view, response = _answer(real_advisor, "serve Llama 3.1 70B as a coding agent backend for 40 developers, 60k tokens "
                                           "of context, 2k new tokens per turn, 500-token replies")
    assert not any("You said both" in q for q in view.questions), view.questions
    effective = response.advice.effective
    assert effective.output_tokens == 500 and effective.seq_len == 61440
    # each call prefills only its 2,000 new tokens: the rest of its 60k-token prompt is in the prefix cache
    assert effective.input_tokens * (1 - effective.prefix_cache_hit) == pytest.approx(2000, abs=10)


def test_working_days_of_eight_hours_are_forty_hours_a_week(real_advisor: Any) -> None:
    view, _ = _answer(real_advisor, "serve Llama 3.1 8B for 50 users, 8-hour working days only")
    assert "(40 h a week, stopped outside)" in view.cost, view.cost
    assert "8 h a day on weekdays" in view.key_assumptions, view.key_assumptions


def test_n_of_them_changes_the_gpu_count(real_advisor: Any) -> None:
    view, response = _answer(real_advisor, "full fine-tune llama 3.1 8b on 1B tokens on 8 H100s", "how long on 16 of them?")
    assert response.advice.cluster.gpus == 16
    assert view.changes and view.changes[0].startswith("GPU count 8 -> 16"), view.changes


def test_double_the_users_doubles_them(real_advisor: Any) -> None:
    view, response = _answer(real_advisor, "serve Llama 3.3 70B for 100 users at 8k context", "double the users")
    assert response.advice.effective.concurrency == 200
    assert view.changes and view.changes[0].startswith("users at once 100 -> 200"), view.changes


def test_a_follow_up_not_understood_says_so(real_advisor: Any) -> None:
    conversation = real_advisor.new_conversation()
    first = real_advisor.respond(conversation, "full fine-tune llama 3.1 8b on 1B tokens on 8 H100s")
    again = real_advisor.respond(conversation, "how about 7 then", first.advice)
    assert again.intent == "gibberish" and not again.changes  # the bot's "I didn't understand that" reply
    assert any("“7”" in n for n in again.notes), again.notes


def test_a_first_token_target_says_what_it_did(real_advisor: Any) -> None:
    view, _ = _answer(real_advisor, "serve Llama 3.3 70B for 100 users at 8k context", "we need first token under 2 seconds")
    assert view.changes, view.changes
    assert "no change in the answer" not in view.changes[0] and "first token ≤ 2 s: met" in view.changes[0], view.changes


def test_a_follow_up_that_changes_nothing_says_so(real_advisor: Any) -> None:
    view, _ = _answer(real_advisor, "full fine-tune llama 3.1 8b on 1B tokens on 8 H100s", "what about 8 H100s?")
    assert view.changes == ["nothing changed: that is already the scenario"], view.changes
