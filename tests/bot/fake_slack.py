"""A local stand-in for the Slack Web API (and Socket Mode's WebSocket), for end-to-end tests.

`FakeSlack` is a threaded http.server on 127.0.0.1:0. Web API methods are served at
`/api/<method>` (point SLACK_API_URL at `fake.api_url`); `response_url` posts land on
`/response/<id>`.

It is strict the way Slack is: every Web API call is checked for its token type (a bot `xoxb-`
token for Web API methods, the app-level `xapp-` token only for `apps.connections.open`), its
required arguments (`channel`, `text` or `blocks`, `thread_ts`/`ts` as `digits.digits`, `ts` for
`chat.update`, `user_id` and a home `view` for `views.publish`, `filename`/`length` for uploads),
and its Block Kit (block count, known block types, slack_sdk's model limits, non-empty texts, table
rows), and answers with Slack's error shapes (`not_authed`, `invalid_auth`,
`not_allowed_token_type`, `channel_not_found`, `no_text`, `msg_too_long`, `invalid_blocks` with
`response_metadata.messages`, `invalid_arguments`, `unknown_method`). `response_url` payloads are
checked the same way (JSON object, `text` or `blocks`, `response_type`, boolean flags). The checks
are the fake's own, not `bot.limits`, so a wrong checker in the app cannot make the fake agree.

Every call is recorded; `fail_next(n, status, retry_after)` makes the next n
Web API calls fail with 429 or 5xx, to exercise retry handlers; `refuse(method, error)` makes
every call of a method answer `{"ok": false, "error": ...}` (e.g. `missing_scope`);
`outage(method, status)` makes every call of a method fail until `recover()` (longer than any
client retry budget); `rate_limit(method, retry_after)` answers the next call with 429 and a
`Retry-After` header. Each recorded call carries the HTTP `status` and the `error` it was answered
with; `accepted(method)` lists only those Slack took (200 and ok), `rejected(method)` the rest.

Messages posted with `chat.postMessage` are kept (`messages`), with their Slack message metadata
(`{"event_type": ..., "event_payload": {...}}`, checked the way Slack checks it); as Slack does,
`conversations.replies` (a thread: `ts` required) and `conversations.history` (a channel's top
level) return them oldest first, filtered by `oldest`/`latest` (`inclusive`), paged by
`limit`/`cursor` (`has_more`, `response_metadata.next_cursor`), and with `metadata` only when
`include_all_metadata` is true. `drop_response(method, n)` stores the next n calls but answers them
with a reset connection: the "did Slack post it?" case of a network error after the request.

File uploads follow `files_upload_v2`: `files.getUploadURLExternal` hands out an upload URL on this
server (`/upload/<file_id>`), the raw bytes POSTed there are kept in `uploads` (recorded as method
"upload"), and `files.completeUploadExternal` answers with the completed `files`.
"""

from __future__ import annotations

import itertools
import json
import queue
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

from slack_sdk.errors import SlackObjectFormationError
from slack_sdk.models.blocks import Block as SdkBlock

BOT_USER_ID = "UBOT"
TEAM_ID = "T1"
TS = re.compile(r"^\d+\.\d+$")  # Slack message timestamps: "1700000001.000100"
APP_LEVEL_METHODS = frozenset({"apps.connections.open"})  # the only methods an xapp- token may call
BOT_METHODS = frozenset({"auth.test", "chat.postMessage", "chat.update", "chat.postEphemeral", "views.publish",
                         "files.getUploadURLExternal", "files.completeUploadExternal", "conversations.replies",
                         "conversations.history"})
MAX_TEXT = 40_000  # chat.postMessage: msg_too_long beyond this
MAX_BLOCKS = {"message": 50, "home": 100}
BLOCK_TYPES = frozenset({"section", "header", "context", "actions", "divider", "image", "rich_text", "input", "file",
                         "video", "table", "markdown"})


