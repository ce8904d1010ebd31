"""The reviewed data files: sizes, provenance, the ERRATA figures, and parameter counts."""

from __future__ import annotations

import csv
import datetime as dt
from collections import Counter

import pytest

from catalog import Catalog
from catalog.params import Shape, count_params_b

from .conftest import DATA_DIR


def _iso(value: str) -> bool:
    try:
        dt.date.fromisoformat(value)
    except (TypeError, ValueError):
        return False
    return True


def test_counts(catalog: Catalog) -> None:
    data = catalog.data()
    assert len(data.gpus) >= 20
    assert len(data.models) >= 25
    assert len(data.offers) >= 40
    assert len(data.providers) >= 6
    kinds = {p.kind for p in data.providers}
    assert {"hyperscaler", "gpu_cloud", "bare_metal", "managed"} <= kinds
    providers_with_offers = {o.provider for o in data.offers}
    assert len(providers_with_offers) >= 6
    assert {
        "aws",
        "gcp",
        "azure",
        "lambda",
        "runpod",
        "coreweave",
        "sagemaker",
        "seed-baremetal",
    } <= providers_with_offers


def test_required_ids_present(catalog: Catalog) -> None:
    gpu_ids = {g.id for g in catalog.gpus()}
    for gpu_id in (
        "h100-sxm",
        "h100-pcie",
        "h100-nvl",
        "h200-sxm",
        "b200",
        "gb200",
        "a100-sxm-80gb",
        "a100-sxm-40gb",
        "a100-pcie-80gb",
        "l40s",
        "l4",
        "a10g",
        "a10",
        "t4",
        "v100-sxm2-32gb",
        "rtx-4090",
        "rtx-3090",
        "rtx-6000-ada",
        "rtx-a6000",
        "mi300x",
        "mi325x",
    ):
        assert gpu_id in gpu_ids
    model_ids = {m.id for m in catalog.models()}
    for model_id in (
        "llama-3-70b",
        "llama-3.1-8b",
        "mixtral-8x7b",
        "qwen2.5-72b",
        "phi-3-mini",
        "deepseek-v3",
    ):
        assert model_id in model_ids


@pytest.mark.parametrize("kind", ["gpus", "models", "offers", "providers"])
def test_every_row_has_source_and_date(catalog: Catalog, kind: str) -> None:
    for record in getattr(catalog, kind)():
        assert record.source.strip(), record.id
        assert _iso(record.observed_on), (record.id, record.observed_on)


def test_alias_rows_have_source_and_date() -> None:
    with (DATA_DIR / "aliases.csv").open(newline="") as handle:
        for row in csv.DictReader(handle):
            assert row["source"].strip() and _iso(row["observed_on"]), row


def test_offer_references_resolve(catalog: Catalog) -> None:
    data = catalog.data()
    for offer in data.offers:
        assert data.gpu(offer.gpu) is not None, offer.id
        assert data.provider(offer.provider) is not None, offer.id
        assert offer.id == f"{offer.provider}:{offer.instance_type}:{offer.region}"
        assert offer.gpus_per_node >= 1
        for price in (offer.on_demand_usd_per_hour, offer.spot_usd_per_hour, offer.reserved_usd_per_hour):
            assert price is None or price > 0, offer.id


def test_provider_kinds_and_clouds(catalog: Catalog) -> None:
    data = catalog.data()
    assert data.provider("sagemaker").cloud == "aws"  # type: ignore[union-attr]
    assert data.provider("aws").cloud == "aws"  # type: ignore[union-attr]
    managed = [o for o in data.offers if o.managed]
    assert managed and all(o.provider == "sagemaker" for o in managed)
    for provider in data.providers:
        bounds = [t.up_to_gb for t in provider.egress_tiers]
        assert bounds and bounds[-1] is None, provider.id  # the last tier is unbounded
        finite = [b for b in bounds if b is not None]
        assert finite == sorted(finite), provider.id


def test_aws_egress_reproduces_errata_7(catalog: Catalog) -> None:
    """20 x 500 GB in one month: first 100 GB free, rest at $0.09 = $891 (ERRATA 7)."""
    tiers = catalog.data().provider("aws").egress_tiers  # type: ignore[union-attr]
    volume, lower, usd = 10_000.0, 0.0, 0.0
    for tier in tiers:
        upper = float("inf") if tier.up_to_gb is None else tier.up_to_gb
        usd += max(0.0, min(volume, upper) - lower) * tier.usd_per_gb
        lower = upper
    assert usd == pytest.approx(891.0)


def test_seed_000_offers(catalog: Catalog) -> None:
    offers = {o.id: o for o in catalog.offers()}
    bare = offers["seed-baremetal:h100x1:any"]
    assert (bare.gpu, bare.on_demand_usd_per_hour) == ("h100-sxm", 2.80)
    assert catalog.data().provider("sagemaker").managed_premium_fraction == pytest.approx(0.30)  # type: ignore[union-attr]


