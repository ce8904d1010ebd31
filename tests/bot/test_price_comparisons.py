"""A price question naming several providers lists every one's rows in one table, and says which has no offer."""

from __future__ import annotations

from bot.prices import build_price_table
from catalog.query import price_offers
from tests.catalog.test_price_offers import offer

NAMES = {"coreweave": "CoreWeave", "lambda": "Lambda", "nebius": "Nebius AI Cloud", "h200-sxm": "H200 SXM 141GB"}
OFFERS = [
    offer("coreweave", "hgx-h200", "h200-sxm", 8, 50.44),
    offer("nebius", "gpu-h200-sxm_8gpu", "h200-sxm", 8, 28.0),
    offer("vast", "8x-h200", "h200-sxm", 8, 20.0),
    offer("lambda", "gpu_8x_h100_sxm5", "h100-sxm", 8, 31.92),
]


def test_price_offers_keeps_every_provider_named() -> None:
    offers, widened = price_offers(OFFERS, gpus=("h200-sxm",), providers=("coreweave", "lambda", "nebius"))
    assert {o.provider for o in offers} == {"coreweave", "nebius"} and widened == []


def test_the_table_lists_each_provider_and_the_one_without_the_gpu() -> None:
    query = {"gpu": "h200-sxm", "gpu_count": 8, "providers": ("coreweave", "lambda", "nebius")}
    offers, widened = price_offers(OFFERS, gpus=("h200-sxm",), gpus_per_node=8)  # as the bot asks: no provider
    table = build_price_table(offers, widened, query, ("h200-sxm",), NAMES)
    assert {line.provider for line in table.lines} == {"coreweave", "nebius"}  # not Vast.ai: not named
    assert table.title == "8x H200 SXM 141GB prices at CoreWeave, Lambda and Nebius AI Cloud"
    assert table.answer == "H200 SXM 141GB on demand, per GPU-hour: CoreWeave $6.30, Nebius AI Cloud $3.50."
    assert "The catalog has no Lambda offer for H200 SXM 141GB." in table.notes


def test_none_of_them_renting_it_shows_the_others() -> None:
    query = {"gpu": "h200-sxm", "providers": ("lambda", "runpod")}
    offers, widened = price_offers(OFFERS, gpus=("h200-sxm",))
    table = build_price_table(offers, widened, query, ("h200-sxm",), NAMES)
    assert table.lines and table.answer.startswith("The catalog has no Lambda offer")


def test_price_kinds_compared_say_the_kind_missing() -> None:
    offers, widened = price_offers(OFFERS, gpus=("h200-sxm",), provider="coreweave")
    table = build_price_table(offers, widened, {"gpu": "h200-sxm", "provider": "coreweave",
                                                "compared_pricing": ("reserved", "on_demand")}, ("h200-sxm",), NAMES)
    # no published reserved price: estimated as the plans price it, and said to be an estimate
    assert [(line.pricing, line.estimated) for line in table.lines] == [("on_demand", False), ("reserved", True)]
    assert any(n.startswith("“reserved (est.)”: no published commitment price") for n in table.notes)
