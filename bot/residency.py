"""How an answer says where its pick is, when the question said where the data may be ("GDPR", "data can't leave
germany", "EU only"): the pick's region and country on the Cost line, and "but not in Germany" in the headline when
the catalog had no offer there (engine.placement planned on the nearest place around it instead).

Why: a reader who must sign off on where the data goes reads the Cost line and the headline; a note under them is
cut first when the answer is long.
"""

from __future__ import annotations

from catalog.regions import country_name
from catalog.regions import label as region_label
from engine.models import Advice, Option
from engine.placement import NO_OFFER_IN_REGION


def asked_where(advice: Advice) -> bool:
    """Whether the question said where the data may be."""
    return bool(advice.workload.regions or advice.workload.data_residency)


def region_of(option: Option) -> str:
    """'eu-north1, Finland': the region of the offer an option is priced on, and its country when the region's id
    does not say it ('' for an option on no offer: owned GPUs, a quote)."""
    if not option.offer_id or option.offer_id.count(":") < 2:
        return ""
    region = option.offer_id.rsplit(":", 1)[1]
    country = country_name(region)
    if len(region) <= 3 and country:  # a marketplace or RunPod row gives only its country: "the US", "France"
        return country
    return f"{region}, {country}" if country else region


def cost_line_region(advice: Advice, option: Option | None) -> str:
    """' in eu-north1, Finland': appended to the Cost line under a region constraint; '' otherwise."""
    where = region_of(option) if option is not None and asked_where(advice) else ""
    return f" in {where}" if where else ""


def outside_headline(advice: Advice) -> str:
    """'but not in Germany' when the catalog had no offer in the place said (the plan is on the nearest one); ''."""
    if not any(p.code == NO_OFFER_IN_REGION for p in advice.problems):
        return ""
    return "but not in " + " or ".join(region_label(r) for r in advice.workload.regions or ())
