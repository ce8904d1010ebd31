"""Pinned TCO options, row by row, for every egress workflow, and where each rate and premium
comes from.

Hand arithmetic: 50 GPU-hours a run x 20 runs a month = 1,000 GPU-hours at $2.80/GPU-hour = $2,800
compute; 1,000 GB stored at $0.023/GB-month = $23; egress from the figures given (AWS table: one
500 GB pull $36, twenty pulls $891).
"""

from __future__ import annotations

import pytest

from catalog.records import EgressTier, OfferRecord, ProviderRecord
from engine.models import Figure, TcoOption
from engine.tco import managed_fraction, managed_split, row_usd, tco_options, usd_per_gpu_hour, workflows_for
from tests.engine.fixtures_physics import workload

SRC = {"source": "example price list", "observed_on": "2026-11-21"}
CLOUD = ProviderRecord(id="gpucloud", name="GPU cloud", kind="gpu_cloud", egress_tiers=(EgressTier(up_to_gb=None, usd_per_gb=0.0),),
                       storage_usd_per_gb_month=0.023, storage_product="object storage", **SRC)
MANAGED = CLOUD.model_copy(update={"id": "managedml", "name": "Managed ML", "kind": "managed", "managed_premium_fraction": 0.25})
OFFER = OfferRecord(id="gpucloud:h100x8:us", provider="gpucloud", instance_type="h100x8", gpu="h100-sxm", gpus_per_node=8,
                    intra_node_link="NVLink 4", inter_node_fabric=None, inter_node_gbps=None, on_demand_usd_per_hour=22.40,
                    spot_usd_per_hour=11.20, reserved_usd_per_hour=None, region="us", **SRC)
STORAGE = Figure(value=1000.0, unit="GB", formula="dataset + checkpoints", inputs={"dataset_gb": 500.0})
CACHED = Figure(value=36.0, unit="USD", formula="sum over tiers", inputs={"volume_gb": 500.0})
UNCACHED = Figure(value=891.0, unit="USD", formula="sum over tiers", inputs={"volume_gb": 10_000.0})


def egress(**kw: object) -> dict:
    base: dict = {"same_cloud": False, "basis": "AWS tiers", "pulls_per_month": 20.0, "cached": CACHED, "uncached": UNCACHED,
                  "notes": ["free tier is per account"]}
    base.update(kw)
    return base


def options(w=None, offer=OFFER, provider=CLOUD, eg=None) -> tuple[TcoOption, ...]:  # type: ignore[no-untyped-def]
    return tco_options(w or workload(mode="full", runs_per_month=20.0), name="8x H100", offer=offer, provider=provider,
                       gpu_hours_per_run=50.0, usd_per_gpu_hr=2.80, rate_source="on-demand $22.40/node-hr / 8 GPUs",
                       storage_gb=STORAGE, egress=eg if eg is not None else egress())


def rows(option: TcoOption) -> dict:
    return {r.item: r for r in option.rows}


