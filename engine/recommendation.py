"""The recommendation: the winner, the alternatives worth a look, why, and what would change it.

Why its own module: ranking decides the order; this turns the ranked options into the sentences
a user reads ("if you cache the dataset, Lambda wins by $252"; "at 40+ runs a month SageMaker
becomes cheaper") and the problem shown when nothing fits.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, NamedTuple

from catalog.records import CatalogData
from engine.cluster import COMFORT_FRACTION
from engine.diff import provider_of
from engine.models import (
    DEFAULT_SETUP_HOURS,
    TRAINING_MODES,
    Option,
    Problem,
    Recommendation,
    TargetCheck,
    TcoOption,
    Workload,
)
from engine.offer_plans import is_late, lateness
from engine.serving import below_floor, floor_kept_at, miss_factor, user_floor
from engine.tco import billed_service_hours_per_month, row_usd
from engine.throughput import request_shape
from engine.units import HOURS_PER_MONTH

if TYPE_CHECKING:
    from engine.recommend import Ranked

MAX_ALTERNATIVES = 5
# A training run's "fastest" alternative is one a team would run instead of the pick: at most this many times its GPUs
# (a node of 8 at least) and its cost. Past it the fastest in the catalog is a scale-out nobody runs for that job
# (1,376 A100s for an 8B LoRA GRPO of 5k prompts, $1,157 against $55; 8,192 V100s for a 72B run)
FASTEST_GPU_FACTOR = 4
FASTEST_MIN_GPUS = 8
FASTEST_COST_FACTOR = 3.0


def _tco(option: Option, workflow: str) -> TcoOption | None:
    return next((t for t in option.tco if t.workflow == workflow), None)


def _workflow_total(option: Option, workflow: str, w: Workload | None = None) -> float:
    """What the runs cost under a workflow, as `work_usd` counts them: the monthly total, or for a job longer
    than a month its whole cost (a monthly bill would call a one-GPU plan that takes years the cheapest).
    Same-cloud/none options cost the same under every workflow."""
    tco = _tco(option, workflow) or _tco(option, "same_cloud") or _tco(option, "none")
    if tco is None:
        return work_usd(option, w)
    return tco.job_usd * runs_asked(w) if tco.job_usd is not None else tco.total_usd


def _per_run_and_fixed(option: Option, workflow: str, runs: float) -> tuple[float, float]:
    """Linearise a workflow's total as fixed + per_run x runs (egress tiers make it approximate)."""
    tco = _tco(option, workflow) or _tco(option, "same_cloud") or _tco(option, "none") or option.tco[0]
    variable = row_usd(tco, "compute") + row_usd(tco, "managed")
    if tco.workflow == "uncached":
        variable += row_usd(tco, "egress")
        fixed = row_usd(tco, "storage")
    else:
        fixed = row_usd(tco, "storage") + row_usd(tco, "egress")
    return fixed, variable / max(runs, 1e-9)


def runnable_instead(option: Option, primary: Option, w: Workload | None = None) -> bool:
    """A training plan a team would run instead of the pick to finish sooner: within FASTEST_GPU_FACTOR times its
    GPUs (FASTEST_MIN_GPUS at least) and FASTEST_COST_FACTOR times its cost."""
    gpus = max(FASTEST_MIN_GPUS, FASTEST_GPU_FACTOR * primary.cluster.gpus)
    return option.cluster.gpus <= gpus and work_usd(option, w) <= FASTEST_COST_FACTOR * work_usd(primary, w)


def served_instead(option: Option, primary: Option) -> bool:
    """A service a team would run instead of the pick for faster replies: within FASTEST_COST_FACTOR times its monthly
    bill (60 A100s at $70k a month for 44% more speed than a $9k pick is not an alternative anyone weighs)."""
    return option.total_usd <= FASTEST_COST_FACTOR * primary.total_usd


