"""The answer to a distillation ("distill Llama 3.1 405B into 8B: generate 2B tokens of teacher outputs then SFT").

Two stages, each planned by the engine (`engine.distill`): the teacher generates the tokens offline, the student is
fine-tuned on them. The answer says both and their sum, and which stage the bill is made of; with no token count it
prices both per 1B tokens and asks for the count instead of guessing one. It has a storage answer's shape (headline,
lines, assumptions, formulas) and is rendered by the same templates.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bot.formatting import fmt_usd
from bot.limits import Message, fit_message
from catalog.records import CatalogData
from engine.distill import PER_TOKENS, DistillPlan, Stage, plan_distillation
from engine.models import Workload
from parser.distill import DistillAsk

_METHODS = {"full": "Full fine-tune", "lora": "LoRA fine-tune", "qlora": "QLoRA fine-tune"}


@dataclass(frozen=True)
class DistillAnswer:
    """Context of `storage.txt.j2` / `storage.json.j2` (the same shape), and the "distill" key of `ask --json`."""

    headline: str
    lines: list[str]
    assumptions: str
    formulas: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    questions: list[str] = field(default_factory=list)
    contract: dict[str, Any] = field(default_factory=dict)


def _tokens(value: float) -> str:
    return f"{value / 1e9:g}B" if value >= 1e9 else f"{value / 1e6:g}M"


def _hours(hours: float | None) -> str:
    if hours is None:
        return ""
    return f" for {hours:.1f} h" if hours < 48 else f" for {hours / 24:.1f} days"


def _stage_line(number: int, what: str, stage: Stage, data: CatalogData, per_run: bool) -> str:
    if stage.option is None or stage.usd is None:
        problem = next((p.message for p in stage.advice.problems), "no option fits")
        return f"{number}. {what}: not planned ({problem})."
    gpu = data.gpu(stage.gpu or "")
    gpus = f"{stage.gpus}× {gpu.name if gpu else stage.gpu}"
    return (f"{number}. {what}: {gpus}{_hours(stage.hours)}, {fmt_usd(stage.usd)}{' a run' if per_run else ''} on "
            f"{stage.option}.")


def build_distill_answer(ask: DistillAsk, data: CatalogData, base: Workload | None = None) -> DistillAnswer:
    """Both stages planned on the catalog, worded."""
    plan = plan_distillation(ask.teacher, data, student=ask.student, student_params_b=ask.student_params_b,
                             tokens=ask.tokens, reply_tokens=ask.reply_tokens, student_mode=ask.student_mode,
                             base=base)
    teacher = data.model(plan.teacher)
    student = data.model(plan.student or "")
    teacher_name = teacher.name if teacher else plan.teacher
    student_name = student.name if student else f"a {plan.student_params_b:g}B model"
    tokens = _tokens(plan.tokens)
    gen, sft = plan.generation, plan.sft
    prompts = plan.tokens / plan.reply_tokens
    prompt_len = gen.advice.effective.input_tokens
    lines = [
        _stage_line(1, f"Generate {tokens} tokens with {teacher_name} (offline: {prompts:,.0f} replies of "
                       f"{plan.reply_tokens:,} tokens)", gen, data, per_run=False),
        _stage_line(2, f"{_METHODS[plan.student_mode]} of {student_name} on those {tokens} tokens", sft, data,
                    per_run=True),
        f"Only the student is trained: the {teacher_name} runs inference alone, so no {teacher_name} training cluster "
        "is needed; the generation restarts from the prompts it has not finished, so spot instances suit it.",
    ]
    questions: list[str] = []
    if plan.total_usd is None:
        headline = f"Distilling {teacher_name} into {student_name}: two jobs, generation then fine-tuning."
    else:
        share = (gen.usd if plan.dominant == "generation" else sft.usd) or 0.0
        stage = "the teacher's generation" if plan.dominant == "generation" else "the student's fine-tune"
        if plan.tokens_said:
            headline = (f"Distilling {teacher_name} into {student_name} on {tokens} tokens of teacher outputs: two "
                        f"jobs, {fmt_usd(plan.total_usd)} in all; {stage} is {share / plan.total_usd:.0%} of it.")
        else:
            headline = (f"Distilling {teacher_name} into {student_name}: two jobs, {fmt_usd(plan.total_usd)} per "
                        f"{_tokens(PER_TOKENS)} tokens of teacher outputs ({stage} is {share / plan.total_usd:.0%}); "
                        "both scale with the tokens generated.")
            questions.append("How many tokens will the teacher generate (e.g. “2B tokens”)? Priced per 1B tokens "
                             "until you say.")
    said_reply = "" if ask.reply_tokens else " (none said)"
    prompt_words = f", {prompt_len:,}-token prompts" if prompt_len else ""
    assumptions = (f"Assumes {plan.reply_tokens:,}-token replies{said_reply}{prompt_words}, one epoch of SFT on the "
                   f"{tokens} tokens, each stage on its own cheapest fitting GPUs, on-demand prices (reply to change: "
                   f"“500-token replies”, “{'LoRA' if plan.student_mode == 'full' else 'full fine-tune'}”, "
                   "“on Lambda”)")
    formulas = [f"total_usd = generation_usd + sft_usd = {fmt_usd(gen.usd)} + {fmt_usd(sft.usd)} = "
                f"{fmt_usd(plan.total_usd)}" if plan.total_usd is not None else "total_usd: a stage was not planned"]
    sources = [m for m in (f"{teacher.name}: {teacher.source}" if teacher else "",
                           f"{student.name}: {student.source}" if student else "") if m]
    return DistillAnswer(headline=headline, lines=lines, assumptions=assumptions, formulas=formulas,
                         sources=sources, questions=questions, contract=_contract(plan))


def _contract(plan: DistillPlan) -> dict[str, Any]:
    def stage(s: Stage) -> dict[str, Any]:
        return {"option": s.option, "gpu": s.gpu, "gpus": s.gpus,
                "usd": round(s.usd, 2) if s.usd is not None else None,
                "hours": round(s.hours, 2) if s.hours is not None else None}

    return {"teacher": plan.teacher, "student": plan.student, "student_params_b": plan.student_params_b,
            "tokens": plan.tokens, "tokens_said": plan.tokens_said, "reply_tokens": plan.reply_tokens,
            "student_mode": plan.student_mode, "generation": stage(plan.generation), "sft": stage(plan.sft),
            "total_usd": round(plan.total_usd, 2) if plan.total_usd is not None else None,
            "dominant": plan.dominant}


def render_distill(answer: DistillAnswer) -> list[Message]:
    """Block Kit (validated by `bot.limits`) plus the plain-text fallback, in a storage answer's templates."""
    from bot.render import render_blocks, render_text

    shown = _shown(answer)
    blocks = render_blocks("storage.json.j2", answer=shown)
    return fit_message(blocks, render_text("storage.txt.j2", answer=shown, details=False), owned=True)


