"""Which Slack events are turns: a pure function of the event body, shared by the listeners and the
event journal (which stores the turn with its claim, so a turn can be re-run after a crash).

- `app_mention` in a channel: a turn in the mention's thread (a DM mention is left to `message`).
- `message` in a DM: a turn in the DM's one running conversation.
- `message` replying in a channel thread, not mentioning the bot (that one comes as `app_mention`
  too): a "thread_reply", answered only if the thread already has a scenario (checked at turn time).
- anything else (bot messages, edits, joins...): not a turn.
"""

from __future__ import annotations

import re
import time
from typing import Any

from bot.journal import TurnRequest
from bot.state import ThreadKey

MENTION = re.compile(r"<@[A-Z0-9]+(\|[^>]*)?>")
ANSWERED_SUBTYPES = {None, "file_share", "thread_broadcast"}


def strip_mentions(text: str) -> str:
    return MENTION.sub("", text or "").strip()


def thread_key(team_id: str | None, channel: str, ts: str | None, thread_ts: str | None) -> ThreadKey:
    """The thread a message belongs to. A DM's top level is one running conversation (thread_ts "")."""
    if thread_ts:
        return ThreadKey(team_id or "", channel, thread_ts)
    if channel.startswith("D"):
        return ThreadKey(team_id or "", channel, "")
    return ThreadKey(team_id or "", channel, ts or "")


def turn_request(body: dict[str, Any], bot_user_id: str | None, now: float | None = None) -> TurnRequest | None:
    event = body.get("event") if isinstance(body, dict) else None
    if not isinstance(event, dict):
        return None
    channel, text = str(event.get("channel") or ""), str(event.get("text") or "")
    team = body.get("team_id") or event.get("team")
    event_id = str(body["event_id"]) if body.get("event_id") else None
    received_at = time.time() if now is None else now
    key = thread_key(team, channel, event.get("ts"), event.get("thread_ts"))
    if not channel:
        return None
    if event.get("type") == "app_mention":
        if channel.startswith("D"):
            return None
        return TurnRequest(event_id, key, str(event.get("user") or ""), strip_mentions(text), "mention", received_at)
    if event.get("type") != "message":
        return None
    if event.get("subtype") not in ANSWERED_SUBTYPES or event.get("bot_id"):
        return None
    if bot_user_id and event.get("user") == bot_user_id:
        return None
    if event.get("channel_type") == "im" or channel.startswith("D"):
        kind = "dm"
    elif not event.get("thread_ts") or (bot_user_id and f"<@{bot_user_id}" in text):
        return None
    else:
        kind = "thread_reply"
    return TurnRequest(event_id, key, str(event.get("user") or ""), strip_mentions(text), kind, received_at)