def _pick_alternatives(options: list[Option], primary: Option, w: Workload | None = None) -> list[Option]:
    picks: list[Option] = []

    def add(o: Option | None) -> None:
        if o is not None and o.name != primary.name and o.name not in {p.name for p in picks}:
            picks.append(o)

    if primary.mode == "inference":  # always-on: the fastest is the one each user sees fastest, not a run time
        add(max((o for o in options if served_instead(o, primary)), key=lambda o: (per_user_speed(o), -o.total_usd),
                default=None))
    else:  # the fastest run a team would take instead (`runnable_instead`), not the catalog's largest scale-out
        add(min((o for o in options if runnable_instead(o, primary, w)),
                key=lambda o: (o.hours_per_run or 0.0, o.total_usd), default=None))
    add(next((o for o in options if any(t.workflow == "same_cloud" for t in o.tco)), None))  # best same-cloud
    add(next((o for o in options if any(r.item == "managed" and r.usd > 0 for t in o.tco for r in t.rows)), None))
    add(next((o for o in options if o.gpu != primary.gpu), None))  # cheapest other GPU type
    add(next((o for o in options if o.offer_id is None), None))  # your quote
    add(next((o for o in options if provider_of(o) != provider_of(primary)), None))  # runner-up elsewhere
    return picks[:MAX_ALTERNATIVES]


def work_usd(option: Option, w: Workload | None) -> float:
    """What the runs asked for cost, however many months they take: the monthly total, or for a job
    longer than a month its whole cost (a monthly bill would favour the slowest plan). An offline inference job
    over N prompts costs its fleet's rent for the hours it runs at that fleet's capacity: a fleet with capacity to
    spare finishes sooner and costs less for the job whatever its monthly bill (8 H100s on spot do 10M prompts in
    20 h for $259 where 9 L40S, cheaper by the month, take 53 h for $437)."""
    if w is not None and w.batch_items:
        job = job_figures(option, w)
        if job is not None:
            return job.usd
    jobs = [t.job_usd for t in option.tco if t.job_usd is not None]
    if jobs:
        return min(jobs) * runs_asked(w)
    run = one_run_usd(option, w)
    return run if run is not None else option.total_usd


def one_run_usd(option: Option, w: Workload | None) -> float | None:
    """What one training run costs when one is asked for (no runs a month said, or one) and it ends within the month:
    its compute, managed premium and data transfer, without a month of storage. Storage for a month is a recurring
    bill of a team that keeps its dataset and checkpoints on the provider between runs; for one run it is what the
    volume costs if left there, and ranking on it put an 8-GPU run at $30.80 above a runner-up at $27.84 a run
    because the runner-up's provider charges more per GB-month. None for several runs a month, serving, and a run
    longer than a month (costed whole, storage for its months included: `TcoOption.job_usd`)."""
    if w is None or (w.mode or "inference") not in TRAINING_MODES or w.batch_items or runs_asked(w) > 1 \
            or not option.tco or any(t.job_usd is not None for t in option.tco):
        return None
    return min(t.total_usd - row_usd(t, "storage") for t in option.tco)


def runs_asked(w: Workload | None) -> float:
    """Runs a month, at least one: a job longer than a month is counted once per run asked for."""
    return max(1.0, float((w.runs_per_month if w is not None else None) or 1.0))


