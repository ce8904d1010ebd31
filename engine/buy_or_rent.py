"""Buy or rent N GPUs of one type, with no workload: "should we buy or rent 8 H100s?", "is a DGX H100 cheaper to buy?".

The break-even needs no model. Owning costs the servers (the GPUs' street price x SERVER_COST_FACTOR for CPUs, memory,
NICs and chassis), their power with cooling while busy (engine.recommend's SERVER_POWER_FACTOR x TDP x PUE, at a
$/kWh) and colocation space for their whole draw every month, busy or not. Renting costs the cheapest on-demand rate at
a provider with an SLA (what a team would run on for years; a marketplace host is one machine with no SLA), and, for
hardware kept busy for years, 1-3 year reserved capacity at engine.tco's RESERVED_DISCOUNT_ASSUMED below it.

Owned GPUs are sold at the end: the GPUs resell for a share of their purchase price that falls with their age
(`resale_share`: 20% after 3 years unless the user says "no resale" or "resale 30%"), the rest of the server for
nothing. Written down to $0, a server kept busy for years loses to reserved capacity by less than the spread of the
GPU's own street price, so the resale and that spread are part of the answer, not a footnote.

With a share `utilisation` of the calendar busy, owning breaks even after T calendar hours where
    hardware - resale(T) = T x (utilisation x (rent - power) - space)
(one crossing: resale(T) is convex and falling), which at utilisation 1 is the "busy hours around the clock" the
answer's buy-vs-rent note gives for a plan (engine.advise._break_even_note calls `busy_hours_to_break_even`).
Every figure is an estimate and says its inputs; networking and staff are not counted.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

from catalog.records import CatalogData, GpuRecord
from engine.models import Figure
from engine.recommend import PUE, SERVER_POWER_FACTOR, USD_PER_KWH
from engine.tco import RESERVED_DISCOUNT_ASSUMED
from engine.units import HOURS_PER_MONTH, HOURS_PER_YEAR, figure

# Owning means owning the server, not only its GPUs: CPUs, memory, NICs, NVSwitch baseboard and chassis add
# about half the GPUs' price (8-GPU HGX/DGX H100 systems were reported at ~$370k-400k against ~$30k a GPU).
# Its power (server share and cooling) is engine.recommend's, the same as an owned GPU's. Estimates, stated.
SERVER_COST_FACTOR = 1.5
# Wholesale colocation, USD per kW of IT capacity per month, power billed on top: the average asking rate for a 250-500 kW
# requirement across North America's primary markets (CBRE, North America Data Center Trends H2 2024, published
# 2025-02-26: $184.06, up 12.6% in a year). Owned servers rent it for their whole draw whether busy or not.
COLO_USD_PER_KW_MONTH = 184.06
DEFAULT_YEARS = 3.0  # the usual depreciation period of a GPU server, and the longest reserved term sold
DEFAULT_UTILISATION = 1.0  # busy around the clock unless the user says: the most favourable case for owning
# What the GPUs resell for after DEFAULT_YEARS, as a share of their purchase price (the rest of the server: $0), and
# the same share lost every year around it (58% after 1 year, 7% after 5). Used datacenter GPUs years after launch:
# A100 80GB, ~$10k-$15k new in 2020, used $4k-$9k in 2026 (aitooldiscovery.com/ai-infra/nvidia-a100-specs-price), about
# 30-60% at six years through an AI boom; V100, ~$8k-$11k new in 2017, decommissioned SXM2 modules from ~$60 (16 GB) to
# ~$450 (32 GB) in 2025-26 (r/LocalLLaMA on Summit's retired V100s), under 5% at eight; used H100 $15k-$28k in 2026
# against $25k-$40k new (computeforecast.com, citing Silicon Data's listings: values fall faster after ~2 years). A GPU
# bought today is sold two generations on, so 20% sits below every boom-era figure: an estimate, said and settable.
RESALE_SHARE_DEFAULT = 0.20
RESALE_BASIS = "used A100s fetch ~30-60% of their 2020 price six years on, V100s under 5% after eight"
# The GPU price's spread where its source gives no range ("approximate street price"): the verdict is a close call
# when the cheapest rental falls inside the owning cost at either end of the spread.
PRICE_SPREAD_ASSUMED = 0.25
_RANGE = re.compile(r"\$(\d+(?:\.\d+)?)k ?[-\u2013] ?\$?(\d+(?:\.\d+)?)k\b")


def resale_share(years_owned: float, *, said: float | None = None, horizon: float = DEFAULT_YEARS) -> float:
    """The share of the GPUs' purchase price they resell for after `years_owned`: the same share lost every year,
    through 20% at 3 years (RESALE_SHARE_DEFAULT), or through the share the user `said` for the end of `horizon`
    ("resale 30%" over 3 years: 30% then); "no resale" (0) is 0 from the first day."""
    if years_owned <= 0:
        return 1.0
    share, at = (RESALE_SHARE_DEFAULT, DEFAULT_YEARS) if said is None else (min(max(said, 0.0), 1.0), horizon)
    return float(share ** (years_owned / at)) if share > 0 else 0.0


def price_range(gpu: GpuRecord) -> tuple[float, float, bool]:
    """(low, high, published) USD per GPU: the widest "$25k-$40k" its price source quotes (the catalog's price kept
    inside), else the price +-PRICE_SPREAD_ASSUMED (published False)."""
    price = float(gpu.purchase_price_usd or 0.0)
    found = [(float(a) * 1e3, float(b) * 1e3) for a, b in _RANGE.findall(gpu.purchase_price_source or "")]
    found = [(lo, hi) for lo, hi in found if lo <= hi]
    if not found or price <= 0:
        return price * (1 - PRICE_SPREAD_ASSUMED), price * (1 + PRICE_SPREAD_ASSUMED), False
    return min(price, min(lo for lo, _ in found)), max(price, max(hi for _, hi in found)), True


def _hours_to_break_even(hardware: float, gpus_usd: float, margin_per_hour: float,
                         share: Callable[[float], float]) -> float:
    """Calendar hours T at which margin x T covers the servers less what their GPUs resell for then:
    hardware - gpus_usd x share(T in years) = margin x T (math.inf when the margin is not positive). The left side is
    convex and falling and starts above 0 (the rest of the server never resells), so there is one crossing, found by
    bisection below hardware / margin."""
    if margin_per_hour <= 0:
        return math.inf

    def gap(hours: float) -> float:
        return margin_per_hour * hours - (hardware - gpus_usd * share(hours / HOURS_PER_YEAR))

    low, high = 0.0, hardware / margin_per_hour
    if gap(high) <= 0:
        return high
    for _ in range(80):
        mid = (low + high) / 2
        low, high = (mid, high) if gap(mid) < 0 else (low, mid)
    return high


def sla_rate(gpu_id: str, data: CatalogData) -> tuple[float, str] | None:
    """The cheapest on-demand USD per GPU-hour for this GPU at a provider with an SLA (not a marketplace host,
    not a managed service), and the provider's name: what a team weighing a purchase would rent instead."""
    best: tuple[float, str] | None = None
    for offer in data.offers:
        if offer.gpu != gpu_id or not offer.on_demand_usd_per_hour:
            continue  # the other GPUs' rows first: looking their provider up would cost more than the rest
        provider = data.provider(offer.provider)
        if provider is None or provider.kind in ("marketplace", "managed", "owned"):
            continue
        rate = offer.on_demand_usd_per_hour / offer.gpus_per_node
        if best is None or rate < best[0]:
            best = (rate, provider.name)
    return best


