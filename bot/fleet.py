"""Answers for a team's own cluster with no GPU named, and for a fixed fleet held for a fixed time (engine.fleet_window).

- "how many GPUs on our Slurm cluster to train 7B on 2T tokens in 30 days": the type is asked first, and the answer is
  a row per common type (GPUs, time, GPU-hours, power), not a rental of the newest GPU. `advice` is the plan on the H100
  (the middle of the range, and the commonest in team clusters), costed as owned, so the JSON report stays one plan.
- "train a 7B on 500 A100s for 2 hours": the tokens the fleet trains in the window lead, with the GPU-hours and their
  cost, against a compute-optimal run; `advice` is planned on those tokens, so every figure below agrees.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from bot.formatting import fmt_count, fmt_hours, fmt_num, fmt_usd, fmt_usd_short, winner_option
from bot.limits import HEADER_TEXT
from bot.summary import AnswerView, ComparisonRow
from engine.fleet_window import (
    CHINCHILLA_TOKENS_PER_PARAM,
    OWNED_CLUSTER_GPUS,
    FleetWindow,
    OwnedType,
    fleet_window,
    owned_type,
    window_tokens,
)
from engine.models import TRAINING_MODES, Advice, Workload
from engine.recommend import OWNED_PREFIX, power_usd_per_gpu_hour, run_cost_usd

PRETRAIN_NOTE_START = "“train a "  # parser.fleet.PRETRAIN_NOTE as it opens
MEANWHILE_GPU = "h100-sxm"  # the plan the JSON report carries until the type is said
# jobs answered per type: their counts are whole nodes on any cluster. A fine-tune or a service on one to four GPUs
# is sized on the rented shapes (a B200 QLoRA came out as a whole 8-GPU node), which an owned cluster does not have
PER_TYPE_MODES = ("pretrain", "full")


def in_window(advisor: Any, workload: Workload, advice: Advice) -> tuple[FleetWindow | None, Advice]:
    """The fleet's tokens in the window, and the plan made on them (the first advice when there is no speed)."""
    tp = advice.throughput.training_tokens_per_s if advice.throughput is not None else None
    if tp is None or not tp.value or advice.cluster is None or not advice.cluster.fits:
        return None, advice
    tokens = window_tokens(workload, tp.value)
    if tokens <= 0:
        return None, advice
    planned: Advice = advisor.advise(workload.model_copy(update={"dataset_tokens": tokens}))
    pick = winner_option(planned)
    usd = run_cost_usd(pick.tco, planned.effective) if pick is not None else None
    owned = pick is not None and pick.name.startswith(OWNED_PREFIX)
    record = advisor.catalog_data().gpu(advice.cluster.gpu) if advice.cluster.gpu else None
    power = power_usd_per_gpu_hour(record) if record is not None else None
    return fleet_window(planned, pick, tp.value, usd, owned, power), planned


def owned_types(advisor: Any, workload: Workload) -> tuple[tuple[OwnedType, ...], Advice | None]:
    """A row per common type of a team's own cluster, each sized as the engine sizes the job with the type fixed and
    costed at the GPUs' power; and the plan on `MEANWHILE_GPU` (else the first that fits) as their own GPUs."""
    data = advisor.catalog_data()
    rows: list[OwnedType] = []
    for gpu in OWNED_CLUSTER_GPUS:
        record = data.gpu(gpu)
        if record is None:
            continue
        planned = advisor.advise(workload.model_copy(update={"gpu": gpu}))
        row = owned_type(planned, gpu, power_usd_per_gpu_hour(record))
        if row is not None:
            rows.append(row)
    fitting = [r for r in rows if r.fits]
    if not fitting:
        return tuple(rows), None
    meanwhile = next((r for r in fitting if r.gpu == MEANWHILE_GPU), fitting[0])
    return tuple(rows), owned_plan(advisor, workload.model_copy(update={"gpu": meanwhile.gpu}), meanwhile.gpus)


def owned_plan(advisor: Any, workload: Workload, gpus: int) -> Advice:
    """The plan on `gpus` of the workload's GPU as the team's own (their power), the count the engine sized."""
    return advisor.advise(workload.model_copy(update={"gpu_count": gpus, "data_location": "onprem"}))  # type: ignore[no-any-return]


def owned_sized(advisor: Any, workload: Workload, advice: Advice) -> Advice:
    """"H100" answering "which GPU does your cluster have?": the count sized for the job, costed as theirs."""
    if advice.cluster is None or not advice.cluster.fits or not advice.cluster.gpus:
        return advice
    return owned_plan(advisor, workload, advice.cluster.gpus)


