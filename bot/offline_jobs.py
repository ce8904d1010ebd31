"""Answers to offline jobs planned in stages or by arithmetic (engine.offline_jobs): n samples a prompt with a reward
model's pass, an eval suite, and the compute-optimal model for a fixed fleet and window.

Each has a distillation answer's shape (headline, a line per stage, assumptions, formulas; bot/distill.py), rendered
by the storage templates, and `ask --json` reports it under its kind ("sampling", "eval", "compute_optimal") beside
every key a plan's answer has.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.formatting import fmt_usd
from bot.staged import StagedAnswer
from catalog.records import CatalogData
from engine.distill import Stage
from engine.models import Workload
from engine.offline_jobs import (
    BENCHMARKS,
    CHINCHILLA_TOKENS_PER_PARAM,
    FLOPS_PER_PARAM_TOKEN,
    EvalPlan,
    OptimalPlan,
    SamplingPlan,
    plan_eval,
    plan_optimal,
    plan_sampling,
    stage_gpu_hours,
)
from parser.offline_jobs import EvalAsk, OfflineAsk, OptimalAsk, SamplingAsk

HOFFMANN = "Hoffmann et al. 2022, Training Compute-Optimal Large Language Models (arXiv 2203.15556)"
HARNESS = "EleutherAI lm-evaluation-harness (github.com/EleutherAI/lm-evaluation-harness), --model vllm"
VLLM_N = "vLLM SamplingParams(n=...) with --enable-prefix-caching (docs.vllm.ai)"


@dataclass(frozen=True)
class OfflineAnswer(StagedAnswer):
    """Sampling and scoring, an eval run or a compute-optimal size; `kind` names which, in `ask --json`."""

    kind: str = ""


def _count(value: float) -> str:
    if value >= 1e9:
        return f"{value / 1e9:,.1f}B"
    if value >= 1e6:
        return f"{value / 1e6:,.1f}M"
    return f"{value:,.0f}"


def _hours(hours: float | None) -> str:
    if hours is None:
        return "?"
    return f"{hours:.1f} h" if hours < 48 else f"{hours / 24:.1f} days"


def _stage_text(stage: Stage | None, data: CatalogData) -> str:
    """"8× Instinct MI300X 192GB for 15.7 h (126 GPU-hours), $300 on RunPod …", or why it was not planned."""
    if stage is None:
        return "not planned"
    if stage.option is None or stage.usd is None:
        problem = next((p.message for p in stage.advice.problems), "no option fits")
        return f"not planned ({problem})"
    gpu = data.gpu(stage.gpu or "")
    gpu_hours = stage_gpu_hours(stage) or 0.0
    return (f"{stage.gpus}× {gpu.name if gpu else stage.gpu} for {_hours(stage.hours)} ({_gpu_hours(gpu_hours)}), "
            f"{fmt_usd(stage.usd)} on {stage.option}")


def _gpu_hours(value: float) -> str:
    return f"{value:,.0f} GPU-hours" if value >= 10 else f"{value:.1f} GPU-hours"


def _model_name(model: str | None, params_b: float | None, data: CatalogData) -> str:
    record = data.model(model or "")
    if record is not None:
        return str(record.name)
    return f"a {params_b:g}B model" if params_b else "the model"


def _stage_contract(stage: Stage | None) -> dict[str, Any] | None:
    if stage is None:
        return None
    gpu_hours = stage_gpu_hours(stage)
    return {"option": stage.option, "gpu": stage.gpu, "gpus": stage.gpus,
            "usd": round(stage.usd, 2) if stage.usd is not None else None,
            "hours": round(stage.hours, 2) if stage.hours is not None else None,
            "gpu_hours": round(gpu_hours, 2) if gpu_hours is not None else None,
            "model": stage.advice.effective.model, "params_b": stage.advice.effective.params_b,
            "requests": stage.advice.effective.batch_items, "input_tokens": stage.advice.effective.input_tokens,
            "output_tokens": stage.advice.effective.output_tokens}


def _totals(first: Stage | None, second: Stage | None) -> tuple[float | None, float | None]:
    stages = [s for s in (first, second) if s is not None]
    usd = [s.usd for s in stages]
    hours = [stage_gpu_hours(s) for s in stages]
    total = sum(u for u in usd if u is not None) if stages and all(u is not None for u in usd) else None
    gpu_hours = sum(h for h in hours if h is not None) if stages and all(h is not None for h in hours) else None
    return total, gpu_hours


# ---- rejection sampling ------------------------------------------------------------------------------------------
def sampling_answer(ask: SamplingAsk, data: CatalogData, base: Workload | None = None) -> OfflineAnswer:
    plan: SamplingPlan = plan_sampling(data, model=ask.model, params_b=ask.params_b, prompts=ask.prompts,
                                       samples=ask.samples, prompt_tokens=ask.prompt_tokens,
                                       reply_tokens=ask.reply_tokens, scored=ask.scored, scorer=ask.scorer,
                                       scorer_params_b=ask.scorer_params_b, base=base)
    name = _model_name(ask.model, ask.params_b, data)
    first, second = plan.job.first, plan.job.second
    completions = plan.prompts * plan.samples
    scorer = (_model_name(ask.scorer, None, data) if ask.scorer else
              f"a {ask.scorer_params_b:g}B reward model" if ask.scorer_params_b else f"a reward model sized as {name}")
    total, gpu_hours = _totals(first, second)
    stages = "two stages" if second is not None else "one stage"
    share = ""
    if total and first.usd is not None:
        share = f"; sampling is {first.usd / total:.0%} of it" if second is not None else ""
    headline = (f"Sampling {plan.samples} completions for each of {plan.prompts:,.0f} prompts with {name}"
                + (f", then scoring all {completions:,.0f} with {scorer}" if second is not None else "")
                + (f": {stages}, {fmt_usd(total)} and {gpu_hours:,.0f} GPU-hours in all{share}." if total is not None
                   and gpu_hours is not None else f": {stages}."))
    lines = [f"1. Sample {completions:,.0f} completions ({plan.prompts:,.0f} prompts × n={plan.samples}, "
             f"{_count(completions * plan.reply_tokens)} output tokens; each prompt prefilled once, the other "
             f"{plan.samples - 1} read it from the prefix cache): {_stage_text(first, data)}."]
    if second is not None:
        lines.append(f"2. Score them with {scorer}: a prefill of prompt + completion ({plan.prompt_tokens + plan.reply_tokens:,} "
                     f"tokens) per sample, one score out, no decode ({_count(completions * (plan.prompt_tokens + plan.reply_tokens))} "
                     f"tokens): {_stage_text(second, data)}.")
    lines.append(f"Run it as vLLM's `SamplingParams(n={plan.samples})` with `--enable-prefix-caching`: sending the "
                 f"prompt {plan.samples} times prefills it {plan.samples} times. Both stages restart from the prompts "
                 "not finished, so spot instances suit them.")
    said_lengths = ask.prompt_tokens is not None and ask.reply_tokens is not None
    questions = [] if said_lengths else [
        f"How long are the prompts and completions? Sized at {plan.prompt_tokens:,} in and {plan.reply_tokens:,} out "
        "until you say (e.g. “500-token prompts, 1k-token completions”): the sampling scales with the completions."]
    scorer_words = "; the reward model sized as the sampling model (none said)" if plan.scorer_assumed else ""
    assumptions = (f"Assumes {plan.prompt_tokens:,}-token prompts and {plan.reply_tokens:,}-token completions"
                   f"{'' if said_lengths else ' (none said)'}, each stage on its own cheapest fitting GPUs and sized "
                   f"to finish within a day, on-demand prices{scorer_words} (reply to change)")
    formulas = [f"completions = prompts × n = {plan.prompts:,.0f} × {plan.samples} = {completions:,.0f}",
                f"sampling prefill = prompts × prompt tokens (prefix-cached for the other n-1 samples); decode = "
                f"completions × {plan.reply_tokens:,} tokens"]
    if second is not None:
        formulas.append(f"scoring prefill = completions × (prompt + completion) = {completions:,.0f} × "
                        f"{plan.prompt_tokens + plan.reply_tokens:,} tokens, 1 token out")
    if total is not None:
        formulas.append(f"total_usd = sampling_usd + scoring_usd = {fmt_usd(first.usd)} + "
                        f"{fmt_usd(second.usd if second is not None else 0.0)} = {fmt_usd(total)}")
    contract = {"prompts": plan.prompts, "samples": plan.samples, "completions": completions,
                "prompt_tokens": plan.prompt_tokens, "reply_tokens": plan.reply_tokens,
                "sampling": _stage_contract(first), "scoring": _stage_contract(second),
                "total_usd": round(total, 2) if total is not None else None,
                "gpu_hours": round(gpu_hours, 2) if gpu_hours is not None else None}
    return OfflineAnswer(kind="sampling", headline=headline, lines=lines, assumptions=assumptions, formulas=formulas,
                         sources=[VLLM_N], questions=questions, contract=contract)


# ---- eval suites -------------------------------------------------------------------------------------------------
def eval_answer(ask: EvalAsk, data: CatalogData, base: Workload | None = None) -> OfflineAnswer:
    plan: EvalPlan = plan_eval(data, model=ask.model, params_b=ask.params_b, benchmarks=ask.benchmarks, base=base)
    name = _model_name(ask.model, ask.params_b, data)
    sized = [BENCHMARKS[b] for b in plan.sized]
    questions: list[str] = []
    if plan.job is None:
        headline = (f"Evaluating {name} is offline inference, mostly log-likelihood prefill: name the benchmarks "
                    "(e.g. “mmlu, gsm8k, hellaswag”) or give their token count to size it.")
        questions.append("Which benchmarks, or how many tokens do they prefill and generate?")
        return OfflineAnswer(kind="eval", headline=headline, lines=[], assumptions="", questions=questions,
                             contract={"benchmarks": list(ask.benchmarks), "sized": [], "gpu_hours": None,
                                       "total_usd": None})
    first, second = plan.job.first, plan.job.second
    total, gpu_hours = _totals(first, second)
    said = ask.said_count or 0
    unsized = max(0, said - len(sized))
    names = ", ".join(f"{b.name} ({b.items:,}" + (f" × {b.choices:g} choices" if b.choices else " generations")
                      + (f", {b.shots}-shot" if b.shots else ", 0-shot") + ")" for b in sized)
    scaled = ""
    if unsized and gpu_hours is not None and total is not None:
        factor = said / len(sized)
        scaled = (f"; all {said} at the same average: ~{gpu_hours * factor:,.0f} GPU-hours, ~{fmt_usd(total * factor)}")
    headline = (f"Evaluating {name} on {len(sized)} benchmark{'s' if len(sized) != 1 else ''} is offline inference, "
                f"mostly log-likelihood prefill: ~{gpu_hours or 0:,.1f} GPU-hours, {fmt_usd(total)} in all{scaled}.")
    lines = [f"Sized: {names}; ~{_count(plan.prefill_tokens)} prompt tokens in all."]
    mc_words = (f"{plan.loglik_requests:,.0f} log-likelihood requests (one per choice, ~{plan.loglik_prompt_tokens:,} "
                "tokens of few-shot context and question each, one token scored, no decode)")
    gen_words = (f"{plan.generations:,.0f} generations (~{plan.generation_prompt_tokens:,}-token prompts, "
                 f"~{plan.generated_tokens:,} tokens generated each)")
    first_words = mc_words if first.advice.effective.output_tokens == 1 else gen_words
    lines.append(f"1. {first_words[:1].upper()}{first_words[1:]}: {_stage_text(first, data)}.")
    if second is not None:
        lines.append(f"2. {gen_words[:1].upper()}{gen_words[1:]}: {_stage_text(second, data)}.")
    if unsized:
        lines.append(f"The other {unsized} benchmark{'s' if unsized != 1 else ''} you count were not named: name "
                     "them to size them (most multiple-choice sets are smaller than MMLU; long generative ones, "
                     "e.g. MATH or MMLU-Pro chain-of-thought, cost the most).")
    lines.append("Run lm-eval with the vLLM backend (`--model vllm`, tensor_parallel_size as the plan, "
                 "data_parallel_size for replicas): the default Hugging Face backend runs several times slower. "
                 "Each stage's 15 minutes of start-up is in its GPU-hours.")
    assumptions = ("Assumes the harness's usual settings (MMLU 5-shot, GSM8K 8-shot chain-of-thought, the rest as "
                   "listed), approximate prompt lengths, BF16 weights as published (a quantized copy moves the "
                   "scores), no prefix caching across a question's choices, each stage on "
                   "its own cheapest fitting GPUs, on-demand prices (reply to change)")
    formulas = [f"log-likelihood requests = Σ items × choices = {plan.loglik_requests:,.0f}",
                f"prefill tokens = Σ items × choices × prompt tokens + generations × prompt tokens = "
                f"{plan.prefill_tokens:,.0f}",
                f"GPU-hours = Σ stage GPUs × stage hours = {gpu_hours or 0:,.2f}"]
    contract = {"benchmarks": list(ask.benchmarks), "sized": list(plan.sized), "said_count": ask.said_count,
                "loglik_requests": plan.loglik_requests, "generations": plan.generations,
                "prefill_tokens": plan.prefill_tokens, "loglikelihood": _stage_contract(
                    first if first.advice.effective.output_tokens == 1 else None),
                "generation": _stage_contract(second if second is not None else (
                    first if first.advice.effective.output_tokens != 1 else None)),
                "gpu_hours": round(gpu_hours, 2) if gpu_hours is not None else None,
                "total_usd": round(total, 2) if total is not None else None}
    return OfflineAnswer(kind="eval", headline=headline, lines=lines, assumptions=assumptions, formulas=formulas,
                         sources=[HARNESS, "Benchmark sizes: MMLU (Hendrycks et al. 2021), HellaSwag (Zellers et al. "
                                  "2019), ARC (Clark et al. 2018), GSM8K (Cobbe et al. 2021): their public test or "
                                  "validation splits"], questions=questions, contract=contract)


# ---- compute-optimal ----------------------------------------------------------------------------------------------
def optimal_answer(ask: OptimalAsk, data: CatalogData, base: Workload | None = None) -> OfflineAnswer | None:
    plan: OptimalPlan | None = plan_optimal(data, gpu=ask.gpu, gpus=ask.gpus, hours=ask.hours)
    if plan is None:
        return None
    gpu = data.gpu(plan.gpu)
    gpu_name = gpu.name if gpu is not None else plan.gpu
    window = _hours(plan.hours)
    headline = (f"{plan.gpus}× {gpu_name} for {window} pre-train a ~{plan.params_b:.1f}B model on "
                f"~{_count(plan.tokens)} tokens compute-optimally (Chinchilla: ~{CHINCHILLA_TOKENS_PER_PARAM:g} "
                "tokens per parameter).")
    lines = [f"Compute: {plan.gpus} GPUs × {plan.train_hours:,.1f} h (the window less start-up) × "
             f"{plan.peak_tflops:,.0f} TFLOPS dense BF16 × {plan.mfu:.0%} MFU ≈ {plan.flops:.2e} FLOPs.",
             f"Size: C = 6·N·D with D = 20·N, so N = √(C / 120) ≈ {plan.params_b:.1f}B parameters and "
             f"D = 20·N ≈ {_count(plan.tokens)} tokens.",
             "Larger trains under-optimally in the same compute (fewer tokens per parameter); many teams train "
             "smaller past 20 tokens per parameter (Llama 3 8B: ~1,900) because inference is cheaper, so "
             f"~{plan.params_b:.0f}B is the ceiling for this window, not the only sensible choice."]
    mfu_words = ("the planner's MFU for that model on these GPUs" if plan.advice is not None
                 else "a first-guess MFU")
    assumptions = (f"Assumes {plan.mfu:.0%} MFU ({mfu_words}), the window held end to end with 15 minutes of "
                   "start-up, no restarts; BF16 mixed precision (reply to change: “at 50% MFU”, “for 5 days”)")
    formulas = [f"C = GPUs × seconds × peak × MFU = {plan.gpus} × {plan.train_hours * 3600:,.0f} × "
                f"{plan.peak_tflops:,.0f}e12 × {plan.mfu:.3f} = {plan.flops:.3e}",
                f"N = √(C / ({FLOPS_PER_PARAM_TOKEN:g} × {CHINCHILLA_TOKENS_PER_PARAM:g})) = {plan.params_b * 1e9:.3e}",
                f"D = {CHINCHILLA_TOKENS_PER_PARAM:g} × N = {plan.tokens:.3e}"]
    contract = {"gpu": plan.gpu, "gpus": plan.gpus, "hours": plan.hours, "train_hours": round(plan.train_hours, 2),
                "peak_tflops": plan.peak_tflops, "mfu": round(plan.mfu, 4), "flops": plan.flops,
                "params_b": round(plan.params_b, 2), "tokens": round(plan.tokens)}
    return OfflineAnswer(kind="compute_optimal", headline=headline, lines=lines, assumptions=assumptions,
                         formulas=formulas, sources=[HOFFMANN], contract=contract)


def offline_answer(ask: OfflineAsk, data: CatalogData, base: Workload | None = None) -> OfflineAnswer | None:
    """The answer to `ask` (parser.offline_jobs), None when it cannot be made (the plan falls back to the workload)."""
    if ask.kind == "sampling" and ask.sampling is not None:
        return sampling_answer(ask.sampling, data, base)
    if ask.kind == "eval" and ask.eval is not None:
        return eval_answer(ask.eval, data, base)
    if ask.kind == "compute_optimal" and ask.optimal is not None:
        return optimal_answer(ask.optimal, data, base)
    return None


def offline_contract(answer: OfflineAnswer, workload_keys: tuple[str, ...], workload: Workload | None) -> dict[str, Any]:
    """`ask --json`: every key a plan's answer has (the report parts null: the stages are under `answer.kind`)."""
    w = workload or Workload()
    return {
        "workload": {key: getattr(w, key, None) for key in workload_keys},
        "missing": [],
        "questions": list(answer.questions),
        "assumptions": [],
        "report": {"memory": None, "cluster": None, "throughput": None, "tco": None},
        "notes": [answer.headline, *answer.lines, answer.assumptions],
        "capacity": None,
        "compared_gpus": None,
        "budget_ladder": None,
        "storage": None,
        "local": None,
        "buy_or_rent": None,
        "images": None,
        "max_context": None,
        "reserve_or_on_demand": None,
        "window": None,
        "owned_by_gpu": None,
        "api_comparison": None,
        answer.kind: answer.contract,
    }
