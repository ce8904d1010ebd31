"""A refinement that cannot apply as said is not applied silently: the conversation says why and
proposes what would ("QLoRA keeps the base in 4-bit; int8 would be LoRA on an 8-bit base: switch?"),
and a bare yes / no settles it, also after the thread was stored and loaded again."""

from __future__ import annotations

import pytest

from parser import Conversation


@pytest.fixture
def chat(resolver) -> Conversation:
    conversation = Conversation(resolver)
    conversation.turn("QLoRA 70B on 1B tokens")
    return conversation


def test_int8_on_qlora_asks_to_switch_instead_of_saying_no_change(chat: Conversation) -> None:
    turn = chat.turn("use int8")
    assert turn.workload.mode == "qlora" and turn.workload.precision in (None, "nf4")  # not silently applied
    [question, *_] = turn.questions
    assert question.text.startswith("QLoRA keeps the base in 4-bit; int8 would be LoRA on an 8-bit base: switch?")
    assert "switch?" in turn.message


@pytest.mark.parametrize(("reply", "mode", "precision"), [("yes", "lora", "int8"), ("no", "qlora", None)])
def test_a_bare_yes_or_no_settles_the_switch(chat: Conversation, resolver, reply: str, mode: str,
                                             precision: str | None) -> None:
    chat.turn("use int8")
    stored = Conversation.from_dict(chat.to_dict(), resolver)  # the bot keeps threads in SQLite between turns
    turn = stored.turn(reply)
    assert turn.workload.mode == mode and turn.workload.precision == precision
    assert not any(q.text.startswith("QLoRA keeps") for q in turn.questions)


def test_a_4bit_base_on_lora_proposes_qlora(resolver) -> None:
    chat = Conversation(resolver)
    chat.turn("LoRA 70B on 1B tokens")
    turn = chat.turn("use nf4")
    assert turn.workload.mode == "lora" and turn.workload.precision is None
    assert turn.questions[0].text.startswith("A 4-bit base is QLoRA")
    assert chat.turn("yes").workload.mode == "qlora"


def test_saying_the_method_with_the_precision_needs_no_question(chat: Conversation) -> None:
    turn = chat.turn("LoRA in int8")
    assert turn.workload.mode == "lora" and turn.workload.precision == "int8"
    assert not any(q.text.startswith("QLoRA keeps") for q in turn.questions)
