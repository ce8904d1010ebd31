"""Last line of defence: an exception that escapes a listener is logged (never with secrets:
bot.config installs redaction). Listeners answer failures themselves with an apology."""

from __future__ import annotations

import logging

from slack_bolt import App

log = logging.getLogger(__name__)


def register(app: App) -> None:
    @app.error
    def log_unhandled(error: Exception) -> None:
        log.error("unhandled error in a listener: %s", error, exc_info=error)
