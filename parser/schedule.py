"""Calendar arithmetic for schedules, deadlines and rates: "2 runs a week", "within 2 weeks", "50 qps".

A month is 1/12 of a 365-day year, so a week is 365/12/7 = 4.345 of a month and a month is 730
hours; "2 runs a week" is 8.69 runs a month, not 8.
"""

from __future__ import annotations

import re

from .said import Said

HOURS_PER_MONTH = 365 * 24 / 12  # 730
WEEKS_PER_MONTH = 365 / 12 / 7  # 4.345: "2 runs a week" -> 8.69 runs a month
_PERIOD_PER_MONTH = {
    "day": 365 / 12, "week": WEEKS_PER_MONTH, "wk": WEEKS_PER_MONTH, "month": 1.0, "mo": 1.0,
    "quarter": 1 / 3, "year": 1 / 12, "yr": 1 / 12,
}
_ADVERB_PERIOD = {
    "daily": "day", "weekly": "week", "monthly": "month", "quarterly": "quarter", "yearly": "year", "annually": "year",
}
_DURATION_HOURS = {"h": 1.0, "hr": 1.0, "hour": 1.0, "day": 24.0, "week": 168.0, "wk": 168.0, "month": HOURS_PER_MONTH,
                   "min": 1 / 60, "minute": 1 / 60}
_DURATION = re.compile(r"(\d+(?:\.\d+)?|an?) ?(hours?|hrs?|h|days?|weeks?|wks?|months?|minutes?|mins?)\b")
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
    """'within 2 weeks' -> 336, 'in a day' -> 24, 'under 48 hours' -> 48, 'by tomorrow' -> 24; 'overnight (6
    hours)' -> 6: the hours said beside the word are the night's length."""
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


# ---- service hours: "9am-6pm weekdays", "8 hours a day", "business hours", "24/7" ----------------------------------
# A service used only in some hours is stopped (or scaled to zero) outside them on hourly-billed capacity: the
# grammar reads the parts (a clock range, hours a day, days a week, working hours, around the clock) as
# `schedule` phrases and `combine_schedules` turns a message's parts into `service_hours_per_week` and the
# schedule in words. The engine prices it (engine/tco.py); here only what was said.
HOURS_PER_WEEK = 168.0
WORKING_HOURS_PER_DAY = 10.0  # "business hours", "working hours": about 8am-6pm, said in the answer as an assumption
WEEKDAYS = 5

_AMPM = r"(?:am|pm)"
# before the symbols go (parser/normalize.py): "8:30am - 5:30pm", "9 am – 6 pm", "09:00-18:00", "9am to 6pm"
# -> "8.5am-5.5pm", "9am-6pm", "9am-6pm", "9am-6pm": one glued range the grammar reads as one phrase.
# Only a range with a clock sign (am/pm or minutes) is touched: "3-5 epochs" and "llama-3-8b" stay as they are.
_RAW_TIME = r"(\d{1,2})(?::([0-5]\d))? ?(am|pm)?"
_RAW_RANGE = re.compile(r"(?<![\w.:/$])" + _RAW_TIME + r" ?(?:-|\u2013|\u2014|to|until|till) ?" + _RAW_TIME + r"(?![\w:])")
_DOTTED_AMPM = re.compile(r"\b([ap])\.m\.?(?=\W|$)")


def _raw_hours(hour: str, minutes: str | None, ampm: str | None) -> list[float]:
    """The hours of the day one side of a written range may mean: '8:30' + 'am' -> [8.5]; a 24-hour '18:00' or
    '09:00' -> [18] / [9]; '8:30' alone -> [8.5, 20.5] (the range decides, as for '9-5')."""
    value = int(hour) + int(minutes or 0) / 60
    if ampm is None and minutes is not None and (int(hour) > 12 or hour.startswith("0")):
        return [value % 24]
    return _hours24(value, ampm)


def _glued(hour: float) -> str:
    """18.5 -> '6.5pm', 9 -> '9am': how the grammar's clock range is written."""
    return f"{round(hour % 12 or 12, 2):g}{'am' if hour % 24 < 12 else 'pm'}"


def clock_times(text: str) -> str:
    """Write clock ranges the one way the grammar reads them (lower-case text, before symbols are removed)."""
    if not any(ch.isdigit() for ch in text):
        return text
    text = _DOTTED_AMPM.sub(r"\1m", text)

    def glue(m: re.Match[str]) -> str:
        if not (m.group(2) or m.group(3) or m.group(5) or m.group(6)):
            return m.group(0)  # "9 to 5", "3-5": no clock sign, the grammar decides
        span = _span(_raw_hours(m.group(1), m.group(2), m.group(3)), _raw_hours(m.group(4), m.group(5), m.group(6)))
        return m.group(0) if span is None else f"{_glued(span[1])}-{_glued(span[2])}"

    return _RAW_RANGE.sub(glue, text)


