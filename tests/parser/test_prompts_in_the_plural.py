""""Prompts" in the plural behind a number: a count of prompts ("1M prompts of 500 tokens", a job), a prompt length
("with 4k prompts", as practitioners say it), or a request rate ("10k prompts a day"). The count reading took all of
them, so the length and the rate were dropped and the load was sized at 1,024-token prompts and one stream."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parser import parse
from tests.parser.fake_resolver import FakeResolver


def _updates(text: str) -> dict:
    return dict(parse(text, FakeResolver()).updates)


@pytest.mark.parametrize("text, tokens", [
    ("how many users can 4 H100s serve Llama 3.1 70B to with 4k prompts?", 4000),
    ("serve Llama 3.1 70B for 50 users with 8k prompts", 8000),
    ("serve llama 3 8b to 30 users at 2k prompts", 2000),
])
def test_with_a_context_sized_number_is_the_prompt_length(text: str, tokens: int) -> None:
    updates = _updates(text)
    assert updates.get("input_tokens") == tokens, updates
    assert "job_requests" not in updates


@pytest.mark.parametrize("text, per_s", [
    ("serve llama 3.1 8b with 10k prompts a day", None),  # a day: sized at the busy hour, checked below
    ("summarize with 10k prompts per hour on llama 3 8b", 10_000 / 3600),
    ("serve llama 3 8b at 5 prompts/s", 5.0),
])
def test_prompts_over_a_period_are_a_request_rate(text: str, per_s: float | None) -> None:
    updates = _updates(text)
    assert "input_tokens" not in updates, updates
    assert updates.get("requests_per_s"), updates
    if per_s is not None:
        assert updates["requests_per_s"] == pytest.approx(per_s, rel=1e-6)


def test_a_job_count_stays_a_count() -> None:
    """"1M prompts of 500 tokens": a job of a million prompts, each 500 tokens long (unchanged)."""
    updates = _updates("run 1M prompts of 500 tokens through llama 3 8b")
    assert updates.get("input_tokens") == 500, updates


@given(st.integers(min_value=300_000, max_value=50_000_000))
def test_no_prompt_is_longer_than_any_window(count: int) -> None:
    """Past 256k no number is read as a prompt's length, "with" or not: it counts prompts."""
    updates = _updates(f"serve llama 3 8b with {count} prompts")
    assert updates.get("input_tokens", 0) <= 262_144, updates


@pytest.mark.parametrize("text, hours", [
    ("score 5M prompts with Llama 3.3 70B overnight (6 hours), 1k tokens in, 100 out", 6.0),
    ("summarize 1M docs with llama 3 8b overnight 8h", 8.0),
    ("score 5M prompts with Llama 3.3 70B overnight, 1k tokens in, 100 out", 12.0),
])
def test_overnight_takes_the_hours_said_beside_it(text: str, hours: float) -> None:
    """"overnight (6 hours)" was 12 hours (the word's default), and the plan ran 30% past the user's night."""
    assert _updates(text).get("deadline_hours") == hours
