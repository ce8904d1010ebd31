"""The strict fake Slack refuses what real Slack refuses, with Slack's error shapes.

Each test calls the fake over real HTTP with slack_sdk's own clients (the ones the app uses), so a
rejection here is the exception or response the app would see from Slack.
"""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.webhook import WebhookClient

from bot.limits import fit_message
from bot.server import start
from tests.bot.conftest import make_config
from tests.bot.fake_slack import FakeSlack, FakeSocketModeServer
from tests.bot.test_e2e_http import SCENARIO, mention

# slack_sdk warns when a post has blocks but no text: some tests send exactly that on purpose
pytestmark = pytest.mark.filterwarnings("ignore:The top-level `text` argument is missing:UserWarning")

BOT = "xoxb-1-2-bot"
APP = "xapp-1-A1-app"
SECTION = {"type": "section", "text": {"type": "mrkdwn", "text": "hello"}}


@pytest.fixture
def fake() -> Iterator[FakeSlack]:
    server = FakeSlack()
    yield server
    server.stop()


def client(fake: FakeSlack, token: str | None = BOT) -> WebClient:
    return WebClient(token=token, base_url=fake.api_url, timeout=5)  # no retry handlers: see every answer


def error_of(call) -> SlackApiError:  # type: ignore[no-untyped-def]
    with pytest.raises(SlackApiError) as info:
        call()
    return info.value


def post(fake: FakeSlack, token: str | None = BOT, **params: object):  # type: ignore[no-untyped-def]
    return client(fake, token).chat_postMessage(**{"channel": "C1", "text": "hi", **params})  # type: ignore[arg-type]


# --- token type per method ---------------------------------------------------------------------------

def test_bot_token_posts(fake: FakeSlack) -> None:
    assert post(fake)["ok"] is True
    assert [c.ok for c in fake.of("chat.postMessage")] == [True]


@pytest.mark.parametrize(("token", "error"), [
    (APP, "not_allowed_token_type"),  # app-level token on a Web API method
    ("xoxp-1-user", "not_allowed_token_type"),  # a user token is not the bot
    (None, "not_authed"),
    ("xoxb-bad", "invalid_auth"),
])
def test_wrong_token_is_refused_for_chat_post_message(fake: FakeSlack, token: str | None, error: str) -> None:
    exc = error_of(lambda: post(fake, token))
    assert exc.response["error"] == error
    assert fake.accepted() == [] and fake.rejected("chat.postMessage")[0].error == error


def test_apps_connections_open_takes_only_the_app_level_token(fake: FakeSlack) -> None:
    assert client(fake, APP).apps_connections_open(app_token=APP)["ok"] is True
    exc = error_of(lambda: client(fake, BOT).api_call("apps.connections.open"))
    assert exc.response["error"] == "not_allowed_token_type"


@pytest.mark.parametrize("method", ["auth.test", "views.publish", "files.getUploadURLExternal"])
def test_app_level_token_is_refused_on_other_methods(fake: FakeSlack, method: str) -> None:
    exc = error_of(lambda: client(fake, APP).api_call(method, json={"user_id": "U1", "view": {"type": "home", "blocks": []}}))
    assert exc.response["error"] == "not_allowed_token_type"


def test_unknown_method(fake: FakeSlack) -> None:
    assert error_of(lambda: client(fake).api_call("chat.postMesage")).response["error"] == "unknown_method"


# --- required arguments ------------------------------------------------------------------------------

@pytest.mark.parametrize(("params", "error"), [
    ({"channel": ""}, "channel_not_found"),
    ({"text": ""}, "no_text"),
    ({"thread_ts": "yesterday"}, "invalid_arguments"),
    ({"thread_ts": "1700000001"}, "invalid_arguments"),
    ({"text": "x" * 40_001}, "msg_too_long"),
])
def test_chat_post_message_arguments(fake: FakeSlack, params: dict, error: str) -> None:
    exc = error_of(lambda: post(fake, **params))
    assert exc.response["error"] == error


def test_blocks_without_text_are_accepted_and_thread_ts_format(fake: FakeSlack) -> None:
    assert post(fake, text="", blocks=[SECTION])["ok"]
    assert post(fake, thread_ts="1700000001.000100")["ok"]


