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


@pytest.mark.parametrize(("text", "hours"), [
    ("full fine-tune llama 3.1 8b on 2B tokens, deadline is 24 hours", 24.0),
    ("we have a deadline of 3 days", 72.0),
    ("deadline: 2 days", 48.0),
])
def test_a_deadline_said_as_such(text: str, hours: float) -> None:
    """"deadline is 24 hours" in a thread got "I didn't understand" (the "within" form worked)."""
    assert dict(parse(text, FakeResolver()).updates)["deadline_hours"] == hours


def test_how_many_of_an_instance_is_the_machine_not_a_count() -> None:
    """"how many p5.48xlarge do I need to full fine-tune Llama 3.1 70B on 3B tokens in 2 days" fixed one p5 (8 GPUs)
    and answered "does not fit"; the count is what was asked."""
    said = dict(parse("how many p5.48xlarge do I need to full fine-tune Llama 3.1 70B on 3B tokens in 2 days on AWS",
                      FakeResolver()).updates)
    assert said["instance_type"] == "p5.48xlarge" and "gpu_count" not in said and said["deadline_hours"] == 48.0
