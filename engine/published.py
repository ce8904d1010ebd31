"""The model as published, where the GPUs the user fixed hold it only as a quantised checkpoint.

Why its own step: "can we run DeepSeek-V3 on 8x H100?" is answered with the plan that fits the 8 (a 4-bit AWQ/GPTQ
checkpoint: 671 GB of FP8 weights do not fit 640 GB). That is a community re-quantisation with a quality risk, and
the deployments people actually run keep the published weights: two nodes of the same GPU (SGLang/vLLM's EP16 or
TP16 on 2x8 H100) or one node of a bigger one (8x H200). The engine plans both anyway when the GPUs are left open;
this module plans them for the answer that fixed the GPUs, so the 4-bit plan stands beside what the published
weights cost and how fast they run, from the same search (not a rule of thumb).
"""

from __future__ import annotations

from catalog.records import CatalogData
from engine.architecture import Architecture
from engine.models import Option, Workload
from engine.recommend import evaluate, owns_gpus, rented_nowhere
from engine.serving import SPEED_TARGET_MARGIN

PUBLISHED_NOTE = "without a 4- or 8-bit quant: "  # then the plans that keep the model's own weights
QUANTISED = ("int4", "int8", "nf4")  # integer weights: a re-quantisation of a BF16 or FP8 release
# a one-node plan on another GPU is named beside more of the GPU fixed when it costs at most this much more
COMPARABLE_COST = 1.25


def _label(option: Option, native: str, data: CatalogData) -> str:
    """How the weights are held where that is not the release's own format: "FP8" (a BF16 model in W8A8), "FP8
    weight-only" (Ampere: no FP8 tensor cores), "BF16"; "" for the published weights as they are."""
    gpu = data.gpu(option.gpu)
    if option.precision == "fp8" and gpu is not None and not gpu.fp8_dense_tflops:
        return "FP8 weight-only"
    return "" if option.precision == native else option.precision.upper()


def _said(option: Option, native: str, data: CatalogData, one_node: bool = False) -> str:
    """"16x H100 SXM5 80GB on 2 nodes ($34,456 a month, 74.8 tokens/s per user)"; `one_node`: say that it is one
    node (beside a plan on several)."""
    gpu = data.gpu(option.gpu)
    plan = option.cluster
    nodes = f" on {plan.nodes} nodes" if plan.nodes > 1 else " on one node" if one_node else ""
    speed = option.throughput.decode_tokens_per_s_per_sequence
    at = f", {speed.value:,.1f} tokens/s per user" if speed is not None else ""
    label = _label(option, native, data)
    return (f"{plan.gpus}x {gpu.name if gpu is not None else option.gpu}{nodes} ({label + ', ' if label else ''}"
            f"${option.total_usd:,.0f} a month{at})")


def _keeps_published(option: Option) -> bool:
    """Weights at 8 bits or more (the published ones, or FP8 beside a BF16 release), every target met."""
    return option.precision not in QUANTISED and all(t.met for t in option.throughput.targets)


def _speed(option: Option) -> float:
    speed = option.throughput.decode_tokens_per_s_per_sequence
    return speed.value if speed is not None else 0.0


def published_ways_out(given: Workload, effective: Workload, arch: Architecture, data: CatalogData,
                       chosen: Option | None) -> list[str]:
    """A service on GPUs the user fixed whose pick fell back to 4- or 8-bit weights because nothing wider fits them
    (they named no precision): the plan at the weights the engine would have used with the count left open, on as
    many of the same GPU as it takes, and, where that takes more nodes or GPUs, the best-ranked plan on one node of
    another GPU of the same vendor (a bigger sibling: 8x H200 for DeepSeek-V3 beside 16x H100) when it costs at most
    COMPARABLE_COST times as much and is no slower beyond the estimate's error. Not for GPUs the user owns (their
    own power-only plan is not a rental to compare with) or a model released in 4-bit."""
    if (chosen is None or (effective.mode or "inference") != "inference" or given.precision is not None
            or not (given.gpu_count or given.nodes) or chosen.precision not in QUANTISED or not effective.gpu
            or owns_gpus(given) or rented_nowhere(given, data)):
        return []
    released = data.model(effective.model) if effective.model else None
    native = released.native_precision if released is not None else "bf16"
    if native not in ("bf16", "fp16", "fp8") or effective.precision in QUANTISED:
        return []
    free = {"gpu_count": None, "nodes": None}
    same = next((o for o in evaluate(effective.model_copy(update=free), arch, data,
                                     given=given.model_copy(update=free), ranking_only=True).options
                 if o.gpu == effective.gpu and _keeps_published(o)), None)
    if same is None:
        return []
    plans = [same]
    fixed_gpu = data.gpu(effective.gpu)
    # more of the same GPU always takes more of them: a bigger one may hold it in fewer, or on one node
    anywhere = {**free, "gpu": None, "gpu_memory_gb": None}
    other = next((o for o in evaluate(effective.model_copy(update=anywhere), arch, data,
                                      given=given.model_copy(update=anywhere), ranking_only=True).options
                  if o.gpu != same.gpu and o.cluster.nodes == 1 and _keeps_published(o)
                  and (o.cluster.gpus < same.cluster.gpus or same.cluster.nodes > 1)
                  and (fixed_gpu is None or (g := data.gpu(o.gpu)) is None or g.vendor == fixed_gpu.vendor)
                  and o.total_usd <= COMPARABLE_COST * same.total_usd
                  and _speed(o) >= (1 - SPEED_TARGET_MARGIN) * _speed(same)), None)
    if other is not None:
        plans.append(other)
    said = [_said(o, native, data, one_node=i > 0 and same.cluster.nodes > 1) for i, o in enumerate(plans)]
    name = released.name if released is not None else "the model"
    return [f"{PUBLISHED_NOTE}{name}, published in {native.upper()}, takes " + ", or ".join(said)]


__all__ = ["PUBLISHED_NOTE", "QUANTISED", "published_ways_out"]
