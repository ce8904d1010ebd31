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
    # nothing said for a stage (GPU, provider, pricing) or where both may run: empty
    assert reading.distill.model_dump(exclude_none=True, exclude_defaults=False) == expect | (
        {} if "student_mode" in expect else {"student_mode": "full"}) | {"generation": {}, "sft": {}, "where": {}}


@pytest.mark.parametrize("text", ["serve DeepSeek R1 distill 70B", "full fine-tune llama 3.1 8b on 2B tokens",
                                  "generate 2B tokens of synthetic data with llama 3.1 405b"])
def test_not_a_distillation(catalog: Any, text: str) -> None:
    assert parse(text, catalog).distill is None


@pytest.mark.parametrize(("text", "expect"), [
    ("what about 4B tokens?", {"tokens": 4e9}),
    ("500-token replies", {"reply_tokens": 500}),
    ("reply length 2000 tokens", {"reply_tokens": 2000}),
    ("try H100s", {"generation.gpu": "h100-sxm", "sft.gpu": "h100-sxm"}),
    ("H100s for the student", {"generation.gpu": None, "sft.gpu": "h100-sxm"}),
    ("use h200 for the generation and h100 for the sft", {"generation.gpu": "h200-sxm", "sft.gpu": "h100-sxm"}),
    ("on Lambda", {"generation.provider": "lambda", "sft.provider": "lambda"}),
    ("use spot", {"generation.pricing": "spot", "sft.pricing": "spot"}),
    ("spot for the generation only", {"generation.pricing": "spot", "sft.pricing": None}),
    ("lora student", {"student_mode": "lora"}),
    ("what about qlora?", {"student_mode": "qlora"}),
    ("2 epochs", {"epochs": 2.0}),
    ("on 16 GPUs", {"generation.gpu_count": None, "sft.gpu_count": 16}),
    ("the student is qwen2.5 7b", {"student": "qwen2.5-7b", "teacher": "llama-3.1-405b"}),
])
def test_a_follow_up_in_a_distillation_thread(catalog: Any, text: str, expect: dict[str, Any]) -> None:
    """Each changes the distillation, not the thread's workload (which re-planned a fine-tune of the teacher)."""
    from parser.conversation import Conversation

    thread = Conversation(catalog)
    thread.turn("distill llama 3.1 405b into 8b: generate 2B tokens of teacher outputs then SFT")
    turn = thread.turn(text)
    assert turn.distill is not None and turn.distill_before is not None, turn.message
    assert not turn.unknown_names
    for key, value in expect.items():
        found: Any = turn.distill
        for part in key.split("."):
            found = getattr(found, part)
        assert found == value, key
    restored = Conversation.from_dict(thread.to_dict(), catalog)
    assert restored.distill == turn.distill


@pytest.mark.parametrize("text", ["serve it to 100 users", "fine-tune llama 3.1 70b with lora on 1B tokens"])
def test_another_question_leaves_the_distillation(catalog: Any, text: str) -> None:
    from parser.conversation import Conversation

    thread = Conversation(catalog)
    thread.turn("distill llama 3.1 405b into 8b: generate 2B tokens of teacher outputs then SFT")
    turn = thread.turn(text)
    assert turn.distill is None and thread.distill is None
    assert "distill" not in thread.to_dict()
