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

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import jinja2

from bot.chart import ChartBar
from bot.limits import Message, fit_message, fit_view
from bot.service import Response
from engine.models import Advice, Figure, Option, TcoOption

# action ids: bot.listeners.actions routes on these
ACTION_COMPARE_GPU = "refine_gpu"
ACTION_CACHE = "refine_cache"
ACTION_RUNS = "refine_runs"
ACTION_FORMULAS = "show_formulas"
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


def _label(name: str) -> str:
    return name.removesuffix("_gb").replace("_", " ")


# --- typed contexts -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Button:
    action_id: str
    text: str
    value: str


@dataclass(frozen=True)
class TcoOptionView:
    name: str
    rows: list[tuple[str, str]]  # (item, formatted usd)
    total: str
    detail: str  # GPUs x hours per run, workflow
    winner: bool


@dataclass(frozen=True)
class AnswerView:
    """Context of `answer.json.j2` / `answer.txt.j2`. Every string is display-ready (not escaped)."""

    headline: str
    verdict: str  # "fits" | "does_not_fit" | "unknown"
    summary: str
    changes: list[str] = field(default_factory=list)
    memory_total: str = ""
    memory_rows: list[tuple[str, str]] = field(default_factory=list)
    precision_rows: list[tuple[str, str, str]] = field(default_factory=list)  # (precision, weights+KV, caveat)
    cluster_lines: list[str] = field(default_factory=list)
    throughput_lines: list[str] = field(default_factory=list)
    tco: list[TcoOptionView] = field(default_factory=list)
    winner_line: str = ""
    assumptions: list[str] = field(default_factory=list)
    questions: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    buttons: list[Button] = field(default_factory=list)
    runs_select: bool = False
    vram_only: bool = False


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
            "inference": "inference"}.get(w.mode or "", w.mode or "")
    return f"{mode} {what}".strip()


def _buttons(advice: Advice) -> tuple[list[Button], bool]:
    w = advice.effective
    other = "H100" if (w.gpu or "").startswith("a100") else "A100"
    buttons = [Button(ACTION_COMPARE_GPU, f"Compare {other}", f"try {other}s")]
    if w.mode != "inference" and (w.dataset_gb or w.dataset_tokens) and not w.cache_dataset:
        buttons.append(Button(ACTION_CACHE, "Cache the dataset", "cache the dataset"))
    buttons.append(Button(ACTION_FORMULAS, "Show formulas", "formulas"))
    return buttons, w.mode != "inference"


def _winner(advice: Advice) -> str | None:
    return advice.recommendation.primary if advice.recommendation else None


def shown_options(advice: Advice) -> list[Option]:
    """The options a reply lists (and its chart draws): the first few, plus the winner if it is not among them."""
    winner = _winner(advice)
    shown = list(advice.options[:MAX_OPTIONS_SHOWN])
    if winner and all(o.name != winner for o in shown):
        shown += [o for o in advice.options if o.name == winner][:1]
    return shown


def _best_tco(option: Option) -> TcoOption | None:
    """The workflow whose total the option is listed with (the cheapest that applies)."""
    return min(option.tco, key=lambda t: t.total_usd) if option.tco else None


def _option_view(option: Option, winner: str | None) -> TcoOptionView:
    best = _best_tco(option)
    rows: list[tuple[str, str]] = [(str(r.item), fmt_usd(r.usd)) for r in best.rows] if best else []
    if option.mode == "inference":
        hours = ", always on (730 h/month)"
    else:
        hours = f", {option.hours_per_run:,.1f} h/run" if option.hours_per_run else ""
    workflow = f", {best.workflow}" if best and best.workflow != "none" else ""
    per_run = f", {fmt_usd(best.per_run_usd)}/run" if best and best.per_run_usd and best.workflow != "none" and \
        option.mode != "inference" else ""
    detail = f"{option.cluster.gpus}× {option.gpu}{hours}{per_run}{workflow}"
    return TcoOptionView(option.name, rows, fmt_usd(option.total_usd), detail, option.name == winner)


