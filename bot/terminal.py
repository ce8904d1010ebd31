"""The terminal rendering of a reply: the same views and templates as Slack's plain-text
fallback (`answer.txt.j2`, `help.txt.j2`), so `gpu-advisor ask` says what the bot says. With
`details=True` (`ask --details`) the Details, All options and Formulas layers follow the summary,
as the buttons of the same names post them in a Slack thread."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from bot.render import build_formulas_view, build_help_view, render_text, unchanged_help
from bot.service import Response
from bot.summary import build_answer_view
from engine.models import Advice, Workload

DETAILS_HINT = "More: --details (memory breakdown, interconnect and NCCL checklist, every option, formulas)."


def render_terminal(response: Response, names: Mapping[str, str] | None = None, *, vram_only: bool = False,
                    details: bool = False, hint: str = "") -> str:
    if response.prices is not None:  # a price question: the table of offers (bot/prices.py)
        from bot.prices import render_prices_text

        return render_prices_text(response.prices)
    staged = response.offline or response.distill  # an offline job or a distillation, in stages (bot/staged.py)
    if staged is not None:
        from bot.staged import render_staged_text

        return render_staged_text(staged, details=details)
    if response.storage is not None:  # a checkpoint-size, storage or transfer question (bot/storage.py)
        from bot.storage import render_storage_text

        return render_storage_text(response.storage, details=details)
    if response.buy_or_rent is not None or response.reserve is not None:  # no model: the break-even, the two bills
        return render_text("answer.txt.j2", view=build_answer_view(response, names, hint=hint))
    if response.api is not None and response.advice is None:  # an API named, no model: its bill (bot.api_compare)
        from bot.api_compare import api_details

        text = render_text("answer.txt.j2", view=build_answer_view(response, names, hint=""))
        return "\n".join([text.rstrip("\n"), *api_details(response.api)]) + "\n" if details else text
    if response.advice is None or (response.intent in ("help", "gibberish") and not response.changes):
        if response.advice is not None and response.intent == "gibberish":
            return render_text("help.txt.j2", view=unchanged_help(response))
        return render_text("help.txt.j2", view=build_help_view(response))
    summary = render_text("answer.txt.j2", view=build_answer_view(
        response, names, vram_only=vram_only, hint="" if details or vram_only else hint))
    if not details:
        return summary
    if response.api is not None:  # "… vs gpt-4o-mini api": the API's arithmetic beside the plan's
        from bot.api_compare import api_details

        summary = "\n".join([summary.rstrip("\n"), *api_details(response.api)]) + "\n"
    # the other layers only when asked (cold start of a plain `ask`)
    from bot.details import build_details_view, build_options_view, formulas_text

    return "\n".join([summary, render_text("details.txt.j2", view=build_details_view(response.advice, names)),
                      render_text("options.txt.j2", view=build_options_view(response.advice, names)),
                      formulas_text(build_formulas_view(response.advice))])


def render_layer(word: str, response: Response, names: Mapping[str, str] | None = None,
                 advise: Callable[[Workload], Advice] | None = None) -> str:
    """`details`, `options`, `formulas` or `cheaper` typed in `gpu-advisor chat`: that layer of the last answer.
    `advise`: the engine, for "cheaper?" past the thread's pins."""
    from bot.details import build_details_view, build_options_view, formulas_text

    advice = response.advice
    if advice is None:
        return render_text("help.txt.j2", view=build_help_view(None))
    if word == "details":
        return render_text("details.txt.j2", view=build_details_view(advice, names))
    if word == "options":
        return render_text("options.txt.j2", view=build_options_view(advice, names))
    if word == "cheaper":
        from bot.cheaper import build_cheaper_view, cheaper_text

        return cheaper_text(build_cheaper_view(advice, names, advise))
    return formulas_text(build_formulas_view(advice))
