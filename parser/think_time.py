"""The pause between a chat user's turns: "users pause 60 s between questions", "a question a minute per user",
"10 s think time", and the wordings that say there is none: "no pause", "back to back", "closed loop", "in flight",
"32 concurrent requests".

Why its own module: read from the message's words after the grammar, as a latency waiver is. The engine plans chat
users as pausing between turns (engine.think_time, 20 s unless said), which thins their prompts' prefills; a pause
said replaces that, and requests kept in flight (the serving benchmark convention: vLLM's --max-concurrency, NVIDIA
NIM's "25 in flight") have none. "N users" and "N concurrent users" are people, who pause; "N concurrent requests",
"N parallel requests", "concurrency 32", "batch 32" and "N requests in flight" are requests in flight, which do not.
A capacity question asked in requests per second ("how many requests per second can one H100 handle?") is answered
for requests back to back too: a pause would count users who send fewer requests. Alone in a thread that serves ("what
if users pause 60 s between questions?", "no pause"), it refines the plan.
"""

from __future__ import annotations

import re
from typing import Any

from .capacity import request_rate_asked
from .reading import Reading

_NUM = r"(?P<n>\d+(?:\.\d+)?)"
_UNIT = r"(?P<unit>ms|msec|s|secs?|seconds?|mins?|minutes?|hrs?|hours?)"
_TURN = r"(?:turns?|questions?|messages?|prompts?|requests?|queries|query|replies|answers|responses|chats?|calls?)"
_BETWEEN = r"(?:between|before|after) (?:(?:each|every|their|the|a|his|her|two|one) )?(?:next |new )?(?:user )?" + _TURN
_ABOUT = r"(?:(?:about|around|roughly|some|approx(?:imately)?|~) )?"
# a pause said outright: "users pause 60 s between questions", "think for 30 seconds between turns", "10 s think time",
# "a 60 s pause between turns", "think time of 20 s", "30s between turns"
_PAUSE = re.compile(
    r"\b(?:pauses?|pausing|waits?|waiting|thinks?|thinking|reads?|reading|idles?|idling|sits? idle)(?: (?:for|of))? "
    + _ABOUT + _NUM + r" ?" + _UNIT + r" " + _BETWEEN + r"\b"
    r"|\b(?:an? )?" + _NUM.replace("<n>", "<n2>") + r" ?" + _UNIT.replace("<unit>", "<unit2>")
    + r" (?:(?:of )?(?:pauses?|think(?:ing)?[- ]time|wait(?:ing)?(?: time)?|gaps?|idle(?: time)?)(?: " + _BETWEEN
    + r")?|" + _BETWEEN + r")\b"
    r"|\bthink(?:ing)?[- ]time (?:of |is |= ?|at )?" + _ABOUT + _NUM.replace("<n>", "<n3>") + r" ?"
    + _UNIT.replace("<unit>", "<unit3>") + r"\b")
_PER_USER = r"(?:per|for each|from each|each|a|by each|for every|every) (?:user|person|employee|seat|developer|customer)"
# a turn interval said per user: "a question a minute per user", "1 question every 2 minutes per user", "each user asks
# a question every 30 seconds", "2 questions a minute per user"
_INTERVAL = re.compile(
    r"\b(?P<count>an?|1|one|\d+(?:\.\d+)?) " + _TURN + r" (?:every|a|an|per|each) (?:(?P<n>\d+(?:\.\d+)?) ?)?"
    r"(?P<unit>s|secs?|seconds?|mins?|minutes?|hrs?|hours?) " + _PER_USER + r"\b"
    r"|\b(?:each|every) (?:user|person) (?:\w+ ){0,3}?(?:an? |1 |one )?" + _TURN + r" every (?:(?P<n2>\d+(?:\.\d+)?) ?)?"
    r"(?P<unit2>s|secs?|seconds?|mins?|minutes?|hrs?|hours?)\b")
# requests kept in flight, each sent when the last reply ends: no pause
_NONE = re.compile(
    r"\bno (?:think(?:ing)?[- ]time|pauses?|pausing|waits? between|idle time|gaps? between)\b"
    r"|\bwithout (?:a |any )?(?:pauses?|pausing|think(?:ing)?[- ]time)\b|\bzero (?:think(?:ing)?[- ]time|pause)\b"
    r"|\bback[- ]to[- ]back\b|\bclosed[- ]loop\b|\bin[- ]flight\b"
    r"|\b(?:concurrent|parallel|simultaneous) (?:requests|sequences|streams|connections|calls|queries)\b"
    r"|\b(?:max(?:imum)?[- ])?concurrency (?:of |= ?|: ?|at )?\d|\b\d+ (?:max(?:imum)? )?concurrency\b"
    r"|\b\d+ (?:requests|sequences|streams) (?:at once|at a time|at the same time)\b"
    r"|\bbatch(?: size)?(?: of)? \d")
