"""A latency waived: "no latency requirement", "latency doesn't matter", "we don't care about latency".

Why its own module: read from the message's words after the grammar, as a vendor or provider constraint is. Without
it a service was still held to interactive chat's 20 tokens/s per user, which bought twice the GPUs a batch-speed
plan needs ("serve Llama 3.1 8B for 100 users, max throughput, no latency requirement": 2x L40S for $1,445 a month
where 1x does). Waived, the load is served as an offline one (`offline`): batched for throughput at the engine's
batch floor (JOB_TOKENS_PER_S_PER_PROMPT in engine.serving, stated by engine.defaults; memory and vLLM's max_num_seqs
fill each replica) and sized
at a load's average; the note says so and how to keep a floor. "max throughput" alone waives nothing: a chat can
want both. A per-user speed said in the same message wins.
"""

from __future__ import annotations

import re

from .reading import Reading

_SUBJECT = r"(?:latency|speed|ttft|response time|time to first token)"
_WAIVED = re.compile(
    r"\bno (?:real |hard |strict )?" + _SUBJECT + r" (?:requirements?|constraints?|targets?|slas?|slos?|needs?|limits?|"
    r"budget|concerns?)\b"
    r"|\b" + _SUBJECT + r" (?:doesnt|does not|dont|do not|wont|will not) matter\b"
    r"|\b" + _SUBJECT + r" (?:is not|isnt|is no|not) (?:important|a concern|an issue|critical|a priority|a requirement)\b"
    r"|\b(?:dont|do not|doesnt|does not) care (?:about|for) " + _SUBJECT + r"\b"
    r"|\b" + _SUBJECT + r"[- ](?:insensitive|tolerant|agnostic)\b|\bnot " + _SUBJECT + r"[- ]sensitive\b")
_TRAINING = ("full", "lora", "qlora", "pretrain")

WAIVED_NOTE = ("“{said}”: served for throughput, not chat: batched as an offline load is, at the batch floor per user "
               "(the assumptions give it) instead of chat's 20 tokens/s, each replica holding as many users as memory "
               "allows; say e.g. “10 tokens/s per user” to keep a floor")


def with_latency_waived(reading: Reading, text: str, current_mode: str | None) -> Reading:
    """`reading` with `offline` set when the message waives latency for a service, and a note saying so."""
    found = _WAIVED.search(text)
    mode = reading.updates.get("mode", current_mode)
    if (found is None or mode in _TRAINING or reading.updates.get("intent") == "train" or "offline" in reading.updates
            or "target_tokens_per_s_per_user" in reading.updates or "target_ttft_s" in reading.updates):
        return reading
    intent = "refine" if reading.intent in ("help", "gibberish") and not reading.updates else reading.intent
    return reading.model_copy(update={"updates": {**reading.updates, "offline": True}, "intent": intent,
                                      "notes": (*reading.notes, WAIVED_NOTE.format(said=found.group(0)))})
