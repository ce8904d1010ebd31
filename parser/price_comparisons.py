"""Price questions that compare: several providers ("8x H200 on CoreWeave vs Lambda vs Nebius") or price kinds
("reserved vs on-demand for 8 H100s").

The fold keeps one provider (the first said) and reads two price kinds as a contradiction to ask about. In a
question about the price list, both are a request to see every one named: the Reading lists the providers (the
first stays `provider` for the rest of the code, a plan is still made at one) and the price question carries
`providers` / `compared_pricing` for `catalog.query.price_offers` and `bot.prices`, with the conflict dropped.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .reading import Reading, Resolved
from .said import Said

_JOINERS = {"vs", "versus", "or", "and", ",", "v", "against", "compared"}
_LEADS = {"on", "at", "with", "from", "to", "via", "using"}
_NOT_PROVIDERS = {"for", "the", "and", "with", "price", "prices", "cost", "costs", "gpu", "gpus", "hour", "month"}
# what a question about the price list may name besides the providers and kinds it compares
PRICE_LIST_FIELDS = frozenset({"gpu", "gpu_count", "provider", "pricing", "nodes", "instance_type"})


def named_providers(items: Sequence[Said], resolve: Callable[[str], Resolved | None]) -> tuple[str, ...]:
    """Provider ids in the order said: each one read as a provider, and a plain word joined to a provider before it
    ("on CoreWeave vs Lambda vs Nebius", "Lambda, RunPod or Nebius") that the catalog knows as a provider."""
    found: list[str] = []
    joined = False
    for said in items:
        provider = said.values.get("provider")
        text = said.text.strip()
        if provider:
            found.append(str(provider))
            joined = False
            continue
        words = text.split(" ")
        if text in _JOINERS or (words and words[0] in _JOINERS and all(w in _JOINERS | _LEADS for w in words)):
            joined = bool(found)
            continue
        if text in _LEADS and joined:
            continue
        if joined and said.word and len(text) >= 3 and text not in _NOT_PROVIDERS:
            resolved = resolve(text)
            if resolved is not None and resolved.id is not None:
                found.append(resolved.id)
                continue
        joined = False
    return tuple(dict.fromkeys(found))


def compare_prices(reading: Reading, items: Sequence[Said], resolve: Callable[[str], Resolved | None]) -> Reading:
    """The Reading with the providers named and, for a question about the price list, the comparison it asks for."""
    providers = named_providers(items, resolve)
    conflicts = {c.field: c for c in reading.conflicts}
    provider_conflict = conflicts.get("provider")
    if provider_conflict is not None:  # "on CoreWeave or on Lambda": both said with "on"
        providers = tuple(dict.fromkeys((*(str(v) for v in provider_conflict.values), *providers)))
    pricing = conflicts.get("pricing")
    rest = {k: v for k, v in reading.updates.items() if k not in ("provider", "pricing")}
    price_list = (set(rest) <= PRICE_LIST_FIELDS and set(conflicts) <= {"provider", "pricing"}
                  and bool(rest.get("gpu") or providers or reading.updates.get("provider")))
    several = len(providers) > 1
    if several and not (price_list and (reading.intent == "prices" or "price" in reading.cues or pricing)):
        return reading.model_copy(update={"providers": providers}) if provider_conflict is None else reading
    if not price_list or not (several or pricing is not None):
        return reading
    updates: dict[str, Any] = dict(reading.updates)
    notes = list(reading.notes)
    if several:
        updates.pop("provider", None)  # the offers of each are listed, not those of the first alone
        updates["providers"] = providers
    elif provider_conflict is None and "provider" in reading.updates:
        updates["provider"] = reading.updates["provider"]
    if pricing is not None:
        updates.pop("pricing", None)
        updates["compared_pricing"] = tuple(str(v) for v in pricing.values)
        notes.append(f"“{' vs '.join(pricing.said)}”: both listed, as a price comparison")
    return reading.model_copy(update={"updates": updates, "intent": "prices", "conflicts": (), "providers": providers,
                                      "notes": tuple(dict.fromkeys(notes))})
