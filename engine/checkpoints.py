"""Checkpoint sizes, keeping them in object storage, and moving data out of a cloud.

Questions such as "how big is a Llama 3.1 70B checkpoint?", "how much to store 10 checkpoints of a 70B full
fine-tune on S3?" or "egress cost to move 2TB from S3 to Lambda" ask for a size or a bill, not a training plan.
This module is the arithmetic behind those answers; it is pure (catalog record types in, `Figure`s out).

What a checkpoint holds depends on what it is for:
- weights only (a release, an export, what serving loads): params x bytes per weight, 2 in BF16/FP16. Llama 3.1 70B's
  safetensors are 70.55B x 2 = 141 GB (huggingface.co/meta-llama/Llama-3.1-70B). A quantised checkpoint quantises the
  linear layers and keeps embeddings, LM head and norms in BF16, as `engine.memory` sizes it for serving: FP8 1 byte,
  int4 half a byte plus its group scales. A model released quantised ("as published": `ModelRecord.native_precision`)
  is sized in that format: DeepSeek-V3's FP8 (huggingface.co/deepseek-ai/DeepSeek-V3, E4M3 with 128x128 block scales:
  about 670 GB, not the 1.34 TB of BF16); gpt-oss's MXFP4 and Kimi K2 Thinking's INT4 cover the routed experts only,
  the rest of those models stays BF16 (their model cards).
- a resumable training checkpoint under mixed-precision Adam: BF16 weights (2) + the FP32 master copy (4) + Adam's
  two FP32 moments (4 + 4) = 14 bytes per parameter. Gradients are not saved. This is what DeepSpeed ZeRO
  (deepspeed.ai/tutorials/zero: "fp32 master weights and optimizer states", Rajbhandari et al. 2020, arXiv:1910.02054
  section 3.1: 2 + 2 + 12 bytes/param in memory, the 2 of gradients not checkpointed), Megatron-LM's distributed
  optimizer and PyTorch Distributed Checkpoint (pytorch.org/docs/stable/distributed.checkpoint.html: model and optimizer
  state dicts) write. 8-bit Adam keeps each moment in 1 byte (bitsandbytes), SGD one momentum buffer: the per-parameter
  figures come from `engine.memory.optimizer_bytes_per_param`, the same table the memory estimate uses.
- a LoRA/QLoRA run: the adapter alone (rank r on each adapted matrix: r x (d_in + d_out) per matrix per layer, from
  the model's architecture, `engine.architecture.lora_trainable_params`), in FP32 because PEFT upcasts trainable
  adapter weights to FP32 by default (huggingface.co/docs/peft/package_reference/functional, `cast_adapter_dtype`),
  plus its optimizer state; the frozen base is not re-saved.

Sizes are decimal GB (10^9 bytes), as the rest of the product. Object storage is billed per GB-month at the provider's
catalog rate (`ProviderRecord.storage_usd_per_gb_month`); moving data out is the source provider's internet egress
tier table (`engine.egress.tiered_cost`), free inside one cloud (`engine.egress.same_cloud`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from catalog.records import ModelRecord, ProviderRecord
from engine.architecture import (
    LINEAR_MODULES,
    Architecture,
    architecture_for,
    architecture_like,
    lora_trainable_params,
    reference_shape,
)
from engine.egress import same_cloud, tier_table_text, tiered_cost
from engine.memory import INT4_GROUP_BYTES, optimizer_bytes_per_param
from engine.models import Figure
from engine.units import GB, bytes_per_element

CheckpointKind = Literal["weights", "training", "adapter"]

ADAPTER_WEIGHT_BYTES = 4.0  # FP32: PEFT's default for trainable adapter weights (autocast_adapter_dtype=True)
DEFAULT_LORA_RANK = 16  # as engine.defaults assumes for a LoRA plan
# 4-bit formats: half a byte per weight plus the scales per group (GPTQ/AWQ: an FP16 scale and zero per 128 weights;
# MXFP4: one 8-bit scale per 32, OCP Microscaling spec)
FOUR_BIT_SCALE_BYTES = {"int4": INT4_GROUP_BYTES, "nf4": INT4_GROUP_BYTES, "mxfp4": 1 / 32}
_LABELS = {"mxfp4": "MXFP4", "int4": "INT4", "nf4": "NF4"}
KEEP_LAST = 3  # resumable checkpoints a run usually keeps (a rolling window: save_total_limit, keep_last_n)


class CheckpointSize(BaseModel):
    """One checkpoint: the size asked about (`gb`), what it is made of (`parts`, GB) and its weights alone."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    kind: CheckpointKind
    model_name: str  # "Llama 3.1 70B", or "70B" with no model named
    model_params: int  # the model's parameters (all experts of an MoE)
    params: int  # the parameters saved: the model's, or the adapter's
    bytes_per_param: float  # of the checkpoint asked about
    gb: Figure  # the checkpoint asked about
    weights_gb: Figure  # weights alone: the model's (weights, training) or the adapter's
    parts: dict[str, float]  # GB per part, in the order a reader adds them
    precision: str  # of the weights
    lora_rank: int | None = None
    optimizer: str | None = None
    notes: tuple[str, ...] = ()


