"""The answer to a distillation ("distill Llama 3.1 405B into 8B: generate 2B tokens of teacher outputs then SFT").

Two stages, each planned by the engine (`engine.distill`): the teacher generates the tokens offline, the student is
fine-tuned on them. The answer says both and their sum, and which stage the bill is made of; with no token count it
prices both per 1B tokens and asks for the count instead of guessing one. It has a storage answer's shape (headline,
lines, assumptions, formulas) and is rendered by the same templates.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.formatting import fmt_usd
from bot.staged import StagedAnswer
from catalog.records import CatalogData
from engine.distill import PER_TOKENS, DistillPlan, Stage, plan_distillation
from engine.models import Workload
from parser.distill import DistillAsk, DistillStage

_METHODS = {"full": "Full fine-tune", "lora": "LoRA fine-tune", "qlora": "QLoRA fine-tune"}
_METHOD_WORDS = {"full": "full fine-tune", "lora": "LoRA", "qlora": "QLoRA"}


@dataclass(frozen=True)
class DistillAnswer(StagedAnswer):
    """The distillation's two stages; `contract` is the "distill" key of `ask --json`."""


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


def _plan(ask: DistillAsk, data: CatalogData, base: Workload | None = None) -> DistillPlan:
    """The engine's plan of `ask`: both stages with what was said for each (a GPU, a provider, spot), and where both
    may run ("aws only") over `base`."""
    where = {**(base.model_dump(exclude_none=True) if base else {}), **ask.where}
    return plan_distillation(ask.teacher, data, student=ask.student, student_params_b=ask.student_params_b,
                             tokens=ask.tokens, reply_tokens=ask.reply_tokens, student_mode=ask.student_mode,
                             epochs=ask.epochs, generation_settings=ask.generation.settings(),
                             sft_settings=ask.sft.settings(),
                             base=Workload.model_validate(where) if where else None)


