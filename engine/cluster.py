"""How many GPUs and nodes a workload needs, how to split it, and what the fabric must provide.

The search takes the smallest GPU count whose busiest GPU fits after headroom: 1..gpus_per_node
on one node, then whole nodes (nodes = ceil(required / per-node)). For each count it
prefers the plan that needs the least interconnect: plain data parallel, then ZeRO stages 1-3,
then tensor parallel inside a node (NVLink only), then pipeline parallel across nodes. Tensor
parallel never crosses the NVLink domain: its per-layer all-reduces over InfiniBand cost more than they save
(Megatron-LM keeps TP inside the NVLink domain). That domain is the node, except where the node is a tray of a
larger one (GB200/GB300 NVL72): there TP goes to 8 across two trays at NVLink speed (DOMAIN_TENSOR_PARALLEL).
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass

from catalog.records import GpuRecord, OfferRecord
from engine.architecture import Architecture
from engine.memory import (
    DEFAULT_OPTIONS,
    GB,
    OFFLOADED_PARTS,
    Layout,
    MemoryOptions,
    estimate_memory,
    optimizer_bytes_per_param,
    per_gpu_bytes,
    resolve_layout,
    usable_gb,
)
from engine.models import (
    MAX_MICRO_BATCH_TOKENS,
    ClusterPlan,
    MemoryEstimate,
    Workload,
    global_batch_sequences,
)
from engine.network import (
    ETHERNET_CHECKLIST,
    INFINIBAND_GBPS,
    StepTraffic,
    candidate_key,
    link_words,
    network_note,
    said_gbps,
    step_traffic,
)
from engine.quantization import compute_capability
from engine.throughput import onchip_roce, training_numbers, zero3_gather

DEFAULT_GPUS_PER_NODE = 8
MAX_NODES = 4096
LINEAR_NODE_SCAN = 32

# The largest global batch dense pre-training runs take: Llama 3 405B trained at 16M tokens (2,048 sequences of 8,192)
# on 8,192 and 16,384 H100s, with tensor x8 and pipeline x16 making up the rest (Llama 3 paper, Table 4); Llama 2
# trained every size at 4M. Data parallel past batch / (sequence x micro-batch) replicas has no sequence to give
# each replica: the GPUs beyond it must split the model (tensor, pipeline) instead, at lower utilisation.
MAX_BATCH_TOKENS = 2048 * 8192
BATCH_NOTE = "global batch: "  # read by the first message


def data_parallel_cap(w: Workload) -> int:
    """The most data-parallel replicas a training run can use, one micro-batch each: at the global batch said, else at
    MAX_BATCH_TOKENS (the largest batch published runs take)."""
    seq, micro = max(1, int(w.seq_len or 2048)), max(1, int(w.batch_size or 1))
    said = global_batch_sequences(w, seq)
    if said is not None:
        return max(1, said // micro)
    return max(1, MAX_BATCH_TOKENS // (seq * micro))


def _batch_said(w: Workload) -> str | None:
    """'the global batch you said (512 sequences of 2,048 tokens)', or None when none was said."""
    seq = max(1, int(w.seq_len or 2048))
    said = global_batch_sequences(w, seq)
    return None if said is None else f"the global batch you said ({said:,} sequences of {seq:,} tokens)"


def batch_note(w: Workload, lay: Layout) -> str | None:
    """A training plan whose data-parallel width alone makes a batch past the global batch said, or past
    MAX_BATCH_TOKENS: said, with the GPU count that keeps it (the same model split), since the figures here assume the
    planned split's utilisation."""
    cap = data_parallel_cap(w)
    if w.mode == "inference" or lay.dp <= cap:
        return None
    seq, micro = max(1, int(w.seq_len or 2048)), max(1, int(w.batch_size or 1))
    tokens = lay.dp * seq * micro
    split = lay.tp * lay.pp
    said = _batch_said(w)
    per_replica = f"{'one' if micro == 1 else micro} {seq:,}-token sequence{'s' if micro > 1 else ''} per replica"
    least = (f"{lay.dp * micro:,} sequences per step ({per_replica}), more than {said}" if said else
             f"{tokens / 1e6:,.0f}M tokens per step ({per_replica}), {tokens / MAX_BATCH_TOKENS:,.0f}x the 16M Llama 3 "
             "405B trained with (Llama 3 paper, Table 4)")
    return (f"{BATCH_NOTE}data parallel x{lay.dp:,} means at least {least}; past {cap * split:,} GPUs"
            f"{' with this split' if split > 1 else ''} a model needs more tensor or pipeline parallelism, at lower "
            "utilisation than assumed here: the GPU-hours are a lower bound")


def batch_capped_note(gpus: int, w: Workload | None = None) -> str:
    """A run scaled out for time that stopped at the data-parallel width of the global batch said, or of
    MAX_BATCH_TOKENS (engine.offer_plans)."""
    said = _batch_said(w) if w is not None else None
    if said:
        return (f"{BATCH_NOTE}{gpus:,} GPUs is as far as this model scales data-parallel at {said}: finishing sooner "
                "takes a larger batch, more tensor or pipeline parallelism at lower utilisation, or fewer tokens")
    return (f"{BATCH_NOTE}{gpus:,} GPUs is as far as this model scales data-parallel at a 16M-token global batch "
            "(Llama 3 405B's largest, Llama 3 paper, Table 4): finishing sooner takes more tensor or pipeline "
            "parallelism at lower utilisation, or fewer tokens")


ACCUMULATION_NOTE = "gradient accumulation: "  # how a global batch said is reached on the plan (Details)


def accumulation_note(w: Workload, lay: Layout) -> str | None:
    """How the plan reaches the global batch said: replicas x micro-batch x accumulation steps. Said because a global
    batch sets the optimiser step, never memory per GPU (the reading that planned 8B at TP8 on B300s)."""
    if w.mode == "inference" or not (w.global_batch or w.global_batch_tokens):
        return None
    seq, micro = max(1, int(w.seq_len or 2048)), max(1, int(w.batch_size or 1))
    said = global_batch_sequences(w, seq)
    per_pass = lay.dp * micro
    if said is None or per_pass > said:
        return None  # batch_note says it
    steps = math.ceil(said / per_pass)
    about = "" if steps * per_pass == said else "about "
    return (f"{ACCUMULATION_NOTE}the global batch of {said:,} sequences is {about}{lay.dp:,} data-parallel "
            f"replica{'s' if lay.dp > 1 else ''} × micro-batch {micro} × {steps:,} accumulation step"
            f"{'s' if steps > 1 else ''}: it sets the optimiser step, not memory per GPU")


# after the fixes that keep the user's GPUs: what it takes otherwise ("; or one GPU of 28 GB or more, or 2x ...")
ALTERNATIVE_NOTE = "; or "
# a mixture of experts trained across GPUs: the speed assumes a stack that splits the experts (read by the first message)
MOE_STACK_NOTE = "MoE training speed assumes expert parallelism: "
MOE_KERNELS_NOTE = "MoE training speed assumes fused expert kernels: "  # the same caveat for an MoE trained on one GPU
ZERO3_COMM_NOTE = "ZeRO-3 across nodes: "  # its weight gathers outrun the compute (read by the first message)
ZERO3_SAID_FROM = 1.3  # below this FSDP's prefetch hides the gathers well enough to leave the speed as shown
ZERO3_BATCH_NOTE = "ZeRO-3 across nodes, micro-batch: "  # the gathers outrun one sequence but not the micro-batch that fits

