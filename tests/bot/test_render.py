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


@pytest.mark.parametrize("text", [
    "embed 100M documents of 500 tokens each with bge-large-en-v1.5",
    "cross-encoder reranker bge-reranker-v2-m3 on 1000 queries per second with 100 candidates each",
    "serve an encoder model of 568M parameters at 1000 requests/s",
    "serve Qwen3-Embedding-8B for 1000 requests per second",
])
def test_an_encoder_is_not_sized_as_a_chat_model(real_advisor, text: str) -> None:
    """A reranker at 1,000 queries/s with 100 candidates each was sized as 1,000 chat requests/s of 256-token replies
    (7 GH200 for $11.7k a month, 7-20x too few: 100k pairs a second are each a full forward pass); an embedding job
    asked the mode and the model's size. Neither is sized: the reply says so and how an encoder's GPU-hours go."""
    response = real_advisor.respond(real_advisor.new_conversation(), text)
    assert response.intent == "gibberish" and response.advice is None
    view = build_help_view(response)
    assert view.intro.startswith("Embedding and reranking models (bge, e5, gte, …) are not sized here yet"), view.intro
    assert "2 x parameters FLOPs per token" in view.intro
    assert view.questions == []
    # nothing under it sizes the encoder after all ("I'll size it as a generic 8B model")
    assert not any("size it as" in n or "response length" in n or "Tell me its size" in n for n in view.notes), view.notes


def test_embeddings_beside_an_llm_leave_the_llm_sized(real_advisor) -> None:
    response = real_advisor.respond(real_advisor.new_conversation(),
                                    "RAG chatbot on Llama 3.3 70B for 50 users with bge embeddings")
    assert response.advice is not None and response.advice.options