def recommend(options: list[Option], w: Workload, amd_gpus: frozenset[str] = frozenset(),
              risky: frozenset[str] = frozenset()) -> Recommendation:
    """Primary = the ranked first (cheapest that meets the targets); alternatives; why, naming the
    fastest too when it is another option; what would change it. The runner-up is the best option from another
    provider; behind an AMD pick (`amd_gpus`: the AMD GPU ids) it is the best on another vendor's GPU, the
    fallback a team takes if its own benchmark on ROCm disappoints. `risky`: the options ranked after the rest for their
    hardware (consumer cards, marketplace hosts: `engine.recommend.evaluate`), not named as the cheaper way to miss."""
    if not options:
        return Recommendation(primary=None, why=("no configuration in the catalog fits this workload",))
    primary = options[0]
    costs: dict[int, float] = {}  # work_usd per option (by identity: the list outlives this call), read many times here
    lates: dict[int, int] = {}

    def work(o: Option) -> float:
        found = costs.get(id(o))
        if found is None:
            found = costs[id(o)] = work_usd(o, w)
        return found

    def late(o: Option) -> int:
        found = lates.get(id(o))
        if found is None:
            found = lates[id(o)] = _late(o, w)
        return found

    alternatives = _pick_alternatives(options, primary, w)
    shown = [primary, *alternatives]
    totals = [o.total_usd for o in shown]
    training = (w.mode or "inference") in TRAINING_MODES
    job = min((t.job_usd for t in primary.tco if t.job_usd is not None), default=None)
    missed = [t for t in primary.throughput.targets if not t.met]
    # cheaper options the ranking puts after the pick because their runs overrun the slot further
    later = sorted((o for o in options if late(o) > late(primary) and work(o) < work(primary)),
                   key=lambda o: (work(o), o.name))
    # a cheaper (or as cheap) training plan at the edge of memory, ranked after the pick with room: said why
    edge = min((o for o in options if training and at_the_edge(o) and not at_the_edge(primary)
                and work(o) < work(primary) * 1.03), key=lambda o: (work(o), o.name), default=None)
    among = f" among the options that {_finish(primary, w)}" if later else ""
    if job is not None and primary.hours_per_run:
        why = [f"lowest cost{among} for the whole job: ${job:,.0f} over {primary.hours_per_run / 730:,.1f} months "
               f"(${primary.total_usd:,.0f} a month)"]
    elif training and one_run_usd(primary, w) is not None:
        run = work(primary)
        why = [f"lowest cost of the run{among}: ${run:,.{0 if run >= 100 else 2}f} (compute and data transfer; a month "
               "of storage, if the data and checkpoints stay, is not a run's cost)"]
    elif training:
        why = [f"lowest monthly total{among}: ${primary.total_usd:,.0f} for {w.runs_per_month or 1:g} run(s)"]
    else:
        met = "that meets the targets" if primary.throughput.targets and not missed else ""
        lowest = "lowest monthly total" if primary.total_usd <= min(o.total_usd for o in options) * 1.0001 else "recommended"
        hours = billed_service_hours_per_month(w)  # a service kept to its hours is billed for those (engine.tco)
        kept = "always on" if hours >= HOURS_PER_MONTH else f"for {w.service_hours_per_week:g} h a week"
        why = [f"{' '.join(part for part in (lowest, met) if part)}: ${primary.total_usd:,.0f} {kept}"]
    if later and later[0].hours_per_run:
        why.append(f"cheapest: {later[0].name}, ${work(later[0]):,.0f}, but {later[0].hours_per_run / 24:,.0f} days "
                   "per run: ranked after options that finish sooner")
    if edge is not None:
        why.append(edge_text(edge, primary, w))
    if missed:
        why.append("closest to the targets, which no option meets: " + "; ".join(_target_said(t) for t in missed)
                   + (f" ({off_target(primary, w):.2f}x off)" if not training else ""))
        # the cheaper options it is ranked before, further from what was asked (28 s on 40 MI300X for $69,788)
        cheaper = min((o for o in options if o.name not in risky and work(o) < work(primary) * (1 - 0.03)),
                      default=None,
                      key=lambda o: (work(o), o.name))
        if cheaper is not None and not training and off_target(cheaper, w) > off_target(primary, w):
            far = [t for t in cheaper.throughput.targets if not t.met]
            why.append(f"the cheapest, {cheaper.name} at ${work(cheaper):,.0f}, is further off"
                       + (f": {'; '.join(_target_said(t) for t in far)}" if far else " (below the per-user speed floor)"))
    runner = next((o for o in options[1:] if o.gpu not in amd_gpus), None) if primary.gpu in amd_gpus else None
    runner = runner or next((o for o in options[1:] if provider_of(o) != provider_of(primary)), None)
    if runner is None and w.provider is not None and len(options) > 1:
        runner = options[1]  # the provider was named: its next-best option, not its fastest, is the runner-up
    if runner is not None:
        saved = work(runner) - work(primary)
        if saved >= 0:
            why.append(f"${saved:,.0f} less than {runner.name} (${work(runner):,.0f})")
        elif work(runner) >= work(primary) * 0.97:  # the tie band of engine.recommend._rank
            why.append(f"{runner.name} costs ${-saved:,.0f} less (${work(runner):,.0f}), within 3%: the ranking "
                       "prefers fewer nodes and GPUs, then the faster per user")
        else:
            why.append(f"{runner.name} costs ${-saved:,.0f} less (${work(runner):,.0f}) but is ranked after it: it "
                       + ("is further from the targets" if missed and not training else
                          "misses a target or the 20 tokens/s per user floor, or runs on hardware without an SLA"))
    on_target = [o for o in options if _on_target(o, w)]
    cheapest: Option | None = min(on_target, key=lambda o: work(o), default=None)
    if cheapest is not None and work(cheapest) >= work(primary) * 0.97:
        cheapest = None
    fastest: Option | None
    if training:
        fastest = min((o for o in on_target if runnable_instead(o, primary, w)),
                      key=lambda o: (o.hours_per_run or math.inf, work(o)), default=None)
        if fastest is not None and (fastest.hours_per_run or math.inf) >= (primary.hours_per_run or math.inf) * 0.8:
            fastest = None
    else:
        fastest = max((o for o in on_target if served_instead(o, primary)),
                      key=lambda o: (per_user_speed(o), -o.total_usd), default=None)
        if fastest is not None and per_user_speed(fastest) <= per_user_speed(primary) * 1.25:
            fastest = None
    if training and primary.hours_per_run is not None:
        why.append(f"{primary.hours_per_run:,.1f} h wall clock per run on {primary.cluster.gpus} GPU(s)")
        if fastest is not None and fastest.hours_per_run is not None:
            why.append(f"fastest: {fastest.name}, {fastest.hours_per_run:,.1f} h per run for ${work(fastest):,.0f}")
    elif fastest is not None:
        why.append(f"fastest per user: {fastest.name}, {per_user_speed(fastest):,.0f} tokens/s each for "
                   f"${fastest.total_usd:,.0f}/month")
    # within the tie band the ranking prefers fewer nodes and GPUs: say so when that is why
    tie = min((o for o in on_target if work(o) < work(primary)), key=lambda o: work(o), default=None)
    if tie is not None and work(tie) >= work(primary) * 0.97 and tie.cluster.gpus > primary.cluster.gpus:
        why.append(f"within 3% of the cheapest ({tie.name}, ${work(tie):,.0f}) on fewer GPUs and nodes: the "
                   "same money, less to run")
    return Recommendation(
        primary=primary.name,
        alternatives=tuple(o.name for o in alternatives),
        cost_range_usd=(min(totals), max(totals)),
        why=tuple(why),
        what_would_change_it=tuple(what_would_change(options, w)),
        runner_up=runner.name if runner is not None else None,
        cheapest=cheapest.name if cheapest is not None else None,
        fastest=fastest.name if fastest is not None else None,
    )


