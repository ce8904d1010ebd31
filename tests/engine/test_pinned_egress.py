"""Pinned egress answers, exactly as the reply shows them: dollars, the tier slices behind them,
the basis sentence and the notes, for every branch (no location, no dataset, same cloud, a flat
rate, an unknown source, a tier table), and the migration-friction classes.

Dollar figures are hand arithmetic on the AWS data-transfer table (aws.amazon.com/ec2/pricing/
on-demand: first 100 GB/month free, $0.09/GB to 10 TB, $0.085 to 50 TB, $0.07 to 150 TB, $0.05
beyond; 1 TB = 1,024 GB).
"""

from __future__ import annotations

import pytest

from catalog.records import EgressTier, ProviderRecord
from engine.egress import egress_for, flat_cost, migration_friction, tier_table_text, tiered_cost
from engine.models import Figure
from tests.engine.fixtures_physics import workload

AWS_TIERS = (EgressTier(up_to_gb=100, usd_per_gb=0.0), EgressTier(up_to_gb=10_240, usd_per_gb=0.09),
             EgressTier(up_to_gb=51_200, usd_per_gb=0.085), EgressTier(up_to_gb=153_600, usd_per_gb=0.07),
             EgressTier(up_to_gb=None, usd_per_gb=0.05))
AWS = ProviderRecord(id="aws", name="AWS (EC2)", kind="hyperscaler", cloud="aws", egress_tiers=AWS_TIERS,
                     storage_usd_per_gb_month=0.023, storage_product="S3 Standard", source="aws.amazon.com", observed_on="2026-11-21")
GPU_CLOUD = AWS.model_copy(update={"id": "gpucloud", "name": "GPU cloud", "kind": "gpu_cloud", "cloud": None,
                                   "egress_tiers": (EgressTier(up_to_gb=None, usd_per_gb=0.0),)})
ZERO = Figure(value=0.0, unit="USD", formula="0", inputs={})


def test_tiered_cost_figure_with_its_slices() -> None:
    fig = tiered_cost(12_000, AWS_TIERS)
    assert fig.value == pytest.approx(10_140 * 0.09 + 1_760 * 0.085)  # $1,062.20
    assert fig.model_copy(update={"value": 0.0}) == Figure(value=0.0, unit="USD",
                         formula="sum over monthly tiers of GB in tier x USD/GB",
                         inputs={"volume_gb": 12_000, "tiers": [
                             {"from_gb": 0.0, "gb": 100.0, "usd_per_gb": 0.0},
                             {"from_gb": 100.0, "gb": 10_140.0, "usd_per_gb": 0.09},
                             {"from_gb": 10_240.0, "gb": 1_760.0, "usd_per_gb": 0.085}]})


def test_tiered_cost_small_volumes() -> None:
    assert tiered_cost(0.5, AWS_TIERS).inputs["tiers"] == [{"from_gb": 0.0, "gb": 0.5, "usd_per_gb": 0.0}]
    assert tiered_cost(100.5, AWS_TIERS).value == pytest.approx(0.5 * 0.09)
    assert tiered_cost(-3, AWS_TIERS).inputs == {"volume_gb": 0.0, "tiers": []}


def test_a_table_ending_with_a_bounded_tier_bills_the_rest_at_its_last_rate() -> None:
    tiers = (EgressTier(up_to_gb=100, usd_per_gb=0.0), EgressTier(up_to_gb=1_000, usd_per_gb=0.1))
    fig = tiered_cost(1_500, tiers)
    assert fig.value == pytest.approx(900 * 0.1 + 500 * 0.1)
    assert fig.inputs["tiers"][-1] == {"from_gb": 1_000.0, "gb": 500.0, "usd_per_gb": 0.1}
    assert tiered_cost(1_000, tiers).value == pytest.approx(90.0)


def test_empty_tier_table_says_so() -> None:
    fig = tiered_cost(500, ())
    assert fig.value == 0.0
    assert fig.notes == ("no egress tier table for this provider: counted as $0; check the provider's price list",)
    assert tiered_cost(500, AWS_TIERS).notes == ()


