"""Services used only some hours of the week: the phrasings read into `service_hours_per_week` and the
schedule in words, and a time of day is never read as a model name ("9am-6pm" was "I don't know '9am-6pm'")."""

from __future__ import annotations

from typing import Any

import pytest

from parser import Conversation, parse
from parser.normalize import normalize
from parser.schedule import clock_hours, clock_times

PHRASES = [
    # (what the user wrote, hours a week, the schedule as the answer repeats it)
    ("serve llama 3.1 8b for 20 users, only 9am-6pm on weekdays", 45, "9am-6pm weekdays"),
    ("serve llama 3.1 8b for 20 users, 9am-6pm weekdays", 45, "9am-6pm weekdays"),
    ("serve llama 3.1 8b 9am - 6pm Mon-Fri", 45, "9am-6pm weekdays"),
    ("serve llama 3.1 8b 9AM to 6PM ET, Monday to Friday", 45, "9am-6pm weekdays"),
    ("serve llama 3.1 8b 8:30am–5:30pm weekdays", 45, "8:30am-5:30pm weekdays"),
    ("serve llama 3.1 8b 09:00-18:00 on weekdays", 45, "9am-6pm weekdays"),
    ("serve llama 3.1 8b 9am-6pm", 63, "9am-6pm every day"),  # no days said: every day, and the answer says so
    ("serve llama 3.1 8b 9-5", 40, "9am-5pm weekdays"),  # the working-day idiom
    ("serve llama 3.1 8b 9 to 5", 40, "9am-5pm weekdays"),
    ("serve llama 3.1 8b during business hours", 50, "business hours, taken as 10 h a day on weekdays"),
    ("serve llama 3.1 8b in working hours", 50, "working hours, taken as 10 h a day on weekdays"),
    ("serve llama 3.1 8b for 20 users, 8 hours a day", 56, "8 h a day, every day"),
    ("serve llama 3.1 8b 8 hours a day on weekdays", 40, "8 h a day on weekdays"),
    ("serve llama 3.1 8b 12h/day", 84, "12 h a day, every day"),
    ("serve llama 3.1 8b 8 hours a day, 6 days a week", 48, "8 h a day, 6 days a week"),
    # any day range, not only Monday to Friday ("Monday to Saturday" was billed as every day, 84 h)
    ("serve Llama 3.1 8B for 30 users 8am-8pm Monday to Saturday", 72, "8am-8pm Mon-Sat"),
    ("serve Llama 3.1 8B for 30 users 8am-8pm Mon-Sat", 72, "8am-8pm Mon-Sat"),
    ("serve Llama 3.1 8B for 30 users 8am-8pm Mon – Sat", 72, "8am-8pm Mon-Sat"),
    ("serve Llama 3.1 8B for 30 users 8am-8pm Monday through Friday", 60, "8am-8pm weekdays"),
    ("serve Llama 3.1 8B for 30 users 8am-8pm mon–fri", 60, "8am-8pm weekdays"),
    ("serve Llama 3.1 8B for 30 users 8am-8pm Tue-Sat", 60, "8am-8pm Tue-Sat"),
    ("serve Llama 3.1 8B for 30 users 8am-8pm Fri-Mon", 48, "8am-8pm Fri-Mon"),
    ("serve llama 3.1 8b weekdays only", 120, "weekdays only, around the clock"),
    ("serve llama 3.1 8b 24/7", 168, "24/7"),
    ("serve llama 3.1 8b around the clock", 168, "24/7"),
    ("serve llama 3.1 8b 24 hours a day, 7 days a week", 168, "24/7"),
    ("serve llama 3.1 8b 24/7, busiest 9-5", 168, "24/7"),  # always on said: never a part-time bill
    ("serve llama 3.1 8b 6pm-9am", 105, "6pm-9am every day"),  # overnight: the span wraps midnight
    ("serve llama 3.1 8b 40 hours a week", 40, "40 h a week"),
    ("serve llama 3.1 8b, 60h/week", 60, "60 h a week"),
    # a working day is a weekday of so many hours ("8-hour working days only" was 120 h, around the clock)
    ("serve llama 3.1 8b for 50 users, 8-hour working days only", 40, "8 h a day on weekdays"),
    ("serve llama 3.1 8b, 10-hour workdays", 50, "10 h a day on weekdays"),
    ("serve llama 3.1 8b for 50 users, 10-hour days, weekdays", 50, "10 h a day on weekdays"),
    ("serve llama 3.1 8b, 12-hour days", 84, "12 h a day, every day"),
    ("serve llama 3.1 8b for 50 users, 8h/day 5 days a week", 40, "8 h a day, 5 days a week"),
    ("serve llama 3.1 8b for 50 users, business hours only", 50, "business hours, taken as 10 h a day on weekdays"),
    ("serve llama 3.1 8b, 40-hour weeks", 40, "40 h a week"),
]