EDGE_NOTE = "ranked after for memory: "  # a cheaper training plan at the edge of memory, behind the pick (first message)


def edge_text(edge: Option, primary: Option, w: Workload) -> str:
    """Why a training plan as cheap as the pick, or cheaper, is ranked after it: it fills usable memory."""
    share = edge.memory.per_gpu_gb / edge.memory.usable_gb_per_gpu if edge.memory.usable_gb_per_gpu else 1.0
    return (f"{edge.name} (${work_usd(edge, w):,.0f}) holds it at {edge.memory.per_gpu_gb:,.1f} of "
            f"{edge.memory.usable_gb_per_gpu:,.1f} GB usable per GPU ({share:.0%}), the edge of memory: allocator "
            "fragmentation, NCCL buffers or a checkpoint's spike run it out, so it is ranked after the plans with room "
            f"({primary.memory.per_gpu_gb:,.1f} GB per GPU on the pick); to stay on {edge.cluster.gpus} GPUs, offload the "
            "optimizer state to CPU (DeepSpeed ZeRO-Offload), much slower: every step moves the state over PCIe and "
            "runs the optimizer on the CPU")


def edge_note(options: list[Option], w: Workload) -> str | None:
    """EDGE_NOTE + `edge_text` when a training plan as cheap as the pick (within 3%) or cheaper sits at the edge of
    memory behind it; None otherwise."""
    if not options or (w.mode or "inference") not in TRAINING_MODES or at_the_edge(options[0]):
        return None
    primary = options[0]
    edge = min((o for o in options if at_the_edge(o) and work_usd(o, w) < work_usd(primary, w) * 1.03),
               key=lambda o: (work_usd(o, w), o.name), default=None)
    return EDGE_NOTE + edge_text(edge, primary, w) if edge is not None else None


