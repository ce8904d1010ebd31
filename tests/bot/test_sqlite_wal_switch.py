"""Workers started together on a fresh SQLite file all switch it to WAL at once; SQLite refuses the losers
with "database is locked" at once rather than waiting, so the switch is retried (bot.store.sqlite). Without
it, one worker of `serve --workers 2` died at start now and then (seen in CI)."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

from bot.store.sqlite import _enable_wal

ROOT = Path(__file__).resolve().parents[2]


def test_the_switch_waits_out_a_lock_another_process_holds(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("create table x (a)")
    holder.execute("begin exclusive")
    other = sqlite3.connect(path, isolation_level=None, timeout=0.01)
    try:
        try:
            other.execute("pragma journal_mode=wal")
            raise AssertionError("the lock should refuse a plain switch")
        except sqlite3.OperationalError as exc:
            assert "locked" in str(exc)
        threading.Timer(0.3, lambda: holder.execute("commit")).start()
        _enable_wal(other)
        assert other.execute("pragma journal_mode").fetchone()[0] == "wal"
    finally:
        other.close()
        time.sleep(0.35)
        holder.close()


WORKER = """
import os, sys, time
from bot.store.sqlite import SqliteBackend
while not os.path.exists(sys.argv[2]):
    time.sleep(0.0005)
SqliteBackend(sys.argv[1]).close()
"""


def test_six_processes_opening_one_fresh_file_at_once_all_start(tmp_path: Path) -> None:
    for round_ in range(3):
        db, go = tmp_path / f"t{round_}.db", tmp_path / f"go{round_}"
        procs = [subprocess.Popen([sys.executable, "-c", WORKER, str(db), str(go)], cwd=ROOT, stderr=subprocess.PIPE,
                                  text=True) for _ in range(6)]
        time.sleep(0.8)  # all imported and waiting
        go.touch()
        errors = [p.communicate(timeout=60)[1] for p in procs if p.wait(timeout=60) != 0]
        assert not errors, errors[0][-500:]
