"""One turn in a Slack thread: load the thread's scenario, run the advisor, save, post the reply.

Shared by the mention, message and button listeners so each of those stays a dozen lines. A
failure anywhere in a turn is logged with its traceback and answered with an apology in the same
thread: the user never meets silence.

When the answer lists TCO options, a PNG chart of them follows in the same thread
(`files_upload_v2`, scope `files:write`). It is drawn and uploaded only after the text answer was
posted, and it is an extra: any failure (missing scope, not allowed, network) is logged as one
line and dropped, never apologised for, so the thread still has exactly one answer.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.chart import tco_chart_png
from bot.limits import Message
from bot.render import build_chart_view, build_formulas_view, render_error, render_formulas, render_response
from bot.service import Advisor, Response
from bot.state import ThreadKey, ThreadStore
from engine.models import Advice

log = logging.getLogger(__name__)


def thread_key(team_id: str | None, channel: str, ts: str | None, thread_ts: str | None) -> ThreadKey:
    """The thread a message belongs to. A DM's top level is one running conversation (thread_ts "")."""
    if thread_ts:
        return ThreadKey(team_id or "", channel, thread_ts)
    if channel.startswith("D"):
        return ThreadKey(team_id or "", channel, "")
    return ThreadKey(team_id or "", channel, ts or "")


@dataclass
class Replier:
    advisor: Advisor
    store: ThreadStore
    charts: bool = True  # Config.charts (GPU_ADVISOR_CHARTS)

    def turn(self, client: WebClient, key: ThreadKey, text: str) -> Response | None:
        """Answer `text` in the thread `key`; apologise (and return None) if anything fails."""
        try:
            with self.store.locked(key):
                state = self.store.load(key)
                conversation = self.advisor.load_conversation(state.conversation if state else None)
                previous = Advice.model_validate_json(state.advice_json) if state and state.advice_json else None
                response = self.advisor.respond(conversation, text, previous)
                self.store.save(key, conversation.to_dict(), response.advice_json())
            self.post(client, key, render_response(response, self.advisor.display_names()))
        except Exception:
            log.exception("turn failed in %s/%s", key.channel, key.thread_ts or "top level")
            self.apologise(client, key)
            return None
        if self.charts:
            self.upload_chart(client, key, response)
        return response

    def upload_chart(self, client: WebClient, key: ThreadKey, response: Response) -> bool:
        """Upload the TCO chart of `response` to the thread; False (logged) when there is none or it failed."""
        try:
            view = build_chart_view(response, self.advisor.display_names())
            if view is None:
                return False
            png = tco_chart_png(view.bars, view.title, view.subtitle)
        except Exception:  # a drawing bug: worth a traceback (no network, nothing secret involved)
            log.exception("TCO chart could not be drawn for %s/%s", key.channel, key.thread_ts)
            return False
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

    def formulas(self, client: WebClient, key: ThreadKey) -> None:
        try:
            state = self.store.load(key)
            if state is None or not state.advice_json:
                self.post(client, key, render_response(Response("", "help", None, None)))
                return
            advice = Advice.model_validate_json(state.advice_json)
            self.post(client, key, render_formulas(build_formulas_view(advice)))
        except Exception:
            log.exception("formulas failed in %s/%s", key.channel, key.thread_ts)
            self.apologise(client, key)

    def post(self, client: WebClient, key: ThreadKey, messages: list[Message]) -> list[Any]:
        sent: list[Any] = []
        for message in messages:
            result = client.chat_postMessage(
                channel=key.channel,
                thread_ts=key.thread_ts or None,
                text=message.text,
                blocks=message.blocks,
                unfurl_links=False,
                unfurl_media=False,
            )
            sent.append(result.data)
        return sent

    def apologise(self, client: WebClient, key: ThreadKey) -> None:
        try:
            self.post(client, key, render_error())
        except Exception:  # Slack itself is failing: the log is all we can do
            log.exception("could not post the apology in %s/%s", key.channel, key.thread_ts)
