"""Slack's size limits, checked before anything is sent, and the repairs that keep us inside them.

Slack rejects a whole message (`invalid_blocks`) when one block breaks a limit, so a long TCO table
or a wordy assumption list would otherwise turn into silence. `fit_message` repairs instead of
failing: long section text is split into several sections at line boundaries (keeping ``` fences
balanced), more than 10 fields become several sections, headers / buttons / fields are shortened
with an ellipsis, and more than 50 blocks become several messages posted in order.
`violations` is the checker tests run over every rendered message.
"""

from __future__ import annotations

from copy import deepcopy
from dataclasses import dataclass
from typing import Any

MAX_BLOCKS_MESSAGE = 50
MAX_BLOCKS_VIEW = 100
SECTION_TEXT = 3000
FIELDS_PER_SECTION = 10
FIELD_TEXT = 2000
HEADER_TEXT = 150
BUTTON_TEXT = 75
BUTTON_VALUE = 2000
ACTION_ID = 255
BLOCK_ID = 255
ACTIONS_ELEMENTS = 25
CONTEXT_ELEMENTS = 10
CONTEXT_TEXT = 3000
OPTION_TEXT = 75
OPTIONS_PER_SELECT = 100
TABLE_ROWS = 100
TABLE_CELLS = 20
TABLES_PER_MESSAGE = 1
MESSAGE_TEXT = 40000  # chat.postMessage truncates `text` beyond this
ELLIPSIS = "…"

Block = dict[str, Any]


@dataclass(frozen=True)
class Message:
    """One chat message as it will be sent: blocks plus the plain-text fallback Slack requires."""

    blocks: list[Block]
    text: str


def shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + ELLIPSIS


def split_text(text: str, limit: int = SECTION_TEXT) -> list[str]:
    """Split at line boundaries into chunks of at most `limit` characters, keeping code fences closed."""
    if len(text) <= limit:
        return [text]
    budget = limit - 4  # room to close a fence that is open at the cut
    pieces: list[str] = []
    for line in text.split("\n"):
        while len(line) > budget - 8:  # a single line longer than a chunk: hard-split it
            pieces.append(line[: budget - 8])
            line = line[budget - 8 :]
        pieces.append(line)
    chunks: list[str] = []
    lines: list[str] = []
    in_fence = False
    for line in pieces:
        if lines and len("\n".join([*lines, line])) > budget:
            chunks.append("\n".join(lines) + ("\n```" if in_fence else ""))
            lines = ["```"] if in_fence else []
        lines.append(line)
        if line.count("```") % 2 == 1:
            in_fence = not in_fence
    if lines:
        chunks.append("\n".join(lines))
    return chunks


def _text_len(obj: dict[str, Any] | None) -> int:
    return len(obj.get("text", "")) if obj else 0


def shown_lines(blocks: list[Block]) -> int:
    """About how many lines a message takes in Slack: a line per header, actions block, table row and
    text line, one per pair of section fields (they sit in two columns). For the "read it in ten
    seconds" budget of the first message, not a Slack limit."""
    lines = 0
    for block in blocks:
        kind = block.get("type")
        if kind in ("header", "actions", "divider"):
            lines += 1
        elif kind == "table":
            lines += len(block.get("rows", []))
        text = block.get("text")
        if kind == "section" and isinstance(text, dict):
            lines += text.get("text", "").count("\n") + 1
        lines += (len(block.get("fields", [])) + 1) // 2
        if kind == "context":
            lines += sum(e.get("text", "").count("\n") + 1 for e in block.get("elements", []))
    return lines


