"""Price questions the price list answers once read as such: a quoted price to judge ("is $2.10/hr a good price for an
H100?"), a period to total ("8x H100 on Lambda vs CoreWeave for a 3 month training run"), and a schedule that is
simply around the clock ("1-year reserved vs on-demand for 64 H100s running 24/7").

Each had got the "I size GPU jobs" help: the quote is a rate for a plan (`hourly_rate`) with no job to plan, the period
was read as 3 runs a month, and "24/7" is a service schedule, none of them a field of a price question. Here, when
nothing else describes a job (no model, no method, no load), they become the price question's own keys:
`quoted` (judge `hourly_rate` against the catalog: `bot.price_verdict`), `period_hours` / `period_said` (the total for
that long, around the clock), `per_month` ("what does a p5.48xlarge cost per month?": the month's figure beside the
hour's), and a 24/7 schedule is dropped (the monthly figures assume it).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from .price_comparisons import PRICE_LIST_FIELDS, compare_prices, named_providers
from .reading import Reading, Resolved
from .said import Said

# "is that good?", "a good price", "fair deal", "are we overpaying": a verdict asked of a price
_VERDICT = re.compile(
    r"\b(?:good|fair|reasonable|decent|competitive|great|bad|ok|okay|cheap|expensive|high|low)\s+(?:price|deal|rate|"
    r"quote|offer|number)\b|\b(?:is|was|are) (?:that|this|it|these|those) (?:a )?(?:good|fair|reasonable|ok|okay|"
    r"competitive|cheap|expensive|high|low|too (?:much|high|expensive))\b|\boverpa(?:ying|id|y)\b|\boverpriced\b|"
    r"\brip[- ]?off\b|\bgood value\b|\bworth it\b|\bshould (?:we|i) (?:take|accept|sign)\b|\bmarket rate\b")
_NUMBER_WORDS = {"a": 1.0, "an": 1.0, "one": 1.0, "two": 2.0, "three": 3.0, "four": 4.0, "six": 6.0, "nine": 9.0,
                 "twelve": 12.0, "eighteen": 18.0}
_UNIT_HOURS = {"hour": 1.0, "day": 24.0, "week": 168.0, "month": 730.0, "year": 8760.0}
# "for 3 months", "for a 3 month training run", "for a year", "for two weeks": a period of use to total
_PERIOD = re.compile(r"\bfor (?:a |an |one )?(?:(\d+(?:\.\d+)?|two|three|four|six|nine|twelve|eighteen)[- ]?)?"
                     r"(hour|day|week|month|year)s?\b")
_AROUND_THE_CLOCK = 168.0  # hours a week: "24/7"
# "per month", "monthly", "a month": the answer gives the month's figure beside the hourly one
_MONTHLY = re.compile(r"\b(?:monthly|per month|a month|each month|/ ?mo(?:nth)?)\b")


def period_of(whole: str) -> tuple[float, str, float] | None:
    """(hours, as said, the count said) of "for N months" and the like, or None."""
    match = _PERIOD.search(whole)
    if match is None:
        return None
    count = match.group(1)
    number = 1.0 if count is None else _NUMBER_WORDS.get(count) or float(count)
    unit = match.group(2) + ("" if number == 1 else "s")
    said = f"{count} {unit}" if count is not None else f"{'an' if unit == 'hour' else 'a'} {unit}"
    return number * _UNIT_HOURS[match.group(2)], said, number


def read_price_ask(reading: Reading, items: Sequence[Said], resolve: Callable[[str], Resolved | None],
                   current_mode: str | None = None) -> Reading:
    """`compare_prices`, with the price questions above read as price questions."""
    whole = " ".join(s.text for s in items)
    period = period_of(whole)
    updates = dict(reading.updates)
    if period is not None and updates.get("runs_per_month") == period[2]:
        updates.pop("runs_per_month")  # "for a 3 month training run": one run of 3 months, not 3 runs a month
    if updates.get("service_hours_per_week") == _AROUND_THE_CLOCK:
        updates.pop("service_hours_per_week")
        updates.pop("service_schedule", None)
    cues = set(reading.cues)
    several = len(named_providers(items, resolve)) > 1
    if several and current_mode is None and "gpu" in updates and not cues & {"train", "finetune", "refine", "undo"}:
        cues.add("price")  # "8x H100 on Lambda vs CoreWeave": providers compared, nothing else: their prices
    candidate = reading.model_copy(update={"updates": updates, "cues": frozenset(cues)})
    if updates != reading.updates or cues != set(reading.cues):
        priced = compare_prices(candidate, items, resolve)
        if priced.intent != "prices" and not _quote_asked(priced, whole):
            return _quoted(compare_prices(reading, items, resolve), whole)
    else:
        priced = compare_prices(reading, items, resolve)
    priced = _quoted(priced, whole)
    if priced.intent == "prices" and _MONTHLY.search(whole):
        priced = priced.model_copy(update={"updates": {**priced.updates, "per_month": True}})
    if priced.intent == "prices" and period is not None and period[0] > 0:
        priced = priced.model_copy(update={"updates": {**priced.updates, "period_hours": period[0],
                                                       "period_said": period[1]}})
    return priced


def _quote_asked(reading: Reading, whole: str) -> bool:
    """A price the user pays, a GPU, a verdict asked, and nothing else that describes a job."""
    fields = set(reading.updates) - {"hourly_rate"}
    return ("hourly_rate" in reading.updates and bool({"gpu", "instance_type"} & fields)
            and fields <= PRICE_LIST_FIELDS and not reading.conflicts and bool(_VERDICT.search(whole)))


def _quoted(reading: Reading, whole: str) -> Reading:
    """'is $2.10/hr a good price for an H100?': the price question judging the quote (`bot.price_verdict`)."""
    if not _quote_asked(reading, whole):
        return reading
    updates: dict[str, Any] = {**reading.updates, "quoted": True}
    return reading.model_copy(update={"updates": updates, "intent": "prices"})
