"""Serving plan for one node shape: the smallest tensor-parallel group, then replicas.

How vLLM, TGI and SGLang deployments are sized in practice, and so how this module searches:
1. A replica is one copy of the model on a tensor-parallel group of 1, 2, 4 or 8 GPUs inside a node
   (NVLink or PCIe: both work, PCIe pays more per all-reduce; on a tray of a larger NVLink domain, GB200 NVL72,
   up to 8 across its trays at the same NVLink speed), with pipeline stages across nodes
   only when one node cannot hold the model. The group must hold the weights plus the KV cache of
   its share of the sequences. A large MoE (one that needs a whole node) on an offer that links its
   nodes may instead span 2-4 nodes with expert parallelism, data-parallel attention across them, as
   DeepSeek-V3/R1 and Kimi K2 are served on 80 GB GPUs (SGLang --tp 16 --enable-dp-attention with
   DeepEP, vLLM data parallel + expert parallel); dense models keep pipeline stages across nodes.
2. Each replica batches as many sequences as its memory allows while every user still gets the
   per-user speed asked for (or a usable floor), up to vLLM's default of 256 sequences.
3. Replicas are independent copies behind a load balancer: as many as the concurrency, request
   rate or throughput target needs (a total tokens/s is sized as the request rate that generates it,
   at RATE_UTILISATION of the fleet's capacity like any rate). They need no fast link between them.
Among the groups that fit, the plan that meets the targets with the fewest billed GPUs wins; a tie
goes to the faster group. Everything here is plain numbers; engine.offer_plans builds the result
objects for the one plan chosen.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import cast

from catalog.records import GpuRecord
from engine.architecture import Architecture
from engine.cluster import domain_tensor_parallel_width
from engine.memory import (
    DEFAULT_OPTIONS,
    GB,
    MemoryOptions,
    kv_cache_bytes,
    per_gpu_bytes,
    resolve_layout,
    usable_gb,
)
from engine.models import Workload
from engine.queueing import graded_ttft, max_utilisation, percentile_quantile, queues, ttft_percentile
from engine.think_time import think_time_s
from engine.throughput import (
    decode_step_function,
    loaded_step,
    planned_rate,
    prefill_load_seconds,
    prefill_seconds_for,
    prefill_tokens,
    request_shape,
    under_load,
)

TP_SIZES = (1, 2, 4, 8, 16)
# vLLM's default max_num_seqs (vllm/engine/arg_utils.py, EngineArgs.get_batch_defaults, V1 engine): 1,024 sequences
# on a GPU of 70 GiB or more that is not an A100 ("for GPUs like H100 and MI300x"), 256 on the rest
MAX_BATCH_PER_REPLICA = 256
MAX_BATCH_LARGE_GPU = 1024
LARGE_GPU_GB = 75.0  # 70 GiB in the decimal GB the catalog lists


def max_batch_per_replica(gpu: GpuRecord) -> int:
    """The most sequences one replica batches, as vLLM does by default on this GPU."""
    large = gpu.memory_gb >= LARGE_GPU_GB and "a100" not in f"{gpu.id} {gpu.name}".lower()
    return MAX_BATCH_LARGE_GPU if large else MAX_BATCH_PER_REPLICA


# Why a replica spans several PCIe cards (ServingChoice.pcie_tp_reason). Without NVLink every layer's two
# all-reduces cross PCIe and the host bridge, so serving practice is one replica per card behind a load balancer
# whenever one card holds the model ("If your model fits in a single GPU, you probably don't need to use distributed
# inference", vLLM's distributed serving guide), and otherwise the fewest cards that hold it, with replicas for load.
# A larger group is taken only when the smaller one misses a speed the user needs, or costs more GPUs.
PCIE_TP_FITS = "fits"  # the fewest cards whose memory holds the model
PCIE_TP_SPEED = "speed"  # a smaller group holds it but misses the per-user speed (asked, or the interactive floor)
PCIE_TP_TTFT = "ttft"  # a smaller group misses the time to first token asked
PCIE_TP_COST = "cost"  # a smaller group meets the targets only on more GPUs
# ties on price go to the smaller group on PCIe: a plan's key carries tp x this after billing (0 on NVLink)
PCIE_TP_TIE = 1.0

MIN_TOKENS_PER_S_PER_USER = 10.0  # below this a chat feels broken: a batch that slows users further is not taken
# a plan below the assumed interactive floor is listed beside the one that keeps it only when it stays close to it
# (15 tokens/s of the default 20): half the GPUs at 18 tokens/s is a real choice, 10 tokens/s is not a chat
CHEAPER_SLOWER_FRACTION = 0.75
# With no per-user target, batches are kept at an interactive 20 tokens/s per user (about twice reading
# speed; serving benchmarks such as NVIDIA NIM's and vLLM's treat 20-30 tokens/s per user as interactive).
DEFAULT_TOKENS_PER_S_PER_USER = 20.0
# An offline job's prompts have nobody waiting on each token: it runs batched for throughput, as vLLM's offline
# `LLM.generate` does, as many sequences per replica as memory and max_num_seqs allow. The floor only keeps
# a batch from growing where each step's KV reads dwarf the output (below a token a second per prompt).
JOB_TOKENS_PER_S_PER_PROMPT = 1.0
MAX_PIPELINE_STAGES = 16
# A fleet sized for a request rate runs each replica at 80% of the rate it can sustain: at 100% the queue
# (and the time to first token) grows without bound with any burst
RATE_UTILISATION = 0.8
# A per-user speed the user asked for is sized with 10% to spare, as a rate is sized at 80% of capacity: a
# plan that meets "50 ms per token" by 0.5% on paper misses it with a longer prompt, a slower kernel build or
# the estimate's own error (about ±10% against published vLLM runs). Met and missed are still judged against
# the target itself; a group that cannot reach the margin at batch 1 but reaches the target is sized to the target.
SPEED_TARGET_MARGIN = 0.10
# The interactive floor assumed when no speed was asked is a rule of thumb, not a requirement, and the estimate is
# itself about ±10% against published vLLM runs: a plan within 5% of it (19.8 tokens/s of 20 on 8 L40S) keeps it.
# Judged to the decimal, the next plan up (12 L40S for 70B at 20 users) cost half as much again for 1% on paper.
DEFAULT_FLOOR_SLACK = 0.05
# When no plan meets a target, the closest is the one whose got/wanted is least off (`miss_factor`); plans within 10%
# of each other in it are a near tie, which cost breaks (the estimate is itself about ±10% against published runs, so
# 5.7 s and 6.2 s against 5 s are the same miss, and 5.7 s and 28 s are not)
MISS_TIE = 0.10


@dataclass(frozen=True)
class ServingChoice:
    """One replica shape and how many of them, in numbers."""

    tp: int
    pp: int
    batch: int  # sequences per replica
    replicas: int
    step_s: float  # one decode step at that batch
    ttft_s: float  # prefill of one request's prompt on the replica (no queueing: engine.queueing adds the wait)
    billed_gpus: int
    nodes: int
    per_user_tokens_s: float
    misses: tuple[tuple[str, float, float], ...]  # (target field, wanted, got)
    # expert parallel across nodes: the routed experts spread over this many GPUs (the whole replica, ep / tp nodes),
    # attention tensor-parallel tp ways in each node and data-parallel across them; 0 for none
    ep: int = 0
    capacity_rps: float | None = None  # requests/s one replica sustains (request-rate sizing)
    capacity_sequences: int = 0  # sequences one replica can hold at once: KV cache room, capped at max_num_seqs
    # on the same node shape, the cheapest plan below the interactive floor assumed when no per-user speed was
    # asked (4 L40S in one TP4 replica at 18 tokens/s beside the 8 that keep 20+): listed after, for the price
    cheaper_slower: ServingChoice | None = None
    # tensor parallel over PCIe (tp > 1 on a node without NVLink): why this group and not replicas of a smaller one
    # (PCIE_TP_FITS, PCIE_TP_SPEED, PCIE_TP_TTFT, PCIE_TP_COST); "" elsewhere (one GPU, NVLink, a TP the user asked for)
    pcie_tp_reason: str = ""

    @property
    def gpus_per_replica(self) -> int:
        return self.ep or self.tp * self.pp

    @property
    def gpus(self) -> int:
        return self.gpus_per_replica * self.replicas


def miss_factor(misses: tuple[tuple[str, float, float], ...] | list[tuple[str, float, float]]) -> float:
    """How far a plan is from the targets it misses, as one factor of at least 1: the product over them of got/wanted
    or wanted/got, whichever is over 1 (a TTFT of 5.7 s against 5 s: 1.14; 10 tokens/s against 20: 2). 1 when none is
    missed. The measure the user asked in, so "closest to the targets" means closest in it."""
    return math.exp(sum(abs(math.log(max(got, 1e-12) / wanted)) for _name, wanted, got in misses if wanted > 0))


def user_floor(w: Workload) -> float:
    """The per-sequence speed batches are kept at: the user's target, else interactive chat's, else (an offline
    job with no speed asked) throughput's."""
    if w.target_tokens_per_s_per_user:
        return float(w.target_tokens_per_s_per_user)
    return JOB_TOKENS_PER_S_PER_PROMPT if w.batch_items or w.offline else DEFAULT_TOKENS_PER_S_PER_USER


