"""A batch said the way practitioners say it: the optimiser's global batch (Megatron-LM --global-batch-size,
torchtitan global_batch_size, HF per-device x accumulation x GPUs) is never the per-GPU micro-batch, and steps with it
are the data. Review 26 found "global batch size 512" read as a micro-batch of 512 (8B planned at TP8 on B300s), "a
global batch of 4M tokens" read as a second dataset, and "5000 steps" dropped."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parser import parse
from tests.parser.fake_resolver import FakeResolver

BATCH_FIELDS = ("batch_size", "global_batch", "global_batch_tokens", "train_steps", "gradient_accumulation")


def _batch(text: str) -> dict[str, Any]:
    reading = parse(text, FakeResolver())
    assert not reading.conflicts, reading.conflicts
    return {k: v for k, v in reading.updates.items() if k in BATCH_FIELDS}


@pytest.mark.parametrize("text, expect", [
    # the review's questions
    ("full fine-tune Llama 3.1 8B on 2B tokens with global batch size 512", {"global_batch": 512}),
    ("fine-tune Llama 3.1 8B for 5000 steps at global batch size 256 with 4096 seq len",
     {"train_steps": 5000, "global_batch": 256}),
    ("full fine-tune Llama 3.1 8B for 10k steps, batch size 64, seq len 8192", {"train_steps": 10_000, "global_batch": 64}),
    ("SFT Llama 3.1 8B on 200k examples averaging 1500 tokens, 3 epochs, global batch 128, how long on 8 H100s?",
     {"global_batch": 128}),
    ("full fine-tune Llama 3.1 8B on 2B tokens with a global batch of 4M tokens", {"global_batch_tokens": 4_000_000}),
    # the explicit Hugging Face pair stays per GPU
    ("full fine-tune Llama 3.1 8B on 50,000 examples of 2,000 tokens, micro batch 4, gradient accumulation 8, on 8 A100s",
     {"batch_size": 4, "gradient_accumulation": 8}),
    ("full fine-tune llama 3.1 8b on 1b tokens, per-device batch size 4, 8 gradient accumulation steps",
     {"batch_size": 4, "gradient_accumulation": 8}),
    ("full fine-tune llama 3.1 8b on 1b tokens, batch size 8, grad accum 4", {"batch_size": 8, "gradient_accumulation": 4}),
    # other words for the same two things
    ("full fine-tune llama 3.1 8b on 1b tokens, effective batch size 128", {"global_batch": 128}),
    ("full fine-tune llama 3.1 8b on 1b tokens with mbs 2 and gbs 256", {"batch_size": 2, "global_batch": 256}),
    ("full fine-tune llama 3.1 8b on 1b tokens, batch size 4 per gpu", {"batch_size": 4}),
    ("full fine-tune llama 3.1 8b, max_steps 2000, global batch 1000", {"train_steps": 2000, "global_batch": 1000}),
    ("full fine-tune llama 3.1 8b, 3000 iterations, global batch size 1M tokens",
     {"train_steps": 3000, "global_batch_tokens": 1_000_000}),
    ("full fine-tune llama 3.1 8b for 2000 training steps, gbs 64", {"train_steps": 2000, "global_batch": 64}),
    ("pretrain a 7b model on 1t tokens, 4M tokens per batch", {"global_batch_tokens": 4_000_000}),
    ("pretrain a 7b model on 1t tokens with a batch size of 4M tokens", {"global_batch_tokens": 4_000_000}),
    ("pretrain a 7b model on 1t tokens at 2m tokens per step for 10k steps",
     {"global_batch_tokens": 2_000_000, "train_steps": 10_000}),
    # a bare "batch size N": past any micro-batch at the sequence length it is global, else per GPU
    ("full fine-tune llama 3.1 8b on 1b tokens, batch size 32", {"global_batch": 32}),
    ("full fine-tune llama 3.1 8b on 1b tokens, batch size 16", {"batch_size": 16}),
    ("full fine-tune llama 3.1 8b on 1b tokens, batch size 8, seq len 8192", {"global_batch": 8}),
    ("pretrain a 7b model on 1t tokens with batch size 1024", {"global_batch": 1024}),
    # serving: a batch is the sequences at once, and steps are not a serving figure
    ("serve llama 3.1 8b with batch 32", {}),
])
def test_a_batch_is_read_as_said(text: str, expect: dict[str, Any]) -> None:
    assert _batch(text) == expect


def test_a_serving_batch_stays_concurrency() -> None:
    assert parse("serve llama 3.1 8b with batch 32", FakeResolver()).updates["concurrency"] == 32


@pytest.mark.parametrize("text, reading, other", [
    ("full fine-tune llama 3.1 8b on 1b tokens, batch size 64", "as the global batch across all GPUs", "“micro-batch 64”"),
    ("full fine-tune llama 3.1 8b on 1b tokens, batch size 4", "as the per-GPU micro-batch", "“global batch 4”"),
])
def test_a_bare_batch_says_how_it_was_read_and_how_to_say_the_other(text: str, reading: str, other: str) -> None:
    [note] = [n for n in parse(text, FakeResolver()).notes if "batch size" in n]
    assert reading in note and other in note, note


def test_a_batch_said_outright_needs_no_note() -> None:
    for text in ("full fine-tune llama 3.1 8b on 1b tokens, global batch size 64",
                 "full fine-tune llama 3.1 8b on 1b tokens, micro-batch 4"):
        assert not [n for n in parse(text, FakeResolver()).notes if "batch" in n], text


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.one_of(st.integers(min_value=1, max_value=200_000), st.sampled_from([1000, 2080, 3090, 4090, 5090])),
       st.sampled_from(["global batch size {n}", "a global batch of {n}", "effective batch size {n}", "gbs {n}",
                        "global batch {n}"]))
def test_a_global_batch_is_never_the_micro_batch(n: int, phrase: str) -> None:
    """Whatever its size, a global batch said is the optimiser's batch, never the per-GPU micro-batch, and never a
    second token count."""
    found = _batch(f"full fine-tune llama 3.1 8b on 2b tokens with {phrase.format(n=n)}")
    assert found == {"global_batch": n}, found
