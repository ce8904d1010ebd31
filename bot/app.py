"""Build the Bolt app from a `Config`: the Web API client (pointed at SLACK_API_URL, retrying
rate limits and server errors), request verification, and the listeners.

Why `token_verification_enabled=False`: Bolt would otherwise call `auth.test` inside the
constructor, so a wrong token would surface as a traceback. `serve` checks the token itself
first (`check_token`) and prints one line; Bolt then calls `auth.test` lazily on the first request.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from slack_bolt import App, BoltContext
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_handlers import RateLimitErrorRetryHandler
from slack_sdk.http_retry.builtin_interval_calculators import BackoffRetryIntervalCalculator

from bot.config import Config, ConfigError
from bot.listeners import register_listeners
from bot.replies import Replier
from bot.service import Advisor
from bot.state import ThreadStore
from bot.webapi import SafeRetryOnConnectionError, SafeRetryOnServerError, reuse_connections

log = logging.getLogger(__name__)


def web_client(config: Config, token: str | None = None) -> WebClient:
    """A WebClient for SLACK_API_URL on kept-alive connections (`bot.webapi`) that retries 429 (after
    Retry-After), and 500/503 (with back-off) and broken connections except for chat.postMessage,
    which the outbox retries after checking the thread (a retry there could post twice)."""
    client = WebClient(token=token if token is not None else config.bot_token, base_url=config.api_url, timeout=15)
    client.retry_handlers = [
        SafeRetryOnConnectionError(max_retry_count=2),
        RateLimitErrorRetryHandler(max_retry_count=3),
        SafeRetryOnServerError(
            max_retry_count=2,
            interval_calculator=BackoffRetryIntervalCalculator(backoff_factor=config.retry_backoff_s),
        ),
    ]
    return reuse_connections(client)


def check_token(client: WebClient) -> dict:
    """Call auth.test once; a rejected token becomes a one-line ConfigError.

    slack_sdk's own error logging is muted for this one call: at start-up the user should read
    one line saying what is wrong, not the client's retry chatter.
    """
    sdk_log = logging.getLogger("slack_sdk")
    level = sdk_log.level
    sdk_log.setLevel(logging.CRITICAL)
    try:
        return client.auth_test().data  # type: ignore[return-value]
    except SlackApiError as exc:
        error = exc.response.get("error", "unknown error") if exc.response is not None else "unknown error"
        raise ConfigError(f"SLACK_BOT_TOKEN was rejected by Slack (auth.test: {error})") from None
    except Exception as exc:  # network: name the URL, not the token
        raise ConfigError(f"cannot reach the Slack Web API at {client.base_url}: {exc.__class__.__name__}") from None
    finally:
        sdk_log.setLevel(level)


def build_app(config: Config, advisor: Advisor, store: ThreadStore, *, client: WebClient | None = None,
              replier: Replier | None = None, oauth_settings: Any = None) -> App:
    """The Bolt app with every listener registered. HTTP mode verifies signatures; Socket Mode does not need to.
    With `oauth_settings` (`bot.oauth`), each workspace's token comes from the installation store."""
    app = App(
        client=client or web_client(config),
        oauth_settings=oauth_settings,
        signing_secret=config.signing_secret or "",
        request_verification_enabled=bool(config.signing_secret),
        token_verification_enabled=False,
        process_before_response=False,  # ack first, work after: events and /vram are acked at once
        raise_error_for_unhandled_request=False,
        ignoring_self_events_enabled=True,
        logger=logging.getLogger("bot.bolt"),
    )

    @app.middleware
    def keep_alive(context: BoltContext, next: Callable[[], Any]) -> Any:
        """Bolt builds a new WebClient per request: send its calls over the thread's kept-alive connections."""
        if context.client is not None:
            reuse_connections(context.client)
        return next()

    register_listeners(app, advisor, store, charts=config.charts, replier=replier)
    return app
