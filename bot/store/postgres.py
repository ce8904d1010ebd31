"""PostgreSQL (psycopg 3): several processes on several hosts share one database.

Transactions are READ COMMITTED; what SQLite gets from its database-wide write lock is done here
with row locks: a claim inserts with `ON CONFLICT DO NOTHING` then locks the row it lost to
(`FOR UPDATE`), the replay of dead processes' claims and the outbox's lease take rows with
`FOR UPDATE SKIP LOCKED` (two senders never wait on each other, and never both take a row), a
thread save is an UPDATE conditioned on the version it read, and writers of one thread's outbox
take a transaction-scoped advisory lock on the thread, so replies keep their order.

One connection per process, in autocommit mode with explicit BEGIN/COMMIT, used under
`ThreadStore`'s lock; a connection the server dropped (restart, failover) is reopened at the next
transaction.
"""

from __future__ import annotations

import contextlib
import re
from typing import Any

from bot.store import Connection

try:
    import psycopg
except ImportError as exc:  # pragma: no cover - psycopg is a dependency; this names it if it is missing
    raise ImportError("GPU_ADVISOR_DB is a postgresql:// URL but psycopg 3 is not installed "
                      "(pip install 'psycopg[binary]')") from exc

_IS_NOT = re.compile(r"\bis not \?", re.IGNORECASE)
_IS = re.compile(r"\bis \?", re.IGNORECASE)


def translate(sql: str) -> str:
    """`?` -> `%s`, `IS ?` -> `IS NOT DISTINCT FROM %s` (the statements hold no literal `?` or `%`)."""
    sql = _IS_NOT.sub("is distinct from ?", sql)
    sql = _IS.sub("is not distinct from ?", sql)
    return sql.replace("?", "%s")


class PostgresBackend:
    name = "postgresql"

    def __init__(self, url: str) -> None:
        self.url = url
        self.raw = self._connect()
        self.conn: Connection = _Translating(self)

    def _connect(self) -> psycopg.Connection:
        conn = psycopg.connect(self.url, autocommit=True, connect_timeout=10)
        # A thread's advice is hundreds of KB of JSON, compressed by the server when stored (TOAST):
        # lz4 takes a fraction of the default pglz's CPU, which the server shares with the workers.
        # A server built without lz4 (or older than 14) keeps its default.
        with contextlib.suppress(psycopg.Error):
            conn.execute("set default_toast_compression = 'lz4'")
        return conn

    def begin(self) -> None:
        if self.raw.closed or self.raw.broken:
            self.raw = self._connect()
        self.raw.execute("begin")

    def commit(self) -> None:
        self.raw.execute("commit")

    def rollback(self) -> None:
        if not (self.raw.closed or self.raw.broken):
            self.raw.execute("rollback")

    def lock_thread(self, team_id: str, channel: str, thread_ts: str) -> None:
        self.raw.execute("select pg_advisory_xact_lock(hashtextextended(%s, 0))",
                         [f"{team_id}\x1f{channel}\x1f{thread_ts}"])

    def columns(self, table: str) -> set[str]:
        rows = self.raw.execute("select column_name from information_schema.columns"
                                " where table_schema = current_schema() and table_name = %s", [table]).fetchall()
        return {r[0] for r in rows}

    def close(self) -> None:
        self.raw.close()


class _Translating:
    def __init__(self, backend: PostgresBackend) -> None:
        self.backend = backend
        self._cache: dict[str, str] = {}

    def execute(self, sql: str, params: Any = ()) -> Any:
        translated = self._cache.get(sql)
        if translated is None:
            translated = self._cache[sql] = translate(sql)
        raw = self.backend.raw
        if raw.closed or raw.broken:  # a read outside a transaction after the server dropped us
            raw = self.backend.raw = self.backend._connect()
        return raw.execute(translated, list(params) if params else None)  # type: ignore[call-overload]
