"""Configuration read once from the environment, when the process starts.

Why one object: listeners and servers must never reach for `os.environ` themselves, so tests can
build an app from a `Config` they construct by hand, and so secrets live in exactly one place whose
`repr` redacts them (a `Config` that ends up in a log line or a traceback never leaks a token).
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from bot.user_dirs import user_cache_dir, user_data_dir

DEFAULT_API_URL = "https://slack.com/api/"
SECRET_FIELDS = ("bot_token", "signing_secret", "app_token", "hf_token", "client_secret", "db_path")
FALSE_WORDS = ("0", "false", "no", "off")  # for on/off switches such as GPU_ADVISOR_CHARTS
# Token shapes Slack issues; anything matching is scrubbed from log output even if it is not ours.
_TOKEN_PATTERN = re.compile(r"\b(xox[abposre]-[A-Za-z0-9-]+|xapp-[A-Za-z0-9-]+)")


class ConfigError(Exception):
    """A setting is missing or malformed. `str(error)` is the one line the user sees."""


def default_db_path() -> Path:
    """Thread state lives under the user's data directory unless GPU_ADVISOR_DB says otherwise."""
    return user_data_dir() / "threads.db"


def default_catalog_cache() -> Path:
    """The catalog database is derived data: a cache file, rebuilt when the data files change, so a
    CLI call does not rebuild it every time (about a third of a cold start)."""
    return user_cache_dir() / "catalog.db"


