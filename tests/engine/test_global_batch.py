"""Data parallel is bounded by the batch a run trains with: each replica needs at least one sequence per step, and
published dense runs stop at 16M tokens (Llama 3 405B, Llama 3 paper Table 4; Llama 2 trained every size at 4M).
An 8B model on 16,384 H100s was planned as data parallel x16,384 (134M tokens per step), and "pretrain an 8B model
in 5 days" scaled out the same way; neither is a plan anyone runs."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.advise import advise
from engine.cluster import ACCUMULATION_NOTE, BATCH_NOTE, MAX_BATCH_TOKENS, data_parallel_cap
from engine.models import Workload

EIGHT_B = Workload(mode="pretrain", model="llama-3.1-8b", dataset_tokens=15 * 10**12)


def _batch_notes(advice: Any) -> list[str]:
    return [n for n in (advice.cluster.notes if advice.cluster else ()) if n.startswith(BATCH_NOTE)]


def test_the_cap_is_one_sequence_per_replica_at_16m_tokens() -> None:
    assert MAX_BATCH_TOKENS == 16_777_216
    assert data_parallel_cap(Workload(mode="pretrain", seq_len=8192, batch_size=1)) == 2048
    assert data_parallel_cap(Workload(mode="full", seq_len=2048, batch_size=2)) == 4096


def test_a_deadline_does_not_scale_an_8b_model_past_the_batch(data: Any) -> None:
    """15T tokens in 5 days would take ~2,600 B200s data-parallel: it stops at 2,048 (seq 8,192, micro-batch 1), says
    why, and the deadline is reported missed instead of met by a 27M-token batch."""
    advice = advise(EIGHT_B.model_copy(update={"deadline_hours": 120}), data)
    plan = advice.cluster
    assert plan is not None and plan.data_parallel <= 2048 and plan.gpus == 2048, plan
    assert any(t.name == "deadline_hours" and not t.met for t in advice.throughput.targets)
    [note] = _batch_notes(advice)
    assert note.startswith(f"{BATCH_NOTE}2,048 GPUs is as far as this model scales data-parallel at a 16M-token "), note
    late = next(n for n in plan.notes if n.startswith("one run takes"))
    assert "(the global batch limits data parallel)" in late, late
    # a deadline the cap does not bind: no note
    roomy = advise(EIGHT_B.model_copy(update={"deadline_hours": 720}), data)
    assert roomy.cluster is not None and roomy.cluster.data_parallel <= 2048 and not _batch_notes(roomy)


def test_a_fixed_gpu_count_past_the_batch_is_planned_but_said(data: Any) -> None:
    fixed = advise(EIGHT_B.model_copy(update={"gpu": "h100-sxm", "gpu_count": 16384}), data)
    assert fixed.cluster is not None and fixed.cluster.gpus == 16384 and fixed.cluster.data_parallel == 16384
    [note] = _batch_notes(fixed)
    assert note.startswith(f"{BATCH_NOTE}data parallel x16,384 means at least 134M tokens per step (one 8,192-token "
                           "sequence per replica), 8x the 16M"), note
    assert "past 2,048 GPUs a model needs more tensor or pipeline parallelism" in note and note.endswith("lower bound")
    at_cap = advise(EIGHT_B.model_copy(update={"gpu": "h100-sxm", "gpu_count": 2048}), data)
    assert at_cap.cluster is not None and at_cap.cluster.data_parallel == 2048 and not _batch_notes(at_cap)


def test_a_split_model_counts_the_split(data: Any) -> None:
    """Llama 3.1 405B on 16,384 H100s is planned tensor x8 and pipeline stages: its data-parallel width stays well
    under the cap, as Meta's own run (TP8 x PP16 x DP128 at 16M tokens) did."""
    advice = advise(Workload(mode="pretrain", model="llama-3.1-405b", dataset_tokens=15_600_000_000_000, gpu="h100-sxm",
                             gpu_count=16384), data)
    plan = advice.cluster
    assert plan is not None and plan.tensor_parallel == 8 and plan.data_parallel <= 2048, plan
    assert not _batch_notes(advice)


# ---- a global batch said: the optimiser's batch, never memory per GPU ------------------------------------------------
# Megatron-LM's --global-batch-size, torchtitan's global_batch_size and Hugging Face's per-device batch x gradient
# accumulation x GPUs are reached with gradient accumulation: review 26 found "global batch size 512" planned as 512
# sequences per GPU (8B at tensor parallel x8 on B300s, twice the price of the same job on 8 H100s).

