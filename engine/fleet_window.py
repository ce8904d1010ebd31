"""What a fixed fleet trains in a fixed window, and a training job per GPU type on a team's own cluster.

Why its own module: both give the GPUs and ask for the other side of the plan.
- "train a 7B on 500 A100s for 2 hours": the fleet and the time are fixed, so the data is the answer, not a question:
  the fleet's training throughput (at the plan's MFU) times the time left after start-up. Against a compute-optimal
  run (Hoffmann et al. 2022, arXiv 2203.15556: ~20 tokens per parameter) it says what share of a real pre-training
  that is (0.5-1% for a 7B in 2 hours on 500 A100s).
- "how many GPUs on our Slurm cluster …" names no GPU: the count moves 2.4-7x with the type (dense BF16 peaks of 312
  TFLOPS for an A100, 989 for an H100 SXM, 2,250 for a B200), so the answer is a row per common type, each costed as
  the team's own GPUs are (their power: engine.recommend.power_usd_per_gpu_hour), not the rent of the newest GPU.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.models import RL_OBJECTIVES, TRAINING_MODES, Advice, Option, Workload
from engine.offer_plans import setup_hours, slot_hours

CHINCHILLA_TOKENS_PER_PARAM = 20.0  # Hoffmann et al. 2022: compute-optimal data is ~20 tokens per parameter
# the GPUs a team's own training cluster most often has, oldest first (the rows of the answer, as the catalog names them)
OWNED_CLUSTER_GPUS = ("a100-sxm-80gb", "h100-sxm", "h200-sxm", "b200")
HOURS_PER_MONTH = 730.0


def window_applies(w: Workload) -> bool:
    """A training run on a GPU count said, with a time said and no data: what the fleet trains in that time."""
    return bool((w.mode or "inference") in TRAINING_MODES and w.deadline_hours and (w.gpu_count or w.nodes)
                and w.dataset_tokens is None and w.dataset_gb is None and not w.dataset_examples
                and not w.train_steps and w.objective not in RL_OBJECTIVES)


def window_tokens(w: Workload, tokens_per_s: float) -> int:
    """Tokens the fleet trains in the window less its start-up, rounded down to 3 significant digits (so the plan
    made on them finishes inside the window, not a rounding past it)."""
    tokens = tokens_per_s * slot_hours(w) * 3600.0
    if tokens <= 0:
        return 0
    step = 10 ** max(0, int(math.floor(math.log10(tokens))) - 2)
    return int(tokens // step * step)


@dataclass(frozen=True)
class FleetWindow:
    """What the fleet trains in the time it is held, what that time costs, and its share of a compute-optimal run."""

    hours: float  # the window said
    gpu: str
    gpus: int  # the GPUs said
    tokens: int  # trained in the window, start-up taken out
    tokens_per_s: float  # the fleet's training throughput
    gpu_hours: float  # GPU-hours billed for the window (whole nodes when a provider rents only those)
    usd: float | None  # the pick's cost for the window (rent, or power for the team's own GPUs)
    owned: bool
    usd_power: float | None  # the GPUs said, held for the window, at their power (what it costs if they are the team's)
    setup_minutes: float  # start-up taken out of the window before training
    pretraining: bool
    params_b: float
    optimal_tokens: float  # CHINCHILLA_TOKENS_PER_PARAM x parameters
    option: str  # the pick the cost is of

    @property
    def share(self) -> float:
        """The window's tokens as a share of a compute-optimal run."""
        return self.tokens / self.optimal_tokens if self.optimal_tokens else 0.0


def fleet_window(advice: Advice, pick: Option | None, tokens_per_s: float, usd: float | None,
                 owned: bool, power_usd_per_gpu_hour: float | None = None) -> FleetWindow | None:
    """The window's figures from the plan made on its tokens (`advice`) and its pick; None without a window."""
    w = advice.effective
    if not w.deadline_hours or not w.dataset_tokens or advice.cluster is None:
        return None
    params_b = float(w.params_b or 0.0)
    gpus = int(w.gpu_count or 0) or advice.cluster.gpus
    billed = pick.cluster.gpus if pick is not None and pick.cluster is not None else gpus
    hours = float(pick.hours_per_run) if pick is not None and pick.hours_per_run else float(w.deadline_hours)
    return FleetWindow(hours=float(w.deadline_hours), gpu=str(advice.cluster.gpu), gpus=gpus, tokens=int(w.dataset_tokens),
                       tokens_per_s=tokens_per_s, gpu_hours=billed * hours, usd=usd, owned=owned,
                       usd_power=None if power_usd_per_gpu_hour is None else gpus * float(w.deadline_hours)
                       * power_usd_per_gpu_hour, setup_minutes=setup_hours(w) * 60,
                       pretraining=w.mode == "pretrain", params_b=params_b,
                       optimal_tokens=CHINCHILLA_TOKENS_PER_PARAM * params_b * 1e9, option=pick.name if pick else "")


@dataclass(frozen=True)
class OwnedType:
    """One GPU type a team's own cluster may have: the plan the job takes on it, costed at the GPUs' power."""

    gpu: str
    gpus: int
    nodes: int
    fits: bool
    hours_per_run: float | None  # training: wall clock of one run
    gpu_hours: float  # training: GPU-hours a run; serving: a month's
    usd_power: float  # the same hours at the GPUs' power
    usd_per_gpu_hour: float
    tokens_per_s_per_user: float | None  # serving


def owned_type(advice: Advice, gpu: str, usd_per_gpu_hour: float) -> OwnedType | None:
    """The row of `gpu` from its plan (`advice`, sized as the engine sizes it with the type fixed), costed at power."""
    pick = next((o for o in advice.options if advice.recommendation is not None
                 and o.name == advice.recommendation.primary), advice.options[0] if advice.options else None)
    cluster = pick.cluster if pick is not None else advice.cluster
    if cluster is None:
        return None
    training = (advice.effective.mode or "inference") in TRAINING_MODES
    hours = float(pick.hours_per_run) if pick is not None and pick.hours_per_run else None
    gpu_hours = cluster.gpus * (hours or 0.0) if training else cluster.gpus * HOURS_PER_MONTH
    speed = None
    if not training and pick is not None and pick.throughput.decode_tokens_per_s_per_sequence is not None:
        speed = pick.throughput.decode_tokens_per_s_per_sequence.value
    return OwnedType(gpu=gpu, gpus=cluster.gpus, nodes=cluster.nodes, fits=cluster.fits, hours_per_run=hours,
                     gpu_hours=gpu_hours, usd_power=gpu_hours * usd_per_gpu_hour, usd_per_gpu_hour=usd_per_gpu_hour,
                     tokens_per_s_per_user=speed)
