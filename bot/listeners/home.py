"""The App Home tab: what the bot can do and example messages, published when a user opens it."""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import App
from slack_sdk import WebClient

from bot.render import render_home

log = logging.getLogger(__name__)


def register(app: App) -> None:
    @app.event("app_home_opened")
    def on_home(event: dict[str, Any], client: WebClient) -> None:
        if event.get("tab", "home") != "home":
            return
        client.views_publish(user_id=event["user"], view=render_home(event["user"]))