def speed_asked_of(w: Workload) -> bool:
    return bool(w.target_tokens_per_s_per_user)


def offline_of(w: Workload) -> bool:
    return bool(w.batch_items or w.offline)


def floor_kept_at(w: Workload) -> float:
    """The per-user speed at which the floor counts as kept: the interactive default within DEFAULT_FLOOR_SLACK,
    an asked speed or an offline job's floor to rounding."""
    floor = user_floor(w)
    if speed_asked_of(w) or offline_of(w):
        return floor * 0.999
    return floor * (1 - DEFAULT_FLOOR_SLACK)


def below_floor(w: Workload, per_user_tokens_s: float) -> bool:
    """Slower per user than the interactive floor assumed when no per-user speed was asked (an asked speed is
    a target, checked as one). Not reported as missed, but ranked after the plans that keep it."""
    return w.target_tokens_per_s_per_user is None and per_user_tokens_s < floor_kept_at(w)


# Expert-parallel replicas span 2 to 4 whole nodes (EP16-EP32 on 8-GPU nodes: SGLang's two-node H100 DeepSeek
# recipe, DeepSeek's own decode units of 4 nodes), on nodes of at least 4 GPUs (HGX-class, one NIC per GPU)
EXPERT_PARALLEL_NODES = (2, 3, 4)
EXPERT_PARALLEL_MIN_GPUS_PER_NODE = 4
# Inside one NVLink domain larger than a node (GB200 NVL72: 18 trays of 4 GPUs behind the rack's NVLink switches)
# expert parallelism goes as wide as the domain, as it is served there (LMSYS's DeepSeek decode on 12 trays of a
# GB200 NVL72, EP48): the all-to-all runs at NVLink bandwidth, not over a NIC
EXPERT_PARALLEL_DOMAIN_WIDTHS = (8, 16, 32, 48, 64, 72)


