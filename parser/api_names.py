"""A hosted model API named in a message: "… vs gpt-4o-mini api", "cheaper than claude haiku?", "should we self-host
llama 70b or use the together api", "how much would gpt-4o cost for 1B tokens a month".

Why taken out before the grammar reads the text: an API's name is no model to size ("I don't know “gpt-4o-mini”")
and no provider to rent GPUs from ("the together api" is Together's per-token endpoint, not its GPU clusters). The
names are the catalog's (`api_prices.csv`), found by the injected resolver's `find_api`, so the parser never
imports the catalog. The thread keeps the API as a cue (`API_CUE`), so "what about 100 users?" is compared again
and "vs claude haiku?" switches it.
"""

from __future__ import annotations

import re
from typing import Any

from .reading import Reading

API_CUE = "api:"  # a thread comparing its plan with a hosted API: the API's catalog id after it
# "serve gpt-5 on h100", "fine-tune claude-3": the name is what they want on their GPUs, read as a model (the answer
# asks which open model it is like), not an API to compare with
_HOSTED_BY_THEM = re.compile(r"\b(?:serve|serving|deploy|deploying|host|hosting|self-host|self-hosting|run|running|"
                             r"fine-?tune|fine-?tuning|train|training|pretrain|quantize|load)\s+(?:the\s+|a\s+)?$")


def take_api(text: str, resolver: Any) -> tuple[str, str | None]:
    """(the text without the API's words, the API's catalog id), or (text, None) when none is named or the resolver
    cannot find APIs. Never raises."""
    find = getattr(resolver, "find_api", None)
    if not callable(find):
        return text, None
    try:
        mention = find(text)
    except Exception:  # noqa: BLE001 - a lookup failure leaves the text as said
        return text, None
    if mention is None or _HOSTED_BY_THEM.search(text[:mention.start]):
        return text, None
    rest = re.sub(r"\s{2,}", " ", f"{text[:mention.start]} {text[mention.end:]}").strip(" ,;")
    return rest, str(mention.id)


def with_api(reading: Reading, api: str | None) -> Reading:
    """The reading with the API named, if any."""
    return reading if api is None else reading.model_copy(update={"api": api})


def api_cues(cues: set[str], api: str | None, *, fresh: bool) -> set[str]:
    """The thread's cues after a message: the API it names replaces the thread's; a new question ends the comparison
    unless it names one itself."""
    if api is None and not fresh:
        return cues
    kept = {c for c in cues if not c.startswith(API_CUE)}
    return kept | {API_CUE + api} if api is not None else kept


def thread_api(cues: set[str] | frozenset[str]) -> str | None:
    """The API a thread compares with, or None."""
    return next((c[len(API_CUE):] for c in sorted(cues) if c.startswith(API_CUE)), None)
