"""One turn in a Slack thread: load the thread's scenario, run the advisor, then in one SQLite
transaction save the scenario, mark the event answered and queue the reply; send it from the outbox.

Shared by the mention, message and button listeners so each of those stays a dozen lines. A
failure anywhere in a turn is logged with its traceback and answered with an apology in the same
thread: the user never meets silence.

The first message is a summary; its second layer is posted on demand, by a button or by the same
word typed in the thread: `details`, `options`, `formulas`, `chart` (`Replier.layer`). A layer is
built from the advice saved with the thread, so it answers the same after a restart.

The TCO chart (a PNG of the options, `files_upload_v2`, scope `files:write`) is offered, not pushed:
it is drawn and uploaded when asked for. A failed upload (missing scope, not allowed, network) is
logged as one line and answered with a one-line note, never an apology.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.chart import tco_chart_png
from bot.chart_worker import ChartWorker
from bot.details import build_details_view, build_options_view, render_details, render_options
from bot.journal import EventJournal, TurnRequest
from bot.limits import Message, fit_message
from bot.outbox import Outbox
from bot.outbox import Row as OutboxRow
from bot.render import build_chart_view, build_formulas_view, render_error, render_formulas, render_response
from bot.routing import thread_key as thread_key  # re-exported for the listeners
from bot.service import Advisor, Response, thread_word
from bot.state import StaleThread, ThreadKey, ThreadState, ThreadStore
from engine.models import Advice

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Committed:
    """A turn's transaction went through; `leased`: its first reply, ours to send at once."""

    leased: OutboxRow | None