def at_the_edge(o: Option) -> bool:
    """A training option over COMFORT_FRACTION of usable memory per GPU (engine.offer_plans.tight_training): it fits
    on paper and OOMs on allocator fragmentation, NCCL buffers or a checkpoint's spike."""
    usable = o.memory.usable_gb_per_gpu
    return bool((o.mode or "inference") in TRAINING_MODES and usable
                and o.memory.per_gpu_gb > COMFORT_FRACTION * usable + 1e-9)


BUDGET_NOTE = "budget: "
JOB_NOTE = "job: "


def best_tco(option: Option | None) -> TcoOption | None:
    """The workflow whose total the option is listed with (the cheapest that applies)."""
    return min(option.tco, key=lambda t: t.total_usd) if option is not None and option.tco else None


def recommended(options: list[Option], rec: Recommendation) -> Option | None:
    """The option the recommendation names, else the first ranked (None when nothing was ranked)."""
    return next((o for o in options if o.name == rec.primary), options[0] if options else None)


class JobFigures(NamedTuple):
    """An offline job on one option's fleet: how long, at what hourly rent, for how much; and per million tokens
    at the job's own load (not at the fleet's capacity), generated and processed (prompts and replies)."""

    hours: float
    usd_per_hour: float
    usd: float
    usd_per_1m_output: float
    usd_per_1m_processed: float
    prompts_per_s: float  # the rate it runs at: the fleet's capacity, at least the rate it was sized for


JOB_SPOT_NOTE = "spot for a job: "  # an offline job on spot: what a reclaim costs it (first message)
JOB_SPOT_HINT = "spot suits a job: "  # an offline job priced on demand: spot suits it (first message, when there is room)


def job_rate_and_hours(w: Workload, capacity_rps: float) -> tuple[float, float]:
    """(prompts/s, hours, start-up included) of an offline job over `w.batch_items` prompts on a fleet that sustains
    `capacity_rps`. A fleet sized for the deadline's average rate has headroom (a service's replicas are sized to run
    at 80%): offline, with no one queueing, it runs at its full capacity and finishes early, with that much slack for
    a straggler. GPUs the user fixed that sustain less than the deadline's rate run at what they sustain: the job takes
    longer and misses the deadline (16 H100s read as doing 4B tokens of 405B replies in the day asked, at the deadline's
    46.8k tokens/s where they sustain 4.9k)."""
    rate = capacity_rps if capacity_rps > 0 else float(w.requests_per_s or 0.0)
    return rate, float(w.batch_items or 0.0) / rate / 3600 + DEFAULT_SETUP_HOURS


