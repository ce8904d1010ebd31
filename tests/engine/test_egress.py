"""Egress: AWS's tier walk, a flat rate (the naive form), workflows, same-cloud, migration friction."""

from __future__ import annotations

import pytest

from engine.egress import egress_for, flat_cost, migration_friction, tiered_cost
from engine.models import Workload
from tests.engine.fixtures_catalog import AWS_TIERS, catalog_data

DATA = catalog_data()
AWS = DATA.provider("aws")
LAMBDA = DATA.provider("lambda")
SAGEMAKER = DATA.provider("sagemaker")


@pytest.mark.parametrize(
    ("volume_gb", "usd"),
    [
        (0, 0.0),
        (100, 0.0),
        (500, 36.0),  # (500 - 100) x 0.09
        (10_000, 891.0),  # 20 x 500 GB on AWS's tiers (a flat $0.09/GB says $900)
        (10_240, 912.6),
        (20_240, 912.6 + 10_000 * 0.085),
        (-5, 0.0),
    ],
)
def test_tiered_cost_walks_aws_table(volume_gb: float, usd: float) -> None:
    assert tiered_cost(volume_gb, AWS_TIERS).value == pytest.approx(usd)


def test_tiered_cost_beyond_last_tier() -> None:
    beyond = tiered_cost(200_000, AWS_TIERS).value
    expected = 10_140 * 0.09 + 40_960 * 0.085 + 102_400 * 0.07 + 46_400 * 0.05
    assert beyond == pytest.approx(expected)


def test_flat_rate_reproduces_the_naive_form() -> None:
    assert flat_cost(500, 0.09).value == pytest.approx(45)
    assert flat_cost(20 * 500, 0.09).value == pytest.approx(900)


def test_egress_workflows_tiered_and_flat() -> None:
    w = Workload(dataset_gb=500, runs_per_month=20, data_location="aws")
    tiered = egress_for(w, AWS, LAMBDA)
    assert tiered["uncached"].value == pytest.approx(891)
    assert tiered["cached"].value == pytest.approx(36)
    assert "tiers" in tiered["basis"]
    flat = egress_for(w.model_copy(update={"egress_usd_per_gb": 0.09}), AWS, LAMBDA)
    assert (flat["per_pull"].value, flat["cached"].value, flat["uncached"].value) == pytest.approx((45, 45, 900))


def test_same_cloud_is_free() -> None:
    w = Workload(dataset_gb=500, runs_per_month=20, data_location="aws", egress_usd_per_gb=0.09)
    out = egress_for(w, AWS, SAGEMAKER)
    assert out["same_cloud"] and out["uncached"].value == 0


def test_unknown_location_means_no_egress_and_says_so() -> None:
    out = egress_for(Workload(dataset_gb=500, runs_per_month=20), AWS, LAMBDA)
    assert out["uncached"].value == 0 and out["notes"]


def test_pulls_per_month_override() -> None:
    w = Workload(dataset_gb=500, runs_per_month=1, dataset_pulls_per_month=20, data_location="aws", egress_usd_per_gb=0.09)
    assert egress_for(w, AWS, LAMBDA)["uncached"].value == pytest.approx(900)


@pytest.mark.parametrize(
    ("dep", "level"),
    [
        ("SageMaker endpoints", "high"),
        ("EKS cluster with IAM roles", "high"),
        ("S3 training data", "medium"),
        ("CloudWatch dashboards", "medium"),
        ("ECR images", "low"),
        ("exported model weights", "low"),
        ("Parquet dataset", "low"),
        ("mainframe", "unknown"),
    ],
)
def test_migration_friction(dep: str, level: str) -> None:
    (row,) = migration_friction([dep])
    assert row["friction"] == level and row["why"]
