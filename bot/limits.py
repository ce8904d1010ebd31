"""Slack's size limits, checked before anything is sent, and the repairs that keep us inside them.

Slack rejects a whole message (`invalid_blocks`) when one block breaks a limit, so a long TCO table
or a wordy assumption list would otherwise turn into silence. `fit_message` repairs instead of
failing: long section text is split into several sections at line boundaries (keeping ``` fences
balanced), more than 10 fields become several sections, headers / buttons / fields are shortened
with an ellipsis, and more than 50 blocks become several messages posted in order.
`violations` is the checker tests run over every rendered message.
"""

from __future__ import annotations

import json
from copy import deepcopy
from dataclasses import dataclass
from typing import Any

# Limits slack_sdk's Block Kit models know are the values of those models' `*_max_length`
# attributes (Slack maintains them); tests/bot/test_limits.py checks every one against slack_sdk,
# so they are written out here instead of read at import: importing slack_sdk costs ~40 ms of
# every CLI start, and `gpu-advisor ask` in a terminal never talks to Slack. The rest are from
# docs.slack.dev/reference/block-kit (section fields, context text, table).
MAX_BLOCKS_MESSAGE = 50
MAX_BLOCKS_VIEW = 100
SECTION_TEXT = 3000  # SectionBlock.text_max_length
FIELDS_PER_SECTION = 10  # SectionBlock.fields_max_length
FIELD_TEXT = 2000
HEADER_TEXT = 150  # HeaderBlock.text_max_length
BUTTON_TEXT = 75  # ButtonElement.text_max_length
BUTTON_VALUE = 2000  # ButtonElement.value_max_length
ACTION_ID = 255  # InteractiveElement.action_id_max_length
BLOCK_ID = 255  # Block.block_id_max_length
ACTIONS_ELEMENTS = 25  # ActionsBlock.elements_max_length
CONTEXT_ELEMENTS = 10  # ContextBlock.elements_max_length
CONTEXT_TEXT = 3000
OPTION_TEXT = 75  # Option.label_max_length
OPTIONS_PER_SELECT = 100  # StaticSelectElement.options_max_length
TABLE_ROWS = 100
TABLE_CELLS_PER_ROW = 20
TABLES_PER_MESSAGE = 1  # Slack renders one table block per message
MESSAGE_TEXT = 40000  # chat.postMessage: msg_too_long beyond this
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


KNOWN_BLOCKS = ("section", "header", "context", "actions", "divider", "image", "rich_text", "input", "file", "video",
                "table", "markdown")
TEXT_TYPES = ("mrkdwn", "plain_text")


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
    """Every way `blocks` (and the fallback `text`, when given) would be rejected by Slack; [] when valid.

    Each block first goes through slack_sdk's Block Kit models (`Block.parse(...).to_dict()` runs
    their validators: text, field, element, option and id limits); the checks below cover what those
    models do not: the block count, the fallback text, empty texts, text object types, section field
    length, context text length, select option text and table rows.
    """
    found: list[str] = []
    if not isinstance(blocks, list):
        return [f"blocks must be a list, not {type(blocks).__name__}"]
    if len(blocks) > max_blocks:
        found.append(f"{len(blocks)} blocks > {max_blocks}")
    if sum(1 for b in blocks if isinstance(b, dict) and b.get("type") == "table") > TABLES_PER_MESSAGE:
        found.append(f"more than {TABLES_PER_MESSAGE} table block in one message")
    if text is not None and not text.strip():
        found.append("empty fallback text")
    if text is not None and len(text) > MESSAGE_TEXT:
        found.append(f"fallback text {len(text)} > {MESSAGE_TEXT}")
    for i, block in enumerate(blocks):
        kind = block.get("type") if isinstance(block, dict) else None
        where = f"block {i} ({kind})"
        if not isinstance(block, dict) or kind not in KNOWN_BLOCKS:
            found.append(f"{where}: unknown block type")
            continue
        found += [f"{where}: {v}" for v in _sdk_violations(block)]
        found += [f"{where}: {v}" for v in _block_violations(block, kind)]
    return found


def _sdk_violations(block: Block) -> list[str]:
    """What slack_sdk's model for this block type rejects (its validators stop at the first)."""
    from slack_sdk.errors import SlackObjectFormationError
    from slack_sdk.models.blocks import Block as SdkBlock

    try:
        model = SdkBlock.parse(deepcopy(block))
        if model is not None:
            model.to_dict()
    except SlackObjectFormationError as exc:
        return [str(exc)]
    except (AttributeError, KeyError, TypeError, ValueError) as exc:  # malformed beyond what the models expect
        return [f"malformed block ({exc.__class__.__name__}: {exc})"]
    return []


def _text_len(obj: Any) -> int:
    return len(obj.get("text") or "") if isinstance(obj, dict) else 0


