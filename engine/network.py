"""The network between a training cluster's nodes, as the user states it ("100GbE between nodes, no infiniband").

Why its own module: the engine times only ZeRO-3's weight gathers across nodes (engine.throughput.zero3_gather), on
the offer's fabric or 400 Gb/s per GPU assumed. That holds on the InfiniBand clusters the catalog rents (8 x 400 Gb/s
per HGX node, ~320 GB/s per node at NCCL's ~80%), where a step's gradient all-reduce hides behind its compute. On a
team's own nodes linked by one 100 GbE port (12.5 GB/s, 32x less) it does not: Llama 3.1 70B with tensor parallel x8
in each of 4 nodes all-reduces its BF16 gradients across them every optimiser step, 2 x (4-1)/4 x 141 GB = 212 GB out
of each node, ~21 s at 10 GB/s against ~33 s of compute at a 1M-token global batch.

Here: what crosses the nodes' network per optimiser step for a training layout (the data-parallel replicas' gradient
all-reduce, the pipeline stages' activations), its time on the network said, the time that stays exposed, and the
factor the run takes longer than its compute, so the plan, the time and the cost count it; and the cross-node bytes
the layout search orders its candidates by when a network is said (pipeline stages across nodes pass only
activations: ~34 GB a 1M-token step for a 70B, against 212 GB of gradients).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from engine.architecture import Architecture, lora_trainable_params
from engine.memory import Layout
from engine.models import Workload, global_batch_sequences
from engine.throughput import ZERO3_LINK_EFFICIENCY

ETHERNET_GBPS = 100.0  # "no infiniband" with no rate: one 100 GbE port per node, the common datacenter NIC (assumed)
# 8 x 400 Gb/s NDR per 8-GPU node: the HGX H100/H200/B200 clusters the catalog rents (Nebius, CoreWeave, Lambda)
INFINIBAND_GBPS = 3200.0
# a global batch for a fine-tune across nodes when none is said: 1M tokens (512 sequences of 2,048), the order of
# published 70B fine-tunes (Tulu 3 70B: 128 x 4,096), reached with gradient accumulation
ASSUMED_STEP_TOKENS = 1 << 20
# the share of the last micro-batch's compute the gradient all-reduce overlaps (its backward pass: DDP / ZeRO-2 bucket
# the reduce behind it); with gradient accumulation the reduce runs only after the last micro-batch
BACKWARD_SHARE = 2 / 3
SLOW_BELOW_GBPS_PER_GPU = 400.0  # one NDR port per GPU: below it the layouts are ordered by the bytes they send
NOTICEABLE = 1.05  # a step this much over its compute is worth a line in the first message and the ways out
ACTIVATION_BYTES = 2  # BF16 activations and their gradients between pipeline stages
NETWORK_NOTE = "network between nodes: "  # read by the first message (bot.caveats)
LINK_WORDS = {"ethernet": "Ethernet (TCP, no RDMA)", "roce": "RoCE", "infiniband": "InfiniBand"}


# Before the first run on nodes linked by plain Ethernet (no RDMA): NCCL's socket transport, not its InfiniBand one
ETHERNET_CHECKLIST = (
    "NCCL_SOCKET_IFNAME must name the fast Ethernet interface, not the management network",
    "no RDMA: NCCL runs over TCP sockets (NET/Socket in NCCL_DEBUG=INFO); raise NCCL_NSOCKS_PERTHREAD and "
    "NCCL_SOCKET_NTHREADS (e.g. 4 x 2) so the sockets fill the link",
    "jumbo frames (MTU 9000) on the NICs and the switch ports",
    "run nccl-tests all_reduce_perf across the nodes: ~80% of the line rate is the bus bandwidth to expect (~10 GB/s "
    "per 100 GbE port); much less means the socket settings or the interface first",
    "multi-node throughput well below single-node x nodes means NCCL configuration first, hardware second",
)


def said_gbps(w: Workload) -> float | None:
    """Gb/s per node between a training run's nodes as the user said it; "no infiniband" / "ethernet only" with no
    rate is ETHERNET_GBPS. None: not said (the offer's fabric, InfiniBand assumed on their own cluster)."""
    if (w.mode or "inference") == "inference":
        return None
    if w.inter_node_gbps:
        return float(w.inter_node_gbps)
    return ETHERNET_GBPS if w.inter_node_link == "ethernet" else None


def link_words(w: Workload) -> str:
    """'100 Gb/s Ethernet (TCP, no RDMA) per node, as you said': the network in words, with what was assumed."""
    gbps = said_gbps(w) or 0.0
    kind = LINK_WORDS.get(w.inter_node_link or "", "")
    rate = f"{gbps:,.0f} Gb/s" + (f" {kind}" if kind else "") + " per node"
    return rate + (" (the common 100 GbE port, assumed; say the rate to change)" if not w.inter_node_gbps else ", as you said")


def step_tokens(w: Workload) -> tuple[int, bool]:
    """(tokens per optimiser step, whether assumed): the global batch said, else ASSUMED_STEP_TOKENS."""
    seq = max(1, int(w.seq_len or 2048))
    said = global_batch_sequences(w, seq)
    if said is not None:
        return said * seq, False
    return ASSUMED_STEP_TOKENS, True


def _gradient_bytes(w: Workload, arch: Architecture) -> float:
    """The bytes one model replica's gradients all-reduce: the trained parameters at 2 bytes (4 in FP32)."""
    trained = (lora_trainable_params(arch, w.lora_rank, w.lora_targets) if w.mode in ("lora", "qlora")
               else arch.total_params)
    return float(trained) * (4.0 if w.precision == "fp32" else 2.0)


@dataclass(frozen=True)
class StepTraffic:
    """What crosses the network out of each node in one optimiser step, and what it costs in time."""

    gradient_gb: float  # the data-parallel replicas' gradient all-reduce, GB out of each node
    activation_gb: float  # pipeline stages' activations and their gradients between nodes, GB out of each node
    replicas_across: int  # data-parallel groups the all-reduce runs across (nodes, or node groups of a replica)
    gb_s: float  # the node's network at NCCL's efficiency
    comm_s: float
    compute_s: float
    exposed_s: float  # what no compute hides
    gradient_exposed_s: float  # the part of it that is the gradient all-reduce (once a step, whatever the batch)
    bubble: float  # pipeline fill and drain, as a share of the step's compute
    tokens: int
    assumed_batch: bool

    @property
    def slowdown(self) -> float:
        """How many times its compute the step takes."""
        return (self.compute_s * (1 + self.bubble) + self.exposed_s) / self.compute_s if self.compute_s > 0 else 1.0


def cross_node_gb(w: Workload, arch: Architecture, lay: Layout, n: int, gpn: int) -> tuple[float, float, int] | None:
    """(gradient GB, activation GB out of each node per optimiser step, data-parallel groups across nodes) for a
    training layout on `n` GPUs in nodes of `gpn`; None on one node, and for ZeRO-3 sharded over every GPU (its weight
    gathers are engine.throughput.zero3_gather's)."""
    nodes = math.ceil(n / max(1, gpn))
    if nodes <= 1 or (lay.zero_stage >= 3 and not lay.shard and lay.dp > 1 and lay.tp * lay.pp < n):
        return None
    replica = max(1, lay.tp * lay.pp)
    nodes_per_replica = max(1, math.ceil(replica / gpn))
    groups = max(1, nodes // nodes_per_replica)
    # ring all-reduce (or reduce-scatter + all-gather, ZeRO-1/2 and HYBRID_SHARD's replicas): 2 (R-1)/R of the
    # gradients each node holds, after the reduce inside the node over NVLink
    gradient = 2 * (groups - 1) / groups * _gradient_bytes(w, arch) / nodes_per_replica if groups > 1 else 0.0
    tokens, _assumed = step_tokens(w)
    # a stage boundary between nodes: each replica's tokens cross it forward (activations) and back (their gradients)
    activation = (2 * tokens / max(1, lay.dp) * arch.hidden * ACTIVATION_BYTES) if nodes_per_replica > 1 else 0.0
    return gradient / 1e9, activation / 1e9, groups


def step_traffic(w: Workload, arch: Architecture, lay: Layout, n: int, gpn: int, tokens_per_s: float,
                 gbps: float | None = None) -> StepTraffic | None:
    """The step's traffic between nodes on `gbps` per node (the network said when None), against its compute at
    `tokens_per_s` over all GPUs; None when nothing crosses (one node) or no network is said."""
    gbps = gbps if gbps is not None else said_gbps(w)
    found = cross_node_gb(w, arch, lay, n, gpn)
    if not gbps or found is None or tokens_per_s <= 0:
        return None
    gradient_gb, activation_gb, groups = found
    tokens, assumed = step_tokens(w)
    gb_s = gbps / 8 * ZERO3_LINK_EFFICIENCY
    compute_s = tokens / tokens_per_s
    grad_s, act_s = gradient_gb / gb_s, activation_gb / gb_s
    seq, micro = max(1, int(w.seq_len or 2048)), max(1, int(w.batch_size or 1))
    pass_tokens = max(1, lay.dp) * micro * seq  # one micro-batch on every replica
    micro_s = compute_s * min(1.0, pass_tokens / tokens)
    exposed = act_s + max(0.0, grad_s - BACKWARD_SHARE * micro_s)
    micro_batches = max(1.0, tokens / pass_tokens)
    bubble = (lay.pp - 1) / micro_batches if lay.pp > 1 else 0.0  # 1F1B: (p-1) of m + p-1 slots idle
    return StepTraffic(gradient_gb, activation_gb, groups, gb_s, grad_s + act_s, compute_s, exposed, exposed - act_s,
                       bubble, tokens, assumed)


def candidate_key(w: Workload, arch: Architecture, n: int, gpn: int) -> Callable[[tuple[int, ...]], float] | None:
    """A sort key for the layout search's (tp, pp, zero_stage[, shard group]) candidates when a network slower than
    InfiniBand's 400 Gb/s per GPU is said: the GB out of each node per step, fewest first (ZeRO-3 over every GPU last,
    as before); None otherwise (the search keeps its order: on InfiniBand the gradients hide behind the compute)."""
    gbps = said_gbps(w)
    if gbps is None or gbps / max(1, gpn) >= SLOW_BELOW_GBPS_PER_GPU:
        return None

    def key(candidate: tuple[int, ...]) -> float:
        tp, pp, zero = candidate[0], candidate[1], candidate[2]
        shard = candidate[3] if len(candidate) > 3 else 0
        dp = max(1, n // max(1, tp * pp))
        found = cross_node_gb(w, arch, Layout(n, dp, tp, pp, zero, shard), n, gpn)
        return math.inf if found is None else found[0] + found[1]
    return key


def _per_step(traffic: StepTraffic, times: float) -> float:
    """The step's factor over its compute at `times` the global batch: the compute, the activations and the tokens
    per pipeline micro-batch grow with it; the gradient all-reduce is once a step whatever the batch."""
    activations = traffic.exposed_s - traffic.gradient_exposed_s
    return 1 + traffic.bubble / times + (activations * times + traffic.gradient_exposed_s) / (times * traffic.compute_s)


def network_note(w: Workload, arch: Architecture, traffic: StepTraffic, dp_traffic: StepTraffic | None,
                 ib_traffic: StepTraffic | None, hours: float | None, nodes: int) -> str:
    """The network said, what crosses it a step with the formula and its time, how much slower the run is than on
    InfiniBand, and what keeps the traffic inside the nodes (the layout planned, a larger batch, ZeRO++)."""
    batch = (f"a {traffic.tokens / 2 ** 20:,.0f}M-token global batch (assumed: say “global batch 4M tokens” to change)"
             if traffic.assumed_batch else f"the global batch you said ({traffic.tokens:,} tokens)")
    params = _gradient_bytes(w, arch) / 2 / 1e9 * (2 if w.precision == "fp32" else 1)
    parts = []
    if traffic.gradient_gb:
        r = traffic.replicas_across
        parts.append(f"gradients: ring all-reduce across {r} replicas, 2 × {r - 1}/{r} × {params:,.1f}B × "
                     f"{4 if w.precision == 'fp32' else 2} B = {traffic.gradient_gb:,.0f} GB")
    if traffic.activation_gb:
        parts.append(f"activations between pipeline stages, forward and back: 2 × {traffic.tokens / 2 ** 20:,.0f}M tokens"
                     f" × {arch.hidden:,} hidden × 2 B = {traffic.activation_gb:,.0f} GB")
    moved = traffic.gradient_gb + traffic.activation_gb
    ib = ib_traffic.slowdown if ib_traffic is not None else 1.0
    slower = traffic.slowdown / ib
    head = (f"{NETWORK_NOTE}{link_words(w)}: each optimiser step moves {moved:,.0f} GB out of each node "
            f"({'; '.join(parts)}), {traffic.comm_s:,.1f} s over ~{traffic.gb_s:,.0f} GB/s (NCCL's ~80%) against "
            f"{traffic.compute_s:,.1f} s of compute at {batch}: the run takes {traffic.slowdown:,.2f}x its compute")
    ib_words = f"{INFINIBAND_GBPS / 400:,.0f}x400 Gb/s InfiniBand"
    head += (f", {hours:,.1f} h of training against ~{hours / slower:,.1f} h on {ib_words} ({(slower - 1) * 100:,.0f}% "
             "slower)" if hours else f", {(slower - 1) * 100:,.0f}% slower than on {ib_words}")
    tail = []
    if traffic.activation_gb and dp_traffic is not None and dp_traffic.gradient_gb:
        tail.append(f"Planned as pipeline stages across the {nodes} nodes (Megatron-LM, NeMo, torchtitan): only "
                    f"activations cross them. Data parallel across nodes (FSDP HYBRID_SHARD or ZeRO-2, as FSDP and "
                    f"DeepSpeed stacks run it) would all-reduce {dp_traffic.gradient_gb:,.0f} GB of gradients a step: "
                    f"{dp_traffic.slowdown:,.2f}x its compute, {_per_step(dp_traffic, 4):,.2f}x at a "
                    f"{4 * traffic.tokens / 2 ** 20:,.0f}M-token global batch (gradient accumulation)")
    elif traffic.gradient_gb and traffic.slowdown >= NOTICEABLE:
        tail.append(f"A larger global batch (gradient accumulation) spreads the all-reduce over more compute: "
                    f"{_per_step(traffic, 4):,.2f}x at {4 * traffic.tokens / 2 ** 20:,.0f}M tokens a step")
    if tail:
        tail.append("keeping weights sharded inside each node (FSDP HYBRID_SHARD, DeepSpeed ZeRO++ hpZ) leaves only "
                    "gradients crossing, and ZeRO++ qgZ's INT4 gradients cut those bytes ~4x")
    return head + (". " + "; ".join(tail) if tail else "")
