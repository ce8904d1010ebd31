"""When cheaper options run later: the explanation must follow the ranking, which puts a run that overruns its
slot further after one that finishes sooner. Before, an answer ranked 8x B200 first and then said
"Vast.ai 8x H100 stays cheapest" and "at 1+ runs a month Vast.ai becomes cheaper" (it already was, and ranked
after because its run took 168 days instead of 74), and its why said "lowest cost for the whole job"."""

from __future__ import annotations

from typing import Any

import pytest

from engine.advise import advise
from engine.models import Advice, Workload
from engine.offer_plans import lateness
from engine.recommendation import work_usd

GUESSED = Workload(mode="qlora", params_b=70, dataset_gb=500, runs_per_month=20, data_location="aws")
ON_TIME = Workload(mode="pretrain", params_b=7, dataset_tokens=1_000_000_000_000, deadline_hours=336)
PLAIN = Workload(mode="qlora", params_b=70, dataset_tokens=1_000_000_000, runs_per_month=20, data_location="aws")


def _late(advice: Advice, hours: float | None) -> int:
    return lateness(advice.effective, hours or 0.0)


def _cheaper_and_later(advice: Advice) -> list[Any]:
    primary = advice.options[0]
    return sorted((o for o in advice.options if work_usd(o, advice.effective) < work_usd(primary, advice.effective)),
                  key=lambda o: work_usd(o, advice.effective))


def test_every_run_overruns_the_pick_finishes_soonest_and_the_why_names_the_cheapest(data: Any) -> None:
    advice = advise(GUESSED, data)
    primary, rec = advice.options[0], advice.recommendation
    cheaper = _cheaper_and_later(advice)
    assert _late(advice, primary.hours_per_run) > 0  # at the guessed ~125B tokens no option makes a month
    assert cheaper and all(_late(advice, o.hours_per_run) > _late(advice, primary.hours_per_run) for o in cheaper)
    assert rec.why[0].startswith("lowest cost among the options that finish soonest for the whole job: $")
    cheapest = cheaper[0]
    assert rec.why[1] == (f"cheapest: {cheapest.name}, ${work_usd(cheapest, advice.effective):,.0f}, but "
                          f"{(cheapest.hours_per_run or 0) / 24:,.0f} days per run: ranked after options that finish sooner")
    assert rec.what_would_change_it[0].startswith(f"cached or pulled every run, {primary.name} stays first of the "
                                                  "options that finish soonest: by $")
    assert not any("becomes cheaper" in line and cheapest.name in line for line in rec.what_would_change_it)
    per_b = next(n for n in advice.notes if n.startswith("cost per 1B training tokens"))
    named = per_b.split("(", 1)[1].rsplit("): $", 1)[0]
    assert named in {o.name for o in advice.options}  # an option the answer lists, named


def test_an_on_time_pick_with_a_cheaper_late_option_says_it_finishes_in_time(data: Any) -> None:
    advice = advise(ON_TIME, data)
    primary, rec = advice.options[0], advice.recommendation
    assert _late(advice, primary.hours_per_run) == 0
    assert _cheaper_and_later(advice)
    # one run: ranked on the run's cost, without a month of storage (engine.recommendation.one_run_usd)
    assert rec.why[0].startswith("lowest cost of the run among the options that finish in time: $")
    assert rec.why[1].startswith("cheapest: ")


def test_without_a_cheaper_later_option_the_why_is_plain(data: Any) -> None:
    advice = advise(PLAIN, data)
    rec = advice.recommendation
    assert not _cheaper_and_later(advice)
    assert rec.why[0].startswith("lowest monthly total: $")
    assert not any(line.startswith("cheapest: ") for line in rec.why)


@pytest.mark.parametrize("workload", [GUESSED, ON_TIME, PLAIN])
def test_a_run_count_break_even_never_names_an_option_that_finishes_later_than_the_pick(data: Any,
                                                                                       workload: Workload) -> None:
    advice = advise(workload, data)
    primary = advice.options[0]
    later = {o.name for o in advice.options if _late(advice, o.hours_per_run) > _late(advice, primary.hours_per_run)}
    for line in advice.recommendation.what_would_change_it:
        if "becomes cheaper" in line:
            assert not any(name in line for name in later), line
