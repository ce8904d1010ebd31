"""Turn a `Response` into Block Kit (plus the plain-text fallback) through jinja2 templates.

Why templates and a typed view: the wording and layout of a reply change far more often than
the numbers, so they live in `bot/templates/*.j2` as data, and each template receives one
documented context object (`AnswerView`, `HomeView`, ...). The builders here only *select and
format* what the engine computed; they never estimate anything.

Each `*.json.j2` template appends plain dicts to `blocks` and ends by printing `blocks|tojson`; the
output is parsed back with `json.loads` (so a template can never emit invalid JSON unnoticed) and
passed through `bot.limits.fit_message` before anything is sent.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import jinja2

from bot.chart import ChartBar
from bot.limits import Message, fit_message, fit_view
from bot.service import Response
from engine.models import Advice, Figure, Option, TargetCheck, TcoOption

# action ids: bot.listeners.actions routes on these
ACTION_COMPARE_GPU = "refine_gpu"
ACTION_CACHE = "refine_cache"
ACTION_RUNS = "refine_runs"
ACTION_FORMULAS = "show_formulas"
ACTION_DETAILS = "show_details"
ACTION_OPTIONS = "show_options"
ACTION_CHART = "show_chart"
ACTION_SHARE_VRAM = "vram_share"
RUN_CHOICES = (1, 5, 10, 20, 40, 80)
MAX_OPTIONS_SHOWN = 4

EXAMPLES = (
    "QLoRA 70B, 500GB corpus in S3, 20 runs",
    "full fine-tune Llama 3.1 8B on 2B tokens, 3 epochs, data in GCS",
    "serve Mixtral 8x7B at 50 concurrent users, fp8",
    "does Qwen2.5 72B fit on 4x A100 80GB for inference?",
)
REFINEMENTS = ("what about 40 runs?", "try A100s", "cache the dataset", "use spot pricing", "undo")
# Words that post a part of the answer into the thread, like the buttons of the same name.
THREAD_WORDS = ("details", "options", "formulas", "chart")


# --- formatting helpers (also jinja filters) ---------------------------------------------------
def fmt_gb(value: float | None) -> str:
    if value is None:
        return "?"
    return f"{value:,.0f} GB" if value >= 100 else f"{value:,.1f} GB"


def fmt_usd(value: float | None) -> str:
    if value is None:
        return "?"
    return f"${value:,.0f}" if abs(value) >= 100 else f"${value:,.2f}"


def fmt_num(value: float | None, unit: str = "") -> str:
    if value is None:
        return "?"
    for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= scale:
            text = f"{value / scale:,.1f}{suffix}"
            break
    else:
        text = f"{value:,.1f}" if value % 1 else f"{value:,.0f}"
    return f"{text} {unit}".strip()


def mrkdwn_escape(text: Any) -> str:
    """Slack mrkdwn needs &, < and > escaped; user-supplied names must not become links or mentions."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def plain(text: Any) -> str:
    """mrkdwn emphasis removed, for the terminal and Slack's notification text."""
    return str(text).replace("*", "")


def _label(name: str) -> str:
    return name.removesuffix("_gb").replace("_", " ")


# --- typed contexts -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Button:
    action_id: str
    text: str
    value: str


@dataclass(frozen=True)
class ComparisonRow:
    """One line of the first message's comparison: the winner, the runner-up, the cheapest or fastest."""

    role: str  # "winner" | "runner-up" | "cheapest" | "fastest"
    name: str
    monthly: str  # "$2.43M/month"
    unit_cost: str  # "$121,728/run" (training) or "$8.17/1M tokens" (serving); "" when unknown
    speed: str  # "590 h/run" or "6.5 tokens/s per user"
    winner: bool


