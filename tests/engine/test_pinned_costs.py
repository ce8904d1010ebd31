"""Pinned figures: node counts, hours per month, egress tiers, managed premiums, storage, reserved.

Expected values are hand arithmetic from the public price lists the shipped catalog cites:
- AWS data transfer out to the internet (aws.amazon.com/ec2/pricing/on-demand): first 100 GB/month
  free, $0.09/GB to 10 TB, $0.085/GB to 50 TB, $0.07/GB to 150 TB, $0.05/GB beyond (1 TB = 1,024 GB);
- GCP premium tier (cloud.google.com/network-tiers/pricing): $0.12/GB to 1 TB, $0.11 to 10 TB, $0.08 beyond;
- nodes: GPUs are sold in whole nodes, so 9 GPUs on 8-GPU nodes occupy ceil(9/8) = 2 nodes;
- a month of always-on time: 365 x 24 / 12 = 730 hours.
"""

from __future__ import annotations

from functools import lru_cache

import pytest

from catalog.files import RawData
from catalog.files import read_data as _read_data
from catalog.records import ProviderRecord
from engine.architecture import from_record
from engine.cluster import plan_cluster
from engine.egress import egress_for, flat_cost, tier_table_text, tiered_cost
from engine.models import Figure
from engine.tco import (
    RESERVED_DISCOUNT_ASSUMED,
    managed_split,
    storage_footprint,
    tco_options,
    usd_per_gpu_hour,
)
from engine.units import GB, GIB, HOURS_PER_MONTH, HOURS_PER_YEAR, SECONDS_PER_HOUR
from tests.engine.fixtures_physics import H100_SXM, LLAMA2_7B, workload


@lru_cache(maxsize=1)
def read_data() -> RawData:
    """The shipped catalog files, read once for this module."""
    return _read_data()


def _provider(pid: str) -> ProviderRecord:
    return next(p for p in read_data().providers if p.id == pid)


def test_time_and_size_units() -> None:
    assert HOURS_PER_MONTH == 730
    assert HOURS_PER_YEAR == 8760
    assert SECONDS_PER_HOUR == 3600
    assert GB == 10**9 and GIB == 2**30


@pytest.mark.parametrize(("gpu_count", "nodes"), [(1, 1), (8, 1), (9, 2), (10, 2), (12, 2), (15, 2), (16, 2), (17, 3)])
def test_nodes_for_a_fixed_gpu_count_on_8_gpu_nodes(gpu_count: int, nodes: int) -> None:
    """Whole nodes: ceil(gpus / 8). 9 GPUs need a second node (round() would give 1)."""
    plan, _ = plan_cluster(workload(mode="inference", gpu_count=gpu_count), from_record(LLAMA2_7B), H100_SXM)
    assert plan.gpus == gpu_count
    assert plan.nodes == nodes
    assert plan.gpus_per_node == min(gpu_count, 8)


def test_nine_gpus_on_8_gpu_nodes_are_multi_node() -> None:
    plan, _ = plan_cluster(workload(mode="full", gpu_count=9, zero_stage=3), from_record(LLAMA2_7B), H100_SXM)
    assert plan.nodes == 2
    assert plan.checklist, "a 2-node plan carries the NCCL / fabric checklist"
    assert any("multi-node" in n for n in plan.notes)


# --- egress -----------------------------------------------------------------------------------------

@pytest.mark.parametrize(("volume_gb", "usd"), [
    (0, 0.0),
    (100, 0.0),  # the free 100 GB
    (500, 400 * 0.09),  # $36.00
    (10_000, 9_900 * 0.09),  # 20 pulls of 500 GB in a month: $891, not 10,000 x 0.09 = $900
    (60_000, (10_240 - 100) * 0.09 + (51_200 - 10_240) * 0.085 + (60_000 - 51_200) * 0.07),  # $5,011.20
    (200_000, (10_240 - 100) * 0.09 + 40_960 * 0.085 + 102_400 * 0.07 + (200_000 - 153_600) * 0.05),
])
def test_aws_egress_tiers(volume_gb: float, usd: float) -> None:
    assert tiered_cost(volume_gb, _provider("aws").egress_tiers).value == pytest.approx(usd, abs=0.005)


