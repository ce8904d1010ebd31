"""What a refinement changed and what that did, in a line a user reads in the thread.

"runs per month 20 -> 40: egress +$900/month; SageMaker now wins by $603". Compares two
`Advice`s for the same conversation: user-given fields, the TCO rows of the option that led
before, the winner, the GPU count, and problems that appeared or went away.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.models import Advice, ClusterPlan, Option, Workload
from engine.think_time import DEFAULT_THINK_TIME_S

_LABELS = {"runs_per_month": "runs per month", "gpu_count": "GPU count", "params_b": "parameters (B)", "seq_len": "sequence length",
           "gpu": "GPU", "instance_type": "machine", "pricing": "pricing", "precision": "precision",
           "budget_usd_per_month": "monthly budget ($)", "budget_usd_per_run": "budget per run ($)", "gpu_vendor": "GPU vendor",
           "hourly_rate": "price per GPU-hour ($)", "service_hours_per_week": "hours a week", "service_schedule": "schedule",
           "prefix_cache_hit": "share of each prompt in the prefix cache", "agentic": "agent calls",
           "target_ttft_s": "first-token target (s)", "ttft_percentile": "first-token percentile", "target_tokens_per_s_per_user": "tokens/s per user target",
           "target_tokens_per_s": "total tokens/s target", "requests_per_s": "requests/s", "concurrency": "users at once",
           "input_tokens": "prompt tokens", "output_tokens": "output tokens", "population": "people (headcount)",
           "providers": "providers", "offline": "no latency target (batch)", "regions": "region",
           "data_residency": "data residency", "think_time_s": "pause between a user's turns (s)"}
_SHARES = frozenset({"prefix_cache_hit", "mfu", "utilization", "headroom"})  # fractions a user says in percent
IGNORED_CODES = frozenset({"runs_for_a_service"})  # a field said that the engine left out, with a problem saying why
_FLOW = {"cached": "data cached", "uncached": "pulling every run", "same_cloud": "same cloud", "none": ""}


# a choice the user had not made: any GPU, any provider; a figure not said is the engine's default
_CHOICES = frozenset({"gpu", "provider", "model", "instance_type", "precision", "pricing", "mode", "data_location",
                      "optimizer", "regions"})


def _fmt(value: Any, name: str = "", names: Mapping[str, str] | None = None) -> str:
    if value is None:
        if name == "ttft_percentile":  # engine.queueing.DEFAULT_TTFT_PERCENTILE, as the answer says it
            return "p95 (assumed)"
        if name == "think_time_s":  # engine.think_time's default for chat users
            return f"{DEFAULT_THINK_TIME_S:g} (assumed)"
        return "any" if name in _CHOICES else "none" if name.startswith(("target_", "budget_")) else "default"
    if name in _SHARES and isinstance(value, int | float):
        return f"{value:.0%}"
    if isinstance(value, str) and names:
        return names.get(value, value)  # "a100-sxm-80gb" -> "A100 SXM4 80GB", "aws" -> "AWS (EC2)"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float) and abs(value) >= 1e6:
        for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M")):
            if abs(value) >= scale:
                return f"{value / scale:g}{suffix}"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, tuple):
        return ",".join(str(v) for v in value)
    return str(value)


def field_changes(before: Workload, after: Workload, names: Mapping[str, str] | None = None,
                  ignored: frozenset[str] = frozenset()) -> list[str]:
    """'runs per month 20 -> 40', 'GPU any -> A100 SXM4 80GB' for every user-given field that differs; `names`:
    catalog ids -> the names answers use."""
    out: list[str] = []
    for name in type(before).model_fields:
        if name in ignored:
            continue
        old, new = getattr(before, name), getattr(after, name)
        if old != new:
            out.append(f"{_LABELS.get(name, name.replace('_', ' '))} {_fmt(old, name, names)} -> {_fmt(new, name, names)}")
    return out


def _primary(advice: Advice) -> Option | None:
    rec = advice.recommendation
    if rec is None or rec.primary is None:
        return None
    return next((o for o in advice.options if o.name == rec.primary), None)


def _money(delta: float) -> str:
    sign = "+" if delta >= 0 else "-"
    return f"{sign}${abs(delta):,.0f}"


def row_changes(before: Option, after: Option) -> list[str]:
    """Per-row deltas of one option across the two answers, skipping rows under $1. A row that moved
    by the same amount in every workflow (compute, usually) is said once, without a workflow."""
    after_flows = {t.workflow: t for t in after.tco}
    deltas: dict[str, list[tuple[str, float]]] = {}
    for tco in before.tco:
        other = after_flows.get(tco.workflow)
        if other is None:
            continue
        new_rows = {r.item: r.usd for r in other.rows}
        for row in tco.rows:
            deltas.setdefault(row.item, []).append((tco.workflow, new_rows.get(row.item, 0.0) - row.usd))
    out: list[str] = []
    for item, per_flow in deltas.items():
        moved = [(flow, d) for flow, d in per_flow if abs(d) >= 1.0]
        if not moved:
            continue
        if len(moved) == len(per_flow) and max(d for _, d in moved) - min(d for _, d in moved) < 1.0:
            out.append(f"{item} {_money(moved[0][1])}/month")
            continue
        for flow, d in moved:
            where = f" ({_FLOW[flow]})" if len(per_flow) > 1 and _FLOW[flow] else ""
            out.append(f"{item} {_money(d)}/month{where}")
    return out


def provider_of(option: Option) -> str:
    """The provider an option rents from (its name when it has no cost rows): how options are grouped by provider."""
    return option.tco[0].provider if option.tco else option.name


def _margin(advice: Advice, winner: Option) -> tuple[float, str] | None:
    """How much the winner saves over the runner-up the answer shows (the recommendation's: the best from another
    provider, or behind an AMD pick the best on another vendor's GPU), else the best from another provider (two
    shapes of one provider often tie, and 'wins by $0' says nothing)."""
    named = advice.recommendation.runner_up if advice.recommendation is not None else None
    runner = next((o for o in advice.options if o.name == named and o.name != winner.name), None) or next(
        (o for o in advice.options if o.name != winner.name and provider_of(o) != provider_of(winner)), None)
    if runner is None:
        return None
    # on what the ranking counts: one training run's cost (no month of storage), else the month or the whole job
    from engine.recommendation import work_usd  # engine.recommendation imports this module

    return work_usd(runner, advice.effective) - work_usd(winner, advice.effective), runner.name


def _speed_changes(before: Advice, after: Advice) -> list[str]:
    out: list[str] = []
    b, a = before.throughput, after.throughput
    if b is None or a is None:
        return out
    # a run's hours as the answer's speed line gives them (start-up and spot restarts included), else the estimate's
    old_p, new_p = _primary(before), _primary(after)
    old_h = None if b.wall_clock_hours is None else (
        old_p.hours_per_run if old_p is not None and old_p.hours_per_run else b.wall_clock_hours.value)
    new_h = None if a.wall_clock_hours is None else (
        new_p.hours_per_run if new_p is not None and new_p.hours_per_run else a.wall_clock_hours.value)
    for label, old, new, unit in (
        ("wall clock per run", old_h, new_h, "h"),
        ("decode", b.decode_tokens_per_s.value if b.decode_tokens_per_s is not None else None,
         a.decode_tokens_per_s.value if a.decode_tokens_per_s is not None else None, "tokens/s"),
    ):
        if old is not None and new is not None and old > 0 and abs(new - old) / old >= 0.05:
            out.append(f"{label} {old:,.0f} -> {new:,.0f} {unit}")
    return out


def _shape(cluster: ClusterPlan) -> str:
    """'4×TP4' (serving: replicas of a tensor-parallel group), 'DP8 ZeRO-3' (training), with PP where there is one."""
    pp = f" PP{cluster.pipeline_parallel}" if cluster.pipeline_parallel > 1 else ""
    if cluster.replicas:
        return f"{cluster.replicas}×TP{cluster.tensor_parallel}{pp}"
    tp = f" TP{cluster.tensor_parallel}" if cluster.tensor_parallel > 1 else ""
    return f"DP{cluster.data_parallel}{tp}{pp} ZeRO-{cluster.zero_stage}"


def _seconds(value: float) -> str:
    return f"{value:.2g} s" if value < 1 else f"{value:.1f} s"


def _plan_changes(old_p: Option | None, new_p: Option | None) -> list[str]:
    """How the winning plan is laid out and its time to first token, when either moved: a target said in a follow-up
    ("first token under 2 seconds") can reshape the plan (4×TP4 -> 2×TP8) at the same GPUs and price, which the
    winner's name and cost do not show."""
    if old_p is None or new_p is None:
        return []
    out: list[str] = []
    old_shape, new_shape = _shape(old_p.cluster), _shape(new_p.cluster)
    if old_shape != new_shape:
        out.append(f"plan {old_shape} -> {new_shape}")
    old_ttft, new_ttft = old_p.throughput.ttft_s, new_p.throughput.ttft_s
    if (old_ttft is not None and new_ttft is not None and old_ttft.value > 0
            and abs(new_ttft.value - old_ttft.value) / old_ttft.value >= 0.05):
        out.append(f"first token {_seconds(old_ttft.value)} -> {_seconds(new_ttft.value)}")
    return out


