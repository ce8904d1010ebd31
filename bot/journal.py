"""Slack events as a small state machine in the shared store (`bot.store`), so an acknowledged event is answered exactly
once even when the process dies between the ack and the answer.

    (new) --claim--> claimed --the turn commits (scenario + "done" + reply in the outbox)--> done
                       |
                       +-- its owner died: a replay (start-up, then every few seconds) or Slack's
                       |   re-delivery takes it over (owner := the live process, replays += 1)
                       +-- older than the replay window, or replayed `max_replays` times --> expired

An event that is not a turn (a message in a thread the bot is not part of, a bot message...) is
stored as `done` at once: the row only de-duplicates re-deliveries.

Why an owner per process: Bolt acks an event before the listener runs (Slack wants the 200 within
3 s), so after a kill -9 Slack will not re-deliver it, and its claim must not make the restarted bot
drop it. Each process registers in `owners` and heartbeats; a claim is orphaned when its owner's
heartbeat is stale, or, on the same host, its pid is gone (or is our own pid under another owner
id: a container restarted as pid 1 again). Taking a claim over is one UPDATE conditioned on the old
owner (SQLite: inside `BEGIN IMMEDIATE`; PostgreSQL: on a row locked `FOR UPDATE`, and the replay
skips rows another process has locked), so two processes starting at once cannot both take it.
"""

from __future__ import annotations

import logging
import os
import socket
import uuid
from dataclasses import dataclass
from pathlib import Path

from bot.state import ThreadKey, ThreadStore
from bot.store import Connection

log = logging.getLogger(__name__)

CLAIMED, DONE, EXPIRED = "claimed", "done", "expired"


@dataclass(frozen=True)
class TurnRequest:
    """What is needed to run (or re-run) one turn: kind is "mention", "thread_reply" or "dm"."""

    event_id: str | None
    key: ThreadKey
    user: str
    text: str
    kind: str
    received_at: float


@dataclass(frozen=True)
class Owner:
    id: str
    host: str
    pid: int

    @classmethod
    def current(cls) -> Owner:
        host, pid = socket.gethostname(), os.getpid()
        return cls(f"{host}:{pid}:{uuid.uuid4().hex[:12]}", host, pid)


