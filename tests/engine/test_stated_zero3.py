"""A stated ZeRO-3 (or FSDP) is data parallel with the weights, gradients and optimizer state sharded over every GPU:
it is planned, and when it does not fit shown, as that. "Full fine-tune Qwen2.5 32B on 8 H100s with ZeRO-3" was
planned as tensor parallel x8 (the layout with the least memory once nothing fit), and a 70B on 8 A100 40GB said
"160 GB of 36.0 GB usable per GPU" under TP8, a layout the user had not asked for."""

from __future__ import annotations

import pytest

from catalog import open_catalog
from engine.advise import advise
from engine.models import Workload

REAL = open_catalog().data()


@pytest.mark.parametrize(("model", "gpu"), [("qwen2.5-32b", "h100-sxm"), ("llama-3.1-70b", "a100-sxm-40gb"),
                                            ("llama-3.1-8b", "h100-sxm")])
def test_a_stated_zero3_on_fixed_gpus_is_planned_as_zero3(model: str, gpu: str) -> None:
    w = Workload(mode="full", model=model, gpu=gpu, gpu_count=8, zero_stage=3, dataset_tokens=1_000_000_000)
    cluster = advise(w, REAL).cluster
    assert cluster is not None
    assert (cluster.tensor_parallel, cluster.pipeline_parallel, cluster.data_parallel, cluster.zero_stage) == (1, 1, 8, 3)
    assert cluster.parallelism.startswith("data parallel x8 with ZeRO-3"), cluster.parallelism


def test_a_zero3_that_does_not_fit_says_so_under_zero3_with_the_ways_out() -> None:
    w = Workload(mode="full", model="qwen2.5-32b", gpu="h100-sxm", gpu_count=8, zero_stage=3,
                 dataset_tokens=1_000_000_000)
    advice = advise(w, REAL)
    assert advice.cluster is not None and not advice.cluster.fits
    assert "tensor parallel" not in advice.cluster.parallelism
    note = next(n for n in advice.cluster.notes if n.startswith("does not fit on the 8 GPU(s) you fixed"))
    assert "8-bit Adam" in note and "16x H100" in note, note


def test_a_stated_fsdp_without_a_gpu_count_stays_data_parallel() -> None:
    w = Workload(mode="full", model="llama-3.1-70b", zero_stage=3, dataset_tokens=1_000_000_000)
    cluster = advise(w, REAL).cluster
    assert cluster is not None and cluster.fits
    assert cluster.tensor_parallel == 1 and cluster.pipeline_parallel == 1 and cluster.zero_stage == 3


def test_a_stated_tensor_parallel_is_kept_beside_zero3() -> None:
    w = Workload(mode="full", model="qwen2.5-32b", gpu="h100-sxm", gpu_count=8, zero_stage=3, tensor_parallel=2,
                 dataset_tokens=1_000_000_000)
    cluster = advise(w, REAL).cluster
    assert cluster is not None and cluster.tensor_parallel == 2
