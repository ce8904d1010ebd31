"""Distillation said in one message: "distill Llama 3.1 405B into 8B: generate 2B tokens of teacher outputs then SFT".

Read as one job it became a full fine-tune of the 405B on 96 B200s, and "into 8b" an unknown model. It is two: the
teacher (the model named) generates the tokens offline, then the student (the name or size after "into", "to" or
"student") is fine-tuned on them. `distill_ask` finds both and the token count (None when not said: the answer asks
for it rather than guess one); `engine.distill` plans and prices the two stages.

A follow-up in that thread ("what about 4B tokens?", "try H100s", "use spot", "LoRA for the student", "2 epochs")
changes the distillation (`distill_follow_up`), never the one job the thread's workload would read as: re-planned as
a fine-tune of the teacher, "try H100s" became a full fine-tune of the 405B on 224 H100s.
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
# which stage a follow-up's GPU, provider or pricing is for: "H100s for the generation", "spot for the student"
_GENERATION_STAGE = re.compile(r"\b(?:generation|generating|generate|teacher(?:'s)?|inference|first stage|stage 1)\b")
_SFT_STAGE = re.compile(r"\b(?:student(?:'s)?|sft|fine[ -]?tun\w*|finetun\w*|training|second stage|stage 2)\b")
_BOTH_STAGES = re.compile(r"\b(?:both|each|all) (?:stages|jobs|of them)\b")
# "2000-token replies", "reply length 2000 tokens": the teacher's reply, which the grammar may read as a context
_REPLY_WORDS = re.compile(r"\b(?:repl(?:y|ies)|responses?|outputs?|answers?|completions?|generations?)\b")
# what a follow-up may say and stay a change to the distillation; anything else (a model, a serving load, a budget)
# is another question
_FOLLOW_UP_FIELDS = frozenset({"dataset_tokens", "output_tokens", "gpu", "gpu_count", "provider", "pricing", "mode",
                               "intent", "epochs", "seq_len", "params_b", "providers", "gpu_vendor", "model",
                               "data_location"})
# "spot for the generation only": the other stage goes back to the catalog's pick for what was said
_ONLY = re.compile(r"\bonly\b|\bjust (?:for )?the\b")
# said once for both stages, where they may run: "aws only", "AMD"
_WHERE_FIELDS = ("providers", "gpu_vendor")
_STAGE_FIELDS = ("gpu", "gpu_count", "provider", "pricing")


class DistillStage(BaseModel):
    """What was said for one stage (None: the catalog's pick): the GPU and how many, the provider, on-demand or
    spot."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    gpu: str | None = None
    gpu_count: int | None = None
    provider: str | None = None
    pricing: Literal["on_demand", "spot", "reserved"] | None = None

    def settings(self) -> dict[str, Any]:
        """The Workload fields said for this stage."""
        return {k: v for k in _STAGE_FIELDS if (v := getattr(self, k)) is not None}


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
    epochs: float | None = None  # the student's passes over the tokens (one when not said)
    generation: DistillStage = DistillStage()  # the teacher's generation job as said
    sft: DistillStage = DistillStage()  # the student's fine-tune as said
    where: dict[str, Any] = {}  # Workload fields both stages keep to (`_WHERE_FIELDS`): "aws only", "AMD"


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
    stages = _stages(text, {k: updates[k] for k in _STAGE_FIELDS if updates.get(k) is not None}, conflicts)
    return DistillAsk(teacher=str(teacher), student=student, student_params_b=params_b, student_said=said,
                      tokens=float(tokens) if tokens else None,
                      reply_tokens=int(updates["output_tokens"]) if updates.get("output_tokens") else None,
                      student_mode=mode, epochs=float(updates["epochs"]) if updates.get("epochs") else None,
                      generation=stages[0], sft=stages[1],
                      where={k: updates[k] for k in _WHERE_FIELDS if updates.get(k) is not None})


def _stages(text: str, said: dict[str, Any], conflicts: tuple[Any, ...], ask: DistillAsk | None = None,
            ) -> tuple[DistillStage, DistillStage]:
    """Each stage's settings after `said` (GPU, provider, pricing): for the stage the message names ("H100s for the
    generation", "spot for the student"), else for both; two GPUs in one message ("H200 for the generation and H100
    for the SFT") go to the stages in the order they are named."""
    generation = ask.generation if ask is not None else DistillStage()
    sft = ask.sft if ask is not None else DistillStage()
    gen_at = _GENERATION_STAGE.search(text)
    sft_at = _SFT_STAGE.search(text)
    if ask is None:  # the first message names both stages ("teacher outputs then SFT"): what it says is for both
        gen_at = sft_at = None
    if _BOTH_STAGES.search(text):
        gen_at = sft_at = None
    two = next((c for c in conflicts if getattr(c, "field", None) == "gpu" and len(getattr(c, "values", ())) == 2),
               None)
    if two is not None and gen_at is not None and sft_at is not None:
        first, second = two.values
        gen_gpu, sft_gpu = (first, second) if gen_at.start() < sft_at.start() else (second, first)
        generation = generation.model_copy(update={"gpu": gen_gpu})
        sft = sft.model_copy(update={"gpu": sft_gpu})
        said = {k: v for k, v in said.items() if k != "gpu"}
    to_generation = gen_at is not None or sft_at is None
    to_sft = sft_at is not None or gen_at is None
    if said and to_generation:
        generation = generation.model_copy(update=said)
    if said and to_sft:
        sft = sft.model_copy(update=said)
    if said and to_generation != to_sft and _ONLY.search(text):  # "spot for the generation only"
        unsaid = dict.fromkeys(said)
        generation, sft = (generation, sft.model_copy(update=unsaid)) if to_generation else (
            generation.model_copy(update=unsaid), sft)
    return generation, sft


def distill_follow_up(text: str, updates: dict[str, Any], ask: DistillAsk, *, bare: tuple[Any, ...] = (),
                      conflicts: tuple[Any, ...] = (), tokens_asked: bool = False) -> tuple[DistillAsk, list[str]] | None:
    """The thread's distillation `ask` changed by a follow-up (`text` normalized, `updates` what the grammar read),
    with notes on how it was read; None when the message asks something else (another model, a serving load): the
    thread then leaves the distillation. `tokens_asked`: the answer asked for the token count, so a bare "4B" is it."""
    said = {k: v for k, v in updates.items() if v is not None}
    if said.get("mode") == "inference" or said.get("intent") not in (None, "train") or set(said) - _FOLLOW_UP_FIELDS:
        return None
    notes: list[str] = []
    change: dict[str, Any] = {}
    if "model" in said:  # "the student is qwen2.5 7b", "use llama 3.1 70b as the teacher"; another model alone is
        # another question
        if _TEACHER.search(text) and not _SFT_STAGE.search(text):
            change["teacher"] = str(said["model"])
        elif re.search(r"\bstudent\b", text):
            change.update(student=str(said["model"]), student_params_b=None, student_said="")
        else:
            return None
        said.pop("params_b", None)
    tokens = said.get("dataset_tokens")
    if tokens is None and "params_b" in said:
        # "4B" alone: a size the grammar read as a model, the token count when the answer asked for it
        count = next((float(v[1]) for v in bare if isinstance(v, tuple) and len(v) == 2), None)
        if not tokens_asked or count is None:
            return None
        tokens = count
    if tokens:
        change["tokens"] = float(tokens)
    reply = said.get("output_tokens")
    if reply is None and said.get("seq_len") and _REPLY_WORDS.search(text):  # "reply length 2000 tokens"
        reply = said["seq_len"]
        notes.append(f"read “{reply} tokens” as the teacher's reply length")
    elif said.get("seq_len"):
        return None  # a context length: not something the distillation takes
    if reply:
        change["reply_tokens"] = int(reply)
    if said.get("mode") in ("full", "lora", "qlora"):
        change["student_mode"] = said["mode"]
    if said.get("epochs"):
        change["epochs"] = float(said["epochs"])
    stage_said = {k: said[k] for k in _STAGE_FIELDS if k in said}
    count = stage_said.pop("gpu_count", None)
    gpu_conflict = any(getattr(c, "field", None) == "gpu" for c in conflicts)
    if stage_said or gpu_conflict or count:
        generation, sft = _stages(text, stage_said, conflicts, ask)
        if count and _GENERATION_STAGE.search(text) and not _SFT_STAGE.search(text):
            generation = generation.model_copy(update={"gpu_count": int(count)})
        elif count:  # a GPU count is a training cluster's: the generation is sized to finish within a day
            sft = sft.model_copy(update={"gpu_count": int(count)})
            if not _SFT_STAGE.search(text):
                notes.append(f"read {int(count)} GPUs as the fine-tune's; the generation keeps its own count (say "
                             f"“{int(count)} GPUs for the generation” to pin it too)")
        change.update(generation=generation, sft=sft)
    where = {k: said[k] for k in _WHERE_FIELDS if k in said}
    if where:
        change["where"] = {**ask.where, **where}
    if not change:
        return None
    return ask.model_copy(update=change), notes
