"""Replies on their way to Slack, stored first and sent from the shared store (`bot.store`), so a
Slack outage longer than the Web API client's own retries (429 after Retry-After, 5xx with
back-off) loses nothing.

Every reply is written to `outbox` in the same transaction as the turn that produced it (leased to
the listener's process in that same transaction when it heads its thread's queue), then sent at
once by the listener (`deliver`); settling a sent row and leasing the next is one transaction, so
an answered turn costs three write transactions: claim, commit, settle. What Slack does not accept stays queued and the background
loop (`bot.recovery`) retries it with exponential back-off (`retry_base_s` doubling up to
`retry_max_s`, at least Retry-After) until it is `max_age_s` old, then drops it with a log line.
The queue is drained on start, so queued replies survive a restart.

Order: only the oldest row of a thread (team, channel, thread_ts) may be sent, under a lease
(a token and an expiry; SQLite: taken in `BEGIN IMMEDIATE`, PostgreSQL: on the head row taken
`FOR UPDATE SKIP LOCKED`, and writers of one thread's queue serialised by an advisory lock), so
replies in one thread arrive in the order they were produced, also with several senders or
processes or hosts; a later reply waits behind a failing one.

Delivered means Slack answered `ok: true`: the row is deleted then. An `ok: false` that is not
transient (`channel_not_found`, `invalid_blocks`...) is final: the row is dropped and, for an
answer, the apology is queued instead.

Exactly once: every message carries Slack message metadata (`event_type` "gpu_advisor_reply",
`event_payload.outbox_id` = the row's `msg_id`, a random id). When the outcome of a send is unknown
(a network error or timeout, a 5xx: Slack may have posted it; the row is marked `uncertain`) or
a process takes over a row another process had leased (it may have died mid-send), the thread is
read first (`conversations.replies`, or `conversations.history` for a DM's top level, with
`include_all_metadata`, only messages since the row was queued) and the row is settled without
posting when a message with its id is there. Only a 429 is a certain "not posted"; the Web API
client is therefore told never to retry chat.postMessage itself on a 5xx or a broken connection
(`bot.app.web_client`), the outbox does, after the check. See docs/slack.md.
Nothing secret is logged: channel, thread, Slack's error code or the exception's class.
"""

from __future__ import annotations

import json
import logging
import threading
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.journal import EventJournal
from bot.limits import Message
from bot.state import ThreadKey, ThreadStore
from bot.store import Connection

log = logging.getLogger(__name__)

TRANSIENT_ERRORS = {"ratelimited", "internal_error", "fatal_error", "service_unavailable", "request_timeout"}
METADATA_EVENT_TYPE = "gpu_advisor_reply"  # Slack message metadata on every reply: {"outbox_id": msg_id}
CHECK_SLACK_S = 60.0  # look this much before the row's creation when reading the thread (clock skew)
CHECK_PAGES = 5  # pages of conversations.replies read at most (newest replies since the row was queued)


@dataclass(frozen=True)
class Row:
    id: int
    key: ThreadKey
    text: str
    blocks: list[dict[str, Any]] | None
    kind: str
    created_at: float
    attempts: int
    lease: str
    msg_id: str = ""
    check: bool = False  # an earlier attempt may have posted it: read the thread before sending

    @property
    def metadata(self) -> dict[str, Any]:
        return {"event_type": METADATA_EVENT_TYPE, "event_payload": {"outbox_id": self.msg_id}}


