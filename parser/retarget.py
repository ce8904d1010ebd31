"""A follow-up that is only a number or a duration: "what about 2 s?" after an end-to-end latency, "make it 50k" after
"20k output tokens/s".

The message names no target, only a new value for the one the thread already set, so it is read against the scenario
(parser.conversation), as a multiple of the load is (parser.scaling): a duration changes the thread's latency target
(an end-to-end latency is split again into a first token and a per-user speed, as the first message's was), a bare
number the one load, throughput or budget the thread holds. When the thread holds several, or none, nothing is
guessed: the note says which to name.
"""

from __future__ import annotations

import re
from typing import Any

from engine.models import DEFAULT_OUTPUT_TOKENS, Workload

from .fold import END_TO_END_CUE, end_to_end_split
from .quantities import _sig
from .schedule import span_seconds

# the whole message (normalized: lower case, no closing "?"): "what about 2 s", "make it 50k", "ok, 1.5 seconds then"
_BARE_TARGET = re.compile(
    r"(?:(?:and|ok|okay|so|then|hmm)\W*)?"
    r"(?:(?:what|how) about|what if (?:it(?:s| is) |we (?:need|want|target|say) )?|make it|change it to|set it to|"
    r"try|and|with|at|now|instead)?\W*"
    r"(?:under|below|within|at most|less than|<)?\s*"
    r"(?P<number>\d+(?:\.\d+)?)\s?(?:(?P<scale>k|m)\b)?\s?(?P<unit>ms|milliseconds?|s|secs?|seconds?)?"
    r"(?:\W*(?:instead|then|please|end[ -]to[ -]end|e2e))*\W*")
_SCALE = {"k": 1e3, "m": 1e6}
# a bare number further than this from the target it would change is asked about, not applied: "make it 50k" after
# 50 users may be tokens or dollars, and a 1000x fleet is no answer to give on a guess
PLAUSIBLE_STEP = 100.0
# what a bare number may change, in the order a note lists them: the label, and how the value is kept
_NUMBER_FIELDS = ("concurrency", "requests_per_s", "load_tokens_per_s", "target_tokens_per_s", "budget_usd_per_month",
                  "budget_usd_per_run")
_LABELS = {"concurrency": "users at once", "requests_per_s": "requests/s", "load_tokens_per_s": "token load (tokens/s)",
           "target_tokens_per_s": "total tokens/s target", "budget_usd_per_month": "monthly budget ($)",
           "budget_usd_per_run": "budget per run ($)"}
# other counts a thread may hold, which a bare number could as well mean ("make it 16k" at 8k context and 50 users):
# never changed by one, but with one of them held the number is asked about
_OTHER_NUMBERS = ("gpu_count", "nodes", "seq_len", "input_tokens", "output_tokens", "runs_per_month", "epochs",
                  "dataset_tokens", "batch_items")
_SAY = {"concurrency": "{n} users", "requests_per_s": "{n} requests/s", "load_tokens_per_s": "{n} tokens/s in and out",
        "target_tokens_per_s": "{n} tokens/s", "budget_usd_per_month": "${n} a month", "budget_usd_per_run": "${n} a run",
        "gpu_count": "{n} GPUs", "nodes": "{n} nodes", "seq_len": "{n} tokens of context",
        "input_tokens": "{n}-token prompts", "output_tokens": "{n}-token replies", "runs_per_month": "{n} runs a month",
        "epochs": "{n} epochs", "dataset_tokens": "{n} tokens of data", "batch_items": "{n} prompts"}


def bare_target(text: str) -> tuple[str, float, str | None] | None:
    """'what about 2 s' -> ('2 s', 2.0, 's'); 'make it 50k' -> ('50k', 50000.0, None); None when the message says
    more than a number or a duration."""
    found = _BARE_TARGET.fullmatch(text.strip())
    if found is None:
        return None
    number, scale, unit = found.group("number"), found.group("scale"), found.group("unit")
    if unit is not None and scale is not None:  # "2k s" is no duration anyone writes
        return None
    value = float(number) * _SCALE.get(scale or "", 1.0)
    said = f"{number}{scale or ''}" + (f" {unit}" if unit else "")
    if unit is not None:
        seconds = span_seconds(f"{number} {unit}")
        return (said, seconds, "s") if seconds is not None else None
    return said, value, None


def retargeted(text: str, workload: Workload, cues: set[str]) -> tuple[dict[str, Any], str] | None:
    """The updates a bare number or duration makes to the thread's target, and the note that says so; None when the
    message is not one. ({}, note) when the thread has no single target it could be: the note names the choices."""
    said = bare_target(text)
    if said is None:
        return None
    phrase, value, unit = said
    if value <= 0:
        return None
    if unit == "s":
        return _latency(phrase, value, workload, cues)
    targets = [name for name in _NUMBER_FIELDS + _OTHER_NUMBERS if getattr(workload, name) and not _derived(name, workload)]
    if len(targets) != 1 or targets[0] not in _NUMBER_FIELDS:
        shown = f"{value:,.0f}" if value >= 1 else f"{value:g}"
        choices = " or ".join(f"“{_SAY[name].format(n=shown)}”" for name in (targets or _NUMBER_FIELDS[:3]))
        return {}, f"“{phrase}”: say what it counts, e.g. {choices}"
    name = targets[0]
    new: Any = int(round(value)) if name == "concurrency" else _sig(value)
    old = getattr(workload, name)
    if not 1 / PLAUSIBLE_STEP <= new / float(old) <= PLAUSIBLE_STEP:  # "make it 50k" after 50 users: maybe not users
        return {}, (f"“{phrase}”: {_LABELS[name]} {_plain(old)} → {_plain(new)}? Say “{_SAY[name].format(n=phrase)}” to "
                    "size for that")
    return {name: new}, f"read “{phrase}” as the thread's {_LABELS[name]}: {_plain(old)} → {_plain(new)}"


def _latency(phrase: str, seconds: float, workload: Workload, cues: set[str]) -> tuple[dict[str, Any], str]:
    """A duration: the end-to-end latency split again (a first token and the reply at a per-user speed), or the time to
    first token when that is the thread's only latency target."""
    if END_TO_END_CUE in cues and workload.target_ttft_s and workload.target_tokens_per_s_per_user:
        reply = int(workload.output_tokens or DEFAULT_OUTPUT_TOKENS)
        was = workload.target_ttft_s + reply / workload.target_tokens_per_s_per_user
        updates: dict[str, Any] = {}
        split = end_to_end_split((seconds, phrase), updates, workload.output_tokens)
        return updates, f"the end-to-end latency {was:.3g} s → {seconds:g} s; {split}"
    if workload.target_ttft_s and not workload.target_tokens_per_s_per_user:
        return ({"target_ttft_s": _sig(seconds)},
                f"read “{phrase}” as the thread's time to first token: {workload.target_ttft_s:g} s → {seconds:g} s")
    return {}, (f"“{phrase}”: this thread has no latency target to change; say e.g. “time to first token under "
                f"{phrase}” or “end-to-end under {phrase}”")


def _derived(name: str, w: Workload) -> bool:
    """A total tokens/s the thread derived from its request rate × reply length, not a target of its own."""
    if name != "target_tokens_per_s" or not (w.requests_per_s and w.output_tokens and w.target_tokens_per_s):
        return False
    return abs(w.target_tokens_per_s - w.requests_per_s * w.output_tokens) <= 1e-6 * w.target_tokens_per_s


def _plain(value: Any) -> str:
    return f"{float(value):,.0f}" if float(value) >= 100 else f"{float(value):.4g}"
