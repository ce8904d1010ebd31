"""Assemble and run the Slack app: config check, token check, thread store, event journal, outbox,
the background loop (which first re-runs turns a dead process left unanswered and drains the
outbox), advisor, then HTTP or Socket Mode. `gpu-advisor serve` calls `run`; tests call `start` to get a running
server on a free port in-process.
"""

from __future__ import annotations

import logging
import socket
from dataclasses import dataclass
from typing import Any

from slack_sdk import WebClient

from bot.app import build_app, check_token, web_client
from bot.chart_worker import ChartWorker
from bot.config import Config, install_log_redaction
from bot.http_server import SlackHTTPServer
from bot.journal import EventJournal
from bot.outbox import Outbox
from bot.recovery import Maintenance
from bot.render import render_error
from bot.replies import Replier
from bot.service import Advisor
from bot.state import ThreadStore
from bot.store import describe

log = logging.getLogger(__name__)


@dataclass
class Running:
    """A started app; `stop()` releases the port, the socket and the database."""

    config: Config
    store: ThreadStore
    maintenance: Maintenance
    http: SlackHTTPServer | None = None
    socket: Any = None  # SocketModeHandler
    refresh: Any = None  # bot.price_refresh.RefreshSchedule when GPU_ADVISOR_REFRESH_HOURS is set
    charts: ChartWorker | None = None
    app: Any = None  # the Bolt App

    def stop(self) -> None:
        if self.refresh is not None:
            self.refresh.stop()
        if self.http is not None:
            self.http.stop()
        if self.socket is not None:
            self.socket.close()
        self.maintenance.stop()
        if self.charts is not None:
            self.charts.stop()
        self.store.close()


def start(config: Config, *, host: str = "127.0.0.1", port: int = 3000, advisor: Advisor | None = None,
          background: bool = True, listen_socket: socket.socket | None = None) -> Running:
    """Check settings (raises ConfigError with one line), then start serving. `listen_socket`: an
    already listening socket shared by several worker processes (`bot.workers`)."""
    config.check_for_serve()
    install_log_redaction(config.secrets())
    settings = None
    if config.oauth:
        from bot.oauth import TeamClients, oauth_settings

        settings = oauth_settings(config)
        client = web_client(config)  # no token: Bolt takes each workspace's from the installation store
        clients: WebClient | TeamClients = TeamClients(settings.installation_store,
                                                       lambda token: web_client(config, token=token))
        log.info("OAuth install enabled: workspaces install the app at /slack/install")
    else:
        client = clients = web_client(config)
        identity = check_token(client)
        log.info("authenticated as %s in team %s", identity.get("user"), identity.get("team"))
    store = ThreadStore(config.db_path, ttl_days=config.thread_ttl_days)
    log.debug("state store: %s", describe(config.db_path))
    advisor = advisor or Advisor.open(config.catalog_path, [config.catalog_dir], hub_settings=config.hub_settings())
    journal = EventJournal(store, replay_window_s=config.replay_window_s)
    outbox = Outbox(store, retry_base_s=config.outbox_retry_base_s, retry_max_s=config.outbox_retry_max_s,
                    max_age_s=config.outbox_max_age_s, apology=render_error, journal=journal,
                    hold_after_post=config.test_hold_after_post)
    charts = ChartWorker().start() if config.charts and config.chart_process else None
    replier = Replier(advisor, store, charts=config.charts, journal=journal, outbox=outbox,
                      hold_turns=config.test_hold_turns, chart_worker=charts)
    app = build_app(config, advisor, store, client=client, replier=replier, oauth_settings=settings)
    maintenance = Maintenance(replier, clients, tick_s=config.maintenance_tick_s,
                              purge_every_s=config.purge_interval_s).start()
    running = Running(config, store, maintenance, refresh=_refresh_schedule(config, advisor), charts=charts, app=app)
    if config.socket_mode:
        from bot.socket_mode import socket_mode_handler

        running.socket = socket_mode_handler(app, config)
        running.socket.connect()  # returns once connected; the client keeps the session on its own threads
        log.info("connected to Slack in Socket Mode")
    else:
        running.http = SlackHTTPServer(app, host, port, sock=listen_socket, oauth=app.oauth_flow)
        log.info("listening on %s/slack/events (health: /health)", running.http.url)
        if background:
            running.http.start_background()
    return running


def _refresh_schedule(config: Config, advisor: Advisor) -> Any:
    """Prices refreshed every GPU_ADVISOR_REFRESH_HOURS hours (off by default)."""
    if not config.refresh_hours:
        return None
    from bot.price_refresh import RefreshSchedule

    log.info("refreshing prices every %g h from %s", config.refresh_hours, config.catalog_url or "SkyPilot's catalog")
    return RefreshSchedule(advisor.catalog, config.refresh_hours, base_url=config.catalog_url).start()
