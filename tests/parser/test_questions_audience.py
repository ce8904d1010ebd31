"""A large count of "users" asks whether they generate at once or are online: a chat product's users online
are mostly reading or typing, and sizing each of them as a stream overbuys the fleet 5-10x."""

from __future__ import annotations

from fake_resolver import FakeResolver

from parser import Conversation

RESOLVER = FakeResolver()


def _turns(*texts: str) -> Conversation:
    conversation = Conversation(resolver=RESOLVER)
    for text in texts:
        last = conversation.turn(text)
    conversation.last = last  # type: ignore[attr-defined]
    return conversation


def _asked(*texts: str) -> list[str]:
    return [q.text for q in _turns(*texts).last.questions]  # type: ignore[attr-defined]


def test_five_thousand_users_are_asked_whether_they_generate_at_once() -> None:
    for text in ("serve llama 3 8b for 5000 concurrent users", "serve llama 3 8b for 5000 users"):
        asked = _asked(text)
        assert any("generating at the same moment" in q and "“750 at once”" in q for q in asked), (text, asked)


def test_no_audience_question_for_streams_a_small_count_or_a_rate() -> None:
    for text in ("serve llama 3 8b for 5000 concurrent streams", "serve llama 3 8b for 5000 users at once",
                 "serve llama 3 8b for 200 concurrent users", "serve llama 3 8b at 50 requests per second"):
        assert not any("same moment" in q for q in _asked(text)), text


def test_the_answer_sets_the_streams_and_the_question_is_not_asked_again() -> None:
    for reply, active in (("750 at once", 750), ("only 500 active at a time", 500), ("800 active users", 800)):
        conversation = _turns("serve llama 3 8b for 5000 concurrent users", reply)
        assert conversation.workload.concurrency == active, reply
        assert not any("same moment" in q.text for q in conversation.last.questions)  # type: ignore[attr-defined]
    conversation = _turns("serve llama 3 8b for 5000 concurrent users", "we're fine with that, use spot")
    assert conversation.workload.concurrency == 5000
    assert not any("same moment" in q.text for q in conversation.last.questions)  # type: ignore[attr-defined]
