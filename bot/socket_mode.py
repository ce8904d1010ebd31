"""Socket Mode: no public URL; Slack pushes events over a WebSocket opened with the app-level token.

`apps.connections.open` is called through a WebClient pointed at SLACK_API_URL, so a local fake can
stand in for Slack in tests; the WebSocket URL it returns is then used as given.
"""

from __future__ import annotations

from slack_bolt import App
from slack_bolt.adapter.socket_mode import SocketModeHandler

from bot.app import web_client
from bot.config import Config


def socket_mode_handler(app: App, config: Config) -> SocketModeHandler:
    assert config.app_token, "Socket Mode needs SLACK_APP_TOKEN"
    return SocketModeHandler(app, app_token=config.app_token, web_client=web_client(config, token=config.app_token))
