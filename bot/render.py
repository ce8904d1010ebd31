"""Turn a `Response` into Block Kit (plus the plain-text fallback) through jinja2 templates.

Why templates and a typed view: the wording and layout of a reply change far more often than
the numbers, so they live in `bot/templates/*.j2` as data, and each template receives one
documented context object (`AnswerView` from `bot.summary`, `DetailsView` from `bot.details`,
`HelpView`, `FormulasView`, `ChartView` here). The builders only *select and format* what the
engine computed; they never estimate anything.

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
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jinja2

from bot.formatting import (
    best_tco,
    fmt_gb,
    fmt_num,
    fmt_usd,
    mrkdwn_escape,
    plain,
    shown_options,
    subject,
    tidy_plurals,
    winner_name,
)
from bot.limits import Message, fit_message, fit_view
from bot.service import Response
from bot.summary import ACTION_SHARE_VRAM, AnswerView, build_answer_view
from engine.models import Advice, Figure
from parser.fold import UNCOVERED_PREFIXES

if TYPE_CHECKING:  # the chart module is imported only to draw a chart (cold start of the CLI)
    from bot.chart import ChartBar

RUN_CHOICES = (1, 5, 10, 20, 40, 80)

EXAMPLES = (
    "QLoRA 70B, 500GB corpus in S3, 20 runs",
    "full fine-tune Llama 3.1 8B on 2B tokens, 3 epochs, data in GCS",
    "serve Mixtral 8x7B at 50 concurrent users, fp8",
    "does Qwen2.5 72B fit on 4x A100 80GB for inference?",
)
REFINEMENTS = ("what about 40 runs?", "try A100s", "cache the dataset", "use spot pricing", "undo")
# Words that post a part of the answer into the thread, like the buttons of the same name.
THREAD_WORDS = ("details", "options", "formulas", "cheaper?", "chart")


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



_KEPT_UNDER_UNCOVERED = "not a model size"  # "1 billion documents is a count of documents, not a model size"


def build_help_view(response: Response | None = None) -> HelpView:
    notes = list(response.notes) if response else []
    # what the message asked that the advice does not cover is the answer: said first, not under the examples
    uncovered = next((n for n in notes if n.startswith(UNCOVERED_PREFIXES)), None)
    if uncovered is not None:
        notes.remove(uncovered)
        # readings that would size the encoder as an LLM ("I'll size it as a generic 8B model", a prompt length, a
        # response length to give) contradict the line saying it is not sized: only a count misread as a size stays
        notes = [n for n in notes if _KEPT_UNDER_UNCOVERED in n]
        intro = f"{uncovered[0].upper()}{uncovered[1:]}. For the GPUs of an LLM job, try for example:"
    elif response is not None and response.lead:  # nothing planned yet, and why: the questions are the answer
        return HelpView(intro=response.lead, examples=(), refinements=(), questions=list(response.questions),
                        notes=notes)
    elif response is not None and response.intent == "gibberish":
        intro = ("I couldn't find a workload in that. Tell me the model (or its size), whether it is "
                 "training or inference, and where the data lives — for example:")
    else:
        intro = "I size GPU jobs: memory per GPU, how many GPUs and nodes, how fast, and what it costs. Try:"
    return HelpView(
        intro=intro,
        # questions about a workload the advice does not cover would size the wrong thing
        questions=list(response.questions) if response and uncovered is None else [],
        notes=notes,
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
    if (response.prices is not None or response.storage is not None or response.distill is not None
            or response.offline is not None):
        # answered from the catalog (or two plans of their own), not the thread's advice
        return False
    if response.buy_or_rent is not None or response.reserve is not None:  # no model: the break-even, the two bills
        return True
    if response.api is not None and response.advice is None:  # "what would gpt-4o cost for 1B tokens?": its bill
        return True
    return response.advice is not None and not (response.intent in ("help", "gibberish") and not response.changes)


def build_chart_view(response: Response, names: Mapping[str, str] | None = None) -> ChartView | None:
    """The TCO chart of an answer: the options the reply lists, or None when there is nothing to chart."""
    if not answers_with_advice(response):
        return None
    advice = response.advice
    if advice is None:  # answered without a plan (a break-even, an API's bill): nothing to chart
        return None
    winner = winner_name(advice)
    priced = [(o, t) for o in shown_options(advice) if (t := best_tco(o)) is not None]
    if not priced:
        return None
    from bot.chart import ChartBar  # the chart module only when a chart is drawn (cold start of the CLI)

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
        title=f"Monthly cost (TCO): {subject(advice, names or {})}",
        subtitle=subtitle,
        bars=bars,
        alt_text=f"Bar chart of monthly cost per option. {alt}"[:1000],
    )


# --- rendering ----------------------------------------------------------------------------------
def _bytecode_cache() -> jinja2.BytecodeCache | None:
    """Compiled templates kept in the user cache dir: a CLI start then skips compiling them (~10 ms).
    jinja2 keys each file on the template's source checksum only, while the compiled code also
    depends on the environment's options (`finalize`, ...) defined in this module: so the directory is
    named for this module's source and the jinja2 version, and a change to either starts a fresh
    one. None when the directory cannot be written: templates are compiled in memory as before."""
    import hashlib

    from bot.user_dirs import user_cache_dir

    stamp = hashlib.sha1(Path(__file__).read_bytes() + jinja2.__version__.encode()).hexdigest()[:16]
    directory = user_cache_dir() / "templates" / stamp
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return jinja2.FileSystemBytecodeCache(str(directory))


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("bot", "templates"),
        bytecode_cache=_bytecode_cache(),
        auto_reload=False,  # compiled once per process: no stat of the template file on every render
        autoescape=False,  # JSON and plain text, never HTML; mrkdwn escaping is explicit (|esc)
        extensions=["jinja2.ext.do"],
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
        finalize=tidy_plurals,  # "1 run(s)" -> "1 run" in every rendered string, the engine's sentences too
    )
    env.filters.update(esc=mrkdwn_escape, gb=fmt_gb, usd=fmt_usd, num=fmt_num, plain=plain)
    return env


def render_blocks(template: str, **context: Any) -> list[dict[str, Any]]:
    """Render a `*.json.j2` template and parse its output back into blocks (new objects nobody else
    holds: callers hand them to `fit_message(..., owned=True)` to be repaired without a copy)."""
    out = environment().get_template(template).render(blocks=[], **context)
    blocks = json.loads(out)
    if not isinstance(blocks, list):
        raise ValueError(f"{template} must render a JSON list of blocks")
    return blocks


def render_text(template: str, **context: Any) -> str:
    return environment().get_template(template).render(**context).strip() + "\n"


def render_answer(view: AnswerView) -> list[Message]:
    blocks = render_blocks("answer.json.j2", view=view, run_choices=RUN_CHOICES)
    return fit_message(blocks, render_text("answer.txt.j2", view=view), owned=True)


def render_help(view: HelpView) -> list[Message]:
    return fit_message(render_blocks("help.json.j2", view=view), render_text("help.txt.j2", view=view), owned=True)


def render_formulas(view: FormulasView) -> list[Message]:
    text = view.title + "\n" + "\n".join(view.lines)
    return fit_message(render_blocks("formulas.json.j2", view=view), text, owned=True)


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
    if response.prices is not None:  # a price question: the table of offers (bot/prices.py)
        from bot.prices import render_prices

        return render_prices(response.prices)
    staged = response.offline or response.distill  # an offline job or a distillation, in stages (bot/staged.py)
    if staged is not None:
        from bot.staged import render_staged

        return render_staged(staged)
    if response.storage is not None:  # a checkpoint-size, storage or transfer question (bot/storage.py)
        from bot.storage import render_storage

        return render_storage(response.storage)
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
