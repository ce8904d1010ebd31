"""A translation's reply is about as long as its source: "translate 1M documents of 3k tokens each" sized 256-token
replies, a tenth of the tokens the job generates."""

from __future__ import annotations

import pytest

from parser import parse
from tests.parser.fake_resolver import FakeResolver


@pytest.mark.parametrize(("text", "tokens"), [
    ("translate 1M documents of 3k tokens each with Llama 3.3 70B", 3000),
    ("serve a translation API with llama 3.1 8b at 20 rps, 400-token prompts", 400),
])
def test_a_translation_reply_is_the_prompt_length(text: str, tokens: int) -> None:
    reading = parse(text, FakeResolver())
    assert reading.updates.get("output_tokens") == tokens, reading.updates
    assert any("a translation is about as long as its source" in n for n in reading.notes), reading.notes


def test_the_rate_uses_the_translation_length() -> None:
    reading = parse("serve a translation API with llama 3.1 8b at 20 rps, 400-token prompts", FakeResolver())
    assert reading.updates["target_tokens_per_s"] == pytest.approx(20 * 400)


@pytest.mark.parametrize("text", [
    "translate 1M documents of 3k tokens each with Llama 3.3 70B, 500 output tokens",  # said: kept
    "summarize 1M documents of 3k tokens each with Llama 3.3 70B",  # not a translation
    "translate 1M documents with Llama 3.3 70B",  # no prompt length to copy
])
def test_no_translation_length(text: str) -> None:
    reading = parse(text, FakeResolver())
    assert reading.updates.get("output_tokens") in (None, 500)
    assert not any("a translation is about" in n for n in reading.notes)
