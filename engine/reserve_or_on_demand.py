"""Reserve N GPUs for a term or rent them on demand for the hours they are busy: "is it cheaper to reserve 8xH100 for a
year or use on-demand for 6 hrs a day?".

Arithmetic on catalog rows, no workload. A reservation is paid around the clock (730 h a month, busy or not) at the
reserved rate; on demand is paid for the busy hours only. So reserving costs less from the busy share
reserved rate / on-demand rate (engine.tco.ReservedCommitment's `break_even`: 70% at the 30% estimated discount),
i.e. from 24 x that share hours a day. A month is 730 h (365/12 days of 24 h, 30.4 days), as everywhere else.

Rates per provider come from the catalog's offers as the plans price them (`engine.tco.node_usd_per_hour`): the
reserved price an offer publishes, else on-demand less RESERVED_DISCOUNT_ASSUMED (said as an estimate). Marketplace
hosts sell no commitments and managed services bill a premium on top, so only providers with an SLA are weighed
(`buy_or_rent.sla_rate`'s rule). A published reserved price says its term where the offer's notes do ("reserved
(7-30+ days)"): the term a rate is for is part of the answer, since a year's commitment is quoted per contract.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Literal

from catalog.records import CatalogData, OfferRecord
from engine.tco import RESERVED_DISCOUNT_ASSUMED, node_usd_per_hour
from engine.units import HOURS_PER_MONTH

HOURS_PER_DAY = 24.0
DAYS_PER_MONTH = HOURS_PER_MONTH / HOURS_PER_DAY  # 30.4: a 730-hour month
# The deep end of published 1-3 year commitments (AWS Savings Plans / EC2 reserved, GCP committed use, Azure
# reservations run 30-50% below on-demand; longer terms toward the deep end): where the catalog publishes no reserved
# price, the answer says where reserving would pay from at this discount too, since the 30% it assumes is the low end.
RESERVED_DISCOUNT_DEEP = 0.50
DEFAULT_TERM_YEARS = 1.0
NOT_WEIGHED = ("marketplace", "managed", "owned")  # no commitments sold, or a premium billed on top
_TERM_NOTE = re.compile(r"\breserved \(([^)]*?\d[^)]*)\)", re.IGNORECASE)

Pick = Literal["reserve", "on_demand"]


@dataclass(frozen=True)
class ProviderRates:
    """One provider's two bills for the GPUs asked, at its cheapest offer of that GPU per GPU-hour on demand."""

    provider: str  # provider id
    provider_name: str
    offer_id: str
    gpus_per_node: int
    gpus_billed: int  # the GPUs asked, rounded up to whole nodes of the offer
    on_demand_usd_per_gpu_hour: float
    reserved_usd_per_gpu_hour: float
    reserved_published: bool  # False: on-demand less RESERVED_DISCOUNT_ASSUMED
    reserved_term: str | None  # the term the published rate is for, as the offer says it ("7-30+ days")
    source: str
    observed_on: str
    on_demand_usd_per_month: float | None  # the busy hours only (None: no use said)
    reserved_usd_per_month: float  # all 730 h, busy or not

    @property
    def break_even_share(self) -> float:
        """The busy share from which reserving costs less here: reserved / on-demand (1 at most)."""
        return min(1.0, self.reserved_usd_per_gpu_hour / self.on_demand_usd_per_gpu_hour)

    @property
    def break_even_hours_per_day(self) -> float:
        return HOURS_PER_DAY * self.break_even_share

    @property
    def cheaper_usd_per_month(self) -> float:
        return min(self.reserved_usd_per_month, self.on_demand_usd_per_month
                   if self.on_demand_usd_per_month is not None else math.inf)


@dataclass(frozen=True)
class ReserveOrOnDemand:
    """The GPUs asked about, the use said (`hours_per_day`: None when not said) and the term, and each provider's two
    bills, cheapest first. `pick` and the break-even weigh the cheapest on-demand bill against the cheapest reserved
    one (they may be at different providers)."""

    gpu: str
    gpu_name: str
    gpus: int
    hours_per_day: float | None
    term_years: float
    rows: tuple[ProviderRates, ...]

    @property
    def on_demand(self) -> ProviderRates | None:
        """The provider whose on-demand rate is the cheapest per GPU-hour (the cheapest bill at any use)."""
        return min(self.rows, key=lambda r: (r.on_demand_usd_per_gpu_hour * r.gpus_billed, r.provider), default=None)

    @property
    def reserved(self) -> ProviderRates | None:
        return min(self.rows, key=lambda r: (r.reserved_usd_per_month, not r.reserved_published, r.provider),
                   default=None)

    @property
    def break_even_hours_per_day(self) -> float | None:
        """Hours a day from which the cheapest reservation costs less than the cheapest on-demand rate for them."""
        od, res = self.on_demand, self.reserved
        if od is None or res is None:
            return None
        share = (res.reserved_usd_per_gpu_hour * res.gpus_billed) / (od.on_demand_usd_per_gpu_hour * od.gpus_billed)
        return HOURS_PER_DAY * min(1.0, share)

    @property
    def pick(self) -> Pick | None:
        """"reserve" when the cheapest reservation's month costs less than the cheapest on-demand month at the use
        said; None with no use said or no rows."""
        od, res = self.on_demand, self.reserved
        if od is None or res is None or od.on_demand_usd_per_month is None:
            return None
        return "reserve" if res.reserved_usd_per_month < od.on_demand_usd_per_month else "on_demand"

    @property
    def deep_break_even_hours_per_day(self) -> float:
        """Hours a day from which reserving pays at the deep end of published commitments (RESERVED_DISCOUNT_DEEP)."""
        return HOURS_PER_DAY * (1 - RESERVED_DISCOUNT_DEEP)

    @property
    def commitment_usd(self) -> float | None:
        """What the cheapest reservation commits to over the term (its month x 12 x years)."""
        res = self.reserved
        return res.reserved_usd_per_month * 12 * self.term_years if res is not None else None


