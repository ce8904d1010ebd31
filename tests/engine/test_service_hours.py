"""A service used only in working hours, on hourly-billed capacity, is stopped (or scaled to zero) outside them:
its monthly compute is the rate x its hours. On-demand and spot pay hours a week x 365/12/7 weeks a month (45 h a
week is 45/168 of the 730-hour always-on month: the month here is 365/12 days, so 168 h a week is exactly always
on; 52/12 weeks a month would make "24/7" 728 h, 0.3% under the always-on bill); reserved capacity is paid around
the clock whatever the schedule. The cost per 1M output tokens keeps its meaning: at the stated load while running."""

from __future__ import annotations

from typing import Any

import pytest

from engine.advise import advise
from engine.egress import egress_for
from engine.models import Workload
from engine.tco import (
    COLD_START_NOTE,
    RESERVED_PART_TIME_NOTE,
    billed_service_hours_per_month,
    row_usd,
    storage_footprint,
    tco_options,
    usd_per_gpu_hour,
)
from engine.units import HOURS_PER_MONTH
from tests.engine.fixtures_catalog import catalog_data

FIXTURE = catalog_data()
P5 = next(o for o in FIXTURE.offers if o.id == "aws:p5.48xlarge:us-east-1")
SERVE = Workload(mode="inference", params_b=70, concurrency=50)
WORKING_WEEK = {"service_hours_per_week": 45.0, "service_schedule": "9am-6pm weekdays"}


def _compute(w: Workload, billed: int = 8) -> float:
    """The compute row of a serving option on a p5 node, as engine.recommend passes it (an always-on month)."""
    rate, source = usd_per_gpu_hour(P5, w.pricing or "on_demand", None)
    assert rate is not None
    provider = FIXTURE.provider(P5.provider)
    options = tco_options(w, name="p5", offer=P5, provider=provider, gpu_hours_per_run=HOURS_PER_MONTH * billed,
                          usd_per_gpu_hr=rate, rate_source=source, storage_gb=storage_footprint(w, 70e9, 0),
                          egress=egress_for(w, None, provider), billed_gpus=billed)
    return row_usd(options[0], "compute")


@pytest.mark.parametrize("pricing", [None, "on_demand", "spot"])
def test_hourly_billed_compute_is_paid_for_the_hours_it_runs(pricing: str | None) -> None:
    always = _compute(SERVE.model_copy(update={"pricing": pricing}))
    working = _compute(SERVE.model_copy(update={"pricing": pricing, **WORKING_WEEK}))
    assert working == pytest.approx(always * 45 / 168, rel=1e-9)
    # the review's figure, 45 x 52/12 weeks a month over 730 h, within the 0.3% the two week lengths differ by
    assert working / always == pytest.approx(45 * 52 / 12 / 730, rel=0.003)
    rate = usd_per_gpu_hour(P5, pricing or "on_demand", None)[0]
    assert rate is not None and always == pytest.approx(8 * HOURS_PER_MONTH * rate)  # the always-on month as before


def test_reserved_capacity_is_paid_around_the_clock() -> None:
    reserved = SERVE.model_copy(update={"pricing": "reserved"})
    assert _compute(reserved.model_copy(update=WORKING_WEEK)) == pytest.approx(_compute(reserved))
    assert billed_service_hours_per_month(reserved.model_copy(update=WORKING_WEEK)) == HOURS_PER_MONTH


@pytest.mark.parametrize("update", [
    {"service_hours_per_week": 168.0},  # "24/7": always on, exactly
    {"service_hours_per_week": None},
    {"mode": "qlora", "service_hours_per_week": 45.0},  # a training run is priced by its own hours
    {"batch_items": 1e6, "service_hours_per_week": 45.0},  # so is an offline job
])
def test_no_schedule_to_price(update: dict[str, Any]) -> None:
    assert billed_service_hours_per_month(SERVE.model_copy(update=update)) == HOURS_PER_MONTH


def test_the_scheduled_hours_are_not_applied_twice() -> None:
    """A caller that passes the scheduled hours already (engine.recommend, once it prices schedules itself) gets the
    same bill: the month is computed from the billed GPUs."""
    w = SERVE.model_copy(update=WORKING_WEEK)
    rate, source = usd_per_gpu_hour(P5, "on_demand", None)
    assert rate is not None
    provider = FIXTURE.provider(P5.provider)
    passed = tco_options(w, name="p5", offer=P5, provider=provider, gpu_hours_per_run=8 * billed_service_hours_per_month(w),
                         usd_per_gpu_hr=rate, rate_source=source, storage_gb=storage_footprint(w, 70e9, 0),
                         egress=egress_for(w, None, provider), billed_gpus=8)
    assert row_usd(passed[0], "compute") == pytest.approx(_compute(w))


def test_the_whole_answer_at_45_hours_a_week(data: Any) -> None:
    """Real catalog, the review's question: every option's month scales by 45/168 on-demand, the pick and its cost per
    1M output tokens stay, and the answer names the cold start; reserved bills stay and say what on-demand would cost."""
    base = Workload(mode="inference", model="llama-3.3-70b", concurrency=50)
    always = advise(base, data)
    working = advise(base.model_copy(update=WORKING_WEEK), data)
    assert working.options[0].name == always.options[0].name
    assert working.options[0].total_usd == pytest.approx(always.options[0].total_usd * 45 / 168, rel=1e-6)
    cost = working.options[0].throughput.cost_per_1m_tokens_usd
    assert cost is not None and cost.value == pytest.approx(always.options[0].throughput.cost_per_1m_tokens_usd.value)
    assert any(n.startswith(COLD_START_NOTE) for n in working.notes)
    bf16 = next(n for n in working.notes if "BF16 as published" in n)
    assert "/month" in bf16 and bf16 not in always.notes  # the BF16 comparison priced at the same hours

    reserved = base.model_copy(update={"pricing": "reserved"})
    r_always, r_working = advise(reserved, data), advise(reserved.model_copy(update=WORKING_WEEK), data)
    assert r_working.options[0].total_usd == pytest.approx(r_always.options[0].total_usd)
    part_time = next(n for n in r_working.notes if n.startswith(RESERVED_PART_TIME_NOTE))
    assert "45 h a week" in part_time and not any(n.startswith(COLD_START_NOTE) for n in r_working.notes)
    assert not any(n.startswith(RESERVED_PART_TIME_NOTE) for n in r_always.notes)


def test_hours_a_week_out_of_range_is_a_problem() -> None:
    advice = advise(SERVE.model_copy(update={"service_hours_per_week": 200.0}), FIXTURE)
    assert any(p.field == "service_hours_per_week" for p in advice.problems)
