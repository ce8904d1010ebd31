"""Fixtures for the bot tests: a fake Slack Web API, a running app on a free loopback port, and a
client that signs requests the way Slack does."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.config import Config
from bot.server import Running, start
from tests.bot import pg_server as _pg
from tests.bot.fake_slack import FakeSlack
from tests.bot.signing import SIGNING_SECRET, signed_headers
from tests.bot.stub import stub_advisor

BOT_TOKEN = "xoxb-1111-2222-secretbottoken"
# the PostgreSQL server and the per-backend store fixture (tests/bot/pg_server.py)
pg_server = _pg.pg_server
store_target = _pg.store_target


@pytest.fixture
def fake_slack() -> Iterator[FakeSlack]:
    fake = FakeSlack()
    yield fake
    fake.stop()


def make_config(fake: FakeSlack, db: Path | str, **overrides: object) -> Config:
    values: dict[str, object] = dict(bot_token=BOT_TOKEN, signing_secret=SIGNING_SECRET, api_url=fake.api_url,
                                     db_path=db, retry_backoff_s=0.01)
    values.update(overrides)
    return Config(**values)  # type: ignore[arg-type]


@dataclass
class Reply:
    status: int
    body: str
    headers: dict[str, str]


class AppClient:
    """Posts to the running app's /slack/events, signed unless told otherwise."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url

    def post(self, body: str, headers: dict[str, str] | None = None, *, content_type: str = "application/json",
             **sign: object) -> Reply:
        headers = headers if headers is not None else signed_headers(body, content_type=content_type, **sign)  # type: ignore[arg-type]
        request = urllib.request.Request(self.base_url + "/slack/events", data=body.encode(), headers=headers,
                                         method="POST")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return Reply(response.status, response.read().decode(), dict(response.headers))
        except urllib.error.HTTPError as error:
            return Reply(error.code, error.read().decode(), dict(error.headers))

    def get(self, path: str) -> Reply:
        with urllib.request.urlopen(self.base_url + path, timeout=5) as response:
            return Reply(response.status, response.read().decode(), dict(response.headers))


@pytest.fixture(scope="session")
def real_advisor():
    """The real catalog + parser + engine, opened once (the catalog builds in memory)."""
    from bot.service import Advisor

    return Advisor.open()


DOUBT = ("nebius.com/prices read 2026-09-25 listed HGX H100 at $3.85/GPU-h: re-check before quoting")


@pytest.fixture(scope="session")
def doubted_advisor(tmp_path_factory: pytest.TempPathFactory):
    """The real advisor with Nebius's H100 rows carrying a newer list price than their own ($3.85 against $2.95), as a
    team's own offers file (`GPU_ADVISOR_CATALOG_DIR`) may: what the answers do with a price whose sources disagree."""
    import csv

    from bot.service import Advisor
    from catalog.query import DEFAULT_DATA_DIR

    with (DEFAULT_DATA_DIR / "offers.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    doubted = [dict(r, notes=f"{r['notes']}; {DOUBT}" if r["notes"] else DOUBT) for r in rows
               if r["provider"] == "nebius" and r["gpu"] == "h100-sxm"]
    assert len(doubted) == 2
    directory = tmp_path_factory.mktemp("doubted")
    with (directory / "offers.csv").open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(doubted)
    return Advisor.open(extra_data_dirs=[directory])


@pytest.fixture
def running(fake_slack: FakeSlack, store_target: Path | str, real_advisor) -> Iterator[Running]:
    """The app on each state store (a SQLite file, a PostgreSQL database): every test using it runs twice."""
    app = start(make_config(fake_slack, store_target), port=0, advisor=real_advisor)
    yield app
    app.stop()


@pytest.fixture
def stub_client(fake_slack: FakeSlack, store_target: Path | str) -> Iterator[AppClient]:
    """The app with a stub advisor that raises on "explode": for failure handling."""
    app = start(make_config(fake_slack, store_target), port=0, advisor=stub_advisor())
    assert app.http is not None
    yield AppClient(app.http.url)
    app.stop()


@pytest.fixture
def client(running: Running) -> AppClient:
    assert running.http is not None
    return AppClient(running.http.url)


def blocks_of(call) -> list[dict]:
    blocks = call.params.get("blocks")
    return json.loads(blocks) if isinstance(blocks, str) else blocks
