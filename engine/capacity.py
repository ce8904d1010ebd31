"""What a fixed set of GPUs serves, asked the other way round ("how many requests per second can one H100
handle?"): the request rate the users held at the speed floor sustain.

Why a formula of its own: a served load is usually given and the GPUs sized for it; a capacity question gives
the GPUs and asks for the load. The users the GPUs hold at the speed floor come from the serving plan; each of
them is busy for one request at a time (its prefill, then its reply at the per-user speed), so the rate is
Little's law: concurrency / time per request.
"""

from __future__ import annotations

from dataclasses import dataclass

from catalog.records import CatalogData
from engine.advise import advise
from engine.models import Advice, Figure, Option, Workload
from engine.recommendation import recommended
from engine.serving import floor_kept_at, user_floor
from engine.throughput import request_shape


def requests_per_s_held(w: Workload, users: int, tokens_per_s_per_user: float, first_token_s: float) -> Figure | None:
    """Requests per second that `users` concurrent streams complete, each reply of the workload's (or the default)
    length generated at `tokens_per_s_per_user` after `first_token_s`; None when the speed is unknown."""
    if users <= 0 or tokens_per_s_per_user <= 0:
        return None
    _, reply = request_shape(w)
    seconds = max(0.0, first_token_s) + reply / tokens_per_s_per_user
    said = w.output_tokens is not None
    return Figure(
        value=users / seconds, unit="requests/s",
        formula="users held / (first-token time + reply tokens / tokens per second per user) (Little's law)",
        inputs={"users": users, "reply_tokens": reply, "tokens_per_s_per_user": round(tokens_per_s_per_user, 2),
                "first_token_s": round(first_token_s, 3)},
        notes=() if said else (f"replies of {reply:,} tokens assumed; say the reply length to change it",),
    )


# A capacity question with a monthly budget ("we have $20k/month, how many concurrent users can we serve Llama 3.3
# 70B for?") asks for the users the budget keeps at the speed floor, not what the cheapest GPU holds: it had answered
# "1 GH200, about 18 users" at $1,672, $18k of the budget unspent, where 4 B200s hold ~400.
BUDGET_USERS_STEP = 0.05  # the search stops within 5% of the most users: the answer says "about"
BUDGET_USERS_MAX = 200_000  # past this many users at once the search stops (a fleet no budget sentence describes)
ALTERNATIVE_GPUS = 2  # other GPUs said beside the pick, by the users the budget keeps on each


@dataclass(frozen=True)
class BudgetAlternative:
    """Another GPU type within the same budget: as many replicas of its plan at the users found as the budget buys
    (replicas scale linearly; each holds at least its share of those users at the floor)."""

    gpu: str
    gpus: int
    users: int
    usd_per_month: float


@dataclass(frozen=True)
class BudgetCapacity:
    """The most users at once a monthly budget keeps at the speed floor, the plan for them and a few other GPUs."""

    users: int
    advice: Advice  # the engine's ordinary plan for `users` (what naming that load answers)
    option: Option  # its recommended option, within the budget
    budget_usd_per_month: float
    alternatives: tuple[BudgetAlternative, ...] = ()
    plans_tried: int = 0  # engine plans the search ran (its cost: each is one ordinary answer's planning)


def _within(advice: Advice, budget: float) -> Option | None:
    """The recommended option when it is within `budget` a month, meets every target and keeps the speed floor."""
    if advice.cluster is None or not advice.cluster.fits or advice.recommendation is None:
        return None
    option = recommended(list(advice.options), advice.recommendation)
    if option is None or option.total_usd > budget * 1.0001 or any(not t.met for t in option.throughput.targets):
        return None
    speed = option.throughput.decode_tokens_per_s_per_sequence
    # kept as every plan keeps the assumed floor (within its slack): a strict 20 stops the search at the first count
    # planned at 19.x (200 users on 2 B200 at 19.3, where 383 on 4 B200 hold 20.6)
    return option if speed is not None and speed.value >= floor_kept_at(advice.effective) else None


def most_users_within(w: Workload, data: CatalogData, start: int) -> BudgetCapacity | None:
    """The most users at once whose ordinary plan fits `w`'s monthly budget at the speed floor: from `start` (the
    users the budget buys on the one-stream plan's GPUs, replicated), doubled while the plan fits, then halved in
    between to within BUDGET_USERS_STEP. The plan is monotone in users (more users never cost less), so the search
    is a bisection; ~8 plans, each one ordinary answer's planning. None without a budget, or when not even `start`
    fits it."""
    budget = w.budget_usd_per_month
    if budget is None or start < 1:
        return None
    tried = 0

    def plan(users: int) -> tuple[Advice, Option | None]:
        nonlocal tried
        tried += 1
        advice = advise(w.model_copy(update={"concurrency": users}), data)
        return advice, _within(advice, budget)

    lo = max(1, start)
    best = plan(lo)
    while best[1] is None and lo > 1:  # the replicated one-stream plan overshot: come down
        lo = max(1, lo // 2)
        best = plan(lo)
    if best[1] is None:
        return None
    hi: int | None = None
    while hi is None and lo < BUDGET_USERS_MAX:
        trial = plan(min(BUDGET_USERS_MAX, lo * 2))
        if trial[1] is not None:
            lo, best = min(BUDGET_USERS_MAX, lo * 2), trial
        else:
            hi = lo * 2
    while hi is not None and hi - lo > max(1, int(lo * BUDGET_USERS_STEP)):
        mid = (lo + hi) // 2
        trial = plan(mid)
        if trial[1] is not None:
            lo, best = mid, trial
        else:
            hi = mid
    advice, option = best
    assert option is not None
    return BudgetCapacity(lo, advice, option, budget, _alternatives(advice, option, lo, budget), tried)


def _alternatives(advice: Advice, pick: Option, users: int, budget: float) -> tuple[BudgetAlternative, ...]:
    """Per other GPU type planned for the same users: its cheapest option at the floor, replicated as the budget
    allows; the ALTERNATIVE_GPUS that keep the most users."""
    floor = user_floor(advice.effective)
    cheapest: dict[str, Option] = {}
    for o in advice.options:
        speed = o.throughput.decode_tokens_per_s_per_sequence
        if o.gpu == pick.gpu or speed is None or speed.value < floor * 0.999 or o.total_usd <= 0:
            continue
        if o.gpu not in cheapest or o.total_usd < cheapest[o.gpu].total_usd:
            cheapest[o.gpu] = o
    out: list[BudgetAlternative] = []
    for gpu, o in cheapest.items():
        replicas = max(1, int(o.cluster.replicas or 1))
        per_replica = o.total_usd / replicas
        bought = int(budget * 1.0001 // per_replica)
        if bought < 1:
            continue
        out.append(BudgetAlternative(gpu, o.cluster.gpus // replicas * bought, users * bought // replicas,
                                     per_replica * bought))
    return tuple(sorted(out, key=lambda a: (-a.users, a.usd_per_month, a.gpu))[:ALTERNATIVE_GPUS])
