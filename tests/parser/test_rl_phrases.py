"""Online RL said in words (parser/rl_phrases.py): the method sets the objective, the group size G, the completion
length and beta are read as themselves, and messages that are not RL keep their old reading."""

from __future__ import annotations

import pytest

from parser import Conversation, parse
from tests.parser.fake_resolver import FakeResolver


def _updates(text: str) -> dict:
    return dict(parse(text, FakeResolver()).updates)


@pytest.mark.parametrize(("text", "objective"), [
    ("GRPO on Qwen2.5 7B with 8 rollouts per prompt on 10k prompts", "grpo"),
    ("RLOO on Llama 3.1 8B, 20k prompts", "grpo"),
    ("DAPO on Qwen2.5 7B, 20k prompts", "grpo"),
    ("RL fine-tuning of Qwen2.5 7B with LoRA on 5k prompts", "grpo"),
    ("reinforcement learning with verifiable rewards on Qwen2.5 7B", "grpo"),
    ("PPO on Llama 3.1 8B, 10k prompts", "ppo"),
])
def test_the_method_sets_the_objective_and_training(text: str, objective: str) -> None:
    said = _updates(text)
    assert said["objective"] == objective and said.get("intent") == "train"
    assert said.get("mode") in ("full", "lora")


@pytest.mark.parametrize(("text", "g"), [
    ("GRPO on Qwen2.5 7B with 8 rollouts per prompt on 10k prompts", 8),
    ("GRPO Llama 3.1 8B, num_generations 8", 8),
    ("GRPO Llama 3.1 8B, group size 16", 16),
    ("GRPO Llama 3.1 8B, 16 samples per prompt", 16),
])
def test_group_size(text: str, g: int) -> None:
    said = _updates(text)
    assert said["rl_generations"] == g
    assert "dataset_examples" not in said or said["dataset_examples"] != g  # "16 samples" is no dataset


def test_completion_length_and_beta() -> None:
    said = _updates("GRPO Llama 3.1 8B, 2k-token completions, beta 0.04")
    assert said["rl_completion_tokens"] == 2000 and said["rl_kl_beta"] == 0.04
    assert "output_tokens" not in said and said.get("mode") != "inference"
    assert _updates("GRPO on Llama 3.1 8B, max completion length 2048")["rl_completion_tokens"] == 2048


@pytest.mark.parametrize("text", [
    "serve Llama 3.1 8B, 16 samples per prompt",
    "serve Llama 3.1 8B with 2k-token completions",
    "fine-tune Llama 3.1 8B on 10k examples",
    "DPO on Llama 3.1 8B with 50k preference pairs",
])
def test_not_rl(text: str) -> None:
    said = _updates(text)
    assert said.get("objective") not in ("grpo", "ppo")
    assert not {k for k in said if k.startswith("rl_")}


def test_a_thread_changes_the_assumptions() -> None:
    conv = Conversation(FakeResolver())
    conv.turn("GRPO on Qwen2.5 7B with 8 rollouts per prompt on 10k prompts")
    turn = conv.turn("make it 2k-token completions")
    assert turn.workload.rl_completion_tokens == 2000 and turn.workload.mode == "full"
    assert turn.workload.output_tokens is None
    assert conv.turn("16 generations").workload.rl_generations == 16
    assert conv.turn("beta 0.04").workload.rl_kl_beta == 0.04
    assert conv.turn("with LoRA").workload.objective == "grpo"
