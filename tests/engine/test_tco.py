"""Four-row TCO: compute, storage, egress, managed premium; workflows; overrides."""

from __future__ import annotations

import pytest

from engine.egress import egress_for
from engine.models import Figure, Workload
from engine.tco import managed_fraction, row_usd, storage_footprint, tco_options, usd_per_gpu_hour
from tests.engine.fixtures_catalog import catalog_data

DATA = catalog_data()
OFFERS = {o.id: o for o in DATA.offers}
BM = OFFERS["seed-baremetal:h100x1:any"]
SM = OFFERS["sagemaker:ml.p5.48xlarge:us-east-1"]
P5 = OFFERS["aws:p5.48xlarge:us-east-1"]


def _options(w: Workload, offer_id: str, hours: float = 100.0):
    offer = OFFERS[offer_id]
    provider = DATA.provider(offer.provider)
    rate, source = usd_per_gpu_hour(offer, w.pricing or "on_demand", w.hourly_rate)
    assert rate is not None
    egress = egress_for(w, DATA.provider(w.data_location) if w.data_location else None, provider)
    storage = storage_footprint(w, 70e9, 0.2e9)
    return tco_options(
        w, name=offer_id, offer=offer, provider=provider, gpu_hours_per_run=hours,
        usd_per_gpu_hr=rate, rate_source=source, storage_gb=storage, egress=egress,
    )


def test_rate_per_gpu_hour_from_node_price() -> None:
    assert usd_per_gpu_hour(P5, "on_demand", None)[0] == pytest.approx(55.04 / 8)
    assert usd_per_gpu_hour(P5, "spot", None)[0] == pytest.approx(30.0 / 8)
    assert usd_per_gpu_hour(BM, "spot", None)[0] is None
    reserved, why = usd_per_gpu_hour(P5, "reserved", None)
    assert reserved == pytest.approx(55.04 / 8 * 0.7) and "ESTIMATED" in why
    assert usd_per_gpu_hour(P5, "on_demand", 2.5)[0] == 2.5


def test_managed_fraction_order() -> None:
    w = Workload()
    assert managed_fraction(w, BM, DATA.provider("seed-baremetal"))[0] == 0
    assert managed_fraction(w, SM, DATA.provider("sagemaker"))[0] == pytest.approx(0.30)
    assert managed_fraction(Workload(managed_premium=0.2), SM, DATA.provider("sagemaker"))[0] == pytest.approx(0.2)


def test_four_rows_and_both_workflows() -> None:
    w = Workload(mode="qlora", dataset_gb=500, runs_per_month=20, data_location="aws")
    cached, uncached = _options(w, BM.id)
    for opt in (cached, uncached):
        assert [r.item for r in opt.rows] == ["compute", "storage", "egress", "managed"]
        assert opt.total_usd == pytest.approx(sum(r.usd for r in opt.rows))
    assert row_usd(cached, "compute") == pytest.approx(100 * 20 * 2.80)
    assert row_usd(uncached, "egress") == pytest.approx(891)
    assert row_usd(cached, "egress") == pytest.approx(36)


def test_same_cloud_single_workflow_and_premium() -> None:
    w = Workload(mode="qlora", dataset_gb=500, runs_per_month=1, data_location="aws")
    (only,) = _options(w, SM.id)
    assert only.workflow == "same_cloud"
    assert row_usd(only, "egress") == 0
    assert row_usd(only, "managed") == pytest.approx(0.3 * row_usd(only, "compute"))
    # the listed all-in price is split, never counted twice: compute + managed = hours x listed rate
    assert row_usd(only, "compute") + row_usd(only, "managed") == pytest.approx(100 * 29.12 / 8)
    assert row_usd(only, "compute") == pytest.approx(100 * 2.80)


def test_managed_premium_override_replaces_the_premium_not_the_base() -> None:
    w = Workload(mode="qlora", dataset_gb=500, data_location="aws", managed_premium=0.2)
    (only,) = _options(w, SM.id)
    assert row_usd(only, "compute") == pytest.approx(100 * 2.80)
    assert row_usd(only, "managed") == pytest.approx(100 * 2.80 * 0.2)


def test_cache_choice_respected_and_unknown_location() -> None:
    w = Workload(mode="qlora", dataset_gb=500, data_location="aws", cache_dataset=True)
    assert [o.workflow for o in _options(w, BM.id)] == ["cached"]
    assert [o.workflow for o in _options(Workload(mode="qlora", dataset_gb=500), BM.id)] == ["none"]


def test_storage_footprint_counts_dataset_checkpoints_artifact() -> None:
    fig = storage_footprint(Workload(mode="qlora", dataset_gb=500), 70e9, 0.2e9)
    assert fig.value == pytest.approx(500 + 3 * 0.2 * 14 + 140)
    full = storage_footprint(Workload(mode="full", dataset_gb=0), 8e9, 8e9)
    assert full.value == pytest.approx(3 * 8 * 14 + 16)
    assert storage_footprint(Workload(storage_gb=1234), 1, 1).value == 1234
    assert isinstance(fig, Figure)


def test_fixed_storage_bill_override() -> None:
    w = Workload(mode="qlora", dataset_gb=500, storage_usd_per_month=28)
    (opt,) = _options(w, BM.id)
    assert row_usd(opt, "storage") == 28
