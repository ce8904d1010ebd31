"""Calendar arithmetic for schedules, deadlines and rates: "2 runs a week", "within 2 weeks", "50 qps".

A month is 1/12 of a 365-day year, so a week is 365/12/7 = 4.345 of a month and a month is 730
hours; "2 runs a week" is 8.69 runs a month, not 8.
"""

from __future__ import annotations

import re

HOURS_PER_MONTH = 365 * 24 / 12  # 730
WEEKS_PER_MONTH = 365 / 12 / 7  # 4.345: "2 runs a week" -> 8.69 runs a month
_PERIOD_PER_MONTH = {
    "day": 365 / 12, "week": WEEKS_PER_MONTH, "wk": WEEKS_PER_MONTH, "month": 1.0, "mo": 1.0,
    "quarter": 1 / 3, "year": 1 / 12, "yr": 1 / 12,
}
_ADVERB_PERIOD = {
    "daily": "day", "weekly": "week", "monthly": "month", "quarterly": "quarter", "yearly": "year", "annually": "year",
}
_DURATION_HOURS = {"h": 1.0, "hr": 1.0, "hour": 1.0, "day": 24.0, "week": 168.0, "wk": 168.0, "month": HOURS_PER_MONTH}
_DURATION = re.compile(r"(\d+(?:\.\d+)?|an?) ?(hours?|hrs?|h|days?|weeks?|wks?|months?)\b")
_SECONDS = {
    "ms": 0.001, "msec": 0.001, "millis": 0.001, "millisecond": 0.001, "milliseconds": 0.001,
    "s": 1.0, "secs": 1.0, "seconds": 1.0, "sec": 1.0, "second": 1.0, "min": 60.0, "minute": 60.0, "hr": 3600.0, "hour": 3600.0, "h": 3600.0,
    "day": 86400.0, "week": 604800.0, "wk": 604800.0, "month": 730 * 3600.0, "mo": 730 * 3600.0,  # 730 h a month
}
_RATE_UNIT = re.compile(r"(sec|second|s|minute|min|hour|hr|h|day|week|wk|month|mo)$")


def per_month(period: str) -> float | None:
    """'a week' -> 4.345, 'every 3 months' -> 1/3, 'quarterly' -> 1/3, 'every other week' -> 2.17."""
    if period in _ADVERB_PERIOD:
        return _PERIOD_PER_MONTH[_ADVERB_PERIOD[period]]
    match = re.search(r"(?:(\d+(?:\.\d+)?|other) )?(day|week|wk|month|mo|quarter|year|yr)s?$", period)
    if match is None:
        return None
    every = 2.0 if match.group(1) == "other" else float(match.group(1) or 1)
    return _PERIOD_PER_MONTH[match.group(2)] / every if every > 0 else None


_DEADLINE_WORDS = {"tomorrow": 24.0, "overnight": 12.0}  # "by tomorrow": a day; "overnight": 12 hours


def duration_hours(text: str) -> float | None:
    """'within 2 weeks' -> 336, 'in a day' -> 24, 'under 48 hours' -> 48, 'by tomorrow' -> 24."""
    last = text.split()[-1] if text.split() else ""
    if last in _DEADLINE_WORDS:
        return _DEADLINE_WORDS[last]
    match = _DURATION.search(text)
    if match is None:
        return None
    amount = 1.0 if match.group(1) in ("a", "an") else float(match.group(1))
    unit = match.group(2)
    unit = unit if unit in _DURATION_HOURS else unit.rstrip("s")
    return amount * _DURATION_HOURS[unit]


def seconds_in(rate: str) -> float:
    """The time unit of a rate in seconds: 'requests per minute' -> 60; 'qps', 'tps' -> 1; 'rpm' -> 60."""
    if rate == "rpm":
        return 60.0
    unit = _RATE_UNIT.search(rate)
    return _SECONDS[unit.group(1)] if unit else 1.0


_SPAN = re.compile(r"(\d+(?:\.\d+)?) ?(ms|msec|millis(?:econds?)?|milliseconds?|s|secs?|seconds?)\b")


def span_seconds(text: str) -> float | None:
    """'50 ms' -> 0.05, '1 s' -> 1.0, '2 seconds per token' -> 2.0; None without a time span."""
    match = _SPAN.search(text)
    if match is None:
        return None
    unit = match.group(2)
    return float(match.group(1)) * (_SECONDS.get(unit) or _SECONDS[unit.rstrip("s")])