def pid_alive(pid: int) -> bool:
    """Whether `pid` runs on this host (a zombie, killed but not yet reaped, counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


class EventJournal:
    def __init__(self, store: ThreadStore, owner: Owner | None = None, *, stale_after_s: float = 15.0,
                 replay_window_s: float = 600.0, max_replays: int = 3) -> None:
        self.store = store
        self.owner = owner or Owner.current()
        self.stale_after_s = stale_after_s
        self.replay_window_s = replay_window_s
        self.max_replays = max_replays

    # --- this process ------------------------------------------------------------------------
    def register(self) -> None:
        now = self.store.clock()
        with self.store.transaction() as conn:
            conn.execute("insert into owners (owner, host, pid, started_at, beat_at) values (?, ?, ?, ?, ?)"
                         " on conflict (owner) do update set host = excluded.host, pid = excluded.pid,"
                         " started_at = excluded.started_at, beat_at = excluded.beat_at",
                         [self.owner.id, self.owner.host, self.owner.pid, now, now])

    def heartbeat(self) -> None:
        with self.store.transaction() as conn:
            updated = conn.execute("update owners set beat_at = ? where owner = ?", [self.store.clock(), self.owner.id])
            if updated.rowcount == 0:  # purged or never registered
                self.register()

    def retire(self) -> None:
        """A clean stop: claims still open become orphans at once, for the next process to replay."""
        with self.store.transaction() as conn:
            conn.execute("delete from owners where owner = ?", [self.owner.id])

    def is_dead(self, conn: Connection, owner: str | None) -> bool:
        """Whether `owner` (another process's id) is gone; the outbox asks this about its leases."""
        return self._dead(conn, owner)

    def _dead(self, conn: Connection, owner: str | None) -> bool:
        if owner == self.owner.id:
            return False
        row = conn.execute("select host, pid, beat_at from owners where owner = ?", [owner]).fetchone()
        if row is None:
            return True
        host, pid, beat_at = row
        if beat_at < self.store.clock() - self.stale_after_s:
            return True
        if host == self.owner.host:
            return pid == self.owner.pid or not pid_alive(pid)
        return False

    # --- claims ------------------------------------------------------------------------------
    def claim(self, event_id: str, request: TurnRequest | None = None) -> bool:
        """True when this process should handle the event: first delivery, or a re-delivery of a claim
        whose owner died (taken over). False for every other re-delivery."""
        now = self.store.clock()
        key = request.key if request else None
        with self.store.transaction() as conn:
            inserted = conn.execute(
                'insert into events (event_id, seen_at, state, owner, team_id, channel, thread_ts, "user", text,'
                " kind, replays) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0) on conflict do nothing",
                [event_id, now, CLAIMED if request else DONE, self.owner.id, key and key.team_id,
                 key and key.channel, key and key.thread_ts, request and request.user,
                 request and request.text, request and request.kind]).rowcount
            if inserted == 1:
                return True
            row = conn.execute("select state, owner, seen_at, coalesce(replays, 0) from events where event_id = ?"
                               " for update", [event_id]).fetchone()
            if row is None:  # purged in between: a day-old re-delivery
                return False
            state, owner, seen_at, replays = row
            if state != CLAIMED or not self._dead(conn, owner):
                return False
            if seen_at < now - self.replay_window_s or replays >= self.max_replays:
                conn.execute("update events set state = ? where event_id = ?", [EXPIRED, event_id])
                log.warning("event %s: its process died before answering and it is too old (or replayed too "
                            "often) to answer now", event_id)
                return False
            taken = conn.execute("update events set owner = ?, replays = coalesce(replays, 0) + 1"
                                 " where event_id = ? and owner is ? and state = ?",
                                 [self.owner.id, event_id, owner, CLAIMED]).rowcount == 1
        if taken:
            log.info("event %s re-delivered; its claim by a process that died is taken over", event_id)
        return taken

    def finish(self, event_id: str) -> bool:
        """Mark the event answered. Call inside `store.transaction()` with the turn's other writes:
        False (write nothing, answer nothing) when another process has taken the claim over."""
        with self.store.transaction() as conn:
            return conn.execute("update events set state = ? where event_id = ? and state = ? and owner = ?",
                                [DONE, event_id, CLAIMED, self.owner.id]).rowcount == 1

    def orphans(self) -> list[TurnRequest]:
        """Take over every claim whose owner died and that is young enough; return the turns to re-run
        (oldest first). Older ones are marked expired and logged: the user gets nothing."""
        now = self.store.clock()
        taken: list[TurnRequest] = []
        with self.store.transaction() as conn:
            rows = conn.execute(
                'select event_id, owner, seen_at, coalesce(replays, 0), team_id, channel, thread_ts, "user", text, kind'
                " from events where state = ? and owner is not ? order by seen_at for update skip locked",
                [CLAIMED, self.owner.id]).fetchall()
            dead: dict[str | None, bool] = {}
            for event_id, owner, seen_at, replays, team_id, channel, thread_ts, user, text, kind in rows:
                if owner not in dead:
                    dead[owner] = self._dead(conn, owner)
                if not dead[owner]:
                    continue
                if seen_at < now - self.replay_window_s or replays >= self.max_replays or not kind:
                    conn.execute("update events set state = ? where event_id = ?", [EXPIRED, event_id])
                    log.warning("event %s in %s/%s, received %.0f s ago, was never answered (its process died;"
                                " replayed %d times); too late to answer now", event_id, channel, thread_ts,
                                now - seen_at, replays)
                    continue
                conn.execute("update events set owner = ?, replays = coalesce(replays, 0) + 1"
                             " where event_id = ? and owner is ? and state = ?", [self.owner.id, event_id, owner, CLAIMED])
                taken.append(TurnRequest(event_id, ThreadKey(team_id or "", channel or "", thread_ts or ""),
                                         user or "", text or "", kind, seen_at))
        return taken

    def state(self, event_id: str) -> str | None:
        with self.store.transaction() as conn:
            row = conn.execute("select state from events where event_id = ?", [event_id]).fetchone()
        return row[0] if row else None
