"""Reserve or rent on demand, read from the message's words: "is it cheaper to reserve 8xH100 for a year or use
on-demand for 6 hrs a day?", "8 A100s 10 hours a day, reserve or not?", "we use 64 H100 about 40% of the time, 1yr
commit worth it?".

The question needs no model: the GPUs, the hours a day they are busy and the term. The GPUs are the Workload's
(`gpu`, `gpu_count`); the use is the schedule the grammar reads ("6 hrs a day" is 42 h a week) or a share of the time
(parser.owning's "40% of the time"), kept as one busy share so the last said wins ("what about 12 hours a day?");
the term ("for a year", "1yr", "3 year term") is kept too. Both are thread cues (`RESERVE_SETTING` + name=value), as
buy-or-rent's assumptions are, since no Workload field holds them. Saying "reserved" alone is a pricing
("… on H100s reserved"), not this question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .owning import cue_settings, owning_settings_said
from .reading import Reading

RESERVE_CUE = "reserve_or_on_demand"  # a thread's cue (`Conversation.cues`): it asks whether to reserve its GPUs
RESERVE_SETTING = "reserve:"  # ... the use or term said: "reserve:busy=0.25", "reserve:years=3"
HOURS_PER_WEEK = 168.0

_DEMAND = r"on[- ]?demand|pay[- ]as[- ]you[- ]go|hourly"
_RESERVING = r"reserv(?:e|ed|ing|ation|ations)|commit(?:ment|ments|ted|ting)?|committed use"
_ASKED = re.compile(
    rf"\b(?:{_RESERVING})\b.{{0,60}}?\b(?:or|vs\.?|versus|than|instead of)\b.{{0,40}}?\b(?:{_DEMAND})\b"
    rf"|\b(?:{_DEMAND})\b.{{0,60}}?\b(?:or|vs\.?|versus|than|instead of)\b.{{0,40}}?\b(?:{_RESERVING})\b"
    r"|\b(?:reserve|reserving|commit|committing)\b(?: \w+){0,3}? or not\b"
    rf"|\b(?:{_RESERVING})\b.{{0,30}}?\bworth (?:it|the|doing|signing)\b"
    r"|\bworth (?:reserving|committing|a (?:[\w-]+ )?(?:reservation|commitment|commit))\b"
    r"|\b(?:should|do|would|could) (?:i|we) (?:reserve|commit)\b"
    r"|\bcheaper to (?:reserve|commit)\b")
_NUMBER = {"a": 1.0, "an": 1.0, "one": 1.0, "two": 2.0, "three": 3.0}
_TERM = re.compile(r"\b(\d(?:\.\d)?|a|an|one|two|three)[- ]?(?:yr|year)s?\b(?! (?:old|ago))")


@dataclass(frozen=True)
class ReserveSaid:
    """What one message says about reserving: whether it asks reserve-or-on-demand, and the use and term said."""

    asked: bool = False
    settings: dict[str, float] = field(default_factory=dict)  # busy (0-1), years (the term)


def read_reserve(text: str, *, weekly_hours: float | None = None) -> ReserveSaid:
    """The question and its settings in one message (lower-cased text, as the parser normalises it). `weekly_hours`
    is the schedule the grammar read in it ("6 hrs a day": 42), which is the use when said."""
    low = (text or "").lower()
    out: dict[str, float] = {}
    if weekly_hours is not None and 0 < weekly_hours <= HOURS_PER_WEEK:
        out["busy"] = round(weekly_hours / HOURS_PER_WEEK, 6)
    elif (share := owning_settings_said(low).get("utilisation")) is not None:
        out["busy"] = share
    found = _TERM.search(low)
    if found is not None:
        years = _NUMBER.get(found.group(1)) or float(found.group(1))
        if 0 < years <= 5:
            out["years"] = years
    return ReserveSaid(asked=bool(_ASKED.search(low)), settings=out)


def reserve_settings(cues: set[str] | frozenset[str]) -> dict[str, float]:
    """The use and term a thread has said, from its cues."""
    return cue_settings(cues, RESERVE_SETTING)


def with_reserve(cues: set[str], said: ReserveSaid, *, fresh: bool) -> set[str]:
    """The thread's cues after this message: a new question drops the old one's unless it asks again; a use or term
    said replaces the one said before (kept only while the thread asks this question)."""
    out = set(cues)
    if fresh and not said.asked:
        out.discard(RESERVE_CUE)
    if fresh:
        out = {c for c in out if not c.startswith(RESERVE_SETTING)}
    if said.asked:
        out.add(RESERVE_CUE)
    if RESERVE_CUE in out:
        for name, value in said.settings.items():
            out = {c for c in out if not c.startswith(f"{RESERVE_SETTING}{name}=")}
            out.add(f"{RESERVE_SETTING}{name}={value:g}")
    return out


def reserve_reading(reading: Reading, text: str) -> Reading:
    """A message asking reserve-or-on-demand compares two pricings, so neither is the scenario's pricing ("reserve …
    or use on-demand …" read as on-demand); with no model, "40% of the time" is the GPUs' use, not model FLOPs
    utilisation."""
    if not _ASKED.search(text or ""):
        return reading
    drop = {"pricing"}
    if "utilisation" in owning_settings_said(text) and not {"model", "params_b"} & set(reading.updates):
        drop.add("mfu")
    if not drop & set(reading.updates):
        return reading
    return reading.model_copy(update={"updates": {k: v for k, v in reading.updates.items() if k not in drop}})