NCCL_CHECKLIST = (
    "NCCL_SOCKET_IFNAME must name the high-speed fabric interface, not the management network "
    "(the usual cause of 'slow hardware': collectives silently fall back to the slow NIC)",
    "NCCL_IB_HCA lists the InfiniBand/RoCE adapters to use (check `ibstat` / `ibv_devices`)",
    "NCCL_DEBUG=INFO on the first run: confirm the transport (NET/IB, not NET/Socket) and the detected topology "
    "(NCCL_TOPO_DUMP_FILE); fix topology detection before blaming the hardware",
    "run nccl-tests all_reduce_perf across all nodes and compare bus bandwidth with the fabric's line rate",
    "GPUDirect RDMA enabled (nvidia-peermem loaded) so GPUs read/write the NIC without bouncing through host memory",
    "multi-node throughput well below single-node x nodes means NCCL configuration first, hardware second",
)
PROVIDER_QUESTIONS = (
    "How many GPUs per node, of which exact type (SXM or PCIe, memory size)?",
    "Inter-node fabric: InfiniBand HDR (200 Gb/s) / NDR (400 Gb/s), RoCE, or plain Ethernet - and how many ports per node?",
    "Is InfiniBand enabled per node only or cluster-wide (non-blocking between all the nodes we rent)?",
    "NVLink/NVSwitch topology within a node (all-to-all NVSwitch, bridged pairs, or PCIe only)?",
    "Is GPUDirect RDMA supported, and what all_reduce_perf bus bandwidth do you measure on this shape?",
)


def _link(gpu: GpuRecord, offer: OfferRecord | None) -> str:
    return (offer.intra_node_link if offer else gpu.scaleup_link) or "PCIe only"


# Tensor parallel across the trays of one NVLink domain (GB200/GB300 NVL72: 4-GPU trays, 72 GPUs behind the rack's
# NVLink switches, each GPU reaching any other at the same 1.8 TB/s as inside its tray, NVIDIA's GB200 NVL72 spec) goes
# as wide as an 8-GPU HGX node: vLLM and TensorRT-LLM run Llama 3.1 405B at TP8 there, and Megatron-LM keeps TP at 8.
# 8 also tiles the rack (9 groups in 72); 16 would leave 8 of its GPUs out of every group of 16.
DOMAIN_TENSOR_PARALLEL = 8
DOMAIN_TP_NOTE = "one NVLink domain: "  # a tensor-parallel group across a rack's trays (plan_cluster's note)
# what a tensor-parallel group over one rack's trays needs checked (NVIDIA's multi-node NVLink: IMEX; nccl-tests)
DOMAIN_TP_CHECKLIST = (
    "each tensor-parallel group's trays in one NVL72 rack (one NVLink domain): a group split across racks sends every "
    "layer's all-reduces over the inter-rack network at a fraction of NVLink's bandwidth",
    "multi-node NVLink set up between the trays (IMEX service and channels; nvidia-smi -q shows the NVLink fabric state "
    "as completed), then nccl-tests all_reduce_perf across one group's trays: bus bandwidth near NVLink's, not the NIC's",
)


def max_tensor_parallel(gpu: GpuRecord, offer: OfferRecord | None, gpus_per_node: int) -> int:
    """TP needs a fast all-to-all link: NVSwitch/Infinity Fabric/on-chip RoCE (Gaudi 3's baseboard) -> whole node (or,
    inside an NVLink domain larger than the node, DOMAIN_TENSOR_PARALLEL GPUs across its trays); NVLink bridge -> pairs;
    PCIe -> none."""
    link = _link(gpu, offer).lower()
    if "bridge" in link:
        return min(2, gpus_per_node)
    if ("nvlink" in link or "nvswitch" in link or "infinity" in link or onchip_roce(link)) and "pcie" not in link:
        return max(gpus_per_node, domain_tensor_parallel(offer, gpus_per_node))
    return 1


def domain_tensor_parallel(offer: OfferRecord | None, gpus_per_node: int) -> int:
    """The widest tensor-parallel group over the trays of the offer's NVLink domain (`domain_tensor_parallel_width`)."""
    return domain_tensor_parallel_width(nvlink_domain_gpus(offer), gpus_per_node)


def domain_tensor_parallel_width(domain: int | None, gpus_per_node: int) -> int:
    """The widest tensor-parallel group over the trays of an NVLink `domain` of that many GPUs on nodes of
    `gpus_per_node` (8 on GB200 NVL72's 4-GPU trays: 2 trays), 0 where NVLink ends at the node (no domain) or the
    node is that wide already."""
    width = DOMAIN_TENSOR_PARALLEL
    return width if gpus_per_node < width <= (domain or 0) and width % max(1, gpus_per_node) == 0 else 0


def _tp_sizes(gpn: int, max_tp: int, sizes: tuple[int, ...] = (1, 2, 4, 8, 16)) -> list[int]:
    """The tensor-parallel sizes up to `max_tp` whose groups a node of `gpn` GPUs places: inside the node, or (where
    `max_tp` reaches past the node: one NVLink domain's trays) whole nodes of the domain."""
    return [t for t in sizes if t <= min(gpn, max_tp) or (gpn < t <= max_tp and t % gpn == 0)]


