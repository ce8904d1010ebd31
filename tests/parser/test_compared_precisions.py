"""Two weight precisions set against each other ("AWQ int4 vs FP8", "fp8 or bf16") are a comparison, not a conflict."""

from __future__ import annotations

import pytest

from parser import parse
from tests.parser.fake_resolver import FakeResolver


@pytest.mark.parametrize("text, first, second", [
    ("Llama 3 70B AWQ int4 vs FP8 on H100 for 50 users, which is cheaper?", "int4", "fp8"),
    ("serve llama 3 8b in fp8 or bf16 for 20 users", "fp8", "bf16"),
    ("serve llama 3 8b in int8 versus int4", "int8", "int4"),
])
def test_compared(text: str, first: str, second: str) -> None:
    reading = parse(text, FakeResolver())
    assert reading.compared_precisions == (first, second)
    assert reading.updates["precision"] == first
    assert not any(c.field == "precision" for c in reading.conflicts)


@pytest.mark.parametrize("text", ["serve llama 3 8b fp8 and int4", "serve llama 3 8b in awq int4"])
def test_not_compared(text: str) -> None:
    assert parse(text, FakeResolver()).compared_precisions == ()
