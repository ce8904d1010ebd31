"""Two GPUs asked about together, compared at one provider that rents both.

Why: each side's cheapest plan sits wherever that GPU is cheapest, so "H100 vs H200 for Llama 3.3 70B, 64 users" had
compared Nebius's H200 ($3.50 a GPU-hour) with RunPod's H100 ($3.99) and called the H200 cheaper; at RunPod, which
rents both, the H100 is. A verdict about GPUs is read at one provider; each side's cheapest anywhere is the second
line, with the shapes of the plans when they differ (two 1-GPU replicas survive a GPU failing, one TP 2 replica does
not)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from engine.models import Advice, Option


@dataclass(frozen=True)
class AtProvider:
    """One side's best plan at the provider chosen for the comparison (`provider`), by the question's measure."""

    provider: str  # provider id
    provider_name: str
    option: str  # Option.name
    gpus: int
    usd_per_month: float
    usd_per_1m_tokens: float | None  # serving
    usd_per_run: float | None  # training
    hours_per_run: float | None
    tokens_per_s_per_user: float | None
    replicas: int | None = None  # serving: the plan's shape
    gpus_per_replica: int | None = None


def provider_of(option: Option) -> str:
    """The provider id of an option (its offer id's first part), "" for a price the user gave."""
    return (option.offer_id or "").split(":")[0]


def _meets(option: Option) -> bool:
    return option.cluster.fits and all(t.met for t in option.throughput.targets)


def measure(option: Option, advice: Advice, per: str) -> float:
    """What the comparison ranks by: a run's cost ("run"), per 1M output tokens ("token"), or a month ("month")."""
    from engine.recommend import run_cost_usd

    if per == "run":
        return run_cost_usd(option.tco, advice.effective)
    if per == "token":
        tp = option.throughput.cost_per_1m_tokens_usd
        return tp.value if tp is not None else float("inf")
    return option.total_usd


def _speed(option: Option) -> float:
    tp = option.throughput.decode_tokens_per_s_per_sequence
    return tp.value if tp is not None else 0.0


def best_by_provider(advice: Advice, skip: Iterable[str] = ()) -> dict[str, Option]:
    """Each provider's best option meeting the targets, in the engine's own order (best first: RunPod's 8 A100s for a
    LoRA run at $126 in 10 h, not its single A100 at $124 in 3.2 days)."""
    from engine.serving import floor_kept_at

    skipped = set(skip)
    out: dict[str, Option] = {}
    serving = (advice.effective.mode or "inference") == "inference"
    # a service keeps the interactive speed floor (one MI300X at 16.6 tokens/s is not the plan two H100s are
    # compared with), unless no option of this GPU keeps it (GPUs fixed): then none is held to it
    floor = floor_kept_at(advice.effective) if serving else 0.0
    if not any(_speed(o) >= floor for o in advice.options if _meets(o)):
        floor = 0.0
    for option in advice.options:
        provider = provider_of(option)
        if provider and provider not in skipped and provider not in out and _meets(option) and _speed(option) >= floor:
            out[provider] = option
    return out


def at_provider(option: Option, advice: Advice, provider_name: str) -> AtProvider:
    """The figures a comparison row and headline say for one option."""
    from engine.recommend import run_cost_usd

    serving = (advice.effective.mode or "inference") == "inference"
    tp = option.throughput
    per_1m = tp.cost_per_1m_tokens_usd.value if serving and tp.cost_per_1m_tokens_usd is not None else None
    return AtProvider(provider=provider_of(option), provider_name=provider_name, option=option.name,
                      gpus=option.cluster.gpus, usd_per_month=option.total_usd, usd_per_1m_tokens=per_1m,
                      usd_per_run=None if serving else run_cost_usd(option.tco, advice.effective),
                      hours_per_run=None if serving else option.hours_per_run,
                      tokens_per_s_per_user=_speed(option) or None if serving else None,
                      replicas=option.cluster.replicas if serving else None,
                      gpus_per_replica=option.cluster.gpus_per_replica if serving else None)


def shared_provider(first: Advice, second: Advice, per: str, marketplaces: frozenset[str],
                    names: Any) -> tuple[AtProvider, AtProvider] | None:
    """Both sides at the provider renting both where the two together cost least (a team standardising on one
    provider pays both bills there), marketplace hosts left out (no SLA: like with like); None when no provider
    rents both. `names`: provider id -> display name."""
    both = shared_by_all((first, second), per, marketplaces, names)
    return (both[0], both[1]) if both is not None else None


# a run at the shared provider taking more than this many times the side's own best plan is another job, not the same
# one somewhere else: "B300 vs B200, 30B on 3T tokens" had been compared at RunPod, whose 8-GPU boxes (no fabric between
# them) take 967 days, against the 30 days the 256-GPU plans take at AWS, which rents both
RUN_HOURS_SPREAD = 2.0


def _comparable(best: dict[str, Option], per: str) -> dict[str, Option]:
    """A side's plans per provider, less those that are not the same job: for a run, one much slower than the side's
    own pick (the engine's first, `best`'s first entry)."""
    if per != "run" or not best:
        return best
    own = next(iter(best.values())).hours_per_run
    if not own:
        return best
    return {p: o for p, o in best.items() if not o.hours_per_run or o.hours_per_run <= RUN_HOURS_SPREAD * own}


def shared_by_all(advices: Sequence[Advice], per: str, marketplaces: frozenset[str],
                  names: Any) -> tuple[AtProvider, ...] | None:
    """Every side at the provider renting them all where together they cost least ("H100 vs H200 vs B200 vs MI300X"
    as `shared_provider` does for two); None when no provider rents them all (each is then read at its cheapest)."""
    bests = [_comparable(best_by_provider(a, marketplaces), per) for a in advices]
    common = set.intersection(*(set(b) for b in bests)) if bests else set()
    if not common:
        return None
    provider = min(common, key=lambda p: (sum(measure(b[p], a, per) for b, a in zip(bests, advices, strict=True)), p))
    name = names.get(provider, provider)
    return tuple(at_provider(b[provider], a, name) for b, a in zip(bests, advices, strict=True))


def shape_words(replicas: int | None, per_replica: int | None) -> str:
    """"2 replicas of 1 GPU", "1 replica of 2 GPUs (TP 2)": a serving plan's shape."""
    if not replicas or not per_replica:
        return ""
    tp = f" (TP {per_replica})" if per_replica > 1 else ""
    return (f"{replicas} replica{'s' if replicas != 1 else ''} of {per_replica} GPU{'s' if per_replica != 1 else ''}"
            f"{tp}")


def redundancy_words(a_name: str, a: AtProvider, b_name: str, b: AtProvider) -> str:
    """What the shapes mean when one side has several replicas and the other one: failover. "" otherwise."""
    ra, rb = a.replicas or 1, b.replicas or 1
    if (ra > 1) == (rb > 1) or not (a.replicas and b.replicas):
        return ""
    many, one = (a_name, b_name) if ra > 1 else (b_name, a_name)
    left = max(ra, rb)
    return (f"{many}'s {left} replicas keep serving ({(left - 1) / left:.0%} of the users) when a GPU fails; "
            f"{one}'s single replica has no failover")
