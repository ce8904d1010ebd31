"""Render docs/things-you-can-say.md from corpus.yaml: `python tests/parser/render_docs.py`.

test_docs.py fails when the committed page and this rendering drift apart, so the page can only
show phrasings the parser is tested to understand.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus.yaml"
DOC = HERE.parent.parent / "docs" / "things-you-can-say.md"

HEADER = """# Things you can say

<!-- Generated from tests/parser/corpus.yaml by tests/parser/render_docs.py; do not edit by hand. -->

Describe a GPU job in your own words, in Slack or with `gpu-advisor ask`. The advisor picks out
the mode, model, data, schedule, hardware and knobs below, ignores everything else (mentions,
links, emoji, filler words), asks at most two questions when something that changes the answer
is missing, and states what it assumed for the rest. In a thread, follow-ups change the same
scenario: the reply lists each changed field as old → new, and `undo` goes back one step. A follow-up that is only
a number or a duration ("what about 2 s?", "make it 50k") changes the one target the thread set (an end-to-end
latency is split again as the first was); with several the number could be, the reply asks which. A budget with no
model ("what's the biggest model we can fine-tune for $1000 on 100M tokens?") is answered with a ladder of open
models; a fine-tune's token count is asked until it is said.

Model and GPU names go through the catalog's aliases: a family name ("A100") means the
catalog's default member and the reply says which one; an unknown name gets suggestions, and a
size in it ("gpt-7 13B") is still used; without one, the advisor asks for the model or its size.
"Fine-tune", "train", "adapt" or "SFT" without a method is training (`intent` = train): the
advisor asks QLoRA, LoRA or full and meanwhile plans the cheapest method that fits; a method
said outright sets `mode` too. "DPO", "preference tuning" or "preference pairs" set `objective` = dpo (a full
fine-tune unless LoRA/QLoRA is said; the estimate counts the frozen reference model and two sequences per pair);
"ORPO" and "SimPO" set `objective` = orpo (reference-free). "Serve", "deploy", "host", "endpoint" are `intent` = serve.
"16 users" or "8 sessions" is how many are served at the same time (`concurrency`).
"30 tokens/s per user" or "50 ms per token" is what one user must see; "3000 tokens/s" alone is
the total. A request rate is kept as requests per second, and with a response length it also
gives the total tokens/s. "How much is an H100 on AWS?" answers with the catalog's prices; "in Europe",
"in eu-west-1" or "in us-east" keeps the rows there, "is $2.10/hr a good price for an H100?" places the quote
among them, and "per month" or "for 3 months" adds the month's or the period's total.
Commas, semicolons and line breaks end a phrase, so "on H100s, 1B tokens" is a GPU and a token
count. Numbers may be written "1,000,000", "2.5e9" or "10^30"; absurd ones are read as written
and the estimate says why it cannot answer. Sizes are decimal GB (GiB are converted, ×1.073741824).
"On <cloud>" means where the GPUs run (`provider`); "in S3", "GCS", "Azure blob", "on-prem" or
"<size> corpus on <cloud>" mean where the data lives (`data_location`). Two different values for
one thing in the same message ("QLoRA … full fine-tune") are pointed out, not guessed.

Every row below is a tested example (the names come from the test catalog).
"""


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int) and value >= 1_000_000:
        return f"{value:,}"
    return f"{value:g}" if isinstance(value, float) else str(value)


def _reading(entry: dict[str, Any]) -> str:
    parts = [f"`{k}` = {_value(v)}" for k, v in entry["expect"].items()]
    if entry.get("conflicts"):
        parts.append("asks which: " + ", ".join(f"`{c}`" for c in entry["conflicts"]))
    if entry.get("unknown"):
        parts.append("says the name is unknown")
    if entry.get("after") and entry.get("note"):  # a follow-up's reply says how it was read, or what to name
        parts.append(f"says “…{entry['note']}…”")
    intent = entry.get("intent")
    if intent and intent not in ("describe",):
        parts.append(f"*{intent}*")
    return "; ".join(parts) or "—"


def render() -> str:
    entries = yaml.safe_load(CORPUS.read_text(encoding="utf-8"))
    sections: dict[str, list[dict[str, Any]]] = {}
    for entry in entries:
        sections.setdefault(entry["section"], []).append(entry)
    lines = [HEADER]
    for title, rows in sections.items():
        lines += [f"## {title}", "", "| you say | read as |", "|---|---|"]
        for entry in rows:
            text = entry["text"].replace("\n", " ⏎ ").replace("|", "\\|")
            # a follow-up: the thread it follows, and what it changes there
            after = " (after " + " → ".join(f"`{m}`" for m in entry["after"]) + ")" if entry.get("after") else ""
            lines.append(f"| `{text}`{after} | {_reading(entry)} |")
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    DOC.write_text(render(), encoding="utf-8")
    sys.stdout.write(f"wrote {DOC}\n")
