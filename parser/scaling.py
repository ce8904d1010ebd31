"""A follow-up that scales the thread's load by a factor: "double the users", "twice as many users", "half the users".

The message carries no number of users, only a multiple of the ones the thread already has, so it is read against the
scenario (parser.conversation), not by the grammar: the load fields the scenario holds (users at once, the request
rate, a token load, an aggregate tokens/s target) are each multiplied. With no load in the scenario it says so
instead of repeating the answer.
"""

from __future__ import annotations

import re
from typing import Any

from engine.models import DEFAULT_SERVING_SEQ_LEN, DEFAULT_TRAINING_SEQ_LEN, Workload

_FACTOR_WORDS = {"double": 2.0, "twice": 2.0, "triple": 3.0, "thrice": 3.0, "quadruple": 4.0, "half": 0.5,
                 "halve": 0.5}
# normalized text (parser/normalize.py): "2x the users" arrives as "2 x the users"
_SCALE = re.compile(
    r"\b(?:(double|twice|triple|thrice|quadruple|half|halve)|(\d+(?:\.\d+)?) ?(?:x|times))"
    r"(?: (?:as many|as much|the number of|the|our|of the|of|more|fewer|the amount of))*"
    r" (users?|people|developers|devs|engineers|seats|customers|traffic|load|requests|qps|rps|concurrency|"
    r"concurrent users|sessions|streams)\b")
# the load fields a scenario may hold, in the order the note lists them
_LOAD_FIELDS = ("concurrency", "requests_per_s", "load_tokens_per_s", "target_tokens_per_s")
LOAD_FIELDS = frozenset(_LOAD_FIELDS)
_LABELS = {"concurrency": "users at once", "requests_per_s": "requests/s", "load_tokens_per_s": "token load (tokens/s)",
           "target_tokens_per_s": "total tokens/s"}


def scale_said(text: str) -> tuple[float, str] | None:
    """'double the users' -> (2.0, 'double the users'); '3 x the traffic' -> (3.0, ...); None when no multiple is said."""
    found = _SCALE.search(text)
    if found is None:
        return None
    factor = _FACTOR_WORDS[found.group(1)] if found.group(1) else float(found.group(2))
    return (factor, found.group(0)) if factor > 0 else None


def scaled_load(text: str, workload: Workload) -> tuple[dict[str, Any], str] | None:
    """The updates a multiple of the load makes to `workload`, and the note that says so; None when the message says
    no multiple. A multiple with no load in the scenario returns no updates and a note asking for the number."""
    said = scale_said(text)
    if said is None:
        return None
    factor, phrase = said
    updates: dict[str, Any] = {}
    for name in _LOAD_FIELDS:
        value = getattr(workload, name)
        if not value:
            continue
        updates[name] = max(1, round(value * factor)) if name == "concurrency" else round(float(value) * factor, 6)
    if not updates:
        return {}, (f"“{phrase}”: this thread has no users or request rate to multiply yet; say how many (e.g. "
                    "“200 concurrent users” or “50 requests/s”)")
    changes = ", ".join(f"{_LABELS[k]} {_plain(getattr(workload, k))} → {_plain(v)}" for k, v in updates.items())
    return updates, f"read “{phrase}” as {factor:g}× the load: {changes}"


def _plain(value: Any) -> str:
    return f"{value:,.0f}" if float(value) >= 100 else f"{float(value):.4g}"


# "double the context", "2x the context window", "halve the context length": a multiple of the thread's context
_CONTEXT = re.compile(
    r"\b(?:(double|twice|triple|thrice|quadruple|half|halve)|(\d+(?:\.\d+)?) ?(?:x|times))"
    r"(?: (?:the|our|its|a|as long|as much|of the|of|longer|bigger|larger|more))*"
    r" (?:context(?: window| length| size| len)?|ctx|seq(?:uence)? ?len(?:gth)?|sequence length|max model len)\b")


def scaled_context(text: str, workload: Workload) -> tuple[dict[str, Any], str] | None:
    """'double the context': the thread's context (`seq_len`, or the length the engine assumed) times the multiple,
    and the prompt length too when one is set (a longer context is a longer prompt); None when no multiple of the
    context is said."""
    found = _CONTEXT.search(text)
    if found is None:
        return None
    factor = _FACTOR_WORDS[found.group(1)] if found.group(1) else float(found.group(2))
    if factor <= 0:
        return None
    training = workload.mode not in (None, "inference") or workload.intent == "train"
    phrase = f"read “{found.group(0)}” as {factor:g}× the context"
    if not workload.seq_len and workload.input_tokens and not training:
        # no context said: the engine sizes each sequence at its prompt + reply, so the prompt is what grows
        prompt = max(1, round(workload.input_tokens * factor))
        return {"input_tokens": prompt}, (f"{phrase}: prompt {workload.input_tokens:,} → {prompt:,} tokens (each "
                                          "sequence holds its prompt and reply)")
    context = int(workload.seq_len or (DEFAULT_TRAINING_SEQ_LEN if training else DEFAULT_SERVING_SEQ_LEN))
    assumed = "" if workload.seq_len else " (the default)"
    updates: dict[str, Any] = {"seq_len": max(1, round(context * factor))}
    changes = [f"context {context:,}{assumed} → {updates['seq_len']:,} tokens"]
    if workload.input_tokens and not training:
        updates["input_tokens"] = max(1, round(workload.input_tokens * factor))
        changes.append(f"prompt {workload.input_tokens:,} → {updates['input_tokens']:,} tokens")
    return updates, f"{phrase}: {', '.join(changes)}"
