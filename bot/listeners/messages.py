"""Plain messages: every DM, and replies in a channel thread that already has a scenario.

A reply that mentions the bot is left to `app_mention` (Slack sends both events for it), and a
thread without a scenario is ignored, so one message is never answered twice and the bot does not
barge into threads it is not part of."""

from __future__ import annotations

from typing import Any

from slack_bolt import App, BoltContext
from slack_sdk import WebClient

from bot.listeners.mentions import strip_mentions
from bot.replies import Replier, thread_key

ANSWERED_SUBTYPES = {None, "file_share", "thread_broadcast"}


def register(app: App, replier: Replier) -> None:
    @app.event("message")
    def on_message(event: dict[str, Any], context: BoltContext, client: WebClient) -> None:
        if event.get("subtype") not in ANSWERED_SUBTYPES or event.get("bot_id"):
            return
        if context.bot_user_id and event.get("user") == context.bot_user_id:
            return
        channel, text = event["channel"], event.get("text", "")
        is_dm = event.get("channel_type") == "im" or channel.startswith("D")
        key = thread_key(context.team_id or event.get("team"), channel, event.get("ts"), event.get("thread_ts"))
        if not is_dm:
            mentioned = context.bot_user_id and f"<@{context.bot_user_id}" in text
            if not event.get("thread_ts") or mentioned or not replier.store.has_scenario(key):
                return
        replier.turn(client, key, strip_mentions(text))
