"""Where the bot's shared state lives: SQLite (one host, the embedded default) or PostgreSQL (several
hosts on one database). `bot.state.ThreadStore` is the one object the journal, the outbox and the
listeners talk to; it holds a `Backend` from here and never knows which one.

Why SQL written once and translated, instead of an ORM: the journal and the outbox are a dozen
short statements on the hot path (every Slack event), and the two dialects differ only in the
placeholder (`?` vs `%s`), `IS ?` (`IS NOT DISTINCT FROM`), the row locks SQLite does not have
(`FOR UPDATE [SKIP LOCKED]`: `BEGIN IMMEDIATE` already serialises its writers) and the DDL.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol


class Cursor(Protocol):
    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...


class Connection(Protocol):
    """What the journal and the outbox use: `execute` with `?` placeholders (translated per backend)."""

    def execute(self, sql: str, params: Any = ()) -> Cursor: ...


class Backend(Protocol):
    name: str  # "sqlite" | "postgresql"
    conn: Connection

    def begin(self) -> None: ...

    def commit(self) -> None: ...

    def rollback(self) -> None: ...

    def lock_thread(self, team_id: str, channel: str, thread_ts: str) -> None:
        """Serialise writers of one thread's outbox until the transaction ends (a no-op where the
        whole database is already locked by the transaction)."""

    def columns(self, table: str) -> set[str]: ...

    def close(self) -> None: ...


def is_postgres_url(target: str | Path | None) -> bool:
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))


def open_backend(target: str | Path | None) -> Backend:
    """A `postgresql://` URL opens PostgreSQL (psycopg 3); a path opens SQLite; None is in memory."""
    if is_postgres_url(target):
        from bot.store.postgres import PostgresBackend

        return PostgresBackend(str(target))
    from bot.store.sqlite import SqliteBackend

    return SqliteBackend(target)


def describe(target: str | Path | None) -> str:
    """The database for a log line: a URL without its password, or the path."""
    if is_postgres_url(target):
        from urllib.parse import urlsplit

        parts = urlsplit(str(target))
        host = parts.hostname or "localhost"
        return f"postgresql://{parts.username + '@' if parts.username else ''}{host}:{parts.port or 5432}{parts.path}"
    return str(target or ":memory:")