def server_usd(gpu: GpuRecord, gpus: int) -> float:
    """What `gpus` of this GPU cost as servers: the street price per GPU x SERVER_COST_FACTOR (0 without a price)."""
    return float(gpu.purchase_price_usd or 0.0) * gpus * SERVER_COST_FACTOR


def server_kw(gpu: GpuRecord, gpus: int) -> float:
    """The IT load of the servers (GPU TDP x SERVER_POWER_FACTOR), which a colocation contract is sized by."""
    return (gpu.tdp_w or 0.0) * SERVER_POWER_FACTOR * gpus / 1000


def busy_hours_to_break_even(gpu: GpuRecord, gpus: int, usd_per_gpu_hour: float, *, utilisation: float = 1.0,
                             usd_per_kwh: float = USD_PER_KWH, resale: float | None = None,
                             years: float = DEFAULT_YEARS) -> Figure:
    """Busy hours after which owning `gpus` of this GPU, sold then for `resale_share` of its price, costs less than
    renting them at `usd_per_gpu_hour`, with `utilisation` of the calendar busy (space is paid for the idle hours too,
    so its share per busy hour grows as utilisation falls). 0 with a note when the rent never covers the power and
    space."""
    kw = server_kw(gpu, gpus)
    power = kw * PUE * usd_per_kwh  # per busy hour
    space = kw * COLO_USD_PER_KW_MONTH / HOURS_PER_MONTH  # per calendar hour
    margin = utilisation * (usd_per_gpu_hour * gpus - power) - space  # per calendar hour
    gpus_usd = float(gpu.purchase_price_usd or 0.0) * gpus
    calendar = _hours_to_break_even(server_usd(gpu, gpus), gpus_usd, margin,
                                    lambda t: resale_share(t, said=resale, horizon=years))
    never = not math.isfinite(calendar)
    return figure(0.0 if never else calendar * utilisation, "hours",
                  "hardware - GPUs x resale share(T) = T x (utilisation x (rent - power) - colocation)",
                  {"hardware_cost_usd": server_usd(gpu, gpus), "gpus_usd": gpus_usd,
                   "rent_usd_per_hour": usd_per_gpu_hour * gpus, "power_usd_per_hour": power,
                   "space_usd_per_hour": space, "utilisation": utilisation,
                   "resale_share_at_break_even": 0.0 if never else resale_share(calendar / HOURS_PER_YEAR, said=resale,
                                                                               horizon=years)},
                  ("renting never costs more than the power and space: owning never breaks even",) if never else (),
                  digits=0)


