"""A workspace that removes the app (`app_uninstalled`) or revokes its tokens (`tokens_revoked`):
its installation is deleted (OAuth mode) and so is every thread scenario, queued reply and open
claim of that workspace, on whichever process receives the event."""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import App, BoltContext

from bot.state import ThreadStore

log = logging.getLogger(__name__)


def register(app: App, store: ThreadStore) -> None:
    installation_store = app.installation_store  # None in single-token mode

    @app.event("app_uninstalled")
    def on_uninstalled(context: BoltContext) -> None:
        team_id = context.team_id or ""
        if installation_store is not None:
            installation_store.delete_all(enterprise_id=context.enterprise_id, team_id=team_id)
        threads = store.forget_team(team_id)
        log.info("app uninstalled from workspace %s: installation and %d threads deleted", team_id, threads)

    @app.event("tokens_revoked")
    def on_tokens_revoked(event: dict[str, Any], context: BoltContext) -> None:
        team_id = context.team_id or ""
        tokens = event.get("tokens") or {}
        if installation_store is not None:
            for user_id in tokens.get("oauth") or []:
                installation_store.delete_installation(enterprise_id=context.enterprise_id, team_id=team_id,
                                                       user_id=user_id)
            if tokens.get("bot"):
                installation_store.delete_bot(enterprise_id=context.enterprise_id, team_id=team_id)
        if tokens.get("bot"):  # without its bot token the app can no longer answer there
            threads = store.forget_team(team_id)
            log.info("bot token revoked in workspace %s: installation and %d threads deleted", team_id, threads)