_CLOCK = re.compile(r"(\d{1,2}(?:\.\d+)?)(am|pm)? ?(?:-|to) ?(\d{1,2}(?:\.\d+)?)(am|pm)?")
_HOURS_A_DAY = re.compile(r"(\d+(?:\.\d+)?)[ -]?(?:hours?|hrs?|h)\b(?!.*\b(?:week|wk|weekly|weeks)\b)|"
                          r"(\d+(?:\.\d+)?)[ -]?(?:hours?|hrs?|h) week ?days?\b")
_HOURS_A_WEEK = re.compile(r"(\d+(?:\.\d+)?)[ -]?(?:hours?|hrs?|h)\b.*\b(?:week|wk|weekly|weeks)\b(?! ?days?\b)")
# "8-hour working days", "10-hour workdays": hours a day on weekdays (a day of work is a weekday)
_WORKING_DAY = re.compile(r"(?:working|work|business|week) ?days?\b")
_DAYS_A_WEEK = re.compile(r"([1-7]) days?\b")
_WORK_WORD = re.compile(r"(business|working|work|office) hours")
_ONLY = re.compile(r"\b(?:only|just)\b")


def _hours24(value: float, ampm: str | None) -> list[float]:
    """The hours of the day a clock reading may mean: '6pm' -> [18]; '9' -> [9, 21]; '12am' -> [0]."""
    base = value % 12
    if ampm == "am":
        return [base]
    if ampm == "pm":
        return [base + 12]
    return [base, base + 12]


def clock_hours(text: str) -> tuple[float, str] | None:
    """'9am-6pm' -> (9.0, '9am-6pm'); '9-5' -> (8.0, '9am-5pm'); '6pm-9am' -> (15.0, ...): the hours a day the
    range spans, and the range written out. A side without am/pm takes the reading that makes the shortest
    span, a morning start on a tie ('8-8' is 8am-8pm)."""
    m = _CLOCK.search(text)
    if m is None:
        return None
    start, end = float(m.group(1)), float(m.group(3))
    if start > 24 or end > 24:
        return None
    span = _span(_hours24(start, m.group(2)), _hours24(end, m.group(4)))
    return None if span is None else (span[0], f"{_clock_word(span[1])}-{_clock_word(span[2])}")


def _span(starts: list[float], ends: list[float]) -> tuple[float, float, float] | None:
    """(hours, start, end) of the shortest span the readings allow, a morning start on a tie; None if all are empty."""
    best: tuple[float, bool, float, float] | None = None
    for s in starts:
        for e in ends:
            span = (e - s) % 24
            if span > 0 and (best is None or (span, s >= 12) < best[:2]):
                best = (span, s >= 12, s, e)
    return None if best is None else (best[0], best[2], best[3])


def _clock_word(hour: float) -> str:
    """18.5 -> '6:30pm', 9 -> '9am', 0 -> '12am'."""
    whole = int(hour)
    minutes = round((hour - whole) * 60)
    shown = whole % 12 or 12
    return f"{shown}{f':{minutes:02d}' if minutes else ''}{'am' if whole % 24 < 12 else 'pm'}"


_DAY_NAMES = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_DAY = r"(mon(?:day)?|tue(?:s|sday)?|wed(?:nesday)?|thu(?:r|rs|rsday)?|fri(?:day)?|sat(?:urday)?|sun(?:day)?)s?"
# "Monday to Saturday", "mon-sat", "tue through sat", "fri-mon": the days from one to the other, both counted
_DAY_RANGE = re.compile(rf"\b{_DAY} ?(?:-|to|through|thru|till|until) ?{_DAY}\b")


_DASHED_DAYS = re.compile(rf"\b({_DAY}) ?[-\u2013\u2014] ?({_DAY})\b")


def day_ranges(text: str) -> str:
    """'Mon – Sat', 'mon–fri' -> 'mon-sat', 'mon-fri' (lower-case text, before the dashes go)."""
    return _DASHED_DAYS.sub(r"\1-\3", text)


def _days(text: str) -> tuple[int, str]:
    """'weekdays', 'mon-fri', 'business days' -> 5; 'mon-sat' -> 6; 'weekends' -> 2; '6 days a week' -> 6."""
    count = _DAYS_A_WEEK.search(text)
    if count is not None:
        days = int(count.group(1))
        return days, "every day" if days == 7 else f"{days} days a week"
    span = _DAY_RANGE.search(text)
    if span is not None:
        first, last = (_DAY_NAMES.index(span.group(i)[:3]) for i in (1, 2))
        days = (last - first) % 7 + 1
        if (first, last) == (0, 4):
            return WEEKDAYS, "weekdays"
        words = f"{span.group(1)[:3].title()}-{span.group(2)[:3].title()}"
        return days, "every day" if days == 7 else words
    if "weekend" in text:
        return 2, "weekends"
    return WEEKDAYS, "weekdays"


