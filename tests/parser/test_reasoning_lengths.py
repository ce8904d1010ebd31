"""A reasoning model's trace length: "reasoning traces around 8k tokens", "8k thinking tokens per answer". Read as a
context window or dropped, and the replies kept at the default length, so the KV cache and decode time were sized for
a quarter of the tokens each request generates."""

from __future__ import annotations

import pytest

from parser import parse
from tests.parser.fake_resolver import FakeResolver

_R1 = "serve DeepSeek-R1 for 200 concurrent users, "


@pytest.mark.parametrize(("text", "tokens"), [
    (_R1 + "reasoning traces around 8k tokens", 8000), (_R1 + "8k thinking tokens per answer", 8000),
    (_R1 + "8k tokens of reasoning", 8000), ("serve qwq 32b for 20 users with a thinking budget of 4k tokens", 4000),
    (_R1 + "12k reasoning tokens", 12000),
])
def test_a_reasoning_length_is_the_reply_length(text: str, tokens: int) -> None:
    reading = parse(text, FakeResolver())
    assert reading.updates.get("output_tokens") == tokens, reading.updates
    assert "seq_len" not in reading.updates
    assert any("a reasoning model decodes its trace" in n for n in reading.notes), reading.notes


def test_reasoning_said_without_a_count_sets_nothing() -> None:
    reading = parse(_R1 + "with reasoning, 32k context", FakeResolver())
    assert reading.updates.get("seq_len") == 32768
    assert "output_tokens" not in reading.updates


def test_training_on_reasoning_traces_is_not_a_reply() -> None:
    assert "output_tokens" not in parse("fine-tune qwen 7b on reasoning traces of 8k tokens", FakeResolver()).updates