def job_figures(option: Option, w: Workload) -> JobFigures | None:
    """The offline job over `w.batch_items` prompts on this option's fleet, at the fleet's capacity (its rate check),
    start-up included; None for anything else. The hour is the fleet's rent (compute and any managed premium): the
    month's storage and data transfer of a service are not the job's."""
    if not w.batch_items or not w.requests_per_s or (w.mode or "inference") in TRAINING_MODES or not option.tco:
        return None
    best = best_tco(option)
    assert best is not None  # option.tco is not empty
    hourly = sum(r.usd for r in best.rows if r.item in ("compute", "managed")) / HOURS_PER_MONTH
    rate, hours = job_rate_and_hours(w, next((t.got for t in option.throughput.targets if t.name == "requests_per_s"), 0.0))
    usd = hourly * hours
    prompt, reply = request_shape(w)
    return JobFigures(hours, hourly, usd, usd / (w.batch_items * reply) * 1e6, usd / (w.batch_items * (prompt + reply)) * 1e6,
                      rate)


def job_note(options: list[Option], rec: Recommendation, w: Workload) -> str:
    """An offline job over `w.batch_items` prompts: how long it runs on the pick at the fleet's capacity, and
    what that costs (the pick's monthly bill is the same fleet around the clock). "" for anything else."""
    pick = recommended(options, rec)
    job = job_figures(pick, w) if pick is not None else None
    if pick is None or job is None or not w.batch_items or not w.requests_per_s:
        return ""
    return (f"{JOB_NOTE}{w.batch_items:,.0f} prompts at {job.prompts_per_s:,.1f} requests/s take {job.hours:,.1f} h on "
            f"{pick.name}, start-up included: about ${job.usd:,.0f} for the job (${job.usd_per_hour:,.2f}/hour x "
            f"{job.hours:,.1f} h, billed by the hour where the provider does; ${job.usd_per_1m_output:,.2f} per 1M output "
            f"tokens, ${job.usd_per_1m_processed:,.2f} per 1M tokens in and out); the monthly figure is the same fleet "
            "kept on around the clock")


def budget_note(options: list[Option], w: Workload, floor: float) -> str:
    """What a monthly budget does to the pick, "" when it changes nothing worth saying: no option within it (the
    cheapest named); the pick over it because every option within it misses a target; or the pick within it below
    the per-user `floor` assumed for interactive use, with what keeping the floor costs."""
    serving = (w.mode or "inference") not in TRAINING_MODES
    per_run = w.budget_usd_per_month is None and w.budget_usd_per_run is not None and not serving
    budget = w.budget_usd_per_run if per_run else w.budget_usd_per_month
    if budget is None or not options:
        return ""

    def cost(o: Option) -> float:  # what the budget is held against: a run's cost, or the monthly bill
        return work_usd(o, w) / runs_asked(w) if per_run else o.total_usd

    limit = f"${budget:,.0f} a {'run' if per_run else 'month'}"
    within = [o for o in options if cost(o) <= budget * 1.0001]
    primary = options[0]
    if not within:
        cheapest = min(options, key=lambda o: (cost(o), o.name))
        speed = (f", {per_user_speed(cheapest):.1f} tokens/s per user" if serving
                 else f", {cheapest.hours_per_run / 24:,.1f} days a run" if cheapest.hours_per_run else "")
        hint = "; spot or fewer tokens bring it down" if per_run and w.pricing != "spot" else ""
        return (f"{BUDGET_NOTE}no option is within {limit}; the cheapest is {cheapest.name} at "
                f"${cost(cheapest):,.0f}{speed}{hint}")
    if primary not in within:
        best = within[0]
        missed = [t.name.replace("_", " ") for t in best.throughput.targets if not t.met]
        return (f"{BUDGET_NOTE}{best.name} is within {limit} (${cost(best):,.0f}) but misses "
                f"{', '.join(missed) if missed else 'the interactive speed floor'}")
    if not serving or w.target_tokens_per_s_per_user is not None or per_user_speed(primary) >= floor_kept_at(w):
        return ""
    keep = next((o for o in options if per_user_speed(o) >= floor_kept_at(w) and all(
        t.met for t in o.throughput.targets if t.name != "budget_usd_per_month")), None)
    then = (f"; {floor:g}+ needs {keep.name} at ${keep.total_usd:,.0f} a month" if keep is not None
            else f"; no option keeps {floor:g}")
    return (f"{BUDGET_NOTE}within {limit}, {per_user_speed(primary):.1f} tokens/s per user, under the {floor:g} tokens/s "
            f"assumed for interactive use{then}")


