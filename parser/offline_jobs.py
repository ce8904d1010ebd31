"""Offline jobs answered in stages or by arithmetic, not as a service or one training run.

Why its own module: each was read as something else, and the figures a team would act on were off by 30x or absent.
- "rejection sampling: 16 samples per prompt for 100k prompts with llama 3.3 70b, then score them with a 70b reward
  model": the 16 samples and the reward pass were dropped ($21 and 8.8 h for one sample a prompt). It is n samples a
  prompt (vLLM's `n=16`: the prompt prefilled once, prefix-cached, for the 16 completions) and a scoring stage (the
  reward model's prefill over prompt + completion, no decode), priced as a second stage (`SamplingAsk`).
- "how many gpu hours to run lm-eval-harness on llama 3.1 70b across 10 benchmarks (mmlu, gsm8k, …)": "gsm8k" was an
  unknown model and the answer a 1-stream service. An eval suite is offline inference, mostly log-likelihood prefill,
  estimated from the benchmarks' public sizes (`EvalAsk`; engine.offline_jobs has the table).
- "we have a 64xH100 reservation for 3 days, what's the biggest model we can pretrain chinchilla-optimal": the
  compute the window holds, C = GPUs x hours x peak x MFU, gives N = sqrt(C / 120), D = 20 N (Hoffmann et al. 2022,
  arXiv 2203.15556: C = 6 N D at ~20 tokens per parameter) (`OptimalAsk`).
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from engine.models import RL_OBJECTIVES

from .fleet import window_hours

# ---- rejection sampling / best-of-n -------------------------------------------------------------------------------
_SAMPLES = re.compile(r"\b(\d+) (?:samples?|completions?|generations?|candidates?|responses?|answers?|outputs?)"
                      r" (?:per|for each|each|a|/) ?(?:prompt|question|input|problem|instruction)s?\b"
                      r"|\bbest[- ]of[- ](\d+)\b|\bn ?= ?(\d+)\b")
_RL_WORDS = re.compile(r"\b(?:grpo|ppo|rloo|dapo|rlhf|rlvr|online rl|policy|rollouts?)\b")
# the scorer: "with a 70b reward model", "using llama 3.1 8b as the judge", "an 8b rm"
_SCORER = re.compile(r"\b(?:with|using|by|via|through) (?:a |an |the )?((?:[\w.\-]+ ){0,3}?[\w.\-]*?\d+(?:\.\d+)?b)"
                     r"(?:[- ]instruct)? (?:reward model|rm|judge|verifier|scorer|grader)\b")
_SCORE_STAGE = re.compile(r"\b(?:reward model|\brm\b|judge|verifier|scorer|grader|score|scored|scoring)\b")
_SIZE = re.compile(r"(\d+(?:\.\d+)?)b$")

# ---- eval suites ---------------------------------------------------------------------------------------------------
_EVAL = re.compile(r"\b(?:lm[- ]?eval(?:uation)?[- ]?harness|lm[- ]?eval|lighteval|helm|opencompass|evals?|evaluate|"
                   r"evaluation|benchmark(?:s|ing)?)\b")
# the benchmarks engine.offline_jobs.BENCHMARKS sizes, as people write them
BENCHMARK_NAMES = {"mmlu": "mmlu", "mmlu-pro": "mmlu_pro", "mmlu pro": "mmlu_pro", "gsm8k": "gsm8k",
                   "gsm-8k": "gsm8k", "hellaswag": "hellaswag", "arc": "arc", "arc-challenge": "arc",
                   "arc challenge": "arc", "arc-c": "arc", "arc-easy": "arc_easy", "arc easy": "arc_easy",
                   "winogrande": "winogrande", "truthfulqa": "truthfulqa", "truthful qa": "truthfulqa",
                   "humaneval": "humaneval", "human eval": "humaneval", "math": "math", "bbh": "bbh",
                   "big-bench hard": "bbh", "ifeval": "ifeval", "gpqa": "gpqa", "piqa": "piqa", "boolq": "boolq"}
_BENCH = re.compile(r"\b(" + "|".join(sorted((re.escape(k) for k in BENCHMARK_NAMES), key=len, reverse=True)) + r")\b")
_BENCH_COUNT = re.compile(r"\b(\d+) (?:benchmarks|tasks|evals)\b")

# ---- compute-optimal -----------------------------------------------------------------------------------------------
_OPTIMAL = re.compile(r"\b(?:chinchilla(?:[- ]optimal)?|compute[- ]optimal)\b")


class SamplingAsk(BaseModel):
    """n samples per prompt from one model, then (optionally) a reward model's scoring pass over every sample."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    model: str | None  # catalog id of the sampling model
    params_b: float | None = None
    prompts: float
    samples: int
    prompt_tokens: int | None = None
    reply_tokens: int | None = None
    scorer: str | None = None  # catalog id of the reward model, when one was named
    scorer_params_b: float | None = None  # its size, when only a size was said ("a 70b reward model")
    scored: bool = False  # a scoring pass was said


