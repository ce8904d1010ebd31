"""Per-thread scenarios in SQLite, so a thread can be refined after a restart; the one connection
the event journal (`bot.journal`) and the reply outbox (`bot.outbox`) share.

Layout (sqlite-utils, WAL so a reader never blocks the writer):
- `threads`: one row per (team_id, channel, thread_ts) with the parser's `Conversation.to_dict()`
  and the last `Advice` as JSON (the engine's diff needs the previous advice to say what changed),
  plus a `version` bumped by every save (a turn saves only over the version it started from).
  Every read and write names the team, so one workspace can never see another's thread.
- `events`, `owners`: Slack event ids and their state (claimed -> done); see `bot.journal`.
- `outbox`: replies not yet accepted by Slack; see `bot.outbox`.

Transactions: the connection is in autocommit mode and `transaction()` opens `BEGIN IMMEDIATE`, so a
turn's scenario, its event's "done" mark and its reply land together or not at all.

Expiry: a thread untouched for `ttl_days` (30 by default) is deleted, and event ids are kept for a
day (Slack retries within minutes). `purge()` runs at start-up and then hourly (`bot.recovery`).
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
OWNER_TTL_S = 24 * 3600.0


class StaleThread(Exception):
    """The thread was saved by someone else since it was loaded: run the turn again."""


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
    version: int = 0


class ThreadStore:
    """Thread scenarios (and the journal's and outbox's tables). Safe to share between threads."""

    def __init__(self, path: str | Path | None = None, *, ttl_days: float = 30.0, clock=time.time) -> None:
        if path is None or str(path) == ":memory:":
            conn = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        else:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(str(path), check_same_thread=False, timeout=10, isolation_level=None)
        self.db = sqlite_utils.Database(conn)
        self.ttl_days = ttl_days
        self.clock = clock
        self._lock = threading.RLock()  # one connection, many listener threads
        self._depth = 0  # nesting of transaction() in the thread holding _lock
        self._thread_locks: dict[ThreadKey, threading.Lock] = {}
        if path is not None and str(path) != ":memory:":
            self.db.enable_wal()
        self._create()

    def _create(self) -> None:
        with self._lock:
            self.db.table("threads").create(
                {"team_id": str, "channel": str, "thread_ts": str, "conversation": str, "advice": str,
                 "created_at": float, "updated_at": float, "version": int},
                pk=("team_id", "channel", "thread_ts"), if_not_exists=True,
            )
            self.db.table("threads").create_index(["updated_at"], if_not_exists=True)
            self.db.table("events").create(
                {"event_id": str, "seen_at": float, "state": str, "owner": str, "team_id": str, "channel": str,
                 "thread_ts": str, "user": str, "text": str, "kind": str, "replays": int},
                pk="event_id", if_not_exists=True,
            )
            self.db.table("owners").create(
                {"owner": str, "host": str, "pid": int, "started_at": float, "beat_at": float},
                pk="owner", if_not_exists=True,
            )
            self.db.table("outbox").create(
                {"id": int, "team_id": str, "channel": str, "thread_ts": str, "text": str, "blocks": str,
                 "kind": str, "event_id": str, "created_at": float, "attempts": int, "next_attempt_at": float,
                 "lease": str, "lease_until": float, "last_error": str},
                pk="id", if_not_exists=True,
            )
            self.db.table("outbox").create_index(["team_id", "channel", "thread_ts", "id"], if_not_exists=True)
            # databases written before the journal and the outbox existed
            for table, columns in (("threads", {"version": int}),
                                   ("events", {"state": str, "owner": str, "team_id": str, "channel": str,
                                               "thread_ts": str, "user": str, "text": str, "kind": str,
                                               "replays": int})):
                have = self.db.table(table).columns_dict
                for name, kind in columns.items():
                    if name not in have:
                        self.db.table(table).add_column(name, kind)
            self.db.table("events").create_index(["state"], if_not_exists=True)

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """`BEGIN IMMEDIATE` ... `COMMIT` (rolled back on an exception). Nested calls join the outer one."""
        with self._lock:
            conn = self.db.conn
            if self._depth:
                self._depth += 1
                try:
                    yield conn
                finally:
                    self._depth -= 1
                return
            conn.execute("begin immediate")
            self._depth = 1
            try:
                yield conn
            except BaseException:
                conn.execute("rollback")
                raise
            else:
                conn.execute("commit")
            finally:
                self._depth = 0

    # --- threads -----------------------------------------------------------------------------
    def load(self, key: ThreadKey) -> ThreadState | None:
        with self._lock:
            row = self.db.conn.execute(
                "select conversation, advice, updated_at, coalesce(version, 0) from threads"
                " where team_id = ? and channel = ? and thread_ts = ?",
                [key.team_id, key.channel, key.thread_ts],
            ).fetchone()
        if row is None:
            return None
        return ThreadState(key, json.loads(row[0]), row[1], row[2], row[3])

    def has_scenario(self, key: ThreadKey) -> bool:
        return self.load(key) is not None

    def save(self, key: ThreadKey, conversation: dict[str, Any], advice_json: str | None, *,
             expected_version: int | None = None) -> None:
        """Store the thread's scenario. With `expected_version` (the version loaded; 0 for a new
        thread) raise StaleThread when another writer saved in between."""
        now = self.clock()
        values = [json.dumps(conversation, default=str), advice_json, now]
        where = [key.team_id, key.channel, key.thread_ts]
        with self.transaction() as conn:
            if expected_version is None or expected_version > 0:
                sql = ("update threads set conversation = ?, advice = ?, updated_at = ?,"
                       " version = coalesce(version, 0) + 1 where team_id = ? and channel = ? and thread_ts = ?")
                args = [*values, *where]
                if expected_version is not None:
                    sql += " and coalesce(version, 0) = ?"
                    args.append(expected_version)
                if conn.execute(sql, args).rowcount == 1:
                    return
                if expected_version is not None:
                    raise StaleThread(key)
            try:
                conn.execute(
                    "insert into threads (team_id, channel, thread_ts, conversation, advice, created_at, updated_at,"
                    " version) values (?, ?, ?, ?, ?, ?, ?, 1)", [*where, *values[:2], now, now])
            except sqlite3.IntegrityError:
                raise StaleThread(key) from None

    @contextmanager
    def locked(self, key: ThreadKey) -> Iterator[None]:
        """Serialise turns in one thread: two quick replies must not both start from the same state."""
        with self._lock:
            lock = self._thread_locks.setdefault(key, threading.Lock())
        with lock:
            yield

    # --- expiry ------------------------------------------------------------------------------
    def purge(self) -> tuple[int, int]:
        """Delete expired threads and old event ids; returns (threads, events) deleted."""
        now = self.clock()
        with self.transaction() as conn:
            threads = conn.execute("delete from threads where updated_at < ?", [now - self.ttl_days * 86400]).rowcount
            events = conn.execute("delete from events where seen_at < ?", [now - EVENT_TTL_S]).rowcount
            conn.execute("delete from owners where beat_at < ?", [now - OWNER_TTL_S])
            # forget per-thread locks nobody holds, so the dict does not grow with every thread ever seen
            for key in [k for k, lock in self._thread_locks.items() if not lock.locked()]:
                del self._thread_locks[key]
        return threads, events

    def close(self) -> None:
        with self._lock:
            self.db.conn.close()
