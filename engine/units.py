"""Unit constants and the bytes-per-element table shared by the physics modules.

The product prints decimal GB (10^9 bytes) because that is what vendors print on the box ("80GB")
and what users type ("500GB"). GiB (2^30) exists only to reproduce sources that divide by 1024^3
(for memory estimators that print GiB) and to read measurements reported in GiB (torchtune, vLLM).
"""

from __future__ import annotations

import math

from engine.models import Figure

GB = 1_000_000_000  # decimal gigabyte, the product's unit
GIB = 1024**3  # binary gibibyte, only for sources that use it
SECONDS_PER_HOUR = 3600
HOURS_PER_YEAR = 365 * 24
HOURS_PER_MONTH = HOURS_PER_YEAR / 12  # 730: an always-on month, and the wall clock a month of runs must fit in

# Bytes per weight element by storage precision. Quantised formats add per-block constants on top
# (see engine.quantization / engine.memory): this table is the nominal payload only.
BYTES_PER_ELEMENT: dict[str, float] = {
    "fp32": 4.0,
    "bf16": 2.0,
    "fp16": 2.0,
    "fp8": 1.0,
    "int8": 1.0,
    "int4": 0.5,
    "nf4": 0.5,
}


def bytes_per_element(precision: str | None) -> float:
    """Nominal bytes per element; unknown/None falls back to 16-bit, the common serving/training dtype."""
    return BYTES_PER_ELEMENT.get(precision or "bf16", 2.0)


def to_gb(n_bytes: float) -> float:
    return n_bytes / GB


def to_gib(n_bytes: float) -> float:
    return n_bytes / GIB


def finite(x: float, fallback: float = 0.0) -> float:
    """Guard against NaN/inf leaking into a Figure: a wrong number is worse than none."""
    return x if math.isfinite(x) else fallback


def figure(
    value: float,
    unit: str,
    formula: str,
    inputs: dict | None = None,
    notes: tuple[str, ...] | list[str] = (),
    digits: int = 3,
) -> Figure:
    """Build a Figure with a rounded, finite value (rounding only the value, never the inputs)."""
    return Figure(
        value=round(finite(float(value)), digits),
        unit=unit,
        formula=formula,
        inputs=dict(inputs or {}),
        notes=tuple(notes),
    )
