"""Sign requests exactly as Slack does: v0=HMAC-SHA256(secret, "v0:{timestamp}:{body}")."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from typing import Any
from urllib.parse import urlencode

SIGNING_SECRET = "8f742231b10e8888abcd99yyyzzz85a5"


def signature(secret: str, timestamp: str, body: str) -> str:
    digest = hmac.new(secret.encode(), f"v0:{timestamp}:{body}".encode(), hashlib.sha256).hexdigest()
    return f"v0={digest}"


def signed_headers(body: str, *, secret: str = SIGNING_SECRET, timestamp: int | None = None,
                   content_type: str = "application/json", retry_num: int | None = None) -> dict[str, str]:
    ts = str(int(time.time()) if timestamp is None else timestamp)
    headers = {
        "Content-Type": content_type,
        "X-Slack-Request-Timestamp": ts,
        "X-Slack-Signature": signature(secret, ts, body),
    }
    if retry_num is not None:
        headers["X-Slack-Retry-Num"] = str(retry_num)
        headers["X-Slack-Retry-Reason"] = "http_timeout"
    return headers


def event_body(event: dict[str, Any], *, event_id: str, team_id: str = "T1") -> str:
    return json.dumps({
        "token": "legacy", "team_id": team_id, "api_app_id": "A1", "type": "event_callback",
        "event_id": event_id, "event_time": int(time.time()), "event": event,
        "authorizations": [{"team_id": team_id, "user_id": "UBOT", "is_bot": True}],
    })


def form_body(fields: dict[str, Any]) -> str:
    return urlencode(fields)


def action_body(payload: dict[str, Any]) -> str:
    return urlencode({"payload": json.dumps(payload)})
