"""The state store's share of a turn: the database work one answered mention does, timed alone.

Per turn: the claim (on the ack path), the thread load, the turn's commit (event done + scenario
saved + reply queued and leased, one transaction) and, after Slack accepted the reply, the settle
(row deleted, next row leased, one transaction): three write transactions. Timed on SQLite with
`synchronous=NORMAL` (the default), on SQLite with `synchronous=FULL` (an fsync of the WAL per
commit, as before) and on PostgreSQL over loopback.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bot.journal import EventJournal, TurnRequest
from bot.limits import Message
from bot.outbox import Outbox
from bot.state import ThreadKey, ThreadStore

CONVERSATION = {"workload": {"mode": "qlora", "model": "llama-3-70b", "runs_per_month": 20}, "history": []}
ADVICE_JSON = "{" + ", ".join(f'"k{i}": "{"x" * 40}"' for i in range(120)) + "}"  # ~6 KB, like a real advice
MESSAGES = [Message(text="answer " * 50, blocks=[{"type": "section", "text": {"type": "mrkdwn", "text": "x" * 2000}}])]


@dataclass
class StoreTiming:
    label: str
    turns: int
    median_ms: float
    p99_ms: float
    transactions: int = 3


def time_turns(target: str | Path, label: str, turns: int, *, synchronous: str | None = None) -> StoreTiming:
    store = ThreadStore(target)
    if synchronous is not None:
        store.backend.conn.execute(f"pragma synchronous={synchronous}")
    journal = EventJournal(store)
    journal.register()
    outbox = Outbox(store, journal=journal)
    samples = []
    try:
        for i in range(turns):
            key = ThreadKey("T1", f"C{i % 20}", f"{1700000000 + i}.000100")
            event_id = f"EvStore{i}"
            started = time.perf_counter()
            journal.claim(event_id, TurnRequest(event_id, key, "U1", "qlora 70b", "mention", started))
            state = store.load(key)
            with store.transaction():
                journal.finish(event_id)
                store.save(key, CONVERSATION, ADVICE_JSON, expected_version=state.version if state else 0)
                row = outbox.enqueue(key, MESSAGES, event_id=event_id, lease=True)
            assert row is not None
            outbox._settle(row, lease_next=True)
            samples.append((time.perf_counter() - started) * 1e3)
    finally:
        store.close()
    ordered = sorted(samples)
    return StoreTiming(label, turns, statistics.median(samples), ordered[max(0, int(len(ordered) * 0.99) - 1)])


def store_timings(turns: int, postgres_url: str | None) -> list[StoreTiming]:
    with tempfile.TemporaryDirectory() as tmp:
        out = [time_turns(Path(tmp) / "normal.db", "SQLite, WAL, synchronous=NORMAL (default)", turns),
               time_turns(Path(tmp) / "full.db", "SQLite, WAL, synchronous=FULL", turns, synchronous="full")]
    if postgres_url:
        out.append(time_turns(postgres_url, "PostgreSQL 15, loopback", turns))
    return out
