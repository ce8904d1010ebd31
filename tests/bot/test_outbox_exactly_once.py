"""Exactly once across a crash mid-send and an ambiguous network error: every reply carries its outbox
id as Slack message metadata, and a process that takes over a leased row (or retries after an
unknown outcome) reads the thread first and settles the row without posting when the id is there.

Real pieces: the fake Slack over HTTP (it stores posts with their metadata and answers
conversations.replies / conversations.history as Slack does), the store (SQLite and PostgreSQL),
the journal's liveness rules, and the bot's Web API client (kept-alive connections, safe retries)."""

from __future__ import annotations

from pathlib import Path

from bot.app import web_client
from bot.journal import EventJournal, Owner
from bot.limits import Message
from bot.outbox import METADATA_EVENT_TYPE, Outbox
from bot.state import ThreadKey, ThreadStore
from tests.bot.conftest import make_config
from tests.bot.fake_slack import FakeSlack
from tests.bot.test_state import Clock

KEY = ThreadKey("T1", "C1", "1700000001.000100")
DM = ThreadKey("T1", "D1", "")


def msg(text: str) -> Message:
    return Message([{"type": "section", "text": {"type": "mrkdwn", "text": text}}], text)


def process(target: str | Path, clock: Clock, name: str) -> Outbox:
    """One bot process on the shared database, on its own host (only its heartbeat tells liveness)."""
    store = ThreadStore(target, clock=clock)
    journal = EventJournal(store, Owner(name, f"host-{name}", 100), stale_after_s=15.0)
    journal.register()
    return Outbox(store, journal=journal, retry_base_s=1.0)


def outbox_ids(fake: FakeSlack, key: ThreadKey) -> list[str]:
    return [m["metadata"]["event_payload"]["outbox_id"] for m in fake.thread(key.channel, key.thread_ts)]


def test_a_reply_posted_by_a_process_that_died_is_not_posted_again(fake_slack: FakeSlack, store_target: str | Path) -> None:
    clock = Clock()
    a, b = process(store_target, clock, "a"), process(store_target, clock, "b")
    client = web_client(make_config(fake_slack, store_target))
    with a.store.transaction():
        row = a.enqueue(KEY, [msg("the answer")], lease=True)
    assert row is not None
    a._post(client, row)  # A's post reached Slack, then A was killed before settling the row
    clock.now += 60  # A's heartbeat is stale: B may take its lease over

    assert b.deliver(client, KEY) is True

    posts = fake_slack.of("chat.postMessage")
    assert len(posts) == 1, "taken over and posted a second time"
    assert posts[0].params["metadata"] == {"event_type": METADATA_EVENT_TYPE, "event_payload": {"outbox_id": row.msg_id}}
    checks = fake_slack.of("conversations.replies")
    assert len(checks) == 1 and checks[0].params["include_all_metadata"] in ("1", "true", True)
    assert b.pending() == 0


def test_a_reply_the_dead_process_never_sent_is_sent_once(fake_slack: FakeSlack, store_target: str | Path) -> None:
    clock = Clock()
    a, b = process(store_target, clock, "a"), process(store_target, clock, "b")
    client = web_client(make_config(fake_slack, store_target))
    with a.store.transaction():
        first = a.enqueue(KEY, [msg("first")], lease=True)
        a.enqueue(KEY, [msg("second")])
    a._post(client, first)  # type: ignore[arg-type]  # posted; "second" never was
    clock.now += 60

    assert b.deliver(client, KEY) is True

    assert [m["text"] for m in fake_slack.thread(KEY.channel, KEY.thread_ts)] == ["first", "second"]
    assert len(set(outbox_ids(fake_slack, KEY))) == 2
    # only the taken-over row needed the check: "second" was never leased by anyone
    assert len(fake_slack.of("conversations.replies")) == 1


def test_a_live_processs_lease_is_not_taken_over(fake_slack: FakeSlack, store_target: str | Path) -> None:
    clock = Clock()
    a, b = process(store_target, clock, "a"), process(store_target, clock, "b")
    client = web_client(make_config(fake_slack, store_target))
    with a.store.transaction():
        a.enqueue(KEY, [msg("the answer")], lease=True)

    assert b.deliver(client, KEY) is False  # A is alive and holds it
    assert fake_slack.of("chat.postMessage") == [] and fake_slack.of("conversations.replies") == []


def _post_whose_answer_is_lost(fake_slack: FakeSlack, store_target: str | Path, key):
    """One reply queued for `key` whose chat.postMessage Slack stores but whose response never arrives."""
    clock = Clock()
    outbox = process(store_target, clock, "a")
    client = web_client(make_config(fake_slack, store_target))
    fake_slack.drop_response("chat.postMessage", 1)
    outbox.enqueue(key, [msg("the answer")])
    return clock, outbox, client


def test_an_unknown_outcome_is_checked_before_the_retry(fake_slack: FakeSlack, store_target: str | Path) -> None:
    """The connection breaks after Slack stored the post: the retry finds it in the thread and stops."""
    clock, outbox, client = _post_whose_answer_is_lost(fake_slack, store_target, KEY)

    assert outbox.deliver(client, KEY) is False  # unknown outcome: queued, not re-sent by the client itself
    assert len(fake_slack.of("chat.postMessage")) == 1
    clock.now += 5
    outbox.drain(client)

    assert len(fake_slack.thread(KEY.channel, KEY.thread_ts)) == 1
    assert len(fake_slack.of("chat.postMessage")) == 1
    assert len(fake_slack.of("conversations.replies")) == 1
    assert outbox.pending() == 0


def test_a_dm_top_level_is_checked_through_the_channel_history(fake_slack: FakeSlack, store_target: str | Path) -> None:
    clock, outbox, client = _post_whose_answer_is_lost(fake_slack, store_target, DM)
    outbox.deliver(client, DM)
    clock.now += 5
    outbox.drain(client)

    assert len(fake_slack.thread("D1", "")) == 1
    assert len(fake_slack.of("conversations.history")) == 1


def test_a_5xx_on_the_post_is_retried_by_the_outbox_after_the_check_not_by_the_client(
        fake_slack: FakeSlack, store_target: str | Path) -> None:
    clock = Clock()
    outbox = process(store_target, clock, "a")
    client = web_client(make_config(fake_slack, store_target))
    fake_slack.fail_next(1, status=500)
    outbox.enqueue(KEY, [msg("the answer")])

    assert outbox.deliver(client, KEY) is False
    assert len(fake_slack.of("chat.postMessage")) == 1  # the client did not re-send it on its own
    clock.now += 5
    outbox.drain(client)

    assert len(fake_slack.accepted("chat.postMessage")) == 1
    assert len(fake_slack.of("conversations.replies")) == 1  # checked first: a 500 may follow a stored post


def test_a_429_is_retried_without_a_check(fake_slack: FakeSlack, store_target: str | Path) -> None:
    clock = Clock()
    outbox = process(store_target, clock, "a")
    client = web_client(make_config(fake_slack, store_target))
    fake_slack.rate_limit("chat.postMessage", retry_after=0, n=1)
    outbox.enqueue(KEY, [msg("the answer")])

    assert outbox.deliver(client, KEY) is True  # the client's 429 handler retried it: certain, not posted
    assert len(fake_slack.accepted("chat.postMessage")) == 1
    assert fake_slack.of("conversations.replies") == []
