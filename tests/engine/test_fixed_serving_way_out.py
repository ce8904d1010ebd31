"""A service too big for the GPUs the user fixed: the ways out are stated at the per-user speed floor, not by memory
alone. 300 users of Qwen3-32B on 4 L40S offered "at most 248 users, or 8x L40S": 248 fit the memory at about 10
tokens/s each, and 8 L40S hold all 300 at 14.4; a buyer steered there gets half the GPUs the service needs."""

from __future__ import annotations

import re

from catalog import open_catalog
from engine.advise import advise
from engine.models import Workload

REAL = open_catalog().data()


def _problem(w: Workload) -> str:
    advice = advise(w, REAL)
    return next(p.message for p in advice.problems if p.message.startswith("Does not fit on"))


def test_the_fixed_gpus_users_and_all_users_gpus_are_said_at_the_floor() -> None:
    w = Workload(mode="inference", model="qwen3-32b", gpu="l40s", gpu_count=4, concurrency=300)
    message = _problem(w)
    assert "or 8x L40S 48GB (by memory alone)" in message, message
    found = re.search(r"At ≥20 tokens/s per user: the 4 GPUs you fixed serve about ([\d,]+) users, and all 300 need "
                      r"(\d+)x L40S 48GB \((\d+) replicas of (\d+), ([\d.]+) tokens/s each\)\.$", message)
    assert found is not None, message
    held, gpus, replicas, group, speed = int(found[1].replace(",", "")), int(found[2]), int(found[3]), int(found[4]), float(found[5])
    assert held < 248 and gpus == replicas * group > 8 and speed >= 19  # the assumed 20, within its slack
    # the same numbers the engine gives when asked each way: capacity on the 4, and the 300 with no count fixed
    free = advise(w.model_copy(update={"gpu_count": None}), REAL)
    assert free.cluster is not None and free.cluster.gpus == gpus
    assert round(free.throughput.decode_tokens_per_s_per_sequence.value, 1) == speed


def test_a_fit_by_memory_that_also_keeps_the_floor_adds_nothing() -> None:
    """Training and fitting plans are untouched: only a serving plan that does not fit on fixed GPUs is restated."""
    fits = advise(Workload(mode="inference", model="llama-3.1-8b", gpu="h100-sxm", gpu_count=2, concurrency=20), REAL)
    assert fits.cluster is not None and fits.cluster.fits
    assert not any("tokens/s per user: the" in p.message for p in fits.problems)


def test_users_past_what_the_fixed_gpus_batch_are_said_not_a_missing_price() -> None:
    """Qwen3-235B for 500 users on 8 H100s: the model fits their memory, but no replica batches 500 users; it said
    "the catalog lists aws p5.48xlarge … but has no sourced on-demand price" under a tick."""
    from engine.advise import USERS_PAST_FIXED

    advice = advise(Workload(mode="inference", model="qwen3-235b-a22b", gpu="h100-sxm", gpu_count=8, concurrency=500), REAL)
    (problem,) = [p for p in advice.problems if p.code == USERS_PAST_FIXED]
    assert problem.message.startswith("The model fits 8x H100 SXM5 80GB, but not beside 500 users' KV cache at 4,096 tokens")
    assert "no sourced" not in " ".join(p.message for p in advice.problems)
    found = re.search(r"the 8 GPUs you fixed serve about ([\d,]+) users, and all 500 need (\d+)x H100", problem.message)
    assert found is not None and int(found[1].replace(",", "")) < 500 and int(found[2]) > 8, problem.message
