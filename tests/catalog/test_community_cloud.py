"""RunPod's Community Cloud rents GPUs in machines run by third parties, with no datacentre SLA (RunPod's pricing
page sets it against Secure Cloud, its own Tier 3/4 datacentres). Its rows are their own marketplace provider, so
a service is never picked onto them unnamed and a buy-or-rent break-even never rests on their price."""

from __future__ import annotations

from catalog.query import Catalog


def test_community_rows_are_a_marketplace_of_their_own(catalog: Catalog) -> None:
    providers = {p.id: p for p in catalog.providers()}
    community = providers["runpod-community"]
    assert community.kind == "marketplace" and "(marketplace)" in community.name
    assert providers["runpod"].kind == "gpu_cloud"
    rows = [o for o in catalog.offers() if "_COMMUNITY" in o.instance_type]
    assert rows and all(o.provider == "runpod-community" and o.id.startswith("runpod-community:") for o in rows)
    assert not any(o.provider == "runpod" and (o.notes or "").startswith("Community Cloud:") for o in catalog.offers())
