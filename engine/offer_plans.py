"""One node shape, planned: how a workload runs on one offer's nodes, before any price.

Why its own module: these are the rules that turn "fits on N GPUs" into what is actually rented
and run: training uses whole rented nodes data-parallel and scales out when one run overruns its
slot; serving spreads over a node's spare GPUs when that speeds each sequence, and for a
throughput target picks the batch per replica and adds replicas. engine.recommend prices and
ranks the results.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import cast

from catalog.records import GpuRecord, OfferRecord
from engine.architecture import Architecture
from engine.cluster import (
    COMFORT_FRACTION,
    DOMAIN_TP_CHECKLIST,
    DOMAIN_TP_NOTE,
    NCCL_CHECKLIST,
    PROVIDER_QUESTIONS,
    Placement,
    batch_capped_note,
    data_parallel_cap,
    domain_span,
    gather_slowdown,
    nvlink_domain_gpus,
    nvlink_gb_s_per_direction,
    placement,
    plan_cluster,
    platform_caveats,
    three_d,
)
from engine.memory import estimate_memory, usable_gb
from engine.models import (
    DEFAULT_SETUP_HOURS,
    TRAINING_MODES,
    ClusterPlan,
    Figure,
    MemoryEstimate,
    TargetCheck,
    ThroughputEstimate,
    Workload,
    rate_text,
)
from engine.network import said_gbps
from engine.queueing import QueuedTtft, percentile_words, queued_ttft, ttft_percentile
from engine.serving import (
    RATE_UTILISATION,
    ServingChoice,
    below_floor,
    choose,
    miss_factor,
    pcie_tp_text,
    user_floor,
    users_at_floor,
    users_total,
)
from engine.spot import spot_overhead
from engine.think_time import think_time_s
from engine.throughput import (
    context_tokens,
    estimate_inference,
    estimate_training,
    fast_link_name,
    gathers_counted,
    link_kind,
    planned_rate,
    request_shape,
    total_in_rate,
    training_numbers,
)
from engine.units import HOURS_PER_MONTH, figure

GATHER_SCALE_GPUS = 256  # the most GPUs tried to avoid weight gathers across nodes, or twice the fewest that fit
MAX_SCALE_OUT_NODES = 2048  # scale-out limit where a provider states none (16k GPUs: Llama 3 405B's cluster)
RESERVATION_NODES = 64  # beyond 512 GPUs a cluster is a negotiated reservation, not an on-demand order
CAPACITY_NODES = 16  # from 16 instances of one GPU type at one provider, hourly capacity is worth confirming first
CAPACITY_NOTE = "capacity to confirm: "  # read by the first message

ROOM_NOTE = "room for up to "  # how many sequences one serving replica holds: read by the first message
SLOW_FIXED_NOTE = "slow on the GPUs you fixed: "  # the fixed GPUs serve the users below the floor (first message)
MISSED_FIXED_NOTE = "short on the GPUs you fixed: "  # the fixed GPUs miss a target the user stated (first message)
# after ROOM_NOTE's figure, for a plan sized for one stream: "; at ≥20 tokens/s per user it serves 38 users (...)"
USERS_AT_FLOOR_NOTE = " per user it serves "


def room_figures(plan: ClusterPlan) -> tuple[str, str, str | None, int | None] | None:
    """(sequences one replica's memory holds, their context, the speed floor, the users kept at it) as the room note
    (`serving_result`) says them (the last two None when it gives no floor); None when the plan has no room note.
    Read here, beside the note's wording, by the first message and by the engine's own restatements."""
    note = next((n for n in plan.notes if n.startswith(ROOM_NOTE)), "")
    room = re.match(re.escape(ROOM_NOTE) + r"([\d,]+) sequences of ([\d,]+) tokens", note)
    if room is None:
        return None
    kept = re.search(r"at ≥([\d.]+) tokens/s" + re.escape(USERS_AT_FLOOR_NOTE) + r"([\d,]+) users", note)
    return (room.group(1), room.group(2), kept.group(1) if kept else None,
            int(kept.group(2).replace(",", "")) if kept else None)


def users_held(plan: ClusterPlan) -> tuple[int, str, int, str] | None:
    """(users kept at the speed floor, the floor, sequences memory holds, their context) over all replicas, from the
    room note; None when the plan has none (sized for a load said)."""
    room = room_figures(plan)
    if room is None or room[2] is None or room[3] is None:
        return None
    replicas = max(1, plan.replicas or 1)
    held = int(room[0].replace(",", ""))
    return min(held, room[3]) * replicas, room[2], held * replicas, room[1]


_TRAYS_LINK = re.compile(r"; between (?:the replica's|a tensor-parallel group's) trays: NVLink \(one rack\)")


def relabel(plan: ClusterPlan, gpu: GpuRecord, offer: OfferRecord) -> ClusterPlan:
    """A plan shared by offers of the same shape, described with this offer's own link names (and, on an offer whose
    NVLink spans its trays, the trays a replica or tensor-parallel group spans over it, as the plan said)."""
    between = f"; between nodes: {offer.inter_node_fabric or 'none (independent replicas)'}" if plan.nodes > 1 else ""
    trays = _TRAYS_LINK.search(plan.interconnect) if nvlink_domain_gpus(offer) else None
    interconnect = f"{offer.intra_node_link or gpu.scaleup_link or 'PCIe only'}{trays.group(0) if trays else ''}{between}"
    return plan if interconnect == plan.interconnect else plan.model_copy(update={"interconnect": interconnect})


def node_cap(offer: OfferRecord | None) -> int | None:
    """One copy of the model spans at most one node where the offer has no inter-node fabric: a
    plan across such nodes is not for sale, so it is not searched for."""
    return 1 if offer is not None and offer.inter_node_fabric is None else None


def spot_factor(w: Workload, nodes: int) -> float:
    """1 + the share spot reclaims add to a training run on `nodes` nodes (engine.spot), else 1: the GPU-hours billed
    and the wall clock grow by it."""
    if w.pricing == "spot" and (w.mode or "inference") in TRAINING_MODES:
        return 1 + spot_overhead(nodes)
    return 1.0


def slot_hours(w: Workload, nodes: int = 1) -> float:
    """How long one run's training may take: the user's target less the run's start-up (the deadline is
    the wall clock the user waits, and the Speed line counts start-up in it), else a month (or its share of
    several months when there is less than one run a month); on spot, the share reclaims take on `nodes`
    nodes is kept free (it grows with the nodes: any one reclaimed stalls them all)."""
    if w.deadline_hours and not start_up_exceeds_deadline(w):
        deadline = float(w.deadline_hours)
        slot = max(deadline - setup_hours(w), deadline / 2)
    else:  # no deadline, or one its start-up alone overruns: no GPU count makes it, so the run is planned as if unsaid
        slot = _month_share(w)
    return slot / spot_factor(w, nodes)


def _nodes_for(w: Workload, gpu_hours: float, gpn: int) -> int:
    """The nodes a run of `gpu_hours` needs to finish within its slot, the slot at that node count: on spot a
    larger gang loses more to reclaims, so the count is found by fixed point (it settles in a step or two)."""
    nodes = math.ceil(math.ceil(gpu_hours / slot_hours(w)) / gpn)
    for _ in range(6):
        wanted = math.ceil(math.ceil(gpu_hours / slot_hours(w, nodes)) / gpn)
        if wanted <= nodes:
            break
        nodes = wanted
    return nodes


def setup_hours(w: Workload) -> float:
    """Start-up billed with every run (instances, image, data and checkpoint loading), as the cost counts it."""
    return DEFAULT_SETUP_HOURS if w.setup_hours_per_run is None else float(w.setup_hours_per_run)


def start_up_exceeds_deadline(w: Workload) -> bool:
    """"QLoRA 70B within 5 minutes": the start-up alone (instances, image, loading the weights) takes longer."""
    return bool(w.deadline_hours) and float(w.deadline_hours or 0) <= setup_hours(w)


SHORT_DEADLINE_NOTE = "deadline shorter than start-up: "  # read by the first message


def run_slot_hours(w: Workload) -> float:
    """The wall clock one run may take, start-up included: the user's deadline, else the month's share."""
    return float(w.deadline_hours) if w.deadline_hours else _month_share(w)


def _month_share(w: Workload) -> float:
    """A run's slot with no deadline: a month, or its share of several months when there is less than one run a month."""
    return HOURS_PER_MONTH / min(float(w.runs_per_month or 1.0), 1.0)


