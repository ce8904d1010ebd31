"""HTTP mode: a small threaded server in front of Bolt.

Why not `app.start()`: we need `GET /health`, a port-0 start for tests, and a clean stop. Every
POST to `/slack/events` (events, slash commands, interactivity) becomes a `BoltRequest` and goes to
`app.dispatch`, which verifies the signature (`v0=HMAC-SHA256("v0:{ts}:{body}")`) and the
timestamp (within 5 minutes) and answers 401 otherwise.
"""

from __future__ import annotations

import json
import logging
import socket
import threading
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

from slack_bolt import App, BoltRequest

log = logging.getLogger(__name__)
EVENTS_PATH = "/slack/events"
HEALTH_PATH = "/health"
MAX_BODY_BYTES = 5 * 1024 * 1024


class SlackHTTPServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, app: App, host: str = "127.0.0.1", port: int = 3000, *,
                 sock: socket.socket | None = None, oauth: Any = None) -> None:
        """`sock`: an already listening socket shared with other worker processes (`bot.workers`).
        `oauth`: Bolt's OAuthFlow when the app is installed per workspace (GET install and redirect)."""
        self.app = app
        self.oauth = oauth
        if sock is None:
            super().__init__((host, port), _Handler)
        else:
            super().__init__(sock.getsockname()[:2], _Handler, bind_and_activate=False)
            self.socket.close()
            self.socket = sock
            self.server_address = sock.getsockname()[:2]
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return self.server_address[1]

    @property
    def url(self) -> str:
        host = self.server_address[0]
        return f"http://{host.decode() if isinstance(host, bytes) else host}:{self.port}"

    def start_background(self) -> SlackHTTPServer:
        self._thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05}, name="slack-http", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()


class _Handler(BaseHTTPRequestHandler):
    server: SlackHTTPServer
    protocol_version = "HTTP/1.1"
    # one write per response: status line, headers and body are buffered and flushed together (with
    # the default unbuffered writer they were two, and with Nagle's algorithm a client keeping the
    # connection open waits out its delayed ACK, ~40 ms, for the second); TCP_NODELAY sends it at once
    wbufsize = 64 * 1024
    disable_nagle_algorithm = True

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        url = urlparse(self.path)
        oauth = self.server.oauth
        if url.path == HEALTH_PATH:
            self._send(200, json.dumps({"ok": True}), {"Content-Type": ["application/json"]})
        elif oauth is not None and url.path in (oauth.install_path, oauth.redirect_uri_path):
            # Bolt's OAuth flow: the "Add to Slack" page, then Slack's redirect with the code
            query: dict[str, Sequence[str]] = dict(parse_qs(url.query))
            request = BoltRequest(body="", query=query, headers=self._headers())
            try:
                if url.path == oauth.install_path:
                    response = oauth.handle_installation(request)
                else:
                    response = oauth.handle_callback(request)
            except Exception:
                log.exception("OAuth %s failed", url.path)
                self._send(500, "internal error", {})
                return
            self._send(response.status, response.body, response.headers)
        else:
            self._send(404, "not found", {})

    def _headers(self) -> dict[str, str | Sequence[str]]:
        headers: dict[str, str | Sequence[str]] = {}
        for name, value in self.headers.items():
            headers[name.lower()] = [*headers.get(name.lower(), []), value]
        return headers

    def do_POST(self) -> None:  # noqa: N802
        url = urlparse(self.path)
        if url.path != EVENTS_PATH:
            self._send(404, "not found", {})
            return
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            self._send(400, "bad Content-Length", {})
            return
        if length > MAX_BODY_BYTES:
            self._send(413, "too large", {})
            return
        body = self.rfile.read(max(0, length)).decode("utf-8", errors="replace")
        headers = self._headers()
        query: dict[str, Sequence[str]] = dict(parse_qs(url.query))
        try:
            request = BoltRequest(body=body, query=query, headers=headers)
        except ValueError:  # Bolt parses the body before verifying it: malformed JSON or payload
            log.info("refused a request whose body is not valid JSON or form data (%d bytes)", len(body))
            self._send(400, "malformed request", {})
            return
        try:
            response = self.server.app.dispatch(request)
        except Exception:  # Bolt handles listener errors itself; this is a last resort, never a hang
            log.exception("dispatch failed")
            self._send(500, "internal error", {})
            return
        self._send(response.status, response.body, response.headers)

    def _send(self, status: int, body: str, headers: dict[str, list[str]] | dict) -> None:
        data = (body or "").encode("utf-8")
        self.send_response(status)
        for name, values in headers.items():
            if name.lower() in ("content-length", "connection"):
                continue
            for value in values if isinstance(values, list | tuple) else [values]:
                self.send_header(name, str(value))
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def log_message(self, format: str, *args: object) -> None:  # request lines only; headers are never logged
        log.debug("%s %s", self.address_string(), format % args)
