"""A message that corrects itself: "serve Qwen2.5 VL 7B... no, serve qwen2.5 72b awq on 2x L40S".

Read whole, both halves were sized into one workload: the 72B planned, then notes that "qwen2.5" was ambiguous, that
"vl 7b" was unknown and that the user "said 7B", each contradicting the plan above them. What follows the correction is
what the user means; the part before it is dropped, and the answer says so.
"""

from __future__ import annotations

import re

# an ellipsis, then the word that takes it back ("no", "actually", "wait", "sorry", "I mean", "scratch that"); not a dash
# or a comma: "serve 70b for 20 users - no spot instances" keeps its first half
_CORRECTION = re.compile(r"(?:\.{3}|…)\s*(?:no|nope|actually|wait|sorry|i mean|scratch that)\b[,:;!.]*\s*"
                         r"(?:(?:i mean|actually|make (?:it|that))\b[,:]?\s*)?", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z0-9]+")


def take_correction(text: str) -> tuple[str, str]:
    """(what the message means, the part dropped): the text after its last self-correction, when that says at least
    two words; else the message as it was and ""."""
    found = list(_CORRECTION.finditer(text))
    last = found[-1] if found else None
    if last is None or len(_WORD.findall(text[last.end():])) < 2:
        return text, ""
    return text[last.end():], text[:last.start()].strip()


def correction_note(dropped: str) -> str:
    shown = dropped if len(dropped) <= 60 else dropped[:57].rstrip() + "…"
    return f"read only what follows your correction: “{shown}” is left out"
