"""No reply is lost to a crash or a Slack outage, and none is sent twice.

- kill -9 after the ack, before the answer (made deterministic by GPU_ADVISOR_TEST_HOLD_TURNS, which
  blocks every turn right after its claim): the restarted server answers the event exactly once, and
  Slack's own re-delivery of it is not answered again;
- two servers started at once on that database: still exactly one answer;
- Slack failing for longer than the client's retry budget: the reply is queued in the outbox and
  arrives once Slack recovers, before the later reply in the same thread;
- the outbox survives a kill -9: a queued reply is sent by the next process;
- kill -9 after Slack took the reply but before it was marked sent (GPU_ADVISOR_TEST_HOLD_AFTER_POST):
  the next process reads the thread, finds the reply's outbox id in its metadata, and does not post it again.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.outbox import Outbox
from bot.server import Running, start
from bot.state import ThreadStore
from tests.bot.conftest import AppClient, blocks_of, make_config
from tests.bot.fake_slack import Call, FakeSlack
from tests.bot.stub import stub_advisor
from tests.bot.test_e2e_http import SCENARIO, mention, thread_reply
from tests.bot.test_e2e_restart import serve, stop

pytestmark = pytest.mark.slow
ROOT_TS = "1700000001.000100"


def accepted(call: Call) -> bool:
    return call.status == 200


def kill9(process: subprocess.Popen[str]) -> None:
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=10)  # reaped: its pid is gone, so the journal sees the owner died


def outbox_rows(db: Path | str) -> int:
    store = ThreadStore(db)
    try:
        return Outbox(store).pending()
    finally:
        store.close()


def held_then_killed(fake: FakeSlack, db: Path | str) -> None:
    """A mention acked and claimed by a server that is then killed before answering it."""
    process, client = serve(fake, db, GPU_ADVISOR_TEST_HOLD_TURNS="1")
    try:
        assert client.post(mention(SCENARIO, event_id="EvHeld")).status == 200  # acked: Slack will not re-send
        time.sleep(0.3)
        assert fake.of("chat.postMessage") == []
    finally:
        kill9(process)


def test_a_turn_killed_after_the_ack_is_answered_once_after_restart(fake_slack: FakeSlack, store_target: Path | str) -> None:
    db = store_target
    held_then_killed(fake_slack, db)
    process, client = serve(fake_slack, db)
    try:
        [post] = fake_slack.wait_for("chat.postMessage", timeout=20)
        assert post.params["thread_ts"] == ROOT_TS and "Fits" in json.dumps(blocks_of(post))
        client.post(mention(SCENARIO, event_id="EvHeld"), retry_num=1)  # Slack's re-delivery, late
        time.sleep(0.5)
        assert len(fake_slack.of("chat.postMessage")) == 1
    finally:
        stop(process)


def test_a_reply_posted_as_the_server_died_is_not_posted_again(fake_slack: FakeSlack, store_target: Path | str) -> None:
    process, client = serve(fake_slack, store_target, GPU_ADVISOR_TEST_HOLD_AFTER_POST="1")
    try:
        assert client.post(mention(SCENARIO, event_id="EvPosted")).status == 200
        [post] = fake_slack.wait_for("chat.postMessage", timeout=20)  # Slack has it; its row is not settled
    finally:
        kill9(process)
    assert outbox_rows(store_target) == 1
    process, _ = serve(fake_slack, store_target)
    try:
        deadline = time.monotonic() + 20
        while outbox_rows(store_target) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert outbox_rows(store_target) == 0  # settled by the next process...
        assert fake_slack.of("chat.postMessage") == [post]  # ...without a second post
        [check] = fake_slack.of("conversations.replies")
        assert check.params["ts"] == ROOT_TS and check.params["include_all_metadata"] in ("1", "true", True)
    finally:
        stop(process)


def test_two_servers_starting_at_once_answer_the_orphan_once(fake_slack: FakeSlack, store_target: Path | str) -> None:
    db = store_target
    held_then_killed(fake_slack, db)
    processes = []
    try:
        processes = [serve(fake_slack, db)[0] for _ in range(2)]
        fake_slack.wait_for("chat.postMessage", timeout=20)
        time.sleep(2.0)  # both have run their start-up replay by now
        assert len(fake_slack.of("chat.postMessage")) == 1
    finally:
        for process in processes:
            stop(process)


@pytest.fixture
def outbox_app(fake_slack: FakeSlack, store_target: Path | str) -> Iterator[Running]:
    """The stub advisor and a fast outbox back-off (0.1 s doubling to 0.4 s), on each state store."""
    config = make_config(fake_slack, store_target, outbox_retry_base_s=0.1, outbox_retry_max_s=0.4,
                         maintenance_tick_s=0.05)
    app = start(config, port=0, advisor=stub_advisor())
    yield app
    app.stop()


def test_a_long_outage_delays_replies_in_order_and_loses_none(outbox_app: Running, fake_slack: FakeSlack) -> None:
    assert outbox_app.http is not None
    client = AppClient(outbox_app.http.url)
    fake_slack.outage("chat.postMessage", 500)
    client.post(mention("qlora 70b 20 runs", event_id="EvOut1"))
    fake_slack.wait_for("chat.postMessage", 5, where=lambda c: c.status == 500)  # past the client's 2 retries
    client.post(thread_reply("what about 40 runs?", thread_ts=ROOT_TS, ts="1700000002.000100", event_id="EvOut2"))
    time.sleep(0.5)
    assert fake_slack.accepted() == [] and outbox_rows(outbox_app.config.db_path) == 2
    fake_slack.recover()
    fake_slack.wait_for("chat.postMessage", 2, where=accepted)
    time.sleep(0.5)
    first, second = fake_slack.accepted()
    assert [first.params["thread_ts"], second.params["thread_ts"]] == [ROOT_TS, ROOT_TS]
    assert "What changed" not in json.dumps(blocks_of(first))
    assert "What changed" in json.dumps(blocks_of(second)) and "40" in json.dumps(blocks_of(second))
    assert "Sorry" not in first.params["text"] + second.params["text"]
    assert outbox_rows(outbox_app.config.db_path) == 0


def test_a_reply_slack_refuses_for_good_becomes_the_apology(outbox_app: Running, fake_slack: FakeSlack) -> None:
    assert outbox_app.http is not None
    fake_slack.refuse("chat.postMessage", "invalid_blocks")
    AppClient(outbox_app.http.url).post(mention("qlora 70b 20 runs", event_id="EvRefused"))
    fake_slack.wait_for("chat.postMessage", 2)
    time.sleep(0.3)
    answer, apology = fake_slack.of("chat.postMessage")
    assert "Sorry" in apology.params["text"] and len(fake_slack.of("chat.postMessage")) == 2  # no loop
    assert outbox_rows(outbox_app.config.db_path) == 0


def test_the_outbox_survives_a_kill_9(fake_slack: FakeSlack, store_target: Path | str) -> None:
    db = store_target
    fake_slack.outage("chat.postMessage", 500)
    process, client = serve(fake_slack, db)
    try:
        assert client.post(mention(SCENARIO, event_id="EvQueued")).status == 200
        fake_slack.wait_for("chat.postMessage", 3, timeout=20, where=lambda c: c.status == 500)
        assert outbox_rows(db) == 1
    finally:
        kill9(process)
    fake_slack.recover()
    process, client = serve(fake_slack, db)
    try:
        [post] = fake_slack.wait_for("chat.postMessage", where=accepted, timeout=20)
        assert post.params["thread_ts"] == ROOT_TS and "Fits" in json.dumps(blocks_of(post))
        time.sleep(0.5)
        assert len(fake_slack.accepted()) == 1 and outbox_rows(db) == 0
    finally:
        stop(process)


def test_nothing_secret_is_logged_while_queueing(outbox_app: Running, fake_slack: FakeSlack,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    assert outbox_app.http is not None
    fake_slack.outage("chat.postMessage", 503)
    AppClient(outbox_app.http.url).post(mention("qlora 70b 20 runs", event_id="EvQuiet"))
    fake_slack.wait_for("chat.postMessage", 4, where=lambda c: c.status == 503)
    fake_slack.recover()
    fake_slack.wait_for("chat.postMessage", where=accepted)
    assert "queued" in caplog.text and "xoxb-" not in caplog.text and os.environ.get("SLACK_BOT_TOKEN", "xoxb") not in caplog.text