def test_flat_cost_figure() -> None:
    fig = flat_cost(500, 0.09)
    assert fig.value == pytest.approx(45.0)
    assert fig.model_copy(update={"value": 0.0}) == Figure(value=0.0, unit="USD", formula="volume_gb x flat usd_per_gb",
                                                           inputs={"volume_gb": 500, "usd_per_gb": 0.09})
    assert flat_cost(0.5, 0.09).value == pytest.approx(0.045)
    assert flat_cost(-1, 0.09).inputs == {"volume_gb": 0.0, "usd_per_gb": 0.09}
    assert flat_cost(500, float("inf")).inputs["usd_per_gb"] == 0.0
    assert flat_cost(500, -0.5).value == 0.0
    assert flat_cost(500, 0.5).value == 250.0


def test_tier_table_texts() -> None:
    assert tier_table_text(()) == "no tier table"
    assert tier_table_text((EgressTier(up_to_gb=None, usd_per_gb=0.0),)) == "free beyond 0 GB"
    gcp = (EgressTier(up_to_gb=1_024, usd_per_gb=0.12), EgressTier(up_to_gb=10_240, usd_per_gb=0.11),
           EgressTier(up_to_gb=None, usd_per_gb=0.08))
    assert tier_table_text(gcp) == "first 1,024 GB $0.12/GB, $0.11/GB to 10,240 GB, $0.08/GB beyond 10,240 GB"
    assert tier_table_text((EgressTier(up_to_gb=1, usd_per_gb=1.0), EgressTier(up_to_gb=5, usd_per_gb=0.0))) == (
        "first 1 GB $1/GB, free to 5 GB")


def _egress(**kw: object) -> dict:
    base = {"dataset_gb": 500.0, "runs_per_month": 20.0, "data_location": "aws"}
    base.update(kw)
    return base


def test_egress_without_a_data_location() -> None:
    out = egress_for(workload(**_egress(data_location=None)), AWS, GPU_CLOUD)
    assert out == {"dataset_gb": 500.0, "pulls_per_month": 20.0, "same_cloud": False, "basis": "none",
                   "per_pull": ZERO, "cached": ZERO, "uncached": ZERO,
                   "notes": ["data location not given: no egress counted (say where the data lives to include it)"]}


def test_egress_without_a_dataset_size() -> None:
    out = egress_for(workload(**_egress(dataset_gb=None)), AWS, GPU_CLOUD)
    assert out["dataset_gb"] == 0.0 and out["basis"] == "none" and out["uncached"] == ZERO
    assert out["notes"] == ["no dataset size: no egress counted"]
    assert egress_for(workload(**_egress(dataset_gb=0.5)), AWS, GPU_CLOUD)["notes"] != ["no dataset size: no egress counted"]


def test_egress_inside_the_same_cloud_is_free() -> None:
    out = egress_for(workload(**_egress()), AWS, AWS)
    same = Figure(value=0.0, unit="USD", formula="0: GPUs in the same cloud as the data",
                  inputs={"data_location": "aws", "provider": "aws"})
    assert out == {"dataset_gb": 500.0, "pulls_per_month": 20.0, "same_cloud": True, "basis": "same_cloud",
                   "per_pull": same, "cached": same, "uncached": same, "notes": []}


def test_egress_at_the_users_flat_rate() -> None:
    out = egress_for(workload(**_egress(egress_usd_per_gb=0.09)), AWS, GPU_CLOUD)
    assert out["basis"] == "flat $0.09/GB (your rate)"
    assert out["per_pull"].value == pytest.approx(45.0)
    assert out["cached"].value == pytest.approx(45.0)  # one pull a month
    assert out["uncached"].value == pytest.approx(900.0)  # 20 pulls: the flat rate ignores the free tier
    rare = egress_for(workload(**_egress(egress_usd_per_gb=0.09, runs_per_month=0.5)), AWS, GPU_CLOUD)
    assert rare["cached"].value == pytest.approx(22.5)  # half a pull a month on average


def test_egress_from_an_unknown_source() -> None:
    out = egress_for(workload(**_egress()), None, GPU_CLOUD)
    assert out["basis"] == "unknown" and out["uncached"] == ZERO
    assert out["notes"] == ["no egress price table for data location 'aws': counted as $0; "
                            "give a rate (\"egress $0.09/GB\") to include it"]


