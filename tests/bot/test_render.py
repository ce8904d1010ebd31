"""Every template renders valid JSON blocks within Slack's limits, with a plain-text fallback."""

from __future__ import annotations

import pytest

from bot.limits import violations
from bot.render import (
    build_formulas_view,
    build_help_view,
    render_formulas,
    render_help,
    render_home,
    render_response,
    render_vram,
)
from bot.service import Response
from tests.bot.factories import make_advice


def response(**kwargs) -> Response:
    advice = make_advice(**kwargs)
    return Response("QLoRA 70B", "describe", advice.workload, advice, ["runs 20 -> 40: compute +$600"],
                    ["Where does the data live?"], ["<@U123> & <!channel> are escaped"])


@pytest.mark.parametrize("kwargs", [{}, {"fits": False}, {"n_options": 0}, {"n_options": 12, "name_len": 3000}])
def test_answers_are_valid(kwargs: dict) -> None:
    for message in render_response(response(**kwargs)):
        assert violations(message.blocks, text=message.text) == []


def test_answer_contains_the_parts_of_the_reply() -> None:
    [message] = render_response(response())
    text = str(message.blocks)
    for part in ("Fits", "Plan:", "Speed:", "Cost:", ":trophy:", "runner-up", "Assumes", "reply to change",
                 "Still open", "What changed", "show_details", "show_options", "show_formulas", "show_chart",
                 "refine_gpu", "refine_cache", "refine_runs"):
        assert part in text, part
    assert "<@U123>" not in text and "&lt;@U123&gt;" in text


def test_help_formulas_home_and_vram_are_valid() -> None:
    messages = [*render_help(build_help_view(None)), *render_formulas(build_formulas_view(make_advice())),
                *render_vram(response())]
    for message in messages:
        assert violations(message.blocks, text=message.text) == []
    assert violations(render_home()["blocks"], max_blocks=100) == []


def test_an_embedding_job_is_told_first_that_it_is_not_sized(real_advisor) -> None:
    """"embed 1 billion documents with bge-large": the reply leads with what is not covered, then the examples; the
    count is not read as a 1B model."""
    response = real_advisor.respond(real_advisor.new_conversation(), "embed 1 billion documents with bge-large")
    assert response.intent == "gibberish" and response.advice is None
    view = build_help_view(response)
    assert view.intro.startswith("Embedding and reranking models (bge, e5, gte, …) are not sized here yet")
    assert not any(n.startswith("embedding") for n in view.notes)
    assert any("count of documents, not a model size" in n for n in view.notes)
    for message in render_help(view):
        assert violations(message.blocks, text=message.text) == []