@dataclass(frozen=True)
class AnswerView:
    """Context of `answer.json.j2` / `answer.txt.j2`: the first message, a summary a reader takes in at
    a glance. Every string is display-ready (not escaped); the breakdowns live in `DetailsView` and
    `OptionsView`, posted when asked for."""

    headline: str
    verdict: str  # "fits" | "does_not_fit" | "unknown"
    questions: list[str] = field(default_factory=list)
    changes: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    plan: str = ""  # GPUs x type, nodes, parallelism, replicas, memory per GPU
    speed: str = ""
    cost: str = ""
    targets: list[str] = field(default_factory=list)  # "per-user speed 20 tokens/s: target met (31)"
    not_covered: str = ""  # an accelerator the catalog does not cover
    fixes: list[str] = field(default_factory=list)  # what would make it fit (does-not-fit answers)
    comparison: list[ComparisonRow] = field(default_factory=list)
    unit_cost_label: str = "per run"
    speed_label: str = "time per run"
    key_assumptions: str = ""  # one line: token count, utilisation, pricing basis
    notes: list[str] = field(default_factory=list)  # what the reader noticed (ambiguous names), at most two
    buttons: list[Button] = field(default_factory=list)
    runs_select: bool = False
    tables: bool = False  # the comparison as a Slack table block (workspaces that support it)
    vram_only: bool = False
    memory_line: str = ""  # /vram: peak per GPU and its biggest parts
    precision_rows: list[tuple[str, str, str]] = field(default_factory=list)  # (precision, weights+KV, caveat)
    assumptions: list[str] = field(default_factory=list)  # /vram: at most two
    hint: str = ""  # terminal only: how to see the rest


@dataclass(frozen=True)
class HelpView:
    """Context of `help.json.j2`: answer to gibberish / "help" / an empty mention."""

    intro: str
    examples: Sequence[str] = EXAMPLES
    refinements: Sequence[str] = REFINEMENTS
    questions: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class FormulasView:
    """Context of `formulas.json.j2`: how each number was obtained."""

    title: str
    lines: list[str]


def _gpu_name(gpu_id: str | None, names: Mapping[str, str]) -> str:
    return names.get(gpu_id or "", gpu_id or "GPU")


def _subject(advice: Advice, names: Mapping[str, str]) -> str:
    w = advice.effective
    size = f"{w.params_b:g}B" if w.params_b else ""
    what = names.get(w.model or "", w.model or "") or size or "model"
    mode = {"qlora": "QLoRA", "lora": "LoRA", "full": "full fine-tune", "pretrain": "pre-training",
            "inference": "serving"}.get(w.mode or "", w.mode or "")
    return f"{mode} {what}".strip()


def _buttons(advice: Advice, charts: bool = True) -> tuple[list[Button], bool]:
    """Details on demand first, then the refinements a user most often types."""
    w = advice.effective
    buttons = [Button(ACTION_DETAILS, "Details", "details")]
    if advice.options:
        buttons.append(Button(ACTION_OPTIONS, "All options", "options"))
    buttons.append(Button(ACTION_FORMULAS, "Formulas", "formulas"))
    if advice.options and charts:
        buttons.append(Button(ACTION_CHART, "Cost chart", "chart"))
    other = "H100" if (w.gpu or "").startswith("a100") else "A100"
    buttons.append(Button(ACTION_COMPARE_GPU, f"Try {other}", f"try {other}s"))
    if w.mode != "inference" and (w.dataset_gb or w.dataset_tokens) and not w.cache_dataset:
        buttons.append(Button(ACTION_CACHE, "Cache the dataset", "cache the dataset"))
    return buttons, w.mode != "inference"


def _winner(advice: Advice) -> str | None:
    return advice.recommendation.primary if advice.recommendation else None


def shown_options(advice: Advice) -> list[Option]:
    """The options the cost chart draws: the first few, plus the winner if it is not among them."""
    winner = _winner(advice)
    shown = list(advice.options[:MAX_OPTIONS_SHOWN])
    if winner and all(o.name != winner for o in shown):
        shown += [o for o in advice.options if o.name == winner][:1]
    return shown


def _best_tco(option: Option) -> TcoOption | None:
    """The workflow whose total the option is listed with (the cheapest that applies)."""
    return min(option.tco, key=lambda t: t.total_usd) if option.tco else None