@pytest.mark.parametrize(("text", "hours", "words"), PHRASES)
def test_schedules_are_read(resolver: Any, text: str, hours: float, words: str) -> None:
    reading = parse(text, resolver)
    assert reading.updates.get("service_hours_per_week") == pytest.approx(hours), (text, reading.updates)
    assert reading.updates.get("service_schedule") == words
    assert not reading.conflicts and not reading.unknown_names
    assert reading.updates.get("mode") == "inference"


@pytest.mark.parametrize("text", [
    "fine-tune llama 3.1 8b for 3-5 epochs",  # a range of epochs
    "scale from 8 to 4 gpus",  # GPU counts
    "serve llama 3.1 8b, peak traffic on weekdays",  # when traffic peaks is not when it runs
    "serve llama-3-8b for 20 users",  # a name with dashes and digits
    "20 runs every day",
])
def test_not_schedules(resolver: Any, text: str) -> None:
    reading = parse(text, resolver)
    assert "service_hours_per_week" not in reading.updates, reading.updates


def test_a_time_of_day_is_never_a_model_name() -> None:
    """With the real catalog: the review's question named Llama 3.3 70B and a clock range; only the model is a name."""
    import catalog

    resolver = catalog.open_catalog()
    reading = parse("serve Llama 3.3 70B for 50 users, only 9am-6pm on weekdays", resolver)
    assert reading.updates["model"] == "llama-3.3-70b"
    assert reading.updates["service_hours_per_week"] == 45
    assert reading.unknown_names == ()
    assert not any("9am" in note for note in reading.notes), reading.notes
    for text in ("9am-6pm", "9 am - 6 pm", "10am-4pm weekdays", "9-5"):
        alone = parse(f"serve llama 3.1 8b {text}", resolver)
        assert alone.unknown_names == () and alone.updates["model"] == "llama-3.1-8b", (text, alone)


@pytest.mark.parametrize(("raw", "written"), [
    ("9 am - 6 pm", "9am-6pm"),
    ("9am–6pm", "9am-6pm"),  # an en dash
    ("8:30am to 5:30pm", "8.5am-5.5pm"),
    ("09:00-18:00", "9am-6pm"),  # a 24-hour clock
    ("8:30-17:30", "8.5am-5.5pm"),
    ("8:30-5:30", "8.5am-5.5pm"),  # no am/pm: the shorter span, as for "9-5"
    ("9am-6", "9am-6pm"),
    ("9 a.m. to 6 p.m.", "9am-6pm"),
    ("3-5 epochs", "3-5 epochs"),  # no clock sign: left alone
    ("llama-3-8b", "llama-3-8b"),
])
def test_clock_ranges_are_written_one_way(raw: str, written: str) -> None:
    assert clock_times(raw) == written
    assert written in normalize(raw)


@pytest.mark.parametrize(("text", "hours", "words"), [
    ("9am-6pm", 9, "9am-6pm"), ("9-5", 8, "9am-5pm"), ("8-8", 12, "8am-8pm"), ("10 to 6", 8, "10am-6pm"),
    ("6pm-9am", 15, "6pm-9am"), ("8.5am-5.5pm", 9, "8:30am-5:30pm"), ("12pm-8pm", 8, "12pm-8pm"),
])
def test_clock_hours(text: str, hours: float, words: str) -> None:
    assert clock_hours(text) == (hours, words)


def test_a_thread_changes_the_schedule_and_back(resolver: Any) -> None:
    chat = Conversation(resolver)
    chat.turn("serve llama 3.1 8b for 20 users, 9am-6pm weekdays")
    assert chat.workload.service_hours_per_week == 45
    turn = chat.turn("what about 24/7?")
    assert chat.workload.service_hours_per_week == 168 and chat.workload.service_schedule == "24/7"
    assert "hours a week 45 → 168" in turn.message
    chat.turn("make it business hours")
    assert chat.workload.service_hours_per_week == 50
    chat.turn("run it around the clock")
    assert chat.workload.service_hours_per_week == 168
    assert chat.workload.model == "llama-3.1-8b" and chat.workload.concurrency == 20
