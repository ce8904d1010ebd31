"""Robustness runs against `gpu-advisor serve`, each reduced to counts a reader can check:

- load: many conversations at once in many channels, each a mention and thread follow-ups, some
  events delivered twice as Slack re-delivers them; every turn must get exactly one reply;
- Slack errors: chat.postMessage answers 429 (Retry-After) and then 500 for a while; every reply
  must still arrive, once, as the answer (asserted), also when the outage outlasts the client's
  retry budget (the outbox keeps the reply and re-sends it, bot/outbox.py);
- kill -9: the server is killed while follow-ups are in flight and restarted on the same database;
  every follow-up must be answered (asserted: acked ones are re-run from the event journal,
  bot/journal.py; the others are re-delivered as Slack would) and every thread's scenario must still
  be there (the next follow-up is answered as a refinement).
"""

from __future__ import annotations

import itertools
import json
import sqlite3
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from benchmarks.harness import (
    Harness,
    Post,
    Server,
    deliver,
    mention_body,
    post_event,
    thread_reply_body,
    unique_ts,
)

SCENARIO = "QLoRA 70B, 500GB corpus in S3, 20 runs"
FOLLOW_UPS = ("what about 40 runs?", "try A100s", "what about 10 runs?")


def is_apology(post: Post) -> bool:
    """bot.render.render_error: what the user reads when a turn failed, instead of an answer."""
    return post.text.startswith("Sorry")


def is_refinement(post: Post) -> bool:
    """A follow-up answered from the stored scenario says what changed (see tests/bot/test_e2e_http.py)."""
    return "What changed" in json.dumps(post.blocks) or "What changed" in post.text


# --- load ----------------------------------------------------------------------------------------
@dataclass
class LoadResult:
    conversations: int
    channels: int
    events: int
    redeliveries: int
    replies: int
    lost: int
    duplicates: int
    not_refined: int
    apologies: int
    seconds: float
    workers: int
    refused: int  # first delivery attempts not answered 200 (then re-sent, as Slack does)
    never_acked: int
    lost_events: list[str]


def load_run(harness: Harness, server: Server, *, channels: int, threads_per_channel: int, turns: int,
             workers: int, redeliver_every: int = 3, timeout: float = 30.0) -> LoadResult:
    """`channels x threads_per_channel` conversations of `turns` messages, `workers` at a time.

    Each conversation waits for a reply before its next message, as a person would; every
    `redeliver_every`-th event is sent a second time with X-Slack-Retry-Num (Slack's re-delivery),
    and an event whose POST is not answered 200 is re-sent as Slack would (`harness.deliver`)."""
    conversations = [(f"CLOAD{c:03d}", t) for c in range(channels) for t in range(threads_per_channel)]
    lock = threading.Lock()
    totals = {"events": 0, "redeliveries": 0, "lost": 0, "not_refined": 0, "refused": 0, "never_acked": 0}
    lost_events: list[str] = []
    threads: list[tuple[str, str, int]] = []
    event_numbers = itertools.count(1)

    def converse(channel: str, _: int) -> None:
        root = unique_ts()
        sent = 0
        for turn in range(turns):
            if turn == 0:
                body = mention_body(SCENARIO, channel=channel, ts=root, event_id=f"Ev{root}")
            else:
                ts = unique_ts()
                body = thread_reply_body(FOLLOW_UPS[(turn - 1) % len(FOLLOW_UPS)], channel=channel, ts=ts,
                                         thread_ts=root, event_id=f"Ev{ts}")
            first, last = deliver(server.url, body)
            sent += 1
            with lock:
                numbered = next(event_numbers)
            redelivered = numbered % redeliver_every == 0
            if redelivered:
                post_event(server.url, body, retry_num=1)
            posts = harness.slack.wait_replies(channel, root, turn + 1, timeout=timeout)
            with lock:
                totals["events"] += 1
                totals["redeliveries"] += int(redelivered)
                totals["refused"] += int(first != 200)
                totals["never_acked"] += int(last != 200)
                if len(posts) < turn + 1:
                    totals["lost"] += turn + 1 - len(posts)
                    lost_events.append(f"{json.loads(body)['event_id']} (ack {first}/{last})")
                    break
                if turn > 0 and not is_refinement(posts[turn]):
                    totals["not_refined"] += 1
        with lock:
            threads.append((channel, root, sent))

    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(lambda c: converse(*c), conversations))
    seconds = time.perf_counter() - started
    time.sleep(0.5)  # late duplicates would land now
    replies = duplicates = apologies = 0
    for channel, root, sent in threads:
        posts = harness.slack.replies(channel, root)
        replies += len(posts)
        duplicates += max(0, len(posts) - sent)
        apologies += sum(1 for p in posts if is_apology(p))
    return LoadResult(len(conversations), channels, totals["events"], totals["redeliveries"], replies,
                      totals["lost"], duplicates, totals["not_refined"], apologies, seconds, workers,
                      totals["refused"], totals["never_acked"], lost_events)


