"""A local stand-in for the Slack Web API (and Socket Mode's WebSocket), for end-to-end tests.

`FakeSlack` is a threaded http.server on 127.0.0.1:0. Web API methods are served at
`/api/<method>` (point SLACK_API_URL at `fake.api_url`); `response_url` posts land on
`/response/<id>`. Every call is recorded; `fail_next(n, status, retry_after)` makes the next n
Web API calls fail with 429 or 5xx, to exercise retry handlers; `refuse(method, error)` makes
every call of a method answer `{"ok": false, "error": ...}` (e.g. `missing_scope`);
`outage(method, status)` makes every call of a method fail until `recover()` (longer than any
client retry budget). Each recorded call carries the HTTP `status` it was answered with, and
`accepted(method)` lists only those Slack took (200).

File uploads follow `files_upload_v2`: `files.getUploadURLExternal` hands out an upload URL on this
server (`/upload/<file_id>`), the raw bytes POSTed there are kept in `uploads` (recorded as method
"upload"), and `files.completeUploadExternal` answers with the completed `files`.
"""

from __future__ import annotations

import itertools
import json
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

BOT_USER_ID = "UBOT"
TEAM_ID = "T1"


@dataclass
class Call:
    method: str
    params: dict[str, Any]
    headers: dict[str, str]
    at: float = field(default_factory=time.monotonic)
    status: int = 200


