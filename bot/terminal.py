"""The terminal rendering of a reply: the same views and templates as Slack's plain-text
fallback (`answer.txt.j2`, `help.txt.j2`), so `gpu-advisor ask` says what the bot says."""

from __future__ import annotations

from collections.abc import Mapping

from bot.render import REFINEMENTS, HelpView, build_answer_view, build_help_view, render_text
from bot.service import Response


def render_terminal(response: Response, names: Mapping[str, str] | None = None, *, vram_only: bool = False) -> str:
    if response.prices is not None:  # a price question: the table of offers (bot/prices.py)
        from bot.prices import render_prices_text

        return render_prices_text(response.prices)
    if response.advice is None or (response.intent in ("help", "gibberish") and not response.changes):
        view = build_help_view(response)
        if response.advice is not None and response.intent == "gibberish":
            view = HelpView(intro="I didn't understand that; the scenario is unchanged. You can say:",
                            examples=REFINEMENTS, refinements=(), questions=view.questions, notes=view.notes)
        return render_text("help.txt.j2", view=view)
    return render_text("answer.txt.j2", view=build_answer_view(response, names, vram_only=vram_only))