_TARGET_WORDS = {"target_ttft_s": ("time to first token", " s"), "target_tokens_per_s_per_user": ("per-user speed", " tokens/s"),
                 "target_tokens_per_s": ("total throughput", " tokens/s"), "requests_per_s": ("request rate", " requests/s"),
                 "budget_usd_per_month": ("monthly budget", " USD"),
                 "budget_usd_per_run": ("budget per run", " USD"), "deadline_hours": ("deadline", " h")}


def _target_said(t: TargetCheck) -> str:
    """"time to first token 5.73 s against 5 s": a missed target in words."""
    label, unit = _TARGET_WORDS.get(t.name, (t.name.replace("_", " "), ""))
    return f"{label} {t.got:,.3g}{unit} against {t.wanted:,.4g}{unit}"


def off_target(option: Option, w: Workload | None) -> float:
    """How far a serving option is from what it misses, as one factor (`engine.serving.miss_factor`, 1 when it misses
    nothing): the targets the user set, got/wanted, and the interactive floor assumed when no speed was asked (ranked
    like a missed target). What "closest to the targets" ranks by, where no option meets them."""
    factor = miss_factor([(t.name, t.wanted, t.got) for t in option.throughput.targets if not t.met])
    speed = per_user_speed(option)
    if w is not None and speed > 0 and below_floor(w, speed):
        factor *= user_floor(w) / speed
    return factor


def per_user_speed(option: Option) -> float:
    """Decode tokens/s one user sees on this option (0 for training)."""
    seq = option.throughput.decode_tokens_per_s_per_sequence
    return seq.value if seq is not None else 0.0


def _on_target(option: Option, w: Workload) -> bool:
    """Meets every target the user set and, for training, finishes within its slot."""
    return all(t.met for t in option.throughput.targets) and not is_late(w, option.hours_per_run or 0.0)


def _late(option: Option, w: Workload | None) -> int:
    """How far a training run overruns its slot, as the ranking counts it (0: on time)."""
    return lateness(w, option.hours_per_run or 0.0) if w is not None else 0


def _finish(option: Option, w: Workload | None) -> str:
    """What the options ranked with `option` have in common when cheaper ones are ranked after it."""
    return "finish in time" if _late(option, w) == 0 else "finish soonest"


def _winner(options: Iterable[Option], workflow: str, w: Workload | None = None) -> tuple[Option, float, Option | None, float]:
    """Cheapest option under a workflow and the cheapest from a *different* provider (a 1-GPU and an
    8-GPU shape of one provider tie, and 'wins by $0' helps nobody). Options whose run overruns its
    target come after, the latest last, as they are ranked: when every option overruns, a cheaper one
    that runs twice as long is not the winner the ranking shows."""
    ordered = sorted(options, key=lambda o: (_late(o, w), _workflow_total(o, workflow, w), o.name))
    first = ordered[0]
    second = next((o for o in ordered[1:] if provider_of(o) != provider_of(first)), None)
    return first, _workflow_total(first, workflow, w), second, (_workflow_total(second, workflow, w) if second else math.nan)


