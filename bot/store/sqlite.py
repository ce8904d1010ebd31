"""SQLite: the embedded default, one file on one host (several processes on that host share it).

WAL with `synchronous=NORMAL`: a commit appends to the WAL without an fsync (the WAL is synced at
checkpoints), so a committed turn survives a process crash (kill -9) and only a power loss or a
kernel crash can lose the last commits; with FULL every commit costs an fsync (2-5 ms on the
benchmark machine against 0.3 ms). Transactions are `BEGIN IMMEDIATE`: the first statement holds
the write lock, so read-then-write sequences (a claim, an outbox lease) need no row locks.

Checkpoints run off the answering path. SQLite's automatic checkpoint runs inside the commit that
takes the WAL past 1,000 pages: every ~30 turns one turn copied the WAL into the database and
fsynced it, ~8 ms added to that reply (the periodic spike of the end-to-end benchmark). Here the
answering connection never checkpoints; a background thread with its own connection runs a PASSIVE
checkpoint shortly after commits (it never blocks writers, and sqlite3 releases the GIL meanwhile).
"""

from __future__ import annotations

import logging
import os
import re
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from bot.store import Connection

_ROW_LOCKS = re.compile(r"\s+for update( skip locked)?", re.IGNORECASE)
log = logging.getLogger(__name__)
CHECKPOINT_DELAY_S = 0.25  # commits within this window share one checkpoint (one fsync)


WAL_SWITCH_TIMEOUT_S = 10.0


def _enable_wal(raw: sqlite3.Connection) -> None:
    """`journal_mode=wal`, retried while another process holds the lock. Workers started together on a fresh
    file all switch it at once, and SQLite answers the losers "database is locked" at once instead of waiting
    on the busy timeout (a lock upgrade that could deadlock is refused, not queued): without the retry one
    worker of `serve --workers 2` died at start now and then."""
    deadline = time.monotonic() + WAL_SWITCH_TIMEOUT_S
    delay = 0.005
    while True:
        try:
            raw.execute("pragma journal_mode=wal")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.2)


class SqliteBackend:
    name = "sqlite"

    def __init__(self, path: str | Path | None) -> None:
        self.path = None if path is None or str(path) == ":memory:" else Path(path)
        if self.path is None:
            raw = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            raw = sqlite3.connect(str(self.path), check_same_thread=False, timeout=10, isolation_level=None)
            _enable_wal(raw)
            raw.execute("pragma synchronous=normal")
            raw.execute("pragma wal_autocheckpoint=0")  # the checkpointer thread does it, off the answering path
        self.raw = raw
        self.conn: Connection = _Translating(raw)
        self._checkpointer = _Checkpointer(self.path) if self.path is not None else None

    def begin(self) -> None:
        self.raw.execute("begin immediate")

    def commit(self) -> None:
        self.raw.execute("commit")
        if self._checkpointer is not None:
            self._checkpointer.poke()

    def rollback(self) -> None:
        self.raw.execute("rollback")

    def lock_thread(self, team_id: str, channel: str, thread_ts: str) -> None:
        """`BEGIN IMMEDIATE` already holds the database's write lock."""

    def columns(self, table: str) -> set[str]:
        return {row[1] for row in self.raw.execute(f"pragma table_info({table})").fetchall()}

    def pragma(self, name: str) -> Any:
        return self.raw.execute(f"pragma {name}").fetchone()[0]

    def close(self) -> None:
        if self._checkpointer is not None:
            self._checkpointer.stop()
        self.raw.close()


class _Checkpointer:
    """One daemon thread per backend, started by the first commit, that runs `wal_checkpoint(PASSIVE)`
    on its own connection CHECKPOINT_DELAY_S after commits. A checkpoint that cannot finish (a reader
    holds old pages) is simply retried after the next commit; failures are logged, never raised."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._pid = os.getpid()
        self._lock = threading.Lock()
        self.checkpoints = 0  # completed PASSIVE checkpoints (tests, benchmarks)

    def poke(self) -> None:
        if self._thread is None or self._pid != os.getpid():  # a forked child has the object, not the thread
            with self._lock:
                if (self._thread is None or self._pid != os.getpid()) and not self._stop.is_set():
                    self._pid = os.getpid()
                    self._thread = threading.Thread(target=self._run, name="sqlite-checkpoint", daemon=True)
                    self._thread.start()
        self._wake.set()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5)

    def _run(self) -> None:
        try:
            conn = sqlite3.connect(str(self.path), check_same_thread=False, timeout=10, isolation_level=None)
        except sqlite3.Error:
            log.exception("checkpoint connection to %s failed: the WAL grows until the next start", self.path)
            return
        try:
            while True:
                self._wake.wait()
                self._wake.clear()
                if self._stop.wait(CHECKPOINT_DELAY_S):  # a burst of commits shares one checkpoint
                    break
                try:
                    conn.execute("pragma wal_checkpoint(PASSIVE)").fetchone()
                    self.checkpoints += 1
                except sqlite3.Error as exc:  # busy or locked: the next commit pokes again
                    log.debug("checkpoint of %s skipped: %s", self.path, exc)
            conn.execute("pragma wal_checkpoint(PASSIVE)")  # leave little WAL behind at a clean stop
        except sqlite3.Error:
            log.debug("final checkpoint of %s skipped", self.path)
        finally:
            conn.close()


class _Translating:
    """`FOR UPDATE [SKIP LOCKED]` removed (SQLite has no row locks; see the module docstring)."""

    def __init__(self, raw: sqlite3.Connection) -> None:
        self.raw = raw
        self._cache: dict[str, str] = {}

    def execute(self, sql: str, params: Any = ()) -> sqlite3.Cursor:
        translated = self._cache.get(sql)
        if translated is None:
            translated = self._cache[sql] = _ROW_LOCKS.sub("", sql)
        return self.raw.execute(translated, params)
