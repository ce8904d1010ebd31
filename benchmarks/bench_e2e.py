"""End to end over HTTP: a signed event arrives at `/slack/events`, the reply reaches the fake Slack.

Latency is measured from just before the event is sent to the moment the fake Slack receives the
`chat.postMessage` for that thread (both clocks are `time.perf_counter()` in this process), for
`gpu-advisor serve` and for the bare Bolt echo app on the same harness. Throughput is open-loop:
events are sent on a fixed schedule whatever the server does, and latency counts from the
scheduled time, so a server that falls behind cannot hide it by slowing the sender (no
coordinated omission).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from benchmarks.harness import Delivered, Harness, Server, mention_body, percentile, post_event, unique_ts

MESSAGES = (
    "QLoRA 70B, 500GB corpus in S3, 20 runs",
    "Serve Llama 3.1 8B in int8 for 32 concurrent users with 8k context",
    "full fine-tune llama-3-8b on 2B tokens, 3 epochs, 8x H100 at $2.80/hr",
    "LoRA mixtral 8x7b r=16 on 50M tokens, data in GCS",
    "serve qwen2.5-72b for 64 users at 4k context on A100 80GB",
)


@dataclass
class LatencyResult:
    name: str
    samples_ms: list[float]
    ack_ms: list[float]
    lost: int

    texts: list[str] = field(default_factory=list)  # the message of each sample, same order
    why_lost: str = ""  # for lost events: the acks' HTTP statuses and the server's last log lines

    def by_message(self) -> dict[str, list[float]]:
        out: dict[str, list[float]] = {}
        for text, ms in zip(self.texts, self.samples_ms, strict=True):
            out.setdefault(text, []).append(ms)
        return out

    def row(self) -> dict[str, float | int | str]:
        return {"name": self.name, "n": len(self.samples_ms), "p50": percentile(self.samples_ms, 50),
                "p95": percentile(self.samples_ms, 95), "p99": percentile(self.samples_ms, 99),
                "ack_p50": percentile(self.ack_ms, 50), "ack_p99": percentile(self.ack_ms, 99), "lost": self.lost}


def one_event(harness: Harness, server: Server, text: str, channel: str,
              timeout: float = 15.0) -> tuple[float, float, bool, int]:
    """Send one mention and wait for its reply: (ack ms, reply ms, delivered, HTTP status; 0 = no connection)."""
    ts = unique_ts()
    started = time.perf_counter()
    status = post_event(server.url, mention_body(text, channel=channel, ts=ts, event_id=f"Ev{ts}"))
    ack_ms = (time.perf_counter() - started) * 1e3
    posts = harness.slack.wait_replies(channel, ts, 1, timeout=timeout) if status == 200 else []
    if status != 200 or not posts:
        return ack_ms, float("nan"), False, status
    return ack_ms, (posts[0].at - started) * 1e3, True, status


def warm_up(harness: Harness, server: Server, n: int = 12) -> float:
    """The first replies after a start pay one-off costs (Bolt's lazy auth.test, imports, caches).
    Returns the first reply's latency in ms, then sends a few in parallel so every worker is warm."""
    _, first_ms, _, _ = one_event(harness, server, MESSAGES[0], "CWARM", timeout=60)
    with ThreadPoolExecutor(max_workers=n) as pool:
        list(pool.map(lambda i: one_event(harness, server, MESSAGES[i % len(MESSAGES)], f"CWARM{i}", 60), range(n)))
    return first_ms


def latency(harness: Harness, server: Server, n: int, label: str) -> LatencyResult:
    """n mentions one after another (each waits for its reply), cycling through typical messages."""
    samples, acks, texts, lost = [], [], [], 0
    statuses: dict[int, int] = {}
    for i in range(n):
        text = MESSAGES[i % len(MESSAGES)]
        ack_ms, reply_ms, ok, status = one_event(harness, server, text, f"CLAT{i % 10}")
        acks.append(ack_ms)
        if ok:
            samples.append(reply_ms)
            texts.append(text)
        else:
            lost += 1
            statuses[status] = statuses.get(status, 0) + 1
    why = ""
    if lost:  # kept for the report: a lost event must explain itself (status 0 = connection failed)
        why = (f"acks by HTTP status {dict(sorted(statuses.items()))}; server log tail:\n"
               + server.log_tail(20))
    return LatencyResult(label, samples, acks, lost, texts, why)


@dataclass
class Phase(Delivered):
    rate_per_s: float
    sent: int
    delivered: int
    duplicates: int
    non_200: int
    latencies_ms: list[float] = field(repr=False)

    @property
    def ok(self) -> bool:
        return self.lost == 0 and self.duplicates == 0 and self.non_200 == 0 and self.p99 <= 1000.0


def run_phase(harness: Harness, server: Server, rate_per_s: float, seconds: float, *, drain_s: float = 10.0,
              senders: int = 64) -> Phase:
    """Send at `rate_per_s` for `seconds` on a fixed schedule; wait up to `drain_s` for the replies."""
    count = max(1, round(rate_per_s * seconds))
    events = [(f"CTP{i % 50}", unique_ts(), MESSAGES[i % len(MESSAGES)]) for i in range(count)]
    scheduled: dict[tuple[str, str], float] = {}
    statuses: list[int] = []
    lock = threading.Lock()

    def send(channel: str, ts: str, text: str) -> None:
        status = post_event(server.url, mention_body(text, channel=channel, ts=ts, event_id=f"Ev{ts}"))
        with lock:
            statuses.append(status)

    start = time.perf_counter() + 0.05
    with ThreadPoolExecutor(max_workers=senders) as pool:
        for i, (channel, ts, text) in enumerate(events):
            at = start + i / rate_per_s
            delay = at - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            scheduled[(channel, ts)] = at
            pool.submit(send, channel, ts, text)
    deadline = time.monotonic() + drain_s
    latencies, delivered, duplicates = [], 0, 0
    for (channel, ts), at in scheduled.items():
        posts = harness.slack.wait_replies(channel, ts, 1, timeout=max(0.0, deadline - time.monotonic()))
        if posts:
            delivered += 1
            latencies.append((posts[0].at - at) * 1e3)
    time.sleep(0.2)  # a duplicate would arrive just after the first reply
    for channel, ts in scheduled:
        duplicates += max(0, len(harness.slack.replies(channel, ts)) - 1)
    return Phase(rate_per_s, count, delivered, duplicates, sum(1 for s in statuses if s != 200), latencies)


def sustained_rate(harness: Harness, server: Server, rates: Sequence[float], seconds: float,
                   max_events: int = 3000) -> tuple[float, list[Phase]]:
    """Step the rate up until a phase loses, duplicates or has p99 > 1 s; the best passing rate."""
    phases: list[Phase] = []
    best = 0.0
    budget = max_events
    for rate in rates:
        if rate * seconds > budget:
            break
        phase = run_phase(harness, server, rate, seconds)
        budget -= phase.sent
        phases.append(phase)
        if not phase.ok:
            break
        best = rate
        time.sleep(0.5)  # let the server's queues empty between phases
    return best, phases


def engine_ms_per_message(repeat: int) -> float:
    """Median over MESSAGES of the engine's own time (`advise` on the parsed workload, in process):
    the part of each reply's latency that is the planner's, not the serving path's."""
    from benchmarks.bench_core import _time
    from catalog import open_catalog
    from engine.advise import advise
    from parser import Conversation

    catalog = open_catalog()
    data = catalog.data()
    medians = []
    for text in MESSAGES:
        workload = Conversation(resolver=catalog).turn(text).workload
        medians.append(_time(lambda w=workload: advise(w, data), max(1, repeat))[0])
    return percentile(medians, 50)
