"""Regions a message names ("in Europe", "in the EU", "in eu-west-1", "in us-east", "US-based"), taken out of the text.

A region is where the GPUs must be (data residency, latency), never a model, a GPU or a count; left in the text the
grammar read "eu-west-1" as an unknown model name and the "us" of "in us-east" as the pronoun that makes a price
question about the thread's scenario. So the phrase is taken out before the grammar sees it (as `asides` does), and
the Reading carries what was said (`Reading.regions`): a price question keeps the offers there
(`catalog.query.price_offers`, `catalog.regions`), and a plan keeps to offers there (`parser.residency`).

What counts: a cloud region id (AWS/OCI "eu-west-1", "us-ashburn-1"; GCP "europe-west4", "us-east4"; Nebius "eu-north1";
Azure "westeurope", "eastus2"), a region family without its number ("us-east", "eu-west"), and the areas Europe/EU,
the US/USA/United States, North America, Asia/APAC. A bare "us" or "eu" counts only after "in"/"within"/"inside"
("help us serve" is a pronoun) or before "-based"/"region(s)".
"""

from __future__ import annotations

import re

_DIRECTIONS = r"(?:north|south|east|west|central|northeast|northwest|southeast|southwest|gov-east|gov-west)"
_CLOUD_ID = (rf"(?:us|eu|ap|ca|sa|me|af|il|mx|uk)-{_DIRECTIONS}(?:-?\d+)?"  # AWS, Nebius, and the family "us-east"
             rf"|(?:europe|asia|australia|northamerica|southamerica|africa)-{_DIRECTIONS}\d+"  # GCP
             r"|(?:us|eu|uk|ap|ca|sa|me|af|il|mx)-[a-z]+-\d+"  # OCI ("eu-amsterdam-1", "us-ashburn-1")
             r"|(?:east|west|central|northcentral|southcentral|westcentral)us\d?|(?:north|west)europe|swedencentral"
             r"|uksouth|ukwest|francecentral|germanywestcentral|switzerlandnorth|norwayeast|polandcentral|italynorth"
             r"|japaneast|japanwest|koreacentral|southeastasia|eastasia|centralindia|australiaeast")
_AREA_WORDS = {"europe": "europe", "european": "europe", "eu": "eu", "the eu": "eu", "us": "us", "the us": "us",
               "usa": "us", "the usa": "us", "united states": "us", "the united states": "us", "america": "us",
               "north america": "north-america", "asia": "asia", "apac": "asia", "asia-pacific": "asia",
               "asia pacific": "asia"}
_PREP = r"(?:in|within|inside|across|located in|hosted in|based in|from)"
_AREA_PREP = r"(?:in|within|inside|across|located in|hosted in|based in)"  # "a quote from us" is the pronoun
_REGION = re.compile(
    rf"(?:\b{_PREP} (?:the )?)?(?:region )?(?<![\w.-])({_CLOUD_ID})(?![\w.-])(?: region)?"
    rf"|\b{_AREA_PREP} ((?:the )?(?:eu|us|usa|united states|north america|america|europe|asia|apac|asia[- ]pacific))"
    r"\b(?!-)"
    r"(?: regions?| data ?cent(?:er|re)s?)?"
    r"|\b(europe|european|asia|apac|north america)\b(?: regions?| data ?cent(?:er|re)s?)?"
    r"|\b(eu|us|usa)[- ](?:based|only|hosted|regions?|data ?cent(?:er|re)s?)\b")


def take_regions(text: str) -> tuple[str, tuple[str, ...]]:
    """The text without its region phrases, and the regions said, first first: an id as written ("eu-west-1"), an area
    as its key ("europe", "us", "asia", "north-america")."""
    found: list[str] = []

    def cut(match: re.Match[str]) -> str:
        said = next(g for g in match.groups() if g)
        found.append(_AREA_WORDS.get(said.replace("-", " ") if said.startswith("asia") else said, said))
        return " "

    rest = _REGION.sub(cut, text)
    if not found:
        return text, ()
    return re.sub(r" {2,}", " ", rest).strip(), tuple(dict.fromkeys(found))
