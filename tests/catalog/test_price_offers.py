"""`catalog.query.price_offers`: the offers a price question asks about, over hand-made records so the
checks do not move when the bundled prices are refreshed."""

from __future__ import annotations

from catalog.query import price_offers
from catalog.records import OfferRecord


def offer(provider: str, instance: str, gpu: str, gpus: int, on_demand: float | None, **extra: object) -> OfferRecord:
    return OfferRecord(id=f"{provider}:{instance}:r", provider=provider, instance_type=instance, gpu=gpu,
                       gpus_per_node=gpus, intra_node_link="NVLink", inter_node_fabric=None, inter_node_gbps=None,
                       on_demand_usd_per_hour=on_demand, region="r", source="https://example.com/pricing",
                       observed_on="2026-11-01", **extra)


OFFERS = [
    offer("aws", "p5.48xlarge", "h100-sxm", 8, 55.04, spot_usd_per_hour=12.0),
    offer("aws", "p5.4xlarge", "h100-sxm", 1, 6.88),
    offer("lambda", "gpu_1x_h100_pcie", "h100-pcie", 1, 3.29),
    offer("lambda", "gpu_8x_h100_sxm5", "h100-sxm", 8, 31.92),
    offer("sagemaker", "ml.p5.48xlarge", "h100-sxm", 8, None),
    offer("runpod", "1x_A100", "a100-sxm-80gb", 1, 1.64),
]


def test_family_and_provider_narrow_cheapest_gpu_hour_first() -> None:
    found, widened = price_offers(OFFERS, gpus=("h100-sxm", "h100-pcie"), provider="aws")
    assert [o.instance_type for o in found] == ["p5.48xlarge", "p5.4xlarge"]  # $6.88 per GPU-h tie: by id
    assert widened == []
    found, _ = price_offers(OFFERS, gpus=("h100-sxm", "h100-pcie"))
    assert [o.instance_type for o in found][:2] == ["gpu_1x_h100_pcie", "gpu_8x_h100_sxm5"]
    assert found[-1].instance_type == "ml.p5.48xlarge"  # no published price: last, still listed


def test_instance_size_filters_when_it_exists_and_widens_when_not() -> None:
    found, widened = price_offers(OFFERS, gpus=("h100-sxm",), gpus_per_node=8, provider="lambda")
    assert [o.instance_type for o in found] == ["gpu_8x_h100_sxm5"] and widened == []
    found, widened = price_offers(OFFERS, gpus=("h100-sxm",), gpus_per_node=4, provider="aws")
    assert {o.instance_type for o in found} == {"p5.48xlarge", "p5.4xlarge"} and widened == ["gpus_per_node"]


def test_a_provider_without_the_gpu_widens_to_the_others() -> None:
    found, widened = price_offers(OFFERS, gpus=("a100-sxm-80gb",), provider="aws")
    assert [o.provider for o in found] == ["runpod"] and widened == ["provider"]
    found, widened = price_offers(OFFERS, gpus=("rtx-4090",), provider="runpod")
    assert found == [] and widened == []


def test_a_provider_alone_lists_its_offers() -> None:
    found, _ = price_offers(OFFERS, provider="lambda")
    assert [o.instance_type for o in found] == ["gpu_1x_h100_pcie", "gpu_8x_h100_sxm5"]
