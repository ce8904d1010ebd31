"""Display formatting shared by the first message (`bot.summary`), the layers posted on demand
(`bot.details`) and the chart (`bot.render.build_chart_view`): units a reader plans with ($2.43M,
17.4 days, 125B tokens), Slack mrkdwn escaping, and the names of GPUs, subjects and winners.
Formatting only: no figure is computed here."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from engine.models import Advice, Option
from engine.recommendation import best_tco  # noqa: F401 - the bot's name for it, used across bot/

MAX_OPTIONS_SHOWN = 4  # options the cost chart draws


def fmt_gb(value: float | None) -> str:
    if value is None:
        return "?"
    return f"{value:,.0f} GB" if value >= 100 else f"{value:,.1f} GB"


def fmt_usd(value: float | None) -> str:
    """$0.09, $87.77, $77,919, $15.88M: cents below $100, dollars below a million, then millions to four
    figures (an estimate of $15,880,169 is not known to the dollar; the range beside it says how well)."""
    if value is None:
        return "?"
    sign, value = ("-", -value) if value < 0 else ("", value)
    if value >= 1e6:
        return f"{sign}${value / 1e6:,.2f}M"
    return f"{sign}${value:,.0f}" if value >= 100 else f"{sign}${value:,.2f}"


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


# "1 run(s)", "3 more option(s)", "2 nodes × 1 GPUs": a count beside a word written for any count.
# Each pattern opens with what it consumes first (a digit, a "1") and checks the character before the
# count right after it (a two-character look-behind; at the start of the text there is none, as
# before). Why: the same patterns opening with the look-behind (`(?<![\d.,$])1 ...`) were tried at
# every position, ~100 us each over a 3 KB reply, and every reply's Block Kit JSON and text pass
# through `tidy_plurals`; opening with a literal "1" lets the regex engine skip to the next "1" (~4 us),
# and the count slot, opening with a digit, is tried at digits only (~45 us, and only when "(s)" is there).
_PLURAL_SLOT = re.compile(r"(\d(?<![\d.,$]\d)[\d,]*(?:\.\d+)?) ((?:[a-z-]+ )?)([A-Za-z-]+)\(s\)")
_ONE_PLURAL = re.compile(r"1(?<![\w.,$]1) (GPU|node|run|replica|user|sequence|epoch|instance|host|offer)s\b")


def _counted(match: re.Match[str]) -> str:
    count, between, word = match.groups()
    return f"{count} {between}{word}" + ("" if float(count.replace(",", "")) == 1 else "s")


def tidy_plurals(value: Any) -> Any:
    """"1 run(s)" -> "1 run", "3 run(s)" -> "3 runs", "1 GPUs" -> "1 GPU". The engine's and the
    templates' sentences are written for any count; every rendered string passes through this (the
    jinja environment's `finalize`), so a reader never sees "(s)". Anything but a string is unchanged."""
    if not isinstance(value, str) or ("(s)" not in value and "1 " not in value):
        return value
    if "(s)" in value:  # what every count slot ends with
        value = _PLURAL_SLOT.sub(_counted, value)
    return _ONE_PLURAL.sub(r"1 \1", value)


def label(name: str) -> str:
    return name.removesuffix("_gb").replace("_", " ")




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
    # a tenth of an hour under 100 h, as the GPU-hours beside it are said ("50.4 h", not "50 h" next to "50.2 GPU-hours")
    return f"{hours:,.{1 if hours < 100 else 0}f} h ({hours / 24:,.1f} days)"


def fmt_count(value: float) -> str:
    """125B, 1.5T, 50M: a token count without a trailing .0."""
    return fmt_num(value).replace(".0", "")


def fmt_usd_short(value: float | None) -> str:
    """$2.43M, $121k: for the comparison, where a column of seven-figure sums is hard to scan."""
    if value is None:
        return "?"
    if 1e4 <= abs(value) < 1e6:
        return f"{'-' if value < 0 else ''}${abs(value) / 1e3:,.0f}k"
    return fmt_usd(value)



def gpu_name(gpu_id: str | None, names: Mapping[str, str]) -> str:
    return names.get(gpu_id or "", gpu_id or "GPU")


def subject(advice: Advice, names: Mapping[str, str]) -> str:
    w = advice.effective
    size = f"{w.params_b:g}B" if w.params_b else ""
    what = names.get(w.model or "", w.model or "") or size or "model"
    mode = {"qlora": "QLoRA", "lora": "LoRA", "full": "full fine-tune", "pretrain": "pre-training",
            "inference": "serving"}.get(w.mode or "", w.mode or "")
    objective = getattr(w, "objective", None)
    if objective in ("dpo", "orpo") and w.mode in ("full", "lora", "qlora"):  # preference tuning, by its method
        named = "DPO" if objective == "dpo" else "ORPO/SimPO"  # the reference-free objectives share one sizing
        mode = f"{named} ({'full' if w.mode == 'full' else mode})"
    elif objective in ("grpo", "ppo") and w.mode in ("full", "lora", "qlora"):  # online RL, rollouts sized (engine.rl)
        mode = f"{objective.upper()} ({'full' if w.mode == 'full' else mode})"
    # weights the user chose (or the checkpoint they named is in): part of what is served, said in the headline
    asked = advice.workload.precision if w.mode == "inference" else None
    winner = winner_option(advice)
    if asked and winner is not None and winner.precision != asked:
        asked = winner.precision  # re-planned for the GPU named
    weights = f" in {asked.upper() if asked in ('fp8', 'bf16', 'fp16', 'fp32') else asked}" if asked else ""
    return f"{mode} {what}{weights}".strip()



def winner_name(advice: Advice) -> str | None:
    return advice.recommendation.primary if advice.recommendation else None


_RENTED = re.compile(r" (\d+)x ")


def rented_gpus(option: Option) -> int | None:
    """The GPUs an option's instances rent, as its name says them ("AWS (EC2) 4x A10G …": 4), which a plan may not
    all use; None when the name does not say."""
    found = _RENTED.search(option.name)
    return int(found.group(1)) if found else None


def winner_option(advice: Advice) -> Option | None:
    """The recommended option itself (None when nothing is priced)."""
    name = winner_name(advice)
    return next((o for o in advice.options if o.name == name), None)


def shown_options(advice: Advice) -> list[Option]:
    """The options the cost chart draws: the first few, plus the winner if it is not among them."""
    winner = winner_name(advice)
    shown = list(advice.options[:MAX_OPTIONS_SHOWN])
    if winner and all(o.name != winner for o in shown):
        shown += [o for o in advice.options if o.name == winner][:1]
    return shown