def _groups(arch: Architecture, gpn: int, multi_node: bool, domain: int | None = None) -> tuple[tuple[int, int, int], ...]:
    """(tp, pp, ep) shapes to try: power-of-two TP inside a node (in an NVLink `domain` wider than the node, up to
    8 over whole nodes of it), smallest first (attention heads must split evenly, as vLLM requires); for an MoE on
    linked nodes, expert parallel across 2-4 nodes with whole-node TP for attention (ep = the replica's GPUs), or, in an NVLink `domain` of more GPUs than a node, as wide as the domain
    (EXPERT_PARALLEL_DOMAIN_WIDTHS); then pipeline stages, smallest first (inside a node whose width the heads
    do not divide, or across nodes with whole-node TP). ep is 0 for the groups without expert parallelism."""
    return _group_shapes(arch.heads, arch.layers, gpn, multi_node, arch.is_moe, domain or 0)


@functools.lru_cache(maxsize=1024)
def _group_shapes(heads: int, layers: int, gpn: int, multi_node: bool,
                  moe: bool = False, domain: int = 0) -> tuple[tuple[int, int, int], ...]:
    tps = [t for t in TP_SIZES if t <= gpn and heads % t == 0]
    # inside an NVLink domain wider than the node (GB200 NVL72's 4-GPU trays), whole trays of it at NVLink speed, as
    # vLLM and TensorRT-LLM run TP8 there (engine.cluster.domain_tensor_parallel)
    wide = [t for t in TP_SIZES if gpn < t <= domain_tensor_parallel_width(domain, gpn) and t % gpn == 0
            and heads % t == 0]
    out = {(t, 1) for t in (*tps, *wide)}
    widths = {t for t in tps}
    stages = range(2, min(MAX_PIPELINE_STAGES, layers) + 1)
    # inside one node when the heads do not split as far as the node is wide (6- or 7-GPU instances too)
    out |= {(t, p) for t in tps for p in stages if t * p <= gpn and t * p not in widths}
    if tps and multi_node:
        top = (wide or tps)[-1]
        out |= {(top, p) for p in stages if top * p > gpn}
    shapes = {(t, p, 0) for t, p in out}
    if tps and multi_node and moe and gpn >= EXPERT_PARALLEL_MIN_GPUS_PER_NODE and tps[-1] == gpn:
        shapes |= {(gpn, 1, gpn * n) for n in EXPERT_PARALLEL_NODES}
        if domain > gpn:
            shapes |= {(gpn, 1, e) for e in EXPERT_PARALLEL_DOMAIN_WIDTHS if e <= domain and e % gpn == 0}
    # tensor-parallel groups first, then expert parallel across nodes, then pipeline stages
    return tuple(sorted(shapes, key=lambda g: (g[1] > 1, g[2] > 0, g[2] or g[0] * g[1], -g[0])))


# The memo's value types, named once: a subscripted type written inside `cast` is rebuilt at every call, which
# costs more than the lookup it annotates in the search's inner loops
_MaybeFloat = float | None
_Steps = tuple[Callable[[int], tuple[float, float, float, float]], dict[int, float], dict[int, float]]
_Sized = tuple[int, int, int, float, float, float | None]
_MaybeSized = _Sized | None
_Terms = tuple[int, int, tuple[tuple[str, float, float], ...]]  # `_billed`'s (nodes, billed GPUs, targets missed)
# (per-user floor, below_floor's threshold, output tokens, under load, prompt prefilled, the workload at batch 1)
_Constants = tuple[float, float, int, bool, int, Workload]
_MaybeConstants = _Constants | None


