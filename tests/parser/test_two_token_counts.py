"""Two token counts in one message, each read by what it is said of.

"10M documents of 2k tokens each ... into 200-token summaries" asked "2k tokens or 200 token?" and sized the job at
1,024 in / 256 out; "2B tokens with 8192-token sequences" took 8192 for the corpus; "60k tokens of context, 2k new
tokens per turn, 500-token replies" asked which of 2k and 500 was the reply; "8k sequences" was dropped.
"""

from __future__ import annotations

import pytest

from parser import parse
from tests.parser.fake_resolver import FakeResolver


def _reading(text: str):  # noqa: ANN202 - a Reading
    return parse(text, FakeResolver())


def test_an_offline_jobs_prompt_and_reply_lengths() -> None:
    reading = _reading("summarize 10M documents of 2k tokens each with Llama 3.1 8B into 200-token summaries, "
                       "must finish within 3 days")
    assert not reading.conflicts
    said = reading.updates
    assert (said["input_tokens"], said["output_tokens"], said["batch_items"]) == (2000, 200, 10_000_000)
    assert said["deadline_hours"] == 72 and said["mode"] == "inference"
    assert "seq_len" not in said


def test_new_tokens_per_turn_are_the_uncached_tail_of_the_context() -> None:
    reading = _reading("serve llama 3.1 70b as a coding agent backend for 40 developers, 60k tokens of context, "
                       "2k new tokens per turn, 500-token replies")
    assert not reading.conflicts
    said = reading.updates
    assert said["seq_len"] == 61440 and said["output_tokens"] == 500 and said["concurrency"] == 4
    assert said["population"] == 40  # a headcount: 10% at once
    # each call's prompt is the context; all but the 2,000 new tokens are in the prefix cache
    assert said["input_tokens"] == 60_000
    assert said["input_tokens"] * (1 - said["prefix_cache_hit"]) == pytest.approx(2000, abs=10)
    assert not any("training data" in n for n in reading.notes), reading.notes


def test_new_tokens_per_turn_without_a_context_are_not_cached_again() -> None:
    said = _reading("serve llama 3.1 70b for 40 developers using Cline, 2k new tokens per turn, 500-token replies").updates
    assert (said["input_tokens"], said["prefix_cache_hit"], said["output_tokens"]) == (2000, 0.0, 500)


def test_new_tokens_alone_stay_a_reply_length() -> None:
    said = _reading("serve llama 3.1 8b for 20 users, 300 new tokens per turn").updates
    assert said["output_tokens"] == 300 and "input_tokens" not in said


@pytest.mark.parametrize("text", [
    "full fine-tune Qwen3-32B on 2B tokens with 8192-token sequences",
    "full fine-tune Qwen3-32B on 2B tokens, 8k sequences",
    "full fine-tune Qwen3-32B on 2B tokens, 8k-token sequences",
    "full fine-tune Qwen3-32B on 2B tokens, sequence length 8k",
    "full fine-tune Qwen3-32B on 2B tokens, seq len 8192",
    "full fine-tune Qwen3-32B on 2B tokens, 8k seq",
])
def test_a_sequence_length_beside_the_corpus(text: str) -> None:
    reading = _reading(text)
    assert not reading.conflicts
    assert reading.updates["seq_len"] == 8192 and reading.updates["dataset_tokens"] == 2_000_000_000


def test_a_count_of_sequences_is_the_training_data() -> None:
    said = _reading("fine-tune llama 3.1 8b on 50k sequences").updates
    assert said.get("dataset_examples") == 50_000 and "seq_len" not in said


def test_serving_with_long_sequences_is_the_context() -> None:
    said = _reading("serve llama 3.1 8b with 32k sequences for 10 users").updates
    assert said["seq_len"] == 32768 and said["concurrency"] == 10


def test_a_length_before_the_documents_is_each_prompt() -> None:
    said = _reading("summarize 10M 2k-token documents with Llama 3.1 8B into 200-token summaries").updates
    assert (said["input_tokens"], said["output_tokens"], said["batch_items"]) == (2000, 200, 10_000_000)
    assert "dataset_tokens" not in said


def test_tokens_per_request_beside_a_reply_length_are_the_prompt() -> None:
    reading = _reading("serve llama 3.1 8b with 4k tokens per request and 300-token replies for 20 users")
    assert not reading.conflicts
    assert (reading.updates["input_tokens"], reading.updates["output_tokens"]) == (4000, 300)
    alone = _reading("serve llama 3.1 8b, 300 tokens per request, 20 users").updates
    assert alone["output_tokens"] == 300 and "input_tokens" not in alone


def test_a_count_of_documents_of_a_length_is_the_training_data() -> None:
    said = _reading("fine-tune llama 3.1 8b on 100k 2k-token documents").updates
    assert (said["dataset_examples"], said["dataset_tokens"]) == (100_000, 200_000_000)