class FakeSlack:
    def __init__(self, *, bad_tokens: tuple[str, ...] = ("xoxb-bad",)) -> None:
        self.calls: list[Call] = []
        self.bad_tokens = bad_tokens
        self.failures: list[tuple[str, int, int]] = []  # (method, status, retry_after) for the next calls
        self.ws_url: str | None = None
        self.refusals: dict[str, str] = {}  # method -> error code answered with ok: false
        self.outages: dict[str, int] = {}  # method -> HTTP status answered until recover()
        self.uploads: dict[str, bytes] = {}  # file_id -> bytes POSTed to its upload URL
        self._upload_names: dict[str, str] = {}
        self._ts = itertools.count(1)
        self._lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    @property
    def api_url(self) -> str:
        return self.url + "/api/"

    def response_url(self, name: str = "r1") -> str:
        return f"{self.url}/response/{name}"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    # --- test helpers ---------------------------------------------------------------------------
    def fail_next(self, n: int, status: int = 429, retry_after: int = 0, method: str = "chat.postMessage") -> None:
        """The next n calls of `method` fail with `status` (429 carries Retry-After)."""
        with self._lock:
            self.failures += [(method, status, retry_after)] * n

    def refuse(self, method: str, error: str) -> None:
        """Every later call of `method` answers ok: false with `error` (missing_scope adds `needed`)."""
        with self._lock:
            self.refusals[method] = error

    def outage(self, method: str = "chat.postMessage", status: int = 500) -> None:
        """Every later call of `method` fails with `status` until `recover()`."""
        with self._lock:
            self.outages[method] = status

    def recover(self) -> None:
        with self._lock:
            self.outages.clear()

    def accepted(self, method: str = "chat.postMessage") -> list[Call]:
        return [c for c in self.of(method) if c.status == 200]

    def of(self, method: str) -> list[Call]:
        with self._lock:
            return [c for c in self.calls if c.method == method]

    def wait_for(self, method: str, count: int = 1, timeout: float = 10.0,
                 where: Callable[[Call], bool] = lambda c: True) -> list[Call]:
        """Poll until `count` matching calls arrived; fail with what did arrive."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = [c for c in self.of(method) if where(c)]
            if len(found) >= count:
                return found
            time.sleep(0.02)
        raise AssertionError(f"expected {count} {method} call(s), got {[c.method for c in self.calls]}")

    def reset(self) -> None:
        with self._lock:
            self.calls.clear()
            self.failures.clear()
            self.refusals.clear()
            self.outages.clear()
            self.uploads.clear()

    # --- the server -------------------------------------------------------------------------------
    def _answer(self, method: str, params: dict[str, Any], token: str) -> tuple[int, dict[str, Any], dict[str, str]]:
        with self._lock:
            if self.failures and self.failures[0][0] == method:
                _, status, retry_after = self.failures.pop(0)
                headers = {"Retry-After": str(retry_after)} if status == 429 else {}
                return status, {"ok": False, "error": "ratelimited" if status == 429 else "fatal_error"}, headers
            refusal = self.refusals.get(method)
            down = self.outages.get(method)
        if down:
            return down, {"ok": False, "error": "ratelimited" if down == 429 else "fatal_error"}, {}
        if token in self.bad_tokens:
            return 200, {"ok": False, "error": "invalid_auth"}, {}
        if refusal:
            body: dict[str, Any] = {"ok": False, "error": refusal}
            if refusal == "missing_scope":
                body.update(needed="files:write", provided="chat:write,commands")
            return 200, body, {}
        if method == "auth.test":
            return 200, {"ok": True, "url": "https://test.slack.com/", "team": "Test", "user": "gpu-advisor",
                         "team_id": TEAM_ID, "user_id": BOT_USER_ID, "bot_id": "BBOT"}, {}
        if method == "apps.connections.open":
            return 200, {"ok": True, "url": self.ws_url or "ws://127.0.0.1:1/"}, {}
        if method in ("chat.postMessage", "chat.update"):
            ts = params.get("ts") or f"1700000000.{next(self._ts):06d}"
            message = {"type": "message", "user": BOT_USER_ID, "ts": ts, "text": params.get("text", "")}
            return 200, {"ok": True, "channel": params.get("channel"), "ts": ts, "message": message}, {}
        if method == "files.getUploadURLExternal":
            file_id = f"F{next(self._ts):06d}"
            with self._lock:
                self._upload_names[file_id] = str(params.get("filename", ""))
            return 200, {"ok": True, "upload_url": f"{self.url}/upload/{file_id}", "file_id": file_id}, {}
        if method == "files.completeUploadExternal":
            files = params.get("files")
            files = json.loads(files) if isinstance(files, str) else files or []
            with self._lock:
                done = [{"id": f["id"], "title": f.get("title", ""), "name": self._upload_names.get(f["id"], ""),
                         "mimetype": "image/png", "size": len(self.uploads.get(f["id"], b""))} for f in files]
            return 200, {"ok": True, "files": done}, {}
        if method == "chat.postEphemeral":
            return 200, {"ok": True, "message_ts": f"1700000000.{next(self._ts):06d}"}, {}
        return 200, {"ok": True}, {}

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802
                data = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                path = urlparse(self.path).path
                if path.startswith("/upload/"):  # step 2 of files_upload_v2: the file's raw bytes
                    self._upload(path.rsplit("/", 1)[-1], data)
                    return
                raw = data.decode("utf-8")
                if self.headers.get("Content-Type", "").startswith("application/json"):
                    params = json.loads(raw or "{}")
                else:
                    params = {k: v[0] for k, v in parse_qs(raw).items()}
                for key in ("blocks", "view", "attachments"):
                    if isinstance(params.get(key), str):
                        params[key] = json.loads(params[key])
                if path.startswith("/api/"):
                    method = path[len("/api/"):]
                else:
                    method = "response/" + path.rsplit("/", 1)[-1]
                auth = self.headers.get("Authorization", "")
                token = auth.removeprefix("Bearer ") or params.get("token", "")
                status, body, headers = fake._answer(method, params, token)
                with fake._lock:
                    fake.calls.append(Call(method, params, dict(self.headers.items()), status=status))
                data = json.dumps(body).encode()
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _upload(self, file_id: str, content: bytes) -> None:
                with fake._lock:
                    fake.uploads[file_id] = content
                    fake.calls.append(Call("upload", {"file_id": file_id, "length": len(content)},
                                           dict(self.headers.items())))
                reply = f"OK - {len(content)}".encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, format: str, *args: object) -> None:
                pass

        return Handler


class FakeSocketModeServer:
    """The WebSocket Slack opens for Socket Mode: says hello, pushes envelopes, collects acks."""

    def __init__(self) -> None:
        from websockets.sync.server import serve

        self.outbox: queue.Queue[dict[str, Any]] = queue.Queue()
        self.acks: list[dict[str, Any]] = []
        self.connected = threading.Event()
        self._server = serve(self._handle, "127.0.0.1", 0)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self._server.socket.getsockname()[1]}/link"

    def _handle(self, ws: Any) -> None:
        ws.send(json.dumps({"type": "hello", "num_connections": 1,
                            "connection_info": {"app_id": "A1"}, "debug_info": {"host": "fake"}}))
        self.connected.set()
        while True:
            try:
                envelope = self.outbox.get(timeout=0.05)
                ws.send(json.dumps(envelope))
            except queue.Empty:
                pass
            try:
                incoming = ws.recv(timeout=0.01)
            except TimeoutError:
                continue
            except Exception:
                return
            if isinstance(incoming, str) and incoming.startswith("{"):
                self.acks.append(json.loads(incoming))

    def push_event(self, body: dict[str, Any], envelope_id: str = "env-1") -> None:
        self.outbox.put({"envelope_id": envelope_id, "type": "events_api", "accepts_response_payload": False,
                         "retry_attempt": 0, "retry_reason": "", "payload": body})

    def stop(self) -> None:
        self._server.shutdown()