def _targets_now(after: Advice, before: Advice, new_p: Option | None) -> list[str]:
    """A target the follow-up set (or changed) and whether the winning plan meets it: 'first token ≤ 2 s: met (0.048 s)'."""
    if new_p is None:
        return []
    out: list[str] = []
    for check in new_p.throughput.targets:
        if getattr(before.workload, check.name, None) == getattr(after.workload, check.name, None) and not (
                check.name == "target_ttft_s" and before.workload.ttft_percentile != after.workload.ttft_percentile):
            continue
        if check.name == "target_ttft_s":
            said = after.workload.ttft_percentile  # none said: the p95 assumed, which the Targets line says
            at = "" if said is None else " on average" if said == "mean" else f" at {said}"
            out.append(f"first token ≤ {check.wanted:g} s{at}: {'met' if check.met else 'missed'} ({_seconds(check.got)})")
    return out


def _integer_weights_cost_more(before: Advice, after: Advice, old_p: Option | None, new_p: Option | None) -> str:
    """"use int4" that makes the service dearer than the FP8 or BF16 plan before it, and why: vLLM's AWQ/GPTQ kernels
    keep the matmuls in 16-bit (W4A16/W8A16), saving memory and decode bandwidth but no compute, which long prompts
    need; and they run on NVIDIA only (vLLM's supported-hardware table), so an AMD pick is out. Qwen2.5 72B for 100
    users with 6k-token prompts went from $6,979 (FP8, 4 MI300X) to $11,702 (int4, 7 GH200) with no word why."""
    new_precision = after.workload.precision
    if (old_p is None or new_p is None or new_precision not in ("int8", "int4") or before.workload.precision == new_precision
            or old_p.precision not in ("fp8", "bf16") or (after.effective.mode or "inference") != "inference"
            or new_p.total_usd <= old_p.total_usd * 1.05):
        return ""
    # the rise is the precision's only when nothing else moved: "what about Qwen2.5 32B?" in a local thread went from
    # 8B at BF16 on one 3090 to 32B at 8-bit on two (+100%, the model's), and the hardware picked for a local answer is
    # its cheapest card to buy, not the service this note explains
    same = ("model", "params_b", "gpu", "gpu_count", "concurrency", "seq_len", "input_tokens", "output_tokens")
    if any(getattr(before.workload, k) != getattr(after.workload, k) for k in same) or (
            after.workload.data_location == "onprem" and after.workload.weight_bits):
        return ""
    prompts = int(after.effective.input_tokens or 0)
    load = f"this load's {prompts:,}-token prompts" if prompts >= 2000 else "the prompts' prefill"
    amd = any("runs ROCm" in n for n in old_p.cluster.notes)
    why = ("; and they run on NVIDIA only, so the AMD pick is out" if amd else "")
    back = old_p.precision.upper()
    return (f"why {new_precision} costs more (+{new_p.total_usd / old_p.total_usd - 1:.0%}): vLLM's AWQ/GPTQ kernels keep the "
            f"matmuls in 16-bit, saving memory and decode bandwidth but no compute, which {load} need{why}; "
            f"{back} stays cheaper (say “{old_p.precision}” to go back)")


