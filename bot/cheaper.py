""""cheaper?" in a thread: what costs less than the pick, and what each of those gives up.

One of the commonest follow-ups in Slack ("cheaper?", "anything cheaper?", "can we do it for less") was answered "I
didn't understand that". The answer is already in the thread's ranked options: the pick is the cheapest option that
meets what was asked unless a cheaper one was set aside for a reason (below the speed floor, a missed target, a
marketplace host without an SLA, a GeForce card, AMD for a CUDA-first training stack, memory at its edge), and the
levers the ranking did not pull (spot, a commitment, narrower weights, QLoRA) are said as replies to type.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from bot.formatting import fmt_usd, winner_option
from bot.limits import Message, fit_message
from bot.render import render_blocks
from engine.models import TRAINING_MODES, Advice, Option, Workload
from engine.recommendation import at_the_edge, work_usd
from engine.serving import floor_kept_at, user_floor

MAX_CHEAPER = 4  # rows a reader weighs in a thread reply; "options" lists them all

_TARGET_NAMES = {
    "target_ttft_s": "the time to first token", "target_tokens_per_s_per_user": "the speed per user",
    "requests_per_s": "the request rate", "deadline_hours": "the deadline", "budget_usd_per_month": "the budget",
    "budget_usd_per_run": "the budget per run",
}


@dataclass(frozen=True)
class CheaperView:
    """Context of `cheaper.json.j2` and `cheaper_text`."""

    title: str
    verdict: str
    rows: list[str]
    levers: list[str]
    # a thread pinned to a GPU, a count or a provider by an earlier turn ("what about b200"): the cheapest plan
    # without that pin, in one line ("" when there is no pin or nothing is cheaper without it)
    unpinned: str = ""
    pins: list[str] = field(default_factory=list)


def _training(w: Workload) -> bool:
    return (w.mode or "inference") in TRAINING_MODES


def _unit(w: Workload) -> str:
    return "a month" if not _training(w) else ("for the job" if w.batch_items else "for the runs asked")


def _gives_up(option: Option, w: Workload) -> list[str]:
    """Why the ranking set a cheaper option aside, in the reader's words."""
    out: list[str] = []
    missed = [_TARGET_NAMES.get(t.name, t.name.replace("_", " ")) for t in option.throughput.targets if not t.met]
    if missed:
        out.append("misses " + " and ".join(missed))
    speed = option.throughput.decode_tokens_per_s_per_sequence
    if not _training(w) and not w.batch_items and speed is not None and speed.value < floor_kept_at(w):
        out.append(f"{speed.value:,.1f} tokens/s per user (under ~{user_floor(w):g})")
    if "(marketplace)" in option.name:
        out.append("marketplace host, no SLA")
    if re.search(r"GeForce|RTX [345]0[5-9]0", option.name):
        out.append("GeForce card: its driver licence excludes datacenter use, no ECC")
    if _training(w) and "Instinct" in option.name:
        out.append("AMD: a CUDA-first fine-tuning stack needs ROCm builds or porting")
    if _training(w) and at_the_edge(option):
        out.append("at the edge of memory: may not survive its first steps")
    if "(spot)" in option.name:
        out.append("spot: can be reclaimed")
    return out or ["slower, or on more machines, for about the same money"]


def _levers(advice: Advice) -> list[str]:
    """Ways to spend less that the ranking did not take, as replies the thread understands."""
    w = advice.effective
    out: list[str] = []
    pricing = w.pricing or "on_demand"
    if pricing == "on_demand":
        out.append("“use spot”: interruptible instances, often 50-70% less"
                   + (" (a training run checkpoints and resumes)" if _training(w) else " (keep on-demand capacity behind them)"))
        if not _training(w) and not w.batch_items:  # an always-on service; a run or a job is not committed for years
            out.append("“reserved”: a 1-3 year commitment, typically 30-50% below on-demand")
    if not _training(w) and (w.precision or "bf16") not in ("int4",):
        out.append("“in int4”: AWQ/GPTQ 4-bit weights, about half the memory of FP8, with a measurable quality cost")
    if w.mode == "lora":
        out.append("“qlora”: a 4-bit base model, fewer or smaller GPUs, ~20% slower per token")
    if w.mode == "full":
        out.append("“lora”: adapters instead of every weight, a fraction of the memory")
    return out


# what a thread can pin that the search then never leaves: the shape (a GPU, a count, nodes) and, when nothing else is
# pinned, the provider ("on gcp" is more often a company's rule than a choice to revisit, so it stays while a shape
# pin is dropped)
SHAPE_PINS = ("gpu", "gpu_count", "nodes")
_PROVIDER_OF = re.compile(r"^(.*?) \d+x ")


