"""Code completion for a team: "serve qwen2.5-coder 32b for 40 devs autocomplete, TTFT < 300ms".

Completion is not chat. Each developer's editor sends a fill-in-the-middle request every few seconds while they type,
with the code around the cursor as a long prefix (a couple of thousand tokens) and a short completion (tens of
tokens): a request-rate load bound by time to first token. Read as chat, 40 developers were sized as 4 users at once
with 1,024-token prompts and 256-token replies, on 2 L40s whose first token was 3.9% inside the target unqueued; at
~10 requests/s of 2k-token prefixes the same engine needs about four times the hardware.

The rate per developer is an assumption (no vendor publishes one for its plugin), said in a note and asked back.
"""

from __future__ import annotations

import re

from .reading import Reading

_COMPLETION = re.compile(r"\b(?:auto-?complet(?:e|es|ion|ions)|(?:code|tab|inline|editor|ide) complet(?:e|ion|ions)|"
                         r"fim|fill[- ]in[- ](?:the[- ])?middle|copilot[- ]style|inline (?:code )?suggestions)\b")
_TRAINING = ("full", "lora", "qlora", "pretrain")

COMPLETION_CUE = "code_completion"  # the request rate was assumed from a headcount: asked back (parser.questions)
# requests per developer per second at the busy hour: one completion every ~4 s of typing (editor plugins debounce
# keystrokes and send on a pause). An assumption, not a published figure: the question asks for the real rate
COMPLETION_REQUESTS_PER_DEV_S = 0.25
COMPLETION_PROMPT_TOKENS = 2048  # the code before and after the cursor a plugin sends (its context budget)
COMPLETION_OUTPUT_TOKENS = 64  # a line or a short block


def completion_said(text: str) -> bool:
    return _COMPLETION.search(text) is not None


def with_completion_load(reading: Reading, text: str, current_mode: str | None) -> Reading:
    """`reading` with a code-completion team's headcount read as a request rate, the prefix and completion lengths
    assumed where unsaid, and a note saying each figure. A rate said ("12 requests/s") is kept as said."""
    found = _COMPLETION.search(text)
    updates = dict(reading.updates)
    mode = updates.get("mode", current_mode)
    people = updates.get("population") or updates.get("concurrency")
    if (found is None or mode in _TRAINING or updates.get("intent") == "train" or not people
            or updates.get("requests_per_s") or updates.get("load_tokens_per_s") or updates.get("target_tokens_per_s")):
        return reading
    people = int(people)
    rate = people * COMPLETION_REQUESTS_PER_DEV_S
    updates.pop("population", None)
    updates.pop("concurrency", None)
    updates["requests_per_s"] = rate
    updates.setdefault("mode", "inference")
    updates.setdefault("intent", "serve")
    prompt = int(updates.setdefault("input_tokens", COMPLETION_PROMPT_TOKENS))
    out = int(updates.setdefault("output_tokens", COMPLETION_OUTPUT_TOKENS))
    # the headcount's own note ("read “40 devs” as 40 people, …, sized for 10% at once") described the chat reading
    notes = [n for n in reading.notes if f"as {people:,} people" not in n and f"as {people:,} at the same time" not in n]
    notes.append(
        f"read “{found.group(0)}” for {people:,} developers as code completion: each active developer's editor sends a "
        f"request every few seconds, so it is sized as a request rate, {COMPLETION_REQUESTS_PER_DEV_S:g} requests/s "
        f"each at the busy hour ({rate:g} requests/s, an assumption), with {prompt:,}-token prefixes and {out:,}-token "
        "completions; it is bound by the time to first token. Most teams serve completion with a 1.5-7B code model "
        "(e.g. Qwen2.5-Coder 1.5B or 7B), a fraction of a 32B's cost")
    return reading.model_copy(update={"updates": updates, "notes": tuple(notes),
                                      "cues": reading.cues | {COMPLETION_CUE}})
