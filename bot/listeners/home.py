"""The App Home tab: three example questions, the slash command, how to refine in a thread, and how
old the catalog's prices are (read from the catalog when a user opens the tab)."""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

from slack_bolt import App
from slack_sdk import WebClient

from bot.render import render_home
from bot.service import Advisor

log = logging.getLogger(__name__)


def prices_observed_on(advisor: Advisor | None) -> list[str]:
    """The dates the catalog's offer prices were read, oldest first ([] when unknown)."""
    if advisor is None:
        return []
    try:
        return sorted({str(o.observed_on) for o in advisor.catalog.offers() if getattr(o, "observed_on", None)})
    except Exception:  # the tab must open even when the catalog cannot be listed
        log.warning("catalog offers could not be listed for the App Home tab")
        return []


def register(app: App, advisor: Advisor | None = None) -> None:
    @app.event("app_home_opened")
    def on_home(event: dict[str, Any], client: WebClient) -> None:
        if event.get("tab", "home") != "home":
            return
        view = render_home(event["user"], prices_observed_on(advisor), today=dt.date.today())
        client.views_publish(user_id=event["user"], view=view)
