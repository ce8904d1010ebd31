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


# The EU and EEA, where GDPR applies without a transfer mechanism: "in the EU" and "GDPR" keep offers in these countries
# (Switzerland and the UK have adequacy decisions, but are outside it: a transfer, which a residency rule forbids)
_EU_CODES = {"at", "be", "bg", "cy", "cz", "de", "dk", "ee", "es", "fi", "fr", "gr", "hr", "hu", "ie", "is", "it", "li",
             "lt", "lu", "lv", "mt", "nl", "no", "pl", "pt", "ro", "se", "si", "sk"}
# cloud region ids (written without hyphens, as `_compact` writes them) -> the country their data centers are in, from
# each cloud's region list; a row that gives only a country code is its own country
_COUNTRY_OF_REGION = {
    # AWS
    "eucentral1": "de", "eucentral2": "ch", "euwest1": "ie", "euwest2": "gb", "euwest3": "fr", "eunorth1": "se",
    "eusouth1": "it", "eusouth2": "es", "cacentral1": "ca", "cawest1": "ca",
    # GCP
    "europewest1": "be", "europewest2": "gb", "europewest3": "de", "europewest4": "nl", "europewest6": "ch",
    "europewest8": "it", "europewest9": "fr", "europewest10": "de", "europewest12": "it", "europenorth1": "fi",
    "europecentral2": "pl", "europesouthwest1": "es", "northamericanortheast1": "ca", "northamericanortheast2": "ca",
    # Nebius (eu-north1 is Finland, eu-west1 Paris), OCI
    "eunorth1nebius": "fi", "euwest1nebius": "fr",
    "euamsterdam1": "nl", "eufrankfurt1": "de", "euzurich1": "ch", "eumadrid1": "es", "eumarseille1": "fr",
    "eumilan1": "it", "euparis1": "fr", "eustockholm1": "se", "uklondon1": "gb", "catoronto1": "ca", "camontreal1": "ca",
    # Azure
    "germanywestcentral": "de", "germanynorth": "de", "francecentral": "fr", "swedencentral": "se", "northeurope": "ie",
    "westeurope": "nl", "uksouth": "gb", "ukwest": "gb", "switzerlandnorth": "ch", "norwayeast": "no",
    "polandcentral": "pl", "italynorth": "it", "spaincentral": "es", "canadacentral": "ca", "canadaeast": "ca",
}
# "eu-north1" is Nebius's Finland region and AWS's "eu-north-1" Stockholm: the hyphen before the number tells them apart
_NEBIUS_STYLE = re.compile(r"^eu-(?:north|west)\d+$")
# places a constraint may name beyond the areas: the EU, countries, and cities with cloud regions in them. A country
# keeps offers in it; a city keeps the cloud regions there (a marketplace row gives only a country, so it is not known
# to be in the city). `label`, the countries, the regions, and the place looked at when the catalog has none there
PLACES: dict[str, tuple[str, frozenset[str], frozenset[str], str]] = {
    "eu": ("the EU", frozenset(_EU_CODES), frozenset(), "europe"),
    "germany": ("Germany", frozenset({"de"}), frozenset(), "eu"),
    "frankfurt": ("Frankfurt", frozenset(), frozenset({"eucentral1", "europewest3", "germanywestcentral", "eufrankfurt1"}),
                  "eu"),
    "france": ("France", frozenset({"fr"}), frozenset(), "eu"),
    "netherlands": ("the Netherlands", frozenset({"nl"}), frozenset(), "eu"),
    "finland": ("Finland", frozenset({"fi"}), frozenset(), "eu"),
    "sweden": ("Sweden", frozenset({"se"}), frozenset(), "eu"),
    "ireland": ("Ireland", frozenset({"ie"}), frozenset(), "eu"),
    "switzerland": ("Switzerland", frozenset({"ch"}), frozenset(), "europe"),
    "uk": ("the UK", frozenset({"gb", "uk"}), frozenset(), "europe"),
    "canada": ("Canada", frozenset({"ca"}), frozenset(), "north-america"),
}
# where a place's offers would be when the catalog has none: its hyperscaler regions (each cloud's region list)
CLOUD_REGIONS_IN = {
    "germany": "AWS eu-central-1 (Frankfurt), GCP europe-west3 (Frankfurt) and Azure Germany West Central (Frankfurt)",
    "frankfurt": "AWS eu-central-1, GCP europe-west3 and Azure Germany West Central",
    "canada": "AWS ca-central-1 (Montreal), GCP northamerica-northeast1 and -2 (Montreal, Toronto) and Azure Canada "
              "Central (Toronto)",
    "eu": "AWS eu-central-1 (Frankfurt) and eu-west-1 (Ireland), GCP europe-west4 (Netherlands), Azure West Europe "
          "(Netherlands) and Sweden Central, among others",
    "france": "AWS eu-west-3, GCP europe-west9 and Azure France Central (all Paris)",
    "uk": "AWS eu-west-2, GCP europe-west2 and Azure UK South (all London)",
    "switzerland": "AWS eu-central-2, GCP europe-west6 and Azure Switzerland North (all Zurich)",
}
_COUNTRY_NAMES = {"de": "Germany", "fi": "Finland", "nl": "the Netherlands", "fr": "France", "se": "Sweden",
                  "ie": "Ireland", "it": "Italy", "es": "Spain", "pl": "Poland", "be": "Belgium", "cz": "Czechia",
                  "dk": "Denmark", "ch": "Switzerland", "gb": "the UK", "no": "Norway", "ca": "Canada", "us": "the US",
                  "vn": "Vietnam", "jp": "Japan", "tw": "Taiwan", "in": "India", "sg": "Singapore"}


def country_of(region: str) -> str:
    """The country (ISO code, lower case) an offer's region is in: its code when the row gives one, the cloud
    region's country from the table above, 'us' for US regions; '' when not known."""
    key = (region or "").strip().lower()
    if len(key) == 2 or key == "usa":
        return "us" if key == "usa" else "gb" if key == "uk" else key
    if _NEBIUS_STYLE.match(key):
        return _COUNTRY_OF_REGION.get(_compact(key) + "nebius", "")
    found = _COUNTRY_OF_REGION.get(_compact(key))
    if found:
        return found
    return "us" if area_of(key) == "us" else ""


def country_name(region: str) -> str:
    """'Finland' for 'eu-north1', 'the Netherlands' for 'eu-amsterdam-1'; '' when the country is not known."""
    code = country_of(region)
    return _COUNTRY_NAMES.get(code, code.upper())


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
    place = PLACES.get(wanted)
    if place is not None:
        return country_of(region) in place[1] or _compact(region) in place[2]
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
    """Where an answer looks when the place asked has no offer: the area a region id lies in ('eu-west-1' ->
    'europe'), the place around a country or city ('germany' -> 'eu', 'frankfurt' -> 'eu'); '' for an area itself
    or an id of no known area."""
    wanted = said.strip().lower()
    if wanted in PLACES:
        return PLACES[wanted][3]
    return "" if wanted in AREA_LABELS else area_of(wanted)


def label(said: str) -> str:
    """How an answer names the region asked: 'Europe', 'the US', 'eu-west-1'."""
    key = said.strip().lower()
    return PLACES[key][0] if key in PLACES else AREA_LABELS.get(key, said)


def regions_of(regions: Iterable[str]) -> str:
    """'us-east-1 and us-west-2': the distinct regions of some offers, as a list in a sentence."""
    found = sorted(dict.fromkeys(r for r in regions if r))
    return found[0] if len(found) == 1 else f"{', '.join(found[:-1])} and {found[-1]}" if found else ""
