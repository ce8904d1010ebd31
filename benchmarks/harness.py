"""The shared test bench for the end-to-end benchmarks: a recording fake of the Slack Web API,
server processes started and always stopped, and events signed the way Slack signs them.

Why a subclass of tests/bot/fake_slack.FakeSlack rather than a new fake: the bot's own end-to-end
tests already pin how that fake answers (auth.test identity, chat.postMessage ts), so the
benchmarks measure the same bot the tests check. The subclass adds only what a benchmark needs:
the arrival time of every successful post keyed by (channel, thread_ts), a condition variable to
wait on, and failure *windows* in time (429 with Retry-After, or 500) instead of "the next n calls".

Every process started here is registered with its `Harness` and killed in `close()`, which callers
run in a `finally`, so an interrupted benchmark never leaves a server bound to a port.
"""

from __future__ import annotations

import collections
import contextlib
import http.client
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tests.bot.fake_slack import FakeSlack
from tests.bot.signing import signed_headers

ROOT = Path(__file__).resolve().parent.parent
BOT_TOKEN = "xoxb-bench-0000-token"
SIGNING_SECRET = "bench-signing-secret"
LISTENING = re.compile(r"listening on (http://[\d.]+:\d+)/slack/events")
TIME_V = Path("/usr/bin/time")


# --- the fake Slack ------------------------------------------------------------------------------
@dataclass
class Post:
    """One successful chat.postMessage as the fake saw it."""

    channel: str
    thread_ts: str
    text: str
    blocks: Any
    at: float  # time.perf_counter() at arrival, same clock as the senders (same process)


@dataclass
class FailureWindow:
    """Between `start` and `end` (perf_counter), chat.postMessage answers `status`."""

    start: float
    end: float
    status: int
    retry_after_s: int = 1


