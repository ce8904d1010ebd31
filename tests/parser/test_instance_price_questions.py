"""Price questions that name an instance type: "what does it cost per month to run 4 p5.48xlarge?" and "2
p5en.48xlarge reserved for a year, monthly" got the help text ("it" was read as the thread's scenario, and a period
with no "cost" word as no question)."""

from __future__ import annotations

import pytest

from parser import Conversation, parse
from tests.parser.fake_resolver import FakeResolver


@pytest.mark.parametrize(("text", "gpus"), [
    ("what does it cost per month to run 4 p5.48xlarge?", 32),
    ("2 p5en.48xlarge reserved for a year, monthly", 16),
    ("monthly cost of 2 p5en.48xlarge on AWS, reserved 1 year", 16),
    ("how much for 4 p5.48xlarge for a month?", 32),
    ("4 p5.48xlarge per hour", 32),
])
def test_an_instance_price_question(text: str, gpus: int) -> None:
    reading = parse(text, FakeResolver())
    assert reading.intent == "prices", reading
    assert reading.updates["gpu_count"] == gpus


@pytest.mark.parametrize("text", ["4 p5.48xlarge", "serve llama 3.1 8b on 2 p5.48xlarge"])
def test_an_instance_without_a_price_word_or_period_is_not_a_price_question(text: str) -> None:
    assert parse(text, FakeResolver()).intent != "prices"


def test_in_a_thread_it_is_the_scenario_on_those_instances() -> None:
    chat = Conversation(FakeResolver())
    chat.turn("serve llama 3.1 8b for 20 users")
    turn = chat.turn("what does it cost per month on 2 p5.48xlarge?")
    assert turn.intent != "prices"
    assert turn.workload.instance_type == "p5.48xlarge"