def test_aws_tier_table_as_named_in_replies() -> None:
    assert tier_table_text(_provider("aws").egress_tiers) == (
        "first 100 GB free, $0.09/GB to 10,240 GB, $0.085/GB to 51,200 GB, $0.07/GB to 153,600 GB, $0.05/GB beyond 153,600 GB")


@pytest.mark.parametrize(("volume_gb", "usd"), [
    (500, 500 * 0.12),
    (5_000, 1_024 * 0.12 + (5_000 - 1_024) * 0.11),  # $560.24
    (20_000, 1_024 * 0.12 + (10_240 - 1_024) * 0.11 + (20_000 - 10_240) * 0.08),
])
def test_gcp_premium_tier_egress(volume_gb: float, usd: float) -> None:
    assert tiered_cost(volume_gb, _provider("gcp").egress_tiers).value == pytest.approx(usd, abs=0.005)


def test_negative_or_nan_volume_costs_nothing() -> None:
    tiers = _provider("aws").egress_tiers
    assert tiered_cost(-5.0, tiers).value == 0.0
    assert tiered_cost(float("nan"), tiers).value == 0.0


def test_flat_rate_is_volume_times_rate() -> None:
    assert flat_cost(10_000, 0.09).value == pytest.approx(900.0)


def test_cached_and_uncached_egress_for_twenty_runs_a_month() -> None:
    """500 GB in S3, GPUs outside AWS, 20 runs a month: cached = one pull ($36), uncached = $891."""
    w = workload(mode="full", dataset_gb=500.0, runs_per_month=20.0, data_location="aws")
    out = egress_for(w, _provider("aws"), _provider("gcp"))
    assert out["pulls_per_month"] == 20.0
    assert out["per_pull"].value == pytest.approx(36.0)
    assert out["cached"].value == pytest.approx(36.0)
    assert out["uncached"].value == pytest.approx(891.0)
    same = egress_for(w, _provider("aws"), _provider("aws"))
    assert same["same_cloud"] is True and same["uncached"].value == 0.0


# --- compute rates, managed premium, storage ---------------------------------------------------------

def _sagemaker_offer(pid: str = "sagemaker:ml.g5.xlarge:us-east-1"):
    return next(o for o in read_data().offers if o.id == pid)


def test_managed_premium_splits_the_listed_price_without_double_counting() -> None:
    """SageMaker ml.g5.xlarge lists $1.408/h against EC2 g5.xlarge at $1.006: premium 1.408/1.006 - 1."""
    offer = _sagemaker_offer()
    assert offer.managed_premium_fraction == pytest.approx(1.408 / 1.006 - 1, abs=1e-4)
    base, fraction, _ = managed_split(workload(mode="full"), offer, _provider("sagemaker"))
    assert base == pytest.approx(1 / (1 + 0.3996))
    assert fraction == pytest.approx(0.3996)
    # compute row + managed row == the listed price, to the cent
    rate, _ = usd_per_gpu_hour(offer, "on_demand", None)
    assert rate == pytest.approx(1.408)
    assert rate * base * (1 + fraction) == pytest.approx(1.408)


def test_sagemaker_premium_is_the_price_lists_15_percent_on_p5() -> None:
    """AWS Price List: ml.p5.48xlarge $63.296/h against EC2 p5.48xlarge $55.04/h = 1.15x."""
    sagemaker = _provider("sagemaker")
    assert sagemaker.managed_premium_fraction == 0.15
    base, fraction, _ = managed_split(workload(mode="full"), _sagemaker_offer("sagemaker:ml.p5.48xlarge:us-east-1"), sagemaker)
    assert (base, fraction) == (pytest.approx(1 / 1.15, rel=1e-3), pytest.approx(0.15, rel=1e-3))


def test_users_premium_replaces_the_listed_one() -> None:
    base, fraction, _ = managed_split(workload(mode="full", managed_premium=0.2), _sagemaker_offer(), _provider("sagemaker"))
    assert fraction == 0.2 and base == pytest.approx(1 / 1.3996)


