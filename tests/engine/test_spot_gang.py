"""Spot training's overhead grows with the nodes a synchronous run holds (any one reclaimed stalls them all), and
past engine.spot.SPOT_GANG_MAX_NODES spot is shown as possible, not picked. Before: a flat 10% whatever the size, and
"pretrain llama 3 70b architecture on 1T tokens, spot, AWS" picked 64 p5 spot nodes at $560k per run."""

from __future__ import annotations

import pytest

from engine.models import Workload
from engine.offer_plans import slot_hours, spot_factor
from engine.spot import (
    SPOT_GANG_MAX_NODES,
    SPOT_RESTART_OVERHEAD,
    expected_reclaims,
    gang_too_large,
    spot_overhead,
    spot_training_note,
    stall_hours,
)


def test_the_overhead_is_the_single_node_allowance_plus_every_further_nodes_reclaims() -> None:
    assert spot_overhead(1) == SPOT_RESTART_OVERHEAD == 0.10  # a one-node fine-tune keeps its 10%
    assert stall_hours() == pytest.approx(0.5 + 0.25 + 3.0)  # half an hourly checkpoint, restart, the wait
    # 20% of nodes reclaimed a month (AWS Spot Instance Advisor's band for H100), 3.75 h stalled each
    assert spot_overhead(8) == pytest.approx(0.10 + 7 * 0.2 / 730 * 3.75)
    assert spot_overhead(64) == pytest.approx(0.165, abs=0.001)
    assert [spot_overhead(n) for n in (1, 2, 6, 16, 64)] == sorted(spot_overhead(n) for n in (1, 2, 6, 16, 64))
    assert expected_reclaims(64, 690) == pytest.approx(64 * 0.2 / 730 * 690)  # ~12 over a 29-day run
    assert not gang_too_large(SPOT_GANG_MAX_NODES) and gang_too_large(SPOT_GANG_MAX_NODES + 1)


def test_the_slot_leaves_room_for_the_gangs_reclaims() -> None:
    spot = Workload(mode="full", params_b=8, pricing="spot")
    assert slot_hours(spot) == pytest.approx(730 / 1.1)  # one node: as before
    assert slot_hours(spot, 64) == pytest.approx(730 / (1 + spot_overhead(64)))
    on_demand = Workload(mode="full", params_b=8)
    assert slot_hours(on_demand, 64) == 730 and spot_factor(on_demand, 64) == 1.0
    serving = Workload(mode="inference", params_b=8, pricing="spot")
    assert spot_factor(serving, 64) == 1.0  # a service on spot is not a synchronous gang


def test_the_note_says_the_reclaims_a_gang_expects() -> None:
    one = spot_training_note(1, 10.0)
    assert one.startswith("spot: checkpoint") and "10% more GPU-hours" in one and "reclaims expected" not in one
    six = spot_training_note(6, 670.0)
    assert "11% more GPU-hours" in six and "any one of the 6 nodes reclaimed stalls them all" in six
    assert "~1.1 reclaims expected over the run" in six and "AWS Spot Instance Advisor" in six
