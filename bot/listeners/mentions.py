"""`@GPU advisor ...` in a channel: answered in the thread of the mention (a new thread or the
one it was posted in). DMs are answered by `messages`, so a mention there is not answered twice."""

from __future__ import annotations

import re
from typing import Any

from slack_bolt import App, BoltContext
from slack_sdk import WebClient

from bot.replies import Replier, thread_key

MENTION = re.compile(r"<@[A-Z0-9]+(\|[^>]*)?>")


def strip_mentions(text: str) -> str:
    return MENTION.sub("", text or "").strip()


def register(app: App, replier: Replier) -> None:
    @app.event("app_mention")
    def on_mention(event: dict[str, Any], context: BoltContext, client: WebClient) -> None:
        channel = event["channel"]
        if channel.startswith("D"):
            return
        key = thread_key(context.team_id or event.get("team"), channel, event["ts"], event.get("thread_ts"))
        replier.turn(client, key, strip_mentions(event.get("text", "")))
