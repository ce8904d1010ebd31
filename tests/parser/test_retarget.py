"""A follow-up that is only a number or a duration changes the one target the thread set: "what about 2 s?" after a
p99 end-to-end latency got "I didn't understand that", and "make it 50k" after "20k output tokens/s" got "I couldn't
tell what “50k” is for". Where the thread holds several numbers it could be, it is asked, never guessed."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.models import Workload
from parser import Conversation
from parser.fold import END_TO_END_CUE, FIRST_TOKEN_CAP_S, FIRST_TOKEN_SHARE
from parser.retarget import bare_target, retargeted
from tests.parser.fake_resolver import FakeResolver

E2E = "serve llama 3.1 70b with p99 end-to-end latency under 5 s for 300-token answers, 50 users"


def _thread(*messages: str) -> tuple[Conversation, object]:
    conversation = Conversation(FakeResolver())
    turn = None
    for message in messages:
        turn = conversation.turn(message)
    return conversation, turn


@pytest.mark.parametrize(("text", "said"), [
    ("what about 2 s", ("2 s", 2.0, "s")), ("2s", ("2 s", 2.0, "s")), ("how about 500 ms", ("500 ms", 0.5, "s")),
    ("ok, 1.5 seconds then", ("1.5 seconds", 1.5, "s")), ("make it 50k", ("50k", 50_000.0, None)),
    ("what if we need 30k", ("30k", 30_000.0, None)), ("200", ("200", 200.0, None)),
])
def test_a_bare_value(text: str, said: tuple) -> None:
    assert bare_target(text) == said


@pytest.mark.parametrize("text", ["what about 10k runs", "what about 3 days", "make it 50k users", "try a100s",
                                  "2 nodes"])
def test_more_than_a_value_is_left_to_the_grammar(text: str) -> None:
    assert bare_target(text) is None


def test_an_end_to_end_latency_is_split_again() -> None:
    conversation, turn = _thread(E2E, "on H100", "what about 2 s?")
    assert turn.intent == "refine"
    assert turn.workload.target_ttft_s == pytest.approx(0.2)
    assert turn.workload.target_tokens_per_s_per_user == pytest.approx(300 / 1.8, abs=0.05)
    assert any(n.startswith("the end-to-end latency 5 s → 2 s; read “2 s” as a first token within 0.2 s") for n in turn.notes)
    assert turn.workload.gpu == "h100-sxm" and turn.workload.concurrency == 50  # the rest of the thread is kept
    again = conversation.turn("and 1.5 seconds?")
    assert again.workload.target_ttft_s == pytest.approx(0.15)
    assert END_TO_END_CUE in Conversation.from_dict(conversation.to_dict()).cues  # a stored thread keeps it


@given(st.integers(min_value=1, max_value=60), st.integers(min_value=1, max_value=60))
def test_the_new_split_adds_up_to_the_new_latency(first: int, second: int) -> None:
    conversation, _ = _thread(f"serve llama 3 8b, end-to-end latency under {first} s, 300-token responses")
    turn = conversation.turn(f"what about {second} s?")
    ttft = min(FIRST_TOKEN_CAP_S, second * FIRST_TOKEN_SHARE)
    w = turn.workload
    assert w.target_ttft_s == pytest.approx(ttft, rel=1e-6)
    assert w.target_ttft_s + 300 / w.target_tokens_per_s_per_user == pytest.approx(second, rel=2e-3)


def test_a_target_said_outright_ends_the_split() -> None:
    conversation, _ = _thread(E2E, "time to first token under 1 s")
    assert END_TO_END_CUE not in conversation.cues
    turn = conversation.turn("what about 2 s?")  # a first token and a speed, neither the latency's: which one?
    assert not turn.changed and any("no latency target to change" in n for n in turn.notes)


def test_a_time_to_first_token_alone_is_changed() -> None:
    _, turn = _thread("serve llama 3 8b for 20 users, time to first token under 1 s", "how about 500 ms")
    assert turn.changed == {"target_ttft_s": (1.0, 0.5)} and turn.intent == "refine"


def test_a_throughput_target_takes_the_number() -> None:
    _, turn = _thread("we need 20k output tokens/s for llama 3.1 8b", "make it 50k")
    assert turn.changed == {"target_tokens_per_s": (20_000.0, 50_000.0)} and turn.intent == "refine"
    assert "read “50k” as the thread's total tokens/s target: 20,000 → 50,000" in turn.notes


def test_a_request_rate_takes_the_number_not_its_derived_total() -> None:
    _, turn = _thread("serve llama 3 8b at 20 requests per second", "what about 30?")
    assert turn.workload.requests_per_s == 30


@pytest.mark.parametrize(("messages", "choices"), [
    ((E2E, "make it 50k"), "“50,000 users” or “50,000-token replies”"),  # users and reply length said
    (("$20k a month, biggest model we can serve for 100 users?", "what about 30k?"), "“30,000 users” or “$30,000 a month”"),
    (("serve llama 3 8b for 50 users on 4 H100s", "what about 8?"), "“8 users” or “8 GPUs”"),
])
def test_two_numbers_it_could_be_are_asked(messages: tuple[str, ...], choices: str) -> None:
    _, turn = _thread(*messages)
    assert not turn.changed and turn.intent == "gibberish"
    [note] = [n for n in turn.notes if "say what it counts" in n]
    assert note.endswith(choices), note
    assert not any(n.startswith("I couldn't tell") for n in turn.notes)  # said once


def test_a_thousandfold_step_is_asked() -> None:
    """"make it 50k" after 50 users is more likely tokens or dollars than a 1,000x fleet."""
    _, turn = _thread("serve llama 3 8b for 50 users", "make it 50k")
    assert not turn.changed and any("users at once 50 → 50,000? Say “50k users”" in n for n in turn.notes)
    _, near = _thread("serve llama 3 8b for 50 users", "make it 200")
    assert near.changed == {"concurrency": (50, 200)}


def test_a_pending_question_takes_the_number_first() -> None:
    conversation, first = _thread("serve llama 3 8b")
    assert [q.field for q in first.questions] == ["concurrency"]
    assert conversation.turn("50").workload.concurrency == 50


def test_nothing_to_change_yet() -> None:
    assert retargeted("what about 2 s", Workload(model="llama-3-8b", mode="inference"), set()) == (
        {}, "“2 s”: this thread has no latency target to change; say e.g. “time to first token under 2 s” or "
            "“end-to-end under 2 s”")
    assert retargeted("what about 10k runs", Workload(concurrency=5), set()) is None
