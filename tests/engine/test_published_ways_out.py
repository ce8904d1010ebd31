"""GPUs the user fixed that hold the model only as a 4- or 8-bit quant: the answer keeps that plan and names what
the published weights take, from the engine's own search with the count left open (more of the same GPU, and one
node of a bigger one of the same vendor when it is cheaper or comparable and as fast). "Can we run DeepSeek-V3 on
8x H100?" had said only "serve an AWQ or GPTQ 4-bit checkpoint", where the deployments people run keep its FP8
release on 2 nodes of H100 or one node of H200."""

from __future__ import annotations

import pytest

from catalog.records import CatalogData
from engine.advise import advise
from engine.models import Workload
from engine.published import PUBLISHED_NOTE


def _serve(data: CatalogData, model: str, gpu: str, count: int | None, **extra) -> Workload:
    record = data.model(model)
    return Workload(mode="inference", intent="serve", model=model, params_b=record.total_params_b, gpu=gpu,
                    gpu_count=count, **extra)


def _note(advice) -> str | None:
    return next((n for n in advice.notes if n.startswith(PUBLISHED_NOTE)), None)


def test_deepseek_on_8_h100_names_two_nodes_of_h100_and_one_of_h200_in_fp8(data: CatalogData) -> None:
    advice = advise(_serve(data, "deepseek-v3", "h100-sxm", 8), data)
    assert advice.options[0].precision == "int4" and advice.cluster.gpus == 8  # the plan that fits the 8 stays
    note = _note(advice)
    assert note is not None and ", published in FP8, takes " in note
    # the same figures as the engine's own plan with the count left open
    free = advise(_serve(data, "deepseek-v3", "h100-sxm", None), data).options[0]
    assert free.precision == "fp8" and free.cluster.gpus == 16 and free.cluster.nodes == 2
    assert f"16x H100 SXM5 80GB on 2 nodes (${free.total_usd:,.0f} a month" in note
    h200 = advise(_serve(data, "deepseek-v3", "h200-sxm", None), data).options[0]
    assert h200.cluster.gpus == 8 and h200.cluster.nodes == 1 and h200.total_usd < free.total_usd
    assert f", or 8x H200 SXM 141GB on one node (${h200.total_usd:,.0f} a month" in note


def test_a_bf16_model_on_one_a100_names_its_8_bit_plan_on_more(data: CatalogData) -> None:
    advice = advise(_serve(data, "qwen2.5-72b", "a100-sxm-80gb", 1), data)
    assert advice.options[0].precision == "int4"
    note = _note(advice)
    assert note is not None and "Qwen2.5 72B, published in BF16, takes 2x A100 SXM4 80GB (FP8 weight-only, $" in note


@pytest.mark.parametrize("model, gpu, count, extra", [
    ("deepseek-v3", "h100-sxm", 8, {"precision": "int4"}),  # the 4-bit weights were asked for
    ("deepseek-v3", "h100-sxm", None, {}),  # no count fixed: the plan is already the published weights
    ("llama-3.1-405b", "h100-sxm", 8, {}),  # FP8 fits the 8: no quant below 8 bits
    ("deepseek-v3", "h100-sxm", 8, {"data_location": "onprem"}),  # their own GPUs: no rental to set beside them
])
def test_not_said_otherwise(data: CatalogData, model: str, gpu: str, count: int | None, extra: dict) -> None:
    assert _note(advise(_serve(data, model, gpu, count, **extra), data)) is None
