"""Socket Mode end to end: `apps.connections.open` at the fake Web API returns the URL of a local
WebSocket; an event pushed over it is acknowledged by envelope id and answered in its thread."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from bot.limits import violations
from bot.server import start
from tests.bot.conftest import blocks_of, make_config
from tests.bot.fake_slack import FakeSlack, FakeSocketModeServer
from tests.bot.test_e2e_http import SCENARIO, mention

pytestmark = pytest.mark.slow


def test_socket_mode_mention_is_answered(fake_slack: FakeSlack, store_target: Path | str, real_advisor) -> None:
    ws = FakeSocketModeServer()
    fake_slack.ws_url = ws.url
    config = make_config(fake_slack, store_target, signing_secret=None, app_token="xapp-1-A1-secretapp")
    running = start(config, advisor=real_advisor)
    try:
        assert running.http is None and running.socket is not None
        [opened] = fake_slack.wait_for("apps.connections.open")
        assert "xapp-1-A1-secretapp" in opened.headers.get("Authorization", "")
        assert ws.connected.wait(5)
        ws.push_event(json.loads(mention(SCENARIO, event_id="EvSock")), envelope_id="env-42")
        [post] = fake_slack.wait_for("chat.postMessage", timeout=15)
        assert post.params["thread_ts"] == "1700000001.000100"
        assert violations(blocks_of(post), text=post.params["text"]) == []
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not any(a.get("envelope_id") == "env-42" for a in ws.acks):
            time.sleep(0.02)
        assert any(a.get("envelope_id") == "env-42" for a in ws.acks)
    finally:
        running.stop()
        ws.stop()
