"""An offline job with no priced offer: what the GPUs it fits on sustain, and how many GPUs meet its deadline.

Why its own module: with no offer to price ("… on together, h100, spot": Together sells no spot H100), the answer
fell back to the memory-only plan (2x H100 hold Qwen2.5 72B) and its speed line showed the deadline's rate, 82.8
prompts/s (50M prompts / 168 h), as what those 2 GPUs do. They sustain ~4.4 (82.8 x 2,000 prompt tokens x 2 x 72B
FLOPs is ~24 PFLOP/s, against ~2 PF of dense FP8 per H100). The fixed-GPU path already ran fixed GPUs at their
capacity (engine.recommendation.job_rate_and_hours); this runs the serving search on the GPUs the plan fits on, with
no offer, so the figures are that plan's, and finds the fewest GPUs of the type that meet the rate.
"""

from __future__ import annotations

from dataclasses import dataclass

from catalog.records import GpuRecord, OfferRecord
from engine.architecture import Architecture
from engine.models import TRAINING_MODES, ClusterPlan, MemoryEstimate, ThroughputEstimate, Workload
from engine.offer_plans import _fewest_gpus_meeting, serving_result, serving_shape
from engine.serving import choose
from engine.throughput import link_kind

UNPRICED_JOB_NOTE = "Short: "  # the note's opening (a decision caveat: the plan shown misses the deadline)


@dataclass(frozen=True)
class UnpricedJob:
    """The fitted GPUs run as the job's fleet: the plan, what it sustains, and the GPUs that meet the rate."""

    plan: ClusterPlan
    memory: MemoryEstimate
    throughput: ThroughputEstimate
    sustained_rps: float  # prompts/s the fitted GPUs sustain
    needed_gpus: int | None  # the fewest GPUs of the type that meet the deadline's rate (None: no count does)
    needed_layout: str  # "11 replicas of 4"
    note: str  # "" when the fitted GPUs meet the rate


def is_offline_job(w: Workload) -> bool:
    """Prompts run to replies by a deadline (`batch_items` at a rate): a job, not a service."""
    return (w.mode or "inference") not in TRAINING_MODES and bool(w.batch_items) and bool(w.requests_per_s)


def unpriced_job(w: Workload, arch: Architecture, gpu: GpuRecord, cluster: ClusterPlan,
                 offer: OfferRecord | None = None) -> UnpricedJob | None:
    """The job on `cluster.gpus` of `gpu` (the plan that fits, nothing priced), or None when it is not an offline job
    or no serving plan holds the model on those GPUs."""
    if not is_offline_job(w) or not cluster.fits or cluster.gpus < 1:
        return None
    fixed = w.model_copy(update={"gpu_count": cluster.gpus, "nodes": None})
    gpn, link = serving_shape(fixed, gpu, offer)
    kind = link_kind(link)
    choice = choose(fixed, arch, gpu, gpn, kind, True)
    if choice is None:
        return None
    plan, memory, throughput = serving_result(fixed, arch, gpu, offer, choice, gpn, link)
    # the fixed-count wording ("the 2 GPU(s) you fixed …") is not this plan's: the user fixed no count
    plan = plan.model_copy(update={"notes": tuple(n for n in plan.notes if "you fixed" not in n)})
    sustained = choice.replicas * (choice.capacity_rps or 0.0)
    wanted = float(w.requests_per_s or 0.0)
    if sustained >= wanted * 0.999:
        return UnpricedJob(plan, memory, throughput, sustained, choice.gpus, "", "")
    need = _fewest_gpus_meeting(fixed, arch, gpu, offer, gpn, kind)
    layout = f"{need.replicas} replica{'s' if need.replicas != 1 else ''} of {need.gpus_per_replica}" if need else ""
    days = float(w.batch_items or 0.0) / max(sustained, 1e-9) / 3600 / 24
    meets = (f"{need.gpus:,} {gpu.name} ({layout}) meet it" if need is not None
             else f"no count of {gpu.name} meets it")
    note = (f"{UNPRICED_JOB_NOTE}the {cluster.gpus} {gpu.name} the model fits on sustain {sustained:,.1f} prompts/s "
            f"against the {wanted:,.1f} the deadline needs ({float(w.batch_items or 0):,.0f} prompts in "
            f"{days:,.1f} days on them); {meets}")
    return UnpricedJob(plan, memory, throughput, sustained, need.gpus if need else None, layout, note)
