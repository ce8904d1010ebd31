"""Agents and coding assistants as a service's users, and the prefix cache said in words.

"40 developers using Cline, 30k-token prompts" was a chat service whose every prompt was prefilled whole: the
agent's calls resend the conversation so far, mostly in the prefix cache. "90% prefix cache hits" was read as a
cached dataset (the word "cache"), and "no prefix caching" as not caching the training data.
"""

from __future__ import annotations

import pytest

from engine.models import Workload
from parser import Conversation, parse, questions_for
from tests.parser.fake_resolver import FakeResolver


def _updates(text: str) -> dict:
    return dict(parse(text, FakeResolver()).updates)


@pytest.mark.parametrize("text", [
    "serve llama 3.1 70b for 40 developers using Cline, 30k-token prompts",
    "llama 3.1 70b as the backend of our coding agents",
    "serve llama 3.1 8b for Cursor and Claude Code users, 20 devs",
    "agentic workflows with tool calling on llama 3.1 70b, 10 users",
])
def test_agents_and_coding_assistants_are_read(text: str) -> None:
    said = _updates(text)
    assert said.get("agentic") is True, said
    assert said.get("mode", "inference") == "inference"


@pytest.mark.parametrize("text", [
    "fine-tune llama 3.1 8b for tool calling on 1B tokens",
    "serve llama 3.1 8b for 50 users",
    "QLoRA 70B, cache the dataset",
])
def test_no_agent_where_none_is_served(text: str) -> None:
    assert "agentic" not in _updates(text)


@pytest.mark.parametrize(("text", "share"), [
    ("serve llama 3.1 70b for 20 users, 90% prefix cache hits", 0.9),
    ("serve llama 3.1 70b for 20 users with a prefix cache hit rate of 85%", 0.85),
    ("serve llama 3.1 70b for 20 users, kv cache hit rate 0.7", 0.7),
    ("serve llama 3.1 70b for 20 users, no prefix caching", 0.0),
    ("serve llama 3.1 70b for 20 users, prefix caching off", 0.0),
    ("serve llama 3.1 70b for 20 users, 100% cache hits", 0.99),  # a prompt's last message is always new
])
def test_the_prefix_cache_share_is_read_and_not_as_a_cached_dataset(text: str, share: float) -> None:
    said = _updates(text)
    assert said["prefix_cache_hit"] == pytest.approx(share)
    assert "cache_dataset" not in said


def test_prefix_caching_said_bare_sets_nothing() -> None:
    said = _updates("serve llama 3.1 70b for 20 users with prefix caching")
    assert "prefix_cache_hit" not in said and "cache_dataset" not in said


def test_caching_the_dataset_still_reads() -> None:
    assert _updates("QLoRA 70B, 500GB in S3, cache the dataset")["cache_dataset"] is True


def test_a_thread_changes_the_cache_share() -> None:
    conversation = Conversation(resolver=FakeResolver())
    first = conversation.turn("serve llama 3.1 70b for 40 developers using Cline, 30k-token prompts")
    assert first.workload.agentic and first.workload.input_tokens == 30_000
    assert conversation.turn("95% prefix cache hits").workload.prefix_cache_hit == pytest.approx(0.95)
    after = conversation.turn("no prefix caching").workload
    assert after.prefix_cache_hit == 0.0 and after.agentic and after.input_tokens == 30_000


def test_an_agent_with_no_prompt_length_is_asked_for_it() -> None:
    w = Workload(mode="inference", model="llama-3.1-70b", concurrency=40, agentic=True)
    asked = next(q for q in questions_for(w) if q.field == "input_tokens")
    assert "agent call's prompt" in asked.text and "32,000-token prompts, 80% of each already in the prefix cache" in asked.text
    said = w.model_copy(update={"input_tokens": 30_000})
    assert not [q for q in questions_for(said) if q.field == "input_tokens"]


def test_the_question_quotes_the_cache_share_said() -> None:
    w = Workload(mode="inference", model="llama-3.1-70b", concurrency=40, agentic=True, prefix_cache_hit=0.9)
    asked = next(q for q in questions_for(w) if q.field == "input_tokens")
    assert "32,000-token prompts, 90% of each already in the prefix cache" in asked.text
