"""Listener registration, one module per kind (events, messages, command, actions, home).

`register_listeners` is the only entry point: `bot.app.build_app` calls it once. The global
middleware in `retries` runs first, so a re-delivered event never reaches a listener.
"""

from __future__ import annotations

from slack_bolt import App

from bot.listeners import actions, commands, errors, home, mentions, messages, retries, uninstall
from bot.replies import Replier
from bot.service import Advisor
from bot.state import ThreadStore


def register_listeners(app: App, advisor: Advisor, store: ThreadStore, *, charts: bool = True,
                       replier: Replier | None = None) -> None:
    replier = replier or Replier(advisor, store, charts=charts)
    retries.register(app, replier.journal)
    errors.register(app)
    mentions.register(app, replier)
    messages.register(app, replier)
    commands.register(app, advisor)
    actions.register(app, replier)
    home.register(app, advisor)
    uninstall.register(app, store)
