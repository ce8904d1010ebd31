"""Online RL counted in steps, prompts per step and model sizes (parser/rl_phrases.py).

"1000 steps, 512 prompts per step" read 512 as the whole prompt set (the steps were dropped), "8 rollouts, 50k prompts,
8k completions" asked which of 50k and 8k was the dataset, "an 8B reward model" was not read at all, and a DAPO run
with no prompt count was left unpriced with nothing asked."""

from __future__ import annotations

import pytest

from engine.models import Workload
from parser import parse
from parser.questions import questions_for
from tests.parser.fake_resolver import FakeResolver


def _updates(text: str) -> dict:
    return dict(parse(text, FakeResolver()).updates)


@pytest.mark.parametrize("text", [
    "GRPO Qwen2.5 72B, group size 16, 1000 steps, 512 prompts per step, 2k-token completions",
    "GRPO on Qwen2.5 72B, 1000 steps with a batch of 512 prompts, group size 16",
    "GRPO Qwen2.5 72B, rollout batch size 512, 1000 steps, 16 samples per prompt",
    "GRPO Qwen2.5 72B, train_batch_size=512, total_training_steps 1000, group size 16",
])
def test_prompts_per_step_are_the_global_batch_not_the_dataset(text: str) -> None:
    said = _updates(text)
    assert said["global_batch"] == 512 and said["train_steps"] == 1000
    assert "dataset_examples" not in said and said["rl_generations"] == 16


def test_k_completions_beside_a_group_and_a_prompt_count_is_the_length() -> None:
    reading = parse("GRPO on Qwen2.5 32B with 8 rollouts, 50k prompts, 8k completions on 16 H100s", FakeResolver())
    said = dict(reading.updates)
    assert said["rl_completion_tokens"] == 8000 and said["dataset_examples"] == 50_000
    assert not reading.conflicts


@pytest.mark.parametrize(("text", "field", "value"), [
    ("PPO on Llama 3.1 8B with a 8B reward model, 20k prompts", "rl_reward_params_b", 8.0),
    ("PPO on Llama 3.1 70B, reward model of 7B, 20k prompts", "rl_reward_params_b", 7.0),
    ("PPO on Llama 3.1 70B with a 8b critic, 20k prompts", "rl_critic_params_b", 8.0),
])
def test_reward_and_critic_sizes_are_not_the_model(text: str, field: str, value: float) -> None:
    said = _updates(text)
    assert said[field] == value and said["objective"] == "ppo" and said["dataset_examples"] == 20_000
    assert said.get("params_b") in (None, 8.03, 70.6) and said.get("model") is not None


@pytest.mark.parametrize("text", [
    "fine-tune Llama 3.1 8B on 512 prompts per step",  # no RL said: as before
    "serve Llama 3.1 8B with a 8B reward model",
])
def test_not_rl_is_left_alone(text: str) -> None:
    said = _updates(text)
    assert "global_batch" not in said or said.get("objective") in ("grpo", "ppo")
    assert not {k for k in said if k.startswith("rl_")}


def _asked(**kw) -> list[str]:
    w = Workload(mode="full", model="qwen3-8b", objective="grpo", **kw)
    return [q.text for q in questions_for(w)]


def test_rl_without_a_prompt_count_asks_for_it() -> None:
    """DAPO, 16 samples per prompt, 20k-token completions: no prompts and no steps, so the run cannot be priced."""
    asked = _asked(rl_generations=16, rl_completion_tokens=20_000)
    assert any(q.startswith("How many prompts does the run sample") for q in asked)
    assert any("1,000 steps of how many prompts each" in q for q in _asked(train_steps=1000, rl_completion_tokens=2000))
    assert any("How many prompts per step?" in q for q in _asked(train_steps=1000, dataset_examples=10_000))
    assert not any("prompts" in q for q in _asked(train_steps=1000, global_batch=512, rl_completion_tokens=2000))
    assert not any("prompts does the run" in q for q in _asked(dataset_examples=10_000, rl_completion_tokens=2000))