def test_self_managed_offer_has_no_premium() -> None:
    assert managed_split(workload(mode="full"), None, _provider("aws"))[:2] == (1.0, 0.0)


def test_reserved_price_estimated_at_30_percent_off() -> None:
    offer = next(o for o in read_data().offers if o.reserved_usd_per_hour is None and o.on_demand_usd_per_hour
                 and o.gpus_per_node == 8 and not o.managed)
    rate, source = usd_per_gpu_hour(offer, "reserved", None)
    assert RESERVED_DISCOUNT_ASSUMED == 0.30
    assert rate == pytest.approx(offer.on_demand_usd_per_hour * 0.7 / 8)
    assert "ESTIMATED" in source
    assert usd_per_gpu_hour(offer, "on_demand", 2.5)[0] == 2.5  # a quoted rate wins


def test_storage_footprint_full_training() -> None:
    """7B full fine-tune: 3 checkpoints x 14 B/param (bf16 weights 2 + fp32 master 4 + m 4 + v 4)
    + a bf16 artifact (2 B/param) + 500 GB dataset."""
    fig = storage_footprint(workload(mode="full", dataset_gb=500.0), 7e9, 7e9)
    assert fig.value == pytest.approx(500 + 3 * 7e9 * 14 / 1e9 + 7e9 * 2 / 1e9)  # 500 + 294 + 14 = 808 GB
    lora = storage_footprint(workload(mode="lora", dataset_gb=10.0), 7e9, 4_194_304)
    assert lora.value == pytest.approx(10 + 3 * 4_194_304 * 14 / 1e9 + 14.0)
    assert storage_footprint(workload(mode="inference"), 7e9, 0).value == 0.0


def test_a_corpus_given_in_tokens_is_stored_too() -> None:
    """Pre-training 13B on 1T tokens with no size given: the corpus is kept as ~4 TB of text (4 bytes/token, the
    ratio that turns a size into tokens) beside 3 checkpoints (546 GB) and the artifact (26 GB); it was left out, so a
    15T-token job read "storage included" at the price of its checkpoints alone. A stated size wins."""
    fig = storage_footprint(workload(mode="pretrain", dataset_tokens=1_000_000_000_000), 13e9, 13e9)
    assert fig.value == pytest.approx(4_000 + 546 + 26)
    assert fig.inputs["dataset_gb"] == pytest.approx(4_000)
    assert any("4 bytes per token" in n for n in fig.notes), fig.notes
    stated = storage_footprint(workload(mode="pretrain", dataset_tokens=1_000_000_000_000, dataset_gb=2_000.0), 13e9, 13e9)
    assert stated.value == pytest.approx(2_000 + 546 + 26)
    assert storage_footprint(workload(mode="inference", dataset_tokens=10**9), 7e9, 0).value == 0.0


def test_tco_rows_for_a_managed_offer() -> None:
    """100 GPU-hours per run x 4 runs at SageMaker's listed $1.408: compute + managed = $563.20."""
    w = workload(mode="full", runs_per_month=4.0)
    offer, provider = _sagemaker_offer(), _provider("sagemaker")
    storage = Figure(value=1000.0, unit="GB", formula="x")
    egress = {"same_cloud": True, "cached": Figure(value=0.0, unit="USD", formula="0"),
              "uncached": Figure(value=0.0, unit="USD", formula="0")}
    (option,) = tco_options(w, name="sm", offer=offer, provider=provider, gpu_hours_per_run=100.0,
                            usd_per_gpu_hr=1.408, rate_source="listed", storage_gb=storage, egress=egress)
    rows = {r.item: r.usd for r in option.rows}
    assert rows["compute"] + rows["managed"] == pytest.approx(400 * 1.408)
    assert rows["managed"] == pytest.approx(rows["compute"] * 0.3996)
    assert rows["storage"] == pytest.approx(1000 * 0.023)  # S3 Standard $0.023/GB-month
    assert option.total_usd == pytest.approx(400 * 1.408 + 23.0)
    assert option.per_run_usd == pytest.approx(100 * 1.408)