@dataclass(frozen=True, repr=False)
class Config:
    bot_token: str | None = None
    signing_secret: str | None = None
    app_token: str | None = None
    api_url: str = DEFAULT_API_URL
    db_path: Path | str = field(default_factory=default_db_path)  # a SQLite file or a postgresql:// URL
    catalog_path: Path | None = None  # the SQLite catalog (a cache of catalog/data); None: built in memory
    catalog_dir: Path = field(default_factory=lambda: default_db_path().parent / "catalog")  # imported rows
    thread_ttl_days: float = 30.0  # threads untouched this long are purged (see docs/slack.md)
    purge_interval_s: float = 3600.0
    retry_backoff_s: float = 0.5  # base of the exponential back-off on Slack 5xx responses
    charts: bool = True  # upload a TCO chart after answers with costs (GPU_ADVISOR_CHARTS=0 turns it off)
    replay_window_s: float = 600.0  # a turn whose process died is re-run if it is younger than this
    outbox_retry_base_s: float = 1.0  # first wait before re-sending a reply Slack did not accept; doubles
    outbox_retry_max_s: float = 30.0  # ... up to this
    outbox_max_age_s: float = 1800.0  # a reply still not accepted this long after its turn is dropped (logged)
    maintenance_tick_s: float = 0.5  # how often the background loop sends due replies
    test_hold_turns: bool = False  # GPU_ADVISOR_TEST_HOLD_TURNS=1, tests only: turns block after the claim
    test_hold_after_post: bool = False  # GPU_ADVISOR_TEST_HOLD_AFTER_POST=1, tests only: block once Slack took a post
    # Hugging Face Hub lookups (docs/catalog.md): HF_ENDPOINT, HF_TOKEN, HF_HUB_OFFLINE as huggingface_hub
    # reads them; GPU_ADVISOR_HUB=0 turns lookups off
    hub_lookups: bool = True
    hf_endpoint: str = "https://huggingface.co"
    hf_token: str | None = None
    hf_offline: bool = False
    # price refresh (docs/catalog.md): where SkyPilot's vms.csv files live, and how often `serve` refreshes
    catalog_url: str | None = None  # GPU_ADVISOR_CATALOG_URL; None: catalog.refresh.DEFAULT_BASE_URL
    refresh_hours: float | None = None  # GPU_ADVISOR_REFRESH_HOURS; None: no scheduled refresh
    chart_process: bool = True  # draw charts in a separate process (GPU_ADVISOR_CHART_PROCESS=0: inline)
    # OAuth install in many workspaces (all three set): tokens come from the installation store
    client_id: str | None = None
    client_secret: str | None = None
    scopes: tuple[str, ...] = ()
    oauth_redirect_uri: str | None = None  # SLACK_REDIRECT_URI: https://YOUR-HOST/slack/oauth_redirect

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Config:
        """Read every setting once. Empty strings count as unset."""
        env = os.environ if env is None else env

        def get(name: str) -> str | None:
            value = env.get(name, "").strip()
            return value or None

        api_url = get("SLACK_API_URL") or DEFAULT_API_URL
        if not api_url.endswith("/"):
            api_url += "/"
        db = get("GPU_ADVISOR_DB")
        scopes = get("SLACK_SCOPES")
        catalog = get("GPU_ADVISOR_CATALOG_DB")
        catalog_dir = get("GPU_ADVISOR_CATALOG_DIR")
        return cls(
            bot_token=get("SLACK_BOT_TOKEN"),
            signing_secret=get("SLACK_SIGNING_SECRET"),
            app_token=get("SLACK_APP_TOKEN"),
            api_url=api_url,
            db_path=(db if is_database_url(db) else Path(db).expanduser()) if db else default_db_path(),
            catalog_path=Path(catalog).expanduser() if catalog else default_catalog_cache(),
            catalog_dir=Path(catalog_dir).expanduser() if catalog_dir else default_db_path().parent / "catalog",
            charts=(get("GPU_ADVISOR_CHARTS") or "1").lower() not in FALSE_WORDS,
            test_hold_turns=(get("GPU_ADVISOR_TEST_HOLD_TURNS") or "0").lower() not in FALSE_WORDS,
            test_hold_after_post=(get("GPU_ADVISOR_TEST_HOLD_AFTER_POST") or "0").lower() not in FALSE_WORDS,
            hub_lookups=(get("GPU_ADVISOR_HUB") or "1").lower() not in FALSE_WORDS,
            hf_endpoint=(get("HF_ENDPOINT") or "https://huggingface.co").rstrip("/"),
            hf_token=get("HF_TOKEN") or get("HUGGING_FACE_HUB_TOKEN"),
            hf_offline=(get("HF_HUB_OFFLINE") or "0").lower() not in FALSE_WORDS,
            catalog_url=get("GPU_ADVISOR_CATALOG_URL"),
            refresh_hours=_positive_hours(get("GPU_ADVISOR_REFRESH_HOURS")),
            chart_process=(get("GPU_ADVISOR_CHART_PROCESS") or "1").lower() not in FALSE_WORDS,
            client_id=get("SLACK_CLIENT_ID"),
            client_secret=get("SLACK_CLIENT_SECRET"),
            scopes=tuple(s.strip() for s in scopes.split(",") if s.strip()) if scopes else (),
            oauth_redirect_uri=get("SLACK_REDIRECT_URI"),
        )

    def hub_settings(self) -> Any:
        """The Hub client's settings (`catalog.hub.HubSettings`), or None when lookups are off."""
        if not self.hub_lookups:
            return None
        from catalog.hub import HubSettings

        return HubSettings(endpoint=self.hf_endpoint, token=self.hf_token, offline=self.hf_offline)

    @property
    def oauth(self) -> bool:
        """Installed per workspace through Slack's OAuth flow: SLACK_CLIENT_ID, SLACK_CLIENT_SECRET
        and SLACK_SCOPES set. Otherwise one bot token from the environment (the default)."""
        return bool(self.client_id and self.client_secret and self.scopes)

    @property
    def socket_mode(self) -> bool:
        """Socket Mode when an app-level token is present: no public URL needed."""
        return self.app_token is not None

    def check_for_serve(self) -> None:
        """Raise ConfigError naming the first variable that is missing or has the wrong shape."""
        if self.client_id or self.client_secret or self.scopes:
            missing = [name for name, value in (("SLACK_CLIENT_ID", self.client_id),
                                                ("SLACK_CLIENT_SECRET", self.client_secret),
                                                ("SLACK_SCOPES", self.scopes)) if not value]
            if missing:
                raise ConfigError(f"{', '.join(missing)} not set: the OAuth install needs SLACK_CLIENT_ID, "
                                  "SLACK_CLIENT_SECRET and SLACK_SCOPES together")
            if self.socket_mode:
                raise ConfigError("the OAuth install serves /slack/install over HTTP: unset SLACK_APP_TOKEN")
            if not self.signing_secret:
                raise ConfigError("SLACK_SIGNING_SECRET is not set: HTTP mode needs it to verify requests")
            if self.bot_token:
                raise ConfigError("SLACK_BOT_TOKEN and SLACK_CLIENT_ID are both set: choose one token from the "
                                  "environment or per-workspace installs, not both")
            if not re.match(r"^https?://", self.api_url):
                raise ConfigError(f"SLACK_API_URL must be an http(s) URL, got {self.api_url!r}")
            return
        if not self.bot_token:
            raise ConfigError("SLACK_BOT_TOKEN is not set: export the bot token (xoxb-...) from the app's OAuth page")
        if not self.bot_token.startswith("xoxb-"):
            raise ConfigError("SLACK_BOT_TOKEN does not look like a bot token: it must start with xoxb-")
        if self.socket_mode:
            assert self.app_token is not None
            if not self.app_token.startswith("xapp-"):
                raise ConfigError(
                    "SLACK_APP_TOKEN does not look like an app-level token: it must start with xapp-"
                )
        elif not self.signing_secret:
            raise ConfigError(
                "SLACK_SIGNING_SECRET is not set: HTTP mode needs it to verify requests "
                "(or set SLACK_APP_TOKEN for Socket Mode)"
            )
        if not re.match(r"^https?://", self.api_url):
            raise ConfigError(f"SLACK_API_URL must be an http(s) URL, got {self.api_url!r}")

    def secrets(self) -> list[str]:
        """What must never appear in a log line (a database URL can hold a password)."""
        out = [v for v in (getattr(self, f) for f in SECRET_FIELDS) if isinstance(v, str) and v]
        password = _url_password(self.db_path)
        return [*out, password] if password else out

    def __repr__(self) -> str:
        parts = []
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "db_path" and is_database_url(value):
                shown = repr(_without_password(str(value)))
            elif f.name in SECRET_FIELDS and f.name != "db_path":
                shown = "'***'" if value else "None"
            else:
                shown = repr(value)
            parts.append(f"{f.name}={shown}")
        return f"Config({', '.join(parts)})"

    __str__ = __repr__


