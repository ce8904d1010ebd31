"""Screening before any estimate: impossible numbers and unknown names become `Problem`s.

Why a separate pass: an estimate built on 10^30 parameters or a GPU id the catalog does not know
is a confident wrong number; a Problem with a friendly message (and close names) is an answer.
Nothing here raises.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable
from typing import Any

from catalog.records import CatalogData
from engine.models import Problem, Workload

# field -> (lowest allowed, lowest allowed is inclusive, plausible maximum, unit words)
# Maxima are above any real workload (largest clusters ~10^5 GPUs, largest released models ~1-2T
# parameters, largest pre-training runs ~15-36T tokens) so only typos and nonsense trip them.
_LIMITS: dict[str, tuple[float, bool, float, str]] = {
    "params_b": (0.0, False, 5_000.0, "billion parameters"),
    "dataset_gb": (0.0, False, 1e8, "GB"),
    "dataset_tokens": (0.0, False, 1e14, "tokens"),
    "epochs": (0.0, False, 1_000.0, "epochs"),
    "runs_per_month": (0.0, False, 10_000.0, "runs a month"),
    "gpu_count": (1.0, True, 1_000_000.0, "GPUs"),
    "seq_len": (1.0, True, 10_000_000.0, "tokens"),
    "batch_size": (1.0, True, 100_000.0, "sequences"),
    "global_batch": (1.0, True, 1e8, "sequences"),
    "global_batch_tokens": (1.0, True, 1e11, "tokens"),
    "train_steps": (1.0, True, 1e9, "steps"),
    "gradient_accumulation": (1.0, True, 1e6, "micro-batches"),
    "concurrency": (1.0, True, 10_000_000.0, "sequences"),
    "hourly_rate": (0.0, False, 1_000.0, "USD per GPU-hour"),
    "lora_rank": (1.0, True, 65_536.0, ""),
    "mfu": (0.0, False, 1.0, "(a fraction 0-1)"),
    "nodes": (1.0, True, 100_000.0, "nodes"),
    "tensor_parallel": (1.0, True, 1_024.0, ""),
    "pipeline_parallel": (1.0, True, 1_024.0, ""),
    "target_tokens_per_s": (0.0, False, 1e9, "tokens/s"),
    "target_tokens_per_s_per_user": (0.0, False, 10_000.0, "tokens/s per user"),
    "target_ttft_s": (0.0, False, 3_600.0, "seconds"),
    "requests_per_s": (0.0, False, 10_000_000.0, "requests/s"),
    "deadline_hours": (0.0, False, 87_600.0, "hours"),
    "budget_usd_per_month": (0.0, False, 1e10, "USD a month"),
    "budget_usd_per_run": (0.0, False, 1e11, "USD a run"),
    "setup_hours_per_run": (0.0, True, 1_000.0, "hours"),
    "output_tokens": (1.0, True, 10_000_000.0, "tokens"),
    "input_tokens": (0.0, True, 10_000_000.0, "tokens"),
    "headroom": (0.0, True, 0.9, "(a fraction 0-0.9)"),
    "flops_per_token_factor": (0.0, False, 100.0, "FLOPs per parameter per token"),
    "adapter_overhead_gb": (0.0, True, 100_000.0, "GB"),
    "egress_usd_per_gb": (0.0, True, 10.0, "USD/GB"),
    "storage_usd_per_month": (0.0, True, 1e9, "USD"),
    "storage_gb": (0.0, True, 1e9, "GB"),
    "managed_premium": (0.0, True, 10.0, "(a fraction: 0.30 = +30%)"),
    "utilization": (0.0, False, 1.0, "(a fraction 0-1)"),
    "bandwidth_efficiency": (0.0, False, 1.0, "(a fraction 0-1)"),
    "dataset_pulls_per_month": (0.0, True, 100_000.0, "pulls"),
    "checkpoints_kept": (0.0, True, 10_000.0, "checkpoints"),
    "load_tokens_per_s": (0.0, False, 1e10, "tokens/s"),
    "dataset_examples": (0.0, False, 1e12, "examples"),
    "service_hours_per_week": (0.0, False, 168.0, "hours a week (168 is around the clock)"),
    "prefix_cache_hit": (0.0, True, 0.99, "(a fraction 0-0.99 of each prompt)"),
}


# Words for the limits users hit by slips of units rather than typos: name the value and what is real.
_PLAUSIBLE = {
    "params_b": "{value:,.0f}B parameters is beyond any model released (the largest are about 1-2T, i.e. 1,000-2,000B); "
                "check the units: '70B', '1.5T'?",
    "dataset_tokens": "{value:,.3g} tokens per run is beyond any corpus (the largest pre-training runs use ~15-36T, i.e. "
                      "1.5e13-3.6e13); check the units: '1B tokens', '15T tokens'?",
}


def _number_problem(field: str, value: Any) -> Problem | None:
    low, inclusive, high, unit = _LIMITS[field]
    label = field.replace("_", " ")
    try:
        number = float(value)
    except (TypeError, ValueError):
        return Problem(code="invalid_value", field=field, message=f"{label} must be a number, got {value!r}.")
    if not math.isfinite(number):
        return Problem(code="invalid_value", field=field, message=f"{label} must be a finite number, got {value!r}.")
    too_low = number < low if inclusive else number <= low
    if too_low:
        bound = f"at least {low:g}" if inclusive else f"more than {low:g}"
        return Problem(code="invalid_value", field=field, message=f"{label} must be {bound} {unit}, got {number:g}.".replace("  ", " "))
    if number > high and field in _PLAUSIBLE:
        return Problem(code="implausible", field=field, message=_PLAUSIBLE[field].format(value=number, limit=high))
    if number > high:
        return Problem(
            code="implausible",
            field=field,
            message=f"{label} = {number:g} {unit} is far beyond any real workload (limit {high:g}); "
            "check the units or a missing decimal point.".replace("  ", " "),
        )
    return None


def close_matches(text: str, ids_and_names: Iterable[tuple[str, str]], n: int = 5) -> tuple[str, ...]:
    """Catalog ids whose id or display name is close to `text` (difflib), best first."""
    pairs = list(ids_and_names)
    lowered = text.lower().strip()
    keys: dict[str, str] = {}
    for item_id, name in pairs:
        keys.setdefault(item_id.lower(), item_id)
        keys.setdefault(name.lower(), item_id)
    hits = difflib.get_close_matches(lowered, list(keys), n=n * 2, cutoff=0.5)
    contains = [k for k in keys if lowered and (lowered in k or k in lowered)]
    out: list[str] = []
    for key in contains + hits:
        item = keys[key]
        if item not in out:
            out.append(item)
    return tuple(out[:n])


def _unknown(kind: str, field: str, text: str, pairs: list[tuple[str, str]]) -> Problem:
    candidates = close_matches(text, pairs)
    hint = f" Did you mean {', '.join(candidates)}?" if candidates else ""
    return Problem(code=f"unknown_{kind}", field=field, message=f"The catalog has no {kind} '{text}'.{hint}", candidates=candidates)


def validate(w: Workload, data: CatalogData) -> list[Problem]:
    """All problems with the workload as given. Empty list = safe to estimate."""
    problems: list[Problem] = []
    for field in _LIMITS:
        value = getattr(w, field, None)
        if value is None or isinstance(value, bool):
            continue
        problem = _number_problem(field, value)
        if problem is not None:
            problems.append(problem)
    if w.model is not None and data.model(w.model) is None:
        problem = _unknown("model", "model", w.model, [(m.id, m.name) for m in data.models])
        if w.params_b is not None:
            problem = problem.model_copy(
                update={
                    "code": "unknown_model_generic",
                    "message": problem.message + f" Estimating from a generic {w.params_b:g}B Llama-like architecture.",
                }
            )
        problems.append(problem)
    if w.gpu is not None and data.gpu(w.gpu) is None:
        problems.append(_unknown("gpu", "gpu", w.gpu, [(g.id, g.name) for g in data.gpus]))
    if w.provider is not None and data.provider(w.provider) is None:
        problems.append(_unknown("provider", "provider", w.provider, [(p.id, p.name) for p in data.providers]))
    if w.dataset_tokens is not None and 0 < w.dataset_tokens < MIN_TRAINING_TOKENS and w.mode not in (None, "inference"):
        problems.append(Problem(
            code="implausible", field="dataset_tokens",
            message=f"{w.dataset_tokens:,} training tokens is not a training run (one sequence is thousands of tokens); "
                    "check the units: '1B tokens', '50M tokens'."))
    if w.unsupported_accelerator:
        problems.append(Problem(code="unsupported_accelerator", field="gpu",
                                message=unsupported_message(w.unsupported_accelerator)))
    if w.model is None and w.params_b is None:
        problems.append(
            Problem(code="missing_model", field="model", message="Which model (or how many parameters)? Nothing can be sized without it.")
        )
    return problems


def unsupported_message(name: str) -> str:
    """Why hardware the catalog lacks is not sized, in its own terms: a Mac or a CPU is a machine on the user's desk
    (unified memory, Metal/MLX, llama.cpp), not a cloud accelerator; a TPU or Trainium has its own compiler."""
    if name.startswith("Apple") or name == "CPU":
        return (f"{name} is not covered: the catalog sizes GPUs (NVIDIA, AMD, Intel Gaudi), with no figures for Apple "
                "silicon or CPUs (llama.cpp, MLX). The figures are for GPUs.")
    return (f"{name} is not covered: the catalog sizes GPUs (NVIDIA, AMD, Intel Gaudi), not TPUs, Trainium or "
            "Inferentia, whose compilers and memory layouts differ. The figures are for GPUs.")


def blocking(problems: Iterable[Problem]) -> bool:
    """True when a problem makes every estimate meaningless (as opposed to a warning)."""
    return any(p.code not in ("unknown_model_generic", "exceeds_context", "fits_nowhere", "unsupported_accelerator",
                              "implausible_duration", "no_offer_in_region") for p in problems)


MIN_TRAINING_TOKENS = 1_000  # fewer than one sequence: a unit slip, not a run
MAX_PLAUSIBLE_RUN_HOURS = 2 * 8_760  # a single run past two years: the inputs are off, not the plan


def duration_problem(wall_hours: float | None, gpus: int) -> Problem | None:
    """A plan whose one run would take years is answered as a problem naming the value, not as 'Fits'."""
    if wall_hours is None or wall_hours <= MAX_PLAUSIBLE_RUN_HOURS:
        return None
    return Problem(code="implausible_duration", field="dataset_tokens",
                   message=f"One run would take {wall_hours / 8_760:,.1f} years on {gpus:,} GPUs: check the token count and "
                           "model size (a run is planned to finish within months).")
