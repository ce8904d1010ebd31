"""Slack re-delivers an event when our 200 was late or lost (same `event_id`, header
`X-Slack-Retry-Num`). Every event is claimed in the journal (`bot.journal`) before Bolt acks it,
with the turn it asks for; a re-delivery is acknowledged and dropped here, before any listener
runs, unless the process that claimed it died before answering: then this delivery takes it over.
The claim is stored, not held in memory, so this holds across restarts too."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from slack_bolt import App, BoltContext, BoltResponse

from bot.journal import EventJournal
from bot.routing import turn_request

log = logging.getLogger(__name__)


def register(app: App, journal: EventJournal) -> None:
    @app.middleware
    def claim_events(body: dict[str, Any], context: BoltContext, next: Callable[[], Any]) -> Any:
        event_id = body.get("event_id") if isinstance(body, dict) else None
        if event_id and not journal.claim(str(event_id), turn_request(body, context.bot_user_id)):
            log.info("event %s already handled; ignoring the re-delivery", event_id)
            return BoltResponse(status=200, body="")
        return next()
