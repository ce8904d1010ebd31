"""Turing and Volta GPUs have no BF16: vLLM refuses bfloat16 there (use --dtype half), so a 16-bit plan on a T4 or
V100 is labelled FP16. Same bytes per weight: only the label changes ("1x T4 16GB (on-demand, BF16)" was a setting
that does not start)."""

from __future__ import annotations

import pytest

from catalog import open_catalog
from engine.advise import advise
from engine.cluster import sixteen_bit
from engine.models import Workload

REAL = open_catalog().data()


@pytest.mark.parametrize(("gpu", "label"), [("t4", "FP16"), ("v100-sxm2-16gb", "FP16"), ("a10g", "BF16"), ("h100-sxm", "BF16")])
def test_the_sixteen_bit_format_follows_the_architecture(gpu: str, label: str) -> None:
    record = REAL.gpu(gpu)
    assert record is not None, gpu
    assert sixteen_bit(record) == label


def test_a_t4_plan_says_fp16() -> None:
    advice = advise(Workload(mode="inference", model="llama-3.2-3b", gpu="t4", concurrency=5), REAL)
    assert advice.options and all("FP16" in o.name and "BF16" not in o.name for o in advice.options)
    assert advice.notes[0].startswith("no FP8 tensor cores on T4 16GB: planned with FP16 weights"), advice.notes[0]
    assert "--dtype half" in advice.notes[0]