def violations(blocks: list[Block], *, max_blocks: int = MAX_BLOCKS_MESSAGE, text: str | None = None) -> list[str]:
    """Every way `blocks` (and the fallback `text`) would be rejected by Slack; [] when valid."""
    found: list[str] = []
    if len(blocks) > max_blocks:
        found.append(f"{len(blocks)} blocks > {max_blocks}")
    if sum(1 for b in blocks if b.get("type") == "table") > TABLES_PER_MESSAGE:
        found.append(f"more than {TABLES_PER_MESSAGE} table block in one message")
    if text is not None and not text.strip():
        found.append("empty fallback text")
    if text is not None and len(text) > MESSAGE_TEXT:
        found.append(f"fallback text {len(text)} > {MESSAGE_TEXT}")
    for i, block in enumerate(blocks):
        kind = block.get("type")
        where = f"block {i} ({kind})"
        if len(block.get("block_id", "")) > BLOCK_ID:
            found.append(f"{where}: block_id too long")
        if kind == "header":
            n = _text_len(block.get("text"))
            if n > HEADER_TEXT or n == 0:
                found.append(f"{where}: header text {n} chars (1-{HEADER_TEXT})")
            if block.get("text", {}).get("type") != "plain_text":
                found.append(f"{where}: header text must be plain_text")
        elif kind == "section":
            if "text" not in block and "fields" not in block:
                found.append(f"{where}: section needs text or fields")
            n = _text_len(block.get("text"))
            if n > SECTION_TEXT:
                found.append(f"{where}: section text {n} > {SECTION_TEXT}")
            if "text" in block and n == 0:
                found.append(f"{where}: empty section text")
            fields = block.get("fields", [])
            if len(fields) > FIELDS_PER_SECTION:
                found.append(f"{where}: {len(fields)} fields > {FIELDS_PER_SECTION}")
            for f in fields:
                if _text_len(f) > FIELD_TEXT or _text_len(f) == 0:
                    found.append(f"{where}: field text {_text_len(f)} chars (1-{FIELD_TEXT})")
            if "accessory" in block:
                found += [f"{where}: {v}" for v in _element_violations(block["accessory"])]
        elif kind == "context":
            elements = block.get("elements", [])
            if not elements or len(elements) > CONTEXT_ELEMENTS:
                found.append(f"{where}: {len(elements)} context elements (1-{CONTEXT_ELEMENTS})")
            for e in elements:
                if e.get("type") in ("mrkdwn", "plain_text") and not 0 < _text_len(e) <= CONTEXT_TEXT:
                    found.append(f"{where}: context text {_text_len(e)} chars")
        elif kind == "actions":
            elements = block.get("elements", [])
            if not elements or len(elements) > ACTIONS_ELEMENTS:
                found.append(f"{where}: {len(elements)} action elements (1-{ACTIONS_ELEMENTS})")
            for e in elements:
                found += [f"{where}: {v}" for v in _element_violations(e)]
        elif kind == "table":
            rows = block.get("rows", [])
            if not rows or len(rows) > TABLE_ROWS:
                found.append(f"{where}: {len(rows)} table rows (1-{TABLE_ROWS})")
            for row in rows:
                if not row or len(row) > TABLE_CELLS:
                    found.append(f"{where}: {len(row)} cells in a row (1-{TABLE_CELLS})")
                for cell in row:
                    if cell.get("type") not in ("raw_text", "rich_text"):
                        found.append(f"{where}: table cell type {cell.get('type')!r}")
                    elif cell.get("type") == "raw_text" and not cell.get("text"):
                        found.append(f"{where}: empty table cell")
        elif kind == "image":
            if not block.get("alt_text") or len(block["alt_text"]) > 2000:
                found.append(f"{where}: image alt_text 1-2000")
        elif kind not in ("divider", "rich_text", "input", "file", "video"):
            found.append(f"{where}: unknown block type")
    return found


def _element_violations(element: dict[str, Any]) -> list[str]:
    found = []
    if len(element.get("action_id", "")) > ACTION_ID:
        found.append("action_id too long")
    if element.get("type") == "button":
        n = _text_len(element.get("text"))
        if not 0 < n <= BUTTON_TEXT:
            found.append(f"button text {n} chars (1-{BUTTON_TEXT})")
        if len(element.get("value", "")) > BUTTON_VALUE:
            found.append(f"button value > {BUTTON_VALUE}")
    if element.get("type") in ("static_select", "overflow"):
        options = element.get("options", [])
        if not options or len(options) > OPTIONS_PER_SELECT:
            found.append(f"{len(options)} options")
        for o in options:
            if not 0 < _text_len(o.get("text")) <= OPTION_TEXT:
                found.append(f"option text {_text_len(o.get('text'))} chars (1-{OPTION_TEXT})")
    return found


def _fit_element(element: dict[str, Any]) -> dict[str, Any]:
    element = deepcopy(element)
    if element.get("type") == "button" and "text" in element:
        element["text"]["text"] = shorten(element["text"]["text"], BUTTON_TEXT)
    for option in element.get("options", []):
        option["text"]["text"] = shorten(option["text"]["text"], OPTION_TEXT)
    if "options" in element:
        element["options"] = element["options"][:OPTIONS_PER_SELECT]
    return element


