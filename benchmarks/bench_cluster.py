"""Two servers on two ports sharing one PostgreSQL database, as two hosts behind a load balancer.

Events are sprayed across both at a fixed rate; a share of them is also re-delivered the way Slack
does (same event_id, X-Slack-Retry-Num, to whichever server the balancer picks: here always the
other one). Part way through, one server is killed with kill -9: events it had acknowledged but not
answered must be answered by the survivor (its replay of a dead process's claims, or a Slack retry
that reaches it), and events sent to the dead one are retried at the survivor, as Slack retries a
failed delivery. Counted per thread at the fake Slack: 0 lost, 0 duplicated is the requirement, a
reply the killed server was posting as it died and the survivor posted again included.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from benchmarks.bench_e2e import MESSAGES
from benchmarks.harness import Delivered, Harness, Server, mention_body, post_event, unique_ts

ALREADY_POSTED = "was already posted by an earlier attempt"  # bot.outbox's log line when a check finds the reply


@dataclass
class ClusterRun(Delivered):
    rate_per_s: float
    sent: int
    retries_sent: int
    failed_over: int  # deliveries refused by the killed server, re-sent to the survivor
    delivered: int
    duplicates: int
    killed_at_s: float
    latencies_ms: list[float] = field(repr=False)
    in_flight_at_kill: int = 0  # acknowledged by the killed server, not answered when it died
    in_flight_answered_once: int = 0  # of those, answered exactly once (by the survivor)
    thread_checks: int = 0  # conversations.replies/history calls: a taken-over or uncertain reply checked first
    found_posted: int = 0  # of those, replies found already in the thread (settled without a second post)
    duplicate_offsets_s: list[tuple[float, ...]] = field(default_factory=list)  # arrival of each copy, from the kill


def spray(harness: Harness, servers: list[Server], *, rate_per_s: float, seconds: float, kill_after_s: float | None,
          retry_every: int = 3, retry_delay_s: float = 0.3, drain_s: float = 40.0, kill_burst: int = 8) -> ClusterRun:
    """Send `rate_per_s` mentions for `seconds`, alternating servers; every `retry_every`-th event is
    re-delivered to the other server `retry_delay_s` later; kill -9 `servers[0]` at `kill_after_s`,
    right after it acknowledged a burst of `kill_burst` more events (so it surely dies holding turns)."""
    count = max(1, round(rate_per_s * seconds))
    events = [(f"CCL{i % 40}", unique_ts(), MESSAGES[i % len(MESSAGES)]) for i in range(count)]
    scheduled: dict[tuple[str, str], float] = {}
    lock = threading.Lock()
    counts = {"retries": 0, "failed_over": 0}
    dead = threading.Event()

    def send(i: int, channel: str, ts: str, text: str) -> None:
        body = mention_body(text, channel=channel, ts=ts, event_id=f"Ev{ts}")
        first, other = servers[i % 2], servers[(i + 1) % 2]
        target = other if (dead.is_set() and first is servers[0]) else first  # the balancer drops a dead host
        status = post_event(target.url, body, timeout=5)
        if status != 200:  # refused, reset or timed out: Slack retries, the balancer picks the live host
            with lock:
                counts["failed_over"] += 1
            for attempt in range(1, 4):
                time.sleep(0.2 * attempt)
                if post_event(servers[1].url, body, retry_num=attempt, timeout=5) == 200:
                    break
        elif i % retry_every == 0:  # a Slack retry although the first delivery was acked (slow ack)
            time.sleep(retry_delay_s)
            retry_target = servers[1] if dead.is_set() else (other if target is first else first)
            post_event(retry_target.url, body, retry_num=1, timeout=5)
            with lock:
                counts["retries"] += 1

    start = time.perf_counter() + 0.05
    killed_at = float("nan")
    burst: list[tuple[str, str]] = []
    kill_clock = float("nan")
    with ThreadPoolExecutor(max_workers=64) as pool:
        for i, (channel, ts, text) in enumerate(events):
            at = start + i / rate_per_s
            if kill_after_s is not None and not dead.is_set() and at - start >= kill_after_s:
                burst = [(f"CKB{j}", unique_ts()) for j in range(kill_burst)]
                burst_at = time.perf_counter()
                acks = list(pool.map(lambda e: post_event(servers[0].url, mention_body(  # noqa: B023
                    MESSAGES[0], channel=e[0], ts=e[1], event_id=f"Ev{e[1]}"), timeout=5), burst))
                for key in burst:
                    scheduled[key] = burst_at
                burst = [key for key, status in zip(burst, acks, strict=True) if status == 200]
                servers[0].kill9()
                kill_clock = time.perf_counter()
                dead.set()
                killed_at = kill_clock - start
            delay = at - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            scheduled[(channel, ts)] = at
            pool.submit(send, i, channel, ts, text)
    deadline = time.monotonic() + drain_s
    latencies, delivered = [], 0
    for (channel, ts), at in scheduled.items():
        posts = harness.slack.wait_replies(channel, ts, 1, timeout=max(0.0, deadline - time.monotonic()))
        if posts:
            delivered += 1
            latencies.append((posts[0].at - at) * 1e3)
    time.sleep(1.0)  # a duplicate would arrive after the first reply
    # Every second copy in a thread is a duplicate, also one of a reply the killed server was sending at the
    # instant of SIGKILL: the survivor reads the thread for the reply's outbox id before sending it again.
    duplicates = 0
    offsets: list[tuple[float, ...]] = []
    for c, t in scheduled:
        posts = harness.slack.replies(c, t)
        if len(posts) > 1:
            offsets.append(tuple(round(p.at - kill_clock, 3) for p in posts))
            duplicates += len(posts) - 1
    held = [key for key in burst if not [p for p in harness.slack.replies(*key) if p.at <= kill_clock]]
    answered_once = sum(1 for key in held if len(harness.slack.replies(*key)) == 1)
    checks = len(harness.slack.of("conversations.replies")) + len(harness.slack.of("conversations.history"))
    found = sum(server.log_text().count(ALREADY_POSTED) for server in servers)
    return ClusterRun(rate_per_s, len(scheduled), counts["retries"], counts["failed_over"], delivered, duplicates,
                      killed_at, latencies, len(held), answered_once, checks, found, offsets)