def gpu_question(workload: Workload, rows: tuple[OwnedType, ...], names: dict[str, str] | None = None) -> str:
    """The type asked first, with how much the answer moves with it."""
    fits = [r for r in rows if r.fits]
    spread = ""
    if len(fits) >= 2:
        low, high = min(r.gpus for r in fits), max(r.gpus for r in fits)
        if low:
            spread = f" The count moves {high / low:.1f}x with it; the rows below are per type until you say."
    return f"Which GPU does your cluster have (A100, H100, H200, B200, or another)?{spread}"


def _short_name(gpu: str, names: dict[str, str]) -> str:
    return names.get(gpu, gpu)


def _job_words(advice: Advice) -> str:
    """'pre-training 7B on 2T tokens in 30 days', 'serving Llama 3.1 70B for 100 users'."""
    w = advice.effective
    model = f"{float(w.params_b or 0):g}B" if w.model is None else (w.model or "")
    if (w.mode or "inference") in TRAINING_MODES:
        verb = {"pretrain": "pre-training", "full": "a full fine-tune of", "lora": "LoRA on",
                "qlora": "QLoRA on"}.get(str(w.mode), "training")
        data = f" on {fmt_count(float(w.dataset_tokens))} tokens" if w.dataset_tokens else ""
        when = f" in {fmt_hours(float(advice.workload.deadline_hours), compact=True)}" if advice.workload.deadline_hours else ""
        return f"{verb} {model}{data}{when}".replace(".0 days", " days")
    users = f" for {w.concurrency:,} users" if w.concurrency else ""
    return f"serving {model}{users}"


def owned_types_view(view: AnswerView, rows: tuple[OwnedType, ...], advice: Advice,
                     names: dict[str, str]) -> AnswerView:
    """The first message: the type asked, and the job per common type costed as owned; no plan lines of one type."""
    model = names.get(advice.effective.model or "", "")
    job = _job_words(advice)
    if model:
        job = job.replace(str(advice.effective.model), model)
    fits = [r for r in rows if r.fits]
    training = (advice.effective.mode or "inference") in TRAINING_MODES
    if fits:
        low = min(fits, key=lambda r: r.gpus)
        high = max(fits, key=lambda r: r.gpus)
        headline = (f"⚠️ Which GPU does your cluster have? {job[:1].upper()}{job[1:]} takes {low.gpus:,} "
                    f"({_short_name(low.gpu, names)}) to {high.gpus:,} ({_short_name(high.gpu, names)}) of your own GPUs")
    else:
        headline = f"⚠️ Which GPU does your cluster have? {job[:1].upper()}{job[1:]} fits none of the common types"
    if len(headline) > HEADER_TEXT:
        headline = headline[:HEADER_TEXT - 1] + "…"
    table = []
    for r in rows:
        nodes = f" on {r.nodes:,} nodes" if r.nodes > 1 else ""
        role = _short_name(r.gpu, names)
        if not r.fits:
            table.append(ComparisonRow(role=role, name="does not fit", monthly="", unit_cost="", speed="", winner=False))
            continue
        if training:
            speed = f"{fmt_hours(r.hours_per_run, compact=True)}/run" if r.hours_per_run else ""
            table.append(ComparisonRow(role=role, name=f"{r.gpus:,} GPUs{nodes}",
                                       monthly=f"{fmt_num(r.gpu_hours)} GPU-hours",
                                       unit_cost=f"{fmt_usd_short(r.usd_power)}/run power", speed=speed, winner=False))
        else:
            speed = f"{r.tokens_per_s_per_user:,.1f} tokens/s per user" if r.tokens_per_s_per_user else ""
            table.append(ComparisonRow(role=role, name=f"{r.gpus:,} GPUs{nodes}",
                                       monthly=f"{fmt_usd_short(r.usd_power)}/month power", unit_cost="", speed=speed,
                                       winner=False))
    rates = [r.usd_per_gpu_hour for r in rows]
    power = (f"your own GPUs at power cost (${min(rates):.2f}-${max(rates):.2f} per GPU-hour: TDP × 1.8 for the server "
             f"× PUE 1.3 at $0.12/kWh; say e.g. “at $2/GPU-hour” to count their full cost)" if rates else "")
    assumptions = " · ".join(a for a in (view.key_assumptions.split(" · ")[0] if view.key_assumptions else "", power) if a)
    return replace(view, headline=headline, plan="", speed="", published="", cost="", targets=[], fixes=[],
                   comparison=table, cost_label="GPU-hours" if training else "power a month",
                   unit_cost_label="power per run" if training else "", speed_label="time per run" if training
                   else "per user", key_assumptions=assumptions, buttons=[], runs_select=False)


