"""A GPU vendor said as a constraint: "NVIDIA only", "no AMD", "we're a CUDA shop", "AMD only".

Why its own module: it is read from the message's words after the grammar (no field of its own in the grammar), and
it narrows the plans rather than naming a GPU: a plan on MI300X is useless to a team whose kernels are CUDA-only.
"""

from __future__ import annotations

import re

from .reading import Reading

_NVIDIA_ONLY = re.compile(
    r"\b(?:nvidia|cuda)(?: gpus?| cards?| hardware)? only\b|\bonly (?:on )?(?:nvidia|cuda)\b|\bno amd\b"
    r"|\b(?:not|without|avoid|exclude|excluding|skip) (?:on )?(?:amd|mi300x?|mi325x?|mi355x?|rocm)\b"
    r"|\bcuda(?:-| )only\b|\bcuda shop\b")
_AMD_ONLY = re.compile(r"\b(?:amd|rocm)(?: gpus?| cards?)? only\b|\bonly (?:on )?amd\b|\bno nvidia\b")

VENDOR_NOTE = "planned on {name} GPUs only, as asked"


def with_vendor(reading: Reading, text: str) -> Reading:
    """`reading` with `gpu_vendor` set when the message restricts the vendor (and a note saying so)."""
    vendor = "nvidia" if _NVIDIA_ONLY.search(text) else "amd" if _AMD_ONLY.search(text) else None
    if vendor is None or "gpu_vendor" in reading.updates:
        return reading
    name = "NVIDIA" if vendor == "nvidia" else "AMD"
    intent = "refine" if reading.intent in ("help", "gibberish") and not reading.updates else reading.intent
    return reading.model_copy(update={"updates": {**reading.updates, "gpu_vendor": vendor}, "intent": intent,
                                      "notes": (*reading.notes, VENDOR_NOTE.format(name=name))})
