"""Offline jobs planned in stages or by arithmetic: n samples a prompt with a scoring pass, an eval suite, and the
compute-optimal model a fixed fleet and window pre-train.

Why its own module: each was sized as something else (one sample a prompt; a 1-stream service; a question back for
the model's size). Each stage here is an offline batch job planned by `engine.advise.advise` (as the distillation's
generation is: `engine.distill`), so the GPUs, hours and prices are the planner's own.
- Sampling (rejection sampling, best-of-n): vLLM's `SamplingParams(n=16)` prefills the prompt once and decodes 16
  completions from it (its prefix cache holds the prompt), so the job is prompts x n replies with (n-1)/n of each
  prompt cached; the scoring stage is the reward model's prefill over prompt + completion, one token out, no decode.
- Eval: lm-evaluation-harness's multiple-choice tasks are log-likelihood requests, one per choice (a prefill of the
  few-shot context and the choice); its generative tasks (GSM8K chain-of-thought) decode. The benchmarks' public
  sizes are in `BENCHMARKS`; prompt lengths are approximate and said as such.
- Compute-optimal: C = 6 N D with D = 20 N (Hoffmann et al. 2022, arXiv 2203.15556), so N = sqrt(C / 120) for the
  compute the window holds, C = GPUs x seconds x dense BF16 peak x MFU. The MFU is the planner's for that model on
  those GPUs (it is re-planned at the size found, twice, so the two agree).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from catalog.records import CatalogData
from engine.advise import advise
from engine.distill import Stage, _stage
from engine.models import DEFAULT_SETUP_HOURS, Workload
from engine.throughput import request_shape

CHINCHILLA_TOKENS_PER_PARAM = 20.0  # Hoffmann et al. 2022: ~20 training tokens per parameter at the optimum
FLOPS_PER_PARAM_TOKEN = 6.0  # forward and backward: C = 6 N D (Kaplan et al. 2020; Hoffmann et al. 2022)
FIRST_GUESS_MFU = 0.40  # where the search for the optimal size starts; the planner's own MFU replaces it


@dataclass(frozen=True)
class Benchmark:
    """One benchmark as lm-evaluation-harness runs it: its items, the requests each makes, and their lengths."""

    name: str
    items: int  # questions in the split the harness scores (public dataset sizes)
    choices: float  # log-likelihood requests per item (0 for a generative task)
    shots: int
    prompt_tokens: int  # approximate: the few-shot context and the question (Llama 3 tokenizer)
    generated_tokens: int  # a generative task's average reply (0 for multiple choice)


# the split the harness scores and the setting most reports use (the Open LLM Leaderboard's, and the papers')
BENCHMARKS: dict[str, Benchmark] = {
    "mmlu": Benchmark("MMLU", 14_042, 4, 5, 620, 0),  # Hendrycks et al. 2021, test split
    "mmlu_pro": Benchmark("MMLU-Pro", 12_032, 0, 5, 1_600, 400),  # 5-shot chain-of-thought, generative
    "hellaswag": Benchmark("HellaSwag", 10_042, 4, 0, 110, 0),  # validation split
    "arc": Benchmark("ARC-Challenge", 1_172, 4, 0, 60, 0),
    "arc_easy": Benchmark("ARC-Easy", 2_376, 4, 0, 55, 0),
    "winogrande": Benchmark("WinoGrande", 1_267, 2, 0, 40, 0),  # validation (xl dev)
    "truthfulqa": Benchmark("TruthfulQA (MC2)", 817, 7.8, 0, 330, 0),
    "piqa": Benchmark("PIQA", 1_838, 2, 0, 60, 0),
    "boolq": Benchmark("BoolQ", 3_270, 2, 0, 170, 0),
    "gpqa": Benchmark("GPQA", 448, 4, 0, 260, 0),
    "gsm8k": Benchmark("GSM8K", 1_319, 0, 8, 900, 180),  # 8-shot chain-of-thought generations
    "math": Benchmark("MATH", 5_000, 0, 4, 1_000, 350),
    "bbh": Benchmark("BIG-Bench Hard", 6_511, 0, 3, 1_000, 160),
    "humaneval": Benchmark("HumanEval", 164, 0, 0, 150, 220),
    "ifeval": Benchmark("IFEval", 541, 0, 0, 60, 400),
}


@dataclass(frozen=True)
class StagedJob:
    """Up to two stages of one offline job, with their sum (None where a stage was not planned)."""

    first: Stage
    second: Stage | None
    total_usd: float | None
    gpu_hours: float | None


def stage_gpu_hours(stage: Stage | None) -> float | None:
    """The GPUs a stage holds times its hours (start-up included): the GPU-hours it bills."""
    if stage is None or stage.gpus is None or stage.hours is None:
        return None
    return stage.gpus * stage.hours


def _staged(first: Stage, second: Stage | None) -> StagedJob:
    stages = [s for s in (first, second) if s is not None]
    usd = [s.usd for s in stages]
    hours = [stage_gpu_hours(s) for s in stages]
    return StagedJob(first=first, second=second,
                     total_usd=sum(u for u in usd if u is not None) if all(u is not None for u in usd) else None,
                     gpu_hours=sum(h for h in hours if h is not None) if all(h is not None for h in hours) else None)


def _where(base: Workload | None) -> dict[str, Any]:
    """What else was said for every stage (provider, pricing, vendor, regions; a GPU named is each stage's too)."""
    said = base.model_dump(exclude_none=True) if base is not None else {}
    return {k: v for k, v in said.items() if k in ("provider", "providers", "pricing", "gpu_vendor", "regions", "gpu",
                                                   "deadline_hours", "precision")}


@dataclass(frozen=True)
class SamplingPlan:
    """n samples a prompt, then the reward model's pass over every sample."""

    job: StagedJob
    prompts: float
    samples: int
    prompt_tokens: int
    reply_tokens: int
    scorer_params_b: float | None  # the reward model's size when no catalog model was named
    scorer_assumed: bool  # no size said for the reward model: sized as the sampling model


def plan_sampling(data: CatalogData, *, model: str | None, params_b: float | None, prompts: float, samples: int,
                  prompt_tokens: int | None = None, reply_tokens: int | None = None, scored: bool = True,
                  scorer: str | None = None, scorer_params_b: float | None = None,
                  base: Workload | None = None) -> SamplingPlan:
    """Stage 1: `prompts` x `samples` replies, each prompt prefilled once (the other n-1 read it from the prefix
    cache). Stage 2 (when `scored`): the reward model prefills prompt + completion of every sample, one token out."""
    common = _where(base)
    completions = prompts * samples
    first_w = Workload(mode="inference", model=model, params_b=None if model else params_b, batch_items=completions,
                       input_tokens=prompt_tokens, output_tokens=reply_tokens,
                       prefix_cache_hit=round((samples - 1) / samples, 4), **common)
    first = _stage(advise(first_w, data))
    prompt, reply = request_shape(first.advice.effective)
    prompt = prompt_tokens or prompt
    reply = reply_tokens or reply
    second: Stage | None = None
    assumed = False
    if scored:
        size = scorer_params_b
        if scorer is None and size is None:  # "score them with a reward model": sized as the model sampled
            assumed = True
            size = params_b if not model else None
            scorer = model
        second_w = Workload(mode="inference", model=scorer, params_b=None if scorer else size, batch_items=completions,
                            input_tokens=prompt + reply, output_tokens=1, **common)
        second = _stage(advise(second_w, data))
    return SamplingPlan(job=_staged(first, second), prompts=prompts, samples=samples, prompt_tokens=prompt,
                        reply_tokens=reply, scorer_params_b=scorer_params_b, scorer_assumed=assumed)


@dataclass(frozen=True)
class EvalPlan:
    """The benchmarks sized, split into log-likelihood requests and generations, each an offline job."""

    job: StagedJob | None
    sized: tuple[str, ...]  # BENCHMARKS ids
    loglik_requests: float
    loglik_prompt_tokens: int
    generations: float
    generation_prompt_tokens: int
    generated_tokens: int
    prefill_tokens: float  # every request's prompt, summed


def plan_eval(data: CatalogData, *, model: str | None, params_b: float | None, benchmarks: tuple[str, ...],
              base: Workload | None = None) -> EvalPlan:
    """The named benchmarks (ids of `BENCHMARKS`; unknown ids are skipped) on the model: the multiple-choice ones as
    one job of log-likelihood requests (a prefill each, one token out), the generative ones as a job of generations.
    None stage where there is nothing of that kind."""
    sized = tuple(b for b in benchmarks if b in BENCHMARKS)
    chosen = [BENCHMARKS[b] for b in sized]
    mc = [b for b in chosen if b.choices]
    gen = [b for b in chosen if not b.choices]
    requests = sum(b.items * b.choices for b in mc)
    mc_tokens = sum(b.items * b.choices * b.prompt_tokens for b in mc)
    gens = float(sum(b.items for b in gen))
    gen_prompt = sum(b.items * b.prompt_tokens for b in gen)
    gen_out = sum(b.items * b.generated_tokens for b in gen)
    # scores are reported for the weights as published: an FP8 or 4-bit copy moves them, so BF16 unless said
    common = {"precision": "bf16", **_where(base)}
    stages: list[Stage] = []
    mc_prompt = round(mc_tokens / requests) if requests else 0
    if requests:
        stages.append(_stage(advise(Workload(mode="inference", model=model, params_b=None if model else params_b,
                                             batch_items=requests, input_tokens=max(1, mc_prompt), output_tokens=1,
                                             **common), data)))
    g_prompt = round(gen_prompt / gens) if gens else 0
    g_out = round(gen_out / gens) if gens else 0
    if gens:
        stages.append(_stage(advise(Workload(mode="inference", model=model, params_b=None if model else params_b,
                                             batch_items=gens, input_tokens=max(1, g_prompt),
                                             output_tokens=max(1, g_out), **common), data)))
    job = _staged(stages[0], stages[1] if len(stages) > 1 else None) if stages else None
    return EvalPlan(job=job, sized=sized, loglik_requests=requests, loglik_prompt_tokens=mc_prompt, generations=gens,
                    generation_prompt_tokens=g_prompt, generated_tokens=g_out,
                    prefill_tokens=float(mc_tokens + gen_prompt))


@dataclass(frozen=True)
class OptimalPlan:
    """The compute-optimal model for the fleet and window, and the compute it rests on."""

    gpu: str
    gpus: int
    hours: float  # the window
    train_hours: float  # the window less start-up
    peak_tflops: float  # dense BF16 per GPU
    mfu: float  # the planner's, at the size found
    flops: float  # C
    params_b: float  # N, in billions
    tokens: float  # D
    advice: Any  # the pre-training plan at N on D (engine Advice), None when it could not be planned


def plan_optimal(data: CatalogData, *, gpu: str, gpus: int, hours: float, rounds: int = 2) -> OptimalPlan | None:
    """N = sqrt(C / 120), D = 20 N for C = GPUs x (hours - start-up) x peak x MFU; the MFU first FIRST_GUESS_MFU,
    then the planner's for a pre-training of N on D on those GPUs (`rounds` times). None without a BF16 peak."""
    record = data.gpu(gpu)
    peak = float(record.bf16_dense_tflops or 0.0) if record is not None else 0.0
    if not peak or gpus < 1 or hours <= DEFAULT_SETUP_HOURS:
        return None
    seconds = (hours - DEFAULT_SETUP_HOURS) * 3600.0
    mfu = FIRST_GUESS_MFU
    common: dict[str, Any] = {}  # the fleet is held already: only its speed is read, at any offer of the GPU
    advice = None
    params = tokens = flops = 0.0
    for _ in range(rounds + 1):
        flops = gpus * seconds * peak * 1e12 * mfu
        params = math.sqrt(flops / (FLOPS_PER_PARAM_TOKEN * CHINCHILLA_TOKENS_PER_PARAM))
        tokens = CHINCHILLA_TOKENS_PER_PARAM * params
        if _ == rounds:
            break
        advice = advise(Workload(mode="pretrain", params_b=round(params / 1e9, 2), gpu=gpu, gpu_count=gpus,
                                 dataset_tokens=int(tokens), **common), data)
        rate = advice.throughput.training_tokens_per_s if advice.throughput is not None else None
        if rate is None or not rate.value:
            break
        mfu = FLOPS_PER_PARAM_TOKEN * params * rate.value / (gpus * peak * 1e12)
    return OptimalPlan(gpu=gpu, gpus=gpus, hours=hours, train_hours=seconds / 3600.0, peak_tflops=peak, mfu=mfu,
                       flops=flops, params_b=params / 1e9, tokens=tokens, advice=advice)