def test_managed_premium_matches_prices(catalog: Catalog) -> None:
    offers = {o.id: o for o in catalog.offers()}
    for sm, ec2 in (("ml.g5.xlarge", "g5.xlarge"), ("ml.g4dn.xlarge", "g4dn.xlarge")):
        managed = offers[f"sagemaker:{sm}:us-east-1"]
        base = offers[f"aws:{ec2}:us-east-1"]
        assert managed.on_demand_usd_per_hour and base.on_demand_usd_per_hour
        expected = managed.on_demand_usd_per_hour / base.on_demand_usd_per_hour - 1
        assert managed.managed_premium_fraction == pytest.approx(expected, abs=5e-4)


# ERRATA 1, 2 and 10: the vendor's dense tensor figures, not the seeds' wrong ones.
@pytest.mark.parametrize(
    ("gpu_id", "field", "value"),
    [
        ("h100-sxm", "bf16_dense_tflops", 989.4),
        ("h100-sxm", "fp8_dense_tflops", 1978.9),
        ("rtx-4090", "bf16_dense_tflops", 165.2),
        ("l40s", "bf16_dense_tflops", 362.05),
        ("a100-sxm-80gb", "bf16_dense_tflops", 312.0),
    ],
)
def test_errata_figures_pinned(catalog: Catalog, gpu_id: str, field: str, value: float) -> None:
    gpu = catalog.data().gpu(gpu_id)
    assert gpu is not None
    assert getattr(gpu, field) == pytest.approx(value, rel=0.01)


def test_seed_001_wrong_figures_absent(catalog: Catalog) -> None:
    data = catalog.data()
    assert data.gpu("h100-sxm").bf16_dense_tflops != 312  # type: ignore[union-attr]
    assert data.gpu("rtx-4090").bf16_dense_tflops != 82.6  # type: ignore[union-attr]
    assert data.gpu("l40s").bf16_dense_tflops != 91.6  # type: ignore[union-attr]
    fp8 = data.gpu("h100-sxm").fp8_dense_tflops  # type: ignore[union-attr]
    assert fp8 == pytest.approx(2 * data.gpu("h100-sxm").bf16_dense_tflops, rel=0.001)  # type: ignore[union-attr]


def test_seed_001_purchase_prices(catalog: Catalog) -> None:
    """The cost-per-1M-token example needs these street prices (seed 001, approximate)."""
    data = catalog.data()
    expected = {"rtx-3090": 700, "rtx-4090": 1600, "a100-sxm-40gb": 8000, "h100-sxm": 30000}
    for gpu_id, usd in expected.items():
        gpu = data.gpu(gpu_id)
        assert gpu is not None and gpu.purchase_price_usd == usd
        assert gpu.purchase_price_source and "seed 001" in gpu.purchase_price_source


def _model_rows() -> list[dict[str, str]]:
    with (DATA_DIR / "models.csv").open(newline="") as handle:
        return list(csv.DictReader(handle))


def _opt(value: str) -> int | None:
    return int(value) if value else None


@pytest.mark.parametrize("row", _model_rows(), ids=lambda r: r["id"])
def test_params_from_architecture_match_vendor(row: dict[str, str]) -> None:
    shape = Shape(
        num_layers=int(row["num_layers"]),
        hidden_size=int(row["hidden_size"]),
        num_attention_heads=int(row["num_attention_heads"]),
        num_kv_heads=int(row["num_kv_heads"]),
        head_dim=int(row["head_dim"]),
        intermediate_size=int(row["intermediate_size"]),
        vocab_size=int(row["vocab_size"]),
        tie_word_embeddings=row["tie_word_embeddings"] == "True",
        gated_mlp=row["gated_mlp"] == "True",
        moe_intermediate_size=_opt(row["moe_intermediate_size"]),
        num_experts=_opt(row["num_experts"]),
        experts_per_token=_opt(row["experts_per_token"]),
        shared_experts=_opt(row["shared_experts"]),
        first_dense_layers=_opt(row["first_dense_layers"]),
        kv_lora_rank=_opt(row["kv_lora_rank"]),
        q_lora_rank=_opt(row["q_lora_rank"]),
        qk_rope_head_dim=_opt(row["qk_rope_head_dim"]),
    )
    total, active = count_params_b(shape)
    # the stored figures are the computed ones
    assert float(row["total_params_b"]) == pytest.approx(total, abs=0.011)
    assert float(row["active_params_b"]) == pytest.approx(active, abs=0.011)
    # and they agree with what the vendor states, within 2%
    assert total == pytest.approx(float(row["params_b_vendor"]), rel=0.02)
    if row["active_params_b_vendor"]:
        assert active == pytest.approx(float(row["active_params_b_vendor"]), rel=0.02)
    if not row["num_experts"]:
        assert total == active


def test_moe_rows_are_consistent(catalog: Catalog) -> None:
    for model in catalog.models():
        if model.num_experts:
            assert model.experts_per_token and model.active_params_b < model.total_params_b
        else:
            assert model.active_params_b == model.total_params_b


def test_offer_counts_per_provider(catalog: Catalog) -> None:
    counts = Counter(o.provider for o in catalog.offers())
    assert counts["aws"] >= 10 and counts["lambda"] >= 10 and counts["azure"] >= 2 and counts["gcp"] >= 2