def test_chat_update_needs_ts(fake: FakeSlack) -> None:
    exc = error_of(lambda: client(fake).api_call("chat.update", json={"channel": "C1", "text": "x"}))
    assert exc.response["error"] == "invalid_arguments"
    assert "ts" in exc.response["response_metadata"]["messages"][0]
    assert client(fake).chat_update(channel="C1", ts="1700000001.000100", text="x")["ok"]


def test_views_publish_needs_user_and_a_home_view(fake: FakeSlack) -> None:
    home = {"type": "home", "blocks": [SECTION]}
    assert client(fake).views_publish(user_id="U1", view=home)["ok"]
    for body in ({"user_id": "U1"}, {"view": home}, {"user_id": "U1", "view": {"type": "modal", "blocks": []}},
                 {"user_id": "U1", "view": {"type": "home", "blocks": [SECTION] * 101}}):
        exc = error_of(lambda body=body: client(fake).api_call("views.publish", json=body))
        assert exc.response["error"] == "invalid_arguments", body


def test_file_upload_arguments(fake: FakeSlack) -> None:
    exc = error_of(lambda: client(fake).files_getUploadURLExternal(filename="", length=10))
    assert exc.response["error"] == "invalid_arguments"
    exc = error_of(lambda: client(fake).files_completeUploadExternal(files=[{"id": "F_NEVER_UPLOADED"}]))
    assert exc.response["error"] == "file_not_found"


# --- Block Kit ----------------------------------------------------------------------------------------

@pytest.mark.parametrize(("blocks", "pointer"), [
    ([{"type": "section", "text": {"type": "mrkdwn", "text": "x" * 3001}}], "/blocks/0"),
    ([{"type": "section", "fields": [{"type": "mrkdwn", "text": "f"}] * 11}], "/blocks/0"),
    ([SECTION] * 51, "/blocks"),
    ([{"type": "actions", "elements": [{"type": "button", "action_id": "a", "text": {"type": "plain_text", "text": "b" * 76}}]}],
     "/blocks/0"),
    ([{"type": "header", "text": {"type": "plain_text", "text": ""}}], "/blocks/0/text/text"),
    ([{"type": "sektion"}], "/blocks/0/type"),
    ([{"type": "table", "rows": [[{"type": "mrkdwn", "text": "a"}]]}], "/blocks/0/rows/0/0/type"),
])
def test_invalid_blocks_are_answered_like_slack(fake: FakeSlack, blocks: list, pointer: str) -> None:
    exc = error_of(lambda: post(fake, blocks=blocks))
    body = exc.response.data
    assert body["ok"] is False and body["error"] == "invalid_blocks"
    messages = body["response_metadata"]["messages"]
    assert messages and all(m.startswith("[ERROR] ") for m in messages)
    assert any(f"[json-pointer:{pointer}" in m for m in messages), messages


def test_blocks_that_are_not_json_are_refused(fake: FakeSlack) -> None:
    request = urllib.request.Request(fake.api_url + "chat.postMessage", data=b"channel=C1&text=x&blocks=%5Bnot-json",
                                     headers={"Authorization": f"Bearer {BOT}",
                                              "Content-Type": "application/x-www-form-urlencoded"})
    with urllib.request.urlopen(request, timeout=5) as response:
        assert json.loads(response.read())["ok"] is False


def test_the_apps_repaired_messages_are_accepted(fake: FakeSlack) -> None:
    """What fit_message makes of oversized input is what Slack takes."""
    blocks = [{"type": "section", "text": {"type": "mrkdwn", "text": "\n".join("line " * 30 for _ in range(300))}}] * 3
    for message in fit_message(blocks, "fallback"):
        assert post(fake, text=message.text, blocks=message.blocks)["ok"]


# --- Slack's error shapes on demand ------------------------------------------------------------------

@pytest.mark.parametrize("error", ["channel_not_found", "not_in_channel", "msg_too_long", "is_archived"])
def test_refusals_carry_slacks_error_code(fake: FakeSlack, error: str) -> None:
    fake.refuse("chat.postMessage", error)
    exc = error_of(lambda: post(fake))
    assert exc.response.status_code == 200 and exc.response["error"] == error
    assert fake.rejected("chat.postMessage")[0].error == error


