"""Precision as a hardware decision: weight (and KV) footprint per precision, which one fits, and
what each costs in accuracy and in hardware support.

Weights here are params x nominal bytes, the usual back-of-envelope table (70B: 280/140/70/35 GB), plus
the quantisation constants a real INT4 checkpoint carries (GPTQ/AWQ group-128 scales), stated.
"""

from __future__ import annotations

import math
from typing import Any

from catalog.records import GpuRecord
from engine.architecture import Architecture
from engine.memory import DEFAULT_HEADROOM, DEFAULT_OVERHEAD_GB, INT4_GROUP_BYTES, kv_cache_bytes
from engine.units import GB, bytes_per_element

PRECISIONS = ("fp32", "bf16", "fp8", "int8", "int4")

ACCURACY = {
    "fp32": "reference precision; no loss, twice the memory of BF16",
    "bf16": "the standard for training and serving: FP32's exponent range at half the memory; no meaningful loss",
    "fp8": "near-BF16 quality with per-tensor scaling (Transformer Engine / FP8 checkpoints); validate on your evals",
    "int8": "weight-only INT8 generally holds up for inference with minor accuracy degradation",
    "int4": "INT4 (GPTQ/AWQ/GGUF) shows measurable loss on numerically exacting tasks (financial calculations, "
            "tightly constrained structured output, legal phrasing); usually acceptable for instruction following",
}
MIN_COMPUTE_CAPABILITY = {"fp8": 8.9, "int4": 7.5}
HARDWARE = {
    "fp8": "FP8 tensor cores need Ada or Hopper+ (compute capability >= 8.9)",
    "int4": "bitsandbytes 4-bit needs compute capability >= 7.5; GPTQ/AWQ kernels are fastest on Ampere+",
    "bf16": "BF16 tensor cores need Ampere+ (>= 8.0); older cards (T4, V100) emulate it slowly - use FP16",
}
FLASH_ATTENTION_MIN_CC = 8.0  # FlashAttention-2 (A100, H100, RTX 30xx/40xx)


def compute_capability(gpu: GpuRecord | None) -> float | None:
    """NVIDIA compute capability as a number; None for AMD (gfx ids) or unknown."""
    try:
        return float(gpu.compute_capability) if gpu and gpu.compute_capability else None
    except ValueError:
        return None


def supported(gpu: GpuRecord | None, precision: str) -> tuple[bool, str]:
    cc = compute_capability(gpu)
    need = MIN_COMPUTE_CAPABILITY.get(precision)
    if precision == "bf16" and gpu is not None and not gpu.bf16_dense_tflops:
        return True, HARDWARE["bf16"]
    if need is None or gpu is None:
        return True, HARDWARE.get(precision, "")
    if cc is None:
        ok = precision != "fp8" or bool(gpu.fp8_dense_tflops)
        return ok, f"{gpu.name}: not an NVIDIA compute-capability part; check vendor kernel support"
    return cc >= need, HARDWARE[precision] + (f"; {gpu.name} is {cc:g}" if cc < need else "")


def _weights_bytes(arch: Architecture, precision: str) -> tuple[float, float]:
    nominal = arch.total_params * bytes_per_element(precision)
    const = arch.linear_params * INT4_GROUP_BYTES if precision == "int4" else 0.0
    return nominal, const


def precision_table(arch: Architecture, *, seq_len: int | None = None, sequences: int = 1, gpu: GpuRecord | None = None,
                    headroom: float | None = None, precisions: tuple[str, ...] = PRECISIONS) -> list[dict[str, Any]]:
    """One row per precision: weights GB (params x bytes), KV cache GB at seq_len x sequences (16-bit
    KV, 8-bit under FP8), total with CUDA overhead, and - for a GPU - how many are needed and caveats."""
    rows = []
    usable = gpu.memory_gb * (1 - (DEFAULT_HEADROOM if headroom is None else headroom)) if gpu else None
    for p in precisions:
        nominal, const = _weights_bytes(arch, p)
        kv = kv_cache_bytes(arch, seq_len or 0, sequences, 1.0 if p == "fp8" else 2.0) if seq_len else 0
        total = nominal + const + kv + DEFAULT_OVERHEAD_GB * GB
        ok, hw = supported(gpu, p)
        row: dict[str, Any] = {
            "precision": p, "bytes_per_param": bytes_per_element(p), "weights_gb": round(nominal / GB, 2),
            "quant_constants_gb": round(const / GB, 2), "kv_cache_gb": round(kv / GB, 2),
            "total_gb": round(total / GB, 2), "accuracy": ACCURACY[p], "hardware": hw, "supported": ok,
            "formula": "params x bytes_per_param (+ group scales) + KV(seq_len, sequences) + overhead",
        }
        if usable:
            row["gpus_needed"] = max(1, math.ceil(total / GB / usable))
            row["fits_one_gpu"] = total / GB <= usable
        rows.append(row)
    return rows


def cheapest_fitting_precision(arch: Architecture, gpu: GpuRecord, gpus: int = 1, *, seq_len: int | None = None,
                               sequences: int = 1, headroom: float | None = None) -> dict[str, Any] | None:
    """The least lossy precision (fp32 > bf16 > fp8 > int8 > int4) the GPU supports whose footprint fits
    `gpus` GPUs (weights split evenly); None when even INT4 does not fit."""
    for row in precision_table(arch, seq_len=seq_len, sequences=sequences, gpu=gpu, headroom=headroom,
                               precisions=("bf16", "fp8", "int8", "int4")):
        if row["supported"] and row.get("gpus_needed", 1) <= max(1, gpus):
            return row
    return None
