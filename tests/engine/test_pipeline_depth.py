"""A pipeline stage holds at least one layer: LoRA of DeepSeek-V3 on A10G was reported on 16,384 GPUs as "pipeline
parallel x4096 across nodes", for a model of 61 layers."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from catalog import open_catalog
from engine.advise import advise
from engine.architecture import architecture_for
from engine.models import Workload

REAL = open_catalog().data()


def test_no_more_stages_than_layers_in_a_plan_that_fits_nowhere() -> None:
    advice = advise(Workload(mode="lora", model="deepseek-v3", gpu="a10g", dataset_tokens=50_000_000), REAL)
    layers = architecture_for(REAL.model("deepseek-v3"), None).layers
    assert advice.cluster is not None and advice.cluster.pipeline_parallel <= layers
    assert advice.cluster.gpus < 16_384


@settings(max_examples=25, deadline=None)
@given(model=st.sampled_from(["llama-3.1-8b", "llama-3.1-70b", "qwen2.5-72b", "mixtral-8x7b"]),
       gpu=st.sampled_from(["a10g", "l4", "t4", "l40s", "rtx-4090"]),
       mode=st.sampled_from(["full", "lora", "qlora", "pretrain"]))
def test_every_plan_keeps_its_stages_within_the_layers(model: str, gpu: str, mode: str) -> None:
    advice = advise(Workload(mode=mode, model=model, gpu=gpu, dataset_tokens=100_000_000), REAL)
    layers = architecture_for(REAL.model(model), None).layers
    for plan in [advice.cluster, *(o.cluster for o in advice.options)]:
        if plan is not None:
            assert plan.pipeline_parallel <= layers, (plan.parallelism, layers)