def fmt_hours(hours: float | None, *, compact: bool = False) -> str:
    """Wall-clock time as a reader plans it: minutes, hours, or days past two days (`compact`: days only)."""
    if hours is None:
        return "?"
    if hours < 1:
        return f"{max(hours * 60, 1):.0f} min"
    if hours < 48:
        return f"{hours:,.1f} h"
    if compact:
        return f"{hours / 24:,.1f} days"
    return f"{hours:,.0f} h ({hours / 24:,.1f} days)"


def fmt_count(value: float) -> str:
    """125B, 1.5T, 50M: a token count without a trailing .0."""
    return fmt_num(value).replace(".0", "")


def fmt_usd_short(value: float | None) -> str:
    """$2.43M, $121k: for the comparison, where a column of seven-figure sums is hard to scan."""
    if value is None:
        return "?"
    if abs(value) >= 1e6:
        return f"${value / 1e6:,.2f}M"
    if abs(value) >= 1e4:
        return f"${value / 1e3:,.0f}k"
    return fmt_usd(value)


def _is_serving(advice: Advice) -> bool:
    return advice.effective.mode == "inference"


def _per_user(option: Option) -> float | None:
    fig = option.throughput.decode_tokens_per_s_per_sequence
    return fig.value if fig is not None else None


def _comparison(advice: Advice) -> list[ComparisonRow]:
    """Winner, runner-up, and whichever of the cheapest / fastest alternative is not already shown."""
    if not advice.options:
        return []
    by_name = {o.name: o for o in advice.options}
    winner = by_name.get(_winner(advice) or "") or advice.options[0]
    alternatives = [by_name[n] for n in (advice.recommendation.alternatives if advice.recommendation else ())
                    if n in by_name and n != winner.name]
    runner_up = alternatives[0] if alternatives else next((o for o in advice.options if o.name != winner.name), None)
    serving = _is_serving(advice)
    cheapest = min(advice.options, key=lambda o: o.total_usd)
    if serving:
        fastest = max(advice.options, key=lambda o: _per_user(o) or 0.0)
    else:
        fastest = min(advice.options, key=lambda o: o.hours_per_run if o.hours_per_run is not None else float("inf"))
    picked: list[tuple[str, Option]] = [("winner", winner)]
    if runner_up is not None:
        picked.append(("runner-up", runner_up))
    shown = {o.name for _, o in picked}
    if cheapest.name not in shown:
        picked.append(("cheapest", cheapest))
    elif fastest.name not in shown:
        picked.append(("fastest", fastest))
    return [_comparison_row(role, o, serving, winner.name) for role, o in picked]


def _comparison_row(role: str, option: Option, serving: bool, winner: str) -> ComparisonRow:
    best = _best_tco(option)
    if serving:
        fig = option.throughput.cost_per_1m_tokens_usd
        unit_cost = f"{fmt_usd(fig.value)}/1M tokens" if fig is not None else ""
        per_user = _per_user(option)
        speed = f"{fmt_num(per_user)} tokens/s per user" if per_user is not None else ""
    else:
        unit_cost = f"{fmt_usd(best.per_run_usd)}/run" if best is not None and best.per_run_usd else ""
        speed = f"{fmt_hours(option.hours_per_run, compact=True)}/run" if option.hours_per_run is not None else ""
    return ComparisonRow(role, option.name, f"{fmt_usd_short(option.total_usd)}/month", unit_cost, speed,
                         option.name == winner)


def _plan_line(advice: Advice, names: Mapping[str, str]) -> str:
    cluster, mem = advice.cluster, advice.memory
    if cluster is None:
        return f"{fmt_gb(mem.per_gpu_gb)} peak per GPU" if mem else ""
    gpu = _gpu_name(cluster.gpu, names)
    nodes = f"{cluster.nodes} nodes × {cluster.gpus_per_node} GPUs" if cluster.nodes > 1 else "1 node"
    bits = [f"*{cluster.gpus}× {gpu}* on {nodes}"]
    if cluster.replicas and cluster.gpus_per_replica:
        split = [f"TP {cluster.tensor_parallel}"] if cluster.tensor_parallel > 1 else []
        split += [f"PP {cluster.pipeline_parallel}"] if cluster.pipeline_parallel > 1 else []
        bits.append(f"{cluster.replicas} replica(s) of {cluster.gpus_per_replica} GPU(s)"
                    + (f" ({' · '.join(split)})" if split else ""))
    else:
        bits.append(cluster.parallelism + (f", ZeRO-{cluster.zero_stage}" if cluster.zero_stage else ""))
    if mem is not None:
        usable = f" of {fmt_gb(mem.usable_gb_per_gpu)} usable" if mem.usable_gb_per_gpu else ""
        bits.append(f"{fmt_gb(mem.per_gpu_gb)}{usable} per GPU")
    return " · ".join(bits)


