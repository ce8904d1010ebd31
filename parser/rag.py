"""Retrieval prompts said as a context window: "128k context RAG", "RAG over long documents at 32k context".

In retrieval-augmented generation the retrieved passages arrive with every request, so the context the user names is
what each request prefills, not a window the conversation slowly fills. Read as a window, 20 users at 128k were sized
at 1,024-token prompts: a 0.011 s first token graded "target met" on 2 GPUs, where 100k-token prompts need 16.
"""

from __future__ import annotations

from dataclasses import replace

from engine.models import DEFAULT_OUTPUT_TOKENS

from .neighbours import training_said
from .said import Said

# the words that say the prompt carries retrieved text: "RAG", "retrieval", "retrieved passages", "long documents"
_RAG_WORDS = {"rag", "retrieval", "retrieval-augmented", "retrieved"}
_LONG = {"long", "whole", "full", "entire"}
_DOCUMENTS = {"documents", "docs", "pdfs", "contracts", "reports", "filings", "papers", "transcripts", "books"}
# below this a window is the ordinary chat size: the default turn is no misreading there
RAG_CONTEXT_FROM = 16_384


def rag_said(items: list[Said]) -> str:
    """'RAG', 'retrieval', 'retrieved passages', 'long documents', 'whole PDFs': the prompt carries the documents (the
    words that say so, "" when none do)."""
    texts = [s.text for s in items]
    word = next((t for t in texts if t in _RAG_WORDS), None)
    if word is not None:
        return "RAG" if word == "rag" else word
    return next((f"{a} {b}" for a, b in zip(texts, texts[1:], strict=False) if a in _LONG and b in _DOCUMENTS), "")


def rag_prompts(items: list[Said], current_mode: str | None) -> list[Said]:
    """'serve llama 3.1 8b with 128k context RAG prompts, 20 users': the context is each request's prompt (its length
    less the reply), said in a note; a prompt length said outright ("8k-token prompts") stands, as does training."""
    cue = rag_said(items)
    if training_said(items, current_mode) or not cue:
        return items
    if any("input_tokens" in s.values for s in items):
        return items
    at = next((i for i, s in enumerate(items) if "seq_len" in s.values and s.kind == "context"), None)
    if at is None:
        return items
    said = items[at]
    window = int(said.values["seq_len"])
    if window < RAG_CONTEXT_FROM:
        return items
    reply = next((int(s.values["output_tokens"]) for s in items if "output_tokens" in s.values), DEFAULT_OUTPUT_TOKENS)
    prompt = max(1, window - reply)
    out = list(items)
    out[at] = replace(said, values={**said.values, "input_tokens": prompt}, notes=[
        *said.notes, f"read “{said.text}” with “{cue}” as each request's prompt: the documents come with every "
                     f"request, so each prefills ~{prompt:,} tokens ({window:,} less a {reply:,}-token reply); say "
                     "e.g. “20k-token prompts” if they are shorter"])
    return out