def render_distill_text(answer: DistillAnswer, *, details: bool = False) -> str:
    from bot.render import render_text

    return render_text("storage.txt.j2", answer=_shown(answer), details=details)


def _shown(answer: DistillAnswer) -> DistillAnswer:
    """The questions as lines after the stages ("? How many tokens …"), as a plan's open questions are shown."""
    if not answer.questions:
        return answer
    return DistillAnswer(headline=answer.headline, lines=[*answer.lines, *(f"? {q}" for q in answer.questions)],
                         assumptions=answer.assumptions, formulas=answer.formulas, sources=answer.sources,
                         questions=[], contract=answer.contract)


def distill_contract(answer: DistillAnswer, workload_keys: tuple[str, ...], workload: Workload | None) -> dict[str, Any]:
    """`ask --json` for a distillation: every key a plan's answer has (the report parts null: two plans were made,
    under "distill") plus "distill" (docs/json.md). `notes[0]` is the headline."""
    w = workload or Workload()
    return {
        "workload": {key: getattr(w, key, None) for key in workload_keys},
        "missing": [],
        "questions": list(answer.questions),
        "assumptions": [],
        "report": {"memory": None, "cluster": None, "throughput": None, "tco": None},
        "notes": [answer.headline, *answer.lines, answer.assumptions],
        "capacity": None,
        "compared_gpus": None,
        "storage": None,
        "distill": answer.contract,
    }