def _speed_line(advice: Advice) -> str:
    tp = advice.throughput
    if tp is None:
        return ""
    if tp.decode_tokens_per_s is not None or tp.decode_tokens_per_s_per_sequence is not None:
        bits = []
        if tp.decode_tokens_per_s_per_sequence is not None:
            bits.append(f"*{fmt_num(tp.decode_tokens_per_s_per_sequence.value)} tokens/s per user*")
        if tp.decode_tokens_per_s is not None:
            bits.append(f"{fmt_num(tp.decode_tokens_per_s.value)} tokens/s in total")
        first = tp.ttft_s or tp.prefill_seconds
        if first is not None:
            bits.append(f"first token in {first.value:,.2g} s")
        return " · ".join(bits)
    bits = []
    if tp.wall_clock_hours is not None:
        bits.append(f"*{fmt_hours(tp.wall_clock_hours.value)} per run*")
    if tp.gpu_hours is not None:
        bits.append(f"{fmt_num(tp.gpu_hours.value)} GPU-hours")
    if tp.training_tokens_per_s is not None:
        bits.append(f"{fmt_num(tp.training_tokens_per_s.value)} tokens/s")
    return " · ".join(bits)


def _cost_line(advice: Advice, asking: bool = False) -> str:
    winner = next((o for o in advice.options if o.name == _winner(advice)), None)
    if winner is None:
        if advice.cluster is not None and advice.cluster.fits:
            return ("priced once the open question is answered" if asking
                    else "no offer in the catalog is priced for this configuration")
        return ""
    best = _best_tco(winner)
    bits: list[str] = []
    if _is_serving(advice):
        bits.append(f"*{fmt_usd(winner.total_usd)} a month* (always on)")
        fig = winner.throughput.cost_per_1m_tokens_usd
        if fig is not None:
            bits.append(f"{fmt_usd(fig.value)} per 1M tokens")
    else:
        runs = advice.effective.runs_per_month
        if best is not None and best.per_run_usd:
            bits.append(f"*{fmt_usd(best.per_run_usd)} per run*")
        bits.append(f"{fmt_usd(winner.total_usd)} a month" + (f" for {runs:g} run(s)" if runs else ""))
        if best is not None and best.job_usd:
            bits.append(f"*{fmt_usd(best.job_usd)} for the whole job* (a run lasts longer than a month)")
    return " · ".join(bits) + f" on {winner.name}"


# Workload field of a TargetCheck -> (what it is, unit, higher is better)
TARGET_LABELS: dict[str, tuple[str, str, bool]] = {
    "target_tokens_per_s_per_user": ("per-user speed", "tokens/s", True),
    "target_tokens_per_s": ("total throughput", "tokens/s", True),
    "requests_per_s": ("request rate", "requests/s", True),
    "target_ttft_s": ("time to first token", "s", False),
    "deadline_hours": ("time per run", "h", False),
}


def target_line(check: TargetCheck) -> str:
    """"per-user speed ≥ 20 tokens/s: target met (31)" or "... missed by 4.2 tokens/s (got 15.8)"."""
    label, unit, higher = TARGET_LABELS.get(check.name, (check.name.replace("_", " "), "", True))
    wanted = f"{'≥' if higher else '≤'} {fmt_num(check.wanted, unit)}"
    if check.met:
        return f"{label} {wanted}: target met ({fmt_num(check.got, unit)})"
    return f"{label} {wanted}: missed by {fmt_num(abs(check.wanted - check.got), unit)} (got {fmt_num(check.got, unit)})"


