"""The pause between a chat user's turns, as said ("users pause 60 s between questions", "a question a minute per
user"), and the wordings of requests kept in flight that have none ("no pause", "back to back", "closed loop", "N
requests in flight", "N concurrent requests"): parser.think_time. "N users" and "N concurrent users" say nothing
about it (the engine's 20 s for chat users)."""

from __future__ import annotations

import pytest

from parser import Conversation, parse


@pytest.mark.parametrize(("text", "pause"), [
    ("serve llama 3.1 70b for 50 users, users pause 60 s between questions", 60.0),
    ("serve llama 3.1 70b for 50 users, a question a minute per user", 60.0),
    ("serve llama 3.1 70b for 50 users, each user asks a question every 30 seconds", 30.0),
    ("serve 8b for 40 users who think for 20 seconds between turns", 20.0),
    ("serve 8b for 40 users, 10 s think time", 10.0),
    ("serve 8b for 40 users, 2 questions a minute per user", 30.0),
    ("serve 70b to 20 users with 1 min think time", 60.0),
    ("serve llama 3.1 70b for 50 users, no pause", 0.0),
    ("serve llama 3.1 70b for 50 users back to back", 0.0),
    ("serve llama 3.1 70b for 50 users, closed loop", 0.0),
    ("serve llama 3.1 70b for 50 concurrent requests", 0.0),
    ("serve llama 8b at concurrency 64", 0.0),
    ("serve llama 3.1 70b for 50 concurrent requests, users pause 10 s between turns", 10.0),  # said outright wins
])
def test_a_pause_said_or_none(text: str, pause: float) -> None:
    reading = parse(text)
    assert reading.updates.get("think_time_s") == pause, reading.updates
    assert reading.updates.get("concurrency") in (50, 40, 20, 64)


def test_requests_in_flight_are_that_many_at_once_with_no_pause() -> None:
    reading = parse("serve llama 3.1 70b with 50 requests in flight")
    assert reading.updates["concurrency"] == 50 and reading.updates["think_time_s"] == 0.0


@pytest.mark.parametrize("text", [
    "serve llama 3.1 70b for 50 users",
    "serve llama 3.1 70b for 50 concurrent users",
    "how many users can 8 H100s serve Llama 3.1 70B to?",
    "fine-tune llama 3.1 8b with batch 32",
])
def test_users_say_nothing_about_the_pause(text: str) -> None:
    assert "think_time_s" not in parse(text).updates


def test_a_capacity_asked_in_requests_per_second_is_requests_back_to_back() -> None:
    """Users who pause send fewer requests: the rate one H100 sustains is counted with requests kept in flight."""
    assert parse("how many requests per second can one H100 handle for llama 3.1 8b?").updates["think_time_s"] == 0.0


def test_the_note_says_the_pause_back() -> None:
    notes = parse("serve llama 3.1 70b for 50 users, a question a minute per user").notes
    assert "read “a question a minute per user” as each user pausing 60 s between a reply and their next prompt" in notes
    assert not any("pausing" in n or "in flight" in n for n in parse("serve llama 3.1 70b for 50 concurrent requests").notes)


def test_a_thread_follow_up_changes_the_pause(resolver) -> None:  # type: ignore[no-untyped-def]
    chat = Conversation(resolver)
    chat.turn("serve Llama 3.1 70B for 50 users")
    turn = chat.turn("what if users pause 60 s between questions?")
    assert turn.intent == "refine" and turn.workload.think_time_s == 60.0 and turn.workload.concurrency == 50
    turn = chat.turn("no pause")
    assert turn.workload.think_time_s == 0.0 and turn.workload.concurrency == 50
