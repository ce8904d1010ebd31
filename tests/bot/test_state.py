"""Thread state: keyed by workspace, channel and thread; survives reopening; expires; claims events once."""

from __future__ import annotations

import threading
from pathlib import Path

from bot.state import ThreadKey, ThreadStore


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def test_round_trip_survives_reopening(tmp_path: Path) -> None:
    key = ThreadKey("T1", "C1", "1.0")
    store = ThreadStore(tmp_path / "t.db")
    store.save(key, {"workload": {"mode": "qlora"}}, '{"x": 1}')
    store.close()
    reopened = ThreadStore(tmp_path / "t.db")
    state = reopened.load(key)
    assert state is not None and state.conversation == {"workload": {"mode": "qlora"}} and state.advice_json == '{"x": 1}'
    assert reopened.db.journal_mode == "wal"


def test_workspaces_are_isolated() -> None:
    store = ThreadStore()
    store.save(ThreadKey("T1", "C1", "1.0"), {"a": 1}, None)
    assert store.load(ThreadKey("T2", "C1", "1.0")) is None
    assert store.load(ThreadKey("T1", "C2", "1.0")) is None


def test_old_threads_and_event_ids_expire() -> None:
    clock = Clock()
    store = ThreadStore(ttl_days=30, clock=clock)
    store.save(ThreadKey("T1", "C1", "old"), {}, None)
    store.claim_event("Ev1")
    clock.now += 29 * 86400
    store.save(ThreadKey("T1", "C1", "new"), {}, None)
    clock.now += 2 * 86400
    assert store.purge() == (1, 1)
    assert store.load(ThreadKey("T1", "C1", "old")) is None
    assert store.load(ThreadKey("T1", "C1", "new")) is not None


def test_an_event_is_claimed_once_even_concurrently() -> None:
    store = ThreadStore()
    results: list[bool] = []
    threads = [threading.Thread(target=lambda: results.append(store.claim_event("EvX"))) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results.count(True) == 1
