"""Reserve or on demand with no workload (engine.reserve_or_on_demand): both monthly bills per provider with an SLA, the
hours a day from which reserving pays, and the pick."""

from __future__ import annotations

import math

import pytest

from engine.reserve_or_on_demand import DAYS_PER_MONTH, reserve_or_on_demand, reserved_term
from engine.tco import RESERVED_DISCOUNT_ASSUMED


def test_eight_h100_six_hours_a_day_is_cheaper_on_demand(data) -> None:
    """8 H100s 6 h a day: Nebius's $2.95/GPU-h x 8 x 6 h x 30.4 days = $4,307 a month against its reserved rate (no
    published one: $2.95 -30% = $2.065) x 8 x 730 h = $12,060, paid busy or not. Reserving pays from 24 x 0.7 = 16.8 h
    a day."""
    r = reserve_or_on_demand("h100-sxm", 8, data, hours_per_day=6)
    assert r.on_demand is not None and r.on_demand.provider == "nebius"
    assert r.on_demand.on_demand_usd_per_month == pytest.approx(2.95 * 8 * 6 * 730 / 24)
    assert r.reserved is not None and r.reserved.provider == "nebius" and not r.reserved.reserved_published
    assert r.reserved.reserved_usd_per_month == pytest.approx(2.95 * (1 - RESERVED_DISCOUNT_ASSUMED) * 8 * 730)
    assert r.break_even_hours_per_day == pytest.approx(16.8)
    assert r.pick == "on_demand"
    assert r.commitment_usd == pytest.approx(r.reserved.reserved_usd_per_month * 12)
    assert math.isclose(DAYS_PER_MONTH, 30.42, abs_tol=0.01)
    # no marketplace host (they sell no commitments) and no managed service among the rows; cheapest first
    assert not {"vast", "runpod-community", "sagemaker"} & {row.provider for row in r.rows}
    cheaper = [row.cheaper_usd_per_month for row in r.rows]
    assert cheaper == sorted(cheaper)


def test_past_the_break_even_the_pick_is_to_reserve(data) -> None:
    r = reserve_or_on_demand("h100-sxm", 8, data, hours_per_day=20, term_years=3)
    assert r.pick == "reserve" and r.commitment_usd == pytest.approx(r.reserved.reserved_usd_per_month * 36)
    assert reserve_or_on_demand("h100-sxm", 8, data, hours_per_day=16).pick == "on_demand"
    assert reserve_or_on_demand("h100-sxm", 8, data, hours_per_day=17.5).pick == "reserve"


def test_a_published_reserved_rate_keeps_its_own_break_even_and_term(data) -> None:
    """Together publishes $2.99 reserved against $3.49 on demand for 7-30+ day reservations: it pays from 24 x
    2.99 / 3.49 = 20.6 h a day there, and the term is the offer's, not a year."""
    r = reserve_or_on_demand("h100-sxm", 8, data, hours_per_day=6)
    together = next(row for row in r.rows if row.provider == "together")
    assert together.reserved_published and together.reserved_term == "7-30+ days"
    assert together.break_even_hours_per_day == pytest.approx(24 * 2.99 / 3.49)
    offer = data.offer(together.offer_id)
    assert offer is not None and reserved_term(offer) == "7-30+ days"


def test_gpus_are_billed_in_whole_nodes_and_no_use_said_has_no_pick(data) -> None:
    r = reserve_or_on_demand("h100-sxm", 12, data)
    assert r.pick is None and r.hours_per_day is None
    for row in r.rows:
        assert row.gpus_billed % row.gpus_per_node == 0 and row.gpus_billed >= 12
        assert row.on_demand_usd_per_month is None


def test_a_gpu_nobody_with_an_sla_rents_has_no_rows(data) -> None:
    r = reserve_or_on_demand("no-such-gpu", 8, data, hours_per_day=6)
    assert r.rows == () and r.pick is None and r.break_even_hours_per_day is None
