"""Several serving processes on one store, as `docs/deploy.md` runs them:

- `gpu-advisor serve --workers 2`: two processes on one port; every event (and its Slack retry,
  which may land on the other process) is answered exactly once, thread follow-ups included;
- two servers on two ports sharing one database (two hosts behind a load balancer), one killed
  with kill -9 while it holds acknowledged turns: the other answers them, each exactly once, also
  when Slack's retries of those events reach it.
Each test runs on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from bot.journal import DONE, EventJournal
from bot.state import ThreadStore
from tests.bot.conftest import BOT_TOKEN
from tests.bot.fake_slack import FakeSlack, FakeSocketModeServer
from tests.bot.test_e2e_http import mention, thread_reply
from tests.bot.test_e2e_recovery import kill9
from tests.bot.test_e2e_restart import ROOT, serve, stop

pytestmark = pytest.mark.slow
TEXT = "qlora 8b 10 runs"


def thread_ts(i: int) -> str:
    return f"17000000{i:02d}.000100"


def answers_per_thread(fake: FakeSlack) -> Counter[str]:
    return Counter(c.params.get("thread_ts") for c in fake.accepted())


def test_two_workers_answer_each_event_once_whichever_gets_it(fake_slack: FakeSlack,
                                                              store_target: Path | str) -> None:
    process, client = serve(fake_slack, store_target, workers=2, GPU_ADVISOR_CHARTS="0")
    try:
        for i in range(6):
            body = mention(TEXT, ts=thread_ts(i), event_id=f"EvW{i}")
            assert client.post(body).status == 200
            assert client.post(body, retry_num=1).status == 200  # Slack's retry, on either worker
        fake_slack.wait_for("chat.postMessage", 6, timeout=60, where=lambda c: c.status == 200)
        for i in range(3):
            client.post(thread_reply("what about 20 runs?", thread_ts=thread_ts(i), ts=f"17000001{i:02d}.000200",
                                     event_id=f"EvF{i}"))
        fake_slack.wait_for("chat.postMessage", 9, timeout=60, where=lambda c: c.status == 200)
        time.sleep(1.0)
        assert answers_per_thread(fake_slack) == Counter({thread_ts(i): 2 if i < 3 else 1 for i in range(6)})
        store = ThreadStore(store_target)
        try:
            owners = store.backend.conn.execute("select count(*) from owners").fetchone()[0]
            assert owners == 2  # both workers registered in the shared journal
        finally:
            store.close()
    finally:
        stop(process)


def test_a_killed_servers_turns_are_answered_once_by_the_other(fake_slack: FakeSlack,
                                                               store_target: Path | str) -> None:
    doomed, doomed_client = serve(fake_slack, store_target, GPU_ADVISOR_TEST_HOLD_TURNS="1", GPU_ADVISOR_CHARTS="0")
    survivor, survivor_client = serve(fake_slack, store_target, GPU_ADVISOR_CHARTS="0")
    try:
        for i in range(3):  # acknowledged by the doomed server, held before answering
            assert doomed_client.post(mention(TEXT, ts=thread_ts(i), event_id=f"EvK{i}")).status == 200
        for i in range(3, 5):
            assert survivor_client.post(mention(TEXT, ts=thread_ts(i), event_id=f"EvK{i}")).status == 200
        fake_slack.wait_for("chat.postMessage", 2, timeout=60, where=lambda c: c.status == 200)
        kill9(doomed)
        # Slack retries one of the held events at the survivor (the other two only get replayed)
        survivor_client.post(mention(TEXT, ts=thread_ts(0), event_id="EvK0"), retry_num=1)
        fake_slack.wait_for("chat.postMessage", 5, timeout=60, where=lambda c: c.status == 200)
        survivor_client.post(mention(TEXT, ts=thread_ts(1), event_id="EvK1"), retry_num=2)  # a late retry
        time.sleep(1.5)
        assert answers_per_thread(fake_slack) == Counter({thread_ts(i): 1 for i in range(5)})
        store = ThreadStore(store_target)
        try:
            journal = EventJournal(store)
            assert all(journal.state(f"EvK{i}") == DONE for i in range(5))
        finally:
            store.close()
    finally:
        stop(survivor)
        if doomed.poll() is None:
            kill9(doomed)


def test_socket_mode_with_two_workers_answers_each_event_once(fake_slack: FakeSlack, store_target: Path | str) -> None:
    """`SLACK_APP_TOKEN=... gpu-advisor serve --workers 2`: each worker opens its own Socket Mode
    connection (Slack spreads events over them); every event is answered once."""
    ws = FakeSocketModeServer()
    fake_slack.ws_url = ws.url
    env = dict(os.environ, SLACK_BOT_TOKEN=BOT_TOKEN, SLACK_APP_TOKEN="xapp-1-A1-secretapp",
               SLACK_API_URL=fake_slack.api_url, GPU_ADVISOR_DB=str(store_target), GPU_ADVISOR_CHARTS="0")
    env.pop("SLACK_SIGNING_SECRET", None)
    process = subprocess.Popen([sys.executable, "-m", "bot", "serve", "--workers", "2"], cwd=ROOT, env=env,
                               stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    try:
        assert process.stderr is not None
        line = ""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and "connected in Socket Mode" not in line:
            line = process.stderr.readline()
            if not line and process.poll() is not None:
                break
        assert "connected in Socket Mode (2 workers)" in line, line
        assert len(fake_slack.of("apps.connections.open")) == 2
        for i in range(4):
            ws.push_event(json.loads(mention(TEXT, ts=thread_ts(i), event_id=f"EvS{i}")), envelope_id=f"env-{i}")
        fake_slack.wait_for("chat.postMessage", 4, timeout=60, where=lambda c: c.status == 200)
        time.sleep(1.0)
        assert answers_per_thread(fake_slack) == Counter({thread_ts(i): 1 for i in range(4)})
    finally:
        stop(process)
        ws.stop()