# --- Slack errors --------------------------------------------------------------------------------
@dataclass
class ErrorRunResult:
    label: str
    outage: str
    sent: int
    delivered: int  # a reply of any kind reached the thread
    answers: int  # ... and it was the answer, not an apology
    duplicates: int
    failed_calls: dict[int, int]
    max_delay_s: float

    @property
    def lost(self) -> int:
        return self.sent - self.delivered


def slack_error_run(harness: Harness, server: Server, *, windows: list[tuple[float, float, int]], send_for_s: float,
                    rate_per_s: float, label: str, drain_s: float = 20.0) -> ErrorRunResult:
    """Send mentions at `rate_per_s` for `send_for_s` while chat.postMessage fails in `windows`
    ((start_s, end_s, status) relative to the first event); count the replies that got through."""
    harness.slack.windows.clear()
    harness.slack.failed.clear()
    t0 = time.perf_counter()
    for start_s, end_s, status in windows:
        harness.slack.fail_between(t0 + start_s, t0 + end_s, status, retry_after_s=1)
    count = max(1, round(send_for_s * rate_per_s))
    events = [(f"CERR{i % 7}", unique_ts()) for i in range(count)]
    sent_at: dict[tuple[str, str], float] = {}
    for i, (channel, ts) in enumerate(events):
        delay = t0 + i / rate_per_s - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
        sent_at[(channel, ts)] = time.perf_counter()
        post_event(server.url, mention_body(SCENARIO, channel=channel, ts=ts, event_id=f"Ev{ts}"))
    deadline = time.monotonic() + drain_s
    delivered, answers, max_delay = 0, 0, 0.0
    for key, at in sent_at.items():
        posts = harness.slack.wait_replies(*key, count=1, timeout=max(0.0, deadline - time.monotonic()))
        if posts:
            delivered += 1
            answers += int(not is_apology(posts[0]))
            max_delay = max(max_delay, posts[0].at - at)
    time.sleep(0.3)
    duplicates = sum(max(0, len(harness.slack.replies(*key)) - 1) for key in sent_at)
    outage = ", ".join(f"{status} from {a:g} s to {b:g} s" for a, b, status in windows)
    harness.slack.windows.clear()
    result = ErrorRunResult(label, outage, count, delivered, answers, duplicates, dict(harness.slack.failed),
                            max_delay)
    # Slack answered every failed call (no ambiguous timeout), so exactly once is required
    assert (result.lost, result.answers, result.duplicates) == (0, count, 0), result
    return result


# --- kill -9 -------------------------------------------------------------------------------------
@dataclass
class KillResult:
    threads: int
    in_flight: int
    acked_before_kill: int
    answered_before_kill: int
    redelivered_after_restart: int
    follow_ups_unanswered: int
    lost_acked: int  # acknowledged before the kill, so Slack would not re-deliver them (replayed by the bot)
    restart_s: float
    integrity: str
    intact: int
    not_intact: list[str] = field(default_factory=list)
    duplicates: int = 0  # follow-ups answered twice: the at-least-once window (killed after Slack accepted)


