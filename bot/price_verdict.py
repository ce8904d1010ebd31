"""A quoted price judged against the catalog: "is $2.10/hr a good price for an H100?", "we were quoted $2.10/hr per H100
for a 1-year reservation, is that good?", "is $4/hr for a B200 on Nebius a good price?".

These are the commonest procurement questions and had got the help text. The verdict places the quote among the
catalog's rows of that GPU (the variant named, not its family: an H100 PCIe is another product), by kind:
- on-demand prices with an SLA: every provider's cheapest, excluding marketplaces (individual hosts, no SLA) and
  managed services (their price includes the service);
- marketplace and spot prices, said only where they are below the quote (what is cheaper, and what it gives up);
- the reserved price the plans use (`engine.tco.node_usd_per_hour`): a published commitment price, else on-demand less
  RESERVED_DISCOUNT_ASSUMED (marketplaces sell none), and the published ones.
A reservation quote is judged against reserved prices first (a 1-year commitment at an on-demand price is no deal),
an on-demand quote against on-demand prices. Within 5% of a reference price reads "about" it.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from engine.tco import RESERVED_DISCOUNT_ASSUMED

ABOUT = 0.05  # within 5% of a price is "about" it


def _per_gpu(price: float | None, offer: Any) -> float | None:
    return price / offer.gpus_per_node if price and offer.gpus_per_node else None


def _cheapest(rows: Sequence[tuple[str, float]]) -> list[tuple[str, float]]:
    """Each provider's cheapest price, cheapest first."""
    best: dict[str, float] = {}
    for provider, price in rows:
        best[provider] = min(price, best.get(provider, price))
    return sorted(best.items(), key=lambda item: (item[1], item[0]))


def _where(quote: float, price: float) -> str:
    if abs(quote - price) <= ABOUT * price:
        return "about"
    return "below" if quote < price else "above"


def judge(quote: float, kind: str, gpu: str, provider: str | None, offers: Sequence[Any], names: Mapping[str, str],
          marketplaces: Collection[str] = frozenset(), managed: Collection[str] = frozenset()) -> tuple[str, dict[str, Any]]:
    """The verdict sentence and its figures (`ask --json` "quote") for `quote` $/GPU-hour of `kind` ("on_demand",
    "reserved", "spot") for `gpu`, quoted by `provider` when named; `offers` are the catalog's rows of that GPU."""
    name = names.get(gpu, gpu)
    rows = [o for o in offers if o.gpu == gpu]
    sla = _cheapest([(o.provider, p) for o in rows if o.provider not in marketplaces and o.provider not in managed
                     and not o.managed and (p := _per_gpu(o.on_demand_usd_per_hour, o)) is not None])
    market = _cheapest([(o.provider, p) for o in rows if o.provider in marketplaces
                        and (p := _per_gpu(o.on_demand_usd_per_hour, o)) is not None])
    spot = _cheapest([(o.provider, p) for o in rows if (p := _per_gpu(o.spot_usd_per_hour, o)) is not None
                      and o.on_demand_usd_per_hour and o.spot_usd_per_hour >= 0.2 * o.on_demand_usd_per_hour])
    published = _cheapest([(o.provider, p) for o in rows if (p := _per_gpu(o.reserved_usd_per_hour, o)) is not None])
    estimated = _cheapest([(o.provider, p * (1 - RESERVED_DISCOUNT_ASSUMED)) for o in rows
                           if o.provider not in marketplaces and not o.reserved_usd_per_hour
                           and (p := _per_gpu(o.on_demand_usd_per_hour, o)) is not None])
    reserved = sorted([*published, *estimated], key=lambda item: item[1])
    label = {"on_demand": "on demand", "reserved": "reserved", "spot": "spot"}.get(kind, "on demand")
    said = f"${quote:,.2f}/GPU-h {label} for {_article(name)} {name}"
    figures: dict[str, Any] = {
        "usd_per_gpu_hour": quote, "pricing": kind, "gpu": gpu, "provider": provider,
        "on_demand_with_sla_usd": [{"provider": p, "usd_per_gpu_hour": round(v, 4)} for p, v in sla],
        "marketplace_usd": [{"provider": p, "usd_per_gpu_hour": round(v, 4)} for p, v in market],
        "spot_usd": [{"provider": p, "usd_per_gpu_hour": round(v, 4)} for p, v in spot],
        "reserved_usd": round(reserved[0][1], 4) if reserved else None,
        "reserved_published_usd": [{"provider": p, "usd_per_gpu_hour": round(v, 4)} for p, v in published],
    }
    if not sla and not market and not reserved:
        figures["verdict"] = "unknown"
        return f"The catalog has no price for {name} to compare {said} with.", figures
    facts: list[str] = []
    if sla:
        low, high = sla[0], sla[-1]
        span = (f"{_money(low[1])} {names.get(low[0], low[0])}" if len(sla) == 1 else
                f"{_money(low[1])} {names.get(low[0], low[0])} to {_money(high[1])} {names.get(high[0], high[0])}")
        below = sum(1 for _, v in sla if quote < v * (1 - ABOUT))
        position = ("below every" if below == len(sla) else "above every" if all(quote > v * (1 + ABOUT) for _, v in sla)
                    else f"below {below} of the {len(sla)}" if below else "about the cheapest" if
                    _where(quote, low[1]) == "about" else f"below {below} of the {len(sla)}")
        plural = "s" if position.startswith(("below ", "about")) and " of the " in position else ""
        facts.append(f"{position} on-demand price{plural} with an SLA in the catalog ({span})")
    if reserved:
        best = reserved[0]
        basis = (f"{names.get(best[0], best[0])}'s published price" if best in published else
                 f"{names.get(best[0], best[0])} on demand -{RESERVED_DISCOUNT_ASSUMED:.0%}")
        facts.append(f"{_where(quote, best[1])} the 1-3 yr reserved estimate the plans use ({_money(best[1])}: {basis})")
    cheaper = [f"{names.get(p, p)} {_money(v)} (no SLA)" for p, v in market[:1] if v < quote]
    cheaper += [f"spot from {_money(v)} at {names.get(p, p)} (interruptible)" for p, v in spot[:1] if v < quote]
    own = _own(quote, provider, rows, names, marketplaces)
    verdict = _verdict(quote, kind, sla, reserved)
    figures["verdict"] = verdict
    lead = {"good": "Good price", "fair": "Fair", "high": "High"}[verdict]
    sentence = f"{lead}: {said} is {' and '.join(facts)}"
    if own:
        sentence += f"; {own}"
    if cheaper:
        sentence += f". Cheaper without the guarantees: {', '.join(cheaper)}"
    if published and kind == "reserved" and not any(p == reserved[0][0] for p, _ in published):
        sentence += f". Published reserved: {', '.join(f'{names.get(p, p)} {_money(v)}' for p, v in published)}"
    return sentence + ".", figures