def test_cached_and_uncached_options() -> None:
    cached, uncached = options()
    assert (cached.name, uncached.name) == ("8x H100 - data cached", "8x H100 - pull every run")
    assert (cached.workflow, uncached.workflow) == ("cached", "uncached")
    assert cached.offer_id == "gpucloud:h100x8:us" and cached.provider == "gpucloud"
    c = rows(cached)
    assert [r.item for r in cached.rows] == ["compute", "storage", "egress", "managed"]
    assert c["compute"].usd == pytest.approx(2_800.0)
    assert c["compute"].formula == "gpu_hours_per_run x runs_per_month x usd_per_gpu_hour"
    assert c["compute"].inputs == {"gpu_hours_per_run": 50.0, "runs_per_month": 20.0, "usd_per_gpu_hour": 2.80,
                                   "listed_usd_per_gpu_hour": 2.80, "rate": "on-demand $22.40/node-hr / 8 GPUs"}
    assert c["storage"].usd == pytest.approx(23.0) and c["storage"].formula == "storage_gb x usd_per_gb_month"
    assert c["storage"].inputs == {"storage_gb": 1000.0, "usd_per_gb_month": 0.023, "product": "object storage", "dataset_gb": 500.0}
    assert c["egress"].usd == 36.0
    assert c["egress"].formula == "one pull a month, cached on the provider: sum over tiers"
    assert c["egress"].inputs == {"volume_gb": 500.0, "basis": "AWS tiers"}
    assert c["managed"].usd == 0.0 and c["managed"].formula == "compute x managed premium fraction"
    assert c["managed"].inputs == {"fraction": 0.0, "source": "self-managed: no premium"}
    assert cached.total_usd == pytest.approx(2_800 + 23 + 36)
    assert cached.per_run_usd == pytest.approx(140.0)  # 50 GPU-hours x $2.80; the pull is monthly
    u = rows(uncached)
    assert u["egress"].usd == 891.0 and u["egress"].formula == "20 pulls a month: sum over tiers"
    assert uncached.total_usd == pytest.approx(2_800 + 23 + 891)
    assert uncached.per_run_usd == pytest.approx(140.0 + 891 / 20)
    assert cached.notes == ("free tier is per account",)


def test_same_cloud_and_no_egress_options() -> None:
    free = Figure(value=0.0, unit="USD", formula="0", inputs={})
    (same,) = options(eg=egress(same_cloud=True, cached=free, uncached=free))
    assert same.name == "8x H100" and same.workflow == "same_cloud"
    assert rows(same)["egress"].usd == 0.0 and rows(same)["egress"].formula == "0: same cloud as the data"
    (none,) = options(eg=egress(basis="none"))
    assert none.name == "8x H100" and none.workflow == "none"
    assert rows(none)["egress"].usd == 0.0
    assert rows(none)["egress"].formula == "0: no egress (data location unknown or no dataset)"
    assert none.total_usd == pytest.approx(2_823.0)


def test_pulls_default_to_runs_in_the_formula() -> None:
    eg = egress()
    del eg["pulls_per_month"]
    _, uncached = options(eg=eg)
    assert rows(uncached)["egress"].formula.startswith("20 pulls a month: ")


def test_managed_offer_rows_add_up_to_the_listed_price() -> None:
    """Listed $2.80 with a 25% premium: compute $2.24/GPU-hour x 1,000 = $2,240, managed $560."""
    (option,) = options(w=workload(mode="full", runs_per_month=20.0, cache_dataset=True), offer=OFFER, provider=MANAGED)
    r = rows(option)
    assert r["compute"].usd == pytest.approx(2_240.0)
    assert r["compute"].inputs["usd_per_gpu_hour"] == pytest.approx(2.24)
    assert r["compute"].formula.endswith("(self-managed equivalent = listed / (1 + premium))")
    assert r["managed"].usd == pytest.approx(560.0)
    assert r["managed"].inputs == {"fraction": 0.25, "source": "Managed ML default premium"}
    assert option.per_run_usd == pytest.approx(140.0)


def test_fixed_storage_bill_and_a_quote_without_offer() -> None:
    w = workload(mode="full", runs_per_month=2.0, storage_usd_per_month=40.0, cache_dataset=False)
    (option,) = options(w=w, offer=None, provider=None)
    assert option.provider == "quote" and option.offer_id is None
    r = rows(option)
    assert r["storage"].usd == 40.0 and r["storage"].formula == "your fixed storage bill per month"
    assert r["storage"].inputs == {"usd_per_month": 40.0}
    assert r["compute"].usd == pytest.approx(100 * 2.80)
    no_provider = options(w=workload(mode="full", runs_per_month=2.0, cache_dataset=False), offer=None, provider=None)[0]
    assert rows(no_provider)["storage"].usd == 0.0 and rows(no_provider)["storage"].inputs["product"] == "unknown storage"
    by_offer = options(offer=OFFER, provider=None)[0]
    assert by_offer.provider == "gpucloud"