def architecture_of(model: ModelRecord | None, params_b: float | None, models: Sequence[ModelRecord] = ()) -> Architecture:
    """The model's shape; a bare size borrows the closest dense catalog model's (`reference_shape`), as a plan does."""
    if model is None and params_b:
        reference = reference_shape(params_b, tuple(models))
        if reference is not None:
            return architecture_like(reference, params_b)
    return architecture_for(model, params_b)


def checkpoint_size(
    arch: Architecture,
    kind: CheckpointKind,
    *,
    precision: str | None = None,
    optimizer: str | None = None,
    lora_rank: int | None = None,
    lora_targets: Sequence[str] | None = None,
    quantized_base: bool = False,
) -> CheckpointSize:
    """The size of one checkpoint of `kind` for the model shaped `arch`.

    `precision` is the weights' (BF16 when None). `optimizer` is the training run's ("adamw" when None; QLoRA's paged
    8-bit AdamW when `quantized_base` and None). `lora_rank`/`lora_targets`: the adapter's, rank 16 on every linear
    projection when None (what `engine.defaults` plans)."""
    name = arch.name
    n = int(arch.total_params)
    notes = tuple(arch.notes)
    if kind == "adapter":
        rank = int(lora_rank or DEFAULT_LORA_RANK)
        targets = tuple(lora_targets) if lora_targets else LINEAR_MODULES
        adapter = lora_trainable_params(arch, rank, targets)
        opt = optimizer or ("paged_adamw_8bit" if quantized_base else "adamw")
        moments = optimizer_bytes_per_param("lora", "bf16", opt)["optimizer"] - 4.0  # no master copy: the adapter is FP32
        per_param = ADAPTER_WEIGHT_BYTES + moments
        weights = adapter * ADAPTER_WEIGHT_BYTES / GB
        parts = {"adapter weights (FP32)": weights, _optimizer_name(opt): adapter * moments / GB}
        formula = "adapter params x (4 B FP32 adapter + optimizer bytes); adapter params = sum over layers and adapted " \
                  "matrices of rank x (d_in + d_out)"
        inputs = {"adapter_params": adapter, "rank": rank, "targets": list(targets), "layers": arch.layers,
                  "bytes_per_param": per_param, "optimizer": opt}
        return CheckpointSize(
            kind=kind, model_name=name, model_params=n, params=adapter, bytes_per_param=per_param,
            gb=Figure(value=adapter * per_param / GB, unit="GB", formula=formula, inputs=inputs, notes=notes),
            weights_gb=Figure(value=weights, unit="GB", formula="adapter params x 4 B (FP32)",
                              inputs={"adapter_params": adapter, "bytes_per_param": ADAPTER_WEIGHT_BYTES}),
            parts=parts, precision="fp32", lora_rank=rank, optimizer=opt, notes=notes)
    if kind == "training":
        opt = optimizer or "adamw"
        table = optimizer_bytes_per_param("full", precision if precision == "fp32" else "bf16", opt)
        weight_bytes, state_bytes = table["weights"], table["optimizer"]
        master = 0.0 if precision == "fp32" else 4.0
        moments = state_bytes - master
        per_param = weight_bytes + state_bytes
        parts = {f"{'FP32' if precision == 'fp32' else 'BF16'} weights": n * weight_bytes / GB}
        if master:
            parts["FP32 master copy"] = n * master / GB
        parts[_optimizer_name(opt)] = n * moments / GB
        return CheckpointSize(
            kind=kind, model_name=name, model_params=n, params=n, bytes_per_param=per_param,
            gb=Figure(value=n * per_param / GB, unit="GB",
                      formula="params x (weights + FP32 master copy + optimizer moments) bytes; gradients are not saved",
                      inputs={"params": n, "weights_bytes": weight_bytes, "master_bytes": master,
                              "moment_bytes": moments, "bytes_per_param": per_param, "optimizer": opt}, notes=notes),
            weights_gb=_weights(n, "bf16" if precision != "fp32" else "fp32"),
            parts=parts, precision="fp32" if precision == "fp32" else "bf16", optimizer=opt, notes=notes)
    dtype = precision or "bf16"
    only, parts = published_weights(arch, dtype)
    return CheckpointSize(kind=kind, model_name=name, model_params=n, params=n, bytes_per_param=only.value * GB / n,
                          gb=only.model_copy(update={"notes": notes}), weights_gb=only,
                          parts=parts, precision=dtype, notes=notes)