def key_assumptions(advice: Advice) -> str:
    """The assumptions that move the answer most, in a few words each: token count, utilisation, pricing."""
    found = {a.field: a for a in advice.assumptions}
    bits: list[str] = []
    tokens = found.get("dataset_tokens")
    if tokens is not None and isinstance(tokens.value, int | float):
        source = f" from {fmt_gb(advice.effective.dataset_gb)} of text" if advice.effective.dataset_gb else ""
        bits.append(f"~{fmt_count(float(tokens.value))} tokens per epoch{source}")
    tp = advice.throughput
    mfu = tp.training_tokens_per_s.inputs.get("mfu") if tp and tp.training_tokens_per_s else None
    if isinstance(mfu, int | float):
        bits.append(f"{mfu:.0%} MFU")
    elif tp is not None and tp.decode_tokens_per_s is not None:
        efficiency = tp.decode_tokens_per_s.inputs.get("bandwidth_efficiency")
        if isinstance(efficiency, int | float):
            bits.append(f"{efficiency:.0%} of peak memory bandwidth")
    if tp is not None and tp.cost_per_1m_tokens_usd is not None:
        busy = tp.cost_per_1m_tokens_usd.inputs.get("utilization")
        if isinstance(busy, int | float):
            bits.append(f"busy {busy:.0%} of the time")
    for name, label in (("concurrency", "concurrent users"), ("seq_len", "tokens of context")):
        a = found.get(name)
        if a is not None and _is_serving(advice) and isinstance(a.value, int | float):
            bits.append(f"{fmt_num(float(a.value))} {label}")
    if not bits:  # none of those apply: the first two the engine lists
        bits = [f"{a.field.replace('_', ' ')} {a.value}" for a in advice.assumptions[:2]
                if isinstance(a.value, str | int | float)]
    pricing = advice.effective.pricing or (found["pricing"].value if "pricing" in found else None)
    if pricing:
        bits.append(f"{str(pricing).replace('_', '-')} prices")
    return "Assumes " + " · ".join(bits) if bits else ""


def _coherent_change(line: str, verdict: str, asking: bool = False) -> str:
    """A change line must not contradict the headline: when the model still fits but no priced option
    is left (often because a question about the data is open), say that instead of "no configuration fits"."""
    if verdict == "fits":
        instead = "it fits; the cost follows once the open question is answered" if asking else \
            "it still fits, but no priced offer is left"
        return line.replace("no configuration fits any more", instead)
    return line


def _headline(advice: Advice, names: Mapping[str, str], problems: list[str]) -> tuple[str, str]:
    mem, cluster = advice.memory, advice.cluster
    subject = _subject(advice, names)
    if cluster is not None and cluster.fits:
        nodes = f" ({cluster.nodes} nodes)" if cluster.nodes > 1 else ""
        return "fits", f"✅ Fits: {subject} on {cluster.gpus}× {_gpu_name(cluster.gpu, names)}{nodes}"
    if cluster is not None or (mem is not None and mem.fits is False):
        gpu = _gpu_name(cluster.gpu if cluster else advice.effective.gpu, names)
        gpu = f"{cluster.gpus}× {gpu}" if cluster is not None and cluster.gpus > 1 else gpu
        need = f" (needs {fmt_gb(mem.per_gpu_gb)} per GPU)" if mem is not None else ""
        return "does_not_fit", f"❌ Does not fit: {subject} on {gpu}{need}"
    reason = problems[0] if problems else "not enough to size it yet"
    has_subject = bool(advice.effective.model or advice.effective.params_b)
    return "unknown", (f"⚠️ {subject}: {reason}" if has_subject else f"⚠️ {reason}")


def _not_covered(advice: Advice) -> str:
    name = advice.effective.unsupported_accelerator or advice.workload.unsupported_accelerator
    if not name:
        return ""
    return (f"{name} is not covered: the catalog holds NVIDIA and AMD GPUs only, so the plan below is for GPUs, "
            f"not {name}.")


