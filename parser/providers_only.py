"""A provider constraint: "aws only", "we're an AWS shop", "must be on AWS", "only aws or gcp".

Why its own module: read from the message's words after the grammar, as a GPU vendor constraint is (parser.vendors).
The grammar reads "on AWS" as the provider, but "aws only" and "an AWS shop" as nothing, and "only aws or gcp" as
two providers in conflict; the plan then went to Lambda or RunPod at a quarter of what the team will pay on the cloud
it is allowed to use. One provider sets `provider`; several set `providers`, and the plans on all of them are ranked
together, so the answer names the cheaper.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .reading import Reading, Resolved

_NAME = r"[a-z][\w.-]*(?: cloud)?"
_ONE_OR_TWO = r"(?P<a>" + _NAME + r")(?: ?(?:,|or|and|/|,? or) ?(?P<b>" + _NAME + r"))?"
_CONSTRAINTS = (
    # "only aws or gcp", "only on aws", "just aws", "exclusively on azure"
    re.compile(r"\b(?:only|just|exclusively) (?:on |in |use |using )?" + _ONE_OR_TWO + r"\b"),
    # "aws only", "aws or gcp only", "aws-only"
    re.compile(r"\b" + _ONE_OR_TWO + r"(?: |-)only\b"),
    # "we're an aws shop" (normalized to "were"), "we are a gcp shop", "aws shop", "an azure house"
    re.compile(r"\b(?:an? )?(?P<a>" + _NAME + r") (?:shop|house)\b"),
    # "must be on aws", "has to run on gcp", "needs to stay in azure", "must be on aws or gcp"
    re.compile(r"\b(?:must|has to|have to|needs? to|got to) (?:be|run|stay|live) (?:on|in) " + _ONE_OR_TWO + r"\b"),
    # "we're on aws", "we are all-in on gcp", "we use aws exclusively"
    re.compile(r"\b(?:were|we are|we're) (?:all[- ]in )?on " + _ONE_OR_TWO + r"\b"),
)


_COMMON_WORDS = {"together"}  # Together AI's id, and an everyday word ("aws and gcp together")


def providers_said(text: str, resolve: Callable[[str], Resolved | None]) -> tuple[str, ...]:
    """The provider ids a constraint in `text` names, in the order said ("only aws or gcp": aws, gcp); () if none."""
    found: list[str] = []
    for pattern in _CONSTRAINTS:
        for match in pattern.finditer(text):
            for word in (match.group("a"), match.groupdict().get("b")):
                if not word or word in _COMMON_WORDS:
                    continue
                resolved = resolve(word) or resolve(word.split()[0])
                provider = getattr(resolved, "id", None)
                if provider and provider not in found:
                    found.append(provider)
    return tuple(found)


PROVIDERS_NOTE = "planned on {names} only, as asked"


def with_providers(reading: Reading, text: str, resolve: Callable[[str], Resolved | None]) -> Reading:
    """`reading` with `provider` (one) or `providers` (several) set when the message restricts where it runs, the
    conflict between them dropped ("only aws or gcp" is both, not a choice to ask about), and a note saying so."""
    said = providers_said(text, resolve)
    if not said or reading.intent == "prices":
        return reading
    updates = {k: v for k, v in reading.updates.items() if k not in ("provider", "providers")}
    if len(said) == 1:
        updates["provider"] = said[0]
    else:
        updates["providers"] = said
    conflicts = tuple(c for c in reading.conflicts if c.field != "provider")
    intent = "refine" if reading.intent in ("help", "gibberish") and not reading.updates else reading.intent
    note = PROVIDERS_NOTE.format(names=" or ".join(said))
    return reading.model_copy(update={"updates": updates, "conflicts": conflicts, "intent": intent,
                                      "notes": (*reading.notes, note)})
