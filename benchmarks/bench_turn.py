"""Where one turn's time goes in the serving process: a per-stage breakdown, in process.

The app is started the way `gpu-advisor serve` starts it (`bot.server.start`: real HTTP on
loopback, Bolt, the SQLite store in a file, charts off so nothing else competes) against the
fake Slack of the tests in the same process; mentions are sent one at a time (each waits for its
reply) and every stage is timed with `time.perf_counter()` by wrapping the function that does it.
Why wrappers and not cProfile: cProfile triples the cost of small Python calls and only sees one
thread, while a turn crosses three (the HTTP handler, Bolt's listener pool, the catalog's).

The HTTP stage runs from the start of the POST's handling to its ack being written. The stages do
not simply add up: the HTTP handler's thread sends the ack while Bolt's listener thread already
parses, so the two overlap and share the GIL (the fake Slack runs in this process
too). The Web API stage includes the fake Slack's own handling of the call.
"""

from __future__ import annotations

import collections
import contextlib
import gc
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.bench_e2e import MESSAGES
from benchmarks.harness import (
    BOT_TOKEN,
    SIGNING_SECRET,
    BenchSlack,
    mention_body,
    percentile,
    post_event,
    unique_ts,
)

# (stage label, "module:Class.attr" wrapped); order is the order of a turn
STAGES: tuple[tuple[str, str], ...] = (
    ("HTTP adapter, signature check, Bolt ack (excl. claim)", "bot.http_server:_Handler"),
    ("journal claim (write transaction on the ack path)", "bot.journal:EventJournal.claim"),
    ("thread state load (read)", "bot.state:ThreadStore.load"),
    ("conversation restore", "bot.service:Advisor.load_conversation"),
    ("parse (Conversation.turn)", "parser.conversation:Conversation.turn"),
    ("engine (advise)", "bot.service:Advisor.advise"),
    ("render (summary view, jinja2 Block Kit, limits)", "bot.replies:render_response"),
    ("scenario JSON (advice + conversation)", "bot.service:Response.advice_json"),
    ("commit transaction (scenario, done, outbox row)", "bot.replies:Replier._commit"),
    ("Web API chat.postMessage (incl. the fake Slack)", "bot.outbox:Outbox._post"),
    ("settle transaction (outbox row deleted)", "bot.outbox:Outbox._settle"),
)
# nested inside another stage: reported but not subtracted twice
NESTED = {"journal claim (write transaction on the ack path)": "HTTP adapter, signature check, Bolt ack (excl. claim)"}


@dataclass(frozen=True)
class StageTiming:
    stage: str
    median_ms: float
    mean_ms: float
    calls_per_turn: float


class Recorder:
    def __init__(self) -> None:
        self.spans: list[tuple[str, float, float]] = []  # (stage, seconds, perf_counter at its end)
        self._lock = threading.Lock()
        self._undo: list[Callable[[], None]] = []

    def wrap_ack(self, label: str, handler: Any) -> None:
        """From the start of the POST's handling until its ack is written: what follows on that thread
        (returning, waiting for the GIL the listener holds) is not part of the ack path."""
        local = threading.local()
        do_post, send = handler.do_POST, handler._send
        recorder = self

        def timed_post(this: Any) -> Any:
            local.started = time.perf_counter()
            return do_post(this)

        def timed_send(this: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                return send(this, *args, **kwargs)
            finally:
                started = getattr(local, "started", None)
                if started is not None:
                    ended = time.perf_counter()
                    local.started = None
                    with recorder._lock:
                        recorder.spans.append((label, ended - started, ended))

        handler.do_POST, handler._send = timed_post, timed_send
        self._undo.append(lambda: (setattr(handler, "do_POST", do_post), setattr(handler, "_send", send)))

    def wrap(self, label: str, target: str) -> None:
        import importlib

        if target == "bot.http_server:_Handler":
            from bot.http_server import _Handler

            self.wrap_ack(label, _Handler)
            return

        module_name, _, path = target.partition(":")
        owner: Any = importlib.import_module(module_name)
        *parents, attr = path.split(".")
        for name in parents:
            owner = getattr(owner, name)
        original = owner.__dict__[attr] if isinstance(owner, type) else getattr(owner, attr)
        recorder = self

        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                ended = time.perf_counter()
                with recorder._lock:
                    recorder.spans.append((label, ended - started, ended))

        setattr(owner, attr, timed)
        self._undo.append(lambda: setattr(owner, attr, original))

    def take(self) -> list[tuple[str, float, float]]:
        with self._lock:
            spans, self.spans = self.spans, []
        return spans

    def restore(self) -> None:
        for undo in reversed(self._undo):
            undo()


@contextlib.contextmanager
def _server(slack: BenchSlack) -> Iterator[Any]:
    from bot import gc_settings
    from bot.config import Config
    from bot.server import start

    workdir = Path(tempfile.mkdtemp(prefix="gpu-advisor-turn-"))
    config = Config(bot_token=BOT_TOKEN, signing_secret=SIGNING_SECRET, api_url=slack.api_url,
                    db_path=workdir / "state.db", charts=False)  # type: ignore[call-arg]
    running = start(config, port=0)
    thresholds = gc.get_threshold()
    gc_settings.serving()  # as `gpu-advisor serve` runs after building its server
    try:
        yield running
    finally:
        running.stop()
        gc.unfreeze()
        gc.set_threshold(*thresholds)


def breakdown(turns: int, warm: int = 10) -> tuple[list[StageTiming], list[float]]:
    """Per-stage medians over `turns` mentions, and the end-to-end samples (ms)."""
    slack = BenchSlack()
    recorder = Recorder()
    per_turn: list[dict[str, float]] = []
    counts: collections.Counter[str] = collections.Counter()
    e2e: list[float] = []
    try:
        with _server(slack) as running:
            for label, target in STAGES:
                recorder.wrap(label, target)
            url = running.http.url
            for i in range(warm + turns):
                channel, ts = f"CT{i % 10}", unique_ts()
                recorder.take()
                started = time.perf_counter()
                post_event(url, mention_body(MESSAGES[i % len(MESSAGES)], channel=channel, ts=ts, event_id=f"Ev{ts}"))
                posts = slack.wait_replies(channel, ts, 1, timeout=30)
                if not posts:
                    continue
                time.sleep(0.01)  # the settle runs just after the post arrived
                spans = recorder.take()
                if i < warm or not spans:
                    continue
                e2e.append((posts[0].at - started) * 1e3)
                turn: dict[str, float] = collections.defaultdict(float)
                for label, seconds, _ in spans:
                    turn[label] += seconds * 1e3
                    counts[label] += 1
                for inner, outer in NESTED.items():
                    turn[outer] -= turn.get(inner, 0.0)
                per_turn.append(turn)
    finally:
        recorder.restore()
        slack.stop()
    labels = [label for label, _ in STAGES]
    out = []
    for label in labels:
        values = [t.get(label, 0.0) for t in per_turn]
        out.append(StageTiming(label, percentile(values, 50), sum(values) / max(1, len(values)),
                               counts[label] / max(1, len(per_turn))))
    return out, e2e


def main() -> None:
    stages, e2e = breakdown(60)
    print(f"end to end p50 {percentile(e2e, 50):.2f} ms over {len(e2e)} turns")
    for s in stages:
        print(f"{s.median_ms:8.2f} ms median {s.mean_ms:8.2f} ms mean {s.calls_per_turn:5.1f}/turn  {s.stage}")


if __name__ == "__main__":
    main()