def _fmt_hours(hours: float) -> str:
    return f"{round(hours, 1):g}"


def read_schedule(parts: list[str]) -> tuple[float, str] | None:
    """A message's schedule phrases -> (hours a week, the schedule in words), or None when they say none
    ("weekdays" alone: traffic on weekdays is not a schedule; "weekdays only" is). Around the clock is 168."""
    always = any(not (_CLOCK.search(p) or _HOURS_A_DAY.search(p) or _HOURS_A_WEEK.search(p) or _WORK_WORD.search(p)
                      or _is_days(p)) for p in parts)
    clock = next((c for c in (clock_hours(p) for p in parts if _CLOCK.search(p) and not _HOURS_A_DAY.search(p)) if c), None)
    per_day = next((float(m.group(1) or m.group(2)) for m in (_HOURS_A_DAY.search(p) for p in parts
                                                              if not _WORK_WORD.search(p)) if m), None)
    working_days = any(_HOURS_A_DAY.search(p) and _WORKING_DAY.search(p) for p in parts)
    work = next((m.group(1) for m in (_WORK_WORD.search(p) for p in parts) if m), None)
    days_said = next((p for p in parts if _is_days(p)), None)
    days = _days(days_said) if days_said is not None else None
    weekly = next((float(m.group(1)) for m in (_HOURS_A_WEEK.search(p) for p in parts) if m), None)
    if always:  # "24/7" beats any hours said beside it ("up 24/7, busiest 9-5"): never quote a part-time bill
        return HOURS_PER_WEEK, "24/7"
    if weekly is not None:  # "40 hours a week": the hours themselves, whatever days are said beside them
        return (min(HOURS_PER_WEEK, weekly), "24/7" if weekly >= HOURS_PER_WEEK else f"{_fmt_hours(weekly)} h a week") \
            if weekly > 0 else None
    if clock is not None:
        hours, what = clock
        idiom = not re.search(_AMPM, next(p for p in parts if _CLOCK.search(p)))  # "9-5": a working day
        if days is None:
            days = (WEEKDAYS, "weekdays") if idiom else (7, "every day")
        label = f"{what} {days[1]}"
    elif per_day is not None:
        hours = per_day
        days = days or ((WEEKDAYS, "weekdays") if working_days else (7, "every day"))
        joined = ", " if days[0] == 7 or days[1][0].isdigit() else " on "  # "8 h a day, 5 days a week"
        label = f"{_fmt_hours(hours)} h a day{joined}{days[1]}"
    elif work is not None:
        hours = WORKING_HOURS_PER_DAY
        days = days or (WEEKDAYS, "weekdays")
        on = "on weekdays" if days[0] == WEEKDAYS else days[1]
        label = f"{work} hours, taken as {_fmt_hours(hours)} h a day {on}"
    elif days is not None and days_said is not None and (_ONLY.search(days_said) or days[1] != "weekdays"
                                                         or re.search(r"mon|fri", days_said)):
        hours = 24.0
        label = f"{days[1]} only, around the clock"
    else:
        return None
    if hours <= 0 or hours > 24:
        return None
    week = min(HOURS_PER_WEEK, hours * days[0])
    return week, ("24/7" if week >= HOURS_PER_WEEK else label)


def _is_days(part: str) -> bool:
    return bool(re.search(r"week|mon|fri|days?\b", part) or _DAY_RANGE.search(part)) and not _CLOCK.search(part) and not _HOURS_A_DAY.search(part) \
        and not _HOURS_A_WEEK.search(part) \
        and not _WORK_WORD.search(part) and not re.search(r"24 ?[/x] ?7|clock|always|stop", part)


def combine_schedules(items: list[Said]) -> list[Said]:
    """The message's `schedule` phrases -> one phrase that sets `service_hours_per_week` and `service_schedule`
    ("9am-6pm" and "on weekdays" are one schedule, 45 h a week); the others become filler."""
    parts = [said for said in items if said.kind == "schedule"]
    if not parts:
        return items
    read = read_schedule([said.text for said in parts])
    out: list[Said] = []
    for said in items:
        if said.kind != "schedule":
            out.append(said)
        elif said is parts[0] and read is not None:
            hours, words = read
            out.append(Said("schedule", " ".join(p.text for p in parts),
                            {"service_hours_per_week": round(hours, 2), "service_schedule": words}, said.cues))
        else:
            out.append(Said("filler", said.text, cues=said.cues))
    return out