def compare(before: Advice, after: Advice, names: Mapping[str, str] | None = None) -> list[str]:
    """Lines describing the change; empty when nothing a user would notice changed. `names`: catalog ids (GPUs,
    providers, models) -> the names answers use."""
    lines: list[str] = []
    # a field the engine left out (runs a month said of a service) changed nothing: its problem says why, once
    ignored = frozenset(p.field for p in after.problems if p.code in IGNORED_CODES and p.field)
    changes = field_changes(before.workload, after.workload, names, ignored)
    effects: list[str] = []
    old_p, new_p = _primary(before), _primary(after)
    if old_p is not None:
        same = next((o for o in after.options if o.name == old_p.name), None)
        if same is not None:
            effects.extend(row_changes(old_p, same))
    if new_p is not None:
        margin = _margin(after, new_p)
        by = f" by ${margin[0]:,.0f} over {margin[1]}" if margin is not None and margin[0] >= 1 else ""
        if old_p is None:
            effects.append(f"{new_p.name} wins{by}")
        elif new_p.name != old_p.name:
            was = "" if margin is not None and margin[1] == old_p.name else f" (was {old_p.name})"
            # what the switch costs or saves a month, which "wins by" (against the new runner-up) does not say
            moved = (f"; ${old_p.total_usd:,.0f} -> ${new_p.total_usd:,.0f}/month"
                     if abs(new_p.total_usd - old_p.total_usd) >= 1 else "")
            effects.append(f"{new_p.name} now wins{by}{was}{moved}")
        elif old_p.total_usd != new_p.total_usd:
            effects.append(f"{new_p.name} still wins{by} (${old_p.total_usd:,.0f} -> ${new_p.total_usd:,.0f}/month)")
        else:
            old_margin = _margin(before, old_p)
            if margin is not None and old_margin is not None and abs(margin[0] - old_margin[0]) >= 1.0:
                effects.append(f"{new_p.name} still wins{by} (was ${old_margin[0]:,.0f})")
    elif old_p is not None:
        effects.append("no configuration fits any more")
    effects.extend(_speed_changes(before, after))
    effects.extend(_plan_changes(old_p, new_p))
    if before.cluster is not None and after.cluster is not None and before.cluster.gpus != after.cluster.gpus:
        effects.append(f"GPUs {before.cluster.gpus} -> {after.cluster.gpus} ({after.cluster.nodes} node(s))")
    head = "; ".join(changes) if changes else "no field changed"
    if effects:
        lines.append(f"{head}: {'; '.join(effects)}")
    elif changes:
        met = _targets_now(after, before, new_p)
        lines.append(f"{head}: {'; '.join(met)}, the plan unchanged" if met else f"{head}: no change in the answer")
    dearer = _integer_weights_cost_more(before, after, old_p, new_p)
    if dearer:
        lines.append(dearer)
    old_codes = {(p.code, p.field) for p in before.problems}
    new_codes = {(p.code, p.field) for p in after.problems}
    lines.extend(f"new problem: {p.message}" for p in after.problems if (p.code, p.field) not in old_codes)
    lines.extend(f"resolved: {p.message}" for p in before.problems if (p.code, p.field) not in new_codes)
    return lines
