"""Distillation: "distill Llama 3.1 405B into 8B: generate 2B tokens of teacher outputs then SFT".

Two jobs, neither of them training the teacher: (1) the teacher generates the tokens offline, a batch job over
tokens / reply-length prompts (planned and priced as any offline generation job: `Workload.batch_items`); (2) the
student is fine-tuned on those tokens (a full fine-tune unless LoRA or QLoRA is said: TRL's SFTTrainer trains every
weight without a LoRA config). Read as one job, it was sized as a full fine-tune of the 405B on 96 B200s. Each stage
is planned by `engine.advise.advise`; this module adds them up and says which one the bill is made of.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from catalog.records import CatalogData
from engine.advise import advise
from engine.models import Advice, Option, Workload
from engine.recommendation import job_figures, recommended, work_usd

DEFAULT_REPLY_TOKENS = 1000  # a teacher's reply when none is said: the offline-generation default the parser uses
PER_TOKENS = 1e9  # the unit both stages are priced per when the token count is not said


class Stage(BaseModel):
    """One stage's plan: the advice and the pick's figures (None where nothing fits or nothing is priced)."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    advice: Advice
    option: str | None  # the pick's Option.name
    gpus: int | None
    gpu: str | None
    usd: float | None  # the whole stage: the generation job, or one fine-tuning run
    hours: float | None
    nodes: int | None = None
    provider: str | None = None  # the pick's provider id
    pricing: str | None = None  # "on_demand", "spot" or "reserved": what the pick is priced at


class DistillPlan(BaseModel):
    """Both stages for `tokens` tokens of teacher outputs (per `PER_TOKENS` when the count was not said)."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    teacher: str
    student: str | None  # catalog id, or None for a size alone (`student_params_b`)
    student_params_b: float | None
    tokens: float
    tokens_said: bool
    reply_tokens: int
    student_mode: str
    epochs: float  # the student's passes over the tokens
    generation: Stage
    sft: Stage
    total_usd: float | None
    dominant: Literal["generation", "sft"] | None


def _pick(advice: Advice) -> Option | None:
    if not advice.options or advice.recommendation is None:
        return advice.options[0] if advice.options else None
    return recommended(list(advice.options), advice.recommendation)


def _stage(advice: Advice) -> Stage:
    option = _pick(advice)
    if option is None:
        return Stage(advice=advice, option=None, gpus=None, gpu=None, usd=None, hours=None)
    w = advice.effective
    job = job_figures(option, w)
    usd = job.usd if job is not None else work_usd(option, w)
    hours = job.hours if job is not None else option.hours_per_run
    provider = option.tco[0].provider if option.tco else None
    return Stage(advice=advice, option=option.name, gpus=option.cluster.gpus, gpu=option.gpu, usd=usd, hours=hours,
                 nodes=option.cluster.nodes, provider=provider, pricing=w.pricing or "on_demand")


def plan_distillation(teacher: str, data: CatalogData, *, student: str | None = None,
                      student_params_b: float | None = None, tokens: float | None = None,
                      reply_tokens: int | None = None, student_mode: str = "full", epochs: float | None = None,
                      generation_settings: Mapping[str, Any] | None = None,
                      sft_settings: Mapping[str, Any] | None = None, base: Workload | None = None) -> DistillPlan:
    """Plan the teacher's offline generation of `tokens` output tokens and the student's fine-tune on them (`epochs`
    passes, one when not said). `base` carries what else was said for both (provider, pricing, vendor, regions; no
    GPU: each stage picks its own); `generation_settings` / `sft_settings` what was said for one stage (a GPU, a
    provider, spot), over `base`."""
    reply = reply_tokens or DEFAULT_REPLY_TOKENS
    count = float(tokens) if tokens else PER_TOKENS
    common = {k: v for k, v in (base.model_dump(exclude_none=True) if base else {}).items()
              if k in ("provider", "providers", "pricing", "gpu_vendor", "regions")}
    generation = advise(Workload(mode="inference", model=teacher, batch_items=count / reply, output_tokens=reply,
                                 **{**common, **(generation_settings or {})}), data)
    sft = advise(Workload(mode=student_mode, model=student, params_b=None if student else student_params_b,
                          dataset_tokens=int(count), epochs=epochs, **{**common, **(sft_settings or {})}), data)
    first, second = _stage(generation), _stage(sft)
    total = first.usd + second.usd if first.usd is not None and second.usd is not None else None
    dominant: Literal["generation", "sft"] | None = None
    if total is not None:
        dominant = "generation" if (first.usd or 0.0) >= (second.usd or 0.0) else "sft"
    return DistillPlan(teacher=teacher, student=student, student_params_b=student_params_b, tokens=count,
                       tokens_said=bool(tokens), reply_tokens=reply, student_mode=student_mode,
                       epochs=float(epochs) if epochs else 1.0, generation=first,
                       sft=second, total_usd=total, dominant=dominant)
