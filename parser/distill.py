"""Distillation said in one message: "distill Llama 3.1 405B into 8B: generate 2B tokens of teacher outputs then SFT".

Read as one job it became a full fine-tune of the 405B on 96 B200s, and "into 8b" an unknown model. It is two: the
teacher (the model named) generates the tokens offline, then the student (the name or size after "into", "to" or
"student") is fine-tuned on them. `distill_ask` finds both and the token count (None when not said: the answer asks
for it rather than guess one); `engine.distill` plans and prices the two stages.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

_DISTILL = re.compile(r"\bdistil(?:l|ls|led|ling|lation)?\b")
# "teacher outputs then SFT", "a 405B teacher's outputs to fine-tune a student": a teacher and a student trained on it
_TEACHER = re.compile(r"\bteacher(?:'s)?\b")
_STUDENT_TRAINED = re.compile(r"\b(?:student|sft|fine[ -]?tun\w*|finetun\w*|train\w*)\b")
# the student: "into 8b", "into llama 3.1 8b", "to a qwen2.5 7b", "student: llama-3.1-8b", "student model 8b"
_STUDENT = re.compile(r"\b(?:into|to|student(?: model)?(?: is)?:?)\s+(?:an?\s+|the\s+)?((?:[\w.\-]+\s+){0,3}?"
                      r"[\w.\-]*?\d+(?:\.\d+)?b)\b")
_SIZE = re.compile(r"(\d+(?:\.\d+)?)b$")
_LORA = re.compile(r"\b(q-?lora|lora)\b")


class DistillAsk(BaseModel):
    """The two stages' models and the tokens the teacher generates (None: not said, asked)."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    teacher: str  # catalog model id
    student: str | None = None  # catalog model id ("into llama 3.1 8b", or "into 8b" in the teacher's family)
    student_params_b: float | None = None  # a size alone with no catalog model of that size in the family
    student_said: str = ""  # as written ("8b")
    tokens: float | None = None
    reply_tokens: int | None = None
    student_mode: Literal["full", "lora", "qlora"] = "full"


def distill_ask(text: str, updates: dict[str, Any], resolver: Any, conflicts: tuple[Any, ...] = ()) -> DistillAsk | None:
    """The distillation `text` (normalized) describes, or None. `updates` is what the fold read (the teacher is its
    model, or the first of two models said: "distill llama 3.1 70b into qwen2.5 7b"); `resolver` the catalog's."""
    both = next((c for c in conflicts if getattr(c, "field", None) == "model"), None)
    teacher = updates.get("model") or (both.values[0] if both is not None and both.values else None)
    if not teacher or not (_DISTILL.search(text) or (_TEACHER.search(text) and _STUDENT_TRAINED.search(text))):
        return None
    found = _STUDENT.search(text)
    student: str | None = None
    params_b: float | None = None
    said = ""
    if found is not None:
        said = found.group(1).strip()
        resolved = getattr(resolver.resolve_model(said), "id", None) if resolver is not None else None
        size = _SIZE.search(said)
        if resolved and resolved != teacher:
            student = str(resolved)
        elif size is not None and said == size.group(0):  # "into 8b": the teacher's family at that size
            sibling = re.sub(r"\d+(?:\.\d+)?b$", size.group(0), str(teacher))
            resolved = getattr(resolver.resolve_model(sibling), "id", None) if resolver is not None else None
            student = str(resolved) if resolved and resolved != teacher else None
            params_b = None if student else float(size.group(1))
    if student is None and params_b is None:
        return None  # no student named: a fine-tune or a generation job as read
    tokens = updates.get("dataset_tokens")
    if not tokens and updates.get("batch_items") and updates.get("output_tokens"):
        tokens = float(updates["batch_items"]) * float(updates["output_tokens"])
    lora = _LORA.search(text)
    mode: Literal["full", "lora", "qlora"] = "full"
    if lora is not None:
        mode = "qlora" if lora.group(1).startswith("q") else "lora"
    return DistillAsk(teacher=str(teacher), student=student, student_params_b=params_b, student_said=said,
                      tokens=float(tokens) if tokens else None,
                      reply_tokens=int(updates["output_tokens"]) if updates.get("output_tokens") else None,
                      student_mode=mode)
