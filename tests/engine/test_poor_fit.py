"""A GPU the user named that takes a fleet where another does the work for a fraction: the plan stays the one asked
for, and a note says the GPU is the problem with what the catalog's pick costs. LoRA of Llama 4 Maverick on L40S was
168 GPUs on 21 nodes at 1% effective MFU, $2,197 a run, with a tick and no word that one B200 node does it for $29."""

from __future__ import annotations

import re

from catalog import open_catalog
from engine.advise import POOR_FIT_NOTE, advise
from engine.models import Workload

REAL = open_catalog().data()


def _poor(advice) -> list[str]:
    return [n for n in advice.notes if n.startswith(POOR_FIT_NOTE)]


def test_a_fleet_of_the_wrong_gpu_is_called_a_poor_fit() -> None:
    w = Workload(mode="lora", model="llama-4-maverick", gpu="l40s", dataset_tokens=100_000_000)
    advice = advise(w, REAL)
    assert advice.cluster is not None and advice.cluster.gpu == "l40s" and advice.cluster.nodes >= 4
    (note,) = _poor(advice)
    assert note.startswith(f"{POOR_FIT_NOTE}L40S 48GB takes {advice.cluster.gpus} GPUs on {advice.cluster.nodes} nodes "
                           "here; "), note
    # the catalog's cheapest run on another GPU (a B200 or H200 node: one run ranks on its compute, not on a month of
    # storage left on the provider)
    assert re.search(r"\(\$[\d,]+ against \$[\d,]+ a run\): reply “try (B200|H200)” to plan on it", note), note
    free = advise(w.model_copy(update={"gpu": None}), REAL)
    assert free.options[0].gpu != "l40s" and f"{free.options[0].name} does it for" in note


def test_a_serving_fleet_of_small_gpus_is_called_a_poor_fit() -> None:
    advice = advise(Workload(mode="inference", model="llama-3.1-405b", gpu="l4", concurrency=100), REAL)
    (note,) = _poor(advice)
    assert "a month): reply “try" in note


def test_a_sound_plan_a_fixed_count_or_owned_gpus_are_left_alone() -> None:
    # one node of the GPU named: no fleet, no check
    assert not _poor(advise(Workload(mode="lora", model="llama-3.1-70b", gpu="h100-sxm", dataset_tokens=10**8), REAL))
    # a count they fixed is hardware they have or want: its plan is the question, not the GPU
    fixed = Workload(mode="lora", model="llama-4-maverick", gpu="l40s", gpu_count=168, dataset_tokens=100_000_000)
    assert not _poor(advise(fixed, REAL))
    # their own GPUs are bought already
    owned = fixed.model_copy(update={"data_location": "onprem"})
    assert not _poor(advise(owned, REAL))
