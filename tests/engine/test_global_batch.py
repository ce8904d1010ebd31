"""Data parallel is bounded by the batch a run trains with: each replica needs at least one sequence per step, and
published dense runs stop at 16M tokens (Llama 3 405B, Llama 3 paper Table 4; Llama 2 trained every size at 4M).
An 8B model on 16,384 H100s was planned as data parallel x16,384 (134M tokens per step), and "pretrain an 8B model
in 5 days" scaled out the same way; neither is a plan anyone runs."""

from __future__ import annotations

from typing import Any

from engine.advise import advise
from engine.cluster import BATCH_NOTE, MAX_BATCH_TOKENS, data_parallel_cap
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