def build_distill_answer(ask: DistillAsk, data: CatalogData, base: Workload | None = None,
                         before: DistillAsk | None = None, notes: tuple[str, ...] = ()) -> DistillAnswer:
    """Both stages planned on the catalog, worded. `before`: the thread's previous distillation, when this one is a
    follow-up ("what about 4B tokens?"): the answer says what changed against its totals, as a plan's follow-up
    does."""
    plan = _plan(ask, data, base)
    teacher = data.model(plan.teacher)
    student = data.model(plan.student or "")
    teacher_name = teacher.name if teacher else plan.teacher
    student_name = student.name if student else f"a {plan.student_params_b:g}B model"
    tokens = _tokens(plan.tokens)
    gen, sft = plan.generation, plan.sft
    prompts = plan.tokens / plan.reply_tokens
    prompt_len = gen.advice.effective.input_tokens
    epochs = "" if plan.epochs == 1 else f", {plan.epochs:g} epochs"
    lines = [
        _stage_line(1, f"Generate {tokens} tokens with {teacher_name} (offline: {prompts:,.0f} replies of "
                       f"{plan.reply_tokens:,} tokens)", gen, data, per_run=False),
        _stage_line(2, f"{_METHODS[plan.student_mode]} of {student_name} on those {tokens} tokens{epochs}", sft, data,
                    per_run=True),
        f"Only the student is trained: the {teacher_name} runs inference alone, so no {teacher_name} training cluster "
        f"is needed; the generation restarts from the prompts it has not finished, so {_spot_words(ask, plan)}.",
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
    changes: list[str] = []
    previous: DistillPlan | None = None
    if before is not None and before != ask:
        previous = _plan(before, data, base)
        changes = _changes(before, ask, previous, plan, data)
        lines = [f"What changed: {'; '.join(changes)}.", *lines]
    elif before is not None:
        lines = ["Nothing changed: that is already the distillation planned.", *lines]
    lines += [f"Note: {n}" for n in notes]
    said_reply = "" if ask.reply_tokens else " (none said)"
    prompt_words = f", {prompt_len:,}-token prompts" if prompt_len else ""
    sft_epochs = "one epoch" if plan.epochs == 1 else f"{plan.epochs:g} epochs"
    assumptions = (f"Assumes {plan.reply_tokens:,}-token replies{said_reply}{prompt_words}, {sft_epochs} of SFT on the "
                   f"{tokens} tokens, {_gpu_words(ask, data)}, {_pricing_words(ask)} (reply to change: "
                   f"{_examples(ask)})")
    formulas = [f"total_usd = generation_usd + sft_usd = {fmt_usd(gen.usd)} + {fmt_usd(sft.usd)} = "
                f"{fmt_usd(plan.total_usd)}" if plan.total_usd is not None else "total_usd: a stage was not planned"]
    sources = [m for m in (f"{teacher.name}: {teacher.source}" if teacher else "",
                           f"{student.name}: {student.source}" if student else "") if m]
    contract = _contract(plan)
    # the student's parameters as `ask --json` fills a named model's (workload.params_b): the job that trains
    contract["student_total_params_b"] = student.total_params_b if student else plan.student_params_b
    if previous is not None:
        contract["changes"] = changes
        contract["previous_total_usd"] = round(previous.total_usd, 2) if previous.total_usd is not None else None
    return DistillAnswer(headline=headline, lines=lines, assumptions=assumptions, formulas=formulas,
                         sources=sources, questions=questions, contract=contract)


def _examples(ask: DistillAsk) -> str:
    """Four follow-ups this answer takes, the ones not said yet first."""
    unsaid = [("“500-token replies”", ask.reply_tokens is None),
              ("“LoRA”" if ask.student_mode == "full" else "“full fine-tune”", True),
              ("“on Lambda”", not (ask.generation.provider or ask.sft.provider)),
              ("“use spot”", ask.generation.pricing != "spot"),
              ("“try H100s”", not (ask.generation.gpu or ask.sft.gpu)),
              ("“2 epochs”", ask.epochs is None),
              ("“what about 4B tokens?”", True)]
    return ", ".join([text for text, open_ in unsaid if open_][:4])


def _spot_words(ask: DistillAsk, plan: DistillPlan) -> str:
    """Why spot suits the generation, and which stages are on it (as planned; as said for a stage not planned)."""
    gen_spot = (plan.generation.pricing or ask.generation.pricing) == "spot"
    sft_spot = (plan.sft.pricing or ask.sft.pricing) == "spot"
    if gen_spot and sft_spot:
        return "it is on spot, as is the fine-tune (it resumes from its last checkpoint: save one every hour or so)"
    if gen_spot:
        return "it is on spot; the fine-tune stays on demand (say “spot for both” to move it too)"
    return "spot instances suit it"


def _gpu_words(ask: DistillAsk, data: CatalogData) -> str:
    gen, sft = _pinned(ask.generation, data), _pinned(ask.sft, data)
    if gen is None and sft is None:
        return "each stage on its own cheapest fitting GPUs"
    if gen == sft:
        return f"both stages on {gen} as said"
    return (f"the generation on {gen or 'its cheapest fitting GPUs'}, the fine-tune on "
            f"{sft or 'its cheapest fitting GPUs'}")


def _pinned(stage: DistillStage, data: CatalogData) -> str | None:
    """The GPUs said for a stage ("16× H100 SXM5 80GB", "H100 SXM5 80GB", "16 GPUs"), None when nothing was."""
    if stage.gpu is None and stage.gpu_count is None:
        return None
    if stage.gpu is None:
        return f"{stage.gpu_count} GPUs"
    return f"{stage.gpu_count}× {_gpu_name(stage.gpu, data)}" if stage.gpu_count else _gpu_name(stage.gpu, data)


def _gpu_name(gpu: str | None, data: CatalogData) -> str:
    if gpu is None:
        return "its cheapest fitting GPUs"
    record = data.gpu(gpu)
    return record.name if record else gpu


def _pricing_words(ask: DistillAsk) -> str:
    gen, sft = ask.generation.pricing or "on_demand", ask.sft.pricing or "on_demand"
    words = {"on_demand": "on-demand", "spot": "spot", "reserved": "reserved"}
    if gen == sft:
        return f"{words[gen]} prices"
    return f"{words[gen]} prices for the generation, {words[sft]} for the fine-tune"


def _changes(before: DistillAsk, after: DistillAsk, was: DistillPlan, now: DistillPlan, data: CatalogData) -> list[str]:
    """What the follow-up changed, as said (old → new), then the totals and each stage that moved: the lines a plan's
    follow-up has ("What changed: GPU any → H100 …; $15,526 → $18,884")."""
    said: list[str] = []
    for role, old_id, new_id in (("teacher", before.teacher, after.teacher), ("student", was.student, now.student)):
        if old_id != new_id:
            said.append(f"{role} {_model_name(old_id, was, data)} → {_model_name(new_id, now, data)}")
    if before.tokens != after.tokens:
        said.append(f"tokens {_tokens(was.tokens) if before.tokens else 'none said'} → {_tokens(now.tokens)}")
    if was.reply_tokens != now.reply_tokens:
        said.append(f"replies {was.reply_tokens:,} → {now.reply_tokens:,} tokens")
    if before.student_mode != after.student_mode:
        said.append(f"student {_METHOD_WORDS[before.student_mode]} → {_METHOD_WORDS[after.student_mode]}")
    if was.epochs != now.epochs:
        said.append(f"epochs {was.epochs:g} → {now.epochs:g}")
    for field_name, label in (("gpu", "GPU"), ("gpu_count", "GPUs"), ("provider", "provider"), ("pricing", "pricing")):
        gen = (getattr(before.generation, field_name), getattr(after.generation, field_name))
        sft = (getattr(before.sft, field_name), getattr(after.sft, field_name))

        def show(value: str | None, name: str = field_name) -> str:
            return _setting(name, value, data)

        if gen[0] != gen[1] and sft[0] != sft[1] and gen == sft:
            said.append(f"{label} {show(gen[0])} → {show(gen[1])} (both stages)")
            continue
        if gen[0] != gen[1]:
            said.append(f"{label} {show(gen[0])} → {show(gen[1])} (generation)")
        if sft[0] != sft[1]:
            said.append(f"{label} {show(sft[0])} → {show(sft[1])} (fine-tune)")
    if before.where != after.where:
        said.append("where it may run: " + ", ".join(f"{k} {v}" for k, v in after.where.items()))
    figures: list[str] = []
    if was.total_usd is not None and now.total_usd is not None:
        figures.append(f"{fmt_usd(was.total_usd)} → {fmt_usd(now.total_usd)} in all")
    for label, old, new in (("generation", was.generation, now.generation), ("fine-tune", was.sft, now.sft)):
        if (old.usd, old.gpus, old.gpu, old.option) == (new.usd, new.gpus, new.gpu, new.option):
            continue
        cost = f"{fmt_usd(old.usd)} → {fmt_usd(new.usd)}" if old.usd is not None and new.usd is not None else (
            "now planned" if new.usd is not None else "not planned now")
        gpus = "" if (old.gpus, old.gpu) == (new.gpus, new.gpu) else (
            f" ({_cluster(old, data)} → {_cluster(new, data)})")
        figures.append(f"{label} {cost}{gpus}")
    return [*said, *figures] if said or figures else ["nothing: that is already the plan"]


def _model_name(model_id: str | None, plan: DistillPlan, data: CatalogData) -> str:
    record = data.model(model_id or "")
    if record is not None:
        return record.name
    return model_id or f"a {plan.student_params_b:g}B model"


def _cluster(stage: Stage, data: CatalogData) -> str:
    if stage.gpus is None:
        return "none"
    return f"{stage.gpus}× {_gpu_name(stage.gpu, data)}"


def _setting(name: str, value: str | None, data: CatalogData) -> str:
    """A stage setting as a reader says it: "H100 SXM5 80GB", "Lambda", "spot"; "any" or "on-demand" when unsaid."""
    if name == "pricing":
        return "on-demand" if value in (None, "on_demand") else str(value)
    if value is None:
        return "any"
    if name == "gpu_count":
        return str(value)
    if name == "gpu":
        return _gpu_name(value, data)
    provider = data.provider(value)
    return provider.name if provider else value


def _contract(plan: DistillPlan) -> dict[str, Any]:
    def stage(s: Stage) -> dict[str, Any]:
        return {"option": s.option, "gpu": s.gpu, "gpus": s.gpus,
                "usd": round(s.usd, 2) if s.usd is not None else None,
                "hours": round(s.hours, 2) if s.hours is not None else None,
                "nodes": s.nodes, "provider": s.provider, "pricing": s.pricing,
                "mode": s.advice.effective.mode, "model": s.advice.effective.model}

    return {"teacher": plan.teacher, "student": plan.student, "student_params_b": plan.student_params_b,
            "tokens": plan.tokens, "tokens_said": plan.tokens_said, "reply_tokens": plan.reply_tokens,
            "student_mode": plan.student_mode, "epochs": plan.epochs, "generation": stage(plan.generation),
            "sft": stage(plan.sft),
            "total_usd": round(plan.total_usd, 2) if plan.total_usd is not None else None,
            "dominant": plan.dominant}


def distill_contract(answer: DistillAnswer, workload_keys: tuple[str, ...], workload: Workload | None) -> dict[str, Any]:
    """`ask --json` for a distillation: every key a plan's answer has (the report parts null: two plans were made,
    under "distill") plus "distill" (docs/json.md). `notes[0]` is the headline; `workload` is the student's fine-tune
    (the job that trains: the teacher only generates, under `distill.generation`)."""
    w = workload or Workload()
    said = {key: getattr(w, key, None) for key in workload_keys}
    if "params_b" in said and said["params_b"] is None:  # the student's, from the catalog, as for a named model
        said["params_b"] = answer.contract.get("student_total_params_b")
    return {
        "workload": said,
        "missing": [] if answer.contract.get("tokens_said", True) else ["dataset_tokens"],
        "questions": list(answer.questions),
        "assumptions": [],
        "report": {"memory": None, "cluster": None, "throughput": None, "tco": None},
        "notes": [answer.headline, *answer.lines, answer.assumptions],
        "capacity": None,
        "compared_gpus": None,
        "storage": None,
        "distill": answer.contract,
    }
