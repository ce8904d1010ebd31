"""Per-thread scenarios in the shared store (SQLite by default, PostgreSQL for several hosts; see
`bot.store`), so a thread can be refined after a restart or on another process; the one connection
the event journal (`bot.journal`) and the reply outbox (`bot.outbox`) share.

Layout (`bot.store.schema`; SQLite in WAL so a reader never blocks the writer):
- `threads`: one row per (team_id, channel, thread_ts) with the parser's `Conversation.to_dict()`
  and the last `Advice` as JSON (the engine's diff needs the previous advice to say what changed),
  plus a `version` bumped by every save (a turn saves only over the version it started from).
  Every read and write names the team, so one workspace can never see another's thread.
- `events`, `owners`: Slack event ids and their state (claimed -> done); see `bot.journal`.
- `outbox`: replies not yet accepted by Slack; see `bot.outbox`.

Transactions: the connection is in autocommit mode and `transaction()` opens one (`BEGIN IMMEDIATE`
on SQLite), so a turn's scenario, its event's "done" mark and its reply land together or not at all.

Expiry: a thread untouched for `ttl_days` (30 by default) is deleted, and event ids are kept for a
day (Slack retries within minutes). `purge()` runs at start-up and then hourly (`bot.recovery`).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.store import Backend, Connection, open_backend
from bot.store.schema import TABLES, create_statements

EVENT_TTL_S = 24 * 3600.0
SCHEMA_LOCK_ID = 0x6770_7561  # PostgreSQL advisory lock taken while creating or upgrading the tables
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
    advice_omitted: bool = False  # load(..., unless_version=v) matched v: the caller has this advice already


class ThreadStore:
    """Thread scenarios (and the journal's and outbox's tables). Safe to share between threads.

    `target`: a path (SQLite, WAL), None (SQLite in memory) or a `postgresql://` URL (several hosts
    on one database); see `bot.store`."""

    def __init__(self, target: str | Path | None = None, *, ttl_days: float = 30.0, clock=time.time) -> None:
        self.backend: Backend = open_backend(target)
        self.target = target
        self.ttl_days = ttl_days
        self.clock = clock
        self._lock = threading.RLock()  # one connection, many listener threads
        self._depth = 0  # nesting of transaction() in the thread holding _lock
        self._thread_locks: dict[ThreadKey, threading.Lock] = {}
        self._create()

    @property
    def dialect(self) -> str:
        return self.backend.name

    def _create(self) -> None:
        with self.transaction() as conn:
            if self.dialect == "postgresql":  # two processes starting at once must not both create
                conn.execute("select pg_advisory_xact_lock(?)", [SCHEMA_LOCK_ID])
            existing = {table: cols for table in TABLES if (cols := self.backend.columns(table))}
            for statement in create_statements(self.dialect, existing):
                self.backend.conn.execute(statement)

    @contextmanager
    def transaction(self) -> Iterator[Connection]:
        """BEGIN ... COMMIT (rolled back on an exception). Nested calls join the outer one.
        SQLite: `BEGIN IMMEDIATE`, the database's write lock from the start; PostgreSQL: READ
        COMMITTED with row locks in the statements that need them (`bot.store.postgres`)."""
        with self._lock:
            conn = self.backend.conn
            if self._depth:
                self._depth += 1
                try:
                    yield conn
                finally:
                    self._depth -= 1
                return
            self.backend.begin()
            self._depth = 1
            try:
                yield conn
            except BaseException:
                self.backend.rollback()
                raise
            else:
                self.backend.commit()
            finally:
                self._depth = 0

    # --- threads -----------------------------------------------------------------------------
    def load(self, key: ThreadKey, *, unless_version: int | None = None) -> ThreadState | None:
        """The thread's state. With `unless_version`, the advice JSON (hundreds of KB) is not read
        when the stored version is that one: the caller holds that advice already (`advice_omitted`)."""
        with self._lock:
            row = self.backend.conn.execute(
                "select conversation, case when coalesce(version, 0) = ? then null else advice end, updated_at,"
                " coalesce(version, 0), advice is not null from threads"
                " where team_id = ? and channel = ? and thread_ts = ?",
                [-1 if unless_version is None else unless_version, key.team_id, key.channel, key.thread_ts],
            ).fetchone()
        if row is None:
            return None
        omitted = row[1] is None and bool(row[4])
        return ThreadState(key, json.loads(row[0]), row[1], row[2], row[3], omitted)

    def has_scenario(self, key: ThreadKey) -> bool:
        with self._lock:
            return self.backend.conn.execute(
                "select 1 from threads where team_id = ? and channel = ? and thread_ts = ?",
                [key.team_id, key.channel, key.thread_ts]).fetchone() is not None


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
            inserted = conn.execute(
                "insert into threads (team_id, channel, thread_ts, conversation, advice, created_at, updated_at,"
                " version) values (?, ?, ?, ?, ?, ?, ?, 1) on conflict do nothing", [*where, *values[:2], now, now])
            if inserted.rowcount != 1:
                raise StaleThread(key)

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

    def forget_team(self, team_id: str) -> int:
        """Delete a workspace's threads, queued replies and open claims (the app was uninstalled);
        returns the number of threads deleted."""
        with self.transaction() as conn:
            threads = conn.execute("delete from threads where team_id = ?", [team_id]).rowcount
            conn.execute("delete from outbox where team_id = ?", [team_id])
            conn.execute("delete from events where team_id = ?", [team_id])
        return threads

    def close(self) -> None:
        with self._lock:
            self.backend.close()
