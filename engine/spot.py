"""What spot capacity costs a synchronous training run, by its node count.

Why its own module: a flat allowance (10% more GPU-hours whatever the size) made a 64-node pre-training
run on spot look as safe as a one-node fine-tune. A data-parallel / tensor-parallel job stops whenever
any one of its nodes is reclaimed, so its stalls grow with the nodes it holds; and past a few nodes the
question is less the stalls than whether the provider's spare capacity holds the whole gang at all.

The figures, and where they come from:
- a node is reclaimed SPOT_RECLAIMS_PER_NODE_MONTH times a month: AWS's Spot Instance Advisor states an
  instance type's "frequency of interruption" (the share of its spot capacity reclaimed over the trailing
  month) in bands of <5%, 5-10%, 10-15%, 15-20% and >20%; the H100 instances (p5) are listed in the
  10-20% bands, so 20% a month per node is taken (the top of those bands);
- each reclaim stalls the whole job for the work since the last checkpoint (half of an hourly checkpoint
  interval, the slow end of the 30-60 min the answer recommends), the restart (relaunch, reload the
  checkpoint: the start-up every run is costed with) and the wait for a replacement node in the same zone
  and placement group (SPOT_CAPACITY_WAIT_HOURS, assumed: no provider publishes it; the nodes kept are
  billed while they wait, or they too are lost);
- the first node's share is the SPOT_RESTART_OVERHEAD allowance a single-node run has always carried
  (checkpoint saves, restarts, lost work); every further node adds its own reclaims.
Past SPOT_GANG_MAX_NODES nodes spot is not the pick (engine.advise leads with on demand and says what spot
would cost): AWS ends a spot launch group together when it can no longer keep the group in its zone (the EC2
Spot interruptions guide), a reclaimed node's replacement must come from the same zone's spare capacity, and
for multi-week, multi-node GPU runs the hyperscalers sell reserved blocks instead (AWS EC2 Capacity Blocks
for ML). On demand the answer already asks to confirm capacity from CAPACITY_NODES (16) instances; spot is
the provider's spare capacity, so half that.
"""

from __future__ import annotations

from engine.models import DEFAULT_SETUP_HOURS
from engine.units import HOURS_PER_MONTH

SPOT_RESTART_OVERHEAD = 0.10  # a single node's lost work between checkpoints and restarts, as a share of GPU-hours
SPOT_RECLAIMS_PER_NODE_MONTH = 0.20  # AWS Spot Instance Advisor: H100 (p5) in its 10-20% bands; the top taken
SPOT_CHECKPOINT_HOURS = 1.0  # checkpoint interval: a reclaim loses half of it on average
SPOT_CAPACITY_WAIT_HOURS = 3.0  # waiting for a replacement node in the same zone (assumed; nobody publishes it)
SPOT_GANG_MAX_NODES = 8  # past this many nodes, synchronous training on spot is shown as possible, not picked


def stall_hours() -> float:
    """The wall clock one reclaim costs the whole job: lost work, restart, and waiting for the replacement."""
    return SPOT_CHECKPOINT_HOURS / 2 + DEFAULT_SETUP_HOURS + SPOT_CAPACITY_WAIT_HOURS


def reclaims_per_hour(nodes: int) -> float:
    """Expected reclaims per hour of a job on `nodes` spot nodes (any one stops it)."""
    return max(1, nodes) * SPOT_RECLAIMS_PER_NODE_MONTH / HOURS_PER_MONTH


def spot_overhead(nodes: int) -> float:
    """The share of GPU-hours (and of the wall clock) a synchronous run on `nodes` spot nodes adds: the single
    node's allowance, plus every further node's reclaims, each stalling the whole job for `stall_hours()`.
    1 node: 10%; 8 nodes: 10.7%; 64 nodes: 16.5%."""
    extra = max(0, nodes - 1) * SPOT_RECLAIMS_PER_NODE_MONTH / HOURS_PER_MONTH * stall_hours()
    return SPOT_RESTART_OVERHEAD + extra


def expected_reclaims(nodes: int, hours: float) -> float:
    """Reclaims expected over a run of `hours` on `nodes` spot nodes."""
    return reclaims_per_hour(nodes) * max(0.0, hours)


def gang_too_large(nodes: int) -> bool:
    """A synchronous training run on more spot nodes than the provider's spare capacity reliably holds together."""
    return nodes > SPOT_GANG_MAX_NODES


SPOT_SERVING_PREFIX = "spot for serving"  # the spot serving note's start (bot.caveats reads it)
SPOT_TRAINING_PREFIX = "spot: checkpoint"  # the spot training note's start (bot.caveats reads it)


def spot_training_note(nodes: int, hours: float) -> str:
    """The spot training note for a run on `nodes` nodes of `hours` wall clock: the share counted, and for a gang
    of nodes, why it grows (the reclaims expected, what each costs)."""
    head = (f"{SPOT_TRAINING_PREFIX} at least every 30-60 minutes and resume automatically; "
            f"{spot_overhead(nodes):.0%} more GPU-hours are counted for lost work and restarts")
    if nodes <= 1:
        return head + ", and a preempted multi-node job waits for capacity"
    return (head + f" and wall clock for waiting on capacity: any one of the {nodes} nodes reclaimed stalls them all "
            f"(~{expected_reclaims(nodes, hours):.1f} reclaims expected over the run at "
            f"{SPOT_RECLAIMS_PER_NODE_MONTH:.0%} of nodes a month, AWS Spot Instance Advisor's band for H100; each "
            f"~{stall_hours():.1f} h: half an hourly checkpoint interval lost, the restart, and ~"
            f"{SPOT_CAPACITY_WAIT_HOURS:g} h waiting for a replacement in the same zone)")


SPOT_GANG_NOTE = "spot at scale: "  # a spot training pick past SPOT_GANG_MAX_NODES, shown but not planned (first message)


def spot_gang_note(name: str, run_usd: float, nodes: int, hours: float) -> str:
    """What spot would cost a run the answer planned on demand instead, and why it is not the pick."""
    return (f"{SPOT_GANG_NOTE}possible, but risky on {nodes} nodes: {name} costs ${run_usd:,.0f} per run with "
            f"{spot_overhead(nodes):.0%} more GPU-hours and wall clock counted for reclaims, yet any one of the {nodes} "
            f"nodes reclaimed stalls the run (~{expected_reclaims(nodes, hours):.0f} reclaims expected over "
            f"{hours / 24:,.1f} days at {SPOT_RECLAIMS_PER_NODE_MONTH:.0%} of nodes a month), each replacement must "
            "come from the same zone's spare capacity, and a spot launch group is ended together when its zone cannot "
            f"keep it (EC2 Spot); past {SPOT_GANG_MAX_NODES} nodes the plan is on demand, and for weeks on this many nodes reserved "
            "capacity (AWS EC2 Capacity Blocks for ML, a provider's reserved cluster) is the usual buy: say "
            "“reserved” to price it")
