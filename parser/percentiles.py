"""The percentile a time to first token is graded at: "median TTFT under 300 ms", "p99 TTFT < 1 s", "average time to
first token", and a thread's "make it p99".

Why its own module: the engine used to grade every first-token target at p95 whatever was said, so "median TTFT under
300 ms" for 50 users of Llama 3.1 70B bought 2 B200s ($9,913 a month) where one meets a median of 0.21 s ($4,957),
and "p99 TTFT < 1 s" was sized at p95, short of what was asked. The percentile said with the target is read three
ways:
- in front of or behind the latency keyword, inside the grammar's LATENCY terminal ("p99 ttft", "median time to first
  token", "99th percentile ttft", "ttft p90"): `percentile_said`, from the transformer;
- behind the target ("ttft under 1 s at p99", "ttft < 300 ms (median)"): `with_ttft_percentile`, after the grammar;
- alone, in a thread that serves ("make it p99", "what about the median?", "p50 instead"): the same, as a refinement.
None said keeps the p95 the engine assumes (engine.queueing.DEFAULT_TTFT_PERCENTILE), which the answer says.
"""

from __future__ import annotations

import re
from typing import Any

from .reading import Reading

# a percentile in words: "p99", "p99.9", "median", "mean", "average", "avg", "99th percentile", "99.9th-percentile"
PERCENTILE_WORDS = (r"(?:p\d\d?(?:\.\d+)?|median|mean|average|avg|\d\d?(?:\.\d+)?(?:th|st|nd|rd)?[ -]percentile)")
_WORD = re.compile(r"\b" + PERCENTILE_WORDS + r"(?![\w.])")
# behind a first-token target: "ttft under 1 s at p99", "first token within 300 ms (median)", "ttft < 1s, p99"
_BEHIND = re.compile(r"\b(?:ttft|first[ -]token)\b[^,;.!?]*?\d(?:\.\d+)? ?(?:ms|msec|millis(?:econds?)?|s|secs?|seconds?)\b"
                     r" ?(?:at (?:the )?|@ ?|\(|, |for (?:the )?)?(" + PERCENTILE_WORDS + r")(?![\w.])")
# a percentile alone, as a thread's follow-up: "make it p99", "what about the median?", "p50 instead", "use p99 ttft"
_ALONE = re.compile(r"^(?:(?:ok|okay|and|but|now|so|actually|hmm),? )*(?:(?:make|set|change|switch) (?:it|that|this|the "
                    r"(?:target|ttft|first token|percentile)) (?:to |at )?|what about |how about |use |try |at |grade "
                    r"(?:it|that|this) (?:at |by )?|(?:and )?(?:at|for) )?(?:the |a )?(" + PERCENTILE_WORDS +
                    r")(?: (?:ttft|latency|time to (?:the )?first token|first[ -]token(?: latency| time)?|target))?"
                    r"(?: (?:instead|please|then|now))*(?: instead of (?:the )?" + PERCENTILE_WORDS + r")? ?[?.!]*$")
_PERCENTILE_NOTE = "read “{said}” as {what}"
_TRAINING = ("full", "lora", "qlora", "pretrain")


def percentile_of(said: str) -> str | None:
    """"median" -> "p50", "p99" -> "p99", "99.9th percentile" -> "p99.9", "average" -> "mean"; None for no percentile
    or one outside 1-99.99 (a "p0" or "p100" is no percentile of a wait)."""
    word = said.strip().lower()
    if word == "median":
        return "p50"
    if word in ("mean", "average", "avg"):
        return "mean"
    number = re.match(r"p?(\d\d?(?:\.\d+)?)", word)
    if number is None or not 1 <= float(number.group(1)) < 100:
        return None
    return "p" + number.group(1).rstrip("0").rstrip(".") if "." in number.group(1) else "p" + number.group(1)


def percentile_said(key: str) -> dict[str, Any]:
    """{"ttft_percentile": "p99"} for the percentile inside a first-token latency keyword ("p99 ttft under ", "median
    time to first token "), {} where none is."""
    found = _WORD.search(key)
    percentile = percentile_of(found.group(0)) if found else None
    return {"ttft_percentile": percentile} if percentile else {}


def with_ttft_percentile(reading: Reading, text: str, current: Any = None) -> Reading:
    """`reading` with `ttft_percentile` set from a percentile said behind a first-token target in the message, or
    alone as a follow-up in a thread that serves (where the thread's first token is then stated, and any target
    graded, at it), with a note; unchanged otherwise."""
    if "ttft_percentile" in reading.updates:
        return reading
    if "target_ttft_s" in reading.updates:
        behind = _BEHIND.search(text)
        percentile = percentile_of(behind.group(1)) if behind else None
        if percentile is None:
            return reading
        return reading.model_copy(update={"updates": {**reading.updates, "ttft_percentile": percentile}})
    alone = _ALONE.match(text.strip())
    mode = reading.updates.get("mode", getattr(current, "mode", None))
    if alone is None or current is None or mode in _TRAINING or (mode is None and not current.target_ttft_s):
        return reading
    percentile = percentile_of(alone.group(1))
    if percentile is None:
        return reading
    intent = "refine" if reading.intent in ("help", "gibberish", "answer") else reading.intent
    return reading.model_copy(update={
        "updates": {**reading.updates, "ttft_percentile": percentile}, "intent": intent,
        "notes": (*reading.notes, _PERCENTILE_NOTE.format(
            said=alone.group(1), what="the mean time to first token" if percentile == "mean" else
            f"the time to first token at {percentile}"))})
