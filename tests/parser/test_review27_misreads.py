"""Phrasings the review of GRPO runs and example counts found misread.

GRPO: "128 prompts/step" was read as 128 prompts in all (the run sized at one pass: 23 min instead of ~14 h), "8
samples each" as a dataset of 8 prompts ("4e+03 passes over the 8 prompts"), and "4k max completion" not at all (sized
at 1,024). Example counts: "avg 512 tok", "512 tokens each", "~2k tokens each" were read as a sequence length, the
data sized at ~1,000 tokens an example, and the answer asked for the length just said."""

from __future__ import annotations

import pytest

from parser import parse
from tests.parser.fake_resolver import FakeResolver


def _reading(text: str):
    return parse(text, FakeResolver())


@pytest.mark.parametrize("text", [
    "GRPO qwen3-32b, 8 rollouts per prompt, 200 steps, 128 prompts/step, 4k completions",
    "GRPO qwen3-32b, 8 rollouts/prompt, 200 steps, 128 prompts per step, 4k completions",
    "GRPO qwen3-32b, 200 steps, batch of 128 prompts, 8 generations, 4k max completion",
    "GRPO qwen3-32b, 200 steps, 128 prompts/step, 8 samples each, max completion 4k",
    "GRPO qwen3-32b, 200 steps, 128 prompts per step, 8 samples each, 4096 max completion length",
])
def test_prompts_per_step_group_size_and_completion_length_are_read(text: str) -> None:
    said = dict(_reading(text).updates)
    assert said["global_batch"] == 128 and said["train_steps"] == 200, said
    assert said["rl_generations"] == 8 and said["rl_completion_tokens"] in (4000, 4096), said
    assert "dataset_examples" not in said, said


def test_samples_each_beside_a_prompt_count_is_the_group_not_the_dataset() -> None:
    said = dict(_reading("GRPO qwen2.5 7b math, 500 steps, 64 prompts per step, 8 samples each, "
                         "1k token completions").updates)
    assert said["rl_generations"] == 8 and said["global_batch"] == 64 and "dataset_examples" not in said, said
    prompts = dict(_reading("GRPO qwen2.5 7b on 10k prompts, 16 samples each, 300 steps").updates)
    assert prompts["rl_generations"] == 16 and prompts["dataset_examples"] == 10_000, prompts


def test_samples_each_without_rl_is_left_alone() -> None:
    said = dict(_reading("lora llama 3.1 8b on 1M examples, 512 tokens each, 8 samples each").updates)
    assert not {k for k in said if k.startswith("rl_")}, said


@pytest.mark.parametrize("text, examples, tokens, seq_len", [
    ("lora llama 3.1 8b on 1M examples avg 512 tok", 1_000_000, 512_000_000, None),
    ("lora llama 3.1 8b on 1M examples, 512 tokens each", 1_000_000, 512_000_000, 512),
    ("sft llama 3.1 8b on 200k conversations ~2k tokens each", 200_000, 400_000_000, 2048),
    ("DPO llama 3.1 8b on 50k preference pairs, 2k tokens each", 50_000, 200_000_000, 2048),  # 2 sequences a pair
    ("qlora llama 3.3 70b on 10k examples avg 1500 tokens, 3 epochs", 10_000, 15_000_000, None),
    ("lora llama 3.1 8b on 100k examples, 2k tokens per example", 100_000, 200_000_000, 2048),
    # the forms that already worked, on the same path
    ("lora llama 3.1 8b on 1M examples of 512 tokens", 1_000_000, 512_000_000, 512),
    ("lora llama 3.1 8b, 1M samples averaging 512 tokens", 1_000_000, 512_000_000, None),
])
def test_examples_times_their_length_is_the_data(text: str, examples: int, tokens: int, seq_len: int | None) -> None:
    """An average is no sequence length (examples vary); "of" and "each" say every example's, as before for "of"."""
    reading = _reading(text)
    said = dict(reading.updates)
    assert said["dataset_examples"] == examples and said["dataset_tokens"] == tokens, said
    assert said.get("seq_len") == seq_len, said
    assert any("tokens per epoch" in n for n in reading.notes), reading.notes
    assert not any("as the sequence length" in n for n in reading.notes), reading.notes


def test_pairs_of_a_length_say_no_sequence_length_note() -> None:
    """"20k pairs of 1k tokens" was read right, with a note telling the user to say "1k tokens of data" instead."""
    reading = _reading("dpo llama 3.1 8b on 20k pairs of 1k tokens")
    assert dict(reading.updates)["dataset_tokens"] == 40_000_000
    assert not any("as the sequence length" in n for n in reading.notes), reading.notes


def test_a_length_that_is_not_each_examples_is_not_multiplied() -> None:
    said = dict(_reading("lora llama 3.1 8b on 100k examples, 4096 tokens context").updates)
    assert "dataset_tokens" not in said and said["seq_len"] == 4096, said
