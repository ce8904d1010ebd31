"""Buy or rent N GPUs with no workload (engine.buy_or_rent): the same break-even the plan's note gives, generalised to
a utilisation, a power price and a horizon the user can say."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.advise import _break_even_note
from engine.buy_or_rent import break_even, busy_hours_to_break_even, price_range, resale_share, sla_rate


def test_around_the_clock_it_is_the_plans_break_even(data) -> None:
    """8 H100s at 100% and $0.12/kWh, the GPUs resold for 20% after 3 years: the ~18 months against on-demand and ~34
    against reserved that Q6's note says (25 and 40 written down to $0)."""
    gpu = data.gpu("h100-sxm")
    result = break_even(gpu, 8, data)
    assert result is not None and result.rent_sla
    rate, _ = sla_rate("h100-sxm", data) or (0.0, "")
    assert result.rent_usd_per_gpu_hour == rate
    note = _break_even_note(gpu, 8, rate, data)[0]
    hours = busy_hours_to_break_even(gpu, 8, rate).value
    assert f"{hours:,.0f} busy hours" in note
    assert math.isclose(result.months_on_demand * 730, hours, abs_tol=1.0)  # the Figure is rounded to the hour
    assert round(result.months_reserved) == 34 and round(result.months_on_demand) == 18
    assert result.hardware_usd == 8 * 30_000 * 1.5
    assert result.resale_usd == 8 * 30_000 * 0.2 and not result.resale_said
    # over 3 years the servers with power and space less $48k of resale ($420k) cost less than reserved ($434k), by
    # less than the H100 price's own spread ($25k-$40k a GPU): a close call, not a verdict
    assert result.verdict == "buy" and result.close
    written_off = break_even(gpu, 8, data, resale=0.0)
    assert written_off is not None and written_off.verdict == "rent" and written_off.close
    assert round(written_off.months_reserved) == 40 and written_off.min_utilisation is None


def test_the_resale_that_flips_the_verdict(data) -> None:
    """Written down to $0, 8 H100s own for $468k against $434k reserved: $34k apart, $4,246 a GPU. A resale above that
    flips the verdict, below it does not; the review's "a residual of even $8-10k a GPU" is well past it."""
    gpu = data.gpu("h100-sxm")
    result = break_even(gpu, 8, data, resale=0.0)
    assert result is not None and result.own_usd == pytest.approx(468_000, rel=0.01)
    flip = result.resale_to_flip_usd_per_gpu
    assert 4_000 < flip < 4_500
    share = flip / 30_000
    above = break_even(gpu, 8, data, resale=share + 0.01)
    below = break_even(gpu, 8, data, resale=share - 0.01)
    assert above is not None and below is not None
    assert above.verdict == "buy" and below.verdict == "rent"
    assert above.resale_to_flip_usd_per_gpu == pytest.approx(flip)  # the flip does not depend on the resale said
    ten_k = break_even(gpu, 8, data, resale=10_000 / 30_000)
    assert ten_k is not None and ten_k.own_usd == pytest.approx(388_000, rel=0.01) and ten_k.verdict == "buy"


def test_a_gap_outside_the_price_spread_is_not_a_close_call(data) -> None:
    """B200 ($40k, quoted $30k-$50k): owning at $570k against $809k reserved over 3 years stays cheaper at $50k a GPU
    ($674k): a verdict. An A100's price source quotes no range: +-25% of its $12k is assumed."""
    b200 = break_even(data.gpu("b200"), 8, data)
    assert b200 is not None and b200.verdict == "buy" and not b200.close
    assert b200.own_high_usd < b200.best_rent_usd and b200.resale_to_flip_usd_per_gpu < 0
    assert price_range(data.gpu("h100-sxm")) == (25_000, 40_000, True)
    assert price_range(data.gpu("b200")) == (30_000, 50_000, True)
    assert price_range(data.gpu("a100-sxm-80gb")) == (9_000, 15_000, False)


def test_resale_falls_with_age() -> None:
    """20% after 3 years, the same share lost every year (58% after 1, 7% after 5); a share said is the one at the
    end of the horizon said; "no resale" is 0 from the start."""
    assert resale_share(3) == pytest.approx(0.2)
    assert resale_share(1) == pytest.approx(0.2 ** (1 / 3))
    assert resale_share(5) == pytest.approx(0.2 ** (5 / 3))
    assert resale_share(0) == 1.0
    assert resale_share(5, said=0.3, horizon=5) == pytest.approx(0.3)
    assert resale_share(0.1, said=0.0) == 0.0


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


@settings(max_examples=40, deadline=None)
@given(utilisation=st.floats(0.05, 1.0), share=st.floats(0.0, 0.9), years=st.floats(0.5, 8.0))
def test_more_resale_never_makes_owning_dearer(data, utilisation, share, years) -> None:
    """Invariants: a higher resale never raises owning's cost or delays its break-even, and the resale that flips the
    verdict is where owning costs what the cheapest rental does."""
    gpu = data.gpu("h100-sxm")
    low = break_even(gpu, 8, data, utilisation=utilisation, years=years, resale=share)
    high = break_even(gpu, 8, data, utilisation=utilisation, years=years, resale=share + 0.1)
    assert low is not None and high is not None
    assert high.own_usd <= low.own_usd and high.months_on_demand <= low.months_on_demand
    assert high.own_low_usd <= high.own_usd <= high.own_high_usd
    flip = low.resale_to_flip_usd_per_gpu
    assert low.own_before_resale_usd - flip * 8 == pytest.approx(low.best_rent_usd)
