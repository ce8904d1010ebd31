"""Configuration is read once, and secrets never appear in its repr or in log output."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from bot.config import Config, ConfigError, install_log_redaction

ENV = {"SLACK_BOT_TOKEN": "xoxb-123-secret", "SLACK_SIGNING_SECRET": "shh-signing", "SLACK_APP_TOKEN": "",
       "SLACK_API_URL": "http://127.0.0.1:9/api", "GPU_ADVISOR_DB": "/tmp/x/threads.db"}


def test_from_env() -> None:
    config = Config.from_env(ENV)
    assert config.api_url == "http://127.0.0.1:9/api/" and not config.socket_mode
    assert str(config.db_path) == "/tmp/x/threads.db"
    config.check_for_serve()


def test_repr_redacts_secrets() -> None:
    text = repr(Config.from_env(ENV))
    assert "xoxb-123-secret" not in text and "shh-signing" not in text and "***" in text


def test_logs_are_redacted(caplog: pytest.LogCaptureFixture) -> None:
    install_log_redaction(["shh-signing"])
    with caplog.at_level(logging.INFO):
        logging.getLogger("any").info("token %s secret %s", "xoxb-999-abc", "shh-signing")
    assert "xoxb-999-abc" not in caplog.text and "shh-signing" not in caplog.text


@pytest.mark.parametrize(("env", "needle"), [
    ({}, "SLACK_BOT_TOKEN"),
    ({"SLACK_BOT_TOKEN": "xoxp-user"}, "SLACK_BOT_TOKEN"),
    ({"SLACK_BOT_TOKEN": "xoxb-1"}, "SLACK_SIGNING_SECRET"),
    ({"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_APP_TOKEN": "nope"}, "SLACK_APP_TOKEN"),
])
def test_missing_or_wrong_settings_name_the_variable(env: dict[str, str], needle: str) -> None:
    with pytest.raises(ConfigError, match=needle):
        Config.from_env(env).check_for_serve()


def test_a_postgres_url_is_kept_and_its_password_never_shown() -> None:
    config = Config.from_env({"GPU_ADVISOR_DB": "postgresql://app:s3cret-pw@db.internal:5432/gpu"})
    assert config.db_path == "postgresql://app:s3cret-pw@db.internal:5432/gpu"
    assert "s3cret-pw" not in repr(config) and "s3cret-pw" in config.secrets()
    assert Config.from_env({"GPU_ADVISOR_DB": "/tmp/x/threads.db"}).db_path == Path("/tmp/x/threads.db")


def test_oauth_needs_all_three_settings_and_no_bot_token() -> None:
    base = {"SLACK_SIGNING_SECRET": "s", "SLACK_CLIENT_ID": "1.2", "SLACK_CLIENT_SECRET": "cs",
            "SLACK_SCOPES": "chat:write, app_mentions:read"}
    config = Config.from_env(base)
    assert config.oauth and config.scopes == ("chat:write", "app_mentions:read")
    config.check_for_serve()  # no SLACK_BOT_TOKEN needed
    assert "cs" not in repr(config).replace("'***'", "")
    for missing in ("SLACK_CLIENT_ID", "SLACK_CLIENT_SECRET", "SLACK_SCOPES"):
        with pytest.raises(ConfigError, match=missing):
            Config.from_env({k: v for k, v in base.items() if k != missing}).check_for_serve()
    with pytest.raises(ConfigError, match="both set"):
        Config.from_env({**base, "SLACK_BOT_TOKEN": "xoxb-1"}).check_for_serve()
    with pytest.raises(ConfigError, match="HTTP"):
        Config.from_env({**base, "SLACK_APP_TOKEN": "xapp-1"}).check_for_serve()