def build_answer_view(response: Response, names: Mapping[str, str] | None = None,
                      *, vram_only: bool = False, tables: bool = False, charts: bool = True,
                      hint: str = "") -> AnswerView:
    """Select and format what the engine computed for the first message; no arithmetic beyond unit display."""
    names = names or {}
    advice = response.advice
    assert advice is not None, "build_help_view is for responses without advice"
    problems = [p.message for p in advice.problems]
    verdict, headline = _headline(advice, names, problems)
    problems = problems[1:] if verdict == "unknown" else problems
    said = {a.why for a in advice.assumptions} | set(response.questions)
    notes = [n for n in dict.fromkeys(response.notes) if n not in said][:2]
    if vram_only:
        mem = advice.memory
        parts = sorted(mem.components.items(), key=lambda kv: -kv[1].value)[:3] if mem else []
        memory_line = (f"*{fmt_gb(mem.per_gpu_gb)} per GPU*"
                       + (f" of {fmt_gb(mem.usable_gb_per_gpu)} usable" if mem.usable_gb_per_gpu else "")
                       + (" (" + " · ".join(f"{_label(k)} {fmt_gb(f.value)}" for k, f in parts) + ")" if parts else "")
                       ) if mem else ""
        precision_rows = [
            (str(q.get("precision")), fmt_gb(q.get("total_gb")), str(q.get("accuracy", "")).split(";")[0])
            for q in advice.quantization if q.get("total_gb") is not None
        ]
        vram_assumptions = [f"{a.field.replace('_', ' ')} {a.value}" for a in advice.assumptions
                            if a.field in VRAM_ASSUMPTIONS][:2]
        return AnswerView(headline=headline, verdict=verdict, questions=list(response.questions),
                          changes=list(response.changes), problems=problems, memory_line=memory_line,
                          precision_rows=precision_rows, assumptions=vram_assumptions, notes=notes,
                          not_covered=_not_covered(advice), vram_only=True, hint=hint)
    fixes: list[str] = []
    if verdict == "does_not_fit" and advice.recommendation:
        fixes = list(advice.recommendation.what_would_change_it[:2])
    tp = advice.throughput
    serving = _is_serving(advice)
    buttons, runs = _buttons(advice, charts)
    asking = bool(response.questions)
    changes = [_coherent_change(c, verdict, asking) for c in response.changes]
    assumptions = key_assumptions(advice)
    return AnswerView(
        headline=headline,
        verdict=verdict,
        questions=list(response.questions),
        changes=changes,
        problems=problems,
        plan=_plan_line(advice, names),
        speed=_speed_line(advice) if verdict == "fits" else "",  # the speed of a plan that cannot run misleads
        cost=_cost_line(advice, asking),
        targets=[target_line(t) for t in tp.targets] if tp else [],
        not_covered=_not_covered(advice),
        fixes=fixes,
        comparison=_comparison(advice),
        unit_cost_label="per 1M tokens" if serving else "per run",
        speed_label="per user" if serving else "time per run",
        key_assumptions=assumptions,
        notes=notes,
        buttons=buttons,
        runs_select=runs,
        tables=tables,
        hint=hint,
    )


# Assumptions a /vram reader needs: what the memory figure was computed at.
VRAM_ASSUMPTIONS = ("precision", "seq_len", "batch_size", "concurrency", "optimizer", "gradient_checkpointing")


def build_help_view(response: Response | None = None) -> HelpView:
    if response is not None and response.intent == "gibberish":
        intro = ("I couldn't find a workload in that. Tell me the model (or its size), whether it is "
                 "training or inference, and where the data lives — for example:")
    else:
        intro = "I size GPU jobs: memory per GPU, how many GPUs and nodes, how fast, and what it costs. Try:"
    return HelpView(
        intro=intro,
        questions=list(response.questions) if response else [],
        notes=list(response.notes) if response else [],
    )


