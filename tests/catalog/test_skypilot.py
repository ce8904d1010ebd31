"""Importing the four SkyPilot catalog CSVs (tests/catalog/fixtures/skypilot), quirk by quirk."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from catalog import Catalog
from catalog.skypilot import merge_offers, parse_gpu_info, read_skypilot_csv


def _read(snapshot_dir: Path, cloud: str, catalog: Catalog, skipped: list[str] | None = None):  # type: ignore[no-untyped-def]
    return read_skypilot_csv(
        snapshot_dir / f"{cloud}_vms.csv", cloud, "2026-11-21", catalog=catalog, skipped=skipped
    )


def test_gpu_info_is_a_python_repr() -> None:
    info = parse_gpu_info(
        "{'Gpus': [{'Name': 'T4', 'MemoryInfo': {'SizeInMiB': 16384}}], 'TotalGpuMemoryInMiB': 16384}"
    )
    assert info["Gpus"][0]["Name"] == "T4"
    assert parse_gpu_info("__import__('os').system('true')") == {}
    assert parse_gpu_info("") == {}


def test_aws(snapshot_dir: Path, catalog: Catalog) -> None:
    skipped: list[str] = []
    offers = {o.id: o for o in _read(snapshot_dir, "aws", catalog, skipped)}
    p5 = offers["aws:p5.48xlarge:us-east-1"]
    assert (p5.gpu, p5.gpus_per_node, p5.on_demand_usd_per_hour) == ("h100-sxm", 8, 55.04)
    assert p5.spot_usd_per_hour == pytest.approx(10.2397)  # min over AZs incl. the Local Zone
    assert p5.inter_node_fabric == "EFA 3200 Gbps" and p5.inter_node_gbps == 3200
    assert offers["aws:p4d.24xlarge:us-east-1"].on_demand_usd_per_hour == pytest.approx(
        21.957642
    )  # June-2025 cut
    assert offers["aws:p4d.24xlarge:us-east-1"].gpu == "a100-sxm-40gb"
    assert offers["aws:p4de.24xlarge:us-east-1"].gpu == "a100-sxm-80gb"
    assert offers["aws:p3.8xlarge:us-east-1"].gpu == "v100-sxm2-16gb"
    assert offers["aws:p3dn.24xlarge:us-east-1"].gpu == "v100-sxm2-32gb"
    assert offers["aws:g7e.48xlarge:us-east-1"].gpu == "rtx-pro-6000"
    assert offers["aws:g5.xlarge:us-east-1"].gpu == "a10g"
    assert offers["aws:p5.4xlarge:us-east-1"].spot_usd_per_hour is None  # no spot for p5.4xlarge
    p5e = offers["aws:p5e.48xlarge:us-east-2"]
    assert p5e.on_demand_usd_per_hour is None and p5e.spot_usd_per_hour is not None  # empty Price kept
    assert not any(o.instance_type.startswith("g6f") for o in offers.values())  # fractional GPUs skipped
    assert any("fractional" in s for s in skipped)
    assert offers["aws:p6-b300.48xlarge:us-west-2"].gpu == "b300"
    assert not any("B300" in s for s in skipped)
    # one row per instance type + region
    assert len({(o.instance_type, o.region) for o in offers.values()}) == len(offers)


def test_gcp_host_only_rows_are_skipped(snapshot_dir: Path, catalog: Catalog) -> None:
    skipped: list[str] = []
    offers = _read(snapshot_dir, "gcp", catalog, skipped)
    assert (
        offers == []
    )  # a2/a3 host-only prices, TPUs (incl. the 700.0 placeholder), CPU: none is a GPU offer
    with (snapshot_dir / "gcp_vms.csv").open(newline="") as handle:
        assert len(skipped) == sum(1 for _ in csv.DictReader(handle))


def test_lambda(snapshot_dir: Path, catalog: Catalog) -> None:
    offers = {o.id: o for o in _read(snapshot_dir, "lambda", catalog)}
    assert len(offers) == 21
    assert offers["lambda:gpu_8x_h100_sxm5:us-east-1"].gpu == "h100-sxm"
    assert offers["lambda:gpu_1x_h100_pcie:us-east-1"].gpu == "h100-pcie"
    assert offers["lambda:gpu_8x_a100:us-east-1"].gpu == "a100-sxm-40gb"  # 40960 MiB per GPU
    assert offers["lambda:gpu_8x_a100_80gb_sxm4:us-east-1"].gpu == "a100-sxm-80gb"
    assert offers["lambda:gpu_8x_v100:us-east-1"].gpu == "v100-sxm2-16gb"
    assert offers["lambda:gpu_1x_a6000:us-east-1"].gpu == "rtx-a6000"
    assert offers["lambda:gpu_1x_gh200:us-east-1"].gpu == "gh200"
    assert all(o.spot_usd_per_hour is None for o in offers.values())


def test_runpod(snapshot_dir: Path, catalog: Catalog) -> None:
    offers = {o.id: o for o in _read(snapshot_dir, "runpod", catalog)}
    assert len(offers) == 7
    a100 = offers["runpod:1x_A100-80GB_SECURE:US"]
    assert a100.gpu == "a100-pcie-80gb"  # GpuInfo says 'A100 PCIe'; SizeInMiB 80 means 80 GB
    assert a100.spot_usd_per_hour is None  # SpotPrice == Price: no spot market
    assert offers["runpod:6x_H100-NVL_SECURE:US"].gpu == "h100-nvl"
    assert offers["runpod:2x_MI300X_SECURE:IN"].region == "IN"


def test_merge_replaces_same_id_rows(tmp_path: Path, snapshot_dir: Path, catalog: Catalog) -> None:
    target = tmp_path / "offers.csv"
    offers = _read(snapshot_dir, "runpod", catalog)
    assert merge_offers(offers, target) == 7
    first = target.read_bytes()
    assert merge_offers(offers, target) == 7  # same ids replaced, not duplicated
    assert target.read_bytes() == first
    changed = [offers[0].model_copy(update={"on_demand_usd_per_hour": 9.99})]
    merge_offers(changed, target)
    with target.open(newline="") as handle:
        rows = {r["id"]: r for r in csv.DictReader(handle)}
    assert rows[offers[0].id]["on_demand_usd_per_hour"] == "9.99"
    assert rows[offers[0].id]["source"].startswith("SkyPilot catalog ")


def test_packaged_offers_match_the_snapshot(snapshot_dir: Path, catalog: Catalog) -> None:
    """The aws/lambda/runpod rows in offers.csv are exactly what the importer produces."""
    packaged = {o.id: o for o in catalog.offers()}
    for cloud in ("aws", "lambda", "runpod"):
        for offer in _read(snapshot_dir, cloud, catalog):
            stored = packaged[offer.id]
            assert stored.on_demand_usd_per_hour == offer.on_demand_usd_per_hour
            assert stored.spot_usd_per_hour == offer.spot_usd_per_hour
            assert stored.gpu == offer.gpu and stored.gpus_per_node == offer.gpus_per_node