class Outbox:
    def __init__(self, store: ThreadStore, *, retry_base_s: float = 1.0, retry_max_s: float = 30.0,
                 max_age_s: float = 1800.0, lease_s: float = 120.0,
                 apology: Callable[[], Sequence[Message]] | None = None,
                 journal: EventJournal | None = None, hold_after_post: bool = False) -> None:
        self.store = store
        # A lease names the process holding it, so a lease left by a process that died (kill -9
        # mid-send) is taken over at once instead of blocking the thread until it times out.
        self.journal = journal
        self.retry_base_s = retry_base_s
        self.retry_max_s = retry_max_s
        self.max_age_s = max_age_s
        self.lease_s = lease_s
        self.apology = apology  # what replaces an answer Slack refused for good
        # tests only (GPU_ADVISOR_TEST_HOLD_AFTER_POST): block once Slack took a post, before its row is
        # settled, so a kill -9 lands exactly between the two
        self.hold_after_post = hold_after_post

    def enqueue(self, key: ThreadKey, messages: Sequence[Message], *, kind: str = "answer",
                event_id: str | None = None, lease: bool = False) -> Row | None:
        """Queue `messages` behind the thread's earlier replies (joins the caller's transaction).

        With `lease`, the first message is leased to this process in the same transaction when it is
        the thread's head (nothing queued before it), and returned: the caller sends it right after
        the commit without another transaction (`deliver(..., leased=row)`)."""
        now = self.store.clock()
        leased: Row | None = None
        with self.store.transaction() as conn:
            self.store.backend.lock_thread(key.team_id, key.channel, key.thread_ts)
            head_free = lease and conn.execute(
                "select 1 from outbox where team_id = ? and channel = ? and thread_ts = ? limit 1",
                [key.team_id, key.channel, key.thread_ts]).fetchone() is None
            for message in messages:
                blocks = json.dumps(message.blocks) if message.blocks is not None else None
                token = self._token() if head_free and leased is None else None
                msg_id = uuid.uuid4().hex
                row_id = conn.execute(
                    "insert into outbox (team_id, channel, thread_ts, text, blocks, kind, event_id, created_at,"
                    " attempts, next_attempt_at, lease, lease_until, msg_id, uncertain)"
                    " values (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, 0) returning id",
                    [key.team_id, key.channel, key.thread_ts, message.text, blocks, kind, event_id, now, now,
                     token, now + self.lease_s if token else None, msg_id]).fetchone()[0]
                if token is not None:
                    leased = Row(int(row_id), key, message.text, message.blocks, kind, now, 0, token, msg_id)
        return leased

    def _token(self) -> str:
        return f"{self.journal.owner.id if self.journal else ''}#{uuid.uuid4().hex}"

    def pending(self, key: ThreadKey | None = None) -> int:
        with self.store.transaction() as conn:
            if key is None:
                return int(conn.execute("select count(*) from outbox").fetchone()[0])
            return int(conn.execute("select count(*) from outbox where team_id = ? and channel = ? and thread_ts = ?",
                                    [key.team_id, key.channel, key.thread_ts]).fetchone()[0])

    # --- sending -----------------------------------------------------------------------------
    def deliver(self, client: WebClient, key: ThreadKey, *, leased: Row | None = None) -> bool:
        """Send the thread's due replies in order (starting with `leased`, already ours); True when
        its queue is empty afterwards. Settling a sent row and leasing the next is one transaction."""
        row = leased
        if row is None:
            row, empty = self._lease_head(key)
            if row is None:
                return empty
        while row is not None:
            settled = self._send(client, row)
            if not settled:
                return False
            row, empty = self._settle(row, lease_next=True)
            if row is None:
                return empty
        return True

    def drain(self, client: WebClient | Callable[[str], WebClient | None]) -> None:
        """Deliver every thread with a reply due (the background loop's job, and the start-up drain).
        `client` is one client, or a function from a team id to its client (OAuth installs; None
        when the workspace has no installation any more: its replies are dropped)."""
        now = self.store.clock()
        with self.store.transaction() as conn:
            keys = [ThreadKey(*r) for r in conn.execute(
                "select team_id, channel, thread_ts from outbox group by team_id, channel, thread_ts"
                " having min(next_attempt_at) <= ? order by min(id)", [now]).fetchall()]
        for key in keys:
            team_client = client(key.team_id) if callable(client) and not isinstance(client, WebClient) else client
            if team_client is None:
                dropped = self.store.forget_team(key.team_id)
                log.warning("replies for workspace %s dropped: it has no installation (%d threads)", key.team_id,
                            dropped)
                continue
            self.deliver(team_client, key)  # type: ignore[arg-type]

    def _lease_head(self, key: ThreadKey) -> tuple[Row | None, bool]:
        with self.store.transaction() as conn:
            return self._lease_head_in(conn, key)

    def _lease_head_in(self, conn: Connection, key: ThreadKey) -> tuple[Row | None, bool]:
        """Lease the thread's oldest row if it is due and nobody live holds it. PostgreSQL: the head
        is taken `FOR UPDATE SKIP LOCKED`, so a sender that finds another one leasing it moves on."""
        now = self.store.clock()
        where = [key.team_id, key.channel, key.thread_ts]
        head = conn.execute(
            "select id, text, blocks, kind, created_at, attempts, next_attempt_at, lease_until, lease, msg_id,"
            " coalesce(uncertain, 0) from outbox"
            " where team_id = ? and channel = ? and thread_ts = ? and id = (select min(id) from outbox"
            " where team_id = ? and channel = ? and thread_ts = ?) for update skip locked",
            [*where, *where]).fetchone()
        if head is None:
            if conn.execute("select 1 from outbox where team_id = ? and channel = ? and thread_ts = ? limit 1",
                            where).fetchone() is None:
                return None, True
            return None, False  # another sender is leasing the head right now
        row_id, text, blocks, kind, created_at, attempts, next_attempt_at, lease_until, held_by, msg_id, uncertain = head
        leased = (lease_until or 0) > now and not self._holder_dead(conn, held_by)
        if leased or next_attempt_at > now:
            return None, False  # another sender has it, or it is backing off: later rows wait
        lease = self._token()
        # a lease still on the row: its holder died or let it expire, possibly mid-send
        check = bool(held_by) or bool(uncertain)
        conn.execute("update outbox set lease = ?, lease_until = ?, uncertain = ? where id = ?",
                     [lease, now + self.lease_s, 1 if check else 0, row_id])
        return Row(row_id, key, text, json.loads(blocks) if blocks else None, kind, created_at, attempts, lease,
                   msg_id or "", check), False

    def _holder_dead(self, conn: Connection, lease: str | None) -> bool:
        owner = (lease or "").partition("#")[0]
        if not owner or self.journal is None:
            return False
        return self.journal.is_dead(conn, owner)

    def _send(self, client: WebClient, row: Row) -> bool:
        """One attempt (with the client's own retries). True when the row is settled (sent, found
        already posted, or dropped)."""
        if row.check:
            try:
                posted = self.already_posted(client, row)
            except SlackApiError as exc:
                status = getattr(exc.response, "status_code", 0) or 0
                error = str(exc.response.get("error", "unknown")) if exc.response is not None else "unknown"
                if status == 429 or status >= 500 or error in TRANSIENT_ERRORS:  # cannot tell yet: later
                    self._retry_later(row, f"check: {status} {error}", 0.0, uncertain=True)
                    return False
                # the thread cannot be read (e.g. missing_scope: no *:history scope): send, at least once
                log.warning("cannot read %s/%s to check for an earlier attempt (Slack said %s); sending",
                            row.key.channel, row.key.thread_ts or "top level", error)
                posted = False
            except Exception as exc:  # network: cannot tell yet, try again later, still uncertain
                self._retry_later(row, f"check: {exc.__class__.__name__}", 0.0, uncertain=True)
                return False
            if posted:
                self._settle(row)
                log.info("reply in %s/%s was already posted by an earlier attempt; not sent again", row.key.channel,
                         row.key.thread_ts or "top level")
                return True
        try:
            self._post(client, row)
        except SlackApiError as exc:
            response = exc.response
            status = getattr(response, "status_code", 0) or 0
            error = str(response.get("error", "unknown")) if response is not None else "unknown"
            if status == 429 or status >= 500 or error in TRANSIENT_ERRORS:
                headers = getattr(response, "headers", None) or {}
                retry_after = headers.get("Retry-After") or headers.get("retry-after") or 0
                # a 429 was certainly not posted; a 5xx may have been
                self._retry_later(row, f"{status} {error}", float(retry_after), uncertain=status != 429
                                  and error != "ratelimited")
                return False
            self._settle(row)
            log.error("reply in %s/%s refused by Slack (%s); dropped", row.key.channel, row.key.thread_ts or "top level",
                      error)
            if row.kind == "answer" and self.apology is not None:
                self.enqueue(row.key, self.apology(), kind="apology")
            return True
        except Exception as exc:  # network or timeout: Slack may or may not have it
            self._retry_later(row, exc.__class__.__name__, 0.0, uncertain=True)
            return False
        return True

    def _post(self, client: WebClient, row: Row) -> None:
        """chat.postMessage with the row's id as message metadata (one HTTP call, no client retries
        except after a 429)."""
        client.chat_postMessage(channel=row.key.channel, thread_ts=row.key.thread_ts or None, text=row.text,
                                blocks=row.blocks, unfurl_links=False, unfurl_media=False, metadata=row.metadata)
        if self.hold_after_post:
            threading.Event().wait()

    def already_posted(self, client: WebClient, row: Row) -> bool:
        """Whether the thread already holds a message carrying `row`'s id in its metadata. Reads only
        what was posted since the row was queued (a few messages), newest pages first is not
        offered by the API, so at most `CHECK_PAGES` pages from that point on."""
        oldest = f"{max(0.0, row.created_at - CHECK_SLACK_S):.6f}"
        cursor = None
        for _ in range(CHECK_PAGES):
            args: dict[str, Any] = {"channel": row.key.channel, "oldest": oldest, "inclusive": True, "limit": 100,
                                    "include_all_metadata": True}
            if cursor:
                args["cursor"] = cursor
            if row.key.thread_ts:
                page = client.conversations_replies(ts=row.key.thread_ts, **args)
            else:  # a DM's top level: no thread to read
                page = client.conversations_history(**args)
            for message in page.get("messages") or ():
                metadata = message.get("metadata") or {}
                if (metadata.get("event_type") == METADATA_EVENT_TYPE
                        and (metadata.get("event_payload") or {}).get("outbox_id") == row.msg_id):
                    return True
            cursor = (page.get("response_metadata") or {}).get("next_cursor")
            if not page.get("has_more") or not cursor:
                return False
        return False

    def _settle(self, row: Row, *, lease_next: bool = False) -> tuple[Row | None, bool]:
        """Delete a row that was sent (or dropped for good); with `lease_next`, lease the thread's
        next due row in the same transaction. Returns (next row, whether the queue is empty)."""
        with self.store.transaction() as conn:
            conn.execute("delete from outbox where id = ? and lease = ?", [row.id, row.lease])
            if lease_next:
                return self._lease_head_in(conn, row.key)
        return None, False

    def _retry_later(self, row: Row, error: str, retry_after_s: float, *, uncertain: bool = False) -> None:
        now = self.store.clock()
        attempts = row.attempts + 1
        if now - row.created_at >= self.max_age_s:
            self._settle(row)
            log.error("reply in %s/%s dropped after %d attempts over %.0f s: Slack kept failing (%s)",
                      row.key.channel, row.key.thread_ts or "top level", attempts, now - row.created_at, error)
            return
        delay = max(retry_after_s, min(self.retry_max_s, self.retry_base_s * 2 ** (attempts - 1)))
        with self.store.transaction() as conn:
            conn.execute("update outbox set attempts = ?, next_attempt_at = ?, lease = null, lease_until = null,"
                         " last_error = ?, uncertain = ? where id = ? and lease = ?",
                         [attempts, now + delay, error, 1 if uncertain or row.check else 0, row.id, row.lease])
        log.warning("reply in %s/%s not delivered (%s); queued, attempt %d, next in %.1f s", row.key.channel,
                    row.key.thread_ts or "top level", error, attempts, delay)