@dataclass(frozen=True)
class BreakEven:
    """Owning `gpus` of one GPU type against renting them, at the assumptions said (`utilisation`, `usd_per_kwh`,
    `years`, `resale_share`). Months are calendar months at that utilisation (math.inf: never), counting what the
    GPUs would resell for then; USD totals are over `years`."""

    gpu: str
    gpu_name: str
    gpus: int
    purchase_usd_per_gpu: float
    purchase_source: str
    hardware_usd: float  # the servers: GPUs x SERVER_COST_FACTOR
    server_kw: float
    power_usd_per_month: float  # at the utilisation
    space_usd_per_month: float
    rent_usd_per_gpu_hour: float  # on-demand, the cheapest with an SLA (or any, `rent_sla` False)
    rent_provider: str
    rent_sla: bool
    reserved_usd_per_gpu_hour: float
    utilisation: float
    usd_per_kwh: float
    years: float
    months_on_demand: float
    months_reserved: float
    own_usd: float  # over `years`: hardware + power + space - resale
    on_demand_usd: float  # over `years`, busy hours only
    reserved_usd: float  # over `years`: reserved capacity is paid for every hour, busy or not
    min_utilisation: float | None  # the utilisation from which owning beats reserved within `years` (None: never)
    resale_share: float = 0.0  # of the GPUs' purchase price, at the end of `years`
    resale_said: bool = False  # the user said it ("no resale", "resale 30%"); else RESALE_SHARE_DEFAULT's curve
    resale_usd: float = 0.0  # what the GPUs resell for at the end of `years`
    price_low_usd: float = 0.0  # the GPU price's spread (`price_range`), per GPU
    price_high_usd: float = 0.0
    price_range_published: bool = False  # the spread is the price source's own, not PRICE_SPREAD_ASSUMED
    own_low_usd: float = 0.0  # `own_usd` at either end of the spread (the resale scales with the price)
    own_high_usd: float = 0.0

    @property
    def best_rent_usd(self) -> float:
        return min(self.on_demand_usd, self.reserved_usd)

    @property
    def verdict(self) -> str:
        """"buy" when owning is cheaper than both rentals over the years said, else "rent"."""
        return "buy" if self.own_usd < self.best_rent_usd else "rent"

    @property
    def close(self) -> bool:
        """The verdict flips inside the GPU price's own spread: a close call, not a categorical answer."""
        return self.own_low_usd <= self.best_rent_usd <= self.own_high_usd

    @property
    def own_before_resale_usd(self) -> float:
        return self.own_usd + self.resale_usd

    @property
    def resale_to_flip_usd_per_gpu(self) -> float:
        """The resale per GPU at the end of `years` at which owning costs what the cheapest rental does: above it
        owning wins. Below 0: owning wins with no resale; above the purchase price: no resale makes owning win."""
        return (self.own_before_resale_usd - self.best_rent_usd) / self.gpus


def break_even(gpu: GpuRecord, gpus: int, data: CatalogData, *, utilisation: float = DEFAULT_UTILISATION,
               usd_per_kwh: float = USD_PER_KWH, years: float = DEFAULT_YEARS,
               resale: float | None = None) -> BreakEven | None:
    """Buy or rent `gpus` of this GPU (None when the GPU has no purchase price or nobody in the catalog rents it).
    `resale`: the share of the GPUs' price they resell for after `years` (None: `resale_share`'s 20% at 3 years)."""
    sla = sla_rate(gpu.id, data)
    rent_sla = sla is not None
    if sla is None:  # only marketplace or managed rentals: the cheapest of them, said as such
        rates = [(o.on_demand_usd_per_hour / o.gpus_per_node, getattr(data.provider(o.provider), "name", o.provider))
                 for o in data.offers if o.gpu == gpu.id and o.on_demand_usd_per_hour]
        sla = min(rates) if rates else None
    if sla is None:
        return None
    rate, provider = sla
    return break_even_at(gpu, gpus, rate, str(provider), rent_sla=rent_sla, utilisation=utilisation,
                         usd_per_kwh=usd_per_kwh, years=years, resale=resale)


