"""FP8 training is rated at the gain runs measure, not the spec sheet's 2x: torchao float8 in torchtitan reports up
to 1.25x at 8B on 8 H100 and up to 1.5x at 405B on 512 GPUs (pytorch/ao float8 README; 1.34-1.43x on 2k H200)."""

from __future__ import annotations

import pytest

from catalog.records import CatalogData
from engine.advise import advise
from engine.models import Workload
from engine.throughput import fp8_training_speedup


def _full(data: CatalogData, model: str, **extra) -> Workload:
    return Workload(mode="full", model=model, params_b=data.model(model).total_params_b, gpu="h100-sxm", gpu_count=8,
                    dataset_tokens=2_000_000_000, **extra)


@pytest.mark.parametrize("params_b, mode, speedup", [(8, "full", 1.25), (70, "full", 1.4), (405, "pretrain", 1.5),
                                                      (70, "lora", 1.25)])
def test_the_gain_by_size(params_b: float, mode: str, speedup: float) -> None:
    assert fp8_training_speedup(params_b, mode) == speedup


def test_an_8b_run_gains_a_quarter_not_double(data: CatalogData) -> None:
    bf16 = advise(_full(data, "llama-3.1-8b"), data).throughput.training_tokens_per_s.value
    fp8 = advise(_full(data, "llama-3.1-8b", precision="fp8"), data).throughput.training_tokens_per_s.value
    assert fp8 / bf16 == pytest.approx(1.25, rel=0.02)
