"""Numbers and units as written: "70b" -> 7e10, "8k" -> 8000 (8192 for a context length), "500 GB".

Kept apart from the rules so every phrase reads a number the same way, and the fold passes that
look at a neighbour's number ("1k prompt") agree with the rule that read it.
"""

from __future__ import annotations

import re

_QTY = {"k": 1e3, "m": 1e6, "b": 1e9, "t": 1e12}
_BINARY_QTY = {"k": 1024, "m": 1024**2}  # context lengths: "8k" is 8192
_DATA_UNIT_GB = {
    "kb": 1e-6, "kib": 1.024e-6, "mb": 1e-3, "mib": 1.048576e-3, "gb": 1.0, "gib": 1.073741824,
    "tb": 1e3, "tib": 1099.511627776, "pb": 1e6, "pib": 1125899.906842624,
    "kilobyte": 1e-6, "megabyte": 1e-3, "gigabyte": 1.0, "terabyte": 1e3, "petabyte": 1e6,
}


def _number(text: str) -> float:
    return float(re.sub(r"[^\d.]", "", text) or 0)


def _qty(text: str, binary: bool = False) -> float:
    """'70b' -> 7e10; '8k' -> 8000 (or 8192 for context lengths); a plain number stays itself."""
    text = text.strip()
    if text and text[-1] in _QTY:
        unit = text[-1]
        factor = _BINARY_QTY.get(unit, _QTY[unit]) if binary else _QTY[unit]
        return float(text[:-1]) * factor
    return float(text)


def _sig(value: float) -> float:
    """Nine significant digits: drops float noise (1 / 0.04 s) and keeps small rates (1 request a day)."""
    return float(f"{value:.9g}")
