"""How the bot talks to the Slack Web API: kept-alive HTTP connections, and retries that cannot post twice.

Why keep-alive: slack_sdk's `WebClient` opens a new connection (TCP, and TLS against slack.com)
for every call through `urllib.request.urlopen`; a reply is one call, so every reply paid a
handshake (tens of ms over TLS, a thread spawn on a loopback fake). `reuse_connections(client)`
makes a client send its calls over one persistent `http.client` connection per thread and host
(Bolt builds a new `WebClient` for every request, so the pool is per thread, not per client). A
pooled connection idle for more than `IDLE_S`, or that the server has closed (readable while idle),
is replaced before use. Failures keep slack_sdk's shapes: a refused connection is a `URLError`
(`NotSent`: nothing was sent, the client's connection retry handler may retry), an HTTP error status is an
`HTTPError` (its 429 and 5xx handlers see it as before), a failure after the request was written is
raised as is (the outcome is unknown).

Why `SafeRetry*`: slack_sdk's connection-error and server-error handlers would re-send a
`chat.postMessage` whose first attempt Slack may have posted (a reset after the request was
written, a 500 after the message was stored): a duplicate reply. For posts they decline, and the
outbox retries instead, after reading the thread for the message's id (`bot.outbox`). A 429 is
certain ("not posted"), so its handler still retries posts.
"""

from __future__ import annotations

import io
import select
import socket
import threading
import time
import types
from http.client import HTTPConnection, HTTPSConnection
from typing import Any
from urllib.error import HTTPError, URLError
from urllib.parse import urlsplit
from urllib.request import Request

from slack_sdk import WebClient
from slack_sdk.http_retry.builtin_handlers import ConnectionErrorRetryHandler, ServerErrorRetryHandler

IDLE_S = 30.0  # a pooled connection idle longer than this is closed, not reused (servers drop idle ones)
NOT_RETRIED = ("chat.postMessage",)  # methods whose retry after an unknown outcome could post twice

_local = threading.local()


class NotSent(URLError):
    """The connection could not be opened: nothing of the request left this process (safe to retry)."""


def _posts_a_message(request: Any) -> bool:
    return urlsplit(str(getattr(request, "url", ""))).path.rsplit("/", 1)[-1] in NOT_RETRIED


class SafeRetryOnConnectionError(ConnectionErrorRetryHandler):
    """slack_sdk's connection-error retries, except for chat.postMessage (the outbox retries it, after a check)."""

    def _can_retry(self, *, state: Any, request: Any, response: Any = None, error: Any = None) -> bool:
        if _posts_a_message(request) and not isinstance(error, NotSent):
            return False  # a connection that never opened sent nothing: safe; anything later is not
        return super()._can_retry(state=state, request=request, response=response, error=error)


class SafeRetryOnServerError(ServerErrorRetryHandler):
    """slack_sdk's 5xx retries, except for chat.postMessage (a 500 may come after the message was stored)."""

    def _can_retry(self, *, state: Any, request: Any, response: Any = None, error: Any = None) -> bool:
        if _posts_a_message(request):
            return False
        return super()._can_retry(state=state, request=request, response=response, error=error)


def reuse_connections(client: WebClient) -> WebClient:
    """Send `client`'s calls over this thread's kept-alive connections (returns `client`)."""
    client._perform_urllib_http_request_internal = types.MethodType(_perform, client)  # type: ignore[method-assign]
    return client


def close_connections() -> None:
    """Close this thread's pooled connections (tests, and a worker stopping)."""
    pool: dict[Any, Any] = getattr(_local, "pool", {})
    for conn, _ in pool.values():
        conn.close()
    pool.clear()


def _dropped(conn: HTTPConnection) -> bool:
    """True when an idle kept-alive connection was closed by the server (readable with nothing asked)."""
    sock = conn.sock
    if sock is None:
        return True
    try:
        readable, _, _ = select.select([sock], [], [], 0)
    except (OSError, ValueError):
        return True
    return bool(readable)


def _checkout(scheme: str, host: str, port: int | None, timeout: float, ssl: Any) -> tuple[Any, tuple[Any, ...]]:
    pool: dict[tuple[Any, ...], tuple[HTTPConnection, float]] = _local.__dict__.setdefault("pool", {})
    key = (scheme, host, port, timeout, id(ssl))
    entry = pool.pop(key, None)
    if entry is not None:
        conn, last_used = entry
        if time.monotonic() - last_used <= IDLE_S and not _dropped(conn):
            return conn, key
        conn.close()
    if scheme == "https":
        conn = HTTPSConnection(host, port, timeout=timeout, context=ssl)
    else:
        conn = HTTPConnection(host, port, timeout=timeout)
    try:
        conn.connect()
        conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # small requests leave at once
    except OSError as exc:  # nothing was sent: slack_sdk's connection handler may retry this
        conn.close()
        raise NotSent(exc) from exc
    return conn, key


def _perform(self: WebClient, url: str, req: Request) -> dict[str, Any]:
    parts = urlsplit(url)
    if self.proxy is not None or parts.scheme not in ("http", "https"):  # the client's own path
        return WebClient._perform_urllib_http_request_internal(self, url, req)
    conn, key = _checkout(parts.scheme, parts.hostname or "", parts.port, float(self.timeout), self.ssl)
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    try:
        conn.request("POST", path, body=req.data, headers=dict(req.header_items()))  # type: ignore[arg-type]
        resp = conn.getresponse()
        body = resp.read()
    except BaseException:
        conn.close()  # the outcome is unknown: never reuse this connection
        raise
    if resp.will_close:
        conn.close()
    else:
        _local.pool[key] = (conn, time.monotonic())
    if not 200 <= resp.status < 300:  # urllib's HTTPErrorProcessor raises for these; keep its shape
        raise HTTPError(url, resp.status, resp.reason, resp.headers, io.BytesIO(body))
    if resp.headers.get_content_type() == "application/gzip":
        return {"status": resp.status, "headers": resp.headers, "body": body}
    charset = resp.headers.get_content_charset() or "utf-8"
    return {"status": resp.status, "headers": resp.headers, "body": body.decode(charset)}
