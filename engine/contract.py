"""`Advice` -> the public `ask --json` object (docs/json.md).

The contract keys, their order and units are fixed (scripts depend on them); extra keys
(`problems`, `recommendation`, `options`, `notes`, `formulas`, `egress`, `quantization`) carry
the detail a script may want. Parts that cannot be computed are null, never invented.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from engine.models import Advice, Figure, MemoryEstimate, Option, TcoOption, ThroughputEstimate, Workload

CONTRACT_WORKLOAD_KEYS: tuple[str, ...] = (
    "mode", "model", "params_b", "precision", "dataset_gb", "dataset_tokens", "epochs", "runs_per_month",
    "data_location", "gpu", "gpu_count", "seq_len", "batch_size", "concurrency", "hourly_rate", "optimizer",
    "gradient_checkpointing", "lora_rank", "zero_stage", "mfu", "pricing", "provider",
    "target_tokens_per_s_per_user", "target_ttft_s", "requests_per_s", "input_tokens", "output_tokens", "deadline_hours",
)


def _num(value: float | None, digits: int = 3) -> float | None:
    """JSON-safe number: NaN/inf become null (json.dumps would write invalid NaN)."""
    if value is None or not math.isfinite(value):
        return None
    return round(float(value), digits)


def _fig(figure: Figure | None, digits: int = 3) -> float | None:
    return None if figure is None else _num(figure.value, digits)


def _jsonable(value: Any) -> Any:
    if isinstance(value, float):
        return _num(value, 6)
    if isinstance(value, tuple | list):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, str | int | bool) or value is None:
        return value
    return str(value)


def workload_dict(w: Workload, effective: Workload | None = None) -> dict[str, Any]:
    """The contract's workload object, keys in contract order. `params_b` is filled from the catalog
    (the effective workload) when a model is named and the user gave no size."""
    out = {key: _jsonable(getattr(w, key)) for key in CONTRACT_WORKLOAD_KEYS}
    if out["params_b"] is None and w.model is not None and effective is not None and effective.params_b is not None:
        out["params_b"] = _jsonable(effective.params_b)
    # Additions the user set (allowed by the contract: add keys, never rename): shown only when set,
    # so a script sees e.g. "cache_dataset" or "target_tokens_per_s" it asked for.
    for key in type(w).model_fields:
        if key not in out and getattr(w, key) is not None:
            out[key] = _jsonable(getattr(w, key))
    return out


def memory_dict(memory: MemoryEstimate | None) -> dict[str, Any] | None:
    if memory is None:
        return None
    return {
        "total_gb": _num(memory.total_gb),
        "per_gpu_gb": _num(memory.per_gpu_gb),
        "components": {name: _fig(fig) for name, fig in memory.components.items()},
    }


def throughput_dict(t: ThroughputEstimate | None) -> dict[str, Any] | None:
    if t is None:
        return None
    return {
        "training_tokens_per_s": _fig(t.training_tokens_per_s, 1),
        "gpu_hours": _fig(t.gpu_hours, 2),
        "decode_tokens_per_s": _fig(t.decode_tokens_per_s, 1),
        "decode_tokens_per_s_per_sequence": _fig(t.decode_tokens_per_s_per_sequence, 2),
        # additions
        "wall_clock_hours": _fig(t.wall_clock_hours, 2),
        "prefill_seconds": _fig(t.prefill_seconds, 4),
        "bound": t.bound,
        "replicas": t.replicas,
        "cost_per_1m_tokens_usd": _fig(t.cost_per_1m_tokens_usd, 4),
        "ttft_s": _fig(t.ttft_s, 4),
        # the percentile `ttft_s` is at with a queue ("p95" unless said, "p50", "mean"); null for a prefill alone
        "ttft_percentile": t.ttft_s.inputs.get("percentile") if t.ttft_s is not None else None,
        "targets": [{"name": c.name, "wanted": _num(c.wanted, 4), "got": _num(c.got, 4), "met": c.met,
                     **({"percentile": c.percentile} if c.percentile is not None else {})} for c in t.targets],
    }


def tco_option_dict(option: TcoOption) -> dict[str, Any]:
    return {
        "name": option.name,
        "rows": [{"item": row.item, "usd": _num(row.usd, 2)} for row in option.rows],
        "total_usd": _num(option.total_usd, 2),
        "per_run_usd": _num(option.per_run_usd, 2),  # addition: one run's compute, premium and pull
        "job_usd": _num(option.job_usd, 2),  # a training job longer than a month, whole
        "prices_observed_on": option.prices_observed_on,
        "usd_per_1b_tokens": _num(option.usd_per_1b_tokens, 2),  # training: compute + premium per 1B tokens
        "workflow": option.workflow,  # addition
    }


def _run_throughput(advice: Advice, pick: Option | None) -> dict[str, Any] | None:
    """The plan's throughput, with `wall_clock_hours` the run as billed and checked against a deadline (start-up
    and spot restarts included: the answer's "per run" and `targets[].got`); the compute alone is
    `training_hours`. For an offline job, the job's hours at the fleet's capacity."""
    out = throughput_dict(advice.throughput)
    if out is None or pick is None:
        return out
    from engine.recommendation import job_figures

    job = job_figures(pick, advice.effective)
    if job is not None:
        out["wall_clock_hours"] = _num(job.hours, 2)
    elif pick.hours_per_run is not None:
        out["training_hours"] = out["wall_clock_hours"]
        out["wall_clock_hours"] = _num(pick.hours_per_run, 2)
    return out


def _job_priced(row: dict[str, Any], option: Option, w: Workload) -> dict[str, Any]:
    """An offline job ("translate 20M sentences within 24 hours") is priced whole: `job_usd` and `per_run_usd` are
    the job at the fleet's capacity (the answer's "for the job"), where they had been the fleet's month around
    the clock; `total_usd` stays that month."""
    from engine.recommendation import job_figures

    job = job_figures(option, w)
    if job is not None:
        row["per_run_usd"] = row["job_usd"] = _num(job.usd, 2)
        row["job_hours"] = _num(job.hours, 2)
    return row


def _shown_options(advice: Advice) -> list[Option]:
    """Primary + alternatives first (what the reply shows), else the cheapest few."""
    rec = advice.recommendation
    by_name = {o.name: o for o in advice.options}
    names = ([rec.primary] if rec and rec.primary else []) + list(rec.alternatives if rec else ())
    shown = [by_name[n] for n in dict.fromkeys(names) if n in by_name]
    return shown or list(advice.options[:5])


def option_detail(option: Option) -> dict[str, Any]:
    return {
        "name": option.name,
        "offer_id": option.offer_id,
        "gpu": option.gpu,
        "gpus": option.cluster.gpus,
        "nodes": option.cluster.nodes,
        "mode": option.mode,
        "precision": option.precision,
        "per_gpu_gb": _num(option.memory.per_gpu_gb),
        "hours_per_run": _num(option.hours_per_run, 2),
        "total_usd": _num(option.total_usd, 2),
        "rank_by_cost": option.rank_by_cost,
        "rank_by_time": option.rank_by_time,
        "workflows": {t.workflow: _num(t.total_usd, 2) for t in option.tco},
    }


def formulas(advice: Advice) -> dict[str, Any]:
    """Formula and inputs of every figure in the report, so a script can show its working."""
    out: dict[str, Any] = {}
    if advice.memory is not None:
        for name, fig in advice.memory.components.items():
            out[f"memory.{name}"] = {"formula": fig.formula, "inputs": _jsonable(fig.inputs)}
    if advice.throughput is not None:
        for name in ("training_tokens_per_s", "gpu_hours", "decode_tokens_per_s", "decode_tokens_per_s_per_sequence"):
            fig = getattr(advice.throughput, name)
            if fig is not None:
                out[f"throughput.{name}"] = {"formula": fig.formula, "inputs": _jsonable(fig.inputs), "notes": list(fig.notes)}
    for option in _shown_options(advice):
        for tco in option.tco:
            for row in tco.rows:
                out[f"tco.{tco.name}.{row.item}"] = {"formula": row.formula, "inputs": _jsonable(row.inputs)}
    return out


def to_contract(advice: Advice, questions: Sequence[str] = (), missing: Sequence[str] = ()) -> dict[str, Any]:
    """The exact `ask --json` shape plus extra keys (see module docstring)."""
    shown = _shown_options(advice)
    cluster = advice.cluster
    report: dict[str, Any] = {
        "memory": memory_dict(advice.memory),
        "cluster": None
        if cluster is None
        else {
            "gpu": cluster.gpu,
            "gpus": cluster.gpus,
            "nodes": cluster.nodes,
            "fits": cluster.fits,
            "interconnect": cluster.interconnect,
            "parallelism": cluster.parallelism,
            "tp": cluster.tensor_parallel,
            "pp": cluster.pipeline_parallel,
            "dp": cluster.data_parallel,
            "zero_stage": cluster.zero_stage,
            "gpus_per_replica": cluster.gpus_per_replica,
            "replicas": cluster.replicas,
        },
        "throughput": _run_throughput(advice, shown[0] if shown else None),
        "tco": {"options": [_job_priced(tco_option_dict(t), o, advice.effective) for o in shown for t in o.tco]}
        if shown else None,
    }
    rec = advice.recommendation
    return {
        "workload": workload_dict(advice.workload, advice.effective),
        "missing": list(dict.fromkeys([*advice.missing, *missing])),
        "questions": list(questions),
        "assumptions": [{"field": a.field, "value": _jsonable(a.value), "why": a.why} for a in advice.assumptions],
        "report": report,
        "problems": [
            {"code": p.code, "field": p.field, "message": p.message, "candidates": list(p.candidates)} for p in advice.problems
        ],
        "recommendation": None
        if rec is None
        else {
            "primary": rec.primary,
            "alternatives": list(rec.alternatives),
            "cost_range_usd": None if rec.cost_range_usd is None else [_num(v, 2) for v in rec.cost_range_usd],
            "why": list(rec.why),
            "what_would_change_it": list(rec.what_would_change_it),
        },
        "options": [option_detail(o) for o in advice.options],
        "egress": _jsonable(_egress_summary(advice.egress)),
        "quantization": _jsonable(list(advice.quantization)),
        "notes": list(advice.notes),
        "formulas": formulas(advice),
        "images": _jsonable(advice.images),
    }


def _egress_summary(egress: dict[str, Any] | None) -> dict[str, Any] | None:
    if egress is None:
        return None
    out: dict[str, Any] = {}
    for key, value in egress.items():
        out[key] = value.value if isinstance(value, Figure) else value
    return out
