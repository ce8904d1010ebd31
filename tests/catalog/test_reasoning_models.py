"""Which models think before they answer: reviewed in models.csv, guessed from the name for a Hub import."""

from __future__ import annotations

from catalog import open_catalog
from catalog.hf_config import reasoning_by_name


def test_the_reviewed_catalog_marks_the_reasoning_families() -> None:
    data = open_catalog().data()
    reasoning = {m.id for m in data.models if m.reasoning}
    assert {"deepseek-r1", "qwq-32b", "gpt-oss-20b", "gpt-oss-120b", "qwen3-32b", "deepseek-r1-distill-llama-70b"} <= reasoning
    assert not reasoning & {"deepseek-v3", "llama-3.1-70b", "qwen2.5-72b", "mixtral-8x7b", "kimi-k2"}


def test_a_hub_import_is_marked_from_its_name() -> None:
    for name in ("deepseek-ai/DeepSeek-R1-0528", "Qwen/QwQ-32B", "moonshotai/Kimi-K2-Thinking", "openai/gpt-oss-120b"):
        assert reasoning_by_name(name), name
    for name in ("meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen2.5-72B-Instruct", "star1-model", "r1x"):
        assert not reasoning_by_name(name), name
