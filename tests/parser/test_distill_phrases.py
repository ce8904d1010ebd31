"""'distill A into B' read as two stages (parser.distill): the teacher named, the student after "into"."""

from __future__ import annotations

from typing import Any

import pytest

from parser import parse


@pytest.fixture(scope="module")
def catalog() -> Any:
    import catalog as catalog_module

    return catalog_module.open_catalog()


@pytest.mark.parametrize(("text", "expect"), [
    ("distill llama 3.1 405b into 8b: generate 2B tokens of teacher outputs then SFT",
     {"teacher": "llama-3.1-405b", "student": "llama-3.1-8b", "student_said": "8b", "tokens": 2e9,
      "student_mode": "full"}),
    ("distill llama 3.1 70b into qwen2.5 7b with LoRA",
     {"teacher": "llama-3.1-70b", "student": "qwen2.5-7b", "student_said": "qwen2.5-7b", "student_mode": "lora"}),
    ("distill llama 3.3 70b into a 3b model, 500M tokens",
     {"teacher": "llama-3.3-70b", "student_params_b": 3.0, "student_said": "3b", "tokens": 5e8,
      "student_mode": "full"}),
])
def test_a_distillation(catalog: Any, text: str, expect: dict[str, Any]) -> None:
    reading = parse(text, catalog)
    assert reading.distill is not None and not reading.unknown_names and not reading.conflicts
    assert reading.distill.model_dump(exclude_none=True, exclude_defaults=False) == expect | (
        {} if "student_mode" in expect else {"student_mode": "full"})


@pytest.mark.parametrize("text", ["serve DeepSeek R1 distill 70B", "full fine-tune llama 3.1 8b on 2B tokens",
                                  "generate 2B tokens of synthetic data with llama 3.1 405b"])
def test_not_a_distillation(catalog: Any, text: str) -> None:
    assert parse(text, catalog).distill is None
