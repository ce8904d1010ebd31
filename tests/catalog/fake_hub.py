"""A small fake Hugging Face Hub on loopback, for the Hub lookup tests (pointed to as HF_ENDPOINT).

It answers the requests `huggingface_hub` makes for a lookup, shaped as the real Hub answers them:
- `GET /api/models/{org}/{name}`: model info (sha, siblings, gated), 404 + `X-Error-Code: RepoNotFound`;
- `GET /api/models?search=...`: search results with download counts;
- `GET /{org}/{name}/resolve/{revision}/{file}`: files, honouring `Range: bytes=a-b` (206); a gated
  repo answers 401 without a token and 403 with one, both with `X-Error-Code: GatedRepo`.
Every request path is logged in `requests`, so a test can assert the second lookup sent none.
"""

from __future__ import annotations

import json
import re
import struct
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlparse


def safetensors_header(tensors: dict[str, tuple[str, list[int]]]) -> bytes:
    """The bytes a safetensors file starts with: 8-byte little-endian length, then the JSON header.

    The tensor data itself is left out: a lookup reads headers only, never weights.
    """
    header: dict[str, Any] = {"__metadata__": {"format": "pt"}}
    offset = 0
    sizes = {"BF16": 2, "F16": 2, "F32": 4, "F8_E4M3": 1, "U8": 1, "I32": 4}
    for name, (dtype, shape) in tensors.items():
        n = 1
        for d in shape:
            n *= d
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + n * sizes[dtype]]}
        offset += n * sizes[dtype]
    body = json.dumps(header).encode()
    return struct.pack("<Q", len(body)) + body


@dataclass
class FakeRepo:
    repo_id: str
    config: dict[str, Any]
    files: dict[str, bytes] = field(default_factory=dict)
    sha: str = "0123456789abcdef0123456789abcdef01234567"
    gated: bool = False
    downloads: int = 1000


class FakeHub:
    def __init__(self) -> None:
        self.repos: dict[str, FakeRepo] = {}
        self.requests: list[str] = []
        self.search_results: dict[str, list[tuple[str, int]]] = {}  # search term -> (repo id, downloads)
        self.fail_with: int | None = None  # answer every request with this status (an outage)
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet test output
                pass

            def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
                hub.requests.append(self.path)
                hub.answer(self)

            def do_HEAD(self) -> None:  # noqa: N802
                hub.requests.append("HEAD " + self.path)
                hub.answer(self, head=True)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def add(self, repo: FakeRepo) -> FakeRepo:
        repo.files.setdefault("config.json", json.dumps(repo.config).encode())
        self.repos[repo.repo_id.lower()] = repo
        return repo

    def start(self) -> FakeHub:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    # --- answering ------------------------------------------------------------------------------
    def answer(self, handler: BaseHTTPRequestHandler, head: bool = False) -> None:
        if self.fail_with is not None:
            return self.send(handler, self.fail_with, b"upstream unavailable", head=head)
        url = urlparse(handler.path)
        path = unquote(url.path)
        if path == "/api/models":
            term = (parse_qs(url.query).get("search") or [""])[0].lower()
            found = self.search_results.get(term)
            if found is None:
                found = [(r.repo_id, r.downloads) for r in self.repos.values() if term in r.repo_id.lower()]
            body = [{"id": repo, "modelId": repo, "downloads": dl, "likes": 0, "private": False, "tags": []}
                    for repo, dl in found]
            return self.send(handler, 200, json.dumps(body).encode(), head=head)
        info = re.fullmatch(r"/api/models/([^/]+/[^/]+)(?:/revision/.+)?", path)
        if info:
            repo = self.repos.get(info.group(1).lower())
            if repo is None:
                return self.error(handler, 404, "RepoNotFound", "Repository not found")
            body = {"id": repo.repo_id, "modelId": repo.repo_id, "sha": repo.sha, "private": False,
                    "gated": "manual" if repo.gated else False, "downloads": repo.downloads, "tags": [],
                    "siblings": [{"rfilename": name} for name in sorted(repo.files)]}
            return self.send(handler, 200, json.dumps(body).encode(), head=head)
        resolve = re.fullmatch(r"/([^/]+/[^/]+)/resolve/([^/]+)/(.+)", path)
        if resolve:
            repo = self.repos.get(resolve.group(1).lower())
            if repo is None:
                return self.error(handler, 404, "RepoNotFound", "Repository not found")
            if repo.gated:
                token = handler.headers.get("authorization")
                return self.error(handler, 403 if token else 401, "GatedRepo",
                                  "Access to this model is restricted: you must have access to it")
            data = repo.files.get(resolve.group(3))
            if data is None:
                return self.error(handler, 404, "EntryNotFound", "Entry not found")
            wanted = re.fullmatch(r"bytes=(\d+)-(\d*)", handler.headers.get("range") or "")
            if wanted:
                start, end = int(wanted.group(1)), int(wanted.group(2) or len(data) - 1)
                return self.send(handler, 206, data[start:end + 1], head=head,
                                 headers={"X-Repo-Commit": repo.sha})
            return self.send(handler, 200, data, head=head, headers={"X-Repo-Commit": repo.sha, "ETag": '"x"'})
        return self.error(handler, 404, "EntryNotFound", "not found")

    def send(self, handler: BaseHTTPRequestHandler, status: int, body: bytes, *, head: bool = False,
             headers: dict[str, str] | None = None) -> None:
        handler.send_response(status)
        handler.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            handler.send_header(key, value)
        handler.end_headers()
        if not head:
            handler.wfile.write(body)

    def error(self, handler: BaseHTTPRequestHandler, status: int, code: str, message: str) -> None:
        body = json.dumps({"error": message}).encode()
        self.send(handler, status, body, headers={"X-Error-Code": code, "X-Error-Message": message,
                                                  "Content-Type": "application/json"})
