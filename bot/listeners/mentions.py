"""`@GPU advisor ...` in a channel: answered in the thread of the mention (a new thread or the
one it was posted in). DMs are answered by `messages`, so a mention there is not answered twice.
Which events are turns is decided by `bot.routing.turn_request`."""

from __future__ import annotations

from typing import Any

from slack_bolt import App, BoltContext
from slack_sdk import WebClient

from bot.replies import Replier
from bot.routing import MENTION, strip_mentions, turn_request

__all__ = ["MENTION", "register", "strip_mentions"]


def register(app: App, replier: Replier) -> None:
    @app.event("app_mention")
    def on_mention(body: dict[str, Any], context: BoltContext, client: WebClient) -> None:
        request = turn_request(body, context.bot_user_id)
        if request is not None:
            replier.answer(client, request)