def published_weights(arch: Architecture, precision: str) -> tuple[Figure, dict[str, float]]:
    """Weights alone in `precision`, and their parts (GB). 16- and 32-bit: every parameter at that width. FP8/INT8:
    the linear layers at 1 byte, embeddings, LM head and norms in BF16 (what FP8 checkpoints and `engine.memory`
    keep). 4-bit: half a byte plus the group scales; on an MoE only the routed experts, as MXFP4 (gpt-oss) and
    INT4 (Kimi K2 Thinking) releases quantise them, attention and shared layers staying BF16."""
    n = int(arch.total_params)
    if precision not in ("fp8", "int8", *FOUR_BIT_SCALE_BYTES):
        return _weights(n, precision), {f"{precision.upper()} weights": n * bytes_per_element(precision) / GB}
    if precision in FOUR_BIT_SCALE_BYTES:
        per = 0.5 + FOUR_BIT_SCALE_BYTES[precision]
        quantised = int(arch.routed_params) if arch.is_moe else int(arch.linear_params)
        what = "routed experts" if arch.is_moe else "linear layers"
        label = f"{_LABELS[precision]} {what}"
    else:
        per = 1.0
        quantised = int(arch.linear_params)
        label = f"{precision.upper()} linear layers"
    rest = n - quantised
    parts = {label: quantised * per / GB,
             ("BF16 attention, shared layers, embeddings and norms" if precision in FOUR_BIT_SCALE_BYTES and arch.is_moe
              else "BF16 embeddings and norms"): rest * 2 / GB}
    fig = Figure(value=(quantised * per + rest * 2) / GB, unit="GB",
                 formula="quantised params x bytes per weight (with scales) + the rest x 2 B (BF16)",
                 inputs={"params": n, "quantised_params": quantised, "bf16_params": rest, "precision": precision,
                         "bytes_per_quantised_param": per})
    return fig, parts


def resumable_equivalent(size: CheckpointSize, arch: Architecture) -> CheckpointSize:
    """The resumable training checkpoint of the same model (for a weights-only answer's second line): the weights
    in the precision they were sized in (BF16, or FP8 as said or as published; BF16 for 4-bit weights, which no
    trainer resumes from), plus the FP32 master copy and Adam's two FP32 moments. The parts add up to the total (an "in FP8" reply once summed 70.6 GB of FP8 weights with the
    master copy and moments into the BF16 total, 988 GB for 917)."""
    if size.kind == "weights" and size.precision == "fp32":  # FP32 weights are their own master copy
        return checkpoint_size(arch, "training", precision="fp32", optimizer=size.optimizer)
    training = checkpoint_size(arch, "training", optimizer=size.optimizer)
    if size.kind != "weights" or size.precision not in ("fp8", "int8"):
        return training  # 4-bit weights are not trained from: the resume keeps BF16 ones (named so by the answer)
    weights = size.gb.value
    rest = {k: v for k, v in training.parts.items() if not k.endswith(" weights")}
    total = weights + sum(rest.values())
    n = training.params
    return training.model_copy(update={
        "gb": Figure(value=total, unit="GB",
                     formula="the weights as sized + params x (FP32 master copy + optimizer moments) bytes",
                     inputs={"weights_gb": weights, "params": n, "master_bytes": 4.0,
                             "moment_bytes": training.gb.inputs.get("moment_bytes"), "precision": size.precision}),
        "weights_gb": size.weights_gb, "bytes_per_param": total * GB / n,
        "parts": {f"{_LABELS.get(size.precision, size.precision.upper())} weights": weights, **rest},
        "precision": size.precision})


def storage_cost(size_gb: float, count: float, months: float, provider: ProviderRecord) -> Figure:
    """USD to keep `count` objects of `size_gb` for `months` at the provider's object-storage rate.

    One rate per provider (the catalog's first tier: S3 Standard's first 50 TB/month); requests and retrieval fees are
    not counted, they are cents next to a checkpoint's GB-months."""
    size, n, period = (_positive(size_gb), _positive(count), _positive(months))
    rate = provider.storage_usd_per_gb_month
    return Figure(value=size * n * period * rate, unit="USD",
                  formula="size_gb x count x months x usd_per_gb_month",
                  inputs={"size_gb": size, "count": n, "months": period, "usd_per_gb_month": rate,
                          "provider": provider.id, "product": provider.storage_product,
                          "source": provider.source, "observed_on": provider.observed_on})


