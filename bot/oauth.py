"""Installing the app in many workspaces: Bolt's OAuth flow (`/slack/install` -> Slack ->
`/slack/oauth_redirect`) with slack_sdk's SQLAlchemy installation and state stores, on the same
database as the thread state (the SQLite file, or the PostgreSQL database several hosts share).

Enabled by SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and SLACK_SCOPES (`Config.oauth`); without them the
app runs with one bot token from the environment, as before. Bolt then authorises every request by
looking up the workspace's bot token in the installation store; the outbox and the replay of dead
processes' turns, which run outside a request, ask `TeamClients` for the workspace's client.

Tokens are stored in the database (tables `slack_bots`, `slack_installations`, `slack_oauth_states`)
and never logged (`bot.config.install_log_redaction` scrubs anything shaped like a token). An
uninstall deletes the workspace's installation and its thread state (`bot.listeners.uninstall`).
SQLAlchemy is imported only here, so single-token mode never loads it.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from slack_sdk import WebClient

from bot.config import Config, is_database_url

log = logging.getLogger(__name__)
STATE_EXPIRATION_S = 600


def sqlalchemy_url(db: Path | str) -> str:
    """The thread-state database as a SQLAlchemy URL (psycopg 3 driver for PostgreSQL)."""
    if is_database_url(db):
        rest = str(db).split("://", 1)[1]
        return f"postgresql+psycopg://{rest}"
    return f"sqlite:///{Path(db).resolve()}"


def oauth_settings(config: Config) -> Any:
    """Bolt's OAuthSettings with both stores on the thread-state database (tables created if missing)."""
    import sqlalchemy
    from slack_bolt.oauth.oauth_settings import OAuthSettings
    from slack_sdk.oauth.installation_store.sqlalchemy import SQLAlchemyInstallationStore
    from slack_sdk.oauth.state_store.sqlalchemy import SQLAlchemyOAuthStateStore

    assert config.client_id and config.client_secret
    engine = sqlalchemy.create_engine(sqlalchemy_url(config.db_path), pool_pre_ping=True)
    installations = SQLAlchemyInstallationStore(client_id=config.client_id, engine=engine,
                                                logger=logging.getLogger("bot.oauth.installations"))
    states = SQLAlchemyOAuthStateStore(expiration_seconds=STATE_EXPIRATION_S, engine=engine,
                                       logger=logging.getLogger("bot.oauth.states"))
    for store in (installations, states):
        for attempt in range(3):  # several workers starting at once race to create the tables
            try:
                store.metadata.create_all(engine, checkfirst=True)
                break
            except sqlalchemy.exc.DBAPIError:
                if attempt == 2:
                    raise
    return OAuthSettings(client_id=config.client_id, client_secret=config.client_secret, scopes=list(config.scopes),
                         redirect_uri=config.oauth_redirect_uri, installation_store=installations,
                         state_store=states)


class TeamClients:
    """Workspace id -> a WebClient with that workspace's bot token (None when it is not installed),
    for the work done outside a Slack request: sending queued replies, replaying turns."""

    def __init__(self, installation_store: Any, make_client: Any) -> None:
        self.installation_store = installation_store
        self.make_client = make_client  # token -> WebClient (bot.app.web_client bound to the config)

    def __call__(self, team_id: str) -> WebClient | None:
        bot = self.installation_store.find_bot(enterprise_id=None, team_id=team_id)
        if bot is None or not bot.bot_token:
            return None
        return self.make_client(bot.bot_token)
