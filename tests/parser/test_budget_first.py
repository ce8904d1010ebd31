"""A fine-tune's budget with no model ("what's the biggest model we can fine-tune for $1000?"): the ladder of models
answers the model, so it is not asked; the tokens a run trains on are, every time until said, and never assumed
(between 10M and 10B tokens the answer moves from the largest open models to the smallest). "Which model?" and the
help text were the answers."""

from __future__ import annotations

import pytest

from engine.models import Workload
from parser import Conversation
from parser.budget_first import budget_first, budget_words, training_data_said
from parser.questions import questions_for
from tests.parser.fake_resolver import FakeResolver


@pytest.mark.parametrize(("workload", "kind"), [
    (Workload(intent="train", budget_usd_per_run=1_000), "train"),
    (Workload(mode="full", intent="train", budget_usd_per_run=50_000, dataset_tokens=10**9), "train"),
    (Workload(mode="qlora", intent="train", budget_usd_per_month=5_000, runs_per_month=4), "train"),
    (Workload(mode="inference", intent="serve", budget_usd_per_month=20_000, concurrency=100), "serve"),
    (Workload(budget_usd_per_month=20_000), "serve"),
    (Workload(mode="full", intent="train", budget_usd_per_run=1_000, model="llama-3-8b", params_b=8), None),
    (Workload(mode="pretrain", intent="train", budget_usd_per_run=150_000), None),  # from scratch: no ladder
    (Workload(mode="full", intent="train", objective="grpo", budget_usd_per_run=1_000), None),  # online RL
    (Workload(mode="full", intent="train"), None),
])
def test_what_a_budget_first_question_is(workload: Workload, kind: str | None) -> None:
    assert budget_first(workload) == kind


def test_the_tokens_are_asked_not_the_model() -> None:
    turn = Conversation(FakeResolver()).turn("what's the biggest model we can fine-tune for $1000?")
    assert [q.field for q in turn.questions] == ["mode", "dataset_tokens"]
    assert "$1,000 a run" in turn.questions[1].text and "not assumed" in turn.questions[1].text
    assert turn.workload.dataset_tokens is None


def test_the_tokens_are_asked_again_until_said() -> None:
    conversation = Conversation(FakeResolver())
    conversation.turn("what's the biggest model we can full fine-tune for $1000?")
    again = conversation.turn("on H100s")
    assert [q.field for q in again.questions] == ["dataset_tokens"]
    answered = conversation.turn("100M")
    assert answered.workload.dataset_tokens == 100_000_000 and not answered.questions


def test_a_model_named_is_asked_as_before() -> None:
    asked = questions_for(Workload(mode="full", intent="train", budget_usd_per_run=1_000, params_b=8))
    assert "dataset_tokens" in [q.field for q in asked]
    plain = questions_for(Workload(mode="full", intent="train"))
    assert [q.field for q in plain] == ["model", "dataset_tokens"]  # no budget: the model is asked first


def test_data_said_in_any_form() -> None:
    assert training_data_said(Workload(dataset_tokens=10**8))
    assert training_data_said(Workload(dataset_gb=5))
    assert training_data_said(Workload(dataset_examples=20_000))
    assert training_data_said(Workload(train_steps=1_000, global_batch=128))
    assert not training_data_said(Workload(train_steps=1_000))


def test_budget_words() -> None:
    assert budget_words(Workload(budget_usd_per_run=1_000)) == "$1,000 a run"
    assert budget_words(Workload(budget_usd_per_month=5_000, runs_per_month=4)) == "$5,000 a month (4 runs a month)"
    assert budget_words(Workload(budget_usd_per_month=5_000)) == "$5,000 a month (1 run a month)"


@pytest.mark.parametrize("answer", ["full", "a full one", "ok, full", "full please"])
def test_full_alone_answers_the_method(answer: str) -> None:
    """"QLoRA, LoRA or a full fine-tune?" answered "full" was "I didn't understand that"."""
    conversation = Conversation(FakeResolver())
    conversation.turn("what's the biggest model we can fine-tune for $1000 on 100M tokens?")
    turn = conversation.turn(answer)
    assert turn.workload.mode == "full" and turn.intent == "answer"


def test_full_with_no_method_asked_is_no_answer() -> None:
    conversation = Conversation(FakeResolver())
    conversation.turn("serve llama 3 8b for 20 users")
    assert conversation.turn("full").intent == "gibberish"