def build_formulas_view(advice: Advice) -> FormulasView:
    """Every Figure's formula and inputs, so a reader can check the arithmetic."""
    lines: list[str] = []

    def add(name: str, fig: Figure | None) -> None:
        if fig is None:
            return
        inputs = ", ".join(f"{k}={v}" for k, v in list(fig.inputs.items())[:8])
        lines.append(f"{name} = {fig.formula} = {fig.value:,.4g} {fig.unit}" + (f"  [{inputs}]" if inputs else ""))

    if advice.memory:
        for key, fig in advice.memory.components.items():
            add(key, fig)
    if advice.throughput:
        tp = advice.throughput
        for key in ("training_tokens_per_s", "gpu_hours", "wall_clock_hours", "decode_tokens_per_s",
                    "decode_tokens_per_s_per_sequence", "prefill_seconds", "ttft_s", "cost_per_1m_tokens_usd"):
            add(key, getattr(tp, key))
    for option in advice.options[:2]:
        for tco in option.tco[:1]:
            for row in tco.rows:
                lines.append(f"{option.name} {row.item} = {row.formula} = ${row.usd:,.2f}")
    return FormulasView("How these numbers were computed", lines or ["No figures yet: describe a workload first."])


# Workflow of an option's TCO (engine.tco), as the chart names it.
WORKFLOW_PHRASES = {
    "cached": "dataset cached at the provider (one pull a month)",
    "uncached": "dataset pulled every run",
    "same_cloud": "data in the same cloud (no egress)",
}


@dataclass(frozen=True)
class ChartView:
    """What `bot.chart.tco_chart_png` draws for one answer, and how the uploaded file is named."""

    title: str
    subtitle: str
    bars: list[ChartBar]
    alt_text: str  # the chart in words, for screen readers (files.getUploadURLExternal alt_txt)


def answers_with_advice(response: Response) -> bool:
    """True when `render_response` answers with the advice (not help, questions or gibberish)."""
    return response.advice is not None and not (response.intent in ("help", "gibberish") and not response.changes)


def build_chart_view(response: Response, names: Mapping[str, str] | None = None) -> ChartView | None:
    """The TCO chart of an answer: the options the reply lists, or None when there is nothing to chart."""
    if not answers_with_advice(response):
        return None
    advice = response.advice
    assert advice is not None
    winner = _winner(advice)
    priced = [(o, t) for o in shown_options(advice) if (t := _best_tco(o)) is not None]
    if not priced:
        return None
    workflows = list(dict.fromkeys(t.workflow for _, t in priced))
    common = WORKFLOW_PHRASES.get(workflows[0], "") if len(workflows) == 1 else ""
    bars = [
        ChartBar(
            name=o.name,
            segments=tuple((str(r.item), r.usd) for r in t.rows),
            total_usd=o.total_usd,
            total=fmt_usd(o.total_usd),
            winner=o.name == winner,
            note="" if len(workflows) == 1 else WORKFLOW_PHRASES.get(t.workflow, ""),
        )
        for o, t in priced
    ]
    runs = advice.effective.runs_per_month
    subtitle = " · ".join(bit for bit in (
        f"{runs:g} run(s) a month" if runs else "",
        common,
    ) if bit)
    alt = "; ".join(f"{b.name}: {b.total} a month" + (" (winner)" if b.winner else "") for b in bars)
    return ChartView(
        title=f"Monthly cost (TCO): {_subject(advice, names or {})}",
        subtitle=subtitle,
        bars=bars,
        alt_text=f"Bar chart of monthly cost per option. {alt}"[:1000],
    )


# --- rendering ----------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("bot", "templates"),
        autoescape=False,  # JSON and plain text, never HTML; mrkdwn escaping is explicit (|esc)
        extensions=["jinja2.ext.do"],
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
    )
    env.filters.update(esc=mrkdwn_escape, gb=fmt_gb, usd=fmt_usd, num=fmt_num, plain=plain)
    return env


def render_blocks(template: str, **context: Any) -> list[dict[str, Any]]:
    """Render a `*.json.j2` template and parse its output back into blocks."""
    out = environment().get_template(template).render(blocks=[], **context)
    blocks = json.loads(out)
    if not isinstance(blocks, list):
        raise ValueError(f"{template} must render a JSON list of blocks")
    return blocks


def render_text(template: str, **context: Any) -> str:
    return environment().get_template(template).render(**context).strip() + "\n"