def _pins(advice: Advice, pick: Option, names: Mapping[str, str]) -> tuple[dict[str, None], list[str]]:
    """The fields to drop for the unpinned plan, and the pins in the reader's words ("B200 180GB (HGX)", "2 nodes")."""
    w = advice.workload
    drop: dict[str, None] = {}
    words: list[str] = []
    if w.gpu:
        drop["gpu"] = None
        words.append(names.get(w.gpu, w.gpu))
    if w.gpu_count:
        drop["gpu_count"] = None
        words.append(f"{w.gpu_count} GPUs")
    if w.nodes:
        drop["nodes"] = None
        words.append(f"{w.nodes} node{'s' if w.nodes != 1 else ''}")
    if not drop and w.provider:
        drop["provider"] = None
        provider = _PROVIDER_OF.match(pick.name)
        words.append(provider.group(1) if provider else str(w.provider))
    return drop, words


def _unpinned(advice: Advice, pick: Option, pick_usd: float, names: Mapping[str, str],
              advise: Callable[[Workload], Advice]) -> tuple[str, list[str]]:
    """"Without the B200 pin: RunPod 8x Instinct MI300X … $13,958 a month": the same workload planned with the thread's
    pins dropped (one engine call), said when its pick costs less than the pinned one."""
    drop, words = _pins(advice, pick, names)
    if not drop:
        return "", []
    free = advise(advice.workload.model_copy(update=drop))
    other = winner_option(free)
    if other is None or free.cluster is None or not free.cluster.fits:
        return "", words
    usd = work_usd(other, free.effective)
    if usd >= pick_usd * 0.999:
        return f"Without pinning {' and '.join(words)}, nothing costs less either.", words
    gives = [g for g in _gives_up(other, free.effective) if not g.startswith("slower")]
    return (f"Without pinning {' and '.join(words)}: {other.name}, "
            f"{fmt_usd(usd)} {_unit(free.effective)}" + (f" ({'; '.join(gives)})" if gives else "")
            + f", {fmt_usd(pick_usd - usd)} less"), words


def build_cheaper_view(advice: Advice, names: Mapping[str, str] | None = None,
                       advise: Callable[[Workload], Advice] | None = None) -> CheaperView | None:
    """None when nothing is priced yet (the thread's answer is still a question). `names`: GPU ids -> display names
    (the option names already carry them). `advise`: the engine, to price the thread's workload without its pins (a
    GPU, count or provider an earlier turn fixed: the thread's options are all on them)."""
    pick = winner_option(advice)
    if pick is None:
        return None
    w = advice.effective
    pick_usd = work_usd(pick, w)
    cheaper = sorted((o for o in advice.options if o.name != pick.name and work_usd(o, w) < pick_usd * 0.999),
                     key=lambda o: (work_usd(o, w), o.name))
    title = f"Cheaper than {pick.name} ({fmt_usd(pick_usd)} {_unit(w)})?"
    unpinned, pins = _unpinned(advice, pick, pick_usd, names or {}, advise) if advise is not None else ("", [])
    if not cheaper and pins:
        verdict = f"Cheapest on {' and '.join(pins)}, as this thread asked."
    elif not cheaper:
        verdict = "No option in this thread's search costs less: it is the cheapest found."
    elif all(not _gives_up(o, w)[0].startswith("slower") for o in cheaper):
        verdict = "It is the cheapest option that meets what you asked; these cost less and give something up:"
    else:
        verdict = "These cost less; the pick was ranked first for the reason given:"
    rows = [f"{o.name}: {fmt_usd(work_usd(o, w))} {_unit(w)}: {'; '.join(_gives_up(o, w))}" for o in cheaper[:MAX_CHEAPER]]
    if len(cheaper) > MAX_CHEAPER:
        rows.append(f"{len(cheaper) - MAX_CHEAPER} more cheaper option(s): say “options” for all of them")
    return CheaperView(title=title, verdict=verdict, rows=rows, levers=_levers(advice), unpinned=unpinned, pins=pins)


def cheaper_text(view: CheaperView | None) -> str:
    if view is None:
        return "Nothing is priced in this thread yet: answer its open question first."
    lines = [view.title, view.verdict, *(f"  - {row}" for row in view.rows), *([view.unpinned] if view.unpinned else [])]
    if view.levers:
        lines += ["Or say:", *(f"  - {lever}" for lever in view.levers)]
    return "\n".join(lines) + "\n"


def render_cheaper(view: CheaperView | None) -> list[Message]:
    text = cheaper_text(view)
    if view is None:
        return fit_message([{"type": "section", "text": {"type": "mrkdwn", "text": text}}], text, owned=True)
    return fit_message(render_blocks("cheaper.json.j2", view=view), text, owned=True)