def break_even_at(gpu: GpuRecord, gpus: int, rate: float, provider: str = "", *, rent_sla: bool = True,
                  reserved_rate: float | None = None, utilisation: float = DEFAULT_UTILISATION,
                  usd_per_kwh: float = USD_PER_KWH, years: float = DEFAULT_YEARS,
                  resale: float | None = None) -> BreakEven | None:
    """Buy or rent `gpus` of this GPU against `rate` USD per GPU-hour on demand and `reserved_rate` for 1-3 year
    capacity (None: RESERVED_DISCOUNT_ASSUMED below `rate`): the plan's buy-vs-rent note and the no-model answer
    weigh the same inputs here. None without a purchase price or with inputs out of range."""
    if (not gpu.purchase_price_usd or gpus < 1 or not 0 < utilisation <= 1 or years <= 0 or usd_per_kwh < 0
            or rate <= 0 or (resale is not None and not 0 <= resale <= 1)):
        return None
    reserved_rate = rate * (1 - RESERVED_DISCOUNT_ASSUMED) if reserved_rate is None else reserved_rate
    price = float(gpu.purchase_price_usd)
    hardware = server_usd(gpu, gpus)
    kw = server_kw(gpu, gpus)
    space_month = kw * COLO_USD_PER_KW_MONTH
    space_hour = space_month / HOURS_PER_MONTH
    power_busy_hour = kw * PUE * usd_per_kwh  # the whole server with cooling, per busy hour
    hours = years * HOURS_PER_YEAR
    share_end = resale_share(years, said=resale, horizon=years)

    def share(years_owned: float) -> float:
        return resale_share(years_owned, said=resale, horizon=years)

    def months(usd_per_gpu_hour: float, reserved: bool) -> float:
        # reserved capacity is paid every hour: owning competes with it at the idle hours too
        rent_hour = usd_per_gpu_hour * gpus * (1.0 if reserved else utilisation)
        margin = rent_hour - utilisation * power_busy_hour - space_hour
        return _hours_to_break_even(hardware, price * gpus, margin, share) / HOURS_PER_MONTH

    running = (utilisation * power_busy_hour + space_hour) * hours
    resold = price * gpus * share_end

    def own_at(usd_per_gpu: float) -> float:  # the servers and their resale scale with the GPU price; power does not
        return usd_per_gpu * gpus * (SERVER_COST_FACTOR - share_end) + running

    low, high, published = price_range(gpu)
    return BreakEven(
        gpu=gpu.id, gpu_name=gpu.name, gpus=gpus, purchase_usd_per_gpu=price,
        purchase_source=gpu.purchase_price_source or gpu.source, hardware_usd=hardware, server_kw=kw,
        power_usd_per_month=utilisation * power_busy_hour * HOURS_PER_MONTH, space_usd_per_month=space_month,
        rent_usd_per_gpu_hour=rate, rent_provider=provider, rent_sla=rent_sla,
        reserved_usd_per_gpu_hour=reserved_rate, utilisation=utilisation, usd_per_kwh=usd_per_kwh, years=years,
        months_on_demand=months(rate, False), months_reserved=months(reserved_rate, True), own_usd=own_at(price),
        on_demand_usd=rate * gpus * utilisation * hours, reserved_usd=reserved_rate * gpus * hours,
        min_utilisation=_owning_from(hardware - resold, space_hour, power_busy_hour, rate * gpus, reserved_rate * gpus,
                                     hours),
        resale_share=share_end, resale_said=resale is not None, resale_usd=resold, price_low_usd=low,
        price_high_usd=high, price_range_published=published, own_low_usd=own_at(low), own_high_usd=own_at(high))


def _owning_from(hardware: float, space_hour: float, power_hour: float, rent_hour: float, reserved_hour: float,
                 hours: float) -> float | None:
    """The utilisation from which owning costs less than on-demand rent over `hours`, if owning at that utilisation
    also costs less than reserved capacity (paid every hour, busy or not); None when no utilisation up to 100% does.
    Owning costs hardware (less its resale) + (u x power + space) x hours; on-demand u x rent x hours."""
    if rent_hour <= power_hour:
        return None
    needed = (hardware + space_hour * hours) / ((rent_hour - power_hour) * hours)
    if needed > 1 or hardware + (needed * power_hour + space_hour) * hours >= reserved_hour * hours:
        return None
    return needed