def block_errors(blocks: Any, *, max_blocks: int = 50, pointer: str = "/blocks") -> list[str]:
    """Slack's `[ERROR] ... [json-pointer:...]` messages for a blocks array; [] when Slack takes it.

    slack_sdk's Block Kit models check the limits they know (text, fields, elements, ids, options);
    the rest is checked here: count, known types, empty texts, field text, table rows.
    """
    if not isinstance(blocks, list):
        return [f"[ERROR] must be an array [json-pointer:{pointer}]"]
    errors = []
    if len(blocks) > max_blocks:
        errors.append(f"[ERROR] no more than {max_blocks} items allowed [json-pointer:{pointer}]")
    for i, block in enumerate(blocks):
        where = f"{pointer}/{i}"
        if not isinstance(block, dict) or block.get("type") not in BLOCK_TYPES:
            errors.append(f"[ERROR] unsupported type: {block.get('type') if isinstance(block, dict) else block!r} [json-pointer:{where}/type]")
            continue
        try:
            model = SdkBlock.parse(json.loads(json.dumps(block)))
            if model is not None:
                model.to_dict()
        except SlackObjectFormationError as exc:
            errors.append(f"[ERROR] {exc} [json-pointer:{where}]")
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            errors.append(f"[ERROR] malformed block: {exc} [json-pointer:{where}]")
        errors += [f"[ERROR] {e} [json-pointer:{where}{at}]" for at, e in _block_rules(block)]
    return errors


def _texts(block: dict[str, Any]) -> list[tuple[str, Any, int | None]]:
    """(pointer, text object, max chars) for the text objects slack_sdk does not length-check."""
    kind = block["type"]
    found: list[tuple[str, Any, int | None]] = []
    if kind in ("section", "header") and "text" in block:
        found.append(("/text", block["text"], None))
    found += [(f"/fields/{j}", f, 2000) for j, f in enumerate(block.get("fields") or [])]
    if kind == "context":
        found += [(f"/elements/{j}", e, 3000) for j, e in enumerate(block.get("elements") or [])
                  if isinstance(e, dict) and e.get("type") in ("mrkdwn", "plain_text")]
    elements = block.get("elements") if kind == "actions" else [block["accessory"]] if "accessory" in block else []
    for j, e in enumerate(elements or []):
        if isinstance(e, dict) and e.get("type") == "button":
            found.append((f"/elements/{j}/text" if kind == "actions" else "/accessory/text", e.get("text"), None))
        for k, o in enumerate((e.get("options") or []) if isinstance(e, dict) else []):
            found.append((f"/elements/{j}/options/{k}/text", o.get("text") if isinstance(o, dict) else None, 75))
    return found


def _block_rules(block: dict[str, Any]) -> list[tuple[str, str]]:
    errors = []
    for at, obj, limit in _texts(block):
        text = obj.get("text") if isinstance(obj, dict) else None
        if not isinstance(obj, dict) or obj.get("type") not in ("mrkdwn", "plain_text"):
            errors.append((at, "must be a text object of type mrkdwn or plain_text"))
        elif not text:
            errors.append((at + "/text", "must be more than 0 characters"))
        elif limit and len(text) > limit:
            errors.append((at + "/text", f"must be less than {limit + 1} characters"))
    if block["type"] == "header" and isinstance(block.get("text"), dict) and block["text"].get("type") != "plain_text":
        errors.append(("/text/type", "must be plain_text"))
    if block["type"] in ("context", "actions") and not block.get("elements"):
        errors.append(("/elements", "must provide at least 1 item"))
    if block["type"] == "table":
        rows = block.get("rows")
        if not isinstance(rows, list) or not rows or len(rows) > 100:
            errors.append(("/rows", "must be an array of 1 to 100 rows"))
        for r, row in enumerate(rows if isinstance(rows, list) else []):
            if not isinstance(row, list) or not 1 <= len(row) <= 20:
                errors.append((f"/rows/{r}", "must be an array of 1 to 20 cells"))
                continue
            for c, cell in enumerate(row):
                if not isinstance(cell, dict) or cell.get("type") not in ("raw_text", "rich_text"):
                    errors.append((f"/rows/{r}/{c}/type", "must be raw_text or rich_text"))
    return errors


