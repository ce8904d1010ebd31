"""The reviewed data files: sizes, provenance, corrected vendor figures, parameter counts and the market."""

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
    assert len(data.models) >= 55
    assert len(data.gpus) >= 32
    assert len(data.offers) >= 150
    providers_with_offers = {o.provider for o in data.offers}
    assert len(providers_with_offers) >= 12
    kinds = {p.kind for p in data.providers}
    assert {"hyperscaler", "gpu_cloud", "managed", "marketplace"} <= kinds
    assert {
        "aws", "gcp", "azure", "sagemaker", "lambda", "runpod", "coreweave", "nebius", "crusoe", "vast", "together", "oci",
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
        "b300",
        "gb300",
        "mi355x",
        "rtx-5090",
        "h20",
        "l40",
        "gaudi3",
        "rtx-pro-6000",
        "h200-nvl",
        "h800",
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
        "llama-3.3-70b",
        "llama-4-scout",
        "llama-4-maverick",
        "qwen3-32b",
        "qwen3-30b-a3b",
        "qwen3-235b-a22b",
        "qwen2.5-coder-32b",
        "qwq-32b",
        "gemma-3-27b",
        "gpt-oss-20b",
        "gpt-oss-120b",
        "phi-4",
        "mistral-small-3-24b",
        "mistral-large-2",
        "mistral-nemo-12b",
        "deepseek-v3.1",
        "deepseek-r1-distill-llama-70b",
        "deepseek-r1-distill-qwen-32b",
        "kimi-k2",
        "glm-4.5",
        "glm-4.5-air",
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


def test_aws_egress_is_tiered(catalog: Catalog) -> None:
    """20 x 500 GB in one month: first 100 GB free, rest at $0.09 = $891 (not a flat $900)."""
    tiers = catalog.data().provider("aws").egress_tiers  # type: ignore[union-attr]
    volume, lower, usd = 10_000.0, 0.0, 0.0
    for tier in tiers:
        upper = float("inf") if tier.up_to_gb is None else tier.up_to_gb
        usd += max(0.0, min(volume, upper) - lower) * tier.usd_per_gb
        lower = upper
    assert usd == pytest.approx(891.0)


def test_no_fictional_or_leaked_rows() -> None:
    """Every row cites a public source; nothing points at documents users never saw."""
    for path in sorted(DATA_DIR.iterdir()):
        text = path.read_text(encoding="utf-8").lower()
        # built from pieces so that this file does not itself name what it forbids
        for word in ("seed 0", "seed-", "err" + "ata", "shared" + "/reference", ".." + "/shared", "catalog-snapshot"):
            assert word not in text, (path.name, word)


def test_sagemaker_priced_per_family(catalog: Catalog) -> None:
    """AmazonSageMaker price list (us-east-1): 1.15x EC2 on P4/P5 after June 2025; ml.g5/g6/g6e
    +40% on 1-GPU sizes and +25% on 12xlarge/48xlarge."""
    offers = {o.id: o for o in catalog.offers()}
    assert offers["sagemaker:ml.p5.48xlarge:us-east-1"].on_demand_usd_per_hour == pytest.approx(63.296)
    assert offers["sagemaker:ml.p4d.24xlarge:us-east-1"].on_demand_usd_per_hour == pytest.approx(25.2513, abs=1e-4)
    for family in ("g5", "g6", "g6e"):
        for size, factor in (("xlarge", 1.40), ("12xlarge", 1.25), ("48xlarge", 1.25)):
            sm = offers[f"sagemaker:ml.{family}.{size}:us-east-1"]
            ec2 = offers[f"aws:{family}.{size}:us-east-1"]
            assert sm.on_demand_usd_per_hour and ec2.on_demand_usd_per_hour
            assert sm.on_demand_usd_per_hour / ec2.on_demand_usd_per_hour == pytest.approx(factor, abs=0.002), sm.id
            assert sm.gpus_per_node == ec2.gpus_per_node and sm.gpu == ec2.gpu and sm.managed
    for family in ("p5", "p4d", "p4de", "g5", "g6", "g6e"):
        assert any(o.instance_type.startswith(f"ml.{family}.") and o.on_demand_usd_per_hour for o in offers.values())


def test_single_gpus_rentable_without_a_whole_node(catalog: Catalog) -> None:
    sizes: dict[tuple[str, str], set[int]] = {}
    for o in catalog.offers():
        if o.on_demand_usd_per_hour:
            sizes.setdefault((o.provider, o.gpu), set()).add(o.gpus_per_node)
    for key in (("runpod", "h100-sxm"), ("runpod", "h200-sxm"), ("runpod", "b200"), ("runpod", "rtx-4090"),
                ("lambda", "h100-sxm"), ("lambda", "b200"), ("gcp", "h100-sxm"), ("gcp", "a100-sxm-80gb")):
        assert {1, 2, 4, 8} <= sizes[key], key


def test_inter_node_fabric_stated(catalog: Catalog) -> None:
    """Providers that sell multi-node training say over what; the rest are single nodes (None)."""
    with_fabric = {o.provider for o in catalog.offers() if o.inter_node_fabric and o.inter_node_gbps}
    assert {"aws", "gcp", "azure", "sagemaker", "lambda", "coreweave", "nebius", "oci", "crusoe", "together"} <= with_fabric
    lambda_ib = [o for o in catalog.offers() if o.provider == "lambda" and o.inter_node_fabric]
    assert lambda_ib and all("InfiniBand" in (o.inter_node_fabric or "") for o in lambda_ib)
    assert all("1-Click Cluster" in o.notes for o in lambda_ib)


def test_suspect_spot_prices_are_kept_and_flagged(catalog: Catalog) -> None:
    flagged = 0
    for o in catalog.offers():
        if o.spot_usd_per_hour and o.on_demand_usd_per_hour and o.spot_usd_per_hour < o.on_demand_usd_per_hour / 5:
            assert "suspect spot price" in o.notes, o.id
            flagged += 1
    assert flagged >= 1


def test_reserved_prices_say_their_term(catalog: Catalog) -> None:
    reserved = [o for o in catalog.offers() if o.reserved_usd_per_hour]
    assert reserved
    for o in reserved:
        assert "reserved" in o.notes.lower(), o.id
        assert o.on_demand_usd_per_hour is None or o.reserved_usd_per_hour < o.on_demand_usd_per_hour


def test_issue_models_have_their_shape(catalog: Catalog) -> None:
    data = catalog.data()
    qwen = data.model("qwen3-235b-a22b")
    assert qwen and qwen.total_params_b == pytest.approx(235, rel=0.01) and qwen.active_params_b == pytest.approx(22, rel=0.02)
    nemo = data.model("mistral-nemo-12b")
    assert nemo and nemo.max_context == 128_000
    for model_id, precision in (("gpt-oss-20b", "mxfp4"), ("gpt-oss-120b", "mxfp4"), ("deepseek-v3", "fp8"),
                                ("deepseek-v3.1", "fp8"), ("deepseek-r1", "fp8"), ("kimi-k2", "fp8"), ("llama-3.3-70b", "bf16")):
        model = data.model(model_id)
        assert model and model.native_precision == precision, model_id
    assert {m.native_precision for m in data.models} <= {"bf16", "fp8", "mxfp4", "int4"}
    large, small = data.model("mistral-large-2"), data.model("mistral-small-3-24b")
    assert large and large.total_params_b == pytest.approx(123, rel=0.01)
    assert small and small.total_params_b == pytest.approx(24, rel=0.02)


def test_managed_premium_matches_prices(catalog: Catalog) -> None:
    offers = {o.id: o for o in catalog.offers()}
    for sm, ec2 in (("ml.g5.xlarge", "g5.xlarge"), ("ml.g4dn.xlarge", "g4dn.xlarge")):
        managed = offers[f"sagemaker:{sm}:us-east-1"]
        base = offers[f"aws:{ec2}:us-east-1"]
        assert managed.on_demand_usd_per_hour and base.on_demand_usd_per_hour
        expected = managed.on_demand_usd_per_hour / base.on_demand_usd_per_hour - 1
        assert managed.managed_premium_fraction == pytest.approx(expected, abs=5e-4)


# The vendor's dense tensor figures, not the figures often misquoted (A100's 312 for the H100, FP32 shader rates).
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
def test_vendor_dense_figures_pinned(catalog: Catalog, gpu_id: str, field: str, value: float) -> None:
    gpu = catalog.data().gpu(gpu_id)
    assert gpu is not None
    assert getattr(gpu, field) == pytest.approx(value, rel=0.01)


def test_misquoted_figures_absent(catalog: Catalog) -> None:
    data = catalog.data()
    assert data.gpu("h100-sxm").bf16_dense_tflops != 312  # type: ignore[union-attr]
    assert data.gpu("rtx-4090").bf16_dense_tflops != 82.6  # type: ignore[union-attr]
    assert data.gpu("l40s").bf16_dense_tflops != 91.6  # type: ignore[union-attr]
    fp8 = data.gpu("h100-sxm").fp8_dense_tflops  # type: ignore[union-attr]
    assert fp8 == pytest.approx(2 * data.gpu("h100-sxm").bf16_dense_tflops, rel=0.001)  # type: ignore[union-attr]


def test_h800_is_an_h100_sxm5_with_its_nvlink_cut(catalog: Catalog) -> None:
    """DeepSeek-V3's GPU: the H100 SXM5's die, memory and tensor rates, NVLink cut from 900 to 400 GB/s (DeepSeek-AI,
    arXiv 2505.09343). No provider rents it and NVIDIA gave no list price: planned as the user's own, at its power."""
    data = catalog.data()
    h800, h100 = data.gpu("h800"), data.gpu("h100-sxm")
    assert h800 is not None and h100 is not None
    for field in ("memory_gb", "memory_bandwidth_tb_s", "bf16_dense_tflops", "fp8_dense_tflops", "tdp_w",
                  "compute_capability", "architecture"):
        assert getattr(h800, field) == getattr(h100, field), field
    assert h800.scaleup_bandwidth_gb_s == 400 and h100.scaleup_bandwidth_gb_s == 900
    assert h800.scaleup_link.startswith("NVLink")  # an all-to-all NVSwitch node, slower: not PCIe
    assert not any(o.gpu == "h800" for o in data.offers) and h800.purchase_price_usd is None
    assert "2412.19437" in h800.source and "2505.09343" in h800.source


def test_purchase_prices(catalog: Catalog) -> None:
    """The cost-per-1M-token comparison of owned cards needs these street prices (approximate)."""
    data = catalog.data()
    expected = {"rtx-3090": 700, "rtx-4090": 1600, "a100-sxm-40gb": 8000, "h100-sxm": 30000, "rtx-3060": 329,
                "rtx-4060": 299, "rtx-4060-ti-16gb": 499, "rtx-4070": 599, "rtx-4080": 1199}
    for gpu_id, usd in expected.items():
        gpu = data.gpu(gpu_id)
        assert gpu is not None and gpu.purchase_price_usd == usd
        assert gpu.purchase_price_source


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
    assert counts["aws"] >= 10 and counts["lambda"] >= 10 and counts["azure"] >= 2 and counts["gcp"] >= 10
    assert counts["runpod"] >= 30 and counts["sagemaker"] >= 10


def test_local_only_cards_are_rented_nowhere(catalog: Catalog) -> None:
    """The GeForce cards added for local questions (8-16 GB) have no offer: rented plans never see them."""
    data = catalog.data()
    rented = {o.gpu for o in data.offers}
    for gpu_id, memory in {"rtx-3060": 12, "rtx-4060": 8, "rtx-4060-ti-16gb": 16, "rtx-4070": 12, "rtx-4080": 16}.items():
        gpu = data.gpu(gpu_id)
        assert gpu is not None and gpu.tier == "consumer" and gpu.memory_gb == memory
        assert gpu_id not in rented
