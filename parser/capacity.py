"""A serving question that asks for the load rather than giving it: "how many users can 8 H100s serve Llama 3.1 70B
to?", "max concurrent users on 4 MI300X", "what's the most users we can serve". The answer is the users the GPUs hold
at the speed floor, not a question back about how many users there are."""

from __future__ import annotations

import re

_CAPACITY = re.compile(
    r"\bhow many (?:concurrent |simultaneous |parallel |active )?(?:users|people|requests|streams|sessions|customers|"
    r"chats|conversations|seats)\b|\bmax(?:imum)? (?:number of )?(?:concurrent |simultaneous |parallel )?(?:users|"
    r"requests|streams|sessions)\b|\bmost (?:concurrent )?users\b|\bas many users as\b|\bhow much (?:load|traffic)\b",
    re.IGNORECASE)


def capacity_asked(text: str) -> bool:
    """True when the message asks how many users (or requests) the GPUs can serve."""
    return bool(_CAPACITY.search(text or ""))