_SlotAndCap = tuple[float, int]  # a memo entry's type, named once (a subscripted type in `cast` is rebuilt per call)


@dataclass(frozen=True)
class TrainingChoice:
    """A training plan on one node shape in plain numbers: what the catalog search ranks. `build_w` (with
    `fixed_gpus` as its GPU count when set) and `max_nodes` are what `plan_cluster` is called with to state
    it in full (`training_result`)."""

    build_w: Workload
    max_nodes: int | None
    gpus: int
    fits: bool
    per_gpu_gb: float
    tokens_per_s: float
    gpu_hours: float | None
    wall_hours: float | None
    as_given: bool  # does not fit, or the user fixed the GPU count: stated as planned, not scaled
    fixed_gpus: int | None = None  # the count the plan is stated at when the search scaled it (else searched again)
    scaled_for_time: bool = False
    whole_nodes: bool = False
    slot: float = 0.0
    gpn: int = 1
    batch_capped: bool = False  # scaling out for time stopped where data parallel would pass MAX_BATCH_TOKENS
    slowdown: float = 1.0  # weight gathers across nodes outrunning the compute: the run takes this many times longer


def training_choice(w: Workload, arch: Architecture, gpu: GpuRecord, offer: OfferRecord | None,
                    scale_out: bool = True, memo: dict[tuple[object, ...], object] | None = None) -> TrainingChoice:
    """How many GPUs a training run takes on this node shape.

    Training uses whole nodes data-parallel: they are paid for anyway, so the bill is the same and
    the wall clock shorter. A run longer than its slot (the user's target, else a month) scales out
    data-parallel, across nodes only where the offer has an inter-node fabric; where it cannot, the
    plan says so and the option ranks after those that can. With `scale_out` off (a guessed token
    count) nothing is scaled for time: the smallest plan is shown.

    `memo` (one per workload) keeps each choice by what it reads of the offer (node size, whether nodes
    link, cluster limit, intra-node link): offers whose fabrics are named differently share it.
    """
    if memo is None:
        return _training_choice(w, arch, gpu, offer, scale_out, {})
    key = ("train_choice", gpu.id, scale_out) + (
        (offer.gpus_per_node, offer.inter_node_fabric is None, offer.max_nodes, offer.intra_node_link,
         offer.inter_node_gbps)
        if offer is not None else ())
    found = memo.get(key)
    if found is None:
        found = memo[key] = _training_choice(w, arch, gpu, offer, scale_out, memo)
    return cast(TrainingChoice, found)


