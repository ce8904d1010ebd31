"""A date with its length said right after it: "must be done by Friday (4 days)". Only the date was read ("I can't
count hours to a date") and the plan ignored the 4 days it was given."""

from __future__ import annotations

import pytest

from parser import parse
from tests.parser.fake_resolver import FakeResolver

_RUN = "full fine-tune Llama 3.1 70B on 10B tokens on spot instances, "


@pytest.mark.parametrize(("text", "hours"), [
    (_RUN + "must be done by Friday (4 days)", 96), (_RUN + "by Friday, i.e. 4 days", 96),
    (_RUN + "by end of week — 5 days", 120), (_RUN + "by Friday, ie 4 days", 96),
    (_RUN + "done by tonight (10 hours)", 10),
])
def test_a_length_after_an_undated_deadline_is_the_deadline(text: str, hours: float) -> None:
    reading = parse(text, FakeResolver())
    assert reading.updates.get("deadline_hours") == hours, reading.updates
    assert not any("can't count hours" in n for n in reading.notes), reading.notes
    assert any(f"within {hours} hours" in n for n in reading.notes), reading.notes


def test_a_batch_job_due_by_a_date_with_its_length() -> None:
    reading = parse("classify 50M tweets with Qwen2.5 7B, done by Friday (3 days)", FakeResolver())
    assert reading.updates.get("deadline_hours") == 72


@pytest.mark.parametrize("text", [_RUN + "by Friday", _RUN + "by Friday, 8 H100s for 3 days"])
def test_a_date_alone_is_still_said_back(text: str) -> None:
    reading = parse(text, FakeResolver())
    assert "deadline_hours" not in reading.updates
    assert any("can't count hours to a date" in n for n in reading.notes), reading.notes
