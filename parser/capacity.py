"""A serving question that asks for the load rather than giving it: "how many users can 8 H100s serve Llama 3.1 70B
to?", "max concurrent users on 4 MI300X", "what's the most users we can serve". The answer is the users the GPUs hold
at the speed floor, not a question back about how many users there are."""

from __future__ import annotations

import re

CAPACITY_CUE = "capacity"  # a thread's cue (`Conversation.cues`): its question is what the GPUs hold, until a load is said
RATE_CUE = "capacity_rate"  # ... asked as a request rate
VERSUS_CUE = "versus:"  # a thread comparing two GPUs ("is A100 or H100 cheaper?"): the second GPU as said, after it
VERSUS_SEP = " | "  # between the GPUs a thread compares with the first, three or more ("H100 vs H200 vs B200")

_CAPACITY = re.compile(
    r"\bhow many (?:concurrent |simultaneous |parallel |active )?(?:users|people|requests|streams|sessions|customers|"
    r"chats|conversations|seats|qps|rps)\b|\bmax(?:imum)? (?:number of )?(?:concurrent |simultaneous |parallel )?"
    r"(?:users|requests|streams|sessions|qps|rps)\b|\bmost (?:concurrent )?users\b|\bas many users as\b|\bhow much (?:load|traffic)\b"
    r"|\b(?:max(?:imum)?|peak|top|total|aggregate) throughput\b|\b(?:what|how much) (?:total )?throughput\b"
    r"|\bhow many (?:output )?tokens (?:per second|a second|/ ?s) (?:can|could|do|does|will|would)\b",
    re.IGNORECASE)


def capacity_asked(text: str) -> bool:
    """True when the message asks how many users (or requests) the GPUs can serve."""
    return bool(_CAPACITY.search(text or ""))


_RATE = re.compile(r"\brequests? ?(?:per|an?|/) ?s(?:ec(?:ond)?)?\b|\b(?:rps|qps|req/s)\b|\bqueries (?:per|a) second\b",
                   re.IGNORECASE)


def request_rate_asked(text: str) -> bool:
    """A capacity question in requests per second ("how many requests per second can one H100 handle?"): answered
    as a rate as well as in users."""
    return capacity_asked(text) and bool(_RATE.search(text or ""))


# "what's the max context for Llama 3.1 70B on 2x H100?", "how long a context fits", "longest context we can run"
_MAX_CONTEXT = re.compile(
    r"\b(?:max(?:imum)?|longest|largest|biggest|most)\s+(?:\w+\s+)?context(?:\s+(?:length|window|size))?\b"
    r"|\bhow (?:much|long(?: a)?|big(?: a)?|many tokens of)\s+context\b"
    r"|\bcontext (?:length|window) (?:can|could|will|would|does|do) (?:i|we|it|they)\b", re.IGNORECASE)


def max_context_asked(text: str) -> bool:
    """The longest context the GPUs hold for one model: its KV cache room after the weights, not a plan for users."""
    return bool(_MAX_CONTEXT.search(text or ""))