def _text_object(obj: Any, what: str, limit: int | None = None, plain_only: bool = False) -> list[str]:
    """A composition text object: {"type": "mrkdwn" | "plain_text", "text": non-empty}."""
    if not isinstance(obj, dict):
        return [f"{what} is not a text object"]
    found = []
    if obj.get("type") not in (("plain_text",) if plain_only else TEXT_TYPES):
        found.append(f"{what} type must be {'plain_text' if plain_only else 'mrkdwn or plain_text'}, not {obj.get('type')!r}")
    n = _text_len(obj)
    if n == 0:
        found.append(f"{what} is empty")
    elif limit is not None and n > limit:
        found.append(f"{what} {n} chars > {limit}")
    return found


def _block_violations(block: Block, kind: str) -> list[str]:
    found: list[str] = []
    if kind == "header":
        found += _text_object(block.get("text"), "header text", plain_only=True)
    elif kind == "section":
        if "text" in block:
            found += _text_object(block["text"], "section text")
        for f in block.get("fields", []):
            found += _text_object(f, "field text", FIELD_TEXT)
        if "accessory" in block:
            found += _element_violations(block["accessory"])
    elif kind == "context":
        elements = block.get("elements") or []
        if not elements:
            found.append("context needs 1 element at least")
        for e in elements:
            if isinstance(e, dict) and e.get("type") in TEXT_TYPES:
                found += _text_object(e, "context text", CONTEXT_TEXT)
    elif kind == "actions":
        elements = block.get("elements") or []
        if not elements:
            found.append("actions needs 1 element at least")
        for e in elements:
            found += _element_violations(e)
    elif kind == "table":
        found += _table_violations(block.get("rows"))
    return found


def _element_violations(element: Any) -> list[str]:
    if not isinstance(element, dict):
        return ["element is not an object"]
    found = []
    if element.get("type") == "button":
        found += _text_object(element.get("text"), "button text", BUTTON_TEXT, plain_only=True)
    if element.get("type") in ("static_select", "overflow"):
        options = element.get("options") or []
        if not options:
            found.append("select needs 1 option at least")
        for o in options:
            found += _text_object(o.get("text") if isinstance(o, dict) else None, "option text", OPTION_TEXT)
    return found


def _table_violations(rows: Any) -> list[str]:
    """Table block: 1-100 rows, each a list of 1-20 cells of type raw_text or rich_text."""
    if not isinstance(rows, list) or not rows:
        return ["table needs rows: a non-empty list of rows"]
    found = []
    if len(rows) > TABLE_ROWS:
        found.append(f"{len(rows)} table rows > {TABLE_ROWS}")
    for r, row in enumerate(rows):
        if not isinstance(row, list) or not row:
            found.append(f"table row {r} is not a non-empty list of cells")
            continue
        if len(row) > TABLE_CELLS_PER_ROW:
            found.append(f"table row {r}: {len(row)} cells > {TABLE_CELLS_PER_ROW}")
        for c, cell in enumerate(row):
            if not isinstance(cell, dict) or cell.get("type") not in ("raw_text", "rich_text"):
                found.append(f"table row {r} cell {c}: type must be raw_text or rich_text")
            elif cell["type"] == "raw_text" and not isinstance(cell.get("text"), str):
                found.append(f"table row {r} cell {c}: raw_text needs a text string")
    return found


def _copy(block: dict[str, Any]) -> dict[str, Any]:
    """A private copy to repair in place. Blocks are JSON by definition (Slack receives them as JSON), and
    the C round trip costs a fifth of `deepcopy`'s walk, which a reply pays for every block."""
    copied: dict[str, Any] = json.loads(json.dumps(block))
    return copied


def _fit_element(element: dict[str, Any]) -> dict[str, Any]:
    """Repair a button or select in place: it is part of a block `fit_blocks` already holds as its own."""
    if element.get("type") == "button" and "text" in element:
        element["text"]["text"] = shorten(element["text"]["text"], BUTTON_TEXT)
    for option in element.get("options", []):
        option["text"]["text"] = shorten(option["text"]["text"], OPTION_TEXT)
    if "options" in element:
        element["options"] = element["options"][:OPTIONS_PER_SELECT]
    return element


def fit_blocks(blocks: list[Block], *, owned: bool = False) -> list[Block]:
    """Repair every per-block limit; the result may have more blocks than the input.

    The blocks are repaired on a private copy, unless `owned`: the caller hands them over (blocks
    just parsed from a template's JSON, which nothing else holds), and copying them would only
    round-trip the same JSON again (~0.05 ms of every reply)."""
    out: list[Block] = []
    for block in blocks:
        block = block if owned else _copy(block)
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


def fit_message(blocks: list[Block], text: str, *, max_blocks: int = MAX_BLOCKS_MESSAGE,
                owned: bool = False) -> list[Message]:
    """Repair blocks, then split into as many messages as needed; each gets a fallback text.

    The actions block (the refinement buttons) is kept with the last message so the buttons sit
    under the end of the answer. `owned`: see `fit_blocks`.
    """
    fitted = fit_blocks(blocks, owned=owned)
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