class BenchSlack(FakeSlack):
    """FakeSlack that timestamps successful posts and can fail for a window of time.

    `validate_every`: the Block Kit of one post in that many is checked in full (slack_sdk's block
    models, ~1 ms a post); the others get the cheap checks only (text, length, block count). The
    fake runs in the load generator's process, which shares the 2 cores with the servers measured:
    the bot's own tests check every post (tests/bot), the benchmarks a sample."""

    def __init__(self, *, validate_every: int = 10) -> None:
        self.validate_every = max(1, validate_every)
        self._validated = 0
        self.posts: list[Post] = []
        self.by_thread: dict[tuple[str, str], list[Post]] = collections.defaultdict(list)
        self.failed: collections.Counter[int] = collections.Counter()
        self.windows: list[FailureWindow] = []
        self._cond = threading.Condition()
        super().__init__()

    def fail_between(self, start: float, end: float, status: int, retry_after_s: int = 1) -> None:
        self.windows.append(FailureWindow(start, end, status, retry_after_s))

    def _answer(self, method: str, params: dict[str, Any], token: str) -> tuple[int, dict[str, Any], dict[str, str]]:
        now = time.perf_counter()
        if method == "chat.postMessage":
            for w in self.windows:
                if w.start <= now < w.end:
                    with self._cond:
                        self.failed[w.status] += 1
                    headers = {"Retry-After": str(w.retry_after_s)} if w.status == 429 else {}
                    error = "ratelimited" if w.status == 429 else "fatal_error"
                    return w.status, {"ok": False, "error": error}, headers
        status, body, headers = super()._answer(method, params, token)
        if method == "chat.postMessage" and status == 200 and body.get("ok"):
            post = Post(str(params.get("channel")), str(params.get("thread_ts") or ""), str(params.get("text", "")),
                        params.get("blocks"), now)
            with self._cond:
                self.posts.append(post)
                self.by_thread[(post.channel, post.thread_ts)].append(post)
                self._cond.notify_all()
        return status, body, headers

    def _invalid(self, method: str, params: dict[str, Any]) -> dict[str, Any] | None:
        if method != "chat.postMessage" or not isinstance(params.get("blocks"), list):
            return super()._invalid(method, params)
        with self._cond:
            self._validated += 1
            full = self._validated % self.validate_every == 1 or self.validate_every == 1
        if full:
            return super()._invalid(method, params)
        if len(params["blocks"]) > 50:
            return {"error": "invalid_blocks"}
        return super()._invalid(method, {k: v for k, v in params.items() if k != "blocks"})

    def replies(self, channel: str, thread_ts: str) -> list[Post]:
        with self._cond:
            return list(self.by_thread.get((channel, thread_ts), ()))

    def wait_replies(self, channel: str, thread_ts: str, count: int = 1, timeout: float = 10.0) -> list[Post]:
        """Block until `count` replies reached the thread (or time out); return what arrived."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while len(self.by_thread.get((channel, thread_ts), ())) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(left)
            return list(self.by_thread.get((channel, thread_ts), ()))

    def wait_total(self, count: int, timeout: float) -> int:
        deadline = time.monotonic() + timeout
        with self._cond:
            while len(self.posts) < count and (left := deadline - time.monotonic()) > 0:
                self._cond.wait(left)
            return len(self.posts)

    def clear(self) -> None:
        with self._cond:
            self.posts.clear()
            self.by_thread.clear()
            self.failed.clear()
            self.windows.clear()
        self.reset()


# --- events ----------------------------------------------------------------------------------------
_counter = iter(range(1, 10**9))
_counter_lock = threading.Lock()


def unique_ts() -> str:
    """A Slack-shaped message ts that no other event in this process uses."""
    with _counter_lock:
        n = next(_counter)
    return f"17{n // 1_000_000:08d}.{n % 1_000_000:06d}"


def mention_body(text: str, *, channel: str, ts: str, event_id: str, thread_ts: str | None = None) -> str:
    event: dict[str, Any] = {"type": "app_mention", "user": "U1", "text": f"<@UBOT> {text}", "ts": ts,
                             "channel": channel, "event_ts": ts}
    if thread_ts:
        event["thread_ts"] = thread_ts
    return _event_body(event, event_id)


def thread_reply_body(text: str, *, channel: str, ts: str, thread_ts: str, event_id: str) -> str:
    event = {"type": "message", "channel_type": "channel", "user": "U1", "text": text, "ts": ts,
             "thread_ts": thread_ts, "channel": channel, "event_ts": ts}
    return _event_body(event, event_id)


def _event_body(event: dict[str, Any], event_id: str) -> str:
    return json.dumps({"token": "x", "team_id": "T1", "api_app_id": "A1", "type": "event_callback",
                       "event_id": event_id, "event_time": int(time.time()), "event": event,
                       "authorizations": [{"team_id": "T1", "user_id": "UBOT", "is_bot": True}]})


def post_event(base_url: str, body: str, *, retry_num: int | None = None, timeout: float = 10.0) -> int:
    """POST a signed event to /slack/events; the HTTP status (0 when the connection failed).

    Plain `http.client` on a new connection per event (as Slack opens them), not `urllib.request`:
    the load generator shares the machine's cores with the servers it measures, and urllib's opener
    machinery costs it several times more CPU per event."""
    headers = signed_headers(body, secret=SIGNING_SECRET, retry_num=retry_num)
    headers["Connection"] = "close"
    parts = urlsplit(base_url)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=timeout)
    try:
        conn.request("POST", "/slack/events", body=body.encode(), headers=headers)
        response = conn.getresponse()
        response.read()
        return response.status
    except OSError:
        return 0
    finally:
        conn.close()


def deliver(base_url: str, body: str, *, attempts: int = 4, wait_s: float = 1.0) -> tuple[int, int]:
    """Deliver an event as Slack does: re-send with X-Slack-Retry-Num while the app does not answer
    200 (Slack waits 1 s, 1 min, 5 min; `wait_s` stands in for all three). Returns
    (status of the first attempt, status of the last)."""
    first = status = post_event(base_url, body)
    for retry in range(1, attempts):
        if status == 200:
            break
        time.sleep(wait_s)
        status = post_event(base_url, body, retry_num=retry)
    return first, status


# --- statistics --------------------------------------------------------------------------------------
def percentile(samples: Sequence[float], q: float) -> float:
    """Nearest-rank percentile: the smallest sample with at least q% of samples at or below it
    (no interpolation, so every figure reported is a latency that was actually observed)."""
    if not samples:
        return float("nan")
    ordered = sorted(samples)
    rank = max(1, min(len(ordered), math.ceil(q / 100 * len(ordered) - 1e-9)))
    return ordered[rank - 1]


class Delivered:
    """Lost replies and latency percentiles of a load run: a mixin for the result dataclasses that count
    `sent` and `delivered` events and keep each reply's `latencies_ms`."""

    sent: int
    delivered: int
    latencies_ms: list[float]

    @property
    def lost(self) -> int:
        return self.sent - self.delivered

    @property
    def p50(self) -> float:
        return percentile(self.latencies_ms, 50)

    @property
    def p99(self) -> float:
        return percentile(self.latencies_ms, 99)


# --- processes -----------------------------------------------------------------------------------------
def tool_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment for child processes: the repo first on PYTHONPATH.

    Why: the console script must import this checkout, whatever state the editable install's
    finder is in, and `python -m benchmarks...` children need `tests` importable.
    """
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    env.pop("SLACK_APP_TOKEN", None)
    env.update(extra or {})
    return env


def gpu_advisor_command() -> list[str]:
    """`gpu-advisor` from the running interpreter's environment (the venv), else `python -m bot`."""
    script = Path(sys.executable).parent / "gpu-advisor"
    if script.exists():
        return [str(script)]
    found = shutil.which("gpu-advisor")
    return [found] if found else [sys.executable, "-m", "bot"]