@dataclass
class Call:
    method: str
    params: dict[str, Any]
    headers: dict[str, str]
    at: float = field(default_factory=time.monotonic)
    status: int = 200
    error: str | None = None  # Slack's error code when the call was refused (ok: false)

    @property
    def ok(self) -> bool:
        return self.status == 200 and self.error is None


class _QuietServer(ThreadingHTTPServer):
    """A client that dies with a kept-alive connection open (kill -9 of a bot) is no error of the fake."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


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
        self.messages: list[dict[str, Any]] = []  # every posted message, with channel and thread_ts
        self.dropped_responses: dict[str, int] = {}  # method -> calls still to answer with a reset connection
        self._ts = itertools.count(1)
        self._lock = threading.Lock()
        self.server = _QuietServer(("127.0.0.1", 0), self._handler_class())
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

    def rate_limit(self, method: str = "chat.postMessage", retry_after: int = 1, n: int = 1) -> None:
        """The next n calls of `method` answer 429 `ratelimited` with `Retry-After: retry_after`."""
        self.fail_next(n, 429, retry_after, method)

    def drop_response(self, method: str = "chat.postMessage", n: int = 1) -> None:
        """The next n calls of `method` take effect (a post is stored) but the connection is reset
        before the answer: the client cannot tell whether Slack has it."""
        with self._lock:
            self.dropped_responses[method] = self.dropped_responses.get(method, 0) + n

    def thread(self, channel: str, thread_ts: str) -> list[dict[str, Any]]:
        """The messages posted in a thread (thread_ts "" : the channel's top level), oldest first."""
        with self._lock:
            return [m for m in self.messages if m["channel"] == channel and m.get("thread_ts", "") == thread_ts]

    def accepted(self, method: str = "chat.postMessage") -> list[Call]:
        """Calls Slack took: HTTP 200 and ok: true."""
        return [c for c in self.of(method) if c.ok]

    def rejected(self, method: str) -> list[Call]:
        """Calls Slack refused (an error status or ok: false), with the error they got."""
        return [c for c in self.of(method) if not c.ok]

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
            self.messages.clear()
            self.dropped_responses.clear()

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
        if method not in APP_LEVEL_METHODS | BOT_METHODS:
            return 200, {"ok": False, "error": "unknown_method"}, {}
        if not token:
            return 200, {"ok": False, "error": "not_authed"}, {}
        if token in self.bad_tokens:
            return 200, {"ok": False, "error": "invalid_auth"}, {}
        if not token.startswith("xapp-" if method in APP_LEVEL_METHODS else "xoxb-"):
            return 200, {"ok": False, "error": "not_allowed_token_type"}, {}
        invalid = self._invalid(method, params)
        if invalid is not None:
            return 200, {"ok": False, **invalid}, {}
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
            # chat.postMessage: a new ts, unique and increasing, on the wall clock like Slack's
            ts = params.get("ts") if method == "chat.update" else f"{int(time.time())}.{next(self._ts):06d}"
            message = {"type": "message", "user": BOT_USER_ID, "bot_id": "BBOT", "ts": ts,
                       "text": params.get("text", "")}
            if method == "chat.postMessage":
                stored = {**message, "channel": params.get("channel"), "thread_ts": str(params.get("thread_ts") or "")}
                if isinstance(params.get("metadata"), dict):
                    stored["metadata"] = params["metadata"]
                with self._lock:
                    self.messages.append(stored)
            return 200, {"ok": True, "channel": params.get("channel"), "ts": ts, "message": message}, {}
        if method in ("conversations.replies", "conversations.history"):
            return 200, self._history(method, params), {}
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

    def _history(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """conversations.replies / conversations.history over the stored posts, as Slack pages them."""
        channel = str(params.get("channel"))
        if method == "conversations.replies":
            thread_ts = str(params.get("ts"))
            found = self.thread(channel, thread_ts)
        else:
            found = self.thread(channel, "")
        truthy = ("1", "true", "True", True, 1)
        oldest, latest = float(params.get("oldest") or 0), float(params.get("latest") or 1e12)
        inclusive = params.get("inclusive") in truthy
        found = [m for m in found if (oldest <= float(m["ts"]) <= latest if inclusive
                                      else oldest < float(m["ts"]) < latest)]
        found.sort(key=lambda m: float(m["ts"]))
        start = int(str(params.get("cursor") or "0").removeprefix("next_ts_") or 0)
        limit = max(1, min(1000, int(params.get("limit") or 1000)))
        page = found[start:start + limit]
        more = start + limit < len(found)
        with_metadata = params.get("include_all_metadata") in truthy
        messages = [{k: v for k, v in m.items() if k not in ("channel",) and (with_metadata or k != "metadata")}
                    for m in page]
        return {"ok": True, "messages": messages, "has_more": more,
                "response_metadata": {"next_cursor": f"next_ts_{start + limit}" if more else ""}}

    def _invalid(self, method: str, params: dict[str, Any]) -> dict[str, Any] | None:
        """Slack's answer to a malformed call of `method` (error + details), or None when well-formed."""
        def arguments(*messages: str) -> dict[str, Any]:
            return {"error": "invalid_arguments", "response_metadata": {"messages": [f"[ERROR] {m}" for m in messages]}}

        if method in ("chat.postMessage", "chat.update", "chat.postEphemeral"):
            if not params.get("channel"):
                return {"error": "channel_not_found"}
            if method == "chat.update" and not params.get("ts"):
                return arguments("missing required field: ts")
            if method == "chat.postEphemeral" and not params.get("user"):
                return {"error": "user_not_in_channel"}
            for key in ("thread_ts", "ts"):
                if key in params and params[key] is not None and not TS.match(str(params[key])):
                    return arguments(f"invalid `{key}`: {params[key]!r} is not a message timestamp")
            blocks = params.get("blocks")
            if not params.get("text") and not blocks and not params.get("attachments"):
                return {"error": "no_text"}
            if len(str(params.get("text") or "")) > MAX_TEXT:
                return {"error": "msg_too_long"}
            if "metadata" in params:
                metadata = params["metadata"]
                if (not isinstance(metadata, dict) or not isinstance(metadata.get("event_type"), str)
                        or not isinstance(metadata.get("event_payload"), dict)):
                    return {"error": "invalid_metadata_format"}
            if blocks is not None:
                if not isinstance(blocks, list):
                    return {"error": "invalid_blocks_format"}
                errors = block_errors(blocks, max_blocks=MAX_BLOCKS["message"])
                if errors:
                    return {"error": "invalid_blocks", "errors": [e.removeprefix("[ERROR] ") for e in errors],
                            "response_metadata": {"messages": errors}}
        elif method == "conversations.replies":
            if not params.get("channel"):
                return {"error": "channel_not_found"}
            if not params.get("ts") or not TS.match(str(params["ts"])):
                return arguments("missing required field: ts")
        elif method == "conversations.history":
            if not params.get("channel"):
                return {"error": "channel_not_found"}
        elif method == "views.publish":
            view = params.get("view")
            if not params.get("user_id"):
                return arguments("missing required field: user_id")
            if not isinstance(view, dict):
                return arguments("missing required field: view")
            if view.get("type") != "home":
                return arguments("[json-pointer:/view/type] must be home for views.publish")
            errors = block_errors(view.get("blocks"), max_blocks=MAX_BLOCKS["home"], pointer="/view/blocks")
            if errors:
                return arguments(*(e.removeprefix("[ERROR] ") for e in errors))
        elif method == "files.getUploadURLExternal":
            if not params.get("filename"):
                return arguments("missing required field: filename")
            if not str(params.get("length") or "").isdigit() or int(params["length"]) <= 0:
                return arguments("missing required field: length")
        elif method == "files.completeUploadExternal":
            try:
                files = params.get("files")
                files = json.loads(files) if isinstance(files, str) else files
            except ValueError:
                files = None
            if not isinstance(files, list) or not files or not all(isinstance(f, dict) and f.get("id") for f in files):
                return arguments("missing required field: files")
            with self._lock:
                unknown = [f["id"] for f in files if f["id"] not in self._upload_names]
            if unknown:
                return {"error": "file_not_found"}
            if params.get("thread_ts") and not TS.match(str(params["thread_ts"])):
                return arguments("invalid `thread_ts`")
        return None

    def _respond(self, params: Any) -> tuple[int, str | None]:
        """A response_url post: HTTP status and the error code Slack answers a bad payload with."""
        if not isinstance(params, dict):
            return 400, "invalid_payload"
        if not params.get("text") and not params.get("blocks") and not params.get("delete_original"):
            return 400, "no_text"
        if params.get("response_type", "ephemeral") not in ("ephemeral", "in_channel"):
            return 400, "invalid_payload"
        for flag in ("replace_original", "delete_original"):
            if flag in params and not isinstance(params[flag], bool):
                return 400, "invalid_payload"
        if "blocks" in params and block_errors(params["blocks"], max_blocks=MAX_BLOCKS["message"]):
            return 400, "invalid_blocks"
        return 200, None

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # one write per response (buffered, flushed by http.server after each request) and no
            # Nagle: a kept-alive client must not wait out its delayed ACK (~40 ms) for the body
            wbufsize = 64 * 1024
            disable_nagle_algorithm = True

            def do_POST(self) -> None:  # noqa: N802
                data = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                path = urlparse(self.path).path
                if path.startswith("/upload/"):  # step 2 of files_upload_v2: the file's raw bytes
                    self._upload(path.rsplit("/", 1)[-1], data)
                    return
                raw = data.decode("utf-8")
                params: Any
                try:
                    if self.headers.get("Content-Type", "").startswith("application/json"):
                        params = json.loads(raw or "{}")
                    else:
                        params = {k: v[0] for k, v in parse_qs(raw).items()}
                    for key in ("blocks", "view", "attachments", "metadata"):
                        if isinstance(params, dict) and isinstance(params.get(key), str):
                            params[key] = json.loads(params[key])
                except ValueError:
                    params = None  # not JSON: Slack answers invalid_json / invalid_blocks_format
                if path.startswith("/api/"):
                    method = path[len("/api/"):]
                    auth = self.headers.get("Authorization", "")
                    token = auth.removeprefix("Bearer ") or (params or {}).get("token", "")
                    if params is None:
                        status, body, headers = 200, {"ok": False, "error": "invalid_json"}, {}
                    else:
                        status, body, headers = fake._answer(method, params, token)
                    with fake._lock:
                        drop = fake.dropped_responses.get(method, 0) > 0
                        if drop:
                            fake.dropped_responses[method] -= 1
                            fake.calls.append(Call(method, params if isinstance(params, dict) else {"raw": raw},
                                                   dict(self.headers.items()), status=0, error="connection reset"))
                    if drop:  # it took effect; the client never hears so
                        self.close_connection = True
                        self.connection.shutdown(2)
                        return
                    content_type = "application/json"
                    data = json.dumps(body).encode()
                    error = None if body.get("ok") else str(body.get("error"))
                else:  # response_url: Slack answers "ok" or an error code in plain text
                    method = "response/" + path.rsplit("/", 1)[-1]
                    status, error = fake._respond(params)
                    headers, content_type = {}, "text/plain"
                    data = (error or "ok").encode()
                with fake._lock:
                    fake.calls.append(Call(method, params if isinstance(params, dict) else {"raw": raw},
                                           dict(self.headers.items()), status=status, error=error))
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Type", content_type)
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
