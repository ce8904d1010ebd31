"""The answer's second layer, posted when asked for ("Details", "All options", "Formulas" buttons or
the thread words `details`, `options`, `formulas`; `gpu-advisor ask --details` in a terminal).

Why a separate layer: the first message (`bot.render.build_answer_view`) must be read in seconds,
but an engineer signing off a purchase also wants the memory breakdown, the interconnect and NCCL
checklist, every assumption, and the four TCO rows of every option. Those are built here from the
stored `Advice` alone, so a button pressed after a restart answers from the thread store, not from
process memory. Like `bot.render`, this only selects and formats; it never estimates.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from bot.formatting import (
    best_tco,
    fmt_gb,
    fmt_hours,
    fmt_num,
    fmt_usd,
    gpu_name,
    label,
    subject,
    winner_name,
)
from bot.limits import Message, fit_message
from bot.render import WORKFLOW_PHRASES, FormulasView, render_blocks, render_text
from bot.summary import speed_margin, stated_mfu, target_line
from engine.models import Advice, Assumption, Figure
from engine.tco import billed_service_hours_per_month
from engine.throughput import total_in_rate
from engine.units import HOURS_PER_MONTH

MAX_OPTIONS_LISTED = 12  # "All options": the ranked table stops here (the rest are dearer and slower)


@dataclass(frozen=True)
class DetailsView:
    """Context of `details.json.j2` / `details.txt.j2`."""

    title: str
    memory_total: str = ""
    memory_rows: list[tuple[str, str]] = field(default_factory=list)
    cluster_lines: list[str] = field(default_factory=list)
    checklist: list[str] = field(default_factory=list)
    throughput_lines: list[str] = field(default_factory=list)
    assumptions: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class WorkflowView:
    workflow: str  # "dataset cached at the provider (one pull a month)"
    rows: list[tuple[str, str]]  # (item, formatted usd): compute, storage, egress, managed
    total: str
    per_run: str
    job: str


@dataclass(frozen=True)
class OptionView:
    rank: int
    name: str
    winner: bool
    detail: str  # "24× B200 180GB, 3 nodes, 590 h/run"
    workflows: list[WorkflowView]


@dataclass(frozen=True)
class OptionsView:
    """Context of `options.json.j2` / `options.txt.j2`: every option ranked, four TCO rows per workflow."""

    title: str
    options: list[OptionView]
    why: list[str] = field(default_factory=list)
    what_would_change_it: list[str] = field(default_factory=list)
    more: int = 0  # options not listed


def build_details_view(advice: Advice, names: Mapping[str, str] | None = None) -> DetailsView:
    names = names or {}
    mem, cluster, tp = advice.memory, advice.cluster, advice.throughput
    memory_rows = [(label(k), fmt_gb(f.value)) for k, f in (mem.components.items() if mem else ())]
    cluster_lines: list[str] = []
    checklist: list[str] = []
    if cluster is not None:
        cluster_lines = [
            f"{cluster.gpus}× {gpu_name(cluster.gpu, names)}, {cluster.nodes} node(s) × {cluster.gpus_per_node} GPUs",
            f"Interconnect: {cluster.interconnect}",
            f"Parallelism: {cluster.parallelism} (DP {cluster.data_parallel} · TP {cluster.tensor_parallel} · "
            f"PP {cluster.pipeline_parallel} · ZeRO {cluster.zero_stage})",
        ]
        if cluster.replicas and cluster.gpus_per_replica:
            cluster_lines.append(f"Replicas: {cluster.replicas} × {cluster.gpus_per_replica} GPU(s) each")
        cluster_lines += list(cluster.notes)
        checklist = [*cluster.checklist, *cluster.provider_questions]
    throughput_lines: list[str] = []
    if tp is not None:
        pairs: list[tuple[str, Figure | None, str]] = [
            ("Training throughput", tp.training_tokens_per_s, "tokens/s"),
            ("GPU-hours per run", tp.gpu_hours, "GPU-h"),
            ("Decode, all users", tp.decode_tokens_per_s, "tokens/s"),
            ("Decode per user", tp.decode_tokens_per_s_per_sequence, "tokens/s"),
            ("Prefill", tp.prefill_seconds, "s"),
            ("Time to first token", tp.ttft_s, "s"),
        ]
        throughput_lines = [f"{label}: {fmt_num(fig.value, unit)}" for label, fig, unit in pairs if fig is not None]
        if tp.wall_clock_hours is not None:
            throughput_lines.append(f"Wall clock per run: {fmt_hours(tp.wall_clock_hours.value)}")
        if tp.cost_per_1m_tokens_usd is not None:
            throughput_lines.append(f"Cost per 1M output tokens: {fmt_usd(tp.cost_per_1m_tokens_usd.value)}")
        if tp.bound:
            throughput_lines.append(f"Bound by: {tp.bound}")
        throughput_lines += [target_line(t, speed_margin(advice), total_in_rate(advice.effective),
                                         advice.workload.ttft_percentile is not None) for t in tp.targets]
    said = {a.why for a in advice.assumptions}
    notes = [n for n in dict.fromkeys([
        *(mem.notes if mem else ()), *(tp.notes if tp else ()), *advice.notes]) if n not in said]
    return DetailsView(
        title=f"Details: {subject(advice, names)}",
        memory_total=fmt_gb(mem.per_gpu_gb) if mem else "",
        memory_rows=memory_rows,
        cluster_lines=cluster_lines,
        checklist=checklist,
        throughput_lines=throughput_lines,
        assumptions=[_assumption_line(a, advice) for a in advice.assumptions],
        notes=notes,
    )


def _assumption_line(a: Assumption, advice: Advice) -> str:
    """One assumption as "field = value (why)". The engine's `mfu` assumption is the dense matmuls' share of
    peak; the MFU the summary states counts every model FLOP (attention at about half that, recompute
    excluded), so the line says both rather than show two different "MFU" figures for one plan."""
    effective = stated_mfu(advice)
    if a.field == "mfu" and effective is not None:
        if isinstance(a.value, int | float):
            return (f"matmul utilisation = {_value(a.value)}, {effective:.0%} MFU over all model FLOPs as the summary "
                    f"states ({a.why})")
        return f"mfu = {_value(a.value)}, {effective:.0%} over all model FLOPs on the pick ({a.why})"
    return f"{a.field.replace('_', ' ')} = {_value(a.value)} ({a.why})"


def _value(value: object) -> str:
    if isinstance(value, tuple | list):
        return ", ".join(str(v) for v in value)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 1_000_000:
        return fmt_num(float(value))
    return str(value)


def build_options_view(advice: Advice, names: Mapping[str, str] | None = None) -> OptionsView:
    winner = winner_name(advice)
    listed = list(advice.options[:MAX_OPTIONS_LISTED])
    if winner and all(o.name != winner for o in listed):
        listed += [o for o in advice.options if o.name == winner][:1]
    views = []
    for rank, option in enumerate(listed, start=1):
        if option.mode == "inference":
            per_user = option.throughput.decode_tokens_per_s_per_sequence
            speed = f"{fmt_num(per_user.value)} tokens/s per user, " if per_user is not None else ""
            per_1m = option.throughput.cost_per_1m_tokens_usd
            unit = f"{fmt_usd(per_1m.value)}/1M output tokens, " if per_1m is not None else ""
            billed_h = billed_service_hours_per_month(advice.effective)
            time = f"{speed}{unit}" + (f"runs {billed_h:,.0f} h/month, stopped outside its hours" if billed_h < HOURS_PER_MONTH
                                       else "always on (730 h/month)")
        else:
            time = f"{fmt_hours(option.hours_per_run)}/run" if option.hours_per_run is not None else ""
        nodes = f", {option.cluster.nodes} nodes" if option.cluster.nodes > 1 else ""
        detail = f"{option.cluster.gpus}× {gpu_name(option.gpu, names or {})}{nodes}" + (f", {time}" if time else "")
        best = best_tco(option)
        ordered = sorted(option.tco, key=lambda t: (t is not best, t.total_usd))
        workflows = [WorkflowView(
            workflow=WORKFLOW_PHRASES.get(t.workflow, ""),
            rows=[(str(r.item), fmt_usd(r.usd)) for r in t.rows],
            total=fmt_usd(t.total_usd),
            per_run=fmt_usd(t.per_run_usd) if t.per_run_usd and option.mode != "inference" else "",
            job=fmt_usd(t.job_usd) if t.job_usd else "",
        ) for t in ordered]
        views.append(OptionView(option.rank_by_cost or rank, option.name, option.name == winner, detail, workflows))
    rec = advice.recommendation
    if not views:
        return OptionsView(title=f"All options: {subject(advice, names or {})}: none priced yet", options=[],
                           what_would_change_it=list(rec.what_would_change_it) if rec else [])
    return OptionsView(
        title=f"All options: {subject(advice, names or {})}, cheapest first",
        options=views,
        why=list(rec.why) if rec else [],
        what_would_change_it=list(rec.what_would_change_it) if rec else [],
        more=max((advice.options_ranked or len(advice.options)) - len(listed), 0),
    )


def render_details(view: DetailsView) -> list[Message]:
    return fit_message(render_blocks("details.json.j2", view=view), render_text("details.txt.j2", view=view), owned=True)


def render_options(view: OptionsView) -> list[Message]:
    return fit_message(render_blocks("options.json.j2", view=view), render_text("options.txt.j2", view=view), owned=True)


def formulas_text(view: FormulasView) -> str:
    return view.title + "\n" + "\n".join(f"  {line}" for line in view.lines) + "\n"