def _positive_hours(value: str | None) -> float | None:
    """GPU_ADVISOR_REFRESH_HOURS: a positive number of hours, else no schedule (0 or junk: off, logged)."""
    if value is None:
        return None
    try:
        hours = float(value)
    except ValueError:
        logging.getLogger(__name__).warning("GPU_ADVISOR_REFRESH_HOURS=%r is not a number: no scheduled refresh", value)
        return None
    return hours if hours > 0 else None
def is_database_url(value: object) -> bool:
    """GPU_ADVISOR_DB holds a PostgreSQL URL (shared by several hosts) rather than a SQLite path."""
    return isinstance(value, str) and value.startswith(("postgresql://", "postgres://"))


def _url_password(value: object) -> str | None:
    if not is_database_url(value):
        return None
    from urllib.parse import urlsplit

    return urlsplit(str(value)).password


def _without_password(url: str) -> str:
    password = _url_password(url)
    return url.replace(f":{password}@", ":***@", 1) if password else url


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """Replace every known secret and anything shaped like a Slack token with ***."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return _TOKEN_PATTERN.sub("***", text)


_installed_secrets: set[str] = set()


def install_log_redaction(secrets: Iterable[str] = ()) -> None:
    """Make every log record in the process redact tokens and the signing secret.

    Why a record factory rather than a handler filter: slack_sdk logs request headers (including
    `Authorization: Bearer xoxb-...`) at DEBUG from its own loggers, and a filter on one logger or
    one handler misses records that go to handlers added later (pytest's caplog, a user's config).
    """
    _installed_secrets.update(s for s in secrets if s)
    if getattr(logging.getLogRecordFactory(), "_gpu_advisor_redacting", False):
        return
    base = logging.getLogRecordFactory()

    def factory(*args: object, **kwargs: object) -> logging.LogRecord:
        record = base(*args, **kwargs)  # type: ignore[arg-type]
        try:
            message = record.getMessage()
        except Exception:  # a malformed record: leave it to the logging machinery to report
            return record
        cleaned = redact(message, _installed_secrets)
        if cleaned != message or record.args:
            record.msg, record.args = cleaned, ()
        return record

    factory._gpu_advisor_redacting = True  # type: ignore[attr-defined]
    logging.setLogRecordFactory(factory)
