"""Per-thread scenarios in SQLite, so a thread can be refined after a restart.

Layout (sqlite-utils, WAL so a reader never blocks the writer):
- `threads`: one row per (team_id, channel, thread_ts) with the parser's `Conversation.to_dict()`
  and the last `Advice` as JSON (the engine's diff needs the previous advice to say what changed).
  Every read and write names the team, so one workspace can never see another's thread.
- `events`: Slack event ids already handled. Slack re-delivers an event it thinks we missed
  (same `event_id`, `X-Slack-Retry-Num` header); claiming the id first makes the second delivery a no-op.

Expiry: a thread untouched for `ttl_days` (30 by default) is deleted, and handled event ids are kept
for a day (Slack retries within minutes). `purge()` runs at start-up and then hourly from `serve`.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlite_utils

EVENT_TTL_S = 24 * 3600.0


@dataclass(frozen=True)
class ThreadKey:
    """Where a scenario lives. `thread_ts` is the thread's root ts ("" for a DM's top level)."""

    team_id: str
    channel: str
    thread_ts: str


@dataclass(frozen=True)
class ThreadState:
    key: ThreadKey
    conversation: dict[str, Any]
    advice_json: str | None
    updated_at: float


class ThreadStore:
    """Thread scenarios and handled event ids. Safe to share between listener threads."""

    def __init__(self, path: str | Path | None = None, *, ttl_days: float = 30.0, clock=time.time) -> None:
        if path is None or str(path) == ":memory:":
            conn = sqlite3.connect(":memory:", check_same_thread=False)
        else:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(str(path), check_same_thread=False, timeout=10)
        self.db = sqlite_utils.Database(conn)
        self.ttl_days = ttl_days
        self._clock = clock
        self._lock = threading.RLock()  # one connection, many listener threads
        self._thread_locks: dict[ThreadKey, threading.Lock] = {}
        if path is not None and str(path) != ":memory:":
            self.db.enable_wal()
        self._create()

    def _create(self) -> None:
        with self._lock:
            self.db.table("threads").create(
                {
                    "team_id": str,
                    "channel": str,
                    "thread_ts": str,
                    "conversation": str,
                    "advice": str,
                    "created_at": float,
                    "updated_at": float,
                },
                pk=("team_id", "channel", "thread_ts"),
                if_not_exists=True,
            )
            self.db.table("threads").create_index(["updated_at"], if_not_exists=True)
            self.db.table("events").create({"event_id": str, "seen_at": float}, pk="event_id", if_not_exists=True)

    # --- threads -----------------------------------------------------------------------------
    def load(self, key: ThreadKey) -> ThreadState | None:
        with self._lock:
            rows = list(
                self.db.query(
                    "select * from threads where team_id = ? and channel = ? and thread_ts = ?",
                    [key.team_id, key.channel, key.thread_ts],
                )
            )
        if not rows:
            return None
        row = rows[0]
        return ThreadState(key, json.loads(row["conversation"]), row["advice"], row["updated_at"])

    def has_scenario(self, key: ThreadKey) -> bool:
        return self.load(key) is not None

    def save(self, key: ThreadKey, conversation: dict[str, Any], advice_json: str | None) -> None:
        now = self._clock()
        with self._lock:
            existing = self.load(key)
            self.db.table("threads").upsert(
                {
                    "team_id": key.team_id,
                    "channel": key.channel,
                    "thread_ts": key.thread_ts,
                    "conversation": json.dumps(conversation, default=str),
                    "advice": advice_json,
                    "created_at": existing.updated_at if existing else now,
                    "updated_at": now,
                },
                pk=("team_id", "channel", "thread_ts"),
            )

    @contextmanager
    def locked(self, key: ThreadKey) -> Iterator[None]:
        """Serialise turns in one thread: two quick replies must not both start from the same state."""
        with self._lock:
            lock = self._thread_locks.setdefault(key, threading.Lock())
        with lock:
            yield

    # --- retries -----------------------------------------------------------------------------
    def claim_event(self, event_id: str) -> bool:
        """True the first time an event id is seen, False for every re-delivery."""
        with self._lock:
            cursor = self.db.execute(
                "insert or ignore into events (event_id, seen_at) values (?, ?)", [event_id, self._clock()]
            )
            self.db.conn.commit()
            return cursor.rowcount == 1

    # --- expiry ------------------------------------------------------------------------------
    def purge(self) -> tuple[int, int]:
        """Delete expired threads and old event ids; returns (threads, events) deleted."""
        now = self._clock()
        with self._lock:
            threads = self.db.execute(
                "delete from threads where updated_at < ?", [now - self.ttl_days * 86400]
            ).rowcount
            events = self.db.execute("delete from events where seen_at < ?", [now - EVENT_TTL_S]).rowcount
            self.db.conn.commit()
            # forget per-thread locks nobody holds, so the dict does not grow with every thread ever seen
            for key in [k for k, lock in self._thread_locks.items() if not lock.locked()]:
                del self._thread_locks[key]
        return threads, events

    def close(self) -> None:
        with self._lock:
            self.db.conn.close()


class Purger:
    """Runs `store.purge()` now and then every `interval_s` on a daemon thread, until stopped."""

    def __init__(self, store: ThreadStore, interval_s: float = 3600.0) -> None:
        self.store = store
        self.interval_s = interval_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="thread-purger", daemon=True)

    def start(self) -> Purger:
        self.store.purge()
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            try:
                self.store.purge()
            except sqlite3.Error:  # a locked or closed database: try again next interval
                continue

    def stop(self) -> None:
        self._stop.set()