def test_negative_hours_cost_nothing() -> None:
    option = tco_options(workload(mode="full", runs_per_month=1.0, cache_dataset=True), name="x", offer=None, provider=CLOUD,
                         gpu_hours_per_run=-5.0, usd_per_gpu_hr=2.0, rate_source="r", storage_gb=STORAGE, egress=egress())[0]
    assert row_usd(option, "compute") == 0.0


def test_row_usd() -> None:
    cached, _ = options()
    assert row_usd(cached, "storage") == pytest.approx(23.0)
    assert row_usd(cached.model_copy(update={"rows": cached.rows[:1]}), "managed") == 0.0


@pytest.mark.parametrize(("eg", "cache", "flows"), [
    ({"same_cloud": True}, None, ("same_cloud",)),
    ({"basis": "none"}, None, ("none",)),
    ({"basis": "unknown"}, True, ("none",)),
    ({"basis": None}, None, ("none",)),
    ({"basis": "tiers"}, True, ("cached",)),
    ({"basis": "tiers"}, False, ("uncached",)),
    ({"basis": "tiers"}, None, ("cached", "uncached")),
])
def test_workflows_for(eg: dict, cache, flows) -> None:
    assert workflows_for(workload(cache_dataset=cache), eg) == flows


def test_where_the_premium_comes_from() -> None:
    w = workload(mode="full")
    managed_offer = OFFER.model_copy(update={"managed": True, "managed_premium_fraction": 0.4})
    assert managed_split(w, managed_offer, CLOUD) == (pytest.approx(1 / 1.4), 0.4, "offer gpucloud:h100x8:us premium over its self-managed equivalent")
    assert managed_split(w, OFFER.model_copy(update={"managed": True}), MANAGED)[1:] == (0.25, "Managed ML default premium")
    base, fraction, why = managed_split(w, OFFER.model_copy(update={"managed": True}), CLOUD)
    assert (base, fraction) == (pytest.approx(1 / 1.3), 0.30) and "~30%" in why
    assert managed_fraction(w, OFFER, CLOUD) == (0.0, "self-managed: no premium")
    assert managed_fraction(workload(mode="full", managed_premium=0.1), OFFER, MANAGED) == (0.1, "your managed-premium figure (listed price implies 25%)")


def test_rates_per_gpu_hour() -> None:
    assert usd_per_gpu_hour(OFFER, "on_demand", None) == (2.80, "on-demand $22.40/node-hr / 8 GPUs (example price list, 2026-11-21)")
    assert usd_per_gpu_hour(OFFER, "spot", None)[0] == pytest.approx(1.40)
    rate, why = usd_per_gpu_hour(OFFER, "reserved", None)
    assert rate == pytest.approx(22.40 * 0.7 / 8) and why.startswith("reserved ESTIMATED as on-demand -30%")
    assert usd_per_gpu_hour(OFFER.model_copy(update={"reserved_usd_per_hour": 14.0}), "reserved", None)[0] == pytest.approx(1.75)
    assert usd_per_gpu_hour(OFFER.model_copy(update={"spot_usd_per_hour": None}), "spot", None) == (None, "no spot price for gpucloud:h100x8:us")
    assert usd_per_gpu_hour(None, "on_demand", None) == (None, "no offer and no quoted rate")
    assert usd_per_gpu_hour(None, "on_demand", 3.5) == (3.5, "your quoted $3.5/GPU-hr")


def test_default_premium_reason_and_offer_premium_through_managed_fraction() -> None:
    w = workload(mode="full")
    _, _, why = managed_split(w, OFFER.model_copy(update={"managed": True}), CLOUD)
    assert why == "estimate: managed training services list ~30% over the same instance self-managed (15-40% across clouds)"
    managed_offer = OFFER.model_copy(update={"managed": True, "managed_premium_fraction": 0.4})
    assert managed_fraction(w, managed_offer, CLOUD) == (0.4, "offer gpucloud:h100x8:us premium over its self-managed equivalent")


