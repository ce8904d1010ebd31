"""Buy or rent N GPUs with no workload (engine.buy_or_rent): the same break-even the plan's note gives, generalised to
a utilisation, a power price and a horizon the user can say."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.advise import _break_even_note
from engine.buy_or_rent import break_even, busy_hours_to_break_even, sla_rate


def test_around_the_clock_it_is_the_plans_break_even(data) -> None:
    """8 H100s at 100% and $0.12/kWh: the ~25 months against on-demand and ~40 against reserved that Q6's note says."""
    gpu = data.gpu("h100-sxm")
    result = break_even(gpu, 8, data)
    assert result is not None and result.rent_sla
    rate, _ = sla_rate("h100-sxm", data) or (0.0, "")
    assert result.rent_usd_per_gpu_hour == rate
    note = _break_even_note(gpu, 8, rate, data)[0]
    hours = busy_hours_to_break_even(gpu, 8, rate).value
    assert f"{hours:,.0f} busy hours" in note
    assert math.isclose(result.months_on_demand * 730, hours, abs_tol=1.0)  # the Figure is rounded to the hour
    assert round(result.months_reserved) == 40
    assert result.hardware_usd == 8 * 30_000 * 1.5
    assert result.verdict == "rent"  # over 3 years, reserved capacity costs less than the servers with power and space


def test_the_assumptions_move_the_answer(data) -> None:
    gpu = data.gpu("h100-sxm")
    full = break_even(gpu, 8, data)
    half = break_even(gpu, 8, data, utilisation=0.5)
    assert full is not None and half is not None
    assert half.months_on_demand > 2 * full.months_on_demand  # space is paid for the idle hours too
    assert half.on_demand_usd == full.on_demand_usd / 2
    cheap = break_even(gpu, 8, data, usd_per_kwh=0.08)
    assert cheap is not None and cheap.own_usd < full.own_usd
    five = break_even(gpu, 8, data, utilisation=0.5, usd_per_kwh=0.08, years=5)
    assert five is not None and five.verdict == "buy" and five.min_utilisation is not None
    assert 0.4 < five.min_utilisation < 0.5


def test_no_purchase_price_no_break_even(data) -> None:
    assert break_even(data.gpu("l4"), 1, data) is None  # the catalog has no sourced price for an L4
    assert break_even(data.gpu("h100-sxm"), 8, data, utilisation=0) is None


@settings(max_examples=40, deadline=None)
@given(utilisation=st.floats(0.05, 1.0), kwh=st.floats(0.0, 0.5), years=st.floats(0.5, 8.0))
def test_owning_costs_more_with_dearer_power_and_longer_ownership(data, utilisation, kwh, years) -> None:
    """Invariants: dearer power never makes owning cheaper; a longer horizon never shortens the break-even."""
    gpu = data.gpu("a100-sxm-80gb")
    base = break_even(gpu, 8, data, utilisation=utilisation, usd_per_kwh=kwh, years=years)
    dearer = break_even(gpu, 8, data, utilisation=utilisation, usd_per_kwh=kwh + 0.05, years=years)
    longer = break_even(gpu, 8, data, utilisation=utilisation, usd_per_kwh=kwh, years=years + 1)
    assert base is not None and dearer is not None and longer is not None
    assert dearer.own_usd >= base.own_usd
    assert dearer.months_on_demand >= base.months_on_demand
    assert longer.months_on_demand == base.months_on_demand
