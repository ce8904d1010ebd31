"""Where the data may be: "GDPR", "data can't leave germany", "must stay in canada", "in frankfurt", "keep it in eu".

Why its own module: `parser.regions` takes the areas and cloud region ids out of the text ("in the EU", "in eu-west-1")
but knew no country or city, and a plan did not use what it took; "finetune on patient records, data can't leave
germany" was planned on a marketplace host in Vietnam. Here the countries and cities with cloud regions are taken
out the same way (before the grammar, which would read "frankfurt" as an unknown name), GDPR is read as the EU, and
a residency wording ("must stay in", "can't leave", "only", "GDPR") marks the constraint as data residency: the
engine then keeps marketplace hosts (individual owners' machines, no data processing agreement) out as well
(`Workload.regions`, `Workload.data_residency`, engine.recommend.placed). "We're in Germany" says where the team is,
not where the data must be: it is left alone.
"""

from __future__ import annotations

import re

from .reading import Reading

# countries and cities a constraint names, as `catalog.regions.PLACES` keys
_PLACE_WORDS = {"germany": "germany", "frankfurt": "frankfurt", "canada": "canada", "france": "france",
                "the netherlands": "netherlands", "netherlands": "netherlands", "finland": "finland",
                "sweden": "sweden", "ireland": "ireland", "switzerland": "switzerland", "the uk": "uk", "uk": "uk",
                "the united kingdom": "uk", "united kingdom": "uk"}
_NAMES = "|".join(sorted((re.escape(k) for k in _PLACE_WORDS), key=len, reverse=True))
_PLACE = re.compile(
    rf"(?<!\bwere )(?<!\bwe are )(?<!\bim )(?<!\bi am )(?<!\bbased )"  # where the team is, not the data
    rf"\b(?:in|within|inside|leave|leaves|leaving|out of|outside(?: of)?) ({_NAMES})\b"
    rf"|\b({_NAMES})[- ](?:only|based|hosted|regions?|data ?cent(?:er|re)s?)\b")
_GDPR = re.compile(r"\(?\bgdpr\b(?:[- ]compliant| compliance)?\)?")
# wordings that make a region a residency rule, not a preference ("cheapest H100s in europe" is a preference)
_RESIDENCY = re.compile(
    r"\bgdpr\b|\bresidency\b|\bsovereign|\bcan ?not leave\b|\bcant leave\b|\bmust not leave\b|\bnever leaves?\b"
    r"|\bnot (?:to )?leave\b|\b(?:must|has to|have to|needs? to|should|got to|is to) (?:stay|remain|be|live|run|be "
    r"hosted|be stored|be processed|reside)\b|\bstays? in\b|\bremains? in\b|\bkeep (?:it|them|this|that|the data|data|"
    r"everything|all data|our data)\b|\bkept in\b|\bonly (?:in|within|inside)\b"
    rf"|\b(?:eu|us|usa|europe|{_NAMES})[- ]only\b")


def take_places(text: str) -> tuple[str, tuple[str, ...], bool]:
    """The text without its country, city and GDPR phrases; the places said (`catalog.regions` keys, GDPR as "eu"); and
    whether the message words a region as data residency. Read on the text before `parser.regions` takes the areas
    out, so "must stay in the EU" keeps its residency wording."""
    residency = bool(_RESIDENCY.search(text))
    found: list[str] = []

    def cut(match: re.Match[str]) -> str:
        found.append(_PLACE_WORDS[next(g for g in match.groups() if g)])
        return " "

    def gdpr(_: re.Match[str]) -> str:
        found.append("eu")
        return " "

    rest = _GDPR.sub(gdpr, _PLACE.sub(cut, text))
    if not found:
        return text, (), residency
    return re.sub(r" {2,}", " ", rest).strip(), tuple(dict.fromkeys(found)), residency


_PLANS = ("describe", "refine", "answer")


def with_residency(reading: Reading, regions: tuple[str, ...], residency: bool) -> Reading:
    """`reading` with the places said as a constraint on the plan (`regions`, and `data_residency` when worded as one),
    in place of the note that regions did not filter plans; a follow-up that says only a place ("needs to be in the
    EU", "keep it in eu") refines the thread's scenario. A price question keeps its regions for its table only."""
    if not regions:
        return reading
    if "eu" in regions:  # "most of them are in europe, keep it in eu": the EU, the narrower of the two
        regions = tuple(r for r in regions if r != "europe")
    reading = reading.model_copy(update={"regions": regions})
    if reading.intent not in (*_PLANS, "help", "gibberish"):
        return reading
    if reading.intent in ("help", "gibberish") and reading.updates:
        return reading
    updates = {**reading.updates, "regions": regions}
    if residency:
        updates["data_residency"] = True
    intent = "refine" if reading.intent in ("help", "gibberish") else reading.intent
    return reading.model_copy(update={"updates": updates, "intent": intent})