def test_storage_footprint_branches() -> None:
    from engine.tco import storage_footprint

    given = storage_footprint(workload(mode="full", storage_gb=750.0), 7e9, 7e9)
    assert given == Figure(value=750.0, unit="GB", formula="your storage_gb", inputs={"storage_gb": 750.0})
    one = storage_footprint(workload(mode="pretrain", dataset_gb=100.0, checkpoints_kept=1), 7e9, 7e9)
    assert one.value == pytest.approx(100 + 7e9 * 14 / 1e9 + 7e9 * 2 / 1e9)  # 100 + 98 + 14
    assert one.inputs == {"dataset_gb": 100.0, "checkpoints_kept": 1, "checkpoint_gb": 98.0, "artifact_gb": 14.0}
    serving = storage_footprint(workload(mode=None, dataset_gb=10.0), 7e9, 0)
    assert serving.value == 10.0
    assert serving.inputs == {"dataset_gb": 10.0, "checkpoints_kept": 0, "checkpoint_gb": 0.0, "artifact_gb": 0.0}
    assert serving.unit == "GB" and serving.formula == "dataset_gb + checkpoints_kept x checkpoint_gb + artifact_gb"


def test_pull_count_and_provider_in_options() -> None:
    _, uncached = options(eg=egress(pulls_per_month=4.0))
    assert rows(uncached)["egress"].formula == "4 pulls a month: sum over tiers"
    (managed,) = options(w=workload(mode="full", runs_per_month=20.0, cache_dataset=True), provider=MANAGED)
    assert managed.provider == "managedml" and managed.offer_id == "gpucloud:h100x8:us"
    (half,) = options(w=workload(mode="full", runs_per_month=0.5, cache_dataset=True))
    assert half.per_run_usd == pytest.approx(140.0)  # a run every other month still costs 50 GPU-hours


def test_rate_sources_and_missing_prices() -> None:
    assert usd_per_gpu_hour(OFFER, "spot", None)[1].startswith("spot $11.20/node-hr / 8 GPUs")
    assert usd_per_gpu_hour(OFFER.model_copy(update={"reserved_usd_per_hour": 14.0}), "reserved", None)[1].startswith("reserved $14.00")
    assert usd_per_gpu_hour(OFFER.model_copy(update={"on_demand_usd_per_hour": 0.0}), "on_demand", None) == (
        None, "no on_demand price for gpucloud:h100x8:us")
    assert usd_per_gpu_hour(OFFER.model_copy(update={"on_demand_usd_per_hour": 0.5}), "on_demand", None)[0] == pytest.approx(0.5 / 8)
    no_prices = OFFER.model_copy(update={"on_demand_usd_per_hour": None, "reserved_usd_per_hour": None})
    assert usd_per_gpu_hour(no_prices, "reserved", None) == (None, "no reserved price for gpucloud:h100x8:us")


def test_storage_footprint_rounding_and_notes() -> None:
    from engine.tco import storage_footprint

    fig = storage_footprint(workload(mode="full", dataset_gb=0.0), 7_123_456_789, 7_123_456_789)
    assert fig.inputs["checkpoint_gb"] == 99.728  # 7,123,456,789 x 14 B = 99.728395 GB, 3 decimals
    assert fig.inputs["artifact_gb"] == 14.247  # x 2 B = 14.246914 GB
    assert fig.notes == ("checkpoint = 14 bytes per trained parameter (bf16 weights + fp32 master + Adam m, v); "
                         "artifact = merged model in bf16 (2 bytes/param)",)


def test_an_offer_without_gpus_has_no_rate() -> None:
    assert usd_per_gpu_hour(OFFER.model_copy(update={"gpus_per_node": 0}), "on_demand", None) == (
        None, "no on_demand price for gpucloud:h100x8:us")