def window_headline(window: FleetWindow, names: dict[str, str]) -> str:
    """'⏱️ In 2.0 h, 500× A100 SXM4 80GB pre-train ~9.5B tokens of a 7B: 0.7% of a compute-optimal 140B-token run'."""
    gpu = names.get(window.gpu, window.gpu)
    size = f"{window.params_b:g}B"
    verb = "pre-train" if window.pretraining else "train"
    head = f"⏱️ In {_window_words(window.hours)}, {window.gpus:,}× {gpu} {verb} ~{fmt_count(window.tokens)} tokens of a {size}"
    if window.pretraining and window.optimal_tokens:
        share = window.share * 100
        pct = f"{share:.1f}%" if share < 10 else f"{share:.0f}%"
        head += (f": {pct} of a compute-optimal {fmt_count(window.optimal_tokens)}-token run "
                 f"(~{CHINCHILLA_TOKENS_PER_PARAM:g} tokens a parameter)")
    return head if len(head) <= HEADER_TEXT else head[:HEADER_TEXT - 1] + "…"


def _window_words(hours: float) -> str:
    """'2 hours', '1 hour', '3 days': the window as said."""
    if hours >= 48 and hours % 24 == 0:
        return f"{hours / 24:g} days"
    return f"{hours:g} hour{'' if hours == 1 else 's'}" if hours >= 1 else f"{hours * 60:.0f} minutes"


def window_note(window: FleetWindow) -> str:
    """The window's bill: GPU-hours and what they cost, rented and as the team's own, and how the tokens were found."""
    if window.usd is None:
        cost = "not priced"
    elif window.owned:
        cost = f"{fmt_usd(window.usd)} at their power"
    else:
        cost = f"{fmt_usd(window.usd)} rented, or ~{fmt_usd(window.usd_power)} at their power if they are yours"
    return (f"the window: {window.gpu_hours:,.0f} GPU-hours, {cost}; {fmt_num(window.tokens_per_s)} tokens/s × "
            f"{_window_words(window.hours)} less {window.setup_minutes:.0f} minutes of start-up")


def window_view(view: AnswerView, window: FleetWindow, names: dict[str, str], said: list[str]) -> AnswerView:
    """The tokens the window trains lead; its bill, and how "train a 7B" was read (pre-training), come first."""
    reading = [n for n in said if n.startswith(PRETRAIN_NOTE_START) and n not in view.notes]
    return replace(view, headline=window_headline(window, names), notes=[window_note(window), *reading, *view.notes][:3])


def window_contract(window: FleetWindow | None) -> dict[str, Any] | None:
    """`window` in `ask --json` (docs/json.md)."""
    if window is None:
        return None
    return {"hours": window.hours, "gpu": window.gpu, "gpus": window.gpus, "tokens": window.tokens,
            "tokens_per_s": round(window.tokens_per_s, 1), "gpu_hours": round(window.gpu_hours, 2),
            "usd": round(window.usd, 2) if window.usd is not None else None, "owned": window.owned,
            "usd_power": round(window.usd_power, 2) if window.usd_power is not None else None,
            "compute_optimal_tokens": window.optimal_tokens if window.pretraining else None,
            "share_of_compute_optimal": round(window.share, 5) if window.pretraining else None}


def owned_types_contract(rows: tuple[OwnedType, ...] | None) -> list[dict[str, Any]] | None:
    """`owned_by_gpu` in `ask --json` (docs/json.md)."""
    if not rows:
        return None
    return [{"gpu": r.gpu, "gpus": r.gpus, "nodes": r.nodes, "fits": r.fits,
             "hours_per_run": round(r.hours_per_run, 3) if r.hours_per_run is not None else None,
             "gpu_hours": round(r.gpu_hours, 2), "usd_power": round(r.usd_power, 2),
             "usd_per_gpu_hour": round(r.usd_per_gpu_hour, 4),
             "tokens_per_s_per_user": round(r.tokens_per_s_per_user, 2) if r.tokens_per_s_per_user is not None else None}
            for r in rows]
