"""Plain messages: every DM, and replies in a channel thread that already has a scenario.

A reply that mentions the bot is left to `app_mention` (Slack sends both events for it), and a
thread without a scenario is ignored, so one message is never answered twice and the bot does not
barge into threads it is not part of (`bot.routing.turn_request`, `Replier.answer`)."""

from __future__ import annotations

from typing import Any

from slack_bolt import App, BoltContext
from slack_sdk import WebClient

from bot.replies import Replier
from bot.routing import ANSWERED_SUBTYPES, turn_request

__all__ = ["ANSWERED_SUBTYPES", "register"]


def register(app: App, replier: Replier) -> None:
    @app.event("message")
    def on_message(body: dict[str, Any], context: BoltContext, client: WebClient) -> None:
        request = turn_request(body, context.bot_user_id)
        if request is not None:
            replier.answer(client, request)
