"""A thread keeps the options a later layer can show (bot.stored), and every layer and follow-up reads the
same from that as from the whole answer: the buttons, the thread words and a refinement's changes."""

from __future__ import annotations

import pytest

from bot.details import build_details_view, build_options_view, render_details, render_options
from bot.render import build_formulas_view, render_formulas
from bot.stored import stored_advice
from engine.models import Advice

QUESTIONS = (
    "QLoRA 70B, 500GB corpus in S3, 20 runs",
    "LoRA mixtral 8x7b r=16 on 50M tokens, data in GCS",
    "Serve Llama 3.1 8B in int8 for 32 concurrent users with 8k context",
    "serve Llama 3.1 8B for 5000 concurrent users",
    "pretrain a 13B model on 1T tokens using spot instances",
    "serve Llama 3.1 70B for 32 users, reserved pricing",
)
FOLLOW_UPS = ("what about 40 runs?", "try A100s", "on AWS", "make it 100 users")


def _layers(advice: Advice, names: dict[str, str]) -> list[object]:
    return [render_details(build_details_view(advice, names)), render_options(build_options_view(advice, names)),
            render_formulas(build_formulas_view(advice))]


@pytest.mark.parametrize("question", QUESTIONS)
def test_every_layer_reads_the_same_from_the_stored_answer(real_advisor, question: str) -> None:
    conversation = real_advisor.new_conversation()
    response = real_advisor.respond(conversation, question)
    full = response.advice
    assert full is not None and full.options
    stored = Advice.model_validate_json(response.advice_json() or "")  # as a button click loads it
    assert len(stored.options) <= len(full.options)
    names = real_advisor.display_names()
    assert _layers(stored, names) == _layers(full, names)
    for follow_up in FOLLOW_UPS:
        state = conversation.to_dict()
        from_full = real_advisor.respond(real_advisor.load_conversation(state), follow_up, full)
        from_stored = real_advisor.respond(real_advisor.load_conversation(state), follow_up, stored)
        assert from_stored.changes == from_full.changes, follow_up


def test_a_long_ranking_is_stored_at_a_fraction_of_its_size(real_advisor) -> None:
    response = real_advisor.respond(real_advisor.new_conversation(), QUESTIONS[0])
    assert response.advice is not None
    full = response.advice.model_dump_json()
    stored = response.advice_json() or ""
    assert len(response.advice.options) > 20
    assert len(stored) < 0.6 * len(full), (len(stored), len(full))
    kept = Advice.model_validate_json(stored)
    assert kept.options_ranked == len(response.advice.options)
    assert [o.name for o in kept.options] == [o.name for o in response.advice.options if o in kept.options]


def test_a_short_ranking_is_stored_whole(real_advisor) -> None:
    response = real_advisor.respond(real_advisor.new_conversation(), "full fine-tune Llama 3.1 70B on 1B tokens on MI300X")
    assert response.advice is not None and len(response.advice.options) <= 12
    assert stored_advice(response.advice) is response.advice
