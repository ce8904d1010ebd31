"""Slack re-delivers an event when our 200 was late or lost (same `event_id`, header
`X-Slack-Retry-Num`). The first delivery claims the id in SQLite; later ones are acknowledged and
dropped here, before any listener runs, so the thread never gets a second reply — also after a
restart, because the claim is stored, not held in memory."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from slack_bolt import App, BoltResponse

from bot.state import ThreadStore

log = logging.getLogger(__name__)


def register(app: App, store: ThreadStore) -> None:
    @app.middleware
    def drop_redelivered_events(body: dict[str, Any], next: Callable[[], Any]) -> Any:
        event_id = body.get("event_id") if isinstance(body, dict) else None
        if event_id and not store.claim_event(str(event_id)):
            log.info("event %s already handled; ignoring the re-delivery", event_id)
            return BoltResponse(status=200, body="")
        return next()