def what_would_change(options: list[Option], w: Workload) -> list[str]:
    """Workflow flips and run-count break-evens, in dollars."""
    lines: list[str] = []
    has_both = any(_tco(o, "cached") for o in options) and any(_tco(o, "uncached") for o in options)
    if has_both:
        cw, c_total, c_second, c_second_total = _winner(options, "cached", w)
        uw, u_total, u_second, u_second_total = _winner(options, "uncached", w)
        if c_second is not None and u_second is not None and provider_of(cw) == provider_of(uw):
            # a cheaper option whose runs overrun their slot further is ranked after: the winner is not "cheapest"
            undercut = any(_late(o, w) > _late(cw, w) and _workflow_total(o, "cached", w) < c_total for o in options)
            stays = f"stays first of the options that {_finish(cw, w)}" if undercut else "stays cheapest"
            lines.append(
                f"cached or pulled every run, {cw.name} {stays}: by ${c_second_total - c_total:,.0f} cached, "
                f"${u_second_total - u_total:,.0f} pulling every run"
            )
        elif c_second is not None:
            lines.append(f"if you cache the dataset after one pull: {cw.name} wins by ${c_second_total - c_total:,.0f} (over {c_second.name})")
        if u_second is not None and provider_of(cw) != provider_of(uw):
            lines.append(f"if every run pulls the dataset from {w.data_location}: {uw.name} wins by ${u_second_total - u_total:,.0f} (over {u_second.name})")
    runs = float(w.runs_per_month or 1.0)
    primary = options[0]
    workflow = "uncached" if w.cache_dataset is not True and has_both else "cached"
    p_fixed, p_per_run = _per_run_and_fixed(primary, workflow, runs)
    best: tuple[float, Option] | None = None
    # only options that finish as early as the pick: a cheaper one that overruns its slot further is ranked
    # after it whatever the run count
    rivals = [o for o in options if provider_of(o) != provider_of(primary) and _late(o, w) <= _late(primary, w)]
    for other in rivals[:12]:
        o_fixed, o_per_run = _per_run_and_fixed(other, workflow, runs)
        if o_per_run < p_per_run - 1e-9:
            crossing = (o_fixed - p_fixed) / (p_per_run - o_per_run)
            if crossing > 0 and (best is None or crossing < best[0]):
                best = (crossing, other)
    if best is not None:
        at = math.ceil(best[0] + 1e-9)
        lines.append(f"at {at:g}+ runs a month ({workflow.replace('uncached', 'pulling every run')}), {best[1].name} becomes cheaper")
    if (w.pricing or "on_demand") == "on_demand":
        lines.append("reserved capacity is typically 30-50% below on-demand for 1-3 year commitments (AWS Savings Plans, GCP committed use, Azure reservations)")
    return lines


def fits_nowhere_problem(result: Ranked, w: Workload, data: CatalogData) -> Problem | None:
    """Problem naming the largest configuration tried and what would make the workload fit."""
    if result.options or result.fit_only is not None:
        return None
    if result.largest is None:
        return Problem(
            code="fits_nowhere",
            message="No GPU offer in the catalog matches these constraints (GPU / provider / pricing).",
        )
    gpu_id, gpus, per_gpu_gb = result.largest
    gpu = data.gpu(gpu_id)
    name = gpu.name if gpu else gpu_id
    if gpu is not None and per_gpu_gb <= gpu.memory_gb * (1 - (w.headroom or 0.0)):
        return Problem(
            code="fits_nowhere",
            message=(f"The memory fits ({per_gpu_gb:,.1f} GB per GPU on {name}), but no offer in the catalog sells the "
                     f"{gpus}-GPU shape this needs (multi-node without an inter-node fabric, or past a provider's cluster "
                     "size). A provider with InfiniBand/EFA clusters, fewer GPUs per copy (int8/int4), or your own quote "
                     "('at $2/hr') would give an answer."),
        )
    fixes: list[str] = []
    mode = w.mode or "inference"
    if mode in ("full", "pretrain", "lora"):
        fixes.append("QLoRA (NF4 base, ~0.5 bytes/param)")
    if mode == "inference" and w.precision not in ("int4", "nf4"):
        fixes.append("int8/int4 weights")
    fixes.append("more nodes or a provider with a larger cluster")
    if w.gpu_count:
        fixes.append(f"more than the {w.gpu_count} GPUs you fixed")
    return Problem(
        code="fits_nowhere",
        message=(
            f"Fits nowhere in the catalog: the largest configuration tried, {gpus}x {name}, still needs "
            f"{per_gpu_gb:,.1f} GB per GPU. What would make it fit: {'; '.join(fixes)}."
        ),
    )