def _max_batch(w1: Workload, arch: Architecture, tp: int, pp: int, limit_bytes: float, opts: MemoryOptions,
               memo: dict[tuple[object, ...], object], ep: int = 0) -> int:
    """Most sequences one replica holds. Memory is linear in the batch: each sequence adds its KV cache
    share on this GPU and its last-token logits (as engine.memory counts them); `w1` has batch 1."""
    key = ("bytes", tp, pp, ep)
    if key not in memo:
        memo[key] = per_gpu_bytes(w1, arch, resolve_layout(w1, ep or tp * pp, tp, pp, 0, expert_parallel=ep), opts)
    one = float(memo[key])  # type: ignore[arg-type]
    if one > limit_bytes:
        return 0
    slope_key = ("slope", tp, pp, ep)
    slope = cast(_MaybeFloat, memo.get(slope_key))
    if slope is None:
        prec = w1.precision or "bf16"
        split = (tp if arch.is_mla else min(tp, arch.kv_heads)) * (ep // tp if ep > tp else 1)
        stage = math.ceil(arch.layers / pp) / arch.layers
        slope = memo[slope_key] = (kv_cache_bytes(arch, int(w1.seq_len or 2048), 1, 1.0 if prec == "fp8" else 2.0)
                                   * stage / split + arch.vocab * 4)
    return 1 + int((limit_bytes - one) // max(slope, 1.0))


def _largest_batch_meeting(step_of: Callable[[int], float], cap: int, floor: float) -> int:
    """Largest batch in [1, cap] whose per-user speed is at least `floor` (speed falls as the batch grows)."""
    lo, hi = 1, cap
    if 1 / step_of(1) < floor:
        return 1
    if 1 / step_of(cap) >= floor:
        return cap
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if 1 / step_of(mid) >= floor:
            lo = mid
        else:
            hi = mid
    return lo


def users_at_floor(w: Workload, arch: Architecture, gpu: GpuRecord, tp: int, pp: int, kind: str, cap: int,
                   ep: int = 0, fabric_gb_s: float | None = None) -> int:
    """How many users one replica serves while each keeps the per-user floor (the asked speed, else the
    interactive 20 tokens/s), every user sending turns of the default request shape: the largest batch up to
    `cap` (its KV cache room) whose per-user speed under load holds the floor, found with the functions that
    size "for N users", so asking for that many users on these GPUs gives the same speed. 0 when even one
    user's turns fall below it. Memory room alone overstates this several times for a large model on few GPUs
    (405B FP8 on 4 MI300X holds 261 sequences, at under 3 tokens/s each)."""
    if cap < 1:
        return 0
    users = w.model_copy(update={"concurrency": 2})  # users sending turns: their prefills share the replica
    step_at = decode_step_function(users, arch, gpu, tp, pp, kind, ep=ep, fabric_gb_s=fabric_gb_s)
    load = prefill_load_seconds(users, arch, gpu, tp, prefill_tokens(users), ep=ep, fabric_gb_s=fabric_gb_s,
                                kind=kind if tp > 1 else "")
    out_tokens = request_shape(users)[1]
    pause = think_time_s(users)  # users read each reply before their next turn, as "for N users" plans them
    # a capacity is stated "at ≥20 tokens/s each": counted at the floor itself, not within its slack
    kept_at = user_floor(w) * 0.999
    steps: dict[int, float] = {}

    def step_of(b: int) -> float:
        if b not in steps:
            steps[b] = loaded_step(step_at(b)[0], b, load, out_tokens, pause)
        return steps[b]

    if 1 / step_of(1) < kept_at:
        return 0
    return _largest_batch_meeting(step_of, cap, kept_at)


def failover_replicas(w: Workload) -> int:
    """The replicas availability asks for ("99.9% uptime", "HA"), 0 when none; an offline job restarts what a lost
    machine held, so it is sized for throughput alone."""
    return 0 if w.batch_items or w.offline else int(w.min_replicas or 0)


def _bill(replicas: int, group: int, gpn: int) -> tuple[int, int]:
    """(nodes, billed GPUs): replicas pack into whole rented nodes; a group larger than a node spans nodes."""
    if group <= gpn:
        per_node = max(1, gpn // group)
        nodes = math.ceil(replicas / per_node)
    else:
        nodes = replicas * math.ceil(group / gpn)
    return nodes, nodes * gpn


def _size_group(w: Workload, w1: Workload, arch: Architecture, gpu: GpuRecord, tp: int, pp: int, kind: str,
                limit: float, opts: MemoryOptions, memo: dict[tuple[object, ...], object], floor: float, prompt: int,
                out_tokens: int, loaded: bool, fixed: int | None, ep: int = 0,
                fabric_gb_s: float | None = None) -> tuple[int, int, int, float, float, float | None]:
    """(batch capacity, batch, replicas, per-token seconds, TTFT, requests/s per replica) of one tp x pp
    group (or ep GPUs with expert parallelism across nodes): everything but the billing, so node shapes of one
    GPU (1, 2, 4, 8 per instance) share it. A capacity of 0 means the group does not hold the model."""
    cap = min(_max_batch(w1, arch, tp, pp, limit, opts, memo, ep), max_batch_per_replica(gpu))
    if cap < 1:
        return 0, 0, 0, 0.0, 0.0, None
    group = ep or tp * pp
    step_key = ("step", gpu.id, tp, pp, kind, ep, fabric_gb_s if ep else None)
    if step_key not in memo:
        memo[step_key] = (decode_step_function(w, arch, gpu, tp, pp, kind, memo, ep, fabric_gb_s), {}, {})
    # decode steps by batch, bare and as a user feels them (the search at the floor and the one below it probe
    # many of the same batches; the prompt, reply and load are the workload's, fixed for the memo)
    step_at, steps, felt = cast(_Steps, memo[step_key])

    ttft_key = ("ttft", gpu.id, tp, prompt, kind, ep, fabric_gb_s if ep else None)
    if ttft_key not in memo:
        memo[ttft_key] = prefill_seconds_for(w, arch, gpu, tp, prompt, memo, ep, fabric_gb_s, kind)
    ttft = cast(float, memo[ttft_key])
    # what a request's prefill takes from the replica's decoding under load, as distinct from its latency on an idle
    # replica, `ttft`: the same on a tensor-parallel group; an expert-parallel replica's attention groups prefill
    # their own users' prompts side by side (`prefill_load_seconds`)
    if ep > tp and arch.is_moe:
        load_key = ("prefill_load", gpu.id, tp, prompt, kind, ep, fabric_gb_s if ep else None)
        if load_key not in memo:
            memo[load_key] = prefill_load_seconds(w, arch, gpu, tp, prompt, ep, fabric_gb_s, kind)
        load = cast(float, memo[load_key])
    else:  # `prefill_load_seconds` is the prefill's latency itself there: not computed twice
        load = ttft

    shared = loaded and out_tokens > 0 and load > 0  # else loaded_step returns the bare step
    # chat users read each reply before the next turn (engine.think_time): their prefills arrive that much less often
    turn = load + think_time_s(w)
    twice, four_times = 2 * turn, 4 * turn

    def step_of(b: int, step_at: Callable[[int], tuple[float, float, float, float]] = step_at,
                steps: dict[int, float] = steps, felt: dict[int, float] = felt, load: float = load,
                turn: float = turn) -> float:
        """The per-token time a user sees at batch b (under load: prefills take their share). `loaded_step`
        written out (the search's innermost call), in its operations and order: the same float."""
        found = felt.get(b)
        if found is None:
            bare = steps.get(b)
            if bare is None:
                bare = steps[b] = step_at(b)[0]
            if shared and b > 0:
                b_coef = out_tokens * bare + turn + b * load
                disc = b_coef * b_coef - four_times * b * load
                busy = (b_coef - math.sqrt(0.0 if disc < 0.0 else disc)) / twice  # max(disc, 0.0)
                busy = busy if busy > 0.0 else 0.0  # max(0.0, busy)
                found = felt[b] = bare / (1 - (busy if busy < 0.9 else 0.9))  # min(0.9, ...)
            else:
                found = felt[b] = bare
        return found

    # a per-user target no batch can meet is missed anyway: batch as usual rather than spread every
    # user over a replica of their own for a few percent of speed
    margin = SPEED_TARGET_MARGIN if w.speed_margin is None else w.speed_margin
    sizing = floor * (1 + margin) if w.target_tokens_per_s_per_user else floor
    alone = 1 / step_of(1)
    group_floor = sizing if alone >= sizing else floor if alone >= floor else min(floor, MIN_TOKENS_PER_S_PER_USER)
    b_ok = _largest_batch_meeting(step_of, cap, group_floor)
    capacity: float | None = None
    rate = planned_rate(w)  # a request rate, or a total tokens/s as the requests that generate it
    if rate:
        # continuous batching at b_ok in flight: each request needs out_tokens steps shared by the batch,
        # plus its prefill, which stalls the batch (Little's law gives the sequences actually in flight)
        capacity = 1.0 / (out_tokens * steps[b_ok] / b_ok + load)
        replicas = max(1, math.ceil(rate / (capacity * RATE_UTILISATION) - 1e-9))
        if w.concurrency:  # users held at once as well ("100 concurrent users at 5 requests/s"): all kept at the floor
            replicas = max(replicas, math.ceil(int(w.concurrency) / b_ok))
        batch = max(1, min(b_ok, math.ceil(rate / replicas * (out_tokens * steps[b_ok] + load))))
        if w.concurrency:
            batch = max(batch, min(b_ok, math.ceil(int(w.concurrency) / replicas)))
    elif w.concurrency:
        batch = min(b_ok, int(w.concurrency))
        replicas = math.ceil(int(w.concurrency) / batch)
        batch = math.ceil(int(w.concurrency) / replicas)
    else:
        batch, replicas = 1, 1
    if w.target_ttft_s and not fixed and queues(w):
        # the first token graded at the percentile asked (p95 unless said) with the queue behind others' prefills
        # (engine.queueing): replicas added, or users per replica cut, until it meets the target; where the prefill
        # alone is over it, until the queue adds no more than MISS_TIE to the prefill, the closest this group comes (a
        # 130k-token prompt's 5.7 s on 8 B200s was 15.9 s at p95 with 2 users per replica, and the plan missing 5 s
        # by least was not found)
        target = float(w.target_ttft_s) if ttft < w.target_ttft_s else ttft * (1 + MISS_TIE)
        batch, replicas = _meet_ttft(w, target, batch, replicas, ttft, out_tokens, rate, step_of,
                                     steps[b_ok] if rate else 0.0, b_ok)
    if replicas < failover_replicas(w):
        # availability asked for: one replica per region or zone, the users spread over them
        replicas = failover_replicas(w)
        batch = math.ceil(int(w.concurrency) / replicas) if w.concurrency else batch
    if fixed:
        replicas = fixed // group
        if rate:  # the load spread over the GPUs fixed: more in flight on each replica, up to the batch that keeps the floor
            batch = max(1, min(b_ok, math.ceil(rate / replicas * (out_tokens * steps[b_ok] + load))))
        if w.concurrency:
            batch = math.ceil(int(w.concurrency) / replicas)
            if batch > cap:
                return cap, 0, 0, 0.0, ttft, capacity  # the user's GPUs cannot batch the users
    step = step_of(batch)
    return cap, batch, replicas, step, ttft, capacity


def _meet_ttft(w: Workload, target: float, batch: int, replicas: int, ttft: float, out_tokens: int, rate: float | None,
               step_of: Callable[[int], float], bare_step: float, b_ok: int) -> tuple[int, int]:
    """(batch, replicas) whose time to first token at the percentile asked (p95 unless said), queue included
    (engine.queueing), meets `target`: for a request
    rate, replicas enough that each one's prefill utilisation stays at the most the target allows; for users held at
    once, few enough users per replica. Monotone both ways (more load, longer waits), so each is a bisection."""
    if rate:
        if graded_ttft(w, batch, replicas, 0.0, ttft) <= target:
            return batch, replicas
        # the largest prefill utilisation whose first token at the percentile asked meets the target
        lo = max_utilisation(ttft, target, percentile_quantile(ttft_percentile(w)))
        needed = max(replicas, math.ceil(rate * ttft / lo - 1e-9)) if lo > 0 else replicas
        batch = max(1, min(b_ok, math.ceil(rate / needed * (out_tokens * bare_step + ttft))))
        return batch, needed
    if not w.concurrency or graded_ttft(w, batch, replicas, step_of(batch), ttft) <= target:
        return batch, replicas
    lo, hi = 1, batch  # users per replica: lo meets the target (one user never waits), hi does not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if graded_ttft(w, mid, 1, step_of(mid), ttft) <= target else (lo, mid)
    users = int(w.concurrency)
    replicas = max(replicas, math.ceil(users / lo))
    return math.ceil(users / replicas), replicas


def _billed(w: Workload, group: int, sized: tuple[int, int, int, float, float, float | None],
            gpn: int) -> tuple[int, int, tuple[tuple[str, float, float], ...]]:
    """(nodes, billed GPUs, the user's targets missed) of a sized group on this node shape: what `choose` ranks,
    without building the ServingChoice (most groups tried are not the one chosen)."""
    _cap, batch, replicas, step, ttft, _capacity = sized
    nodes, billed = _bill(replicas, group, gpn)
    if failover_replicas(w) and replicas > 1:
        # replicas for availability do not share a machine (nor, across regions, a data center): one node each
        nodes = replicas * math.ceil(group / gpn)
        billed = nodes * gpn
    misses: list[tuple[str, float, float]] = []
    if w.target_tokens_per_s_per_user and 1 / step < w.target_tokens_per_s_per_user * 0.999:
        misses.append(("target_tokens_per_s_per_user", w.target_tokens_per_s_per_user, 1 / step))
    total = users_total(w, sized)
    if total is not None and total < float(w.target_tokens_per_s or 0.0) * 0.999:
        # users at once generate the total: too slow each, and a group that gives each of them more wins
        misses.append(("target_tokens_per_s", float(w.target_tokens_per_s or 0.0), total))
    if w.target_ttft_s:
        first = graded_ttft(w, batch, replicas, step, ttft)  # at the percentile asked, others' prefills queued ahead
        if first > w.target_ttft_s * 1.001:
            misses.append(("target_ttft_s", w.target_ttft_s, first))
    return nodes, billed, tuple(misses)


def users_total(w: Workload, sized: tuple[int, int, int, float, float, float | None]) -> float | None:
    """The output tokens/s of users held at once, checked against a total said beside them ("200 users, 5,000
    tokens/s in total": 25 tokens/s each); None where the total is not theirs (sized as a rate, or restating one)."""
    if not w.target_tokens_per_s or not w.concurrency or w.requests_per_s:
        return None
    _cap, batch, replicas, step, _ttft, _capacity = sized
    return batch * replicas / step if step > 0 else 0.0


def _choice(w: Workload, tp: int, pp: int, sized: tuple[int, int, int, float, float, float | None],
            gpn: int, billed: tuple[int, int, tuple[tuple[str, float, float], ...]] | None = None,
            ep: int = 0) -> ServingChoice:
    """A sized tp x pp group as a ServingChoice: billed in whole nodes, with the user's targets it misses
    (`billed`: `_billed`'s answer when already known)."""
    cap, batch, replicas, step, ttft, capacity = sized
    nodes, billed_gpus, misses = billed if billed is not None else _billed(w, ep or tp * pp, sized, gpn)
    return ServingChoice(tp=tp, pp=pp, batch=batch, replicas=replicas, step_s=step, ttft_s=ttft, billed_gpus=billed_gpus,
                         nodes=nodes, per_user_tokens_s=1 / step, misses=misses, capacity_rps=capacity,
                         capacity_sequences=cap, ep=ep)


def _pcie_tp_reason(tp: int, groups: dict[int, tuple[tuple[float, ...], _Terms]]) -> str:
    """Why a tensor-parallel group of `tp` PCIe cards won over the best smaller group that holds the model (`groups`:
    each size's ranking key and billing, as `choose` ranked them): none smaller holds it, or the smaller misses a
    target (the per-user speed, asked or the interactive floor; the time to first token), or needs more GPUs."""
    smaller = [t for t in groups if t < tp]
    if not smaller:
        return PCIE_TP_FITS
    key, terms = min((groups[t] for t in smaller), key=lambda g: g[0])
    missed = {name for name, _wanted, _got in terms[2]}
    if "target_tokens_per_s_per_user" in missed or "target_tokens_per_s" in missed or key[2]:
        return PCIE_TP_SPEED  # a per-user speed asked, a total over users at once, or below the interactive floor
    if "target_ttft_s" in missed:
        return PCIE_TP_TTFT
    return PCIE_TP_COST


def pcie_tp_text(choice: ServingChoice, w: Workload) -> str:
    """What a plan line says after "TP n over PCIe": why the replica spans that many cards ("" for the fewest that hold
    the model, which needs no reason). Each reason starts with "for" so that it reads on from "TP n over PCIe"
    (bot.summary's plan line and `offer_plans.pcie_tp_said` rely on it)."""
    if choice.pcie_tp_reason == PCIE_TP_SPEED:
        return f"for the {user_floor(w):g} tokens/s per user"
    if choice.pcie_tp_reason == PCIE_TP_TTFT and w.target_ttft_s:
        return f"for the {w.target_ttft_s:g} s to first token"
    if choice.pcie_tp_reason == PCIE_TP_COST:  # "TP 2 over PCIe for fewer GPUs in all than smaller replicas"
        return "for fewer GPUs in all than smaller replicas"
    return ""


def choose(w: Workload, arch: Architecture, gpu: GpuRecord, gpn: int, kind: str, multi_node: bool,
           options: MemoryOptions | None = None, memo: dict[tuple[object, ...], object] | None = None,
           fabric_gb_s: float | None = None, domain: int | None = None) -> ServingChoice | None:
    """The cheapest replica plan on this node shape that meets the targets; if none meets them, the one
    that misses them least (fastest for users). None when the model fits on no group. `domain`: the GPUs of one
    NVLink domain when it spans nodes (GB200 NVL72's trays), where expert parallelism goes wider.

    `memo` (one per workload, shared across GPUs and node shapes) keeps what does not depend on the
    offer: a replica's memory at batch 1 per (tp, pp), and decode steps per (GPU, tp, pp, link, batch).
    `fabric_gb_s`: each GPU's share of the offer's inter-node fabric, for expert parallelism across nodes (None:
    the GPU generation's usual 200 or 400 Gb/s)."""
    opts = options or DEFAULT_OPTIONS
    memo = {} if memo is None else memo
    limit = usable_gb(gpu, w.headroom) * GB
    constants = cast(_MaybeConstants, memo.get(("constants",)))
    if constants is None:  # the workload's, read once per search rather than once per node shape
        floor = user_floor(w)
        # `below_floor` for this workload: below it when no per-user speed was asked (-inf: never below)
        slow_under = floor_kept_at(w) if w.target_tokens_per_s_per_user is None else -math.inf
        # a request mix: prefills interleave with the batch's decode steps. Concurrent users keep sending turns, so
        # with no request lengths given each turn is sized at the default shape (as serving benchmarks run a
        # concurrency level at a stated prompt/output length); one stream alone has no one to stall
        constants = memo[("constants",)] = (floor, slow_under, request_shape(w)[1], under_load(w), prefill_tokens(w),
                                             w.model_copy(update={"concurrency": 1}))
    floor, slow_under, out_tokens, loaded, prompt, w1 = constants
    # batches are sized to the speed at which the floor counts as kept: the assumed chat floor's, within its slack
    size_floor = floor if speed_asked_of(w) or offline_of(w) else floor * (1 - DEFAULT_FLOOR_SLACK)
    offline = bool(w.batch_items or w.offline)
    # the best group so far and the cheapest close below the floor, as (key, tp, pp, sized, billing, replicas filled,
    # ep): turned into a ServingChoice once, at the end (most groups tried are not the one chosen)
    best: tuple[tuple[float, ...], int, int, _Sized, _Terms, int, int] | None = None
    cheapest_slow: tuple[tuple[float, ...], int, int, _Sized, _Terms, int, int] | None = None
    fixed = w.gpu_count
    wanted_tp, wanted_pp = w.tensor_parallel, w.pipeline_parallel
    speed_asked = w.target_tokens_per_s_per_user is not None
    gpu_id = gpu.id
    tp_only_fits = False
    nvidia = gpu.vendor.upper() == "NVIDIA"
    part_node_fits = False  # a group smaller than the node holds the model: not a model for expert parallel across nodes
    # tensor-parallel groups (no pipeline, no expert parallel) on PCIe, by size: (key, billing) as ranked, to say why
    # the one chosen is not a smaller one (ServingChoice.pcie_tp_reason)
    pcie_groups: dict[int, tuple[tuple[float, ...], _Terms]] = {}
    for tp, pp, ep in _groups(arch, gpn, multi_node, domain):
        group = ep or tp * pp
        if pp > 1 and tp_only_fits and not wanted_pp:
            break  # pipeline stages are for a model no tensor-parallel group of the node holds
        if ep and (part_node_fits or wanted_pp or not nvidia or (arch.experts or 0) % ep):
            # DeepEP's all-to-all (the expert-parallel backend SGLang and vLLM ship) runs on NVIDIA GPUs and places
            # whole experts, as many on every GPU (its low-latency buffer asserts num_experts % ranks == 0)
            continue
        if fixed and (group > fixed or fixed % group):
            continue
        if wanted_tp and tp != wanted_tp:
            continue
        if wanted_pp and pp != wanted_pp:
            continue
        # one GPU per stage has no tensor-parallel all-reduce, so nothing of its sizing depends on the node's link:
        # NVLink and PCIe shapes of one GPU share it
        group_kind = kind if tp > 1 else ""
        fabric = fabric_gb_s if ep else None
        group_key = ("group", gpu_id, tp, pp, group_kind, ep, fabric)
        sized = cast(_MaybeSized, memo.get(group_key))
        if sized is None:
            sized = memo[group_key] = _size_group(w, w1, arch, gpu, tp, pp, group_kind, limit, opts, memo, size_floor,
                                                  prompt, out_tokens, loaded, fixed, ep, fabric)
        cap, batch, replicas, step, _, _ = sized
        if cap < 1:
            continue
        tp_only_fits = tp_only_fits or (pp == 1 and not ep)
        part_node_fits = part_node_fits or (not ep and group < gpn)
        if batch < 1:
            continue
        terms = _billed(w, group, sized, gpn)
        nodes, billed, misses = terms
        capacity = sized[5]
        # an offline job on whole rented nodes: the GPUs billed anyway each run a replica (vLLM data parallel), so the
        # job runs at the node's capacity and finishes sooner for the same hourly rent (an 8B model on a p5 node was
        # one TP8 replica on 8 GPUs, 4 GB each, where several smaller replicas do the job in a third of the time)
        filled = billed // group if offline and not fixed and capacity and billed >= 2 * replicas * group else replicas
        shortfall = sum(abs(math.log(max(got, 1e-12) / wanted)) for _name, wanted, got in misses) if misses else 0
        # the interactive floor (20 tokens/s per user when none was asked) is not the user's target, so it is not
        # reported as missed; but a group that keeps it beats a cheaper one that cannot (two TP2 replicas of a 70B
        # model on L40S at 13 tokens/s are not an interactive service), and among groups that cannot, the closest wins
        slow = 1 / step < slow_under
        # an offline job is bought by the hour it runs: at the same rent, the fleet that sustains the most requests
        # finishes first and costs least; a service is bought for its users' speed
        last = -filled * (capacity or 0.0) if offline else -1 / step
        # availability asked on GPUs the user fixed: a layout with a replica to fail over to comes first
        alone = float(bool(fixed) and sized[2] < failover_replicas(w))
        # at the same price, a group spread over fewer PCIe cards (replicas of one card rather than one TP2 replica):
        # its all-reduces cross PCIe and the host bridge, and the speed TP buys on paper is what they cost
        pcie_tie = PCIE_TP_TIE * tp if group_kind == "pcie" else 0.0
        key = (float(len(misses)), alone, float(slow), shortfall, math.log(floor * step) if slow else 0.0,
               float(billed), float(nodes), pcie_tie, last)
        if kind == "pcie" and pp == 1 and not ep:
            pcie_groups[tp] = (key, terms)
        became_best = best is None or key < best[0]
        if became_best:
            best = (key, tp, pp, sized, terms, filled, ep)
        per_user = 1 / step
        if per_user < slow_under and not misses and per_user >= CHEAPER_SLOWER_FRACTION * floor:
            # the cheapest plan close below the floor, no target of the user's missed (as the best's choice when it
            # was made the best just now, its replicas filled)
            cheap_key = (float(billed), float(nodes), -per_user)
            if cheapest_slow is None or cheap_key < cheapest_slow[0]:
                cheapest_slow = (cheap_key, tp, pp, sized, terms, filled if became_best else replicas, ep)
        if not speed_asked and not fixed and not slow and replicas > 1:
            # the same group batched past the floor nobody asked for: fewer replicas, each user slower (one TP4
            # replica of a 70B model on 4 L40S at 18 tokens/s, where two keep 20+); listed after, for its price
            low_key = ("group_low", gpu_id, tp, pp, group_kind, ep, fabric)
            low = cast(_MaybeSized, memo.get(low_key))
            if low is None:
                low = memo[low_key] = _size_group(w, w1, arch, gpu, tp, pp, group_kind, limit, opts, memo,
                                                  MIN_TOKENS_PER_S_PER_USER, prompt, out_tokens, loaded, fixed, ep, fabric)
            if low[1] >= 1 and low[2] < replicas:
                low_terms = _billed(w, group, low, gpn)
                per_user = 1 / low[3]
                if per_user < slow_under and not low_terms[2] and per_user >= CHEAPER_SLOWER_FRACTION * floor:
                    cheap_key = (float(low_terms[1]), float(low_terms[0]), -per_user)
                    if cheapest_slow is None or cheap_key < cheapest_slow[0]:
                        cheapest_slow = (cheap_key, tp, pp, low, low_terms, low[2], ep)
    if best is None:
        return None
    _key, tp, pp, sized, terms, filled, ep = best
    chosen = _choice(w, tp, pp, sized, gpn, terms, ep)
    if filled != sized[2]:
        chosen = replace(chosen, replicas=filled)
    if kind == "pcie" and tp > 1 and pp == 1 and not ep and not wanted_tp and tp in pcie_groups:
        chosen = replace(chosen, pcie_tp_reason=_pcie_tp_reason(tp, pcie_groups))
    if (cheapest_slow is not None and cheapest_slow[4][1] < chosen.billed_gpus
            and not below_floor(w, chosen.per_user_tokens_s)):
        _key, tp, pp, sized, terms, filled, ep = cheapest_slow
        slower = _choice(w, tp, pp, sized, gpn, terms, ep)
        if filled != sized[2]:
            slower = replace(slower, replicas=filled)
        return replace(chosen, cheaper_slower=slower)
    return chosen


# the engine's note, when no plan meets a time to first token because a prompt's prefill alone is over it: what would
TTFT_REACH_NOTE = "TTFT reach: "


def prompt_within(w: Workload, arch: Architecture, gpu: GpuRecord, tp: int, kind: str, target_s: float,
                  prompt: int) -> int:
    """The longest prompt (up to `prompt`) whose prefill alone on a tp group takes at most `target_s`: the prefill
    grows with the prompt (linear layers, attention quadratically), so a bisection to the token. 0 when not even one
    token's does."""
    def fits(n: int) -> bool:
        return prefill_seconds_for(w, arch, gpu, tp, n, None, 0, None, kind) <= target_s

    if not fits(1):
        return 0
    lo, hi = 1, prompt
    if fits(hi):
        return hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return lo


def cache_share_within(w: Workload, arch: Architecture, gpu: GpuRecord, tp: int, kind: str, target_s: float,
                       prompt: int) -> float | None:
    """The least share of each `prompt`-token prompt served from the prefix cache (`Workload.prefix_cache_hit`: those
    tokens are neither multiplied through the weights nor attended again) at which its prefill takes at most
    `target_s`, to the percent above; None when not even 99% does (the weights' read alone is over it)."""
    def fits(share: float) -> bool:
        cached = w.model_copy(update={"prefix_cache_hit": share, "input_tokens": w.input_tokens or prompt})
        return prefill_seconds_for(cached, arch, gpu, tp, prompt, None, 0, None, kind) <= target_s

    if not fits(0.99):
        return None
    lo, hi = 0, 99  # percent: lo does not fit, hi does
    if fits(0.0):
        return 0.0
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if fits(mid / 100) else (mid, hi)
    return hi / 100