def test_egress_on_the_tier_table() -> None:
    out = egress_for(workload(**_egress(dataset_pulls_per_month=4.0)), AWS, GPU_CLOUD)
    assert out["pulls_per_month"] == 4.0
    assert out["basis"] == ("AWS (EC2) monthly tiers: first 100 GB free, $0.09/GB to 10,240 GB, $0.085/GB to "
                            "51,200 GB, $0.07/GB to 153,600 GB, $0.05/GB beyond 153,600 GB")
    assert out["per_pull"] == tiered_cost(500.0, AWS_TIERS)
    assert out["cached"].value == pytest.approx(36.0)
    assert out["uncached"].value == pytest.approx(1_900 * 0.09)  # 4 x 500 GB = 2,000 GB, 100 free
    assert out["notes"] == ["AWS (EC2)'s free 100 GB/month is per account across all services; "
                            "if other traffic already uses it, egress is higher by up to $9"]
    assert egress_for(workload(**_egress(runs_per_month=None)), AWS, GPU_CLOUD)["pulls_per_month"] == 1.0


def test_no_free_tier_no_note() -> None:
    paid = AWS.model_copy(update={"egress_tiers": (EgressTier(up_to_gb=None, usd_per_gb=0.1),)})
    out = egress_for(workload(**_egress()), paid, GPU_CLOUD)
    assert out["notes"] == [] and out["uncached"].value == pytest.approx(1_000.0)


@pytest.mark.parametrize(("dependency", "friction"), [
    ("SageMaker pipelines", "high"), ("IAM roles", "high"), ("EKS cluster", "high"),
    ("S3 bucket", "medium"), ("CloudWatch dashboards", "medium"),
    ("ECR images", "low"), ("model weights", "low"), ("parquet files", "low"),
    ("a mainframe", "unknown"),
])
def test_migration_friction(dependency: str, friction: str) -> None:
    [row] = migration_friction([dependency])
    assert row["dependency"] == dependency and row["friction"] == friction
    assert set(row) == {"dependency", "friction", "why"} and row["why"]


def test_migration_friction_reasons() -> None:
    assert migration_friction(["  S3 data "]) == [{"dependency": "S3 data", "friction": "medium",
                                                  "why": "S3 data is portable but moving it costs egress (calculable) and time"}]
    assert migration_friction(["quantum"])[0]["why"] == "not a dependency the advisor knows; judge by hand"
    assert migration_friction(None) == []


def test_bounded_table_bills_the_rest_at_the_last_tier_not_the_second() -> None:
    tiers = (EgressTier(up_to_gb=100, usd_per_gb=0.0), EgressTier(up_to_gb=1_000, usd_per_gb=0.1),
             EgressTier(up_to_gb=2_000, usd_per_gb=0.05))
    fig = tiered_cost(3_000, tiers)
    assert fig.value == pytest.approx(900 * 0.1 + 1_000 * 0.05 + 1_000 * 0.05)
    assert fig.inputs["tiers"][-1] == {"from_gb": 2_000.0, "gb": 1_000.0, "usd_per_gb": 0.05}


def test_a_tier_bound_out_of_order_is_skipped_not_the_end_of_the_table() -> None:
    tiers = (EgressTier(up_to_gb=100, usd_per_gb=0.0), EgressTier(up_to_gb=50, usd_per_gb=0.5),
             EgressTier(up_to_gb=None, usd_per_gb=0.09))
    assert tiered_cost(1_100, tiers).value == pytest.approx(1_000 * 0.09)


@pytest.mark.parametrize(("tiers", "extra"), [
    ((EgressTier(up_to_gb=100, usd_per_gb=0.0), EgressTier(up_to_gb=None, usd_per_gb=0.09)), "$9"),
    ((EgressTier(up_to_gb=100, usd_per_gb=0.0),), "$0"),  # a table that is only a free allowance
])
def test_free_allowance_note(tiers, extra: str) -> None:
    source = AWS.model_copy(update={"egress_tiers": tiers})
    out = egress_for(workload(**_egress()), source, GPU_CLOUD)
    assert out["notes"] == [f"AWS (EC2)'s free 100 GB/month is per account across all services; "
                            f"if other traffic already uses it, egress is higher by up to {extra}"]
