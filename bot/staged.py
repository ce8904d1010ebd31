"""Answers made of stages (a distillation's generation and SFT, sampling and scoring, an eval run, a compute-optimal
size): one shape, drawn in the storage answer's templates. Kept apart from `bot.render` so building one (for
`ask --json` too) does not import jinja2."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from bot.limits import Message


@dataclass(frozen=True)
class StagedAnswer:
    """Context of `storage.txt.j2` / `storage.json.j2`; `contract` is its key of `ask --json`."""

    headline: str
    lines: list[str]
    assumptions: str
    formulas: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    questions: list[str] = field(default_factory=list)
    contract: dict[str, Any] = field(default_factory=dict)


Staged = TypeVar("Staged", bound=StagedAnswer)


def with_questions_shown(answer: Staged) -> Staged:
    """The open questions as lines after the stages ("? How many tokens …"), as a plan's open questions are shown."""
    if not answer.questions:
        return answer
    return replace(answer, lines=[*answer.lines, *(f"? {q}" for q in answer.questions)], questions=[])


def render_staged(answer: StagedAnswer) -> list[Message]:
    """Block Kit (validated by `bot.limits`) plus the plain-text fallback."""
    from bot.limits import fit_message
    from bot.render import render_blocks, render_text

    shown = with_questions_shown(answer)
    blocks = render_blocks("storage.json.j2", answer=shown)
    return fit_message(blocks, render_text("storage.txt.j2", answer=shown, details=False), owned=True)


def render_staged_text(answer: StagedAnswer, *, details: bool = False) -> str:
    from bot.render import render_text

    return render_text("storage.txt.j2", answer=with_questions_shown(answer), details=details)