def _candidates(w: Workload, arch: Architecture, n: int, gpn: int, max_tp: int) -> list[tuple[int, ...]]:
    """(tp, pp, zero_stage[, hybrid shard group]) options for n GPUs, least interconnect-hungry first."""
    nodes = math.ceil(n / gpn)
    fixed_tp, fixed_pp = w.tensor_parallel, w.pipeline_parallel
    if w.mode == "inference":
        if fixed_tp or fixed_pp:
            return [(fixed_tp or 1, fixed_pp or max(1, n // (fixed_tp or 1)), 0)]
        if n == 1:
            return [(1, 1, 0)]
        # serving engines split heads evenly: power-of-two TP inside a node (or one NVLink domain's trays), widest
        # first, pipeline stages for the rest (across nodes, or inside one when the heads do not split further)
        tps: list[int] = [t for t in (16, 8, 4, 2, 1)
                          if t in _tp_sizes(gpn, max_tp) and t <= n and n % t == 0 and arch.heads % t == 0]
        return [(t, n // t, 0) for t in tps] or [(1, n, 0)]
    z0 = int(w.zero_stage or 0)
    stages = range(z0, 4) if n > 1 else range(0, 1)
    tps = [t for t in _tp_sizes(gpn, max_tp) if n % t == 0 and arch.heads % t == 0]
    if fixed_tp:
        tps = [fixed_tp]
    elif w.zero_stage == 3 and not fixed_pp:
        # a stated ZeRO-3 / FSDP is data parallel with the states sharded over every GPU: planned (and, when it does
        # not fit, shown) as that, not as tensor or pipeline parallel (ZeRO-3 and pipeline stages do not combine)
        return [(1, 1, 3)] if n > 1 else [(1, 1, 0)]
    out: list[tuple[int, ...]] = [(t, fixed_pp or 1, z) for t in tps for z in stages]
    if nodes > 1 and 3 in stages and not fixed_pp and w.zero_stage is None:
        # across nodes, shard within each node and replicate across them (FSDP HYBRID_SHARD) before sharding over
        # every GPU: only the gradients' all-reduce crosses nodes, once a step, where full sharding gathers every
        # layer's weights over the fabric twice a micro-step (a 70B full fine-tune on 2 B200 nodes: ~400 GB a GPU)
        hybrid: list[tuple[int, ...]] = [(t, 1, 3, gpn // t) for t in tps if gpn % t == 0 and gpn // t > 1 and n % gpn == 0]
        at = next((i for i, c in enumerate(out) if c[2] == 3), len(out))
        out = [*out[:at], *hybrid, *out[at:]]
    if nodes > 1:
        # across nodes, weights sharded over every GPU are the most fabric-hungry layout, not the least: every layout
        # that keeps weight gathers inside the node (tensor parallel, ZeRO-1/2, hybrid sharding) is tried first
        out = [c for c in out if not _full_shard(c)] + [c for c in out if _full_shard(c)]
    if nodes > 1 and not fixed_pp:
        out += [(t, nodes, z) for t in tps for z in stages if n % (t * nodes) == 0]
    if three_d(w, arch, n, nodes) and tps and not fixed_tp and not fixed_pp:
        out = [*_three_d_candidates(arch, n, tps[-1], z0), *out]
    if not fixed_pp and arch.layers:  # a pipeline stage holds at least one layer
        out = [c for c in out if c[1] <= arch.layers]
    order = candidate_key(w, arch, n, gpn) if nodes > 1 and not (fixed_tp or fixed_pp) else None
    if order is not None:  # a network said between the nodes: the layouts that send the fewest bytes across it first
        out = sorted(out, key=order)
    return out


def _full_shard(candidate: tuple[int, ...]) -> bool:
    """A (tp, pp, zero_stage[, hybrid group]) candidate that shards the weights over every data-parallel GPU."""
    return candidate[2] >= 3 and len(candidate) < 4


THREE_D_MIN_PARAMS = 20e9  # from here Megatron-LM / torchtitan recipes split each layer over the node (TP)
THREE_D_MIN_GPUS = 64  # fine-tuning below this stays FSDP / ZeRO data parallel (torchtune, accelerate recipes)


def three_d(w: Workload, arch: Architecture, n: int, nodes: int) -> bool:
    """Large multi-node full training is planned the way Megatron-LM and torchtitan run it: tensor
    parallel inside the NVLink node, pipeline stages across nodes only when a TP shard and its
    activations do not fit, data parallel (ZeRO-1 distributed optimizer) for the rest. ZeRO-3 over
    thousands of GPUs would all-gather every layer's weights across the whole fabric on every step."""
    return (w.mode in ("full", "pretrain") and nodes > 1 and arch.total_params >= THREE_D_MIN_PARAMS
            and (w.mode == "pretrain" or n >= THREE_D_MIN_GPUS))


def _three_d_candidates(arch: Architecture, n: int, tp: int, z0: int) -> list[tuple[int, int, int]]:
    """TP = the node's NVLink width; PP = 1, 2, 4, ... stages dividing the layers' share; ZeRO-1, then 3."""
    pps = [p for p in (1, 2, 4, 8, 16, 32) if p <= arch.layers and n % (tp * p) == 0]
    return [(tp, p, z) for z in (max(1, z0), 3) for p in pps]


class _Tables:
    """What the search learns about one workload, none of it depending on the GPU: the candidate layouts
    per (GPUs, node size, widest TP) in preference order, and the busiest GPU's bytes per layout, filled
    as the search asks. One table serves every GPU type and offer the catalog search tries (and the next
    question in a thread); fetching it once per placement keeps workload hashing off the inner loop."""

    __slots__ = ("w", "arch", "opts", "layouts", "bytes", "placements")

    def __init__(self, w: Workload, arch: Architecture, opts: MemoryOptions) -> None:
        self.w, self.arch, self.opts = w, arch, opts
        self.layouts: dict[tuple[int, int, int], tuple[Layout, ...]] = {}
        self.bytes: dict[Layout, float] = {}
        self.placements: dict[tuple[float, int, int, int, int | None], Placement] = {}

    def candidates(self, n: int, gpn: int, max_tp: int) -> tuple[Layout, ...]:
        key = (n, gpn, max_tp)
        found = self.layouts.get(key)
        if found is None:
            w = self.w
            found = self.layouts[key] = tuple(resolve_layout(w, n, *c) for c in _candidates(w, self.arch, n, gpn, max_tp))
        return found

    def size(self, lay: Layout) -> float:
        b = self.bytes.get(lay)
        if b is None:
            b = self.bytes[lay] = per_gpu_bytes(self.w, self.arch, lay, self.opts)
        return b


@functools.lru_cache(maxsize=64)
def _tables(w: Workload, arch: Architecture, opts: MemoryOptions) -> _Tables:
    return _Tables(w, arch, opts)


class _SizedCache:
    """`_tables` with the last answer kept by identity: one question asks for the same workload's table a
    few hundred times (every GPU, node shape and count), and hashing a frozen Workload walks all its
    fields; comparing three object identities does not. A new question (a new Workload) takes the
    hashed path once. The single slot is replaced whole, so threads at worst miss it."""

    __slots__ = ("last",)

    def __init__(self) -> None:
        self.last: tuple[Workload, Architecture, MemoryOptions, _Tables] | None = None

    def __call__(self, w: Workload, arch: Architecture, opts: MemoryOptions) -> _Tables:
        last = self.last
        if last is not None and last[0] is w and last[1] is arch and last[2] is opts:
            return last[3]
        t = _tables(w, arch, opts)
        self.last = (w, arch, opts, t)
        return t

    def cache_clear(self) -> None:
        self.last = None
        _tables.cache_clear()


_sized = _SizedCache()


COMFORT_FRACTION = 0.95  # a layout within 95% of usable memory is preferred to a tighter one on the same GPUs


def _first_fit(t: _Tables, n: int, gpn: int, max_tp: int, limit_bytes: float) -> tuple[Layout, float] | None:
    """The first layout for n GPUs, in preference order, that leaves 5% of usable memory free; else the
    first that fits at all (a plan at 99% fits on paper and OOMs on the first long batch)."""
    tight: tuple[Layout, float] | None = None
    for lay in t.candidates(n, gpn, max_tp):
        b = t.size(lay)
        if b <= limit_bytes * COMFORT_FRACTION:
            return lay, b
        if tight is None and b <= limit_bytes:
            tight = (lay, b)
    return tight


def _fewest_gpus(w: Workload, arch: Architecture, limit_bytes: float, opts: MemoryOptions) -> int:
    """A lower bound on the GPUs full training needs: weights, gradients and optimizer state fully
    sharded (ZeRO-3) over n GPUs still take total / n each, before any activation. Counts below it
    cannot fit, so the search starts there (a 405B model does not try 2-12 nodes one by one)."""
    if w.mode not in ("full", "pretrain") or limit_bytes <= 0:
        return 1
    per_param = sum(optimizer_bytes_per_param(w.mode, w.precision, w.optimizer, opts.recipe).values())
    return max(1, math.ceil(arch.total_params * per_param / limit_bytes))


def _search(w, arch, gpn, max_tp, limit_bytes, opts, max_nodes) -> tuple[int, Layout] | None:
    fewest = _fewest_gpus(w, arch, limit_bytes, opts)
    t = _sized(w, arch, opts)
    for n in range(max(1, min(fewest, gpn + 1)), gpn + 1):
        hit = _first_fit(t, n, gpn, max_tp, limit_bytes)
        if hit:
            return n, hit[0]
    fits = lambda k: _first_fit(t, k * gpn, gpn, max_tp, limit_bytes)  # noqa: E731
    for k in range(max(2, math.ceil(fewest / gpn)), min(LINEAR_NODE_SCAN, max_nodes) + 1):
        hit = fits(k)
        if hit:
            return k * gpn, hit[0]
    lo, hi = LINEAR_NODE_SCAN, LINEAR_NODE_SCAN * 2
    while hi <= max_nodes and not fits(hi):
        lo, hi = hi, hi * 2
    if hi > max_nodes:
        hi = max_nodes
        if hi <= lo or not fits(hi):
            return None
    while hi - lo > 1:  # smallest fitting node count in (lo, hi]
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if fits(mid) else (mid, hi)
    hit = fits(hi)
    return (hi * gpn, hit[0]) if hit else None


def domain_span(tp: int, gpn: int, domain: int | None) -> str:
    """Where a tensor-parallel group wider than the node runs: "over NVLink across 2 trays of one 72-GPU NVLink
    domain" (GB200 NVL72), as the plan text says it; "" for a group inside its node."""
    if not domain or tp <= gpn:
        return ""
    return f"over NVLink across {math.ceil(tp / max(1, gpn))} trays of one {domain}-GPU NVLink domain"


def _describe(lay: Layout, nodes: int, inference: bool, moe: bool = False, span: str = "") -> str:
    """The layout in words; `span`: `domain_span`'s words for a tensor-parallel group across one domain's trays."""
    if lay.gpus == 1:
        return "single GPU"
    parts = []
    where = span or "within a node"
    if lay.tp > 1 and moe:
        # the same per-GPU share of expert weights as tensor parallel, the way MoE stacks split them
        parts.append(f"expert parallel x{lay.tp} {where} (attention tensor-parallel)")
    elif lay.tp > 1:
        parts.append(f"tensor parallel x{lay.tp} {where}")
    if lay.pp > 1:
        parts.append(f"pipeline parallel x{lay.pp}" + (" across nodes" if nodes > 1 else " (layer split)"))
    if lay.dp > 1 and lay.shard:
        parts.append(f"data parallel x{lay.dp} with FSDP HYBRID_SHARD (ZeRO-3 over the {lay.shard} replicas in each "
                     f"node, replicated across {lay.dp // lay.shard} nodes)")
    elif lay.dp > 1:
        zero = {1: "ZeRO-1 (distributed optimizer)", 2: "ZeRO-2", 3: "ZeRO-3 / FSDP"}.get(lay.zero_stage, "")
        parts.append(f"data parallel x{lay.dp}" + (f" with {zero}" if zero else ""))
    if not parts and lay.zero_stage:
        parts.append(f"ZeRO-{lay.zero_stage}")
    return ", ".join(parts) or ("replicated" if inference else "data parallel")


def serving_fixes(w: Workload, arch: Architecture, lay: Layout, opts: MemoryOptions, limit_bytes: float,
                  integer_weights: bool = True, fp8: str = "yes") -> list[str]:
    """What keeps a serving plan on the GPUs the user fixed, measured on their layout: how many users fit at the
    assumed context, how much context fits for all the users, and FP8 weights and cache. For a small model and
    many users the KV cache is nearly all of the memory, and lower-bit weights alone barely help (Llama 3.1 8B for
    500 users on 2 H100s: 8 of 144 GB per GPU are weights). `integer_weights`: the GPU runs vLLM's AWQ/GPTQ kernels
    (NVIDIA only, by vLLM's supported-hardware table); `fp8`: "yes" (FP8 tensor cores), "weight-only" (SM 8.0+
    without them: vLLM's FP8 Marlin, dense models) or "no" (older GPUs, and FP8 MoE kernels below SM 8.9)."""
    def size(**update: object) -> float:
        return per_gpu_bytes(w.model_copy(update=update), arch, lay, opts)

    def most_users(full_bytes: float, one_bytes: float) -> int:
        """The users that fit, from the peak at all of them and at one (the KV cache grows linearly per user)."""
        slope = (full_bytes - one_bytes) / (users - 1)
        return 1 + int((limit_bytes - one_bytes) // slope) if slope > 0 else users

    users = int(w.concurrency or 1)
    ctx = int(w.seq_len or 2048)
    fixes: list[str] = []
    fp8_fits = False
    if w.precision not in ("fp8", "int8", "int4", "nf4") and fp8 != "no":
        fp8_bytes = size(precision="fp8")
        if fp8_bytes <= limit_bytes:  # only a fix that fits
            how, fp8_fits = (", weight-only on this GPU" if fp8 == "weight-only" else ""), True
            fixes.append(f"FP8 weights and KV cache (vLLM --quantization fp8 --kv-cache-dtype fp8{how}: "
                         f"{fp8_bytes / GB:,.1f} GB per GPU)")
    full, one = size(), size(concurrency=1)
    if users > 1 and one <= limit_bytes:
        most = most_users(full, one)
        fixes.append(f"at most {most:,} concurrent user(s) at {ctx:,} tokens of context each")
    if users > 1 or ctx > 2048:
        lo, hi = 0, ctx  # the longest context all the users fit at, to 64 tokens
        while hi - lo > 64:
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if size(seq_len=max(mid, 1)) <= limit_bytes else (lo, mid)
        if lo >= 256:
            fixes.append(f"{users:,} user(s) at up to {lo // 64 * 64:,} tokens of context each")
    weights = size(concurrency=1, seq_len=1)
    if integer_weights and not fp8_fits and w.precision not in ("int4", "nf4") and weights > 0.3 * full:
        # (FP8 that fits keeps more quality for the same memory: integer weights are then not offered)
        # lower-bit weights help only when weights weigh; each measured, the widest that fits offered ("int8/int4" was
        # offered for Qwen3-30B-A3B on one A10G, where int8's 31 GB does not fit and int4's 17 GB does)
        widths = ("int4",) if w.precision == "int8" else ("int8", "int4")
        measured = [(name, size(precision=name)) for name in widths]
        fitting = next(((name, b) for name, b in measured if b <= limit_bytes), None)
        if fitting is not None:
            name, b = fitting
            skipped = "" if name == widths[0] else f"; int8 at {measured[0][1] / GB:,.1f} GB does not"
            fixes.append(f"{name} weights (AWQ/GPTQ {name[3:]}-bit, the model's own quantised release where there is one: "
                         f"{b / GB:,.1f} GB per GPU{skipped})")
        else:
            name, b = measured[-1]
            alone = size(precision=name, concurrency=1)
            if users > 1 and alone <= limit_bytes:  # together with fewer users: how many fit beside 4-bit weights
                most = most_users(b, alone)
                fixes.append(f"{name} weights (AWQ/GPTQ {name[3:]}-bit) with at most {most:,} concurrent user(s) at "
                             f"{ctx:,} tokens of context each; {name} alone is {b / GB:,.1f} GB per GPU, not enough")
            else:
                fixes.append(f"{name} weights: {b / GB:,.1f} GB per GPU, not enough alone")
    return fixes or memory_fixes(w)


def memory_fixes(w: Workload) -> list[str]:
    """Changes that shrink a serving plan's per-GPU peak, when `serving_fixes` measured none (training levers are
    measured one by one in `training_fixes`)."""
    fixes: list[str] = []
    if w.precision not in ("int4", "nf4"):
        fixes.append("int8/int4 weights (half / a quarter of BF16)")
    fixes.append("a shorter context or fewer concurrent sequences (smaller KV cache)")
    return fixes


# FSDP CPU offload as Answer.AI's fsdp_qlora runs it (--use_cpu_offload): the state waits in host memory and each
# layer is copied in as it runs. Its benchmarks (benchmarks_03_2024.md): about as fast as keeping it on the GPU on
# a workstation with full x16 PCIe lanes, many times slower on cloud hosts with slow host memory.
OFFLOAD_COST = ("slower as the host feeds the GPUs each step: about even on a workstation with full x16 PCIe lanes, many "
                "times slower on cloud hosts with slow memory, by Answer.AI's fsdp_qlora benchmarks")
# a full fine-tune's offload also runs the optimizer step on the CPU (ZeRO-Offload, Ren et al. 2021, arXiv:2101.06840)
FULL_OFFLOAD_COST = "much slower: every step moves the state over PCIe and the optimizer step runs on the CPU"
HOST_MEMORY_GB_PER_NODE = 2048  # an 8-GPU DGX H100 holds 2 TB of system memory (NVIDIA DGX H100 datasheet)
LEVER_MIN_SAVING = 0.01  # a lever that saves under 1% of the peak is not offered (ZeRO-3 where TP already splits)
SHORT_SEQUENCE = 512  # the shortest sequence offered as a lever when no longer one fits
# how far a fix moves the run from what was asked, the order fixes are listed in: the same run with less memory
# (0: 8-bit Adam, checkpointing, sharding, a 4-bit base for LoRA), the data cut shorter, another method (LoRA for
# a full fine-tune), the state offloaded to the CPU (the most speed traded)
LEVER_ORDER = {"data": 1, "method": 2, "offload": 3}


@dataclass(frozen=True)
class Lever:
    """One change that shrinks a training plan's per-GPU peak: a workload update (`update`), a memory-option
    update (`options`), and what it costs besides memory. `method` levers change what is trained (LoRA for a full
    fine-tune) and are not combined with the rest."""

    label: str
    update: tuple[tuple[str, object], ...] = ()
    options: tuple[tuple[str, object], ...] = ()
    cost: str = ""
    method: bool = False


def training_levers(w: Workload, lay: Layout) -> list[Lever]:
    """The memory levers this training plan does not already use: a lever already on (checkpointing, micro-batch
    1, ZeRO-3 on the fixed layout, 8-bit Adam) is not a fix, and pre-training has no adapter to fall back on."""
    mode = w.mode
    levers: list[Lever] = []
    if mode == "full":
        levers.append(Lever("LoRA (frozen 16-bit base: no gradients or optimizer state for it)",
                            (("mode", "lora"), ("precision", "bf16"), ("optimizer", None), ("lora_rank", w.lora_rank or 16),
                             ("zero_stage", None)), method=True))
        levers.append(Lever("QLoRA (4-bit frozen base, trained adapters)", _QLORA + (("lora_rank", w.lora_rank or 16),),
                            method=True))
    elif mode == "lora":
        levers.append(Lever("QLoRA (4-bit base: 0.5 instead of 2 bytes/param)", _QLORA, method=True))
    if mode in ("full", "pretrain") and w.optimizer in (None, "adamw"):
        levers.append(Lever("8-bit Adam (optimizer state 12 -> 6 bytes/param with the FP32 master copy)",
                            (("optimizer", "adamw_8bit"),)))
    if not w.gradient_checkpointing:
        levers.append(Lever("gradient checkpointing", (("gradient_checkpointing", True),),
                            cost="about a third more compute: the forward pass runs again in backward"))
    if (w.batch_size or 1) > 1:
        levers.append(Lever("micro-batch 1 with gradient accumulation", (("batch_size", 1),),
                            cost="same effective batch, more steps"))
    sharded = (("zero_stage", 3),) if lay.gpus > 1 else ()
    if sharded and lay.zero_stage < 3:
        levers.append(Lever("ZeRO-3 / FSDP sharding", sharded))
    state = {"qlora": "the 4-bit base and adapters (FSDP cpu_offload)", "lora": "the frozen base and adapters (FSDP "
             "cpu_offload)"}.get(str(mode), "weights, gradients and optimizer state (DeepSpeed ZeRO-Offload, FSDP cpu_offload)")
    cost = OFFLOAD_COST if mode in ("lora", "qlora") else FULL_OFFLOAD_COST
    levers.append(Lever(f"CPU offload of {state}", sharded, (("state_offload", True),), cost=cost))
    return levers


_QLORA: tuple[tuple[str, object], ...] = (("mode", "qlora"), ("precision", "nf4"), ("optimizer", "paged_adamw_8bit"),
                                          ("zero_stage", None))


def _fewest_bytes(w: Workload, arch: Architecture, n: int, gpn: int, max_tp: int, opts: MemoryOptions) -> float:
    """The busiest GPU's bytes on the best of the layouts n GPUs allow: the figure a lever reaches."""
    cands = _candidates(w, arch, n, gpn, max_tp) or [(1, 1, 3)]
    return min(per_gpu_bytes(w, arch, resolve_layout(w, n, *c), opts) for c in cands)


def _with(w: Workload, opts: MemoryOptions, levers: list[Lever]) -> tuple[Workload, MemoryOptions]:
    update = {k: v for lever in levers for k, v in lever.update}
    options = {k: v for lever in levers for k, v in lever.options}
    return (w.model_copy(update=update) if update else w), (opts.model_copy(update=options) if options else opts)


def _offloaded_gb(w: Workload, arch: Architecture, n: int, gpn: int, max_tp: int, opts: MemoryOptions) -> float:
    """Host memory (GB) the offloaded state takes across all n GPUs: the state's parts on the best layout, times n."""
    cands = _candidates(w, arch, n, gpn, max_tp) or [(1, 1, 3)]
    lay = min((resolve_layout(w, n, *c) for c in cands), key=lambda lay_: per_gpu_bytes(w, arch, lay_, opts))
    parts = estimate_memory(w, arch, n, tensor_parallel=lay.tp, pipeline_parallel=lay.pp, zero_stage=lay.zero_stage,
                            options=opts, shard=lay.shard).components
    return n * sum(parts[k].value for k in OFFLOADED_PARTS if k in parts)


def _lever_text(lever: Lever, size: float, limit_bytes: float, extra: str = "") -> str:
    enough = "" if size <= limit_bytes else ", not enough alone"
    cost = f", {lever.cost}" if lever.cost else ""
    return f"{lever.label}: {size / GB:,.1f} GB per GPU{extra}{enough}{cost}"


def training_fixes(w: Workload, arch: Architecture, p: Placement) -> tuple[list[str], bool]:
    """What keeps a training plan on the GPUs the user fixed, each lever measured by re-running the memory
    estimate with it on over the layouts those GPUs allow, in the order of LEVER_ORDER, and whether any one of them fits.
    Only levers the plan does not already use, and only those that shrink it. When none fits alone, the levers
    that keep the method are tried together, and the answer says plainly if even that does not fit."""
    n, gpn, max_tp, opts, limit = p.n, p.gpn, p.max_tp, p.opts, p.limit_bytes
    current = per_gpu_bytes(w, arch, p.lay, opts)
    measured: list[tuple[float, str, int]] = []  # (peak, text, how much it changes: LEVER_ORDER)
    kept: list[Lever] = []
    for lever in training_levers(w, p.lay):
        lw, lo = _with(w, opts, [lever])
        size = _fewest_bytes(lw, arch, n, gpn, max_tp, lo)
        if size > current * (1 - LEVER_MIN_SAVING):
            continue
        extra = ""
        if dict(lever.options).get("state_offload"):
            host = _offloaded_gb(lw, arch, n, gpn, max_tp, opts)
            if host > HOST_MEMORY_GB_PER_NODE * math.ceil(n / gpn):
                continue  # more than the servers' own memory holds: not a lever these GPUs have
            extra = f" and ~{host:,.0f} GB of host memory"
        order = LEVER_ORDER["offload"] if extra else LEVER_ORDER["method"] if lever.method and w.mode == "full" else 0
        measured.append((size, _lever_text(lever, size, limit, extra), order))
        if not lever.method:
            kept.append(lever)
    seq = int(w.seq_len or 2048)
    if seq > SHORT_SEQUENCE:
        longest = _longest_sequence(w, arch, n, gpn, max_tp, opts, limit)
        shorter = max(longest, SHORT_SEQUENCE)
        size = _fewest_bytes(w.model_copy(update={"seq_len": shorter}), arch, n, gpn, max_tp, opts)
        if size <= current * (1 - LEVER_MIN_SAVING):
            said = f"sequences of up to {shorter:,} tokens" if longest >= SHORT_SEQUENCE else f"{shorter:,}-token sequences"
            measured.append((size, _lever_text(Lever(f"{said} (from {seq:,})"), size, limit), LEVER_ORDER["data"]))
            kept.append(Lever("", (("seq_len", shorter),)))
    # as an engineer tries them: what fits alone first; among those, what keeps the run as asked (8-bit Adam, QLoRA
    # for LoRA), then shorter sequences, then another method, then CPU offload (the most speed traded); smallest peak
    measured.sort(key=lambda m: (m[0] > limit, m[2], m[0]))
    fits = any(size <= limit for size, _, _ in measured)
    lines = [text for _, text, _ in measured]
    if not fits:
        tw, to = _with(w, opts, kept)
        together = _fewest_bytes(tw, arch, n, gpn, max_tp, to) if kept else current
        if len(kept) > 1 and together <= limit:
            return [*lines, f"these together, keeping the method: {together / GB:,.1f} GB per GPU"], True
        lines.append(f"nothing known here fits on these {n} GPU(s)" + (
            f": all of these together still need {together / GB:,.1f} GB per GPU" if len(kept) > 1 else ""))
    return lines, fits


def _longest_sequence(w: Workload, arch: Architecture, n: int, gpn: int, max_tp: int, opts: MemoryOptions,
                      limit_bytes: float) -> int:
    """The longest training sequence (to 64 tokens) that fits on n GPUs, 0 when none from 64 does."""
    lo, hi = 0, int(w.seq_len or 2048)
    while hi - lo > 64:
        mid = (lo + hi) // 2
        fits = _fewest_bytes(w.model_copy(update={"seq_len": mid}), arch, n, gpn, max_tp, opts) <= limit_bytes
        lo, hi = (mid, hi) if fits else (lo, mid)
    return lo // 64 * 64


def platform_caveats(gpu: GpuRecord, w: Workload, gpus: int) -> list[str]:
    """What the spec sheet does not say about running on this GPU.

    These are not in the arithmetic: they are the checks a team should make before it commits.
    """
    out: list[str] = []
    training = (w.mode or "inference") != "inference"
    if gpu.vendor.upper() == "AMD":
        libs = "bitsandbytes 4-bit, " if w.mode == "qlora" or w.precision in ("nf4", "int4") else ""
        out.append(f"AMD {gpu.name} runs ROCm, not CUDA: PyTorch and vLLM support it, but check {libs}FlashAttention and "
                   "any custom kernels on your stack; the utilisation assumed here is NVIDIA-calibrated (calibration.csv "
                   "has no AMD runs)")
    if "grace" in gpu.name.lower():
        out.append(f"{gpu.name} hosts run an Arm (Grace) CPU: container images and any x86-only dependency need arm64 "
                   "builds (vLLM, PyTorch and NCCL publish them)")
    if gpu.tier == "consumer":
        out.append("consumer card: thermal throttling in dense racks costs 15-25% sustained throughput; "
                   "no NVLink, so multi-GPU jobs are limited to data parallel / ZeRO / pipeline over PCIe")
    cc = compute_capability(gpu)
    if cc is not None:
        if w.mode == "qlora" and cc < 7.5:
            out.append(f"bitsandbytes 4-bit (QLoRA) needs compute capability >= 7.5; {gpu.name} has {cc:g}")
        if w.precision == "fp8" and cc < 8.9:
            out.append(f"{gpu.name} has no FP8 tensor cores (compute capability {cc:g}; FP8 needs 8.9+): serving engines run "
                       "FP8 weights as weight-only (vLLM's W8A16 Marlin kernels), so the memory saving holds but matmuls run "
                       "in 16-bit" if not training else
                       f"FP8 training needs compute capability >= 8.9 (Ada/Hopper or newer); {gpu.name} has {cc:g}: it "
                       "would run as 16-bit")
        if (w.flash_attention or training) and cc < 8.0:
            out.append(f"FlashAttention-2 needs compute capability >= 8.0; {gpu.name} has {cc:g}: attention memory "
                       "grows with the square of the sequence length")
    if gpu.bf16_dense_tflops is None and training and w.precision in (None, "bf16"):
        out.append(f"{gpu.name} has no BF16 tensor path: train in FP16 with loss scaling")
    return out


def sixteen_bit(gpu: GpuRecord | None) -> str:
    """The 16-bit format a GPU serves and trains in: BF16 from Ampere (SM 8.0) on, FP16 before it (T4, V100 have no
    BF16; vLLM refuses bfloat16 there and runs --dtype half). Same bytes per weight, so only the label differs."""
    cc = compute_capability(gpu)
    return "FP16" if cc is not None and cc < 8.0 else "BF16"


def fp8_weight_only(gpu: GpuRecord, arch: Architecture) -> bool:
    """FP8 weights on an NVIDIA GPU without FP8 tensor cores but SM 8.0+ (A100, A10G, A6000): vLLM runs them weight-only
    through its FP8 Marlin kernel (W8A16: weights stored 8-bit, matmuls in 16-bit; docs.vllm.ai, features/quantization/
    fp8: "Ampere GPUs are supported for W8A16 (weight-only FP8) utilizing Marlin kernels"; vllm-project/vllm PR 5975:
    up to 2x in memory-bound decoding), so the FP8 plan is compared there too. Dense models only: vLLM's FP8 MoE
    kernels need SM 8.9+."""
    return integer_kernels(gpu) and not arch.is_moe and (compute_capability(gpu) or 0.0) >= 8.0


def integer_kernels(gpu: GpuRecord, native_mxfp4: bool = False) -> bool:
    """Whether vLLM runs AWQ/GPTQ/W8A8 integer-weight kernels on this GPU: NVIDIA only (AMD GPUs and Gaudi are
    marked unsupported in docs.vllm.ai/en/latest/features/quantization, "Supported Hardware"). A model released in
    MXFP4 (gpt-oss) has its own MoE kernels, which vLLM's GPT-OSS recipe runs on MI300X, MI325X and MI355X too."""
    return gpu.vendor.upper() == "NVIDIA" or (native_mxfp4 and gpu.vendor.upper() == "AMD")


@dataclass(frozen=True)
class Placement:
    """Where a workload lands on one node shape, in plain numbers: the GPU count and layout
    `plan_cluster` states, whether it fits, and why not. The catalog search compares these for every
    shape and builds the full plan only for the options it shows."""

    n: int
    lay: Layout
    gpn: int
    max_tp: int
    per_gpu_gb: float
    fits: bool
    unfit: str | None = None  # "fixed": the user's count is too small; "search": nothing up to node_cap fits
    node_cap: int = MAX_NODES
    opts: MemoryOptions = DEFAULT_OPTIONS
    limit_bytes: float = 0.0


def placement(w: Workload, arch: Architecture, gpu: GpuRecord, offer: OfferRecord | None = None, *,
              options: MemoryOptions | None = None, max_nodes: int | None = None, fixed_gpus: int | None = None) -> Placement:
    """The choice `plan_cluster` makes, without its result objects. `fixed_gpus` is `w.gpu_count` set without
    copying the workload (the search's scale-out tries many counts; the layout caches stay shared)."""
    opts = options or DEFAULT_OPTIONS
    gpn = offer.gpus_per_node if offer else DEFAULT_GPUS_PER_NODE
    if w.gpu_count and w.nodes:
        gpn = max(1, math.ceil(w.gpu_count / w.nodes))
    gpn = max(1, gpn)
    # serving engines run tensor parallel over PCIe too (vLLM, TGI); training keeps TP on NVLink
    # (and, inside an NVLink domain wider than the node, both go across its trays: domain_tensor_parallel)
    max_tp = max(gpn, domain_tensor_parallel(offer, gpn)) if w.mode == "inference" else max_tensor_parallel(gpu, offer, gpn)
    limit = usable_gb(gpu, w.headroom) * GB
    node_cap = min(max_nodes or MAX_NODES, (offer.max_nodes if offer and offer.max_nodes else MAX_NODES))
    fixed_n = fixed_gpus or w.gpu_count or (w.nodes * gpn if w.nodes else None)
    t = _sized(w, arch, opts)
    # nothing below depends on the GPU but its usable memory: GPUs of one size (H100 and A100 80GB, L40S
    # and A6000...) on the same node shape share the answer
    key = (limit, gpn, max_tp, node_cap, fixed_n)
    known = t.placements.get(key)
    if known is not None:
        return known
    unfit: str | None = None
    if fixed_n:
        hit = _first_fit(t, fixed_n, gpn, max_tp, limit)
        if hit:
            n, lay = fixed_n, hit[0]
        else:
            n, unfit = fixed_n, "fixed"
            cands = _candidates(w, arch, n, gpn, max_tp) or [(1, 1, 3)]
            lay = min((resolve_layout(w, n, *c) for c in cands), key=lambda lay_: per_gpu_bytes(w, arch, lay_, opts))
    else:
        found = _search(w, arch, gpn, max_tp, limit, opts, node_cap)
        if found:
            n, lay = found
        else:
            # the largest layout searched: a stage per node, never more stages than layers
            stages = min(node_cap, arch.layers or node_cap) if node_cap > 1 else 1
            n, unfit = stages * gpn, "search"
            lay = resolve_layout(w, n, min(max_tp, gpn), stages, 3)
    per_gpu = t.size(lay) / GB
    fits = unfit is None and per_gpu <= round(usable_gb(gpu, w.headroom), 3) + 1e-9  # as estimate_memory says it
    found_at = t.placements[key] = Placement(n, lay, gpn, max_tp, per_gpu, fits, unfit, node_cap, opts, limit)
    return found_at


def gather_figures(w: Workload, arch: Architecture, gpu: GpuRecord, offer: OfferRecord | None, lay: Layout, n: int,
                   gpn: int, opts: MemoryOptions) -> tuple[float, float, float, int, int, float] | None:
    """(GB moved per GPU a micro-step, the collective's GB/s, that over one micro-batch's compute, the micro-batch,
    the largest micro-batch the memory left holds, the ratio at it) for a training layout that shards weights over
    data-parallel replicas in several nodes; None for any other layout, or where FSDP's prefetch hides the gathers
    behind one micro-batch's compute. FSDP gathers the weights again for each micro-batch, so only a bigger one
    amortises them: the sequences the memory left (to COMFORT_FRACTION of usable) holds."""
    if n <= gpn or lay.zero_stage < 3 or lay.dp <= 1 or lay.shard:
        return None
    said = said_gbps(w)  # the network the user said between their nodes, else the offer's
    link = (said / max(1, gpn) / 8 if said else
            offer.inter_node_gbps / max(1, offer.gpus_per_node) / 8 if offer is not None and offer.inter_node_gbps else None)
    # the sharding group's ranks in one node: each brings its own network card to the collective
    ranks = max(1, min(gpn, n) // (lay.tp * (lay.pp if lay.pp * lay.tp <= gpn else 1)))
    moved, gb_s, ratio = zero3_gather(w, arch, gpu, n, lay.tp, lay.pp, lay.dp, link, ranks)
    if ratio < ZERO3_SAID_FROM:
        return None
    seqs = int(w.batch_size or 1)
    base = per_gpu_bytes(w, arch, lay, opts)
    per_seq = per_gpu_bytes(w.model_copy(update={"batch_size": seqs + 1}), arch, lay, opts) - base
    room = usable_gb(gpu, w.headroom) * GB * COMFORT_FRACTION - base
    most = seqs + (int(room // per_seq) if per_seq > 0 and room > 0 else 0)
    # past ~32k tokens a GPU per micro-batch, recipes do not go (torchtitan and Megatron run 1-8 sequences of 2-8k):
    # memory that would hold more is not a batch anyone would set
    most = max(seqs, min(most, MAX_MICRO_BATCH_TOKENS // max(1, int(w.seq_len or 2048))))
    return moved, gb_s, ratio, seqs, most, ratio * seqs / most


def gather_slowdown(w: Workload, arch: Architecture, gpu: GpuRecord, offer: OfferRecord | None, p: Placement) -> float:
    """How many times longer a training run takes than its compute when its weight gathers across nodes outrun it
    even at the largest micro-batch that fits (1 otherwise): the run's time and cost count it, so the ranking does
    too (80 B200s fully sharding DeepSeek-V3 at 98% of memory were priced as if compute-bound, with "up to 15x" in
    a note)."""
    if w.mode == "inference" or not p.fits:
        return 1.0
    traffic = network_traffic(w, arch, gpu, p.lay, p.n, p.gpn)
    if traffic is not None:  # gradients and activations over the network said (ZeRO-3's gathers are below)
        return max(1.0, traffic.slowdown)
    gathers = gather_figures(w, arch, gpu, offer, p.lay, p.n, p.gpn, p.opts)
    if gathers is None or gathers[5] < ZERO3_SAID_FROM:
        return 1.0
    return gathers[5]


def network_traffic(w: Workload, arch: Architecture, gpu: GpuRecord, lay: Layout, n: int, gpn: int,
                    gbps: float | None = None) -> StepTraffic | None:
    """A training layout's traffic between nodes a step on the network said (or `gbps` per node), against its compute
    at this GPU count (engine.network); None when no network is said or nothing but ZeRO-3's gathers crosses."""
    if said_gbps(w) is None:
        return None
    tps = training_numbers(w, arch, gpu, n)[0]
    return step_traffic(w, arch, lay, n, gpn, tps, gbps)


def _network_note(w: Workload, arch: Architecture, gpu: GpuRecord, lay: Layout, n: int, gpn: int) -> str | None:
    """The network said, what crosses it, and the run's time against InfiniBand (engine.network.network_note)."""
    traffic = network_traffic(w, arch, gpu, lay, n, gpn)
    if traffic is None:
        return None
    tp = lay.tp if gpn % lay.tp == 0 else 1
    dp_lay = Layout(n, max(1, n // tp), tp, 1, max(2, lay.zero_stage) if lay.zero_stage < 3 else 3, lay.shard)
    dp = network_traffic(w, arch, gpu, dp_lay, n, gpn) if lay.pp > 1 else None
    ib = network_traffic(w, arch, gpu, lay, n, gpn, INFINIBAND_GBPS)
    wall = training_numbers(w, arch, gpu, n)[2]
    hours = wall * traffic.slowdown if wall else None
    return network_note(w, arch, traffic, dp, ib, hours, math.ceil(n / gpn))


def _times(ratio: float) -> str:
    return f"{ratio:,.0f}x" if ratio >= 10 else f"{ratio:,.1f}x"


def plan_cluster(w: Workload, arch: Architecture, gpu: GpuRecord, offer: OfferRecord | None = None, *,
                 options: MemoryOptions | None = None, max_nodes: int | None = None,
                 fixed_gpus: int | None = None) -> tuple[ClusterPlan, MemoryEstimate]:
    """Smallest GPU count (whole nodes past one node) whose busiest GPU fits after headroom, with the
    parallelism plan, fabric requirements, NCCL checklist and provider questions. Honours the user's
    gpu_count / nodes / tensor_parallel / pipeline_parallel; when those do not fit, says so and what would."""
    p = placement(w, arch, gpu, offer, options=options, max_nodes=max_nodes, fixed_gpus=fixed_gpus)
    n, lay, gpn, max_tp, opts, node_cap = p.n, p.lay, p.gpn, p.max_tp, p.opts, p.node_cap
    notes: list[str] = []
    if p.unfit == "fixed":
        best = _search(w.model_copy(update={"gpu_count": None, "nodes": None}), arch, gpn, max_tp, p.limit_bytes, opts, node_cap)
        # more of the same GPU, or (one GPU fixed) a card with the memory: "unconstrained" read as any GPU at all
        more = f"{best[0]}x {gpu.name}" if best else f"no count of {gpu.name} up to the search limit"
        card_gb = p.per_gpu_gb * gpu.memory_gb / usable_gb(gpu, w.headroom)  # the need, with the same headroom left free
        need = f"one GPU of {math.ceil(card_gb - 1e-9):,} GB or more, or {more}" if n == 1 and math.isfinite(card_gb) else more
        if (w.mode or "inference") == "inference":
            nvidia = integer_kernels(gpu)
            fp8 = ("yes" if gpu.fp8_dense_tflops and (not arch.is_moe or not nvidia or (compute_capability(gpu) or 0.0) >= 8.9)
                   else "weight-only" if fp8_weight_only(gpu, arch) else "no")
            fixes, keeps = serving_fixes(w, arch, lay, opts, p.limit_bytes, nvidia, fp8), True
        else:
            fixes, keeps = training_fixes(w, arch, p)
        # what keeps their GPUs comes first (a team that fixed its GPUs usually owns or has them); more GPUs after
        lead = f"to keep {'it' if n == 1 else 'them'}" if keeps else "no one change alone keeps it there"
        notes.append(f"does not fit on the {n} GPU(s) you fixed; {lead}: " + " / ".join(fixes)
                     + f"{ALTERNATIVE_NOTE}{need}")
    elif p.unfit == "search":
        notes.append(f"does not fit on up to {node_cap} nodes of {gpn}: the per-GPU working set (activations, "
                     "KV cache, overhead) alone is too large; reduce batch/sequence or enable checkpointing")
    mem = estimate_memory(w, arch, n, gpu, tensor_parallel=lay.tp, pipeline_parallel=lay.pp,
                          zero_stage=lay.zero_stage, options=opts, shard=lay.shard)
    nodes = math.ceil(n / gpn)
    inference = w.mode == "inference"
    if w.zero_stage is not None and lay.zero_stage > w.zero_stage and not inference:
        notes.append(f"ZeRO stage raised from {w.zero_stage} to {lay.zero_stage} so the state fits")
    span = domain_span(lay.tp, gpn, nvlink_domain_gpus(offer))  # a tensor-parallel group over one rack's trays
    needs_ib = nodes > 1 and (not inference or lay.tp * lay.pp > gpn and lay.tp > gpn and not span)
    fabric = (offer.inter_node_fabric if offer else None) or ""
    said = None if inference or nodes <= 1 else _network_note(w, arch, gpu, lay, n, gpn)
    if said is not None:  # the network the user said between their nodes, timed
        notes.append(said)
    elif nodes > 1 and not inference:
        notes.append("multi-node training: gradient all-reduce / ZeRO all-gathers cross nodes every step - InfiniBand "
                     "(or EFA/RoCE at similar rates) required; over plain Ethernet step time degrades from ~15% to ~10x")
        if offer and not any(k in fabric.lower() for k in ("infiniband", "efa", "roce", " ib")):
            notes.append(f"offer fabric is '{fabric or 'none stated'}': ask for InfiniBand before signing")
    if nodes > 1 and inference:
        notes.append("pipeline stages across nodes pass only activations; Ethernet works, InfiniBand lowers latency")
    if nodes == 1 and offer and offer.inter_node_fabric:
        notes.append(f"single node: the offer's inter-node fabric ({offer.inter_node_fabric}) is paid for but unused")
    if span:
        link_gb_s = nvlink_gb_s_per_direction(offer) if offer is not None else None
        speed = f" at ~{link_gb_s:,.0f} GB/s per GPU each way" if link_gb_s else ""
        notes.append(f"{DOMAIN_TP_NOTE}tensor parallel x{lay.tp} spans {math.ceil(lay.tp / gpn)} of the rack's {gpn}-GPU "
                     f"trays: its all-reduces run over the rack's NVLink switches{speed}, as inside a tray, not over the "
                     "network between racks; each group's trays must sit in one rack (ask the provider to place them so)")
    if lay.tp == 1 and n == 1 and max_tp > 1:
        notes.append("one GPU: NVLink is not needed")
    if max_tp == 1 and n > 1 and not inference:
        notes.append("PCIe-only GPUs: training keeps to data parallel / ZeRO / pipeline (tensor parallel's per-layer "
                     "all-reduces over PCIe cost more than they save), and gradient all-reduce over PCIe is slow")
    gathers = None if inference else gather_figures(w, arch, gpu, offer, lay, n, gpn, opts)
    if gathers is not None:
        moved, gb_s, ratio, seqs, most, at_most = gathers
        said_rate = "" if said_gbps(w) or (offer is not None and offer.inter_node_gbps) else ", assumed"
        head = (f"each step moves about {moved:,.0f} GB per GPU over the inter-node fabric ({gb_s:,.0f} GB/s for "
                f"its collective{said_rate}), about {_times(ratio)} the compute of {'one' if seqs == 1 else seqs} "
                f"{int(w.seq_len or 2048):,}-token sequence{'s' if seqs > 1 else ''} per GPU")
        if at_most < ZERO3_SAID_FROM:
            notes.append(f"{ZERO3_BATCH_NOTE}{head}; the memory left holds micro-batches of {most}, at which the "
                         "gathers hide behind the compute and the speed shown holds: set it (gradient accumulation "
                         "does not help: FSDP gathers the weights again for each micro-batch)")
        else:
            fits_more = f"at {most} sequences per GPU, all the memory left allows" if most > 1 else \
                "with no memory left for a second sequence per GPU"
            notes.append(f"{ZERO3_COMM_NOTE}{head}, and still about {_times(at_most)} {fits_more}: the time and cost "
                         f"shown count it ({_times(at_most)} the compute-bound run); sharding within each node (FSDP "
                         "HYBRID_SHARD) where it fits, or tensor and pipeline parallel across nodes on more GPUs "
                         "(Megatron-LM), keep it compute-bound")
    if arch.is_moe and not inference and n > 1 and lay.tp > 1:  # experts split over the node: the stack decides the speed
        notes.append(MOE_STACK_NOTE + "Megatron-LM, torchtitan or ms-swift's Megatron backend; Hugging Face Trainer with "
                     "PEFT runs the experts one after another, about 10x slower by ms-swift's comparison (Megatron-SWIFT docs)")
    elif arch.is_moe and not inference:  # no experts split (one GPU, or FSDP): the kernels still decide the speed
        notes.append(MOE_KERNELS_NOTE + "grouped GEMMs as in Megatron-LM, torchtitan or Unsloth; Hugging Face "
                     "Trainer with PEFT loops over the experts in training, several times slower")
    notes.extend(platform_caveats(gpu, w, n))
    if not inference:
        notes.extend(n_ for n_ in [batch_note(w, lay), accumulation_note(w, lay)] if n_)
    if (nodes > 1 and offer is None and not inference and lay.zero_stage >= 3 and lay.tp == 1 and lay.pp == 1
            and not lay.shard and said_gbps(w) is None):
        # your own (or a quoted) cluster: its network was not stated. Fully sharded data parallel over Ethernet
        # all-gathers every layer across the slow link; hybrid sharding keeps that inside the NVLink node.
        node_share = _sized(w, arch, opts).size(resolve_layout(w, gpn, 1, 1, 3)) / GB
        fits_node = node_share <= usable_gb(gpu, w.headroom)
        notes.append(f"network between your nodes not stated: this plan assumes InfiniBand or RoCE. Over 100 GbE or slower, "
                     "shard within each node and replicate across nodes (FSDP HYBRID_SHARD, DeepSpeed ZeRO++ hpZ): "
                     f"{node_share:,.1f} GB per GPU, which " + ("fits" if fits_node else "is more than a GPU holds (fewer "
                                                                "bytes per parameter first: 8-bit Adam, LoRA)"))
    between = (link_words(w) if said_gbps(w) is not None and not inference else
               fabric or ("not stated (InfiniBand or RoCE assumed)" if offer is None else "InfiniBand"))
    interconnect = _link(gpu, offer) + ("; between a tensor-parallel group's trays: NVLink (one rack)" if span else "") \
        + (f"; between nodes: {between}" if nodes > 1 and not (inference and span and lay.pp == 1) else "")
    plan = ClusterPlan(
        gpu=gpu.id, gpus=n, nodes=nodes, gpus_per_node=min(n, gpn), fits=bool(mem.fits) and not any("does not fit" in x for x in notes),
        data_parallel=lay.dp, tensor_parallel=lay.tp, pipeline_parallel=lay.pp, zero_stage=lay.zero_stage,
        interconnect=interconnect, parallelism=_describe(lay, nodes, inference, arch.is_moe, span), needs_nvlink=lay.tp > 1,
        needs_infiniband=needs_ib, checklist=((*DOMAIN_TP_CHECKLIST, *NCCL_CHECKLIST) if span and nodes > 1 else
                                               ETHERNET_CHECKLIST if nodes > 1 and w.inter_node_link == "ethernet"
                                               and not inference else NCCL_CHECKLIST if nodes > 1 else ()),
        provider_questions=PROVIDER_QUESTIONS if nodes > 1 else (), notes=tuple(notes),
    )
    return plan, mem


_NVLINK_DOMAIN = re.compile(r"(\d+)-GPU NVLink domain", re.IGNORECASE)
_LINK_GB_S = re.compile(r"\(([\d,.]+) GB/s")


def nvlink_domain_gpus(offer: OfferRecord | None) -> int | None:
    """The GPUs of one NVLink domain when an offer's rented node is part of a larger one (GB200 NVL72: 4-GPU trays,
    72 GPUs behind the rack's NVLink switches), as the catalog's link names it ("NVLink 5 (1800 GB/s; 72-GPU NVLink
    domain per rack)", from NVIDIA's GB200 NVL72 spec); None for an ordinary node, whose NVLink ends at its edge."""
    if offer is None or not offer.intra_node_link:
        return None
    found = _NVLINK_DOMAIN.search(offer.intra_node_link)
    domain = int(found.group(1)) if found else 0
    return domain if domain > offer.gpus_per_node else None


def nvlink_gb_s_per_direction(offer: OfferRecord) -> float | None:
    """Each GPU's NVLink bandwidth one way, from the offer's link ("NVLink 5 (1800 GB/s ...)": 900), None if unsaid."""
    found = _LINK_GB_S.search(offer.intra_node_link or "")
    return float(found.group(1).replace(",", "")) / 2 if found else None
