"""Which offers are in a region a price question names ("in Europe", "in eu-west-1", "in us-east").

A region in a price question is usually a data-residency (GDPR) or latency constraint, so an offer outside it must not
answer the question. The catalog's `region` column is whatever each source calls its location: a cloud region id
(AWS/Nebius "eu-north1", GCP "us-east4", OCI "eu-amsterdam-1", Azure "eastus"), a provider's own name for one
("us-central-8"), or a marketplace host's country code (Vast.ai "FR", RunPod "US"). Here each is placed in an area
(Europe, the US, Asia, ...) and compared with what was said: an area matches every offer in it, a region id the offers
in that region (written with or without the hyphen before its number: "eu-north1", "eu-north-1"), and a region id
without a number ("us-east") every region it begins (us-east-1, us-east4, Azure's eastus2). A row that gives only a
country ("US") is not known to be in any one region, so it matches the country's area but not a region id.

Pure functions over strings: the parser says what was asked (`parser.regions`), `catalog.query.price_offers` filters.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# the areas a question may name, as the parser writes them, and how an answer says them
AREA_LABELS = {"europe": "Europe", "us": "the US", "asia": "Asia-Pacific", "north-america": "North America"}
_EUROPE_CODES = {"at", "be", "bg", "ch", "cy", "cz", "de", "dk", "ee", "es", "fi", "fr", "gb", "gr", "hr", "hu", "ie",
                 "is", "it", "lt", "lu", "lv", "mt", "nl", "no", "pl", "pt", "ro", "se", "si", "sk", "uk"}
_ASIA_CODES = {"au", "cn", "hk", "id", "in", "jp", "kr", "my", "nz", "ph", "sg", "th", "tw", "vn"}
_NORTH_AMERICA_CODES = {"ca", "mx"}
# cloud region id prefixes (AWS, GCP, OCI, Nebius) and Azure region names, by area
_PREFIXES = (("us-", "us"), ("eu-", "europe"), ("europe-", "europe"), ("uk-", "europe"), ("ap-", "asia"),
             ("asia-", "asia"), ("australia-", "asia"), ("ca-", "north-america"), ("northamerica-", "north-america"))
_AZURE_EUROPE = re.compile(r"^(?:north|west)europe$|^(?:uk|france|germany|sweden|switzerland|norway|poland|italy|spain)\w*$")
_AZURE_US = re.compile(r"^(?:east|west|central|northcentral|southcentral|westcentral)us\d?$")
_AZURE_ASIA = re.compile(r"^(?:east|southeast)asia$|^(?:japan|korea|australia|centralindia|southindia|westindia)\w*$")
# Azure's names for the US region families, as the hyphenated ids people write ("us-east" covers eastus and eastus2)
_AZURE_AS_ID = {"eastus": "useast", "eastus2": "useast", "westus": "uswest", "westus2": "uswest", "westus3": "uswest",
                "centralus": "uscentral", "northcentralus": "uscentral", "southcentralus": "uscentral",
                "westcentralus": "uscentral", "westeurope": "euwest", "northeurope": "eunorth"}


def area_of(region: str) -> str:
    """'europe', 'us', 'asia', 'north-america', or '' when the location is not known to be in any of them."""
    key = (region or "").strip().lower()
    if key in ("us", "usa"):
        return "us"
    if key in _EUROPE_CODES:
        return "europe"
    if key in _ASIA_CODES:
        return "asia"
    if key in _NORTH_AMERICA_CODES:
        return "north-america"
    for prefix, area in _PREFIXES:
        if key.startswith(prefix):
            return area
    if _AZURE_US.match(key):
        return "us"
    if _AZURE_EUROPE.match(key):
        return "europe"
    if _AZURE_ASIA.match(key):
        return "asia"
    return ""


def _compact(region: str) -> str:
    """'eu-north-1' and 'eu-north1' alike ('eunorth1'); Azure's 'eastus2' as the id family it is ('useast')."""
    key = (region or "").strip().lower()
    return _AZURE_AS_ID.get(key, key.replace("-", "").replace("_", ""))


def in_region(region: str, said: str) -> bool:
    """Whether an offer in `region` is in the region `said` (an area, a region id, or a region id's family)."""
    wanted = said.strip().lower()
    if wanted in AREA_LABELS:
        area = area_of(region)
        return area == wanted or (wanted == "north-america" and area == "us")
    key = (region or "").strip().lower()
    if key in ("us", "usa") or len(key) <= 2:  # a country only: not known to be in any one region
        return False
    mine, theirs = _compact(key), _compact(wanted)
    if mine == theirs:
        return True
    if not any(ch.isdigit() for ch in theirs):  # "us-east": each region of that family
        return mine.startswith(theirs)
    return False


def widened_area(said: str) -> str:
    """The area a region id lies in ('eu-west-1' -> 'europe'), where an answer looks when the id has no offer; ''
    for an area itself or an id of no known area."""
    wanted = said.strip().lower()
    return "" if wanted in AREA_LABELS else area_of(wanted)


def label(said: str) -> str:
    """How an answer names the region asked: 'Europe', 'the US', 'eu-west-1'."""
    return AREA_LABELS.get(said.strip().lower(), said)


def regions_of(regions: Iterable[str]) -> str:
    """'us-east-1 and us-west-2': the distinct regions of some offers, as a list in a sentence."""
    found = sorted(dict.fromkeys(r for r in regions if r))
    return found[0] if len(found) == 1 else f"{', '.join(found[:-1])} and {found[-1]}" if found else ""