def _verdict(quote: float, kind: str, sla: Sequence[tuple[str, float]], reserved: Sequence[tuple[str, float]]) -> str:
    """'good', 'fair' or 'high'. A reservation: good at or under the reserved estimate (+5%), fair under the cheapest
    on-demand price with an SLA (there is room to negotiate), high at or over it (on demand needs no commitment). On
    demand or spot: good under the cheapest on-demand price with an SLA (+5%), fair up to the middle one, high above."""
    cheapest = sla[0][1] if sla else None
    if kind == "reserved":
        if reserved and quote <= reserved[0][1] * (1 + ABOUT):
            return "good"
        return "fair" if cheapest is None or quote < cheapest else "high"
    if cheapest is None:
        return "good" if reserved and quote <= reserved[0][1] * (1 + ABOUT) else "fair"
    if quote <= cheapest * (1 + ABOUT):
        return "good"
    middle = sorted(v for _, v in sla)[len(sla) // 2]
    return "fair" if quote <= middle else "high"


def _own(quote: float, provider: str | None, rows: Sequence[Any], names: Mapping[str, str],
         marketplaces: Collection[str]) -> str:
    """"Nebius AI Cloud lists it at $5.50 on demand ($3.85 reserved, estimated); the quote is 27% below": the named
    provider's own price, the first thing a buyer checks a quote against."""
    if provider is None:
        return ""
    mine = [p for o in rows if o.provider == provider and (p := _per_gpu(o.on_demand_usd_per_hour, o)) is not None]
    who = names.get(provider, provider)
    if not mine:
        return f"the catalog has no {who} price for it"
    price = min(mine)
    change = (quote - price) / price
    diff = "the same as" if abs(change) < 0.005 else f"{abs(change):.0%} {'below' if change < 0 else 'above'}"
    return f"{who} lists it at {_money(price)} on demand, and the quote is {diff} that"


def _money(value: float) -> str:
    return f"${value:,.2f}"


def _article(name: str) -> str:
    """'an H100', 'an A100', 'a B200', 'an Instinct MI300X': a name spelled letter by letter takes the letter's sound."""
    first, second = name[:1].lower(), name[1:2]
    spelled = second.isdigit() or second.isupper()
    return "an" if first in "aeiou" or (spelled and first in "fhlmnrsx") else "a"