def render_answer(view: AnswerView) -> list[Message]:
    blocks = render_blocks("answer.json.j2", view=view, run_choices=RUN_CHOICES)
    return fit_message(blocks, render_text("answer.txt.j2", view=view))


def render_help(view: HelpView) -> list[Message]:
    return fit_message(render_blocks("help.json.j2", view=view), render_text("help.txt.j2", view=view))


def render_formulas(view: FormulasView) -> list[Message]:
    text = view.title + "\n" + "\n".join(view.lines)
    return fit_message(render_blocks("formulas.json.j2", view=view), text)


def unchanged_help(response: Response) -> HelpView:
    """A thread reply that was not understood: the scenario stays, and the user sees what they can say."""
    view = build_help_view(response)
    return HelpView(intro="I didn't understand that, so the scenario in this thread is unchanged. You can say:",
                    examples=REFINEMENTS + THREAD_WORDS, refinements=(), questions=view.questions, notes=view.notes)


def render_response(response: Response, names: Mapping[str, str] | None = None,
                    *, vram_only: bool = False, tables: bool = False, charts: bool = True) -> list[Message]:
    """The reply to one turn: an answer when there is advice, otherwise help and questions.

    `tables`: draw the comparison as a Slack table block (for workspaces that support it);
    `charts`: offer the "Cost chart" button (off when the app cannot upload files)."""
    if not answers_with_advice(response):
        if response.advice is not None and response.intent == "gibberish":
            return render_help(unchanged_help(response))
        return render_help(build_help_view(response))
    return render_answer(build_answer_view(response, names, vram_only=vram_only, tables=tables, charts=charts))


def render_error() -> list[Message]:
    text = "Sorry — something went wrong while working that out. It has been logged; please try again."
    return fit_message([{"type": "section", "text": {"type": "mrkdwn", "text": f":warning: {text}"}}], text)


def render_vram(response: Response, names: Mapping[str, str] | None = None) -> list[Message]:
    """Ephemeral /vram answer: memory only, plus a button to share it in the channel."""
    messages = render_response(response, names, vram_only=True)
    if response.advice is None:
        return messages
    share = {"type": "actions", "block_id": "vram_share", "elements": [{
        "type": "button", "action_id": ACTION_SHARE_VRAM, "text": {"type": "plain_text", "text": "Share in channel"},
        "value": response.text[:2000]}]}
    last = messages[-1]
    return [*messages[:-1], *fit_message([*last.blocks, share], last.text)]


HOME_EXAMPLES = (
    "QLoRA 70B, 500GB corpus in S3, 20 runs",
    "serve Llama 3.1 70B for 100 concurrent users at 8k context, 30 tokens/s per user",
    "pretrain a 1.3B model from scratch on 1.5T tokens, 64 H100s",
)


def prices_age(observed_on: Sequence[str], today: dt.date | None = None) -> str:
    """"Prices in the catalog were read on 2026-11-21 (2 days ago)." from the offers' observed_on dates."""
    if not observed_on:
        return "The catalog's prices carry the date they were read: `gpu-advisor catalog offers` lists them."
    oldest, newest = min(observed_on), max(observed_on)
    when = f"on {oldest}" if oldest == newest else f"between {oldest} and {newest}"
    age = ""
    if today is not None:
        try:
            days = (today - dt.date.fromisoformat(oldest)).days
            age = f" ({days} day{'s' if days != 1 else ''} ago for the oldest)" if days >= 0 else ""
        except ValueError:
            age = ""
    return (f"Prices in the catalog were read {when}{age}. List prices move: check the provider's pricing "
            "page before you sign.")


def render_home(user_id: str | None = None, observed_on: Sequence[str] = (),
                today: dt.date | None = None) -> dict[str, Any]:
    """The App Home tab view: what a new user needs to start."""
    blocks = render_blocks("home.json.j2", examples=HOME_EXAMPLES, refinements=REFINEMENTS, words=THREAD_WORDS,
                           prices=prices_age(observed_on, today), user_id=user_id)
    return {"type": "home", "blocks": fit_view(blocks)}
