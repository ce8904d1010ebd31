"""Thread state: keyed by workspace, channel and thread; survives reopening; expires; claims events once."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from bot.journal import EventJournal
from bot.state import StaleThread, ThreadKey, ThreadStore


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def test_round_trip_survives_reopening(store_target: str | Path) -> None:
    key = ThreadKey("T1", "C1", "1.0")
    store = ThreadStore(store_target)
    store.save(key, {"workload": {"mode": "qlora"}}, '{"x": 1}')
    store.close()
    reopened = ThreadStore(store_target)
    state = reopened.load(key)
    assert state is not None and state.conversation == {"workload": {"mode": "qlora"}} and state.advice_json == '{"x": 1}'


def test_sqlite_is_wal_with_normal_sync(tmp_path: Path) -> None:
    """WAL + synchronous=NORMAL: a commit survives a process crash without an fsync per commit."""
    from bot.store.sqlite import SqliteBackend

    store = ThreadStore(tmp_path / "t.db")
    assert isinstance(store.backend, SqliteBackend)
    assert store.backend.pragma("journal_mode") == "wal" and store.backend.pragma("synchronous") == 1  # NORMAL


def test_sqlite_checkpoints_off_the_committing_thread(tmp_path: Path) -> None:
    """The answering connection never checkpoints (that put an fsync into one reply every ~30 turns); the
    background checkpointer does, so the WAL is reused instead of growing with every turn."""
    import time

    from bot.store.sqlite import SqliteBackend

    store = ThreadStore(tmp_path / "t.db")
    backend = store.backend
    assert isinstance(backend, SqliteBackend) and backend.pragma("wal_autocheckpoint") == 0
    payload = {"workload": {"mode": "qlora", "notes": "x" * 3000}}  # ~1 page per save, as a turn's scenario
    for i in range(600):
        store.save(ThreadKey("T1", "C1", f"{i}.0"), payload, "{}")
        if i % 100 == 99:
            time.sleep(0.4)  # let the checkpointer run, as the gaps between events do
    deadline = time.monotonic() + 5
    while backend._checkpointer is not None and backend._checkpointer.checkpoints == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert backend._checkpointer is not None and backend._checkpointer.checkpoints > 0
    wal = tmp_path / "t.db-wal"
    # without checkpoints the WAL holds every page written (~3,200 pages here); reused after each checkpoint it
    # stays near one burst's pages (~560)
    assert wal.stat().st_size < 1500 * 4096, wal.stat().st_size
    store.close()
    assert not (backend._checkpointer._thread and backend._checkpointer._thread.is_alive())


def test_an_uninstalled_workspace_is_forgotten(store_target: str | Path) -> None:
    store = ThreadStore(store_target)
    store.save(ThreadKey("T1", "C1", "1.0"), {"a": 1}, None)
    store.save(ThreadKey("T1", "C2", "2.0"), {"a": 2}, None)
    store.save(ThreadKey("T2", "C1", "1.0"), {"b": 1}, None)
    assert store.forget_team("T1") == 2
    assert store.load(ThreadKey("T1", "C1", "1.0")) is None and store.load(ThreadKey("T2", "C1", "1.0")) is not None


def test_workspaces_are_isolated(store_target: str | Path) -> None:
    store = ThreadStore(store_target)
    store.save(ThreadKey("T1", "C1", "1.0"), {"a": 1}, None)
    assert store.load(ThreadKey("T2", "C1", "1.0")) is None
    assert store.load(ThreadKey("T1", "C2", "1.0")) is None


def test_old_threads_and_event_ids_expire(store_target: str | Path) -> None:
    clock = Clock()
    store = ThreadStore(store_target, ttl_days=30, clock=clock)
    store.save(ThreadKey("T1", "C1", "old"), {}, None)
    EventJournal(store).claim("Ev1")
    clock.now += 29 * 86400
    store.save(ThreadKey("T1", "C1", "new"), {}, None)
    clock.now += 2 * 86400
    assert store.purge() == (1, 1)
    assert store.load(ThreadKey("T1", "C1", "old")) is None
    assert store.load(ThreadKey("T1", "C1", "new")) is not None


def test_an_event_is_claimed_once_even_concurrently(store_target: str | Path) -> None:
    """Eight processes (each its own connection) racing for one event id."""
    journals = [EventJournal(ThreadStore(store_target)) for _ in range(8)]
    results: list[bool] = []
    threads = [threading.Thread(target=lambda j=j: results.append(j.claim("EvX"))) for j in journals]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results.count(True) == 1


def test_a_save_over_a_newer_version_is_refused(store_target: str | Path) -> None:
    key = ThreadKey("T1", "C1", "1.0")
    one, two = ThreadStore(store_target), ThreadStore(store_target)  # two processes
    one.save(key, {"n": 1}, None, expected_version=0)
    seen = one.load(key)
    assert seen is not None and seen.version == 1
    two.save(key, {"n": 2}, None, expected_version=1)
    with pytest.raises(StaleThread):
        one.save(key, {"n": 3}, None, expected_version=seen.version)
    with pytest.raises(StaleThread):
        one.save(ThreadKey("T1", "C1", "1.0"), {"n": 4}, None, expected_version=0)  # "new" but it exists
    state = one.load(key)
    assert state is not None and state.conversation == {"n": 2} and state.version == 2


def test_a_database_from_before_the_journal_is_upgraded(tmp_path: Path) -> None:
    import sqlite3

    with sqlite3.connect(tmp_path / "old.db") as conn:
        conn.execute("create table events (event_id text primary key, seen_at float)")
        conn.execute("insert into events values ('EvOld', 1e12)")
    store = ThreadStore(tmp_path / "old.db")
    journal = EventJournal(store)
    assert journal.claim("EvOld") is False and journal.claim("EvNew") is True
