"""Examples padded to a fixed length: "SFT on 1M examples averaging 300 tokens, we pad to 4096".

Why its own module: the pad length was dropped and the run sized on the 300M real tokens (1.5 h on 8 H100s). Padded
to 4,096, every example is 4,096 positions through the forward and backward pass, 1M x 4,096 = 4.1B, 13.7x the real
tokens: the run as they describe it takes ~13x longer. So the data becomes examples x padded length, the sequence
length the pad length, and a note says what packing (TRL `SFTConfig(packing=True)`, or `padding_free=True`) gives
back: the real tokens, the time and cost divided by the same factor.
"""

from __future__ import annotations

import re

from engine.models import TRAINING_MODES

from .reading import Reading

# "we pad to 4096", "padded to 4k", "pad everything to max length 2048", "padding to 8192 tokens"
_PAD = re.compile(r"\bpad(?:s|ded|ding)?(?: (?:all|every|each|everything|them|it|the|examples?|sequences?|samples?)){0,3}"
                  r" (?:up )?to (?:a |the )?(?:(?:max(?:imum)?|fixed) (?:length|len|seq(?:uence)? len(?:gth)?) (?:of )?)?"
                  r"(\d+(?:\.\d+)?)(k?)(?: tokens?)?\b")
PACKING = "TRL SFTConfig(packing=True), or padding_free=True"
PADDING_NOTE = ("“{said}”: sized as you run it, {examples:,} examples × {padded:,} padded positions = {positions} per "
                "epoch, {ratio:.1f}x the {real} real tokens; packing ({packing}) or padding per batch trains on the "
                "real tokens: about 1/{ratio:.1f} of the time and cost")


def _count(value: float) -> str:
    return f"{value / 1e9:.1f}B" if value >= 1e9 else f"{value / 1e6:,.0f}M" if value >= 1e6 else f"{value:,.0f}"


def padded_length(text: str) -> tuple[int, str] | None:
    """(4096, "pad to 4096"): the length every example is padded to, as said; None when none is."""
    found = _PAD.search((text or "").lower())
    if found is None:
        return None
    length = float(found.group(1)) * (1024 if found.group(2) else 1)
    return (int(length), found.group(0)) if length >= 16 else None


def with_padding(reading: Reading, text: str, current_mode: str | None) -> Reading:
    """`reading` with examples padded to a fixed length trained as examples x that length (the positions the GPUs
    compute), the sequence length the pad length, and a note on packing; unchanged when no pad length is said, the
    job does not train, or the examples are not shorter than it."""
    updates = dict(reading.updates)
    mode = updates.get("mode", current_mode)
    if not (mode in TRAINING_MODES or updates.get("intent") == "train"):
        return reading
    padded = padded_length(text)
    examples = int(updates.get("dataset_examples") or 0)
    real = float(updates.get("dataset_tokens") or 0.0)
    if padded is None or not examples or not real or examples * padded[0] <= real * 1.05:
        return reading
    length, said = padded
    positions = float(examples * length)
    updates.update(dataset_tokens=int(positions), seq_len=length)
    per_epoch = f"{examples:,} examples × "  # the examples' own note (parser.amounts) is restated by this one
    note = PADDING_NOTE.format(said=said, examples=examples, padded=length, positions=_count(positions),
                               ratio=positions / real, real=_count(real), packing=PACKING)
    at = next((i for i, n in enumerate(reading.notes) if n.startswith(per_epoch)), 0)  # in its place, else first
    notes = [n for n in reading.notes if not n.startswith(per_epoch)]
    notes.insert(at, note)
    return reading.model_copy(update={"updates": updates, "notes": tuple(notes)})
