"""Buttons under an answer. Each refinement button carries the words a user would type ("try
A100s", "cache the dataset"), so a click is exactly a thread reply and goes through the same
conversation; the runs menu becomes "what about N runs?". "Details", "All options", "Formulas" and
"Cost chart" post that layer of the thread's saved answer (`Replier.layer`), like the thread words."""

from __future__ import annotations

import logging
import re
from typing import Any

from slack_bolt import Ack, App, BoltContext, Respond
from slack_sdk import WebClient

from bot.render import render_error, render_response
from bot.replies import Replier, thread_key
from bot.state import ThreadKey
from bot.summary import (
    ACTION_CACHE,
    ACTION_CHART,
    ACTION_COMPARE_GPU,
    ACTION_DETAILS,
    ACTION_FORMULAS,
    ACTION_OPTIONS,
    ACTION_RUNS,
    ACTION_SHARE_VRAM,
)

log = logging.getLogger(__name__)

LAYERS = {ACTION_DETAILS: "details", ACTION_OPTIONS: "options", ACTION_FORMULAS: "formulas", ACTION_CHART: "chart"}


def _key(body: dict[str, Any], context: BoltContext) -> ThreadKey:
    message = body.get("message") or {}
    container = body.get("container") or {}
    channel = (body.get("channel") or {}).get("id") or container.get("channel_id", "")
    team = context.team_id or (body.get("team") or {}).get("id")
    return thread_key(team, channel, message.get("ts"), message.get("thread_ts") or container.get("thread_ts"))


def register(app: App, replier: Replier) -> None:
    @app.action(re.compile(f"^({ACTION_COMPARE_GPU}|{ACTION_CACHE})$"))
    def on_refine(ack: Ack, body: dict[str, Any], action: dict[str, Any], context: BoltContext,
                  client: WebClient) -> None:
        ack()
        replier.turn(client, _key(body, context), action.get("value", ""))

    @app.action(ACTION_RUNS)
    def on_runs(ack: Ack, body: dict[str, Any], action: dict[str, Any], context: BoltContext,
                client: WebClient) -> None:
        ack()
        runs = (action.get("selected_option") or {}).get("value", "")
        replier.turn(client, _key(body, context), f"what about {runs} runs?")

    @app.action(re.compile("^(" + "|".join(LAYERS) + ")$"))
    def on_layer(ack: Ack, body: dict[str, Any], action: dict[str, Any], context: BoltContext,
                 client: WebClient) -> None:
        ack()
        replier.layer(client, _key(body, context), LAYERS[action["action_id"]])

    @app.action(ACTION_SHARE_VRAM)
    def on_share(ack: Ack, action: dict[str, Any], respond: Respond) -> None:
        ack()
        try:
            advisor = replier.advisor
            messages = render_response(advisor.vram(action.get("value", "")), advisor.display_names(), vram_only=True)
        except Exception:
            log.exception("sharing /vram failed")
            messages = render_error()
        for message in messages:
            respond(response_type="in_channel", delete_original=True, text=message.text, blocks=message.blocks)
