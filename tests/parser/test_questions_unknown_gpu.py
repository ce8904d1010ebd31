"""A GPU the catalog does not know is asked about, first: "pretrain DeepSeek-V3 on 14.8T tokens on 2048 H800" (before
the H800 was a catalog row) read the count and dropped the name, and the unknown name was a note the first message
cut, so the answer read as one about 2,048 B200s."""

from __future__ import annotations

from fake_resolver import FakeResolver

from parser import Conversation

RESOLVER = FakeResolver()


def _asked(*texts: str) -> list[str]:
    conversation = Conversation(resolver=RESOLVER)
    turn = None
    for text in texts:
        turn = conversation.turn(text)
    assert turn is not None
    return [q.text for q in turn.questions]


def test_an_unknown_gpu_with_a_count_is_the_first_question() -> None:
    asked = _asked("serve llama 3.1 8b for 20 users on 8 h900")
    assert asked and "h900" in asked[0] and "Planned on the catalog's pick until you name a GPU the catalog has" in asked[0]
    assert "“on 8 H100”" in asked[0], asked


def test_an_unknown_gpu_keeps_the_threads_gpu_and_says_so() -> None:
    asked = _asked("serve llama 3.1 8b for 20 users on 8 h100", "what about 8 h900?")
    assert asked and "h900" in asked[0] and "Planned on the thread's H100 SXM" in asked[0], asked


def test_a_known_gpu_beside_it_is_planned_without_the_question() -> None:
    """"on h100, h900 or whatever": the H100 is planned; the other name stays a note, not a question."""
    for text in ("serve llama 3.1 8b for 20 users on 8 h100", "fine-tune llama 3.1 8b on 1B tokens with LoRA on an a100"):
        assert not any("Planned on" in q for q in _asked(text)), text


def test_the_question_is_asked_again_for_another_unknown_gpu() -> None:
    """Asked once per name said, not once per thread: the second unknown name is as silent a swap as the first."""
    asked = _asked("serve llama 3.1 8b for 20 users on 8 h900", "what about 8 h950?")
    assert asked and "h950" in asked[0], asked