def reserved_term(offer: OfferRecord) -> str | None:
    """The term a published reserved price is for, as the offer's notes say it ("reserved (7-30+ days) $2.99"):
    None when they do not say one."""
    found = _TERM_NOTE.search(offer.notes or "")
    return found.group(1).strip() if found else None


def _provider_rates(offers: list[OfferRecord], gpus: int, hours_per_day: float | None,
                    name: str) -> ProviderRates | None:
    """The provider's offer of the GPU with the cheapest on-demand bill for `gpus` (whole nodes), and its two bills."""
    priced = []
    for offer in offers:
        per_node = offer.on_demand_usd_per_hour
        reserved_node = node_usd_per_hour(offer, "reserved")
        if not per_node or per_node <= 0 or not reserved_node or offer.gpus_per_node <= 0:
            continue
        billed = math.ceil(gpus / offer.gpus_per_node) * offer.gpus_per_node
        priced.append((per_node / offer.gpus_per_node * billed, offer.reserved_usd_per_hour is None, offer.id, offer,
                       billed, reserved_node))
    if not priced:
        return None
    _, _, _, offer, billed, reserved_node = min(priced, key=lambda p: p[:3])
    on_demand = float(offer.on_demand_usd_per_hour or 0.0) / offer.gpus_per_node
    reserved = reserved_node / offer.gpus_per_node
    return ProviderRates(
        provider=offer.provider, provider_name=name, offer_id=offer.id, gpus_per_node=offer.gpus_per_node,
        gpus_billed=billed, on_demand_usd_per_gpu_hour=on_demand, reserved_usd_per_gpu_hour=reserved,
        reserved_published=offer.reserved_usd_per_hour is not None,
        reserved_term=reserved_term(offer) if offer.reserved_usd_per_hour is not None else None,
        source=offer.source, observed_on=offer.observed_on,
        on_demand_usd_per_month=(on_demand * billed * hours_per_day * DAYS_PER_MONTH
                                 if hours_per_day is not None else None),
        reserved_usd_per_month=reserved * billed * HOURS_PER_MONTH)


def reserve_or_on_demand(gpu_id: str, gpus: int, data: CatalogData, *, hours_per_day: float | None = None,
                         term_years: float = DEFAULT_TERM_YEARS) -> ReserveOrOnDemand:
    """Both monthly bills for `gpus` of this GPU at every provider with an SLA that rents it, cheapest first (the
    cheaper of its two bills at the use said; its reserved bill with no use said). `hours_per_day` is the busy
    hours a day on average (40% of the time is 9.6), capped at 24."""
    hours = None if hours_per_day is None else min(HOURS_PER_DAY, max(0.0, hours_per_day))
    gpu = data.gpu(gpu_id)
    by_provider: dict[str, list[OfferRecord]] = {}
    for offer in data.offers:
        if offer.gpu == gpu_id and not offer.managed:
            by_provider.setdefault(offer.provider, []).append(offer)
    rows = []
    for provider_id, offers in by_provider.items():
        provider = data.provider(provider_id)
        if provider is None or provider.kind in NOT_WEIGHED:
            continue
        row = _provider_rates(offers, max(1, gpus), hours, provider.name)
        if row is not None:
            rows.append(row)
    rows.sort(key=lambda r: (r.cheaper_usd_per_month, r.reserved_usd_per_month, r.provider))
    return ReserveOrOnDemand(gpu=gpu_id, gpu_name=gpu.name if gpu is not None else gpu_id, gpus=max(1, gpus),
                             hours_per_day=hours, term_years=term_years, rows=tuple(rows))


__all__ = ["DAYS_PER_MONTH", "DEFAULT_TERM_YEARS", "RESERVED_DISCOUNT_ASSUMED", "RESERVED_DISCOUNT_DEEP",
           "ProviderRates", "ReserveOrOnDemand", "reserve_or_on_demand", "reserved_term"]
