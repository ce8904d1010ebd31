"""One question answered every way a user sees it, for the answer tests: the Slack message (checked against Slack's
limits), the first message's view and the terminal text, from the real catalog, parser and engine."""

from __future__ import annotations

from typing import Any

from bot.limits import violations
from bot.render import render_response
from bot.summary import build_answer_view
from bot.terminal import render_terminal


def answered(advisor: Any, text: str) -> tuple[Any, Any, str]:
    """(response, first-message view, terminal text) of `text` asked in a new thread."""
    response = advisor.respond(advisor.new_conversation(), text)
    names = advisor.display_names()
    [message] = render_response(response, names)
    assert violations(message.blocks, text=message.text) == []
    return response, build_answer_view(response, names), render_terminal(response, names)