STEPS_SETTINGS = settings(max_examples=12, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@STEPS_SETTINGS
@given(mode=st.sampled_from(["full", "lora", "qlora", "pretrain"]),
       model=st.sampled_from(["llama-3.1-8b", "llama-3.1-70b"]),
       gpus=st.sampled_from([None, 8, 16]),
       batch=st.one_of(st.builds(lambda n: {"global_batch": n}, st.integers(min_value=1, max_value=100_000)),
                       st.builds(lambda n: {"global_batch_tokens": n}, st.integers(min_value=1_000, max_value=10**8))))
def test_a_global_batch_never_changes_memory_per_gpu(data: Any, mode: str, model: str, gpus: int | None,
                                                     batch: dict[str, int]) -> None:
    plain = Workload(mode=mode, model=model, dataset_tokens=10**9, gpu="h100-sxm" if gpus else None, gpu_count=gpus)
    said = plain.model_copy(update=batch)
    before, after = advise(plain, data), advise(said, data)
    assert before.memory is not None and after.memory is not None
    assert after.memory.per_gpu_gb == pytest.approx(before.memory.per_gpu_gb), (batch, after.memory.per_gpu_gb)
    assert after.effective.batch_size == before.effective.batch_size == 1
    if gpus:  # the GPUs fixed: the same layout, whatever the batch
        assert before.cluster is not None and after.cluster is not None
        assert (after.cluster.tensor_parallel, after.cluster.data_parallel) == (
            before.cluster.tensor_parallel, before.cluster.data_parallel)


def test_steps_times_the_global_batch_times_the_sequence_is_the_data(data: Any) -> None:
    """"5000 steps at global batch 256, seq len 4096" trains 5.24B tokens: priced, with the arithmetic said."""
    advice = advise(Workload(mode="full", model="llama-3.1-8b", train_steps=5000, global_batch=256, seq_len=4096), data)
    assert advice.effective.dataset_tokens == 5000 * 256 * 4096 and advice.effective.epochs == 1
    [steps] = [a for a in advice.assumptions if a.field == "train_steps"]
    assert steps.why == "5,000 steps × 256 sequences × 4,096 tokens = 5.24B tokens trained", steps.why
    assert "dataset_tokens" not in advice.missing and advice.options
    # in tokens a step: the same, without a sequence length
    tokens = advise(Workload(mode="pretrain", params_b=1.0, train_steps=100_000, global_batch_tokens=1_000_000), data)
    assert tokens.effective.dataset_tokens == 10**11
    assert "100,000 steps × 1M tokens a step = 100B tokens trained" in [a.why for a in tokens.assumptions]
    # Hugging Face's pair on the GPUs said
    pair = advise(Workload(mode="full", model="llama-3.1-8b", train_steps=1000, batch_size=4, gradient_accumulation=8,
                           gpu="a100-sxm-80gb", gpu_count=8, seq_len=2000), data)
    assert pair.effective.dataset_tokens == 1000 * 4 * 8 * 8 * 2000


def test_steps_with_data_said_set_the_passes_over_it(data: Any) -> None:
    advice = advise(Workload(mode="full", model="llama-3.1-8b", dataset_tokens=10**9, epochs=3, train_steps=2000,
                             global_batch=256), data)
    assert advice.effective.dataset_tokens == 10**9
    assert advice.effective.epochs == pytest.approx(2000 * 256 * 2048 / 1e9)
    [steps] = [a for a in advice.assumptions if a.field == "train_steps"]
    assert "1.05 passes over the 1B tokens of data (not the 3 epochs said: steps decide" in steps.why, steps.why


def test_steps_without_a_batch_are_not_data(data: Any) -> None:
    advice = advise(Workload(mode="full", model="llama-3.1-8b", train_steps=5000), data)
    assert advice.effective.dataset_tokens is None and "dataset_tokens" in advice.missing


def test_the_global_batch_said_caps_data_parallel(data: Any) -> None:
    """A deadline scales out only as far as the batch said gives each replica a sequence (16 here, not 2,048)."""
    advice = advise(Workload(mode="pretrain", model="llama-3.1-70b", dataset_tokens=10**12, deadline_hours=336,
                             global_batch=16), data)
    plan = advice.cluster
    assert plan is not None and plan.data_parallel <= 16, plan
    [note] = _batch_notes(advice)
    assert "at the global batch you said (16 sequences of 8,192 tokens)" in note, note
    fixed = advise(Workload(mode="full", model="llama-3.1-8b", dataset_tokens=10**9, gpu="h100-sxm", gpu_count=8,
                            global_batch=3), data)
    [note] = _batch_notes(fixed)
    assert note.startswith(f"{BATCH_NOTE}data parallel x8 means at least 8 sequences per step"), note


def test_the_plan_says_how_it_reaches_the_global_batch(data: Any) -> None:
    advice = advise(Workload(mode="full", model="llama-3.1-8b", dataset_tokens=2 * 10**9, gpu="h100-sxm", gpu_count=8,
                             global_batch=512), data)
    assert advice.cluster is not None
    [note] = [n for n in advice.cluster.notes if n.startswith(ACCUMULATION_NOTE)]
    assert note == (f"{ACCUMULATION_NOTE}the global batch of 512 sequences is 8 data-parallel replicas × micro-batch 1 "
                    "× 64 accumulation steps: it sets the optimiser step, not memory per GPU")
