"""The TCO chart, drawn in a separate process and uploaded from a background thread, so the thread
that answers Slack never waits for it and the serving process's GIL never holds Pillow's drawing
and zlib (about 28 ms per chart, 45% of a serving process's CPU when drawn inline).

Why a process and not a thread: drawing and PNG compression hold the GIL for most of their time,
so a thread would still take that time from every other turn in the process. The pool is spawned
(not forked: the server has threads and open database connections) with one process per serving
process, started in the background when the server starts so the first chart does not pay for it.
A chart is an extra: a failure to draw or upload is one log line, never an apology.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

log = logging.getLogger(__name__)


def draw(bars: Sequence[Any], title: str, subtitle: str) -> bytes:
    """Runs in the chart process (imports Pillow there, never in the serving process)."""
    from bot.chart import tco_chart_png

    return tco_chart_png(bars, title, subtitle)


def _init_chart_process(parent: int) -> None:
    """The chart process dies with its serving process (kill -9 included), never outliving it."""
    from bot.workers import die_with_parent

    die_with_parent(parent)


def _warm() -> bool:
    import bot.chart  # noqa: F401  (Pillow and the fonts loaded before the first chart)

    return True


class ChartWorker:
    def __init__(self, processes: int = 1, upload_threads: int = 2) -> None:
        self.processes = processes
        self._pool: ProcessPoolExecutor | None = None
        self._uploads = ThreadPoolExecutor(max_workers=upload_threads, thread_name_prefix="chart-upload")
        self._lock = threading.Lock()
        self._closed = False

    def _executor(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ProcessPoolExecutor(self.processes, mp_context=multiprocessing.get_context("spawn"),
                                                 initializer=_init_chart_process, initargs=(os.getpid(),))
            return self._pool

    def start(self) -> ChartWorker:
        """Spawn the chart process now (in the background: this returns at once)."""
        self._executor().submit(_warm)
        return self

    def submit(self, view: Any, on_png: Callable[[bytes], object]) -> None:
        """Draw `view` (a `bot.render` chart view: bars, title, subtitle) elsewhere, then call
        `on_png(png)` on an upload thread."""
        if self._closed:
            return
        try:
            future = self._executor().submit(draw, list(view.bars), view.title, view.subtitle)
        except (BrokenProcessPool, RuntimeError):  # the chart process died (OOM killer...): start a new one
            with self._lock:
                self._pool = None
            future = self._executor().submit(draw, list(view.bars), view.title, view.subtitle)
        future.add_done_callback(lambda done: self._drawn(done, on_png))

    def _drawn(self, future: Future[bytes], on_png: Callable[[bytes], object]) -> None:
        try:
            png = future.result()
        except Exception:
            log.exception("TCO chart could not be drawn")
            return
        with contextlib.suppress(RuntimeError):  # shutting down
            self._uploads.submit(on_png, png)

    def stop(self) -> None:
        self._closed = True
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True)
        self._uploads.shutdown(wait=True)
