"""Installing in several workspaces end to end: `/slack/install` -> (Slack) -> `/slack/oauth_redirect`
with the code -> `oauth.v2.access` at the fake -> the workspace's bot token in the installation
store, on each state store; events from that workspace are answered with its own token, a
workspace that never installed is not answered, and an uninstall deletes the installation and the
workspace's threads. The token is never logged."""

from __future__ import annotations

import re
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.server import Running, start
from bot.state import ThreadKey
from tests.bot.conftest import AppClient, make_config
from tests.bot.fake_oauth import CLIENT_ID, CLIENT_SECRET, FakeSlackOAuth
from tests.bot.signing import event_body
from tests.bot.stub import stub_advisor
from tests.bot.test_e2e_http import CHANNEL, mention

pytestmark = pytest.mark.slow
ROOT_TS = "1700000001.000100"


@pytest.fixture
def fake_oauth() -> Iterator[FakeSlackOAuth]:
    fake = FakeSlackOAuth()
    yield fake
    fake.stop()


@pytest.fixture
def oauth_app(fake_oauth: FakeSlackOAuth, store_target: Path | str) -> Iterator[Running]:
    config = make_config(fake_oauth, store_target, bot_token=None, client_id=CLIENT_ID, client_secret=CLIENT_SECRET,
                         scopes=("app_mentions:read", "chat:write"), chart_process=False)
    app = start(config, port=0, advisor=stub_advisor())
    yield app
    app.stop()


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        return None


def get(url: str, headers: dict[str, str] | None = None) -> tuple[int, str, dict[str, str]]:
    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(urllib.request.Request(url, headers=headers or {}), timeout=10) as response:
            return response.status, response.read().decode(), {k.lower(): v for k, v in response.headers.items()}
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(), {k.lower(): v for k, v in error.headers.items()}


def install(base_url: str, fake: FakeSlackOAuth, team_id: str, code: str) -> tuple[int, str]:
    """What a browser does: open the install page, follow Slack's "Allow" back to the redirect URL
    with the code, the state and the state cookie."""
    status, page, headers = get(base_url + "/slack/install")
    assert status in (200, 302), page
    cookie = headers.get("set-cookie", "").split(";", 1)[0]
    state = re.search(r"state=([\w-]+)", page + headers.get("location", "")).group(1)  # type: ignore[union-attr]
    assert f"client_id={CLIENT_ID}" in page + headers.get("location", "")
    fake.approve(code, team_id)
    status, body, _ = get(f"{base_url}/slack/oauth_redirect?code={code}&state={state}", {"Cookie": cookie})
    return status, body


def test_install_answer_with_the_workspace_token_then_uninstall(oauth_app: Running, fake_oauth: FakeSlackOAuth,
                                                                 caplog: pytest.LogCaptureFixture) -> None:
    assert oauth_app.http is not None
    base = oauth_app.http.url
    client = AppClient(base)
    status, body = install(base, fake_oauth, "T2", "code-t2")
    assert status == 200, body
    [exchange] = fake_oauth.of("oauth.v2.access")
    assert exchange.params["code"] == "code-t2"
    installation_store = oauth_app.app.installation_store
    bot = installation_store.find_bot(enterprise_id=None, team_id="T2")
    assert bot is not None and bot.bot_token == "xoxb-T2-4444-oauthtoken"

    assert client.post(mention("qlora 70b", event_id="EvT2", team_id="T2")).status == 200
    [post] = fake_oauth.wait_for("chat.postMessage")
    assert post.headers.get("Authorization") == "Bearer xoxb-T2-4444-oauthtoken"
    assert oauth_app.store.load(ThreadKey("T2", CHANNEL, ROOT_TS)) is not None

    # a workspace that never installed the app gets no answer (and nothing is stored for it)
    client.post(mention("qlora 70b", event_id="EvT9", team_id="T9"))
    time.sleep(0.5)
    assert len(fake_oauth.of("chat.postMessage")) == 1
    assert oauth_app.store.load(ThreadKey("T9", CHANNEL, ROOT_TS)) is None

    uninstalled = event_body({"type": "app_uninstalled", "event_ts": "1700000009.000100"}, event_id="EvGone",
                             team_id="T2")
    assert client.post(uninstalled).status == 200
    deadline = time.monotonic() + 5

    def forgotten() -> bool:  # the listener deletes the bot, then the installation, then the threads
        return (installation_store.find_bot(enterprise_id=None, team_id="T2") is None
                and installation_store.find_installation(enterprise_id=None, team_id="T2") is None
                and oauth_app.store.load(ThreadKey("T2", CHANNEL, ROOT_TS)) is None)

    while time.monotonic() < deadline and not forgotten():
        time.sleep(0.05)
    assert installation_store.find_bot(enterprise_id=None, team_id="T2") is None
    assert installation_store.find_installation(enterprise_id=None, team_id="T2") is None
    assert oauth_app.store.load(ThreadKey("T2", CHANNEL, ROOT_TS)) is None
    assert "xoxb-T2-4444-oauthtoken" not in caplog.text and CLIENT_SECRET not in caplog.text


def test_a_forged_oauth_redirect_installs_nothing(oauth_app: Running, fake_oauth: FakeSlackOAuth) -> None:
    """Without the state Bolt issued (and its cookie), the code is never exchanged."""
    assert oauth_app.http is not None
    fake_oauth.approve("code-x", "T3")
    status, _, _ = get(f"{oauth_app.http.url}/slack/oauth_redirect?code=code-x&state=forged")
    assert status >= 400 and fake_oauth.of("oauth.v2.access") == []
    assert oauth_app.app.installation_store.find_bot(enterprise_id=None, team_id="T3") is None


def test_tokens_revoked_forgets_the_workspace(oauth_app: Running, fake_oauth: FakeSlackOAuth) -> None:
    assert oauth_app.http is not None
    client = AppClient(oauth_app.http.url)
    assert install(oauth_app.http.url, fake_oauth, "T4", "code-t4")[0] == 200
    client.post(mention("qlora 70b", event_id="EvT4", team_id="T4"))
    fake_oauth.wait_for("chat.postMessage")
    revoked = event_body({"type": "tokens_revoked", "tokens": {"bot": ["UBOT"]}, "event_ts": "1700000010.000100"},
                         event_id="EvRevoked", team_id="T4")
    assert client.post(revoked).status == 200
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and oauth_app.store.load(ThreadKey("T4", CHANNEL, ROOT_TS)) is not None:
        time.sleep(0.05)
    assert oauth_app.store.load(ThreadKey("T4", CHANNEL, ROOT_TS)) is None
    assert oauth_app.app.installation_store.find_bot(enterprise_id=None, team_id="T4") is None