class EvalAsk(BaseModel):
    """An eval suite over one model: the benchmarks named (ids in engine.offline_jobs.BENCHMARKS)."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    model: str | None
    params_b: float | None = None
    benchmarks: tuple[str, ...]
    said_count: int | None = None  # "across 10 benchmarks"


class OptimalAsk(BaseModel):
    """The largest model a fixed fleet and window pre-train compute-optimally."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    gpu: str
    gpus: int
    hours: float


class OfflineAsk(BaseModel):
    """One of the three, by `kind` (the key `ask --json` reports it under)."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    kind: Literal["sampling", "eval", "compute_optimal"]
    sampling: SamplingAsk | None = None
    eval: EvalAsk | None = None
    optimal: OptimalAsk | None = None


def _samples(text: str) -> int | None:
    found = _SAMPLES.search(text)
    if found is None:
        return None
    count = int(next(g for g in found.groups() if g))
    return count if 2 <= count <= 1024 else None


def _scorer(text: str, resolver: Any, model: str | None) -> tuple[str | None, float | None]:
    found = _SCORER.search(text)
    if found is None:
        return None, None
    said = found.group(1).strip()
    for lead in ("the ", "a ", "an "):
        said = said.removeprefix(lead)
    resolved = getattr(resolver.resolve_model(said), "id", None) if resolver is not None and said else None
    size = _SIZE.search(said)
    if resolved and (resolved != model or said != (size.group(0) if size else "")):
        return str(resolved), None
    return None, float(size.group(1)) if size else None


def sampling_ask(text: str, updates: dict[str, Any], resolver: Any) -> SamplingAsk | None:
    """"16 samples per prompt for 100k prompts … then score them with a 70b reward model", or None."""
    samples = _samples(text)
    prompts = updates.get("batch_items") or updates.get("dataset_examples")
    if samples is None or not prompts or _RL_WORDS.search(text):
        return None
    if updates.get("objective") in RL_OBJECTIVES or (updates.get("mode") not in (None, "inference")):
        return None
    model = updates.get("model")
    scorer, scorer_b = _scorer(text, resolver, model)
    return SamplingAsk(model=str(model) if model else None, params_b=updates.get("params_b") if not model else None,
                       prompts=float(prompts), samples=samples,
                       prompt_tokens=int(updates["input_tokens"]) if updates.get("input_tokens") else None,
                       reply_tokens=int(updates["output_tokens"]) if updates.get("output_tokens") else None,
                       scorer=scorer, scorer_params_b=scorer_b, scored=bool(_SCORE_STAGE.search(text)))


def eval_ask(text: str, updates: dict[str, Any]) -> EvalAsk | None:
    """"run lm-eval-harness on llama 3.1 70b across mmlu, gsm8k, …", or None."""
    named = tuple(dict.fromkeys(BENCHMARK_NAMES[m.group(1)] for m in _BENCH.finditer(text)))
    model = updates.get("model")
    if not (model or updates.get("params_b")) or (not _EVAL.search(text) and not named):
        return None
    if not named and not re.search(r"\blm[- ]?eval|\blighteval\b|\bbenchmarks\b", text):
        return None
    if updates.get("mode") not in (None, "inference") or updates.get("concurrency") or updates.get("requests_per_s"):
        return None
    count = _BENCH_COUNT.search(text)
    return EvalAsk(model=str(model) if model else None, params_b=None if model else updates.get("params_b"),
                   benchmarks=named, said_count=int(count.group(1)) if count else None)


def optimal_ask(text: str, updates: dict[str, Any]) -> OptimalAsk | None:
    """"64xH100 for 3 days, biggest model chinchilla-optimal", or None (a GPU, a count and a window are needed)."""
    if not _OPTIMAL.search(text):
        return None
    hours = updates.get("deadline_hours") or (window_hours(text) or (None, ""))[0]
    gpus = int(updates.get("gpu_count") or 0) or 8 * int(updates.get("nodes") or 0)
    gpu = updates.get("gpu")
    if not (hours and gpus and gpu):
        return None
    return OptimalAsk(gpu=str(gpu), gpus=gpus, hours=float(hours))


def offline_ask(text: str, updates: dict[str, Any], resolver: Any) -> OfflineAsk | None:
    """The offline job `text` (normalized) asks about, or None."""
    optimal = optimal_ask(text, updates)
    if optimal is not None:
        return OfflineAsk(kind="compute_optimal", optimal=optimal)
    sampled = sampling_ask(text, updates, resolver)
    if sampled is not None:
        return OfflineAsk(kind="sampling", sampling=sampled)
    evaluated = eval_ask(text, updates)
    if evaluated is not None:
        return OfflineAsk(kind="eval", eval=evaluated)
    return None


def with_offline(reading: Any, text: str, resolver: Any) -> Any:
    """`reading` with the offline job it asks about (`Reading.offline`), the benchmark or method names it did not
    know dropped from its unknown names (they are the job's words, not models)."""
    found = offline_ask(text, dict(reading.updates), resolver)
    if found is None:
        return reading
    words = ("chinchilla", "compute-optimal", *BENCHMARK_NAMES)
    unknown = tuple(p for p in reading.unknown_names if not any(w in p.message.lower() for w in words))
    return reading.model_copy(update={"offline": found, "unknown_names": unknown})