def kill9_run(harness: Harness, *, threads: int, settle_s: float = 0.03) -> KillResult:
    """Open `threads` conversations, send a follow-up to each at once, kill -9 the server while
    those are being processed, restart it on the same database, re-send (as Slack would, with
    X-Slack-Retry-Num) the follow-ups that never got a 200, then ask one more follow-up per thread.

    "Intact" means that last follow-up is answered as a refinement of the thread's scenario."""
    server = harness.start("bot")
    db_path = server.db_path
    roots: dict[str, str] = {}
    for i in range(threads):
        channel, root = f"CKILL{i:03d}", unique_ts()
        roots[channel] = root
        post_event(server.url, mention_body(SCENARIO, channel=channel, ts=root, event_id=f"Ev{root}"))
    for channel, root in roots.items():
        harness.slack.wait_replies(channel, root, 1, timeout=30)

    bodies: dict[str, str] = {}
    statuses: dict[str, int] = {}
    lock = threading.Lock()

    def follow_up(channel: str) -> None:
        ts = unique_ts()
        body = thread_reply_body(FOLLOW_UPS[0], channel=channel, ts=ts, thread_ts=roots[channel], event_id=f"Ev{ts}")
        with lock:
            bodies[channel] = body
        status = post_event(server.url, body, timeout=5)
        with lock:
            statuses[channel] = status

    senders = [threading.Thread(target=follow_up, args=(c,)) for c in roots]
    for t in senders:
        t.start()
    time.sleep(settle_s)
    server.kill9()
    for t in senders:
        t.join()
    answered = sum(1 for c, r in roots.items() if len(harness.slack.replies(c, r)) >= 2)
    acked = sum(1 for s in statuses.values() if s == 200)
    integrity = _integrity(db_path)

    started = time.perf_counter()
    server = harness.start("bot", db_path=db_path)
    restart_s = time.perf_counter() - started
    redelivered = 0
    for channel, status in statuses.items():
        if status != 200:  # Slack re-delivers what was never acknowledged
            post_event(server.url, bodies[channel], retry_num=1)
            redelivered += 1
    deadline = time.monotonic() + 20  # re-delivered follow-ups, and acked ones replayed from the journal
    for channel, root in roots.items():
        harness.slack.wait_replies(channel, root, 2, timeout=max(0.0, deadline - time.monotonic()))
    time.sleep(0.3)  # a second answer would land now
    unanswered = [c for c, r in roots.items() if len(harness.slack.replies(c, r)) < 2]
    duplicates = sum(max(0, len(harness.slack.replies(c, r)) - 2) for c, r in roots.items())
    lost_acked = sum(1 for c in unanswered if statuses.get(c) == 200)
    before = {c: len(harness.slack.replies(c, r)) for c, r in roots.items()}
    for channel, root in roots.items():
        ts = unique_ts()
        post_event(server.url, thread_reply_body(FOLLOW_UPS[1], channel=channel, ts=ts, thread_ts=root,
                                                 event_id=f"Ev{ts}"))
    intact, broken = 0, []
    for channel, root in roots.items():
        posts = harness.slack.wait_replies(channel, root, before[channel] + 1, timeout=30)
        if len(posts) > before[channel] and is_refinement(posts[-1]):
            intact += 1
        else:
            broken.append(channel)
    server.stop()
    result = KillResult(threads, len(statuses), acked, answered, redelivered, len(unanswered), lost_acked, restart_s,
                        integrity, intact, broken, duplicates)
    assert (result.follow_ups_unanswered, result.lost_acked) == (0, 0), result
    return result


def _integrity(db_path: Any) -> str:
    """SQLite's own verdict on the thread store after the kill (WAL replayed on open)."""
    try:
        with sqlite3.connect(db_path) as conn:
            return str(conn.execute("pragma integrity_check").fetchone()[0])
    except sqlite3.Error as exc:
        return f"error: {exc}"