def build_answer_view(response: Response, names: Mapping[str, str] | None = None,
                      *, vram_only: bool = False) -> AnswerView:
    """Select and format what the engine computed; no arithmetic beyond unit display."""
    names = names or {}
    advice = response.advice
    assert advice is not None, "build_help_view is for responses without advice"
    mem, cluster, tp = advice.memory, advice.cluster, advice.throughput
    subject = _subject(advice, names)
    problems = [p.message for p in advice.problems]
    if cluster is not None and cluster.fits:
        verdict = "fits"
        gpu = _gpu_name(cluster.gpu, names)
        per_gpu = f" ({fmt_gb(mem.per_gpu_gb)} per GPU)" if mem else ""
        headline = f"✅ Fits: {subject} on {cluster.gpus}× {gpu}{per_gpu}"
    elif cluster is not None or (mem is not None and mem.fits is False):
        verdict = "does_not_fit"
        gpu = _gpu_name(cluster.gpu if cluster else advice.effective.gpu, names)
        fix = (advice.recommendation.what_would_change_it[0]
               if advice.recommendation and advice.recommendation.what_would_change_it else "")
        headline = f"❌ Does not fit: {subject} on {gpu}" + (f" — {fix}" if fix else "")
    else:
        verdict = "unknown"
        reason = problems[0] if problems else "not enough to size it yet"
        has_subject = bool(advice.effective.model or advice.effective.params_b)
        headline = f"⚠️ {subject}: {reason}" if has_subject else f"⚠️ {reason}"
    summary_bits = []
    if mem:
        summary_bits.append(f"*{fmt_gb(mem.per_gpu_gb)}* peak per GPU, {fmt_gb(mem.total_gb)} in total")
    if cluster:
        summary_bits.append(f"*{cluster.gpus}× {_gpu_name(cluster.gpu, names)}* on {cluster.nodes} node(s)")
    if advice.recommendation and advice.recommendation.cost_range_usd:
        lo, hi = advice.recommendation.cost_range_usd
        guessed = next((a for a in advice.assumptions if a.field == "dataset_tokens"), None)
        tokens = float(guessed.value) if guessed is not None and isinstance(guessed.value, int | float) else 0.0
        amount = f"{tokens / 1e9:,.0f}B" if tokens >= 1e9 else f"{tokens / 1e6:,.0f}M"
        basis = (f" (if every run trains on all ~{amount} tokens guessed from the corpus size)"
                 if guessed is not None and isinstance(guessed.value, int | float) else "")
        summary_bits.append(f"*{fmt_usd(lo)}–{fmt_usd(hi)}*/month{basis}")
    memory_rows = [(_label(k), fmt_gb(f.value)) for k, f in (mem.components.items() if mem else ())]
    cluster_lines: list[str] = []
    if cluster:
        cluster_lines = [
            f"{cluster.gpus}× {_gpu_name(cluster.gpu, names)}, {cluster.nodes} node(s) × {cluster.gpus_per_node} GPUs",
            f"Interconnect: {cluster.interconnect}",
            f"Parallelism: {cluster.parallelism} (DP {cluster.data_parallel} · TP {cluster.tensor_parallel} · "
            f"PP {cluster.pipeline_parallel} · ZeRO {cluster.zero_stage})",
            *cluster.notes[:5],
            *cluster.checklist[:4],
        ]
    throughput_lines: list[str] = []
    if tp:
        pairs: list[tuple[str, Figure | None, str]] = [
            ("Training throughput", tp.training_tokens_per_s, "tokens/s"),
            ("GPU-hours per run", tp.gpu_hours, "GPU-h"),
            ("Wall clock per run", tp.wall_clock_hours, "h"),
            ("Decode (all sequences)", tp.decode_tokens_per_s, "tokens/s"),
            ("Decode per user", tp.decode_tokens_per_s_per_sequence, "tokens/s"),
            ("Prefill", tp.prefill_seconds, "s"),
            ("Cost per 1M tokens", tp.cost_per_1m_tokens_usd, ""),
        ]
        for label, fig, unit in pairs:
            if fig is not None:
                value = fmt_usd(fig.value) if label.startswith("Cost") else fmt_num(fig.value, unit)
                throughput_lines.append(f"{label}: {value}")
        if tp.bound:
            throughput_lines.append(f"Bound by: {tp.bound}")
    winner = _winner(advice)
    tco = [_option_view(o, winner) for o in shown_options(advice)]
    winner_line = ""
    if advice.recommendation and winner:
        why = "; ".join(advice.recommendation.why[:2])
        winner_line = f"Winner: {winner}" + (f" — {why}" if why else "")
    precision_rows = [
        (str(q.get("precision")), fmt_gb(q.get("total_gb")), str(q.get("accuracy", "")).split(";")[0])
        for q in advice.quantization if q.get("total_gb") is not None
    ]
    buttons, runs = _buttons(advice)
    assumptions = [f"{a.field} = {a.value} ({a.why})" for a in advice.assumptions]
    return AnswerView(
        headline=headline,
        verdict=verdict,
        summary=" · ".join(summary_bits),
        changes=list(response.changes),
        memory_total=fmt_gb(mem.per_gpu_gb) if mem else "",
        memory_rows=memory_rows,
        precision_rows=precision_rows if (vram_only or not memory_rows) else [],
        cluster_lines=cluster_lines,
        throughput_lines=[] if vram_only else throughput_lines,
        tco=[] if vram_only else tco,
        winner_line="" if vram_only else winner_line,
        assumptions=assumptions,
        questions=list(response.questions),
        problems=problems[1:] if verdict == "unknown" else problems,
        notes=[n for n in dict.fromkeys([*response.notes, *advice.notes]) if n not in response.questions],
        buttons=[] if vram_only else buttons,
        runs_select=runs and not vram_only,
        vram_only=vram_only,
    )


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
                    "decode_tokens_per_s_per_sequence", "prefill_seconds", "cost_per_1m_tokens_usd"):
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
    if response.prices is not None:  # a price question is answered with the table, not the thread's advice
        return False
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
    env.filters.update(esc=mrkdwn_escape, gb=fmt_gb, usd=fmt_usd, num=fmt_num)
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


def render_response(response: Response, names: Mapping[str, str] | None = None,
                    *, vram_only: bool = False) -> list[Message]:
    """The reply to one turn: an answer when there is advice, otherwise help and questions."""
    if response.prices is not None:  # a price question: the table of offers (bot/prices.py)
        from bot.prices import render_prices

        return render_prices(response.prices)
    if not answers_with_advice(response):
        if response.advice is not None and response.intent == "gibberish":
            view = build_help_view(response)
            return render_help(HelpView(
                intro="I didn't understand that, so the scenario in this thread is unchanged. You can say:",
                examples=REFINEMENTS, refinements=(), questions=view.questions, notes=view.notes))
        return render_help(build_help_view(response))
    return render_answer(build_answer_view(response, names, vram_only=vram_only))


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


def render_home(user_id: str | None = None) -> dict[str, Any]:
    """The App Home tab view."""
    blocks = render_blocks("home.json.j2", examples=EXAMPLES, refinements=REFINEMENTS, user_id=user_id)
    return {"type": "home", "blocks": fit_view(blocks)}