# "with 50 requests in flight": the count of them, when the grammar read none
_IN_FLIGHT = re.compile(r"\b(?P<n>\d+) (?:concurrent )?(?:requests|sequences|streams|calls)(?: kept)? in[- ]flight\b")
_SECONDS = {"ms": 0.001, "msec": 0.001, "s": 1.0, "sec": 1.0, "secs": 1.0, "second": 1.0, "seconds": 1.0,
            "min": 60.0, "mins": 60.0, "minute": 60.0, "minutes": 60.0, "hr": 3600.0, "hrs": 3600.0, "hour": 3600.0,
            "hours": 3600.0}
_TRAINING = ("full", "lora", "qlora", "pretrain")
PAUSE_NOTE = "read “{said}” as each user pausing {pause} between a reply and their next prompt"
NO_PAUSE_NOTE = "read “{said}” as requests kept in flight, each sent as the last reply ends (no pause between turns)"


def _seconds(n: str | None, unit: str) -> float:
    return float(n or 1) * _SECONDS.get(unit, 1.0)


def _words(seconds: float) -> str:
    """60 -> "60 s", 90 -> "90 s", 120 -> "2 min": as the note says the pause."""
    return f"{seconds / 60:g} min" if seconds >= 120 and seconds % 60 == 0 else f"{seconds:g} s"


def pause_said(text: str) -> tuple[float, str] | None:
    """(seconds, the words) of a pause between a user's turns said in `text`, 0 for "no pause" and requests kept in
    flight; None when nothing about it is said. A pause said outright or as a turn interval wins over the wordings
    of requests in flight ("32 concurrent requests, users pause 10 s": 10 s)."""
    found = _PAUSE.search(text)
    if found is not None:
        groups = found.groupdict()
        n = groups.get("n") or groups.get("n2") or groups.get("n3")
        unit = groups.get("unit") or groups.get("unit2") or groups.get("unit3") or "s"
        return _seconds(n, unit), found.group(0)
    found = _INTERVAL.search(text)
    if found is not None:
        groups = found.groupdict()
        count = groups.get("count")
        per = float(count) if count and count[0].isdigit() else 1.0
        span = _seconds(groups.get("n") or groups.get("n2"), groups.get("unit") or groups.get("unit2") or "s")
        return span / max(per, 1e-9), found.group(0)
    found = _NONE.search(text)
    return (0.0, found.group(0)) if found is not None else None


def _serving(reading: Reading, current: Any) -> bool:
    """A message about serving: said so, or users said with no training, or a thread that serves."""
    mode = reading.updates.get("mode", getattr(current, "mode", None))
    if mode in _TRAINING or reading.updates.get("intent") == "train":
        return False
    return mode == "inference" or reading.updates.get("intent") == "serve" or "concurrency" in reading.updates


def with_think_time(reading: Reading, text: str, current: Any = None) -> Reading:
    """`reading` with `think_time_s` set from a pause said (or 0 for requests in flight, or a capacity asked in
    requests per second), on a serving message or as a serving thread's follow-up; unchanged otherwise. A count of
    requests in flight the grammar did not read becomes `concurrency`."""
    if "think_time_s" in reading.updates or not _serving(reading, current):
        return reading
    said = pause_said(text)
    updates = dict(reading.updates)
    if said is None:
        if not request_rate_asked(text):
            return reading
        return reading.model_copy(update={"updates": {**updates, "think_time_s": 0.0}})
    seconds, words = said
    flight = _IN_FLIGHT.search(text)
    if flight is not None and "concurrency" not in updates and "requests_per_s" not in updates:
        updates["concurrency"] = int(flight.group("n"))
    updates["think_time_s"] = seconds
    intent = "refine" if reading.intent in ("help", "gibberish", "answer") and not reading.updates else reading.intent
    # requests in flight said as a count ("32 concurrent requests") are the convention, no news; the rest is said back
    quiet = seconds == 0 and not re.search(r"pause|think|back[- ]to[- ]back|closed[- ]loop|wait", words)
    notes = reading.notes if quiet else (*reading.notes, PAUSE_NOTE.format(said=words, pause=_words(seconds))
                                         if seconds else NO_PAUSE_NOTE.format(said=words))
    return reading.model_copy(update={"updates": updates, "intent": intent, "notes": notes})
