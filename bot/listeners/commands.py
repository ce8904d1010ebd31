"""`/vram 70B qlora`: acknowledged at once (Slack allows 3 s), then answered privately through the
command's response_url with a button that shares the answer in the channel."""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import Ack, App, Respond

from bot.render import render_error, render_vram
from bot.service import Advisor

log = logging.getLogger(__name__)


def register(app: App, advisor: Advisor) -> None:
    @app.command("/vram")
    def on_vram(ack: Ack, command: dict[str, Any], respond: Respond) -> None:
        ack()
        try:
            messages = render_vram(advisor.vram(command.get("text", "")), advisor.display_names())
        except Exception:
            log.exception("/vram failed")
            messages = render_error()
        for message in messages:
            respond(response_type="ephemeral", replace_original=False, text=message.text, blocks=message.blocks)
