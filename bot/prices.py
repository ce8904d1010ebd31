"""Price questions ("how much is an H100 on AWS?", "B200 prices", "what does RunPod charge for a 4090?").

The parser reads such a message as intent "prices" (a GPU and its family, an optional provider, GPU
count and price kind); `catalog.query.price_offers` finds the matching offers; this module turns them
into one line per price (on-demand, spot, reserved) and renders the table for Slack, the terminal and
`ask --json`. It selects and formats catalog rows only: nothing is estimated here.

The first line answers the question in one sentence: the on-demand price per GPU-hour and per
instance (a reader asking "how much is an H100 on AWS?" wants the price they can rent at now). The
table then lists on-demand rows, reserved, and spot rows marked interruptible, cheapest first within
each kind: a spot price at the top would answer a different question.

A reserved price asked for is priced as the plans price it (`engine.tco.node_usd_per_hour`): the published commitment
price where the catalog has one, else on-demand less RESERVED_DISCOUNT_ASSUMED, marked "est."; a marketplace sells no
commitments, so its rows get no estimate. Listing only the published ones headlined one provider's reserved price
above another's on-demand price, 45% over the figure every plan uses.

A region said ("in Europe", "in eu-west-1"; `catalog.regions`) keeps the rows there; where the catalog has none, the
answer says so first and never reads as that region's price.

Why spot lines below a fifth of on-demand are flagged "suspect" and listed after the credible ones:
such rows are usually a stale or mis-imported figure, and the order must not put a number nobody
can rent at the top.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from bot.limits import Message, fit_message
from catalog.regions import CLOUD_REGIONS_IN, in_region, regions_of
from catalog.regions import label as region_label
from engine.tco import RESERVED_DISCOUNT_ASSUMED
from engine.units import HOURS_PER_MONTH

MAX_ROWS_SHOWN = 10
# contract workload keys added with serving targets (CONTRACT.md), present in every `ask --json` workload
_CONTRACT_TARGET_KEYS = ("pricing", "provider", "target_tokens_per_s_per_user", "target_ttft_s", "requests_per_s",
                         "input_tokens", "output_tokens", "deadline_hours")
SUSPECT_SPOT_FRACTION = 0.2  # a spot price below a fifth of the same offer's on-demand price
_KIND_FIELD = {"on_demand": "on_demand_usd_per_hour", "spot": "spot_usd_per_hour", "reserved": "reserved_usd_per_hour"}
_KIND_LABEL = {"on_demand": "on-demand", "spot": "spot", "reserved": "reserved"}
_KIND_ORDER = {"on_demand": 0, "reserved": 1, "spot": 2}  # what can be rented now and kept, first


@dataclass(frozen=True)
class PriceLine:
    """One price of one offer: what `ask --json` lists under "prices" and a table row shows."""

    provider: str  # provider id
    provider_name: str
    instance_type: str
    gpu: str  # GPU id
    gpu_name: str
    gpus: int  # GPUs in the instance
    pricing: str  # "on_demand" | "spot" | "reserved"
    usd_per_gpu_hour: float
    usd_per_instance_hour: float
    region: str
    observed_on: str
    managed: bool
    suspect: bool  # spot below a fifth of on-demand
    source: str
    estimated: bool = False  # a reserved price the catalog does not publish: on-demand less RESERVED_DISCOUNT_ASSUMED


@dataclass(frozen=True)
class PriceTable:
    """Context of `prices.json.j2` / `prices.txt.j2`: the lines shown, how many more, and what to say."""

    title: str
    lines: list[PriceLine]  # every matching price, credible ones cheapest first, then suspect ones
    shown: int  # how many of `lines` the table shows
    notes: list[str] = field(default_factory=list)
    query: dict[str, Any] = field(default_factory=dict)  # the Workload fields the question named (gpu, provider, ...)
    unpriced: list[str] = field(default_factory=list)  # "SageMaker ml.p5.48xlarge": offers with no price
    answer: str = ""  # the one-sentence answer: on-demand $/GPU-hour and $/instance-hour
    quote: dict[str, Any] | None = None  # a quoted price judged ("is $2.10/hr good for an H100?"): bot.price_verdict

    @property
    def more(self) -> int:
        return len(self.lines) - self.shown

    @property
    def more_line(self) -> str:
        """'12 more, up to $6.88 per GPU-hour; ...' when the table is cut, else ''."""
        if self.more <= 0:
            return ""
        highest = max(line.usd_per_gpu_hour for line in self.lines[self.shown:])
        return (f"{self.more} more, up to ${highest:,.2f} per GPU-hour; narrow it with a provider or a GPU count "
                f"(e.g. “price of 8x H100 on AWS”).")

    def rows(self) -> list[list[str]]:
        """The shown lines as table cells (display-ready, not escaped)."""
        return [[line.provider_name, line.instance_type, f"{line.gpus}x {line.gpu_name}",
                 f"${line.usd_per_gpu_hour:,.2f}", f"${line.usd_per_instance_hour:,.2f}",
                 _KIND_LABEL[line.pricing] + (" (suspect)" if line.suspect else " (interruptible)" if line.pricing == "spot"
                                              else " (est.)" if line.estimated else ""), line.region, line.observed_on]
                for line in self.lines[:self.shown]]


HEADINGS = ["provider", "instance", "GPUs", "$/GPU-h", "$/instance-h", "price", "region", "observed"]


def table_text(table: PriceTable) -> str:
    """The rows as fixed-width text (a code block in Slack, plain in the terminal)."""
    cells = [HEADINGS, *table.rows()]
    widths = [max(len(row[i]) for row in cells) for i in range(len(HEADINGS))]
    right = {3, 4}  # prices line up on the right

    def line(row: list[str]) -> str:
        return "  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))).rstrip()

    return "\n".join(line(row) for row in cells)


def build_price_table(
    offers: Sequence[Any],
    widened: Sequence[str],
    query: Mapping[str, Any],
    gpu_family: Sequence[str],
    names: Mapping[str, str],
    *,
    marketplaces: Collection[str] = frozenset(),
    nearby: Sequence[Any] = (),
) -> PriceTable:
    """Lines for the offers `catalog.query.price_offers` returned, for the question in `query` (the
    reading's updates: gpu, provider, gpu_count, pricing, and regions, per_month, period_hours). `names` maps ids to
    display names; `marketplaces` are the provider ids that sell no commitments (no reserved estimate); `nearby` are
    offers in the region asked at other providers, said when the provider asked has none there.

    Several providers compared (the reading's "providers") list the rows of each one named, in one table; one
    without the GPU is said to have none. "reserved vs on-demand" ("compared_pricing") lists every kind."""
    if query.get("providers"):
        return _compared_providers(offers, widened, query, gpu_family, names, marketplaces)
    kinds = [query["pricing"]] if query.get("pricing") in _KIND_FIELD else list(_KIND_FIELD)
    estimate = "reserved" in kinds and (query.get("pricing") == "reserved"
                                        or "reserved" in (query.get("compared_pricing") or ()))
    credible: list[PriceLine] = []
    suspect: list[PriceLine] = []
    unpriced: list[str] = []
    other_kinds = 0  # offers priced, but not in the kind asked for ("spot price of ...")
    for offer in offers:
        found = False
        for kind in kinds:
            price = getattr(offer, _KIND_FIELD[kind])
            estimated = (kind == "reserved" and not price and estimate and bool(offer.on_demand_usd_per_hour)
                         and offer.provider not in marketplaces)
            if estimated:  # as the plans price it (engine.tco.node_usd_per_hour)
                price = offer.on_demand_usd_per_hour * (1 - RESERVED_DISCOUNT_ASSUMED)
            if not price:
                continue
            found = True
            on_demand = offer.on_demand_usd_per_hour
            is_suspect = kind == "spot" and bool(on_demand) and price < SUSPECT_SPOT_FRACTION * on_demand
            line = _line(offer, kind, price, names, suspect=is_suspect, estimated=estimated)
            (suspect if is_suspect else credible).append(line)
        if not found and not any(getattr(offer, f) for f in _KIND_FIELD.values()):  # no price of any kind
            unpriced.append(f"{names.get(offer.provider, offer.provider)} {offer.instance_type}")
        elif not found:
            other_kinds += 1
    if len(kinds) == 1 and not credible and not suspect and other_kinds:
        return _without_kind(offers, widened, query, gpu_family, names, marketplaces)
    credible.sort(key=lambda p: (_KIND_ORDER[p.pricing], p.usd_per_gpu_hour, p.provider, p.instance_type))
    suspect.sort(key=lambda p: (p.usd_per_gpu_hour, p.provider, p.instance_type))
    lines = credible + suspect
    sold = [g for g in gpu_family if any(line.gpu == g for line in lines)] or list(gpu_family)  # not unsold variants
    notes = _notes(query, widened, lines, unpriced, kinds, names, other_kinds)
    # a reserved price is weighed against on-demand ones even when only reserved rows are listed
    beside = [_line(o, "on_demand", o.on_demand_usd_per_hour, names) for o in offers
              if estimate and kinds == ["reserved"] and o.on_demand_usd_per_hour]
    title, answer = _title(query, sold, names), _answer(credible, query, marketplaces, beside)
    if "provider" in widened and query.get("provider") and lines:
        # "H200 price on Lambda" with no Lambda offer: said first, and neither the title nor the answer may read as
        # Lambda's price (it led with "H200 at Vast.ai" under "H200 prices at Lambda")
        elsewhere = {k: v for k, v in query.items() if k != "provider"}
        provider = names.get(query["provider"], query["provider"])
        gpu = names.get(query.get("gpu") or "", "this GPU")
        title = f"{_title(elsewhere, sold, names)} (no {provider} offer in the catalog)"
        other = _answer(credible, elsewhere, marketplaces, beside).removeprefix(f"{gpu}: ")
        answer = f"The catalog has no {provider} offer for {gpu}" + (f"; elsewhere: {other}" if other else ".")
        notes = [n for n in notes if not n.startswith("The catalog has no ")]
    if query.get("regions"):
        title, answer, notes = _in_region(query, widened, lines, title, answer, notes, nearby, names)
        answer = _marketplace_only(answer, credible, query, widened, marketplaces)
    return PriceTable(title=title, lines=lines, shown=min(len(lines), MAX_ROWS_SHOWN), notes=notes, query=dict(query),
                      unpriced=unpriced, answer=answer)


def _line(offer: Any, kind: str, price: float, names: Mapping[str, str], *, suspect: bool = False,
          estimated: bool = False) -> PriceLine:
    """One price of one offer, per GPU and per instance."""
    return PriceLine(
        provider=offer.provider, provider_name=names.get(offer.provider, offer.provider),
        instance_type=offer.instance_type, gpu=offer.gpu, gpu_name=names.get(offer.gpu, offer.gpu),
        gpus=offer.gpus_per_node, pricing=kind, usd_per_gpu_hour=round(price / offer.gpus_per_node, 4),
        usd_per_instance_hour=round(price, 4), region=offer.region, observed_on=offer.observed_on,
        managed=offer.managed, suspect=suspect, source=offer.source, estimated=estimated)


def _in_region(query: Mapping[str, Any], widened: Sequence[str], lines: Sequence[PriceLine], title: str, answer: str,
               notes: list[str], nearby: Sequence[Any], names: Mapping[str, str]) -> tuple[str, str, list[str]]:
    """The title, answer and notes of a question naming a region: 'in Europe' when the rows are there, and where the
    catalog has none there, said first ('The catalog has no B200 offer in Europe; elsewhere: ...'), so a row in another
    jurisdiction never reads as the region's price."""
    asked = " or ".join(region_label(str(r)) for r in query["regions"])
    gpu = names.get(query.get("gpu") or "", "this GPU")
    provider = names.get(query.get("provider") or "", "")
    at = f"{provider} " if provider and "provider" not in widened else ""
    rows = regions_of(line.region for line in lines)
    if "region" in widened:
        where = f" (its rows are in {rows})" if at and rows else ""
        title = f"{title} (none in {asked} in the catalog)"
        rest = answer.removeprefix(f"{gpu}: ").removeprefix(f"{gpu} at {provider}: ")
        answer = (f"The catalog has no {at}offer for {gpu} in {asked}{where}" + (f"; elsewhere: {rest}" if rest else "."))
        there = _cheapest_by_provider(nearby, names)
        if there:
            exact = any(in_region(o.region, str(r)) for o in nearby for r in query["regions"])
            place = asked if exact else region_label(_area_of_asked(query)) or asked
            notes.insert(0, f"In {place} the catalog has {gpu} at: {there} per GPU-hour on demand.")
        return title, answer, notes
    if "region_area" in widened:
        area = region_label(_area_of_asked(query))
        title = f"{title} in {area} (none in {asked})"
        answer = f"The catalog has no {at}offer for {gpu} in {asked}; elsewhere in {area}: {answer}"
        clouds = [CLOUD_REGIONS_IN[str(r)] for r in query["regions"] if str(r) in CLOUD_REGIONS_IN]
        if clouds:  # "in frankfurt": where the offers would be, for a price from their pages
            notes.insert(0, f"Cloud regions in {asked}: {'; '.join(clouds)}; not in the catalog, so not priced here "
                            "(check their price pages).")
        return title, answer, notes
    title = f"{title} in {asked}"
    if answer.startswith(f"{gpu}"):
        answer = f"{gpu} in {asked}" + answer[len(gpu):]
    return title, answer, notes


def _marketplace_only(answer: str, credible: Sequence[PriceLine], query: Mapping[str, Any], widened: Sequence[str],
                      marketplaces: Collection[str]) -> str:
    """A region whose only rows are marketplace hosts ("H100 prices in Asia-Pacific": one Vast.ai machine in Vietnam)
    said as the only listing, never as the region's price: one owner's machine with no SLA prices nothing a team with
    an SLA would rent there, and clouds price the same GPU in that region at or above their US list prices."""
    on_demand = [line for line in credible if line.pricing == "on_demand"] or list(credible)
    if not on_demand or "region" in widened or any(line.provider not in marketplaces for line in on_demand):
        return answer
    best = min(on_demand, key=lambda line: line.usd_per_gpu_hour)
    asked = " or ".join(region_label(str(r)) for r in query["regions"])
    hosts = len({(line.provider, line.instance_type, line.region) for line in on_demand})
    only = ("The catalog's only listing there is a marketplace host" if hosts == 1
            else f"The catalog's only {hosts} listings there are marketplace hosts")
    return (f"{best.gpu_name} in {asked}: no headline price. {only}, {best.provider_name} in {best.region}, at "
            f"${best.usd_per_gpu_hour:,.2f} per GPU-hour on demand: an individual owner's machine with no SLA, not the "
            f"region's price. Clouds with an SLA price this GPU in {asked} at or above their US rates, and the catalog "
            "has none of their rows there: check their price pages before budgeting.")


def _area_of_asked(query: Mapping[str, Any]) -> str:
    from catalog.regions import widened_area

    return next((a for a in (widened_area(str(r)) for r in query.get("regions") or ()) if a), "")


def _cheapest_by_provider(offers: Sequence[Any], names: Mapping[str, str]) -> str:
    """'Nebius AI Cloud (eu-north1) $2.95, Oracle Cloud (eu-amsterdam-1) $10.00': each provider's cheapest on-demand
    GPU-hour among `offers`."""
    best: dict[str, tuple[float, str]] = {}
    for offer in offers:
        if offer.on_demand_usd_per_hour and offer.gpus_per_node:
            price = offer.on_demand_usd_per_hour / offer.gpus_per_node
            if offer.provider not in best or price < best[offer.provider][0]:
                best[offer.provider] = (price, offer.region)
    ranked = sorted(best.items(), key=lambda item: item[1][0])
    return ", ".join(f"{names.get(p, p)} ({region}) ${price:,.2f}" for p, (price, region) in ranked)


def _compared_providers(offers: Sequence[Any], widened: Sequence[str], query: Mapping[str, Any],
                        gpu_family: Sequence[str], names: Mapping[str, str],
                        marketplaces: Collection[str] = frozenset()) -> PriceTable:
    """'price of 8x H200 on CoreWeave vs Lambda vs Nebius': one table of the rows of every provider named, the
    answer giving each one's cheapest on-demand GPU-hour, and the providers with no offer of the GPU said so."""
    from catalog.query import at_providers, missing_providers

    providers = [str(p) for p in query["providers"]]
    rest = {k: v for k, v in query.items() if k != "providers"}
    named = at_providers(offers, providers)
    if not named:  # none of them rents it: the other providers' rows, as for one provider without the GPU
        table = build_price_table(offers, [*widened, "provider"], {**rest, "provider": providers[0]}, gpu_family, names,
                                  marketplaces=marketplaces)
        return replace(table, query=dict(query))
    table = build_price_table(named, widened, rest, gpu_family, names, marketplaces=marketplaces)
    shown = [names.get(p, p) for p in providers]
    title = f"{table.title} at {_listed(shown)}"
    cheapest: dict[str, PriceLine] = {}
    for line in table.lines:
        if line.pricing == "on_demand" and not line.suspect and (
                line.provider not in cheapest or (cheapest[line.provider].gpu != query.get("gpu") == line.gpu)):
            cheapest[line.provider] = line  # cheapest first within each kind; the GPU named before its family
    gpu = names.get(query.get("gpu") or "", "")
    prices = [f"{names.get(p, p)} ${cheapest[p].usd_per_gpu_hour:,.2f}" for p in providers if p in cheapest]
    answer = (f"{gpu + ' ' if gpu else ''}on demand, per GPU-hour: {', '.join(prices)}." if prices else "")
    hours = float(query.get("period_hours") or (HOURS_PER_MONTH if query.get("per_month") else 0))
    if prices and hours:  # "for a 3 month training run": what each costs for that long, around the clock
        count = int(query.get("gpu_count") or 1)
        period = query.get("period_said") or "a month"
        totals = [f"{names.get(p, p)} ${cheapest[p].usd_per_gpu_hour * count * hours:,.0f}" for p in providers
                  if p in cheapest]
        answer += f" {_gpus(count)} for {period} ({hours:,.0f} h) around the clock: {', '.join(totals)}."
    lacking = [names.get(p, p) for p in missing_providers(named, providers)]
    unpriced = [names.get(p, p) for p in providers if p not in cheapest and names.get(p, p) not in lacking]
    notes = list(table.notes)
    if lacking:
        notes.insert(0, f"The catalog has no {_listed(lacking, 'or')} offer for {gpu or 'this GPU'}.")
    if unpriced:
        notes.insert(0, f"No on-demand price listed at {_listed(unpriced)}.")
    return replace(table, title=title, answer=answer, notes=notes, query=dict(query))


def _listed(items: Sequence[str], last: str = "and") -> str:
    """'CoreWeave, Lambda and Nebius'."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} {last} {items[-1]}"


def _without_kind(offers: Sequence[Any], widened: Sequence[str], query: Mapping[str, Any], gpu_family: Sequence[str],
                  names: Mapping[str, str], marketplaces: Collection[str] = frozenset()) -> PriceTable:
    """'2 p5en.48xlarge reserved for a year': no offer lists the kind asked for (AWS publishes no reserved rate for
    it; reserved rates are quoted per contract), so the prices it does list are shown, led by a sentence saying so,
    never "no offer" for an instance one can rent today."""
    kind = _KIND_LABEL[query["pricing"]]
    rest = {k: v for k, v in query.items() if k != "pricing"}
    table = build_price_table(offers, widened, rest, gpu_family, names, marketplaces=marketplaces)
    said = query.get("instance_type")
    types = [said] if said else sorted({line.instance_type for line in table.lines})[:3]
    what = ", ".join(types) or names.get(query.get("gpu") or "", "this GPU")
    where = f" at {names.get(query['provider'], query['provider'])}" if query.get("provider") else ""
    missing = (f"The catalog has no {kind} price for {what}{where} (commitment prices are on the provider's pricing page "
               "or quoted per contract); the listed prices instead")
    if table.answer:
        return replace(table, answer=f"{missing}: {table.answer}")
    return replace(table, notes=[missing + ".", *table.notes])


def _gpus(count: int) -> str:
    return f"{count} GPU" + ("" if count == 1 else "s")


def _answer(credible: Sequence[PriceLine], query: Mapping[str, Any], marketplaces: Collection[str] = frozenset(),
            beside: Sequence[PriceLine] = ()) -> str:
    """'H100 SXM5 80GB at AWS (EC2): $6.88 per GPU-hour on demand, $55.04/hour for a p5.48xlarge (8 GPUs);
    p5.4xlarge (1 GPU) $6.88/hour.' The on-demand price unless another kind was asked for or none is listed; a
    reserved price estimated says so, and the cheapest on-demand and published reserved prices follow it; "reserved vs
    on-demand" gives both kinds."""
    asked = query.get("pricing")
    compared = "reserved" in (query.get("compared_pricing") or ())
    if asked == "reserved" or compared:
        # weighed as the plans weigh reserved: rows that sell commitments (no marketplace), of the GPU named
        credible = _as_planned([*credible, *beside], query, marketplaces)
    pool = ([line for line in credible if line.pricing == asked] if asked in _KIND_FIELD else []) or \
        [line for line in credible if line.pricing == "on_demand"] or list(credible)
    if not pool:
        return ""
    sentence = _kind_sentence(pool, query)
    if asked == "reserved" and pool[0].pricing == "reserved":
        sentence += _beside_reserved(credible, query)
    if compared and pool[0].pricing != "reserved":
        reserved = [line for line in credible if line.pricing == "reserved"]
        if reserved:
            sentence += ". Reserved: " + _kind_sentence(reserved, query, named=False)
    return sentence + "."


def _as_planned(lines: Sequence[PriceLine], query: Mapping[str, Any], marketplaces: Collection[str]) -> list[PriceLine]:
    """The lines a reserved plan is weighed on: no marketplace hosts (they sell no commitments, and a fleet is not
    rented from them), and the GPU named where it has any ("64 H100s": the SXM5 the plans use, not a PCIe card)."""
    kept = [line for line in lines if line.provider not in marketplaces] or list(lines)
    named = [line for line in kept if line.gpu == query.get("gpu")]
    return named or kept


def _kind_sentence(pool: Sequence[PriceLine], query: Mapping[str, Any], named: bool = True) -> str:
    """The cheapest line of one kind, its instance, and what the GPUs asked for cost by the hour and the month."""
    best = min(pool, key=lambda line: (line.usd_per_gpu_hour, -line.gpus))  # a tie: the full node, as listed
    kind = {"on_demand": "on demand", "spot": "on spot (interruptible)", "reserved": "reserved"}[best.pricing]
    if best.estimated:
        kind += (f" (estimated as the plans price it: on-demand ${best.usd_per_gpu_hour / (1 - RESERVED_DISCOUNT_ASSUMED):,.2f} "
                 f"-{RESERVED_DISCOUNT_ASSUMED:.0%}, no published commitment price)")
    prices = {round(line.usd_per_gpu_hour, 2) for line in pool}
    where = f" at {best.provider_name}" if query.get("provider") else ""
    lead = f"{best.gpu_name}{where}: " if named else ""
    sentence = (f"{lead}{'from ' if len(prices) > 1 else ''}${best.usd_per_gpu_hour:,.2f} per GPU-hour "
                f"{kind}, ${best.usd_per_instance_hour:,.2f}/hour for {_article(best.instance_type)} {best.instance_type} "
                f"({_gpus(best.gpus)})")
    if not query.get("provider"):
        sentence += f" on {best.provider_name}"
    if query.get("regions"):
        sentence += f" ({best.region})"
    other = next((line for line in sorted(pool, key=lambda line: line.usd_per_instance_hour)
                  if line.provider == best.provider and line.gpus != best.gpus), None)
    if other is not None:
        sentence += f"; {other.instance_type} ({_gpus(other.gpus)}) ${other.usd_per_instance_hour:,.2f}/hour"
    count = int(query.get("gpu_count") or 0)
    whole = next((line for line in sorted(pool, key=lambda line: (line.gpu != best.gpu, -line.gpus,
                                                                  line.usd_per_instance_hour))
                  if count > line.gpus and count % line.gpus == 0), None)
    if whole is not None:  # "4 p5.48xlarge", "32 H100s at AWS": the instances it takes, by the hour and the month
        instances = count // whole.gpus
        hourly = instances * whole.usd_per_instance_hour
        variant = f" ({whole.gpu_name})" if whole.gpu != best.gpu else ""
        sentence += (f". {count} GPUs are {instances} × {whole.instance_type}{variant}: ${hourly:,.2f}/hour, about "
                     f"${hourly * HOURS_PER_MONTH:,.0f} a month around the clock ({HOURS_PER_MONTH:g} h)")
    elif query.get("per_month") or query.get("period_hours"):  # "what does a p5.48xlarge cost per month?"
        hourly = best.usd_per_instance_hour
        if query.get("per_month") or float(query.get("period_hours") or 0) == HOURS_PER_MONTH:
            sentence += f", about ${hourly * HOURS_PER_MONTH:,.0f} a month around the clock ({HOURS_PER_MONTH:g} h)"
    else:
        return sentence
    if query.get("period_hours") and float(query["period_hours"]) != HOURS_PER_MONTH:  # a month is said already
        hours = float(query["period_hours"])
        sentence += f"; ${hourly * hours:,.0f} for {query.get('period_said') or f'{hours:,.0f} h'} ({hours:,.0f} h)"
    return sentence


def _beside_reserved(credible: Sequence[PriceLine], query: Mapping[str, Any]) -> str:
    """After the cheapest reserved price: the cheapest published one (when an estimate led) and the cheapest on-demand
    price, each for the GPUs asked a month, so a reserved figure is never read without what it is compared with."""
    reserved = [line for line in credible if line.pricing == "reserved"]
    best = min(reserved, key=lambda line: (line.usd_per_gpu_hour, -line.gpus))
    count = int(query.get("gpu_count") or 0)
    parts = []
    published = [line for line in reserved if not line.estimated]
    if best.estimated and published:
        cheapest = min(published, key=lambda line: line.usd_per_gpu_hour)
        parts.append(f"published reserved: {cheapest.provider_name} ${cheapest.usd_per_gpu_hour:,.2f}"
                     + _monthly(cheapest, count))
    on_demand = [line for line in credible if line.pricing == "on_demand"]
    if on_demand:
        cheapest = min(on_demand, key=lambda line: (line.usd_per_gpu_hour, -line.gpus))
        parts.append(f"on demand from ${cheapest.usd_per_gpu_hour:,.2f} at {cheapest.provider_name}"
                     + _monthly(cheapest, count))
    return f" ({'; '.join(parts)})" if parts else ""


def _monthly(line: PriceLine, count: int) -> str:
    """' (about $137,824 a month for 64 GPUs)' at that line's GPU-hour, or '' with no count."""
    if count <= 0:
        return ""
    return f", about ${line.usd_per_gpu_hour * count * HOURS_PER_MONTH:,.0f} a month for {_gpus(count)}"


def _article(name: str) -> str:
    """'an a3-ultragpu-8g', 'a p5.48xlarge': instance names are read letter by letter where a digit follows."""
    first = name[:1].lower()
    spelled = len(name) > 1 and name[1].isdigit()
    return "an" if first in "aeio" or (spelled and first in "fhlmnrsx") else "a"


def _title(query: Mapping[str, Any], gpu_family: Sequence[str], names: Mapping[str, str]) -> str:
    gpu = query.get("gpu")
    what = "GPU" if gpu is None else (_family_name(gpu_family, names) if len(gpu_family) > 1 else names.get(gpu, gpu))
    count = f"{query['gpu_count']}x " if query.get("gpu_count") else ""
    where = f" at {names.get(query['provider'], query['provider'])}" if query.get("provider") else ""
    kind = f" ({_KIND_LABEL[query['pricing']]})" if query.get("pricing") in _KIND_LABEL else ""
    return f"{count}{what} prices{where}{kind}"


def _family_name(family: Sequence[str], names: Mapping[str, str]) -> str:
    """'H100 (SXM5 80GB, PCIe 80GB, NVL 94GB)' from the family's display names."""
    shown = [names.get(g, g) for g in family]
    first = shown[0].split()[0]
    rest = [s[len(first):].strip() if s.startswith(first + " ") else s for s in shown]
    return f"{first} ({', '.join(rest)})"


def _notes(query: Mapping[str, Any], widened: Sequence[str], lines: Sequence[PriceLine], unpriced: Sequence[str],
           kinds: Sequence[str], names: Mapping[str, str], other_kinds: int = 0) -> list[str]:
    notes: list[str] = []
    provider = names.get(query.get("provider") or "", query.get("provider") or "")
    if "provider" in widened:
        notes.append(f"The catalog has no {provider} offer for this GPU; these are the other providers'.")
    if "gpus_per_node" in widened:
        sizes = sorted({line.gpus for line in lines})
        count = int(query.get("gpu_count") or 0)
        if not any(count > size and count % size == 0 for size in sizes):  # whole instances make it: the answer says how
            notes.append(f"No {query.get('gpu_count')}-GPU instance in the catalog; sizes offered: "
                         f"{', '.join(str(s) for s in sizes) or 'none'}.")
    if not lines and not unpriced:
        gpu = names.get(query.get("gpu") or "", query.get("gpu") or "that GPU")
        notes.append(f"The catalog has no offer for {gpu}" + (f" at {provider} or anywhere else." if provider else ".")
                     + " A price you pay yourself can be given with a question, e.g. “at $2.10/hr”.")
    for kind in query.get("compared_pricing") or ():  # "reserved vs on-demand": a kind with no row is said
        if kind in _KIND_LABEL and not any(line.pricing == kind for line in lines):
            notes.append(f"The catalog has no {_KIND_LABEL[kind]} price for these offers (commitment prices are on the "
                         "provider's pricing page or quoted per contract); the kinds it has are listed.")
    if any(line.estimated for line in lines):
        notes.append(f"“reserved (est.)”: no published commitment price, so on-demand -{RESERVED_DISCOUNT_ASSUMED:.0%} "
                     "as every plan prices reserved (1-3 year terms typically run 30-50% below on-demand; quoted per "
                     "contract); marketplaces sell no commitments.")
    if other_kinds and len(kinds) == 1:
        notes.append(f"{other_kinds} more offer(s) have no {_KIND_LABEL[kinds[0]]} price in the catalog; "
                     f"ask without “{_KIND_LABEL[kinds[0]]}” to see them.")
    if any(line.suspect for line in lines):
        notes.append("“suspect”: a spot price below a fifth of on-demand, likely stale; listed last, check before relying on it.")
    if unpriced:
        notes.append("No published price: " + ", ".join(unpriced) + ".")
    if lines:
        oldest = min(line.observed_on for line in lines)
        notes.append(f"Per GPU-hour = instance price ÷ GPUs; prices as observed (oldest {oldest}); on-demand first, "
                     "then reserved and spot, cheapest first within each.")
    return notes


# --- rendering ------------------------------------------------------------------------------------
def render_prices(table: PriceTable) -> list[Message]:
    """Block Kit (validated by `bot.limits`) plus the plain-text fallback."""
    from bot.render import render_blocks, render_text

    blocks = render_blocks("prices.json.j2", table=table, table_text=table_text(table))
    return fit_message(blocks, render_text("prices.txt.j2", table=table, table_text=table_text(table)), owned=True)


def render_prices_text(table: PriceTable) -> str:
    from bot.render import render_text

    return render_text("prices.txt.j2", table=table, table_text=table_text(table))


def prices_contract(table: PriceTable) -> dict[str, Any]:
    """`ask --json` for a price question: the contract keys present (the workload holds what the question
    named, the report parts are null: nothing was estimated) plus "prices", every matching line (not only
    the ten shown), credible ones cheapest first, the "regions" asked and the "quote" judged (keys added, never
    renamed: docs/json.md)."""
    from engine.contract import CONTRACT_WORKLOAD_KEYS

    keys = dict.fromkeys((*CONTRACT_WORKLOAD_KEYS, *_CONTRACT_TARGET_KEYS))
    return {
        "workload": {key: table.query.get(key) for key in keys},
        "missing": [],
        "questions": [],
        "assumptions": [],
        "report": {"memory": None, "cluster": None, "throughput": None, "tco": None},
        "prices": [{k: v for k, v in asdict(line).items() if k not in ("provider_name", "gpu_name")}
                   for line in table.lines],
        "notes": ([table.answer] if table.answer else []) + list(table.notes),  # the one-line answer first
        "regions": list(table.query.get("regions") or ()),  # the regions asked ("europe", "eu-west-1"), [] for any
        "quote": table.quote,  # a quoted price judged against the catalog (bot.price_verdict), else null
    }
