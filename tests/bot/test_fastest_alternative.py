"""A training answer's "fastest" alternative is a plan a team would run instead of the pick
(engine.recommendation.runnable_instead): "GRPO LoRA on Llama 3.1 8B, 16 generations per prompt, 5k prompts, 4k-token
completions" offered "fastest: AWS 1376x A100 SXM4 40GB (172 nodes of 8), $1,157/run, 18 min" beside a $55 pick on
8 H100s, and a 72B GRPO run 8,192 V100s at 29x its cost."""

from __future__ import annotations

from engine.recommendation import (
    FASTEST_COST_FACTOR,
    FASTEST_GPU_FACTOR,
    FASTEST_MIN_GPUS,
    best_tco,
    work_usd,
)
from tests.bot.answers import answered

QUESTIONS = (
    "GRPO LoRA on Llama 3.1 8B, 16 generations per prompt, 5k prompts, 4k-token completions",
    "GRPO Qwen2.5 72B, group size 16, 1000 steps, 512 prompts per step, 2k-token completions",
    "QLoRA fine-tune Llama 3.1 8B on 50M tokens",
    "full fine-tune Llama 3.1 8B on 2B tokens, 3 epochs, data in GCS",
)


def test_the_fastest_row_is_a_plan_someone_would_run(real_advisor) -> None:
    response, _view, text = answered(
        real_advisor, "GRPO LoRA on Llama 3.1 8B, 16 generations per prompt, 5k prompts, 4k-token completions")
    advice = response.advice
    by_name = {o.name: o for o in advice.options}
    primary = by_name[advice.recommendation.primary]
    assert "1376x" not in text and "172 nodes" not in text
    for name in (advice.recommendation.fastest, *advice.recommendation.alternatives):
        if name is None:
            continue
        option = by_name[name]
        assert option.cluster.gpus <= max(FASTEST_MIN_GPUS, FASTEST_GPU_FACTOR * primary.cluster.gpus)
    fastest = by_name.get(advice.recommendation.fastest or "")
    if fastest is not None:
        t, p = best_tco(fastest), best_tco(primary)
        assert t is not None and p is not None
        assert float(t.job_usd or t.per_run_usd or 0) <= FASTEST_COST_FACTOR * float(p.job_usd or p.per_run_usd or 0)


def test_no_training_answer_offers_a_scale_out_nobody_runs(real_advisor) -> None:
    for question in QUESTIONS:
        response, _view, _text = answered(real_advisor, question)
        advice = response.advice
        by_name = {o.name: o for o in advice.options}
        primary = by_name[advice.recommendation.primary]
        for name in (advice.recommendation.fastest, *advice.recommendation.alternatives):
            if name is None:
                continue
            option = by_name[name]
            assert option.cluster.gpus <= max(FASTEST_MIN_GPUS, FASTEST_GPU_FACTOR * primary.cluster.gpus), question
        if advice.recommendation.fastest:
            fastest = by_name[advice.recommendation.fastest]
            assert work_usd(fastest, advice.effective) <= FASTEST_COST_FACTOR * work_usd(primary, advice.effective)