def _training_choice(w: Workload, arch: Architecture, gpu: GpuRecord, offer: OfferRecord | None, scale_out: bool,
                     memo: dict[tuple[object, ...], object]) -> TrainingChoice:
    cap = node_cap(offer)

    def speed(gpus: int) -> tuple[float, float | None, float | None]:
        """training_numbers for this GPU type at a GPU count, once per workload (memo is per workload)."""
        key = ("train", gpu.id, gpus)
        found = memo.get(key)
        if found is None:
            found = memo[key] = training_numbers(w, arch, gpu, gpus)
        return found  # type: ignore[return-value]

    def slowed(q: Placement) -> tuple[float, float | None, float | None, float]:
        """The speed at this placement's GPU count, with its weight gathers across nodes counted where they outrun
        the compute (`gather_slowdown`), and that factor."""
        tps, gh, wall = speed(q.n)
        slow = gather_slowdown(w, arch, gpu, offer, q)
        if slow == 1.0:
            return tps, gh, wall, slow
        return (round(tps / slow, 1), round(gh * slow, 1) if gh is not None else None,
                round(wall * slow, 2) if wall is not None else None, slow)

    p = placement(w, arch, gpu, offer, max_nodes=cap)
    tps, gh, wall, slow = slowed(p)
    if not p.fits or w.gpu_count or w.nodes:
        return TrainingChoice(w, cap, p.n, p.fits, p.per_gpu_gb, tps, gh, wall, as_given=True, slowdown=slow)
    cap_nodes = 1 if offer is not None and offer.inter_node_fabric is None else (
        offer.max_nodes if offer is not None and offer.max_nodes else MAX_SCALE_OUT_NODES)
    fixed_first: int | None = None
    # the fewest GPUs that hold it are gather-bound: more GPUs may hold a layout that is not (tensor and pipeline
    # parallel with ZeRO-1), up to a cluster a team would rent for it (not 960 V100s for a 70B fine-tune)
    most_gpus = min(cap_nodes * p.gpn, max(GATHER_SCALE_GPUS, 2 * p.n))
    for times in (2, 4, 8):
        if slow == 1.0 or gh is None or p.n * times > most_gpus:
            break
        q = placement(w, arch, gpu, offer, fixed_gpus=p.n * times)
        if not q.fits:
            continue
        q_tps, q_gh, q_wall, q_slow = slowed(q)
        if q_gh is not None and q_gh < gh:  # fewer GPU-hours: cheaper for the same work, and sooner
            p, tps, gh, wall, slow, fixed_first = q, q_tps, q_gh, q_wall, q_slow, q.n
    gpn = max(1, offer.gpus_per_node if offer is not None else min(p.n, p.gpn))
    target = math.ceil(p.n / gpn) * gpn if offer is not None else p.n
    constants = memo.get(("train_constants",))
    if constants is None:  # the workload's slot and data-parallel cap, once per search rather than once per shape
        constants = memo[("train_constants",)] = (slot_hours(w), data_parallel_cap(w))
    slot, dp_cap = cast(_SlotAndCap, constants)
    on_spot = spot_factor(w, 2) > spot_factor(w, 1)  # the slot shrinks as a spot gang grows

    def slot_at(gpus: int) -> float:
        return slot_hours(w, math.ceil(gpus / gpn)) if on_spot else slot

    fixed_at: int | None = fixed_first
    max_nodes, gpus, per_gpu = (None if fixed_first else cap), p.n, p.per_gpu_gb
    scaled_for_time = whole_nodes = batch_capped = False
    # Scale out until one run fits its slot. Utilisation falls at very large scale, so the GPU-hours at
    # the new size are re-estimated and the size corrected (twice at most: it converges at once).
    for _ in range(3):
        if not (scale_out and gh is not None and gh / target > slot_at(target) * 1.0001):
            break
        wanted_nodes = _nodes_for(w, gh, gpn) if on_spot else math.ceil(math.ceil(gh / slot) / gpn)
        if three_d(w, arch, wanted_nodes * gpn, wanted_nodes):
            wanted_nodes = math.ceil(wanted_nodes / 8) * 8  # node counts that pipeline stages of 2-8 divide
        scaled = min(wanted_nodes * gpn, cap_nodes * gpn)
        if scaled <= target:
            break
        q = placement(w, arch, gpu, offer, fixed_gpus=scaled)
        if q.fits and q.lay.dp > dp_cap:
            # past the largest batch a run takes, more replicas have no sequence to train on: stop at the cap, in nodes
            capped = max(gpn, dp_cap * q.lay.tp * q.lay.pp // gpn * gpn)
            batch_capped = True
            if capped <= target:
                break
            scaled, q = capped, placement(w, arch, gpu, offer, fixed_gpus=capped)
        if not q.fits:
            break
        fixed_at, max_nodes, gpus, per_gpu, target, scaled_for_time = scaled, None, scaled, q.per_gpu_gb, scaled, True
        tps, gh, wall, slow = slowed(q)
    if target > gpus:
        q = placement(w, arch, gpu, offer, fixed_gpus=target)
        if q.fits:
            fixed_at, max_nodes, gpus, per_gpu, whole_nodes = target, None, target, q.per_gpu_gb, True
            tps, gh, wall, slow = slowed(q)
    return TrainingChoice(w, max_nodes, gpus, True, per_gpu, tps, gh, wall, as_given=False, fixed_gpus=fixed_at,
                          scaled_for_time=scaled_for_time, whole_nodes=whole_nodes, slot=slot_at(gpus), gpn=gpn,
                          batch_capped=batch_capped, slowdown=slow)


# a training plan past this share of usable memory is at the edge of it (allocator fragmentation, NCCL buffers and a
# checkpoint's spike take the rest): a plan with more GPUs and room is planned beside it and ranked first
ROOMIER_TRIES = (2, 4)  # the GPU counts tried for room, in multiples of the tight plan's


def tight_training(w: Workload, gpu: GpuRecord, per_gpu_gb: float) -> bool:
    """A training plan over COMFORT_FRACTION of usable memory per GPU: it fits on paper and OOMs on the first spike."""
    return per_gpu_gb > COMFORT_FRACTION * usable_gb(gpu, w.headroom) + 1e-9


def roomier_choice(w: Workload, arch: Architecture, gpu: GpuRecord, offer: OfferRecord | None, choice: TrainingChoice,
                   memo: dict[tuple[object, ...], object] | None = None) -> TrainingChoice | None:
    """The same training run with room to spare, beside a plan at the edge of memory: the fewest GPUs, at 2x or 4x the
    tight plan's (whole nodes, where the offer links its nodes), whose busiest GPU stays within COMFORT_FRACTION of
    usable memory. 8 B200s hold a 70B full fine-tune at 161.9 of 162 GB usable; 16 hold it at about half that, for
    about the same GPU-hours. None when the plan has room, the user fixed the count, or no larger plan is sold."""
    if choice.as_given or not choice.fits or w.gpu_count or w.nodes or not tight_training(w, gpu, choice.per_gpu_gb):
        return None
    key = ("train_roomier", gpu.id, choice.gpus) + (
        (offer.gpus_per_node, offer.inter_node_fabric is None, offer.max_nodes, offer.intra_node_link, offer.inter_node_gbps)
        if offer is not None else ())
    if memo is not None and key in memo:
        return cast(TrainingChoice | None, memo[key])
    found: TrainingChoice | None = None
    cap = node_cap(offer)
    gpn = max(1, offer.gpus_per_node if offer is not None else choice.gpn)
    for times in ROOMIER_TRIES:
        n = choice.gpus * times
        sold = offer.max_nodes if offer is not None and offer.max_nodes else cap
        if n > gpn and ((offer is not None and offer.inter_node_fabric is None) or (sold and n > sold * gpn)):
            break  # nodes the offer does not link, or more than it sells
        q = placement(choice.build_w, arch, gpu, offer, fixed_gpus=n)
        if not q.fits or tight_training(w, gpu, q.per_gpu_gb):
            continue
        tps, gh, wall = training_numbers(choice.build_w, arch, gpu, n)
        slow = gather_slowdown(choice.build_w, arch, gpu, offer, q)
        if slow != 1.0:
            tps, gh, wall = (round(tps / slow, 1), round(gh * slow, 1) if gh is not None else None,
                             round(wall * slow, 2) if wall is not None else None)
        found = TrainingChoice(choice.build_w, None, n, True, q.per_gpu_gb, tps, gh, wall, as_given=False, fixed_gpus=n,
                               slot=choice.slot, gpn=choice.gpn, slowdown=slow)
        break
    if memo is not None:
        memo[key] = found
    return found


def training_result(w: Workload, arch: Architecture, gpu: GpuRecord, offer: OfferRecord | None,
                    choice: TrainingChoice, memo: dict[tuple[object, ...], object] | None = None,
                    ) -> tuple[ClusterPlan, MemoryEstimate, ThroughputEstimate]:
    """The training choice as result objects, with what the plan needs saying: scale-out, whole nodes,
    a run that overruns its slot, runs side by side, and what changes at scale. `memo` (one per workload, as
    `training_choice`'s) shares the speed estimate of a GPU count among the node shapes and offers shown on it."""
    plan, memory = plan_cluster(choice.build_w, arch, gpu, offer, max_nodes=choice.max_nodes, fixed_gpus=choice.fixed_gpus)
    throughput = _training_estimate(w, arch, gpu, choice.gpus, memo)
    if choice.slowdown > 1.0:
        throughput = gathers_counted(throughput, choice.slowdown, network=said_gbps(choice.build_w) is not None)
    if choice.as_given:
        extra = scale_notes(plan, max(1, offer.gpus_per_node if offer is not None else plan.gpus_per_node), offer is not None,
                            w.pricing)
        timed = with_deadline(w, throughput, plan.nodes)
        late = next((t for t in timed.targets if t.name == "deadline_hours" and not t.met), None)
        if late is not None and w.gpu_count and choice.fits:
            extra = [_late_on_fixed(w, arch, gpu, offer, late.got), *extra]
        if extra:
            plan = plan.model_copy(update={"notes": (*extra, *plan.notes)})
        return plan, memory, timed
    gpn, slot = choice.gpn, choice.slot
    notes: list[str] = []
    if start_up_exceeds_deadline(w):
        notes.append(f"{SHORT_DEADLINE_NOTE}a run cannot finish within {float(w.deadline_hours or 0) * 60:,.0f} min: starting "
                     f"the instances, the image and the weights takes about {setup_hours(w) * 60:,.0f} min before the "
                     "first step, so no GPU count makes it; planned as the cheapest run instead")
    if choice.scaled_for_time and choice.gpu_hours is not None:
        notes.append(f"scaled out to {plan.gpus:,} GPUs so one run of {choice.gpu_hours:,.0f} GPU-hours finishes "
                     f"within {slot:,.0f} h")
    if choice.whole_nodes:
        notes.append(f"the offer rents whole {gpn}-GPU nodes: training runs data-parallel on all {choice.gpus} GPUs")
    if choice.wall_hours is not None:
        runs = float(w.runs_per_month or 1.0)
        wall = choice.wall_hours
        if wall > slot * 1.0001:
            why = ("the offer sells single nodes" if offer is not None and offer.inter_node_fabric is None else
                   "the global batch limits data parallel" if choice.batch_capped else "cluster size limit")
            if choice.batch_capped:
                notes.append(batch_capped_note(plan.gpus, w))
            notes.append(f"one run takes {wall:,.0f} h ({wall / 24:,.1f} days) on {plan.gpus} GPU(s), longer than the "
                         f"{slot:,.0f} h target ({why}): ranked after options that make it")
        # never more clusters than runs: 20 runs of 74 days each are 20 clusters for 2.4 months (as the Cost line says),
        # not 49 ("20 runs a month" kept up month after month)
        side_by_side = min(math.ceil(runs - 1e-9), math.ceil(runs * wall / HOURS_PER_MONTH - 1e-9))
        if runs > 1 and side_by_side > 1:
            within = ("in a month" if wall <= HOURS_PER_MONTH else f"in {wall / HOURS_PER_MONTH:,.1f} months, each run's own length")
            notes.append(f"{runs:g} runs x {wall:,.0f} h each do not fit one after another in a month: run "
                         f"{side_by_side} side by side on separate {plan.gpus}-GPU clusters ({side_by_side * plan.gpus} GPUs at "
                         f"once, same GPU-hours and cost, done {within}); assumes the runs are independent experiments")
    notes.extend(scale_notes(plan, gpn, offer is not None, w.pricing))
    if notes:
        plan = plan.model_copy(update={"notes": (*notes, *plan.notes)})
    return plan, memory, with_deadline(w, throughput, plan.nodes)


def _training_estimate(w: Workload, arch: Architecture, gpu: GpuRecord, gpus: int,
                       memo: dict[tuple[object, ...], object] | None) -> ThroughputEstimate:
    """`estimate_training` once per GPU type and count of a workload: it reads nothing of the node shape or the
    offer, and several shortlisted offers (1- and 8-GPU instances, regions) often land on the same count."""
    if memo is None:
        return estimate_training(w, arch, gpu, gpus)
    key = ("train_estimate", gpu.id, gpus)
    found = memo.get(key)
    if found is None:
        found = memo[key] = estimate_training(w, arch, gpu, gpus)
    return found  # type: ignore[return-value]


def plan_offer(w: Workload, arch: Architecture, gpu: GpuRecord, offer: OfferRecord | None,
               scale_out: bool = True, memo: dict[tuple[object, ...], object] | None = None,
               ) -> tuple[ClusterPlan, MemoryEstimate, ThroughputEstimate]:
    """Plan, memory and speed for one node shape (training: `training_choice`; serving: `serving_plan`)."""
    if (w.mode or "inference") not in TRAINING_MODES:
        return serving_plan(w, arch, gpu, offer, memo)
    return training_result(w, arch, gpu, offer, training_choice(w, arch, gpu, offer, scale_out))


FAILURE_NOTE_GPUS = 1024


def capacity_note(nodes: int, gpus: int, pricing: str | None) -> str | None:
    """Many instances of one GPU type bought by the hour from one provider: a price list is not stock."""
    if nodes < CAPACITY_NODES or (pricing or "on_demand") == "reserved":
        return None
    how = "spot" if pricing == "spot" else "on demand"
    return (f"{CAPACITY_NOTE}{nodes} instances ({gpus:,} GPUs) {how} from one provider: confirm it has them free, or "
            "reserve them, before planning on it")


def scale_notes(plan: ClusterPlan, gpn: int, rented: bool = True, pricing: str | None = None) -> list[str]:
    """What changes at scale that the arithmetic does not show: buying capacity (for a catalog rental; not for
    GPUs the team owns or a price it was quoted), and failures."""
    out: list[str] = []
    if rented and plan.gpus > RESERVATION_NODES * gpn:
        out.append(f"{plan.gpus:,} GPUs is a reserved-cluster negotiation (capacity, price and fabric), not an on-demand "
                   "order: the on-demand price here is an upper bound")
    elif rented:
        out.extend(n for n in [capacity_note(plan.nodes, plan.gpus, pricing)] if n)
    if plan.gpus >= FAILURE_NOTE_GPUS:
        out.append("at this scale hardware failures interrupt the run every few hours (Meta's Llama 3 405B run on 16k "
                   "H100s: 419 unexpected interruptions in 54 days): the figures here count the time lost to restarts "
                   "in proportion (10% at 16k GPUs, Meta's >90% effective training time); a less mature stack loses "
                   "more, and checkpoints should be asynchronous")
    return out


def with_deadline(w: Workload, throughput: ThroughputEstimate, nodes: int = 1) -> ThroughputEstimate:
    """A training deadline ("done in a week") as a target the plan meets or misses, by how much (on spot, with the
    reclaims of its `nodes` nodes counted, as the run is costed)."""
    if not w.deadline_hours or throughput.wall_clock_hours is None:
        return throughput
    wall = throughput.wall_clock_hours.value
    gpus = throughput.wall_clock_hours.inputs.get("gpus")
    if throughput.gpu_hours is not None and isinstance(gpus, int | float) and gpus > 0:
        wall = throughput.gpu_hours.value / float(gpus)  # from the GPU-hours the run is costed and timed with
    wall *= spot_factor(w, nodes)  # as the run is costed and ranked: restarts after reclaims take their share
    wall += setup_hours(w)  # the wall clock the user waits, as the Speed line and the ranking count it
    check = TargetCheck(name="deadline_hours", wanted=float(w.deadline_hours), got=round(wall, 3),
                        met=wall <= w.deadline_hours * 1.0001)
    return throughput.model_copy(update={"targets": (*throughput.targets, check)})


def offer_fabric_gb_s(offer: OfferRecord | None) -> float | None:
    """Each GPU's share of the offer's inter-node fabric in GB/s (EFA 3200 Gbps on 8 GPUs: 50), None when the offer
    does not say (the serving search then assumes the GPU generation's usual NIC per GPU). Nodes that share one
    NVLink domain (GB200 NVL72's trays) exchange experts' tokens over NVLink: its bandwidth one way (900 GB/s)."""
    if offer is not None and nvlink_domain_gpus(offer):
        return nvlink_gb_s_per_direction(offer)
    if offer is None or not offer.inter_node_gbps or offer.inter_node_fabric is None:
        return None
    return offer.inter_node_gbps / max(1, offer.gpus_per_node) / 8


def serving_plan(w: Workload, arch: Architecture, gpu: GpuRecord, offer: OfferRecord | None,
                 memo: dict[tuple[object, ...], object] | None = None) -> tuple[ClusterPlan, MemoryEstimate, ThroughputEstimate]:
    """Serving on this node shape: the replica group and count from engine.serving, as result objects.
    A model that fits on no group gets plan_cluster's does-not-fit plan and its fixes."""
    gpn, link = serving_shape(w, gpu, offer)
    choice = choose(w, arch, gpu, gpn, link_kind(link), offer is None or offer.inter_node_fabric is not None, memo=memo,
                    fabric_gb_s=offer_fabric_gb_s(offer), domain=nvlink_domain_gpus(offer))
    if offer is None and choice is not None and not w.gpu_count and not w.nodes:
        gpn, choice = _fewest_for_quote(w, arch, gpu, link, gpn, choice, memo)
    if choice is None:
        return serving_fits_nowhere(w, arch, gpu, offer, gpn, link)
    return serving_result(w, arch, gpu, offer, choice, gpn, link)


def _fewest_for_quote(w: Workload, arch: Architecture, gpu: GpuRecord, link: str | None, gpn: int,
                      choice: ServingChoice, memo: dict[tuple[object, ...], object] | None) -> tuple[int, ServingChoice]:
    """A price per GPU-hour (the user's quote, or their own GPUs at their power) with no GPU count: no instance
    size bills whole nodes, so the plan is searched on machines of 1, 2, 4 and 8 GPUs and the one meeting the
    targets on the fewest GPUs is kept. On one notional 8-GPU node every group was billed 8 GPUs and the fastest
    won: Llama 3.1 8B for 4 users on 4 RTX 3090s in TP4, where one card keeps 47 tokens/s per user."""
    kind = link_kind(link)
    best = (gpn, choice)

    def key(c: ServingChoice) -> tuple[float, ...]:
        return (float(len(c.misses)), float(below_floor(w, c.per_user_tokens_s)), float(max(c.billed_gpus, c.gpus)),
                float(c.nodes), -c.per_user_tokens_s)

    for size in (1, 2, 4):
        if size >= gpn:
            break
        found = choose(w, arch, gpu, size, kind, True, memo=memo)
        if found is not None and key(found) < key(best[1]):
            best = (size, found)
    return best


def serving_shape(w: Workload, gpu: GpuRecord, offer: OfferRecord | None) -> tuple[int, str | None]:
    """(GPUs per node, intra-node link) a serving plan is searched on: the offer's, else an 8-GPU node (or
    the user's smaller GPU count) on the GPU's own link."""
    gpn = offer.gpus_per_node if offer is not None else (w.gpu_count if w.gpu_count and w.gpu_count < 8 else 8)
    link = offer.intra_node_link if offer is not None and offer.intra_node_link else gpu.scaleup_link
    return max(1, gpn), link


def serving_fits_nowhere(w: Workload, arch: Architecture, gpu: GpuRecord, offer: OfferRecord | None, gpn: int,
                         link: str | None) -> tuple[ClusterPlan, MemoryEstimate, ThroughputEstimate]:
    """Nothing a serving engine would run fits this node shape: the breakdown and fixes, never an option."""
    plan, memory = plan_cluster(w, arch, gpu, offer, max_nodes=node_cap(offer))
    if plan.fits:
        plan = plan.model_copy(update={"fits": False, "notes": (
            f"no tensor-parallel group of up to {gpn} GPUs per node (with pipeline stages where nodes link) holds "
            "the weights and one sequence's KV cache", *plan.notes)})
    return plan, memory, estimate_inference(w.model_copy(update={"concurrency": 1}), arch, gpu, plan, link)


def _fewest_gpus_meeting(w: Workload, arch: Architecture, gpu: GpuRecord, offer: OfferRecord | None, gpn: int,
                         kind: str) -> ServingChoice | None:
    """The plan with the fewest GPUs of this type that meets the user's targets and keeps the floor, on any
    instance size (1, 2, 4, 8, or the offer's): each size's plan is billed in whole instances of it, so a 2-GPU
    group is found on 2-GPU instances, not as the cheapest plan on an 8-GPU node. None when none does."""
    free = w.model_copy(update={"gpu_count": None, "nodes": None})
    multi_node = offer is None or offer.inter_node_fabric is not None
    # a machine the user named ("2 NC A100 v4") comes no bigger than its largest size: a replica of 8 would span
    # two 4-GPU VMs with no fabric between them
    sizes = {n for n in {gpn, 1, 2, 4, 8} if n <= gpn} if w.instance_type else {gpn, 1, 2, 4, 8}
    fabric = offer_fabric_gb_s(offer)
    domain = nvlink_domain_gpus(offer)
    plans = [c for c in (choose(free, arch, gpu, n, kind, multi_node, fabric_gb_s=fabric, domain=domain)
                         for n in sorted(sizes))
             if c is not None and not c.misses and not below_floor(w, c.per_user_tokens_s)]
    return min(plans, key=lambda c: (c.gpus, c.billed_gpus), default=None)


def _short_on_fixed(w: Workload, arch: Architecture, gpu: GpuRecord, offer: OfferRecord | None, choice: ServingChoice,
                    gpn: int, kind: str, missed: list[tuple[str, float, float]]) -> str:
    """The GPUs the user fixed hold the model but miss a target they stated, or serve the users below the
    interactive floor: say so, and how many GPUs of the same type would not."""
    need = _fewest_gpus_meeting(w, arch, gpu, offer, gpn, kind)
    floor = user_floor(w)
    fixed = f"the {w.gpu_count} GPU(s) you fixed"
    if missed:
        verb = "meet it"
        verb_s = "misses" if w.gpu_count == 1 else "miss"
        what = f"{fixed} {verb_s} {'; '.join(_missed(name, wanted, got) for name, wanted, got in missed)}"
        head, tail = MISSED_FIXED_NOTE, ""
    else:
        verb = f"keep {floor:g}+"
        # as the speed line shows it (a speed that rounds to the floor is not called slow: see serving_result)
        what = (f"{choice.per_user_tokens_s:.1f} tokens/s per user with {choice.batch} user(s) per replica on {fixed}, under the {floor:g} "
                "tokens/s assumed for interactive use")
        head, tail = SLOW_FIXED_NOTE, " (or say the speed you need, e.g. “10 tokens/s per user”)"
    enough = (f"{need.gpus} GPUs ({need.replicas} replica(s) of {need.gpus_per_replica}) {verb}" if need is not None
              else f"no GPU count of this type {'meets it' if missed else verb.replace('keep', 'keeps')}")
    return f"{head}{what}; {enough}{tail}"


def _late_on_fixed(w: Workload, arch: Architecture, gpu: GpuRecord, offer: OfferRecord | None, got_h: float) -> str:
    """A training GPU count the user fixed misses their deadline: say so, and how many GPUs of the same type on this
    offer finish in time (data parallel over the same GPU-hours, planned as the search plans it)."""
    free = training_choice(w.model_copy(update={"gpu_count": None, "nodes": None}), arch, gpu, offer, True)
    fixed = f"the {w.gpu_count} GPU(s) you fixed {'misses' if w.gpu_count == 1 else 'miss'} the deadline"
    what = f"{fixed} ({hours_text(got_h)} against {hours_text(float(w.deadline_hours or 0))})"
    if free.fits and free.wall_hours is not None and free.wall_hours <= float(w.deadline_hours or 0) * 1.0001:
        return (f"{MISSED_FIXED_NOTE}{what}; {free.gpus:,} GPUs finish in about {hours_text(free.wall_hours)} for about the "
                "same GPU-hours")
    return f"{MISSED_FIXED_NOTE}{what}; no GPU count on this offer finishes in time"


def hours_text(hours: float) -> str:
    """A wall clock in a note, as the answer's speed line says it: "45 min", "4.3 h", "1,295 h"."""
    if hours < 1:
        return f"{max(hours * 60, 1):,.0f} min"
    return f"{hours:,.1f} h" if hours < 100 else f"{hours:,.0f} h"


def _missed(name: str, wanted: float, got: float) -> str:
    """"the request rate (14.8 of 200 requests/s)": a target the plan misses, in words and figures."""
    words = {"requests_per_s": ("the request rate", "requests/s"), "target_ttft_s": ("the time to first token", "s"),
             "target_tokens_per_s_per_user": ("the per-user speed", "tokens/s"),
             "target_tokens_per_s": ("the total throughput", "tokens/s")}
    label, unit = words.get(name, (name.replace("_", " "), ""))

    def num(value: float) -> str:  # 15,500 tokens/s, not 1.55e+04
        return f"{value:,.0f}" if value >= 1000 else f"{value:,.3g}"

    return f"{label} ({num(got)} against {num(wanted)} {unit})".replace(" )", ")")


PCIE_REPLICAS = " (a replica per card: no tensor parallel over PCIe)"  # after "1 GPU" in a serving plan's parallelism
# the reason runs to the next clause: not into " with expert parallel", which the plan line says on its own
PCIE_TP = re.compile(r"tensor parallel x\d+ over PCIe( for (?:(?! with )[^;,()])+)?")


def pcie_tp_said(parallelism: str) -> str | None:
    """" over PCIe" and why (" for the 20 tokens/s per user"), as a serving plan's parallelism says them after "tensor
    parallel xN"; None where the replica is not tensor-parallel over PCIe."""
    found = PCIE_TP.search(parallelism)
    return f" over PCIe{found.group(1) or ''}" if found else None


EXPERT_PARALLEL_ACROSS = "expert parallel x"  # how a plan's parallelism names expert parallelism across nodes
# the flags that build that layout, filled with the replica's GPUs, nodes and tensor-parallel size
EXPERT_PARALLEL_STACK = ("SGLang --tp {ep} --dp {nodes} --enable-dp-attention --moe-a2a-backend deepep, or vLLM "
                         "--tensor-parallel-size {tp} --data-parallel-size {nodes} --enable-expert-parallel with a DeepEP "
                         "all-to-all backend")
# what expert parallelism across nodes needs of the fabric before NCCL's own checks (DeepEP's requirements)
EXPERT_PARALLEL_CHECKLIST = (
    "expert parallel across nodes needs an RDMA fabric between the nodes (InfiniBand, or RoCE), one NIC per GPU: every "
    "MoE layer of every decode step sends tokens to the other nodes' experts; plain Ethernet or a shared NIC makes "
    "each token wait on the network",
    "DeepEP's low-latency kernels need GPUDirect RDMA with IBGDA (NVSHMEM; see the DeepEP README's network "
    "configuration); on AWS EFA check the serving stack's supported all-to-all backend first",
    "run DeepEP's tests/test_low_latency.py (or nccl-tests alltoall_perf) across the nodes before serving and compare "
    "with the NIC's line rate",
)
NVLINK_DOMAIN_NOTE = "one NVLink domain: "  # expert parallel over the trays of one NVL72 rack (serving_result)
# what expert parallelism over one rack's NVLink domain needs checked (DeepEP's NVLink path; NVIDIA's multi-node NVLink)
NVLINK_DOMAIN_CHECKLIST = (
    "all the replica's trays in one NVL72 rack (one NVLink domain): a replica split across racks sends its all-to-all "
    "over the inter-rack network at a fraction of NVLink's bandwidth",
    "multi-node NVLink set up between the trays (IMEX service and channels; nvidia-smi -q shows the NVLink fabric "
    "state as completed) before serving; DeepEP's NVLink-only mode (or the serving stack's NVL72 all-to-all) in use",
)
FP8_BLOCK = 128  # block-wise FP8 checkpoints (DeepSeek-V3, Qwen3 FP8) quantise weights in 128x128 blocks
EXPERT_PARALLEL_FLAG = "vLLM --enable-expert-parallel"


def needs_expert_parallel(w: Workload, arch: Architecture, tp: int) -> bool:
    """An MoE in FP8 whose experts' width does not split into whole 128-wide blocks at this tensor-parallel size:
    vLLM refuses the layout (Qwen3-235B-A22B FP8 at TP 8: 1536 / 8 = 192, "not divisible by weight quantization
    block_n = 128"); expert parallel places whole experts instead. MLA models are sharded with DP attention already."""
    width = arch.moe_ffn or 0
    return (arch.is_moe and not arch.is_mla and (w.precision or "bf16") == "fp8" and tp > 1 and width > 0
            and (width // tp) % FP8_BLOCK != 0)


def serving_result(w: Workload, arch: Architecture, gpu: GpuRecord, offer: OfferRecord | None, choice: ServingChoice,
                   gpn: int, link: str | None) -> tuple[ClusterPlan, MemoryEstimate, ThroughputEstimate]:
    """ClusterPlan, memory of one replica's busiest GPU, and the fleet's throughput for a serving choice."""
    tp, pp, group, ep = choice.tp, choice.pp, choice.gpus_per_replica, choice.ep
    fabric_gb_s = offer_fabric_gb_s(offer)
    wb = w.model_copy(update={"concurrency": choice.batch})
    memory = estimate_memory(wb, arch, group, gpu, tensor_parallel=tp, pipeline_parallel=pp, zero_stage=0,
                             expert_parallel=ep)
    kind = link_kind(link)
    over = fast_link_name(link) if kind == "fast" else "PCIe"
    across = " across nodes" if group > gpn else ""
    why = pcie_tp_text(choice, w) if tp > 1 and kind != "fast" else ""
    domain = nvlink_domain_gpus(offer)
    # a tensor-parallel group over whole trays of one NVLink domain (GB200 NVL72: TP8 on two 4-GPU trays)
    span = domain_span(tp, gpn, domain) if not ep and kind == "fast" else ""
    over_text = span or f"over {over}"
    tp_text = (f"tensor parallel x{tp} {over_text} with data-parallel attention (SGLang --enable-dp-attention)"
               if arch.is_mla else f"tensor parallel x{tp} {over_text}" + (f" {why}" if why else ""))
    if needs_expert_parallel(w, arch, tp):
        tp_text += f" with expert parallel ({EXPERT_PARALLEL_FLAG})"
    # replicas of one card on a multi-GPU node without NVLink: said, as the choice it is (tensor parallel would
    # carry every layer's all-reduces over PCIe)
    one = f"1 GPU{PCIE_REPLICAS}" if choice.replicas > 1 and kind != "fast" and gpn > 1 else "1 GPU"
    shape = one if group == 1 else (tp_text if tp > 1 else "") + (
        f"{', ' if tp > 1 else ''}pipeline x{pp}{across}" if pp > 1 else "")
    in_domain = bool(ep and domain and ep <= domain)  # expert parallel over one NVLink domain's trays (NVL72)
    if ep:
        shape = (f"{EXPERT_PARALLEL_ACROSS}{ep} across {ep // tp} nodes"
                 + (f" of one {domain}-GPU NVLink domain" if in_domain else "")
                 + f", data-parallel attention (tensor parallel x{tp} "
                 f"over {over} in each node; {EXPERT_PARALLEL_STACK.format(ep=ep, nodes=ep // tp, tp=tp)})")
    parallelism = shape if choice.replicas == 1 else f"{choice.replicas} replicas x {shape}"
    gpus = choice.gpus
    replica_plan = ClusterPlan(
        gpu=gpu.id, gpus=group, nodes=max(1, math.ceil(group / gpn)), gpus_per_node=min(group, gpn), fits=True,
        data_parallel=1, tensor_parallel=tp, pipeline_parallel=pp, zero_stage=0, interconnect=link or "PCIe only",
        parallelism=shape, needs_nvlink=False, needs_infiniband=False, gpus_per_replica=group, replicas=1)
    per_replica = estimate_inference(wb, arch, gpu, replica_plan, link, expert_parallel=ep, fabric_gb_s=fabric_gb_s)
    ctx, _ = context_tokens(w)
    notes: list[str] = []
    what = (f"{choice.replicas} independent replicas of {group} GPU(s)" if choice.replicas > 1 else f"one copy on {group} GPU(s)")
    notes.append(f"{what}, {choice.batch} sequence(s) each with KV cache for {ctx:,} tokens per sequence"
                 + ("; replicas need no fast link between them (a load balancer in front)" if choice.replicas > 1 else ""))
    if choice.capacity_sequences:
        room = (f"{ROOM_NOTE}{choice.capacity_sequences:,} sequences of {ctx:,} tokens per replica at once (KV cache "
                "memory left after the weights, up to vLLM's default max_num_seqs)")
        if (w.concurrency or 1) == 1 and w.requests_per_s is None and w.target_tokens_per_s is None:
            # sized for one stream: how many users the replica serves is the "does it fit" answer, and memory alone
            # overstates it (speed falls as the batch grows)
            users = users_at_floor(w, arch, gpu, tp, pp, kind, choice.capacity_sequences, ep, fabric_gb_s)
            prompt_in, out = request_shape(w)
            pause = think_time_s(w.model_copy(update={"concurrency": 2}))  # as users_at_floor counts their turns
            room += (f"; at ≥{user_floor(w):g} tokens/s{USERS_AT_FLOOR_NOTE}{users:,} users (each sending turns of "
                     f"{prompt_in:,} prompt + {out:,} output tokens" + (f", pausing ~{pause:g} s between them)" if pause
                                                                          else ")"))
        notes.append(room)
    if in_domain:
        notes.append(f"{NVLINK_DOMAIN_NOTE}expert parallel x{ep} spreads the routed experts over {ep // tp} of the rack's "
                     f"{gpn}-GPU trays, so each GPU holds and reads 1/{ep} of them at every step; every MoE layer's "
                     f"dispatch and combine stay on the rack's NVLink switches ({domain} GPUs in one NVLink domain, "
                     f"~{fabric_gb_s or 0:,.0f} GB/s per GPU each way), not the network between racks: a replica's trays "
                     "must sit in one rack (ask the provider to place them so)")
    elif span:
        link_gb_s = (nvlink_gb_s_per_direction(offer) if offer is not None else None) or 0.0
        notes.append(f"{DOMAIN_TP_NOTE}tensor parallel x{tp} spans {tp // gpn} of the rack's {gpn}-GPU trays: every "
                     f"layer's all-reduces run over the rack's NVLink switches ({domain} GPUs in one NVLink domain, "
                     f"~{link_gb_s:,.0f} GB/s per GPU each way, as inside a tray; counted in the per-token time), not "
                     "the network between racks: a replica's trays must sit in one rack (ask the provider to place them so)")
    elif ep:
        notes.append(f"the model needs a whole {gpn}-GPU node: expert parallel x{ep} spreads its routed experts over "
                     f"{ep // tp} nodes, so each GPU holds and reads 1/{ep} of them at every step (pipeline stages on the same "
                     f"nodes would read their 1/{tp} shares one stage after another); every MoE layer's dispatch and "
                     "combine cross the inter-node fabric, which must be RDMA (InfiniBand or RoCE, GPUDirect) with a NIC "
                     "per GPU")
    elif arch.is_mla and tp > 1:
        notes.append("the MLA cache is sharded with data-parallel attention (SGLang --enable-dp-attention, vLLM "
                     "data-parallel attention with expert parallel): plain tensor parallel keeps a full copy of it on "
                     f"every GPU, {tp}x the cache per GPU shown here")
    if tp > 1 and kind != "fast":
        notes.append(f"tensor parallel over PCIe is what vLLM and TGI do on {gpu.name}: it works, and its all-reduces are "
                     "counted in the per-token time")
    if pp > 1:
        where = (f"the model does not fit one tensor-parallel group of {tp} GPUs ({tp // gpn} trays): {pp} pipeline "
                 "stages across trays" if span else
                 f"the model does not fit one {gpn}-GPU node: {pp} pipeline stages across nodes" if group > gpn else
                 f"the attention heads do not split {group} ways: {pp} pipeline stages of tensor parallel x{tp}")
        notes.append(f"{where} pass only activations (pipelined decode: micro-batches keep every stage busy; each token "
                     "still visits every stage)")
    rate = planned_rate(w)
    prompt_in, out = request_shape(w)
    if rate:
        said = "as given" if w.input_tokens and w.output_tokens else "assumed where not given"
        capacity = choice.capacity_rps or 0.0
        total = ("" if w.requests_per_s and rate <= w.requests_per_s else
                 f"{rate_text(float(w.target_tokens_per_s or 0))} output tokens/s in total is ")
        notes.append(f"{total}{rate_text(rate)} requests/s of {prompt_in:,} prompt + {out:,} output tokens ({said}): one "
                     f"replica sustains ~{capacity:,.1f} requests/s ({capacity * out:,.0f} output tokens/s), planned at "
                     f"{RATE_UTILISATION:.0%} of that so bursts do not queue; ~{choice.batch} sequences in flight per replica")
    stock = capacity_note(choice.nodes, choice.billed_gpus, w.pricing) if offer is not None else None
    if stock:
        notes.append(stock)
    if offer is not None and choice.billed_gpus > gpus:
        notes.append(f"the offer rents whole {gpn}-GPU nodes: {choice.billed_gpus} GPUs billed for the {gpus} the plan uses")
    sustained = choice.replicas * (choice.capacity_rps or 0.0)  # requests/s the fleet sustains (the rate target's figure)
    # a total tokens/s the user gave sized as a rate: checked as the output tokens/s the fleet sustains (beside users at
    # once it is theirs, checked in the search: engine.serving.users_total)
    total_target = float(w.target_tokens_per_s or 0.0) if total_in_rate(w) else 0.0
    if w.gpu_count:
        missed = list(choice.misses)
        if w.requests_per_s and sustained < w.requests_per_s * 0.999:
            missed.append(("requests_per_s", w.requests_per_s, sustained))
        if total_target and sustained * out < total_target * 0.999:
            missed.append(("target_tokens_per_s", total_target, sustained * out))
        slow = below_floor(w, choice.per_user_tokens_s)
        if missed or slow:
            notes.append(_short_on_fixed(w, arch, gpu, offer, choice, gpn, kind, missed))
    notes.extend(platform_caveats(gpu, w, group))
    plan = replica_plan.model_copy(update={
        "gpus": gpus, "nodes": choice.nodes, "gpus_per_node": min(gpus, gpn), "data_parallel": choice.replicas,
        "interconnect": (link or "PCIe only") + (
            "; between nodes: " + (offer.inter_node_fabric if offer and offer.inter_node_fabric else "Ethernet (activations only)")
            if pp > 1 else "; between the replica's trays: NVLink (one rack)" if in_domain or span
            else "; between nodes: " + (offer.inter_node_fabric if offer and offer.inter_node_fabric else
                                        "InfiniBand or RoCE with GPUDirect RDMA (required)") if ep else ""),
        "parallelism": parallelism, "needs_nvlink": bool(ep or span), "needs_infiniband": bool(ep) and not in_domain,
        "checklist": (NVLINK_DOMAIN_CHECKLIST if in_domain else DOMAIN_TP_CHECKLIST if span
                      else (*EXPERT_PARALLEL_CHECKLIST, *NCCL_CHECKLIST) if ep else ()),
        "provider_questions": PROVIDER_QUESTIONS if ep and not in_domain else (),
        "gpus_per_replica": group, "replicas": choice.replicas, "notes": tuple(notes)})
    seq = per_replica.decode_tokens_per_s_per_sequence
    agg = per_replica.decode_tokens_per_s
    targets: list[TargetCheck] = []
    if w.target_tokens_per_s_per_user and seq is not None:
        targets.append(TargetCheck(name="target_tokens_per_s_per_user", wanted=w.target_tokens_per_s_per_user,
                                   got=round(seq.value, 2), met=seq.value >= w.target_tokens_per_s_per_user * 0.999))
    queued = queued_ttft(w, choice.batch, choice.replicas, choice.step_s, choice.ttft_s)
    first = queued.graded_s if queued is not None else choice.ttft_s  # at the percentile asked, the queue included
    if w.target_ttft_s:
        targets.append(TargetCheck(name="target_ttft_s", wanted=w.target_ttft_s, got=round(first, 4),
                                   met=first <= w.target_ttft_s * 1.001, percentile=ttft_percentile(w)))
    if w.requests_per_s:
        targets.append(TargetCheck(name="requests_per_s", wanted=w.requests_per_s, got=round(sustained, 2),
                                   met=sustained >= w.requests_per_s * 0.999))
    if total_target:
        targets.append(TargetCheck(name="target_tokens_per_s", wanted=total_target, got=round(sustained * out, 1),
                                   met=sustained * out >= total_target * 0.999))
    if w.concurrency:
        targets.append(TargetCheck(name="concurrency", wanted=float(w.concurrency), got=float(choice.batch * choice.replicas),
                                   met=choice.batch * choice.replicas >= w.concurrency))
    fleet = _fleet_tokens(w, agg, choice, rate, sustained, out) if agg is not None else None
    held = users_total(w, (choice.capacity_sequences, choice.batch, choice.replicas, choice.step_s, choice.ttft_s,
                           choice.capacity_rps))
    if held is not None and fleet is not None:  # users at once: the total is theirs, as the speed line shows it
        wanted = float(w.target_tokens_per_s or 0.0)
        targets.append(TargetCheck(name="target_tokens_per_s", wanted=wanted, got=round(fleet.value, 1),
                                   met=fleet.value >= wanted * 0.999))
    throughput = per_replica.model_copy(update={
        "decode_tokens_per_s": fleet, "replicas": choice.replicas, "targets": tuple(targets),
        "ttft_s": _ttft_figure(queued, per_replica.prefill_seconds)})
    return plan, memory.model_copy(update={"total_gb": round(memory.per_gpu_gb * gpus, 3)}), throughput


def _ttft_figure(queued: QueuedTtft | None, prefill: Figure | None) -> Figure | None:
    """The time to first token at the load planned, at the percentile asked (p95 unless said; engine.queueing): the
    prefill plus the wait behind other requests' prefills, with the mean, the p95 and the utilisation it comes from;
    the prefill alone where no load is known."""
    if queued is None or prefill is None:
        return prefill
    at = queued.percentile
    how = ("mean wait rho x S / (2 (1 - rho)) (Pollaczek-Khinchine)" if at == "mean" else
           f"{at} wait: 0 while rho <= 1 - q, else the larger of the exponential tail (mean wait / rho) ln(rho / (1 - q)) "
           "and the Cramer-Lundberg tail S ln(C / (1 - q)) / x, rho (e^x - 1) = x, C = (1 - rho) / (rho e^x - 1); "
           "mean wait rho x S / (2 (1 - rho)) (Pollaczek-Khinchine)")
    return figure(queued.graded_s, "s", f"prefill + {how}, in an M/D/1 queue of prefills",
                  {**prefill.inputs, "prefill_s": round(queued.prefill_s, 4), "prefill_utilisation": round(queued.utilisation, 4),
                   "mean_ttft_s": round(queued.mean_s, 4), "p95_ttft_s": round(queued.p95_s, 4),
                   "quantile": None if at == "mean" else round(float(at[1:]) / 100, 6), "percentile": at}, digits=4,
                  notes=(f"requests queue for the replica's prefills, which take {queued.utilisation:.0%} of its time: "
                         f"first token {queued.mean_s:.2g} s on average, {queued.p95_s:.2g} s at p95"
                         + (f", {queued.graded_s:.2g} s {percentile_words(at)}" if at not in ("mean", "p95") else "")
                         + f", {queued.prefill_s:.2g} s for the prefill alone",))


def _fleet_tokens(w: Workload, agg: Figure, choice: ServingChoice, rate: float | None, sustained: float,
                  out: int) -> Figure:
    """The fleet's output tokens/s at the load it is planned for, the answer's "tokens/s in total". With a rate
    planned (a request rate, or a total tokens/s as one) that is the load, rate x output tokens, or what the fleet
    sustains where that is less (GPUs the user fixed); an offline job runs flat out, at the fleet's capacity. The
    replicas' decode rate at the batch in flight (sequences / step) described another load: 91k tokens/s beside a
    1,000 requests/s x 100 output tokens target it met. With users held at once, it is their speed x their count."""
    if not rate or not sustained:
        return agg.model_copy(update={"value": agg.value * choice.replicas, "formula": f"{agg.formula} x replicas",
                                      "inputs": {**agg.inputs, "replicas": choice.replicas}})
    offline = bool(w.batch_items or w.offline)
    served = max(sustained, rate) if offline else min(sustained, rate)
    formula = ("requests/s the fleet sustains x output tokens (an offline job runs at its capacity)" if offline else
               "requests/s planned x output tokens (the load; at most what the fleet sustains)")
    return agg.model_copy(update={"value": served * out, "formula": formula, "inputs": {
        **agg.inputs, "replicas": choice.replicas, "requests_per_s": round(served, 4), "output_tokens": out,
        "capacity_requests_per_s": round(sustained, 4)}})


def lateness(w: Workload, wall_hours: float) -> int:
    """How badly one training run overruns its slot: 0 on time, then 1 + log2(wall / slot), so twice
    the slot is 2. Late options are shown but ranked after those on time, the latest last."""
    if (w.mode or "inference") not in TRAINING_MODES or not math.isfinite(wall_hours):
        return 0
    slot = run_slot_hours(w)
    if wall_hours <= slot * 1.0001:
        return 0
    return 1 + int(math.log2(wall_hours / slot))


def is_late(w: Workload, wall_hours: float) -> bool:
    """A training option whose single run overruns its slot: shown, but ranked after the rest."""
    return lateness(w, wall_hours) > 0


@dataclass
class PlannedShape:
    """One node shape planned for one GPU, as the catalog search needs it. Serving stays a
    `ServingChoice` and training a `TrainingChoice` of plain numbers until its option is shortlisted
    (`built()`): building the result objects for every GPU and node shape the search tries would cost
    most of a question's time. A serving model that fits nowhere is built at once (its breakdown)."""

    w: Workload
    plan: ClusterPlan | None = None
    memory: MemoryEstimate | None = None
    throughput: ThroughputEstimate | None = None
    choice: ServingChoice | None = None
    arch: Architecture | None = None
    gpu: GpuRecord | None = None
    offer: OfferRecord | None = None
    gpn: int = 1
    link: str | None = None
    train: TrainingChoice | None = None
    nowhere: bool = False  # serving: no group of this node shape holds the model (built only if asked why)
    memo: dict[tuple[object, ...], object] | None = None  # the search's per-workload memo, shared when built

    def slower(self) -> PlannedShape | None:
        """The cheaper plan on this node shape that is below the interactive floor (`ServingChoice.cheaper_slower`):
        a candidate of its own, ranked after the plans that keep the floor."""
        alt = self.choice.cheaper_slower if self.choice is not None else None
        if alt is None:
            return None
        return PlannedShape(self.w, choice=alt, arch=self.arch, gpu=self.gpu, offer=self.offer, gpn=self.gpn, link=self.link)

    def roomier(self) -> PlannedShape | None:
        """A training plan at the edge of memory's counterpart with room (`roomier_choice`): a candidate of its own,
        ranked before it."""
        if self.train is None or self.arch is None or self.gpu is None:
            return None
        alt = roomier_choice(self.w, self.arch, self.gpu, self.offer, self.train, self.memo)
        if alt is None:
            return None
        return PlannedShape(self.w, arch=self.arch, gpu=self.gpu, offer=self.offer, train=alt, memo=self.memo)

    def built(self) -> tuple[ClusterPlan, MemoryEstimate, ThroughputEstimate]:
        if self.plan is None or self.memory is None or self.throughput is None:
            assert self.arch is not None and self.gpu is not None
            if self.nowhere:
                self.plan, self.memory, self.throughput = serving_fits_nowhere(self.w, self.arch, self.gpu, self.offer,
                                                                               self.gpn, self.link)
            elif self.train is not None:
                self.plan, self.memory, self.throughput = training_result(self.w, self.arch, self.gpu, self.offer, self.train,
                                                                          self.memo)
            else:
                assert self.choice is not None
                self.plan, self.memory, self.throughput = serving_result(self.w, self.arch, self.gpu, self.offer, self.choice,
                                                                         self.gpn, self.link)
        return self.plan, self.memory, self.throughput

    @property
    def fits(self) -> bool:
        if self.nowhere:
            return False
        if self.train is not None:
            return self.train.fits
        return self.choice is not None or bool(self.plan is not None and self.plan.fits)

    @property
    def gpus(self) -> int:
        if self.train is not None:
            return self.train.gpus
        return self.choice.gpus if self.choice is not None else (self.plan.gpus if self.plan is not None else 0)

    @property
    def per_gpu_gb(self) -> float | None:
        """The busiest GPU's GB where known without building (training), else from the built memory."""
        if self.train is not None:
            return round(self.train.per_gpu_gb, 3)
        return self.memory.per_gpu_gb if self.memory is not None else None

    @property
    def gpu_hours(self) -> float | None:
        """GPU-hours per run (training; None for serving or without a token count)."""
        if self.train is not None:
            return self.train.gpu_hours
        t = self.throughput
        return t.gpu_hours.value if t is not None and t.gpu_hours is not None else None

    @property
    def tokens_per_s(self) -> float:
        """Training tokens/s over all GPUs."""
        if self.train is not None:
            return self.train.tokens_per_s
        t = self.throughput
        return t.training_tokens_per_s.value if t is not None and t.training_tokens_per_s is not None else 0.0

    @property
    def copy_gpus(self) -> int:
        """GPUs one copy of the model spans (replicas need no fabric between them)."""
        if self.nowhere:
            return 0  # no copy fits: never an option
        if self.train is not None:
            return self.train.gpus
        if self.choice is not None:
            return self.choice.gpus_per_replica
        assert self.plan is not None and self.throughput is not None
        return self.plan.gpus // max(1, self.throughput.replicas or 1)

    def billed(self, offer: OfferRecord | None) -> int:
        """GPUs paid for: whole instances of the offer's shape."""
        if self.choice is not None:
            return max(self.choice.billed_gpus, self.choice.gpus)
        gpus = self.gpus
        if offer is None or offer.gpus_per_node <= 0:
            return gpus
        if self.train is None and self.plan is not None and self.plan.replicas:
            return max(self.plan.nodes * offer.gpus_per_node, gpus)
        return int(math.ceil(gpus / offer.gpus_per_node)) * offer.gpus_per_node

    def off_target(self) -> float:
        """How far a serving plan is from the targets it misses (`engine.serving.miss_factor`, the interactive floor
        counted as `engine.recommendation.off_target` counts it): 1 for a plan that misses none, and for training."""
        if self.choice is None:
            return 1.0
        factor = miss_factor(self.choice.misses)
        speed = self.choice.per_user_tokens_s
        return factor * user_floor(self.w) / speed if speed > 0 and below_floor(self.w, speed) else factor

    def misses(self) -> int:
        """Serving targets missed (the deadline, training's only target, is counted by lateness instead)."""
        if self.train is not None:
            return 0
        if self.choice is not None:
            # below the interactive floor assumed when no per-user speed was asked: ranked like a missed target
            # (after the options that keep it), though not reported as the user's target
            return len(self.choice.misses) + int(below_floor(self.w, self.choice.per_user_tokens_s))
        assert self.throughput is not None
        return sum(1 for t in self.throughput.targets if not t.met and t.name != "deadline_hours")


def plan_shape(w: Workload, arch: Architecture, gpu: GpuRecord, offer: OfferRecord | None, scale_out: bool = True,
               memo: dict[tuple[object, ...], object] | None = None) -> PlannedShape:
    """`plan_offer` for the catalog search, in numbers only until an option is shown."""
    if (w.mode or "inference") in TRAINING_MODES:
        return PlannedShape(w, arch=arch, gpu=gpu, offer=offer, train=training_choice(w, arch, gpu, offer, scale_out, memo),
                            memo=memo)
    if offer is not None:
        gpn, link = serving_shape(w, gpu, offer)
        choice = choose(w, arch, gpu, gpn, link_kind(link), offer.inter_node_fabric is not None, memo=memo,
                        fabric_gb_s=offer_fabric_gb_s(offer), domain=nvlink_domain_gpus(offer))
        if choice is not None:
            return PlannedShape(w, choice=choice, arch=arch, gpu=gpu, offer=offer, gpn=gpn, link=link)
        return PlannedShape(w, arch=arch, gpu=gpu, offer=offer, gpn=gpn, link=link, nowhere=True)  # not searched again
    return PlannedShape(w, *plan_offer(w, arch, gpu, offer, scale_out=scale_out, memo=memo))
