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


def test_an_mxfp4_release_is_served_in_mxfp4_on_amd() -> None:
    """gpt-oss ships in MXFP4 only; vLLM's GPT-OSS recipe runs it on MI300X, MI325X and MI355X. It was re-planned
    with "FP8 weights instead (the FP8 release, or --quantization fp8 on the BF16 weights)", neither of which exists."""
    from engine.cluster import integer_kernels

    mi300x = REAL.gpu("mi300x")
    assert integer_kernels(mi300x, native_mxfp4=True) and not integer_kernels(mi300x)
    advice = advise(Workload(mode="inference", model="gpt-oss-120b", gpu="mi300x", concurrency=20), REAL)
    assert advice.options and advice.options[0].precision == "int4"
    assert not any("no AWQ/GPTQ" in n for n in advice.notes), advice.notes
    awq = advise(Workload(mode="inference", model="llama-3.1-70b", precision="int4", gpu="mi300x", concurrency=20), REAL)
    assert any("no AWQ/GPTQ" in n for n in awq.notes)  # an AWQ checkpoint still has no AMD kernels


def test_no_offer_shape_suggests_a_gpu_with_more_memory() -> None:
    """"A GPU with more memory holds it on fewer cards ('try L40S')" was said of MI300X plans (L40S: 48 GB)."""
    advice = advise(Workload(mode="full", model="mixtral-8x22b", dataset_tokens=10**9, gpu="mi300x", nodes=4), REAL)
    problem = next(p for p in advice.problems if p.code == "no_offer_shape")
    suggested = problem.message.split("('try ")[1].split("')")[0]
    named = next(g for g in REAL.gpus if g.name == suggested)
    assert named.memory_gb > REAL.gpu("mi300x").memory_gb


def test_a_fixed_count_that_holds_nothing_is_reported_in_the_weights_the_search_leads_with() -> None:
    """"serve Qwen3-32B for 300 users on 4 L40S": the plans that fit are FP8, but the does-not-fit report sized BF16
    (98.2 GB per GPU, "at most 95 users", "or 12x L40S") right after an FP8 plan of 100 users on the same GPUs."""
    advice = advise(Workload(mode="inference", model="qwen3-32b", gpu="l40s", gpu_count=4, concurrency=300), REAL)
    assert advice.cluster is not None and not advice.cluster.fits
    assert advice.memory.per_gpu_gb < 60, advice.memory.per_gpu_gb  # FP8 weights and cache: ~50 GB, BF16 ~98 GB
    assert advice.notes[0].startswith("FP8 assumed for weights and KV cache")
