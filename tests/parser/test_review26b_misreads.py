"""Phrasings the second review today found misread: a catalog model's own name read as a generic MoE ("Qwen3
235B-A22B"), messages a day dropped (one stream, "fine-tune or serve?"), a count of 1000 read as an RTX card, and a
tokens/s total of input and output read as output tokens (11x the fleet)."""

from __future__ import annotations

import pytest

from parser import parse
from parser.normalize import normalize
from tests.parser.fake_resolver import FakeResolver


def _updates(text: str) -> dict:
    return dict(parse(text, FakeResolver()).updates)


@pytest.mark.parametrize("text, kept", [
    ("serve qwen3 235b-a22b for 100 users", "qwen3 235b-a22b"),
    ("serve qwen3-coder 480b-a35b", "480b-a35b"),
])
def test_a_family_name_keeps_its_sizes(text: str, kept: str) -> None:
    assert kept in normalize(text) and "moe-" not in normalize(text)


def test_sizes_alone_are_still_an_moe() -> None:
    assert "moe-235b-a22b" in normalize("serve a 235b-a22b model")


@pytest.mark.parametrize("text, per_s", [
    ("our chatbot gets 50k messages a day, llama 3 70b", 50_000 / 86_400 * 2),
    ("serve llama 3 8b, 1000 messages per hour", 1000 / 3600),
    ("serve llama 3 8b, 1000 prompts per hour", 1000 / 3600),
])
def test_messages_and_prompts_over_a_period_are_a_rate(text: str, per_s: float) -> None:
    updates = _updates(text)
    assert updates.get("requests_per_s") == pytest.approx(per_s, rel=1e-6), updates
    assert "gpu" not in updates and "gpu_count" not in updates


@pytest.mark.parametrize("text", [
    "serve llama 3 8b at 100k tokens/s total (input plus output), 2k-token prompts, 200-token outputs",
    "serve llama 3 8b, 100k tokens/s in and out",
    "serve llama 3 8b at 100k tokens per second of input and output",
])
def test_a_total_of_input_and_output_is_a_load(text: str) -> None:
    updates = _updates(text)
    assert "target_tokens_per_s" not in updates
    assert updates["load_tokens_per_s"] == 100_000


def test_output_tokens_per_second_stay_a_target() -> None:
    assert _updates("serve llama 3 8b at 20k output tokens/s")["target_tokens_per_s"] == 20_000


def test_shorthand_prompt_lengths_beside_a_rate() -> None:
    """"20 QPS, 2k prompts, 300 outputs": the prompts' length (was a count of 2,000, dropped: half the fleet)."""
    updates = _updates("serve llama 3 8b at 20 QPS, 2k prompts, 300 outputs")
    assert updates["input_tokens"] == 2000 and updates["output_tokens"] == 300
    assert "input_tokens" not in _updates("classify 20k prompts with llama 3 8b at 10 qps")


def test_shorthand_completions_beside_prompts_per_step() -> None:
    """"128 prompts per step, 8 generations, 2k completions": 2k is each completion (was a 2,000-prompt dataset)."""
    updates = _updates("GRPO Qwen2.5 7B, 1000 steps, 128 prompts per step, 8 generations, 2k completions")
    assert updates["rl_completion_tokens"] == 2000 and "dataset_examples" not in updates
    assert updates["global_batch"] == 128 and updates["train_steps"] == 1000


@pytest.mark.parametrize("text", ["how much VRAM do I need to run Llama 3 70B?", "can I run llama 3 70b on 2x A100 80GB?",
                                  "can we run mistral 7b on one L4?"])
def test_running_a_model_is_inference(text: str) -> None:
    """"Run" a model is using it: it asked "fine-tune, pretrain, or serve?" and planned a rental meanwhile."""
    updates = _updates(text)
    assert updates["mode"] == "inference" and updates["intent"] == "serve"


@pytest.mark.parametrize("text", ["run a fine-tune of llama 3 8b", "llama 3 8b, 20 runs a month",
                                  "run a LoRA of llama 3 8b on our data"])
def test_a_run_of_training_is_not_inference(text: str) -> None:
    assert _updates(text).get("mode") != "inference"