def transfer_cost(volume_gb: float, source: ProviderRecord, destination: ProviderRecord | None) -> Figure:
    """USD to move `volume_gb` out of `source` in one month: its internet egress tiers, or nothing when the
    destination is in the same cloud (same region; cross-region transfer is not modelled). `destination` None is
    the internet (a download to your own machines, another provider)."""
    volume = _positive(volume_gb)
    if source.cloud and same_cloud(source.cloud, destination):
        assert destination is not None
        return Figure(value=0.0, unit="USD", formula="0: source and destination in the same cloud",
                      inputs={"volume_gb": volume, "source": source.id, "destination": destination.id},
                      notes=("free within one region; moving between regions of the same cloud is billed and not "
                             "counted here",))
    fig = tiered_cost(volume, source.egress_tiers)
    return fig.model_copy(update={"inputs": {**fig.inputs, "source": source.id, "tier_table": tier_table_text(source.egress_tiers),
                                             "source_url": source.source, "observed_on": source.observed_on}})


def streamed_transfer_cost(volume_gb: float, runs: float, source: ProviderRecord,
                           destination: ProviderRecord | None) -> Figure:
    """USD a month when each of `runs` runs a month reads `volume_gb` from `source` again (streamed, not cached): the
    tiers walked over volume x runs, since a cloud's egress tiers count one month's total (20 TB a month reaches
    AWS's $0.085 tier where one 2 TB copy does not). Same cloud: $0, as for one copy."""
    reads = _positive(runs) or 1.0
    fig = transfer_cost(_positive(volume_gb) * reads, source, destination)
    return fig.model_copy(update={"formula": f"{fig.formula} (volume_gb x runs a month)",
                                  "inputs": {**fig.inputs, "runs": reads, "volume_gb_each": _positive(volume_gb)}})


def transfer_time(volume_gb: float, link_gbps: float, efficiency: float = 1.0) -> Figure:
    """Seconds to move `volume_gb` (decimal GB) over a `link_gbps` link (gigabits a second, as links are sold) at
    `efficiency` of its line rate: bytes x 8 / bits a second. 1.0 is the floor a transfer cannot beat; TCP/IP and
    TLS framing take a few percent, one stream over a long path often far more, which the answer says."""
    volume, rate = _positive(volume_gb), _positive(link_gbps)
    share = min(1.0, _positive(efficiency)) or 1.0
    seconds = volume * 8 / (rate * share) if rate else 0.0
    return Figure(value=seconds, unit="s", formula="volume_gb x 8 / (link_gbps x efficiency)",
                  inputs={"volume_gb": volume, "link_gbps": rate, "efficiency": share})


def kept_window(size: CheckpointSize, count: int, keep: int = KEEP_LAST) -> Figure | None:
    """GB when only the last `keep` resumable checkpoints are kept and the rest as weights alone (the usual practice:
    a run resumes from its latest checkpoint; older ones are kept to evaluate or release, which needs weights only).
    None when there is nothing to trim (not a training checkpoint, or `count` <= `keep`)."""
    if size.kind != "training" or count <= keep:
        return None
    resumable, weights = size.gb.value, size.weights_gb.value
    return Figure(value=keep * resumable + (count - keep) * weights, unit="GB",
                  formula="keep x resumable_gb + (count - keep) x weights_gb",
                  inputs={"keep": keep, "count": count, "resumable_gb": resumable, "weights_gb": weights})


def _weights(params: int, precision: str) -> Figure:
    per = bytes_per_element(precision)
    return Figure(value=params * per / GB, unit="GB", formula="params x bytes per weight",
                  inputs={"params": params, "precision": precision, "bytes_per_param": per})


def _optimizer_name(optimizer: str) -> str:
    return {"adamw": "Adam m and v (FP32)", "adamw_8bit": "8-bit Adam m and v", "paged_adamw_8bit": "8-bit Adam m and v",
            "sgd": "SGD momentum (FP32)"}.get(optimizer, optimizer)


def _positive(value: float) -> float:
    return float(value) if value and math.isfinite(value) and value > 0 else 0.0


__all__ = [
    "ADAPTER_WEIGHT_BYTES", "DEFAULT_LORA_RANK", "FOUR_BIT_SCALE_BYTES", "KEEP_LAST", "CheckpointKind", "CheckpointSize", "architecture_of",
    "checkpoint_size", "kept_window", "published_weights", "resumable_equivalent", "storage_cost", "streamed_transfer_cost",
    "transfer_cost",
    "transfer_time",
]
