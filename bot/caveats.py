"""The engine notes that change the decision, cut to one short line each for the first message.

Why its own module: the engine explains everything it assumed or ranked down in `advice.notes`,
full sentences meant for the Details layer. A few of them decide whether the pick can be taken as
it stands (GeForce cards or a marketplace host for a service, spot for a multi-node training run,
a model that was guessed, a managed service the user asked for but that did not win), and a busy
reader must see those without opening anything. This module recognises those notes by the words
the engine opens them with (tests/bot/test_caveats.py runs the real engine, so a rewording there
fails a test here) and says each in one line, most important first. It selects and shortens; it
never estimates.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from bot.formatting import fmt_usd, fmt_usd_short, winner_name
from engine.models import Advice, Option

# How the engine's notes begin (engine/recommend.py, engine/architecture.py, engine/advise.py).
CONSUMER_NOTE = "consumer GPUs and marketplace hosts"
SPOT_TRAINING_NOTE = "spot: checkpoint"
SPOT_SERVING_NOTE = "spot for serving"
ASSUMED_MODEL_NOTE = "no model named: assumed"
NO_TOKENS_NOTE = "no token count, so no GPU-hours or monthly cost: the cheapest fitting configuration is "
TIGHT_NOTE = "tight memory: "

MAX_CAVEATS = 2  # the first message keeps its ten-second read: details hold the full sentences


@dataclass(frozen=True)
class HardwareKinds:
    """What the catalog says about the shown options' hardware, which the notes cannot: which GPU ids
    are consumer cards, which provider ids are marketplaces or managed services, provider names."""

    consumer_gpus: frozenset[str] = frozenset()
    marketplaces: frozenset[str] = frozenset()
    managed: frozenset[str] = frozenset()
    provider_names: Mapping[str, str] | None = None


def _provider(option: Option) -> str:
    return option.tco[0].provider if option.tco else ""


def _starting(notes: Collection[str], prefix: str) -> str | None:
    return next((n for n in notes if n.startswith(prefix)), None)


def _picked(advice: Advice) -> list[Option]:
    """The winner and the runner-up: the options a reader may act on from the first message."""
    wanted = [winner_name(advice), advice.recommendation.runner_up if advice.recommendation else None]
    by_name = {o.name: o for o in advice.options}
    return [by_name[n] for n in wanted if n and n in by_name]


def _consumer_line(advice: Advice, kinds: HardwareKinds) -> str | None:
    note = _starting(advice.notes, CONSUMER_NOTE)
    if note is None:
        return None
    for role, option in zip(("The pick", "The runner-up"), _picked(advice), strict=False):
        geforce, market = option.gpu in kinds.consumer_gpus, _provider(option) in kinds.marketplaces
        if not (geforce or market):
            continue
        what = {(True, True): "a GeForce card on a marketplace host: its driver licence excludes datacenters, "
                              "no ECC, no SLA",
                (True, False): "a GeForce card: its driver licence excludes datacenters, no ECC",
                (False, True): "a marketplace host: one rented machine, no SLA"}[(geforce, market)]
        dearer = re.search(r"(\d+% dearer)", note)
        return f"{role} is {what}" + (f" (ranked {dearer.group(1)} for it)" if dearer else "")
    return None


def _spot_line(advice: Advice) -> str | None:
    note = _starting(advice.notes, SPOT_TRAINING_NOTE)
    if note is not None:
        extra = re.search(r"(\d+%) more GPU-hours", note)
        nodes = advice.cluster.nodes if advice.cluster is not None else 1
        stall = f"one preemption stalls all {nodes} nodes until capacity returns" if nodes > 1 else \
            "a preemption waits for capacity"
        counted = f" ({extra.group(1)} more GPU-hours counted)" if extra else ""
        return f"Spot: checkpoint every 30-60 min and resume automatically; {stall}{counted}"
    if _starting(advice.notes, SPOT_SERVING_NOTE) is not None:
        return "Spot for serving: instances can be reclaimed at a minute's notice; keep on-demand capacity behind it"
    return None


def _tight_line(advice: Advice) -> str | None:
    note = _starting(advice.notes, TIGHT_NOTE)
    found = re.match(re.escape(TIGHT_NOTE) + r"([\d.,]+) of ([\d.,]+) GB usable per GPU \((\d+%)", note or "")
    if found is None:
        return None
    return (f"Tight: {found.group(1)} of {found.group(2)} GB usable per GPU ({found.group(3)}); test the peak on one "
            "node first or take the next-larger plan")


def _model_line(advice: Advice) -> str | None:
    note = _starting(advice.notes, ASSUMED_MODEL_NOTE)
    if note is None:
        return None
    found = re.search(r"assumed an? (.+?)-like architecture", note)
    like = f"a {found.group(1)}-like architecture" if found else "a typical architecture of that size"
    return f"No model named: sized as {like}; name the model for exact figures"


def _managed_line(advice: Advice, kinds: HardwareKinds) -> str | None:
    """The user named a managed service (SageMaker) and another provider won: its price, for comparison."""
    asked = advice.workload.provider
    if not asked or asked not in kinds.managed:
        return None
    winner = next((o for o in advice.options if o.name == winner_name(advice)), None)
    if winner is None or _provider(winner) == asked:
        return None
    name = (kinds.provider_names or {}).get(asked, asked)
    option = next((o for o in advice.options if _provider(o) == asked), None)
    if option is None:
        return f"{name}, as asked, has no priced offer that fits this plan"
    return (f"{name}, as asked: {option.name} at {fmt_usd_short(option.total_usd)}/month "
            f"(the pick: {fmt_usd_short(winner.total_usd)}/month)")


def decision_caveats(advice: Advice, kinds: HardwareKinds | None = None) -> list[str]:
    """At most two lines, most important first: hardware that cannot run a service as is, spot risk
    for a training run, a plan at 95%+ of memory, a guessed model, the managed service the user asked about."""
    kinds = kinds or HardwareKinds()
    lines = [_consumer_line(advice, kinds), _spot_line(advice), _tight_line(advice), _model_line(advice),
             _managed_line(advice, kinds)]
    return [line for line in lines if line][:MAX_CAVEATS]


def cheapest_fitting(advice: Advice) -> str | None:
    """'AWS SageMaker 1x H100 SXM5 80GB (on-demand) at $7.91/hour' when there is no token count to
    cost a run: the hourly price of the cheapest configuration that fits, from the engine's note."""
    note = _starting(advice.notes, NO_TOKENS_NOTE)
    if note is None:
        return None
    found = re.match(re.escape(NO_TOKENS_NOTE) + r"(.+?) at \$([\d,]+(?:\.\d+)?)/hour", note)
    if found is None:
        return None
    return f"{found.group(1)} at {fmt_usd(float(found.group(2).replace(',', '')))}/hour"
