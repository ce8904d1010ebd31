"""A service is not planned on a fleet of marketplace machines: 156 single-GPU hosts from individual owners, with no
SLA, no shared network and prices that move daily, was listed as the cheapest way to serve 1,000 requests/s. Up to
16 hosts stay options (ranked after clouds, labelled), and naming the marketplace plans on it whatever the count."""

from __future__ import annotations

from typing import Any

from engine.advise import advise
from engine.models import Workload
from engine.recommend import MARKETPLACE_MAX_HOSTS

RATE = Workload(mode="inference", model="llama-3.1-8b", requests_per_s=1000.0)


def _marketplace(data: Any) -> set[str]:
    return {p.id for p in data.providers if p.kind == "marketplace"}


def test_no_option_rents_more_than_16_marketplace_machines(data: Any) -> None:
    advice = advise(RATE, data)
    markets = _marketplace(data)
    assert MARKETPLACE_MAX_HOSTS == 16 and markets
    on_market = [o for o in advice.options if o.offer_id and o.offer_id.split(":")[0] in markets]
    assert all(o.cluster.nodes <= MARKETPLACE_MAX_HOSTS for o in on_market), [(o.name, o.cluster.nodes) for o in on_market]
    assert advice.recommendation.cheapest not in {o.name for o in on_market if o.cluster.nodes > MARKETPLACE_MAX_HOSTS}


def test_a_named_marketplace_is_planned_at_any_count(data: Any) -> None:
    market = sorted(_marketplace(data))[0]
    advice = advise(RATE.model_copy(update={"provider": market}), data)
    assert advice.options and max(o.cluster.nodes for o in advice.options) > MARKETPLACE_MAX_HOSTS