@dataclass
class Replier:
    advisor: Advisor
    store: ThreadStore
    charts: bool = True  # Config.charts (GPU_ADVISOR_CHARTS): offer the "Cost chart" button
    tables: bool = False  # the comparison as a Slack table block (workspaces that support it)
    journal: EventJournal = None  # type: ignore[assignment]  # default: a journal for this process
    outbox: Outbox = None  # type: ignore[assignment]  # default: retries with the documented back-off
    chart_worker: ChartWorker | None = None  # None: charts drawn inline (after the reply was sent)
    hold_turns: bool = False  # tests only (GPU_ADVISOR_TEST_HOLD_TURNS): block after the claim, never answer
    # the last advice of recent threads, by (thread, version): a follow-up here does not read and
    # re-validate the stored JSON (hundreds of KB, ~5 ms) when no other process saved the thread since
    _advice: OrderedDict[ThreadKey, tuple[int, Advice]] = field(default_factory=OrderedDict, init=False, repr=False)
    _advice_lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)
    ADVICE_KEPT = 16  # about 1.2 MB each as objects

    def __post_init__(self) -> None:
        if self.journal is None:
            self.journal = EventJournal(self.store)
        if self.outbox is None:
            self.outbox = Outbox(self.store, apology=render_error, journal=self.journal)

    def answer(self, client: WebClient, request: TurnRequest) -> Response | None:
        """Run the turn an event asked for (live, or replayed after a crash)."""
        if self.hold_turns:
            threading.Event().wait()  # the e2e tests kill -9 the process here: acked, claimed, unanswered
        if request.kind == "thread_reply" and not self.store.has_scenario(request.key):
            if request.event_id:  # not our thread: nothing to answer, nothing to replay
                with self.store.transaction():
                    self.journal.finish(request.event_id)
            return None
        return self.turn(client, request.key, request.text, event_id=request.event_id)

    def turn(self, client: WebClient, key: ThreadKey, text: str, *, event_id: str | None = None) -> Response | None:
        """Answer `text` in the thread `key`; apologise (and return None) if the turn fails.

        The scenario, the event's "done" mark and the reply are one transaction (see `_commit`); the
        reply is then sent from the outbox. None also when another process took the event over.
        A thread word (`details`, `options`, `formulas`, `chart`) posts that layer of the saved answer."""
        word = thread_word(text)
        if word is not None:
            return self.layer(client, key, word, event_id=event_id)
        retired: list[tuple[int, Advice]] = []  # advice dropped from memory, freed once the reply is sent
        try:
            for _ in range(3):
                with self.store.locked(key):
                    state, previous = self._load(key)
                    conversation = self.advisor.load_conversation(state.conversation if state else None)
                    response = self.advisor.respond(conversation, text, previous)
                    messages = render_response(response, self.advisor.display_names(), tables=self.tables,
                                               charts=self.charts)
                    try:
                        stored = response.stored_advice()  # what any worker will load for this thread's next turn
                        committed = self._commit(key, event_id, messages, conversation=conversation.to_dict(),
                                                 advice_json=stored.model_dump_json() if stored else None,
                                                 version=state.version if state else 0)
                        if not committed:
                            return None
                        retired = self._remember(key, (state.version if state else 0) + 1, stored)
                        break
                    except StaleThread:  # another process saved this thread meanwhile: start again from its state
                        continue
            else:
                raise RuntimeError("the thread kept changing under the turn")
        except Exception:
            log.exception("turn failed in %s/%s", key.channel, key.thread_ts or "top level")
            self.apologise(client, key, event_id=event_id)
            return None
        self.outbox.deliver(client, key, leased=committed.leased)  # the chart is offered, not pushed
        del retired  # freed here, after the post: see `_remember`
        return response

    def _load(self, key: ThreadKey) -> tuple[ThreadState | None, Advice | None]:
        """The thread's state and its advice (from memory when this process saved that version)."""
        with self._advice_lock:
            cached = self._advice.get(key)
        state = self.store.load(key, unless_version=cached[0] if cached else None)
        if state is None:
            return None, None
        if state.advice_omitted and cached is not None:
            return state, cached[1]
        advice = Advice.model_validate_json(state.advice_json) if state.advice_json else None
        self._remember(key, state.version, advice)
        return state, advice

    def _remember(self, key: ThreadKey, version: int, advice: Advice | None) -> list[tuple[int, Advice]]:
        """Keep `advice` as the thread's, and return what it replaced or pushed out (the oldest thread's).

        Why return them: freeing an answer's objects (thousands of pydantic models) takes ~0.2 ms, and
        a new thread pushes one out every turn once `ADVICE_KEPT` threads are kept; `turn` holds them
        until its reply has been posted, so that time is not spent between the commit and the post."""
        dropped: list[tuple[int, Advice]] = []
        with self._advice_lock:
            if advice is None:
                if (old := self._advice.pop(key, None)) is not None:
                    dropped.append(old)
                return dropped
            if (old := self._advice.get(key)) is not None:
                dropped.append(old)
            self._advice[key] = (version, advice)
            self._advice.move_to_end(key)
            while len(self._advice) > self.ADVICE_KEPT:
                dropped.append(self._advice.popitem(last=False)[1])
        return dropped

    def _commit(self, key: ThreadKey, event_id: str | None, messages: list[Message], *, kind: str = "answer",
                conversation: dict[str, Any] | None = None, advice_json: str | None = None,
                version: int | None = None) -> Committed | None:
        """One transaction: event done (if it is still ours), scenario saved (if given), reply queued
        and, when it heads its thread's queue, leased to this process. None, with nothing written,
        when another process has taken the event over."""
        with self.store.transaction():
            if event_id and not self.journal.finish(event_id):
                log.info("event %s was taken over by another process; not answering it here", event_id)
                return None
            if conversation is not None:
                self.store.save(key, conversation, advice_json, expected_version=version)
            return Committed(self.outbox.enqueue(key, messages, kind=kind, event_id=event_id, lease=True))

    def upload_chart(self, client: WebClient, key: ThreadKey, response: Response) -> bool:
        """Upload the TCO chart of `response` to the thread; False (logged) when there is none or it failed."""
        try:
            view = build_chart_view(response, self.advisor.display_names())
            if view is None:
                return False
            if self.chart_worker is not None:  # drawn in another process, uploaded from its thread
                def upload(png: bytes) -> None:
                    if not self.upload_png(client, key, view, png):
                        self.chart_not_posted(client, key)

                self.chart_worker.submit(view, upload)
                return True
            png = tco_chart_png(view.bars, view.title, view.subtitle)
        except Exception:  # a drawing bug: worth a traceback (no network, nothing secret involved)
            log.exception("TCO chart could not be drawn for %s/%s", key.channel, key.thread_ts)
            return False
        return self.upload_png(client, key, view, png)

    def chart_not_posted(self, client: WebClient, key: ThreadKey) -> None:
        """One line instead of the chart (never an apology): the answer itself stands."""
        text = ("The cost chart could not be posted here (charts are off, there is nothing priced to draw, or the "
                "app lacks the files:write scope). *All options* lists the same figures.")
        self.post(client, key, fit_message([{"type": "section", "text": {"type": "mrkdwn", "text": text}}],
                                           text.replace("*", "")))

    def upload_png(self, client: WebClient, key: ThreadKey, view: Any, png: bytes) -> bool:
        try:
            client.files_upload_v2(
                channel=key.channel,
                thread_ts=key.thread_ts or None,
                file=png,
                filename="tco.png",
                title=view.title,
                alt_txt=view.alt_text,
                initial_comment=None,
            )
            return True
        except SlackApiError as exc:  # e.g. missing_scope (no files:write), not_allowed_token_type
            error = exc.response.get("error", "unknown") if exc.response is not None else "unknown"
            log.warning("TCO chart not uploaded in %s/%s: Slack said %s", key.channel, key.thread_ts, error)
        except Exception as exc:  # network or the upload URL (a one-time capability: not logged)
            log.warning("TCO chart not uploaded in %s/%s: %s", key.channel, key.thread_ts, exc.__class__.__name__)
        return False

    def layer(self, client: WebClient, key: ThreadKey, word: str, *, event_id: str | None = None) -> Response | None:
        """Post one layer of the thread's saved answer: "details", "options", "formulas", "cheaper" or "chart".

        Read from the thread store (not process memory), so a button pressed after a restart works."""
        try:
            _, advice = self._load(key)
            response = Response(word, word, advice.workload if advice else None, advice)
            if advice is None:
                messages = render_response(Response("", "help", None, None))
            elif word == "chart":
                if not self._commit(key, event_id, []):
                    return None
                if not (self.charts and self.upload_chart(client, key, response)):
                    self.chart_not_posted(client, key)
                return response
            else:
                names = self.advisor.display_names()
                if word == "details":
                    messages = render_details(build_details_view(advice, names))
                elif word == "options":
                    messages = render_options(build_options_view(advice, names))
                elif word == "cheaper":
                    from bot.cheaper import build_cheaper_view, render_cheaper

                    messages = render_cheaper(build_cheaper_view(advice, names, self.advisor.advise))
                else:
                    messages = render_formulas(build_formulas_view(advice))
            committed = self._commit(key, event_id, messages)
            if not committed:
                return None
        except Exception:
            log.exception("%s failed in %s/%s", word, key.channel, key.thread_ts)
            self.apologise(client, key, event_id=event_id)
            return None
        self.outbox.deliver(client, key, leased=committed.leased)  # the commit leased the reply to this process
        return response

    def formulas(self, client: WebClient, key: ThreadKey) -> None:
        """The "Formulas" button (kept for callers of the earlier name)."""
        self.layer(client, key, "formulas")

    def post(self, client: WebClient, key: ThreadKey, messages: list[Message], *, kind: str = "answer") -> bool:
        """Queue `messages` in the thread's outbox and send what is due; True when all of it was sent."""
        self.outbox.enqueue(key, messages, kind=kind)
        return self.outbox.deliver(client, key)

    def apologise(self, client: WebClient, key: ThreadKey, *, event_id: str | None = None) -> None:
        """The apology goes through the outbox too, so it survives an outage like any reply."""
        try:
            if committed := self._commit(key, event_id, render_error(), kind="apology"):
                self.outbox.deliver(client, key, leased=committed.leased)
        except Exception:  # the database itself is failing: the log is all we can do
            log.exception("could not queue the apology in %s/%s", key.channel, key.thread_ts)