@dataclass
class Server:
    """A server process started by a Harness."""

    name: str
    process: subprocess.Popen[bytes]
    url: str
    log_path: Path
    time_path: Path | None = None
    db_path: Path | str | None = None
    workers: int = 1

    def worker_pids(self) -> list[int]:
        """The serving processes: the workers under a `--workers N` supervisor, else the server itself."""
        if self.workers <= 1:
            return [self.server_pid]
        return [int(p) for p in _children(self.server_pid)]

    def peak_rss_kib(self) -> dict[int, int]:
        """Peak RSS (VmHWM, KiB) of each serving process now (not the supervisor or chart processes)."""
        out = {}
        for pid in self.worker_pids():
            with contextlib.suppress(OSError, ValueError, IndexError):
                status = Path(f"/proc/{pid}/status").read_text()
                out[pid] = int(re.search(r"VmHWM:\s+(\d+)", status).group(1))  # type: ignore[union-attr]
        return out

    @property
    def server_pid(self) -> int:
        """The serving process itself: the child of /usr/bin/time when wrapped."""
        if self.time_path is None:
            return self.process.pid
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        try:
            pids = children.read_text().split()
        except OSError:
            pids = []
        return int(pids[0]) if pids else self.process.pid

    def kill9(self) -> None:
        """SIGKILL the server; its workers (if any) die with it (they asked the kernel to)."""
        os.kill(self.server_pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> int | None:
        """SIGTERM the server (gracefully: /usr/bin/time then reports), SIGKILL if it lingers.
        Returns the peak RSS in KiB when the server ran under /usr/bin/time -v."""
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.server_pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        if self.time_path is not None and self.time_path.exists():
            match = re.search(r"Maximum resident set size \(kbytes\): (\d+)", self.time_path.read_text())
            if match:
                return int(match.group(1))
        return None

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def log_tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


def _children(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []


@dataclass
class Harness:
    """One fake Slack plus the servers started against it; `close()` stops them all."""

    slack: BenchSlack = field(default_factory=BenchSlack)
    workdir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="gpu-advisor-bench-")))
    servers: list[Server] = field(default_factory=list)

    def start(self, kind: str = "bot", *, db_path: Path | str | None = None, measure_memory: bool = False,
              timeout: float = 60.0, workers: int = 1, env: dict[str, str] | None = None) -> Server:
        """Start `gpu-advisor serve --workers N` (kind "bot") or the bare Bolt echo app (kind "echo")
        on a free loopback port and wait until it listens. `db_path`: a SQLite path or a
        postgresql:// URL (default: a fresh SQLite file)."""
        db_path = db_path or self.workdir / f"{kind}-{len(self.servers)}.db"
        env = tool_env({
            "SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_SIGNING_SECRET": SIGNING_SECRET,
            "SLACK_API_URL": self.slack.api_url, "GPU_ADVISOR_DB": str(db_path),
            "GPU_ADVISOR_CATALOG_DIR": str(self.workdir / "catalog-extra"), **(env or {}),
        })
        if kind == "bot":
            command = [*gpu_advisor_command(), "serve", "--host", "127.0.0.1", "--port", "0", "--workers", str(workers)]
        elif kind == "echo":
            command = [sys.executable, "-m", "benchmarks.echo_app", "--host", "127.0.0.1", "--port", "0"]
        else:
            raise ValueError(kind)
        n = len(self.servers)
        log_path = self.workdir / f"{kind}-{n}.log"
        time_path = None
        if measure_memory and TIME_V.exists():
            time_path = self.workdir / f"{kind}-{n}.time"
            command = [str(TIME_V), "-v", "-o", str(time_path), *command]
        with log_path.open("wb") as log:
            process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=log,
                                       start_new_session=True)
        server = Server(kind, process, "", log_path, time_path, db_path, workers if kind == "bot" else 1)
        self.servers.append(server)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            match = LISTENING.search(log_path.read_text(errors="replace"))
            if match:
                server.url = match.group(1)
                return server
            if process.poll() is not None:
                break
            time.sleep(0.05)
        server.stop()
        raise RuntimeError(f"{kind} server did not start:\n{server.log_tail()}")

    def close(self) -> None:
        for server in self.servers:
            try:
                server.stop()
            except Exception:  # stopping the rest matters more than this one's error
                if server.process.poll() is None:
                    server.process.kill()
        self.servers.clear()
        self.slack.stop()
        shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self) -> Harness:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
