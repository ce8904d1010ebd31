"""What a thread keeps of an answer: the options its later layers and follow-ups can show.

An answer ranks 10-35 options, and each carries its memory breakdown, speed figures and cost rows with
their formulas (about 10 KB of JSON apiece, 300 KB for a QLoRA 70B question). A thread's buttons and
words show at most the first `MAX_OPTIONS_LISTED` (the "All options" layer), the ones the recommendation
names, and an option looked up by provider (a caveat's cheapest provider with an SLA, a follow-up's
runner-up from another provider, "what about on AWS?"), which is always that provider's first. Keeping
those, in rank order, renders every layer exactly as the whole answer does (tests/bot/test_stored.py)
while each turn writes, and each button click parses, a third as much.
"""

from __future__ import annotations

from bot.details import MAX_OPTIONS_LISTED
from engine.diff import provider_of
from engine.models import Advice


def stored_advice(advice: Advice) -> Advice:
    """`advice` with only the options a later layer can show; `options_ranked` keeps how many there were."""
    rec = advice.recommendation
    named = {n for n in (rec.primary, rec.runner_up, rec.cheapest, rec.fastest, *rec.alternatives) if n} if rec else set()
    kept, providers = [], set()
    for rank, option in enumerate(advice.options):
        provider = provider_of(option)  # as a follow-up's runner-up and the caveats look options up
        first_of_provider = provider not in providers
        providers.add(provider)
        if rank < MAX_OPTIONS_LISTED or option.name in named or first_of_provider:
            kept.append(option)
    if len(kept) == len(advice.options):
        return advice
    return advice.model_copy(update={"options": tuple(kept),
                                     "options_ranked": advice.options_ranked or len(advice.options)})
