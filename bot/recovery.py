"""The bot's one background thread: it keeps this process's heartbeat, re-runs turns whose process
died between the ack and the answer (`EventJournal.orphans`), sends the outbox's due replies, and
purges expired threads and event ids. Its first pass runs right at start-up, so what a previous
process left behind is answered and sent without waiting for new traffic.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from slack_sdk import WebClient

from bot.journal import EventJournal
from bot.outbox import Outbox
from bot.replies import Replier

log = logging.getLogger(__name__)


class Maintenance:
    def __init__(self, replier: Replier, client: WebClient | Callable[[str], WebClient | None], *, tick_s: float = 0.5, heartbeat_s: float = 2.0,
                 replay_every_s: float = 5.0, purge_every_s: float = 3600.0) -> None:
        self.replier = replier
        self.client = client  # one client, or workspace id -> its client (OAuth installs)
        self.tick_s = tick_s
        self.heartbeat_s = heartbeat_s
        self.replay_every_s = replay_every_s
        self.purge_every_s = purge_every_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="maintenance", daemon=True)
        self._due = {"heartbeat": 0.0, "replay": 0.0, "purge": 0.0}

    @property
    def journal(self) -> EventJournal:
        return self.replier.journal

    @property
    def outbox(self) -> Outbox:
        return self.replier.outbox

    def start(self) -> Maintenance:
        """Register this process (before any event is claimed), then run the loop."""
        self.journal.register()
        self._thread.start()
        return self

    def step(self) -> None:
        """One pass; each duty is guarded so one failing (a locked database) does not stop the others."""
        now = time.monotonic()
        duties = (("heartbeat", self.heartbeat_s, self.journal.heartbeat), ("replay", self.replay_every_s, self.replay),
                  ("purge", self.purge_every_s, self.replier.store.purge))
        for name, every, duty in duties:
            if now >= self._due[name]:
                self._due[name] = now + every
                self._guard(name, duty)
        self._guard("outbox", lambda: self.outbox.drain(self.client))

    def client_for(self, team_id: str) -> WebClient | None:
        if isinstance(self.client, WebClient):
            return self.client
        return self.client(team_id)

    def replay(self) -> None:
        for request in self.journal.orphans():
            client = self.client_for(request.key.team_id)
            if client is None:
                log.warning("event %s not re-run: workspace %s has no installation any more", request.event_id,
                            request.key.team_id)
                with self.replier.store.transaction():
                    self.journal.finish(request.event_id or "")
                continue
            log.info("re-running event %s in %s/%s: its process stopped before answering", request.event_id,
                     request.key.channel, request.key.thread_ts or "top level")
            self.replier.answer(client, request)

    def _guard(self, name: str, duty) -> None:  # type: ignore[no-untyped-def]
        try:
            duty()
        except Exception:
            if not self._stop.is_set():
                log.exception("background %s failed; trying again later", name)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.step()
            self._stop.wait(self.tick_s)

    def stop(self) -> None:
        """Stop the loop and retire this process, so its open claims are replayed by the next one."""
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=10)
        try:
            self.journal.retire()
        except Exception:  # closing anyway
            log.warning("could not retire this process from the journal", exc_info=True)