def fit_blocks(blocks: list[Block]) -> list[Block]:
    """Repair every per-block limit; the result may have more blocks than the input."""
    out: list[Block] = []
    for block in blocks:
        block = deepcopy(block)
        kind = block.get("type")
        if kind == "header":
            block["text"]["text"] = shorten(block["text"]["text"] or "gpu-advisor", HEADER_TEXT)
            out.append(block)
        elif kind == "section":
            accessory = block.pop("accessory", None)
            fields = [dict(f, text=shorten(f["text"], FIELD_TEXT)) for f in block.pop("fields", []) if f.get("text")]
            pieces: list[Block] = []
            if "text" in block:
                kind_of_text = block["text"].get("type", "mrkdwn")
                for chunk in split_text(block["text"]["text"]):
                    if chunk.strip():
                        pieces.append({"type": "section", "text": {"type": kind_of_text, "text": chunk}})
            for start in range(0, len(fields), FIELDS_PER_SECTION):
                group = fields[start : start + FIELDS_PER_SECTION]
                if pieces and start == 0 and "fields" not in pieces[-1]:
                    pieces[-1]["fields"] = group
                else:
                    pieces.append({"type": "section", "fields": group})
            if not pieces:
                continue
            if block.get("block_id"):
                pieces[0]["block_id"] = block["block_id"][:BLOCK_ID]
            if accessory:
                pieces[0]["accessory"] = _fit_element(accessory)
            out += pieces
        elif kind == "context":
            elements = [
                dict(e, text=shorten(e["text"], CONTEXT_TEXT)) if "text" in e else e
                for e in block.get("elements", [])
                if e.get("text", "x")
            ]
            for start in range(0, len(elements), CONTEXT_ELEMENTS):
                out.append(dict(block, elements=elements[start : start + CONTEXT_ELEMENTS]))
        elif kind == "actions":
            elements = [_fit_element(e) for e in block.get("elements", [])]
            for start in range(0, len(elements), ACTIONS_ELEMENTS):
                piece = dict(block, elements=elements[start : start + ACTIONS_ELEMENTS])
                if start:
                    piece.pop("block_id", None)
                out.append(piece)
        else:
            out.append(block)
    return out


def fit_message(blocks: list[Block], text: str, *, max_blocks: int = MAX_BLOCKS_MESSAGE) -> list[Message]:
    """Repair blocks, then split into as many messages as needed; each gets a fallback text.

    The actions block (the refinement buttons) is kept with the last message so the buttons sit
    under the end of the answer.
    """
    fitted = fit_blocks(blocks)
    fallback = shorten(text.strip() or "gpu-advisor reply", MESSAGE_TEXT)
    if len(fitted) <= max_blocks:
        return [Message(fitted, fallback)]
    trailing = [b for b in fitted[-2:] if b.get("type") == "actions"]
    body = [b for b in fitted if not any(b is t for t in trailing)]
    per_message = max_blocks - len(trailing) if trailing else max_blocks
    chunks = [body[i : i + max_blocks] for i in range(0, len(body), max_blocks)]
    if trailing and len(chunks[-1]) > per_message:
        chunks.append(chunks[-1][per_message:])
        chunks[-2] = chunks[-2][:per_message]
    chunks[-1] = chunks[-1] + trailing
    total = len(chunks)
    messages = [Message(chunks[0], fallback)]
    for n, chunk in enumerate(chunks[1:], start=2):
        messages.append(Message(chunk, f"gpu-advisor reply (continued, part {n} of {total})"))
    return messages


def fit_view(blocks: list[Block]) -> list[Block]:
    """Home tab: same per-block repairs, at most 100 blocks (the rest is summarised in one line)."""
    fitted = fit_blocks(blocks)
    if len(fitted) <= MAX_BLOCKS_VIEW:
        return fitted
    dropped = len(fitted) - (MAX_BLOCKS_VIEW - 1)
    note = {"type": "context", "elements": [{"type": "mrkdwn", "text": f"… {dropped} more blocks not shown"}]}
    return fitted[: MAX_BLOCKS_VIEW - 1] + [note]
