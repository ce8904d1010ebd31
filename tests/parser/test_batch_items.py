"""Batch jobs over short texts: "classify 50M tweets (~60 tokens each) ..., output one label". The tweets were not a
count of prompts (a one-stream chat service was sized), "~60 tokens each" became a 60-token context window, and "one
label" a reply of exactly one token."""

from __future__ import annotations

import pytest

from parser import parse
from parser.neighbours import LABEL_REPLY_TOKENS
from tests.parser.fake_resolver import FakeResolver


@pytest.mark.parametrize("text", [
    "classify 50M tweets (~60 tokens each) with Qwen2.5 7B, output one label, done by Friday",
    "tag 50M tweets with Qwen2.5 7B",
    "run sentiment analysis on 50M tweets with Qwen2.5 7B",
    "classify 50M tweets with Qwen2.5 7B as an offline batch job",
])
def test_tweets_are_the_prompts_of_a_batch_job(text: str) -> None:
    reading = parse(text, FakeResolver())
    assert reading.updates.get("batch_items") == 50e6, reading.updates
    assert reading.updates.get("mode") == "inference"


@pytest.mark.parametrize(("text", "count"), [
    ("summarize 2M log lines with llama 3.1 8b", 2e6), ("tag 300k comments with llama 3.1 8b", 300e3),
    ("extract fields from 1M invoices with llama 3.1 8b", 1e6), ("score 40k resumes with llama 3.1 8b", 40e3),
    ("classify 5M posts with llama 3.1 8b", 5e6), ("translate 3M sentences with llama 3.1 8b", 3e6),
    ("label 800k support calls with llama 3.1 8b", 800e3), ("process 2M listings with llama 3.1 8b", 2e6),
])
def test_common_item_nouns(text: str, count: float) -> None:
    assert parse(text, FakeResolver()).updates.get("batch_items") == count


def test_tool_calls_are_not_a_job() -> None:
    assert "batch_items" not in parse("run an agent making 10k tool calls with qwen2.5 7b", FakeResolver()).updates


@pytest.mark.parametrize("text", ["classify 50M tweets (~60 tokens each) with Qwen2.5 7B",
                                  "classify 50M tweets of ~60 tokens with Qwen2.5 7B"])
def test_tokens_each_beside_the_items_is_the_prompt(text: str) -> None:
    reading = parse(text, FakeResolver())
    assert reading.updates.get("input_tokens") == 60, reading.updates
    assert "seq_len" not in reading.updates


@pytest.mark.parametrize("text", ["classify 50M tweets with Qwen2.5 7B, output one label",
                                  "tag 5M posts with qwen2.5 7b, return a single label each"])
def test_one_label_is_a_few_tokens_with_a_note(text: str) -> None:
    reading = parse(text, FakeResolver())
    assert reading.updates.get("output_tokens") == LABEL_REPLY_TOKENS
    assert any("a label is ~1-5 tokens" in n for n in reading.notes), reading.notes


def test_a_reply_length_said_beats_the_label() -> None:
    reading = parse("classify 1M emails with a label with llama 3.1 8b, 20 output tokens", FakeResolver())
    assert reading.updates.get("output_tokens") == 20


@pytest.mark.parametrize("text", [
    "classify 50 million tweets with Qwen2.5 7B, one-word labels, within 12 hours",
    "tag 1M posts with Llama 3.1 8B, a single label each",
])
def test_one_word_labels_are_a_short_reply(text: str) -> None:
    assert dict(parse(text, FakeResolver()).updates)["output_tokens"] == 5


def test_a_count_of_categories_is_not_a_reply_length() -> None:
    assert "output_tokens" not in dict(parse("classify 1M emails into 5 categories with Llama 3.1 8B", FakeResolver()).updates)