def test_missing_scope_names_the_scope(fake: FakeSlack) -> None:
    fake.refuse("files.getUploadURLExternal", "missing_scope")
    exc = error_of(lambda: client(fake).files_getUploadURLExternal(filename="a.png", length=3))
    assert exc.response["needed"] == "files:write"


def test_ratelimited_with_retry_after(fake: FakeSlack) -> None:
    fake.rate_limit("chat.postMessage", retry_after=7)
    exc = error_of(lambda: post(fake))
    assert exc.response.status_code == 429
    assert exc.response["error"] == "ratelimited"
    assert exc.response.headers.get("Retry-After", exc.response.headers.get("retry-after")) in ("7", ["7"])
    assert post(fake)["ok"]  # only the next call


# --- response_url -------------------------------------------------------------------------------------

@pytest.mark.parametrize(("payload", "status", "error"), [
    ({"text": "hi", "response_type": "ephemeral"}, 200, None),
    ({"blocks": [SECTION], "response_type": "in_channel", "delete_original": True}, 200, None),
    ({"response_type": "ephemeral"}, 400, "no_text"),
    ({"text": "hi", "response_type": "everyone"}, 400, "invalid_payload"),
    ({"text": "hi", "replace_original": "yes"}, 400, "invalid_payload"),
    ({"text": "hi", "blocks": [SECTION] * 51}, 400, "invalid_blocks"),
    ({"text": "hi", "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": ""}}]}, 400, "invalid_blocks"),
])
def test_response_url_payloads(fake: FakeSlack, payload: dict, status: int, error: str | None) -> None:
    response = WebhookClient(fake.response_url("r9")).send_dict(payload)
    assert response.status_code == status
    assert response.body == (error or "ok")
    [call] = fake.of("response/r9")
    assert call.ok is (error is None) and call.error == error


# --- the app against the strict fake: a wrong token is caught ----------------------------------------

def _socket_mode_answer(fake_slack: FakeSlack, tmp_path: Path, advisor) -> None:  # type: ignore[no-untyped-def]
    ws = FakeSocketModeServer()
    fake_slack.ws_url = ws.url
    config = make_config(fake_slack, tmp_path / "threads.db", signing_secret=None, app_token="xapp-1-A1-secretapp")
    running = start(config, advisor=advisor)
    try:
        assert ws.connected.wait(5)
        ws.push_event(json.loads(mention(SCENARIO, event_id="EvTok")), envelope_id="env-tok")
        fake_slack.wait_for("chat.postMessage", timeout=15)
        time.sleep(0.3)
    finally:
        running.stop()
        ws.stop()


@pytest.mark.slow
def test_socket_mode_posts_with_the_bot_token(fake_slack: FakeSlack, tmp_path: Path, real_advisor) -> None:
    _socket_mode_answer(fake_slack, tmp_path, real_advisor)
    assert fake_slack.accepted("apps.connections.open")
    assert fake_slack.accepted("chat.postMessage") and fake_slack.rejected("chat.postMessage") == []


@pytest.mark.slow
def test_the_app_level_token_on_the_web_api_is_refused(fake_slack: FakeSlack, tmp_path: Path, real_advisor,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The bug from the issue: the Web API client built with the xapp- token. Slack refuses it at the
    start-up auth.test, so the app stops with one line instead of running and failing every post."""
    import bot.server
    from bot.config import ConfigError

    real = bot.server.web_client
    monkeypatch.setattr(bot.server, "web_client", lambda config, token=None: real(config, token=config.app_token))
    config = make_config(fake_slack, tmp_path / "threads.db", signing_secret=None, app_token="xapp-1-A1-secretapp")
    with pytest.raises(ConfigError, match="not_allowed_token_type"):
        start(config, advisor=real_advisor)
    assert {c.error for c in fake_slack.rejected("auth.test")} == {"not_allowed_token_type"}
    assert fake_slack.accepted("chat.postMessage") == []
