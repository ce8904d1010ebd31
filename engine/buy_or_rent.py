"""Buy or rent N GPUs of one type, with no workload: "should we buy or rent 8 H100s?", "is a DGX H100 cheaper to buy?".

The break-even needs no model. Owning costs the servers (the GPUs' street price x SERVER_COST_FACTOR for CPUs, memory,
NICs and chassis), their power with cooling while busy (engine.recommend's SERVER_POWER_FACTOR x TDP x PUE, at a
$/kWh) and colocation space for their whole draw every month, busy or not. Renting costs the cheapest on-demand rate at
a provider with an SLA (what a team would run on for years; a marketplace host is one machine with no SLA), and, for
hardware kept busy for years, 1-3 year reserved capacity at engine.tco's RESERVED_DISCOUNT_ASSUMED below it.

With a share `utilisation` of the calendar busy, owning breaks even after T calendar hours where
    hardware = T x (utilisation x (rent - power) - space)
which at utilisation 1 is engine.throughput.buy_vs_rent_break_even's "busy hours around the clock": the same figure the
answer's buy-vs-rent note gives for a plan (engine.advise._break_even_note calls `busy_hours_to_break_even`).
Every figure is an estimate and says its inputs; networking and staff are not counted.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from catalog.records import CatalogData, GpuRecord
from engine.models import Figure
from engine.recommend import PUE, SERVER_POWER_FACTOR, USD_PER_KWH
from engine.tco import RESERVED_DISCOUNT_ASSUMED
from engine.throughput import buy_vs_rent_break_even
from engine.units import HOURS_PER_MONTH, HOURS_PER_YEAR

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
                             usd_per_kwh: float = USD_PER_KWH) -> Figure:
    """Busy hours after which owning `gpus` of this GPU costs less than renting them at `usd_per_gpu_hour`, with
    `utilisation` of the calendar busy (space is paid for the idle hours too, so its share per busy hour grows as
    utilisation falls). 0 with a note when the rent never covers the power and space."""
    watts = (gpu.tdp_w or 0.0) * SERVER_POWER_FACTOR * PUE
    space = server_kw(gpu, gpus) * COLO_USD_PER_KW_MONTH / HOURS_PER_MONTH  # per calendar hour
    return buy_vs_rent_break_even(server_usd(gpu, gpus), usd_per_gpu_hour * gpus, tdp_w=watts, num_gpus=gpus,
                                  usd_per_kwh=usd_per_kwh, space_usd_per_hour=space / max(utilisation, 1e-9))


@dataclass(frozen=True)
class BreakEven:
    """Owning `gpus` of one GPU type against renting them, at the assumptions said (`utilisation`, `usd_per_kwh`,
    `years`). Months are calendar months at that utilisation (math.inf: never); USD totals are over `years`."""

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
    own_usd: float  # over `years`: hardware + power + space
    on_demand_usd: float  # over `years`, busy hours only
    reserved_usd: float  # over `years`: reserved capacity is paid for every hour, busy or not
    min_utilisation: float | None  # the utilisation from which owning beats reserved within `years` (None: never)

    @property
    def verdict(self) -> str:
        """"buy" when owning is cheaper than both rentals over the years said, else "rent"."""
        return "buy" if self.own_usd < min(self.on_demand_usd, self.reserved_usd) else "rent"


def break_even(gpu: GpuRecord, gpus: int, data: CatalogData, *, utilisation: float = DEFAULT_UTILISATION,
               usd_per_kwh: float = USD_PER_KWH, years: float = DEFAULT_YEARS) -> BreakEven | None:
    """Buy or rent `gpus` of this GPU (None when the GPU has no purchase price or nobody in the catalog rents it)."""
    if not gpu.purchase_price_usd or gpus < 1 or not 0 < utilisation <= 1 or years <= 0 or usd_per_kwh < 0:
        return None
    sla = sla_rate(gpu.id, data)
    rent_sla = sla is not None
    if sla is None:  # only marketplace or managed rentals: the cheapest of them, said as such
        rates = [(o.on_demand_usd_per_hour / o.gpus_per_node, getattr(data.provider(o.provider), "name", o.provider))
                 for o in data.offers if o.gpu == gpu.id and o.on_demand_usd_per_hour]
        sla = min(rates) if rates else None
    if sla is None:
        return None
    rate, provider = sla
    reserved_rate = rate * (1 - RESERVED_DISCOUNT_ASSUMED)
    hardware = server_usd(gpu, gpus)
    kw = server_kw(gpu, gpus)
    space_month = kw * COLO_USD_PER_KW_MONTH
    power_busy_hour = kw * PUE * usd_per_kwh  # the whole server with cooling, per busy hour
    hours = years * HOURS_PER_YEAR

    def months(usd_per_gpu_hour: float, reserved: bool) -> float:
        # reserved capacity is paid every hour: owning competes with it at the idle hours too
        rent_hour = usd_per_gpu_hour * gpus * (1.0 if reserved else utilisation)
        margin = rent_hour - utilisation * power_busy_hour - space_month / HOURS_PER_MONTH
        return hardware / margin / HOURS_PER_MONTH if margin > 0 else math.inf

    space_hour = space_month / HOURS_PER_MONTH
    own = hardware + (utilisation * power_busy_hour + space_hour) * hours
    on_demand = rate * gpus * utilisation * hours
    reserved = reserved_rate * gpus * hours
    return BreakEven(
        gpu=gpu.id, gpu_name=gpu.name, gpus=gpus, purchase_usd_per_gpu=float(gpu.purchase_price_usd),
        purchase_source=gpu.purchase_price_source or gpu.source, hardware_usd=hardware, server_kw=kw,
        power_usd_per_month=utilisation * power_busy_hour * HOURS_PER_MONTH, space_usd_per_month=space_month,
        rent_usd_per_gpu_hour=rate, rent_provider=str(provider), rent_sla=rent_sla,
        reserved_usd_per_gpu_hour=reserved_rate, utilisation=utilisation, usd_per_kwh=usd_per_kwh, years=years,
        months_on_demand=months(rate, False), months_reserved=months(reserved_rate, True), own_usd=own,
        on_demand_usd=on_demand, reserved_usd=reserved,
        min_utilisation=_owning_from(hardware, space_hour, power_busy_hour, rate * gpus, reserved_rate * gpus, hours))


def _owning_from(hardware: float, space_hour: float, power_hour: float, rent_hour: float, reserved_hour: float,
                 hours: float) -> float | None:
    """The utilisation from which owning costs less than on-demand rent over `hours`, if owning at that utilisation
    also costs less than reserved capacity (paid every hour, busy or not); None when no utilisation up to 100% does.
    Owning costs hardware + (u x power + space) x hours; on-demand u x rent x hours."""
    if rent_hour <= power_hour:
        return None
    needed = (hardware + space_hour * hours) / ((rent_hour - power_hour) * hours)
    if needed > 1 or hardware + (needed * power_hour + space_hour) * hours >= reserved_hour * hours:
        return None
    return needed
