"""Where a plan may run when a region or data residency is said ("GDPR", "data can't leave germany", "EU only").

Why its own module: a residency rule is a hard constraint, not a preference, and answering it with the cheapest offer
anywhere moved German patient data to a marketplace host in Vietnam. `engine.recommend` keeps each GPU's offers to the
place said (`placed`); this module handles the two things around that search: when the catalog has no offer in the
place at all, the answer says so first, names where one would be (the hyperscalers' regions there) and plans on the
nearest place around it (Germany -> the EU), labelled as outside; and the pick's region and country are named, so a
reader who must sign off on where the data goes reads it in the answer.
"""

from __future__ import annotations

from catalog.records import (
    CLOUD_REGIONS_IN,
    CatalogData,
    OfferRecord,
    country_name,
    region_label,
    widened_area,
)
from engine.models import Advice, Problem, Workload
from engine.recommend import owns_gpus, placed
from engine.recommendation import recommended

NO_OFFER_IN_REGION = "no_offer_in_region"  # Problem.code: the catalog has no offer in the place said
MARKETPLACE_LEFT_OUT = ("marketplace hosts left out (machines of individual owners, with no data processing "
                        "agreement)")


def _marketplaces(data: CatalogData) -> frozenset[str]:
    return frozenset(p.id for p in data.providers if p.kind == "marketplace")


def _said(regions: tuple[str, ...]) -> str:
    return " or ".join(region_label(r) for r in regions)


def in_place(w: Workload, data: CatalogData) -> tuple[Workload, Problem | None]:
    """The workload to plan, and the problem saying the catalog has no offer in the place said (None when it has).
    With none there, the place widens one step at a time (Frankfurt -> Germany -> the EU -> Europe) to the first with
    an offer, and with none anywhere around it the region is dropped: the plan is then for sizing, said as outside."""
    if not w.regions or owns_gpus(w):
        return w, None
    marketplaces = _marketplaces(data)
    pool = [o for o in data.offers if (w.gpu is None or o.gpu == w.gpu) and (w.provider is None or o.provider == w.provider)]
    if not pool:  # nothing rented anywhere: the paths for that say so
        return w, None
    regions: tuple[str, ...] = w.regions
    looked: list[str] = []
    while regions and not any(placed(o, w.model_copy(update={"regions": regions}), marketplaces) for o in pool):
        looked.extend(r for r in regions if r not in looked)
        regions = tuple(dict.fromkeys(a for a in (widened_area(r) for r in regions) if a))
    if not looked:
        return w, None
    said = _said(w.regions)
    where = "; ".join(CLOUD_REGIONS_IN[r] for r in looked if r in CLOUD_REGIONS_IN)
    wider = _said(tuple(looked[len(w.regions):]))
    provider = data.provider(w.provider) if w.provider else None
    who = f"{provider.name} " if provider is not None else ""
    message = (f"No {who}offer{'' if w.gpu is None else ' of this GPU'} in the catalog is in {said}"
               + (f" (nor in {wider})" if wider else "")
               + (f". The clouds' regions there: {where}" if where else "")
               + "; give a price there (e.g. “at $4/hr per GPU”) to cost it. "
               + (f"The plan below is on the nearest offers, in {_said(regions)}: outside {said}"
                  if regions else f"The plan below is on offers outside {said}, for sizing only") + ".")
    planned = w.model_copy(update={"regions": regions or None})
    return planned, Problem(code=NO_OFFER_IN_REGION, field="regions", message=message)


def placement_note(advice: Advice, data: CatalogData) -> str | None:
    """'Region: Nebius AI Cloud eu-north1 (Finland), in the EU as asked; marketplace hosts left out (...)': where the
    pick is, under a region or residency constraint; None without one or without a rented pick."""
    w = advice.workload
    if not (w.regions or w.data_residency) or not advice.options:
        return None
    option = (recommended(list(advice.options), advice.recommendation) if advice.recommendation is not None
              else advice.options[0])
    offer: OfferRecord | None = next((o for o in data.offers if option is not None and o.id == option.offer_id), None)
    if offer is None:
        return None
    provider = data.provider(offer.provider)
    country = country_name(offer.region)
    where = f"{provider.name if provider is not None else offer.provider} {offer.region}" + (
        f" ({country})" if country and country.lower() != offer.region.lower() else "")
    planned = advice.effective.regions or ()
    inside = bool(planned) and any(offer.in_region(r) for r in w.regions or ())
    said = _said(w.regions) if w.regions else ""
    verdict = (f", in {said} as asked" if inside else f", outside {said}" if said else "")
    return f"Region: the pick is {where}{verdict}" + (f"; {MARKETPLACE_LEFT_OUT}" if w.data_residency else "")


def placed_answer(advice: Advice, asked: Workload, outside: Problem | None, data: CatalogData) -> Advice:
    """`advice` as the user asked it (their regions, not the widened ones planned), the problem saying the place has
    no offer first, and the note naming where the pick is first among the notes."""
    advice = advice.model_copy(update={"workload": asked,
                                       "problems": advice.problems if outside is None else (outside, *advice.problems)})
    note = placement_note(advice, data)
    return advice if note is None else advice.model_copy(update={"notes": (note, *advice.notes)})
