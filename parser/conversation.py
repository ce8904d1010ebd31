"""One Slack thread's scenario: a Workload refined message by message, with undo.

`Conversation.turn(text)` reads a message against what the thread already knows:
- a bare reply ("3", "1B", "yes") answers the pending question;
- a follow-up ("what about 40 runs?", "try A100s", "undo") changes the existing scenario, and
  the Turn lists each changed field old -> new (the engine's cost diff is computed elsewhere);
- a message that describes a whole new job (a mode and a model) starts a new scenario;
- conflicting values in one message are not applied but asked about.

It holds no engine calls and no storage: the bot runs the engine on `Turn.workload` and stores
`to_dict()` in SQLite.
"""

from __future__ import annotations

import contextlib
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from engine.models import (
    DEFAULT_OUTPUT_TOKENS,
    DEFAULT_REASONING_OUTPUT_TOKENS,
    Problem,
    Workload,
    sequences_per_example,
)

from .api_names import api_cues
from .capacity import CAPACITY_CUE, RATE_CUE, VERSUS_CUE, VERSUS_SEP, capacity_asked, request_rate_asked
from .distill import DistillAsk, distill_follow_up
from .examples import HELP_TEXT
from .fleet import OWN_CLUSTER_CUE
from .fold import END_TO_END_CUE, IMPLIED_CUE, NO_DEADLINE_CUE
from .hardware import OWN_HARDWARE_NOTE
from .names import with_catalog_size
from .owning import BUY_RENT_CUE, OwningSaid, read_owning, with_owning
from .parsing import parse
from .questions import MAX_QUESTIONS, Question, questions_for, stated_assumptions
from .reading import Conflict, Intent, NameResolver, Reading
from .reserve import RESERVE_CUE, ReserveSaid, read_reserve, with_reserve
from .retarget import retargeted
from .scaling import LOAD_FIELDS, scaled_context, scaled_load
from .storage import StorageAsk, storage_follow_up, storage_question

HISTORY_LIMIT = 50
# A refinement that cannot apply as said becomes a yes/no question proposing what would; its `why`
# carries the proposed change ("switch: mode=lora precision=int8") so a bare "yes" can apply it.
SWITCH = "switch:"
FOUR_BIT = ("nf4", "int4")
_CHECKPOINTS_SAID = re.compile(r"\b(?:checkpoints?|ckpts?|snapshots)\b(?!ing)", re.IGNORECASE)
# what a storage question asked in a thread takes from its scenario ("and how big is its checkpoint?")
_STORAGE_THREAD_FIELDS = ("model", "params_b", "mode", "precision", "optimizer", "lora_rank")
_INT_ANSWERS = {"gpu_count", "concurrency", "seq_len", "batch_size", "lora_rank", "nodes"}
_FLOAT_ANSWERS = {"runs_per_month", "epochs"}


class Turn(BaseModel):
    """The result of one message: the scenario after it and what the reply should say."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    workload: Workload
    changed: dict[str, tuple[Any, Any]]  # field -> (old, new)
    questions: tuple[Question, ...] = ()
    conflicts: tuple[Conflict, ...] = ()
    intent: Intent
    message: str
    notes: tuple[str, ...] = ()
    unknown_names: tuple[Problem, ...] = ()
    assumptions: tuple[str, ...] = ()
    reading: Reading | None = None
    storage: StorageAsk | None = None  # intent "storage": the question as this thread now asks it
    # a distillation (parser.distill): the two stages as this thread now asks them, and as the previous answer did
    # (None on the thread's first distillation), so the reply can say what changed
    distill: DistillAsk | None = None
    distill_before: DistillAsk | None = None
    distill_notes: tuple[str, ...] = ()  # how the follow-up was read for the distillation ("read 16 GPUs as …")


_RENT = re.compile(r"\b(?:rent(?:ed|ing|al)?|in the cloud|on the cloud|cloud gpus?|a cloud gpu)\b")


# "full" as the answer to "QLoRA, LoRA or a full fine-tune?"
_FULL_ANSWER = re.compile(r"(?:(?:ok|okay|yes|then|let's do|let's go with|go with|make it)[ ,]*)?(?:a |the )?full(?: one| 1| "
                          r"please| then| it is)?")
# the fold's note for a sum with no period said in a service ("$10k"): the thread may know the period
_BUDGET_NEEDS_PERIOD = re.compile(r"^\$([\d,]+) is not a GPU-hour price, and a service's budget needs its period")


class Conversation:
    """The scenario of one thread, its history for undo, and the questions still open."""

    def __init__(self, resolver: NameResolver | None = None, workload: Workload | None = None) -> None:
        self.resolver = resolver
        self.workload = workload or Workload()
        self.history: list[Workload] = []
        self.pending: list[Question] = []
        self.asked: set[str] = set()
        self.cues: set[str] = set()
        self._offer: Question | None = None  # a switch proposed by this turn, asked first
        self.storage: StorageAsk | None = None  # the last answer's storage question, while the thread is about it
        self.distill: DistillAsk | None = None  # the last answer's distillation, while the thread is about it
        self.distill_history: list[DistillAsk] = []  # its earlier versions in this thread, for undo

    # ---- messages ------------------------------------------------------------------------
    def turn(self, text: str) -> Turn:
        reading = parse(text, self.resolver, current=self.workload, them=self._them(text))
        if reading.intent == "undo":
            if self.distill_history:
                return self._distill_undo(reading)
            self.distill = None  # undoing the distillation itself: back to what the thread was before it
            return self.undo(reading)
        storage = self._storage(reading, text)
        if storage is not None:  # answered from the catalog (engine.checkpoints); the thread's scenario is kept
            return Turn(workload=self.workload, changed={}, questions=tuple(self.pending), intent="storage",
                        message="", notes=reading.notes, reading=reading, storage=storage)
        distilled = self._distill_turn(reading, text)
        if distilled is not None:  # the two stages again, changed by this message (parser.distill)
            return distilled
        updates = dict(reading.updates)
        notes = list(reading.notes)
        answered = self._answer_pending(reading, updates, notes)
        if answered and reading.intent == "gibberish":  # "full", which the grammar reads as nothing, answered the method
            reading = reading.model_copy(update={"intent": "answer"})
        if (self.workload.data_location == "onprem" and "data_location" not in updates
                and _RENT.search(reading.text or text.lower())):
            # "rent instead", "what if we rent a cloud GPU?" after "my own": back to a rental of the same GPUs
            updates["data_location"] = None
            notes.append("priced as a rental again, not as your own GPUs")
            if reading.intent in ("help", "gibberish"):
                reading = reading.model_copy(update={"intent": "refine"})
        period = next((n for n in notes if _BUDGET_NEEDS_PERIOD.search(n)), None)
        if period is not None and self.workload.budget_usd_per_month is not None and "budget_usd_per_month" not in updates:
            # "$5k a month, what can we serve?" then "what about $10k?": the thread's budget is monthly, so is this one
            value = float(_BUDGET_NEEDS_PERIOD.search(period).group(1).replace(",", ""))  # type: ignore[union-attr]
            updates["budget_usd_per_month"] = value
            notes = [n for n in notes if n is not period] + [f"read ${value:,.0f} as a month, as the thread's budget"]
            if reading.intent in ("help", "gibberish", "answer", "describe"):
                reading = reading.model_copy(update={"intent": "refine"})
        if self.workload.gpu or updates.get("gpu"):  # "we own them": the thread's GPUs, already named
            notes = [n for n in notes if n != OWN_HARDWARE_NOTE]
        owned_gpu = self.workload.gpu if self.workload.data_location == "onprem" else None
        if (owned_gpu and updates.get("gpu") and updates["gpu"] != owned_gpu and "data_location" not in updates
                and (self.workload.gpu_count or self.workload.nodes)):
            # "we own 256 H100s" then "what if we use B200s instead?": they own H100s, so the B200s are rented
            updates["data_location"] = None
            notes.append(f"priced as a rental: the GPUs you own are {_gpu_words(owned_gpu)}; say “we own them” if these "
                         "are yours too")
        # "double the users": a multiple of the thread's load (a message that says its own load is not one)
        scaled = scaled_load(reading.text or text.lower(), self.workload) if (
            _said_anything(self.workload) and not LOAD_FIELDS & set(updates)) else None
        if scaled is not None:
            updates.update(scaled[0])
            notes.append(scaled[1])
            if scaled[0] and reading.intent in ("help", "gibberish", "answer"):
                reading = reading.model_copy(update={"intent": "refine"})
        # "double the context": a multiple of the thread's context (and prompt)
        context = scaled_context(reading.text or text.lower(), self.workload) if (
            _said_anything(self.workload) and not {"seq_len", "input_tokens"} & set(updates)) else None
        if context is not None:
            updates.update(context[0])
            notes.append(context[1])
            if reading.intent in ("help", "gibberish", "answer"):
                reading = reading.model_copy(update={"intent": "refine"})
        # "what about 2 s?", "make it 50k": a new value for the one target the thread set
        target = retargeted(reading.text or text.lower(), self.workload, self.cues) if (
            _said_anything(self.workload) and not updates and not answered) else None
        if target is not None:
            updates.update(target[0])
            notes.append(target[1])
            if target[0] and reading.intent in ("help", "gibberish", "answer", "describe"):
                reading = reading.model_copy(update={"intent": "refine"})
        capacity = capacity_asked(reading.text or text)
        if capacity and _said_anything(self.workload) and reading.intent in ("help", "gibberish", "answer"):
            reading = reading.model_copy(update={"intent": "refine"})  # "how many users can that serve?"
        owning = read_owning(reading.text or text)
        owning_refined = _read_owning(owning, self.cues, self.workload, updates, notes, self.resolver,
                                      reading.text or text.lower())
        if owning_refined and reading.intent in ("help", "gibberish", "answer"):
            reading = reading.model_copy(update={"intent": "refine" if _said_anything(self.workload) else "describe"})
        reserve = read_reserve(reading.text or text.lower(), weekly_hours=updates.get("service_hours_per_week"))
        reserve_refined = _read_reserve(reserve, self.cues, self.workload, updates)
        if reserve_refined and reading.intent in ("help", "gibberish", "answer"):
            reading = reading.model_copy(update={"intent": "refine" if _said_anything(self.workload) else "describe"})
        if reading.api is not None and reading.intent in ("help", "gibberish", "answer"):
            # "vs claude haiku?": the thread's plan, compared; "how much is claude sonnet?": the API's prices
            said = _said_anything(self.workload)
            if said or reading.intent != "answer":
                reading = reading.model_copy(update={"intent": "refine" if said else "describe"})
        nothing_said = (not updates and not reading.conflicts and not reading.unknown_names and not capacity
                        and not owning_refined and not reserve_refined and reading.api is None)
        unanswered = reading.intent in ("help", "gibberish") or (reading.intent == "answer" and not answered)
        if nothing_said and unanswered:
            return self._help(reading, notes)
        if reading.intent == "prices":  # "how much is an H100 on AWS?": answered from the catalog, scenario kept
            return Turn(workload=self.workload, changed={}, questions=tuple(self.pending), intent="prices",
                        message="", notes=tuple(notes), unknown_names=reading.unknown_names, reading=reading)
        self.cues |= set(reading.cues) & {"train", "finetune", "adapt"}

        fresh = self._starts_new_scenario(reading, updates)
        if fresh or "deadline_hours" in updates:  # "no deadline" lasts until a deadline is said or a new question asked
            self.cues.discard(NO_DEADLINE_CUE)
        self.cues |= set(reading.cues) & {NO_DEADLINE_CUE}
        if fresh:  # "our slurm cluster" lasts until a new question: the GPU type answered is theirs too
            self.cues.discard(OWN_CLUSTER_CUE)
        self.cues |= set(reading.cues) & {OWN_CLUSTER_CUE}
        if fresh or ({"target_ttft_s", "target_tokens_per_s_per_user"} & set(reading.updates)
                     and END_TO_END_CUE not in reading.cues):  # a target said outright is no longer a latency's split
            self.cues.discard(END_TO_END_CUE)
        self.cues |= set(reading.cues) & {END_TO_END_CUE}
        if capacity or fresh or LOAD_FIELDS & set(updates):  # a load said, or a new question, ends a capacity thread
            self.cues -= {CAPACITY_CUE, RATE_CUE}
        if capacity:
            self.cues |= {CAPACITY_CUE, RATE_CUE} if request_rate_asked(reading.text or text) else {CAPACITY_CUE}
        if fresh or "gpu" in updates:  # a GPU said, or a new question, ends a comparison of two GPUs
            self.cues = {c for c in self.cues if not c.startswith(VERSUS_CUE)}
        if len(reading.compared) >= 2:  # "H100 vs H200 vs B200": the others, as said (`VERSUS_SEP` between)
            self.cues.add(VERSUS_CUE + VERSUS_SEP.join(reading.compared[1:]))
        self.cues = with_owning(self.cues, owning, fresh=fresh)
        self.cues = with_reserve(self.cues, reserve, fresh=fresh)
        self.cues = api_cues(self.cues, reading.api, fresh=fresh)
        before = self.workload
        base = Workload() if fresh else before
        self._checkpoint_format(reading, updates, notes, base, fresh)
        updates = with_catalog_size(self.resolver, base, _consistent(base, updates, notes))
        self._offer = None if fresh else _method_switch(base, updates)
        after = _validated(base, updates, notes)
        changed = {
            name: (getattr(before, name), getattr(after, name))
            for name in Workload.model_fields
            if getattr(before, name) != getattr(after, name)
        }
        if changed:
            self.history = (self.history + [before])[-HISTORY_LIMIT:]
            self.workload = after
        if fresh:
            self.asked.clear()

        intent: Intent = reading.intent
        if answered and intent in ("answer", "describe") and not fresh:
            intent = "answer"
        elif intent == "describe" and _said_anything(before) and not fresh:
            intent = "refine"
        questions = self._questions(reading)
        message = _message(intent, changed, after, reading, notes, questions, fresh, before)
        return Turn(
            workload=after, changed=changed, questions=tuple(questions), conflicts=reading.conflicts, intent=intent,
            message=message, notes=tuple(notes), unknown_names=reading.unknown_names,
            assumptions=tuple(stated_assumptions(after)), reading=reading,
        )

    def _them(self, text: str = "") -> str | None:
        """What "N of them" counts in this thread: "users" when the open question asks how many are at once, or the
        thread serves users with no GPU count said; "unclear" when it serves users on a said GPU count (asked);
        "files" while the thread is on a storage question ("store 10 of them on S3" after a checkpoint's size: 10
        checkpoints, once read as 10 GPUs); None (GPUs) otherwise, as "how long on 16 of them?" after a training plan
        means."""
        if self.storage is not None or _CHECKPOINTS_SAID.search(text):
            # "and the checkpoints, how much storage for 10 of them" after a training plan: files, not GPUs
            return "files"
        if any(q.field == "concurrency" for q in self.pending):
            return "users"
        w = self.workload
        if w.mode != "inference" or w.concurrency is None:
            return None
        return "users" if w.gpu_count is None else "unclear"

    def undo(self, reading: Reading | None = None) -> Turn:
        """Go back one change. Questions are recomputed for the restored scenario."""
        if not self.history:
            return Turn(workload=self.workload, changed={}, intent="undo", message="Nothing to undo yet.", reading=reading)
        before, self.workload = self.workload, self.history.pop()
        changed = {
            name: (getattr(before, name), getattr(self.workload, name))
            for name in Workload.model_fields
            if getattr(before, name) != getattr(self.workload, name)
        }
        questions = self._questions(None)
        lines = ["Undone: " + _changes(changed) + "."] + [f"❓ {q.text}" for q in questions]
        return Turn(workload=self.workload, changed=changed, questions=tuple(questions), intent="undo",
                    message="\n".join(lines), reading=reading)

    def _storage(self, reading: Reading, text: str) -> StorageAsk | None:
        """The storage question this message asks (parser.storage), or the thread's last one changed by it ("keep 3
        checkpoints", "on GCS"); kept for the next reply. A message that asks anything else ends it."""
        ask = reading.storage if reading.intent == "storage" else None
        if ask is None and reading.intent not in ("undo", "prices", "vram", "help"):
            said = reading.text or text.lower()
            if self.storage is not None:
                ask = storage_follow_up(said, reading.updates, self.storage)
            elif not {"model", "params_b"} & set(reading.updates) and (self.workload.model or self.workload.params_b):
                # "and how big is its checkpoint?" after a plan: the thread's model and method
                thread = {k: v for k in _STORAGE_THREAD_FIELDS if (v := getattr(self.workload, k)) is not None}
                ask = storage_question(said, {**thread, **reading.updates}, reading.cues)
        self.storage = ask
        return ask

    # ---- distillation --------------------------------------------------------------------
    def _distill_turn(self, reading: Reading, text: str) -> Turn | None:
        """A distillation said (a new one), or the thread's changed by a follow-up ("what about 4B tokens?", "try
        H100s", "use spot", "LoRA for the student", "2 epochs"): its kind is kept, so the answer is the two stages
        again, not the one job the thread's workload reads as (a fine-tune of the teacher). None when the message asks
        something else; the thread then leaves the distillation, its workload the student's fine-tune."""
        before = self.distill
        notes = list(reading.notes)
        read: list[str] = []
        if reading.distill is not None:
            ask: DistillAsk = reading.distill
            self.distill_history = []
            before = None
        elif before is not None and reading.intent not in ("prices", "vram", "help", "gibberish"):
            found = distill_follow_up(reading.text or text.lower(), dict(reading.updates), before, bare=reading.bare,
                                      conflicts=reading.conflicts, tokens_asked=before.tokens is None)
            if found is None:
                self.distill, self.distill_history = None, []
                return None
            ask, read = found
            if read:  # "reply length 2000 tokens": the teacher's replies, not a context length
                notes = [n for n in notes if "as the sequence length" not in n] + read
            self.distill_history = (self.distill_history + [before])[-HISTORY_LIMIT:]
        else:
            return None
        self.distill = ask
        workload = _student_workload(ask)
        changed = {name: (getattr(self.workload, name), getattr(workload, name)) for name in Workload.model_fields
                   if getattr(self.workload, name) != getattr(workload, name)}
        if changed or before is not None:  # a follow-up always: its undo pops one workload with one distillation
            self.history = (self.history + [self.workload])[-HISTORY_LIMIT:]
            self.workload = workload
        self.pending = []
        intent: Intent = "describe" if before is None else "refine"
        return Turn(workload=self.workload, changed=changed, intent=intent, message="", notes=tuple(notes),
                    unknown_names=tuple(p for p in reading.unknown_names if not _STAGE_WORD.search(p.message)),
                    reading=reading, distill=ask, distill_before=before, distill_notes=tuple(read))

    def _distill_undo(self, reading: Reading) -> Turn:
        """"undo" in a distillation thread: the previous version of the distillation, answered as two stages."""
        before, self.distill = self.distill, self.distill_history.pop()
        if self.history:
            self.workload = self.history.pop()
        return Turn(workload=self.workload, changed={}, intent="undo", message="", reading=reading,
                    distill=self.distill, distill_before=before)

    # ---- storage -------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able state for the bot's thread store."""
        state = {
            "workload": self.workload.model_dump(mode="json", exclude_none=True),
            "history": [w.model_dump(mode="json", exclude_none=True) for w in self.history],
            "pending": [q.model_dump() for q in self.pending],
            "asked": sorted(self.asked),
            "cues": sorted(self.cues),
        }
        if self.storage is not None:  # only while the thread is on a storage question: older states stay as they were
            state["storage"] = self.storage.model_dump(mode="json", exclude_none=True)
        if self.distill is not None:  # only while the thread is on a distillation, as for storage
            state["distill"] = self.distill.model_dump(mode="json", exclude_none=True)
            state["distill_history"] = [a.model_dump(mode="json", exclude_none=True) for a in self.distill_history]
        return state

    @classmethod
    def from_dict(cls, data: dict[str, Any], resolver: NameResolver | None = None) -> Conversation:
        workload = dict(data.get("workload") or {})
        if data.get("gpu_memory_gb") and "gpu_memory_gb" not in workload:  # stored before it was a Workload field
            workload["gpu_memory_gb"] = data["gpu_memory_gb"]
        conversation = cls(resolver, Workload.model_validate(workload))
        conversation.history = [Workload.model_validate(w) for w in data.get("history", [])]
        conversation.pending = [Question.model_validate(q) for q in data.get("pending", [])]
        conversation.asked = set(data.get("asked", []))
        conversation.cues = set(data.get("cues", []))
        if data.get("storage"):
            with contextlib.suppress(ValidationError):  # a state stored by another version: the question is dropped
                conversation.storage = StorageAsk.model_validate(data["storage"])
        if data.get("distill"):
            with contextlib.suppress(ValidationError):  # as for storage: a state stored by another version is dropped
                conversation.distill = DistillAsk.model_validate(data["distill"])
                conversation.distill_history = [DistillAsk.model_validate(a) for a in data.get("distill_history", [])]
        return conversation

    # ---- helpers -------------------------------------------------------------------------
    def _checkpoint_format(self, reading: Reading, updates: dict[str, Any], notes: list[str], base: Workload,
                           fresh: bool) -> None:
        """A precision taken from a checkpoint's name ("…-FP8") belongs to that checkpoint: another model named
        later in the thread is served in its own format again, while a precision the user said stays."""
        if IMPLIED_CUE in reading.cues:
            self.cues.add(IMPLIED_CUE)
            return
        if IMPLIED_CUE not in self.cues:
            return
        if fresh or "precision" in updates:
            self.cues.discard(IMPLIED_CUE)
        elif "model" in updates and base.precision is not None:
            updates["precision"] = None
            notes.append(f"{base.precision.upper()} was the previous checkpoint's format, not a choice for the new model: "
                         "its weights are planned afresh")
            self.cues.discard(IMPLIED_CUE)

    def _answer_pending(self, reading: Reading, updates: dict[str, Any], notes: list[str]) -> bool:
        """Let bare values ("3", "1B", "yes") fill the open questions, in the order asked."""
        bare = list(reading.bare)
        answered = False
        for question in self.pending:
            name = question.field
            if question.why.startswith(SWITCH):  # "yes" applies the proposed switch, "no" leaves it
                reply = next((v for v in bare if isinstance(v, bool)), None)
                if reply is not None:
                    bare.remove(reply)
                    if reply:
                        updates.update(_switch_updates(question.why))
                    answered = True
                continue
            if name == "mode" and "mode" not in updates and _FULL_ANSWER.fullmatch(reading.text or ""):
                # "QLoRA, LoRA or a full fine-tune?" answered "full": the grammar reads "full" alone as nothing
                updates["mode"] = "full"
                answered = True
                continue
            if name == "dataset_tokens" and self._per_example(reading, bare, updates, notes):
                answered = True
                continue
            if name in updates:
                answered = True
                continue
            value = _bare_answer(name, bare, notes)
            if value is None:
                continue
            if name == "dataset_tokens" and "params_b" in updates and not self._asked_model_too():
                del updates["params_b"]  # "1B" answered the tokens question, it is not a model size
            updates[name] = value
            answered = True
        return answered

    def _per_example(self, reading: Reading, bare: list[Any], updates: dict[str, Any], notes: list[str]) -> bool:
        """The length of an example, asked when only their count is known: "300", "300 tokens each", "examples of
        300 tokens" are tokens per example (x the count), not 300B tokens or only a sequence length."""
        examples = self.workload.dataset_examples
        if not examples or self.workload.dataset_tokens or self.workload.dataset_gb or "dataset_tokens" in updates:
            return False
        each: float | None = None
        if "seq_len" in updates and "seq_len" in reading.updates:  # "examples of 300 tokens", "300 tokens each"
            each = float(updates["seq_len"])
        else:
            plain = next((v for v in bare if isinstance(v, float) and not isinstance(v, bool) and 1 <= v < 100_000), None)
            if plain is not None:
                bare.remove(plain)
                each = plain
        if each is None:
            return False
        sequences = sequences_per_example(updates.get("objective", self.workload.objective))
        updates["dataset_tokens"] = int(examples * sequences * each)
        notes.append(f"{examples:,} pairs × 2 sequences (chosen and rejected) × {each:,.0f} tokens = "
                     f"{examples * sequences * each:,.0f} tokens per epoch" if sequences > 1 else
                     f"{examples:,} examples × {each:,.0f} tokens = {examples * each:,.0f} tokens per epoch")
        return True

    def _asked_model_too(self) -> bool:
        return any(q.field == "model" for q in self.pending)

    def _starts_new_scenario(self, reading: Reading, updates: dict[str, Any]) -> bool:
        """A full new description (mode and model, no follow-up wording) replaces the scenario."""
        return (
            _said_anything(self.workload)
            and reading.intent == "describe"
            and ("mode" in updates or "intent" in updates)
            and ("model" in updates or "params_b" in updates)
            and "refine" not in reading.cues
            and (("mode" in updates and updates["mode"] != self.workload.mode)
                 or ("intent" in updates and updates["intent"] != self.workload.intent))
        )

    def _model_record(self) -> object | None:
        """The thread's model's catalog record, read through the resolver's catalog when it has one; None for no
        model, or a resolver without a catalog behind it."""
        data = getattr(self.resolver, "data", None)
        if not self.workload.model or not callable(data):
            return None
        try:
            return data().model(self.workload.model)
        except Exception:  # a resolver without a catalog behind it
            return None

    def _reply_tokens(self) -> int:
        """The reply length the engine sizes this model's load at when none is said: a reasoning model's
        (its record's `reasoning`) or anyone's."""
        record = self._model_record()
        return DEFAULT_REASONING_OUTPUT_TOKENS if getattr(record, "reasoning", False) else DEFAULT_OUTPUT_TOKENS

    def _images_asked(self) -> bool:
        """A vision-language model served for images by default (its record's `images_by_default`): the images in
        each request are asked while unsaid (one is assumed meanwhile)."""
        record = self._model_record()
        return bool(getattr(record, "vision", False) and getattr(record, "images_by_default", False))

    def _questions(self, reading: Reading | None) -> list[Question]:
        asked = [Question(field=c.field, text=c.message, why="two different values in one message") for c in
                 (reading.conflicts if reading else ())]
        if self._offer is not None:
            asked.insert(0, self._offer)
            self._offer = None
        seen = {q.field for q in asked}
        asked += [q for q in questions_for(self.workload, reading, asked=self.asked, cues=self.cues,
                                           reply_tokens=self._reply_tokens(), images_asked=self._images_asked())
                  if q.field not in seen]
        asked = asked[:MAX_QUESTIONS]
        self.pending = asked
        self.asked |= {q.field for q in asked}
        return asked

    def _help(self, reading: Reading, notes: list[str]) -> Turn:
        lead = "I'm not sure what that refers to. " if reading.intent == "answer" else ""
        intent: Intent = reading.intent
        if intent == "answer" and _said_anything(self.workload):
            # a number no open question takes ("how long on 16 of them?" had none open): said so, the scenario kept,
            # never the previous answer again as if it were applied
            intent = "gibberish"
            number = next((_bare_text(v) for v in reading.bare if not isinstance(v, bool)), None)
            if number is not None and not any(n.startswith((f"“{number} of ", f"“{number}”")) for n in notes):
                # "20 of them", "make it 50k" in a thread of two targets: asked already
                notes = [*notes, f"I couldn't tell what “{number}” is for; say what it counts (e.g. “{number} GPUs”, "
                                 f"“{number} concurrent users”, “{number} runs a month”)"]
        return Turn(workload=self.workload, changed={}, questions=tuple(self.pending), intent=intent,
                    message=lead + HELP_TEXT, notes=tuple(notes), reading=reading)


# an unknown name a distillation's follow-up says for a stage ("lora student"): the stage, not a model
_STAGE_WORD = re.compile(r"“(?:student|teacher|generation|sft)”")


def _student_workload(ask: DistillAsk) -> Workload:
    """The thread's workload for a distillation: the student's fine-tune on the teacher's tokens (the job that trains;
    the teacher only generates), as `ask --json` reports it and as a later "serve it" reads the thread."""
    return Workload(mode=ask.student_mode, model=ask.student,
                    params_b=ask.student_params_b if ask.student is None else None,
                    dataset_tokens=int(ask.tokens) if ask.tokens else None, epochs=ask.epochs,
                    **ask.sft.settings())


def _gpu_words(gpu_id: str) -> str:
    """A catalog GPU id as words for a note ("h100-sxm" -> "H100 SXM"): the parser has ids, not display names."""
    return gpu_id.replace("-", " ").upper()


def _bare_text(value: Any) -> str:
    """A bare value as said: 16.0 -> '16', ('qty', 2e9) -> '2B'."""
    if isinstance(value, tuple):
        number = float(value[1])
        for scale, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "k")):
            if number >= scale:
                return f"{number / scale:g}{suffix}"
        return f"{number:g}"
    return f"{value:g}" if isinstance(value, float) else str(value)


def _bare_answer(name: str, bare: list[Any], notes: list[str]) -> Any:
    """Take the first bare value that fits the question's field (and consume it)."""
    for index, value in enumerate(bare):
        if name == "dataset_tokens" and isinstance(value, tuple):
            bare.pop(index)
            return int(value[1])
        if name == "dataset_tokens" and isinstance(value, float) and not isinstance(value, bool):
            bare.pop(index)
            if value < 10_000:
                notes.append(f"read {value:g} as {value:g}B tokens")
                return int(value * 1e9)
            return int(value)
        if name in _INT_ANSWERS | _FLOAT_ANSWERS and isinstance(value, float) and not isinstance(value, bool):
            bare.pop(index)
            return int(value) if name in _INT_ANSWERS else value
        if name == "cache_dataset" and isinstance(value, bool):
            bare.pop(index)
            return value
    return None


def _consistent(base: Workload, updates: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    """Clear what a change makes stale: a new model replaces a bare size, a new corpus its token count."""
    updates = dict(updates)
    if "model" in updates and "params_b" not in updates and base.params_b is not None:
        updates["params_b"] = None
    if "params_b" in updates and "model" not in updates and base.model is not None:
        updates["model"] = None
    if "dataset_gb" in updates and "dataset_tokens" not in updates and base.dataset_tokens is not None:
        updates["dataset_tokens"] = None
        notes.append("cleared the token count: it was for the previous corpus")
    # a GPU count said alone replaces the thread's node count ("how long on 64 of them?" after 4 nodes of 8 kept 4 nodes:
    # 16 GPUs a node), and a node count said alone keeps the GPUs per node (2 nodes of 8 after 64 GPUs: 16 GPUs)
    if "gpu_count" in updates and "nodes" not in updates and base.nodes is not None:
        updates["nodes"] = None
    if "nodes" in updates and "gpu_count" not in updates and base.gpu_count is not None and updates["nodes"]:
        per_node = base.gpu_count // base.nodes if base.nodes and base.gpu_count % base.nodes == 0 else None
        updates["gpu_count"] = int(updates["nodes"]) * per_node if per_node else None
        if per_node:
            notes.append(f"{int(updates['nodes'])} nodes of {per_node}: {updates['gpu_count']} GPUs")
    if "dataset_gb" in updates and "dataset_compressed" not in updates and base.dataset_compressed:
        updates["dataset_compressed"] = None  # the new size is read as said: compressed only if said so again
    if "dataset_examples" in updates and "dataset_tokens" not in updates and base.dataset_tokens is not None:
        updates["dataset_tokens"] = None
        notes.append("cleared the token count: it was for the previous dataset")
    if "load_tokens_per_s" in updates and "requests_per_s" not in updates and base.requests_per_s is not None:
        updates["requests_per_s"] = None  # "make it 1B tokens a day": the new load replaces the request rate
        if base.target_tokens_per_s is not None and "target_tokens_per_s" not in updates:
            updates["target_tokens_per_s"] = None
    if "requests_per_s" in updates and "load_tokens_per_s" not in updates and base.load_tokens_per_s is not None:
        updates["load_tokens_per_s"] = updates["load_period"] = None  # and a request rate replaces a token load
    if ((updates.get("gpu") or updates.get("provider") or "gpu_count" in updates) and "instance_type" not in updates
            and base.instance_type is not None):
        updates["instance_type"] = None  # another GPU, provider or count than the machine named earlier
    if updates.get("gpu") and "gpu_memory_gb" not in updates and base.gpu_memory_gb is not None:
        updates["gpu_memory_gb"] = None  # a named GPU replaces "a 24GB card"
    if updates.get("gpu_memory_gb") and "gpu" not in updates and base.gpu is not None:
        updates["gpu"] = None  # and "a 48GB card" replaces a named GPU
    if updates.get("intent") == "train" and "mode" not in updates and base.mode == "inference":
        updates["mode"] = None  # "fine-tune it" in a serving thread: training, the method is asked
    _rederive_aggregate(base, updates, notes)
    return updates


def _rederive_aggregate(base: Workload, updates: dict[str, Any], notes: list[str]) -> None:
    """The aggregate tokens/s the parser derives from requests/s x output tokens, when the two come in
    different messages ("at 200 rps", then "300 output tokens each") or one of them changes ("make it 500
    output tokens"); an aggregate the user gave outright is left alone."""
    if "target_tokens_per_s" in updates or not ({"requests_per_s", "output_tokens"} & set(updates)):
        return
    if base.target_tokens_per_s is not None:  # derived before, or said outright (then it is left alone)
        if not (base.requests_per_s and base.output_tokens):
            return
        if abs(base.target_tokens_per_s - base.requests_per_s * base.output_tokens) > 1e-6 * base.target_tokens_per_s:
            return
    rate = updates.get("requests_per_s", base.requests_per_s)
    output_tokens = updates.get("output_tokens", base.output_tokens)
    if rate and output_tokens:
        updates["target_tokens_per_s"] = round(rate * output_tokens, 6)
        notes.append(f"{rate:g} requests/s × {output_tokens} output tokens = {rate * output_tokens:g} tokens/s")


def _method_switch(base: Workload, updates: dict[str, Any]) -> Question | None:
    """A precision that contradicts the training method (int8 on QLoRA, 4-bit on LoRA) is not applied
    silently: it is taken out of `updates` and the switch that would honour it is asked instead."""
    precision = updates.get("precision")
    mode = updates.get("mode", base.mode)
    if precision is None or "mode" in updates:
        return None
    if mode == "qlora" and precision not in FOUR_BIT:
        del updates["precision"]
        return Question(field="mode", why=f"{SWITCH} mode=lora precision={precision}",
                        text=f"QLoRA keeps the base in 4-bit; {precision} would be LoRA on an {_bits(precision)} base: "
                             f"switch? (yes / no)" if _bits(precision).startswith("8") else
                        f"QLoRA keeps the base in 4-bit; {precision} would be LoRA on a {_bits(precision)} base: "
                        f"switch? (yes / no)")
    if mode in ("lora", "full") and precision in FOUR_BIT:
        del updates["precision"]
        return Question(field="mode", why=f"{SWITCH} mode=qlora precision=nf4",
                        text=f"A 4-bit base is QLoRA (LoRA adapters on a frozen 4-bit base); "
                             f"{'LoRA' if mode == 'lora' else 'a full fine-tune'} keeps it in "
                             f"{_bits(base.precision or 'bf16')}: switch to QLoRA? (yes / no)")
    return None


def _bits(precision: str) -> str:
    return {"int8": "8-bit", "fp8": "8-bit", "bf16": "16-bit", "fp16": "16-bit", "fp32": "32-bit"}.get(precision,
                                                                                                       precision)


def _switch_updates(why: str) -> dict[str, Any]:
    """"switch: mode=lora precision=int8" -> {"mode": "lora", "precision": "int8"}."""
    pairs = (item.split("=", 1) for item in why.removeprefix(SWITCH).split())
    return {key: value for key, value in pairs}


def _validated(base: Workload, updates: dict[str, Any], notes: list[str]) -> Workload:
    """Apply updates; a value the Workload rejects is dropped with a note, never raised."""
    updates = dict(updates)
    for _ in range(len(updates) + 1):
        try:
            return Workload.model_validate({**base.model_dump(), **updates})
        except ValidationError as error:
            bad = {str(e["loc"][0]) for e in error.errors() if e["loc"]}
            if not bad & set(updates):
                break
            for name in bad & set(updates):
                notes.append(f"ignored {name.replace('_', ' ')} = {updates.pop(name)!r}: not a value I can use")
    return base


def _said_anything(workload: Workload) -> bool:
    """Whether any field is set. Read off the fields, not a `model_dump()`: a turn asks this up to three
    times, and dumping the whole workload each time cost ~15 us (a set nested model is not None either way)."""
    return any(getattr(workload, name) is not None for name in Workload.model_fields)


_LABELS = {"params_b": "params (B)", "dataset_gb": "data (GB)", "dataset_tokens": "tokens/epoch",
           "runs_per_month": "runs/month", "hourly_rate": "$/GPU-hour", "seq_len": "context", "gpu_count": "GPUs",
           "cache_dataset": "cache data", "mfu": "MFU", "zero_stage": "ZeRO stage",
           "gpu_memory_gb": "GPU memory (GB)", "deadline_hours": "max hours per run",
           "target_tokens_per_s": "target tokens/s", "output_tokens": "output tokens/request",
           "input_tokens": "prompt tokens/request", "requests_per_s": "requests/s",
           "target_tokens_per_s_per_user": "tokens/s per user", "target_ttft_s": "time to first token (s)",
           "ttft_percentile": "first-token percentile",
           "service_hours_per_week": "hours a week", "service_schedule": "schedule",
           "prefix_cache_hit": "prefix-cache hits", "agentic": "agent calls", "think_time_s": "pause between turns (s)",
           "inter_node_gbps": "network between nodes (Gb/s)", "inter_node_link": "network kind"}


def _label(name: str) -> str:
    return _LABELS.get(name, name.replace("_", " "))


def _show(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, float) and value.is_integer():
        return f"{value:g}"
    if isinstance(value, int) and not isinstance(value, bool) and value >= 1_000_000:
        return f"{value:,}"
    return str(value)


def _changes(changed: dict[str, tuple[Any, Any]]) -> str:
    return "; ".join(f"{_label(k)} {_show(old)} → {_show(new)}" for k, (old, new) in changed.items()) or "nothing"


def _message(intent: str, changed: dict[str, tuple[Any, Any]], after: Workload, reading: Reading, notes: list[str],
             questions: list[Question], fresh: bool, before: Workload) -> str:
    """A plain-text summary; the bot renders the engine's answer around it."""
    lines: list[str] = []
    if fresh:
        lines.append("New scenario: " + _summary(after) + ".")
    elif intent == "refine" and changed:
        lines.append("Changed: " + _changes(changed) + ".")
    elif intent == "answer" and changed:
        lines.append("Thanks — " + _changes(changed) + ".")
    elif changed and not _said_anything(before):
        lines.append("Got it: " + _summary(after) + ".")
    elif changed:
        lines.append("Changed: " + _changes(changed) + ".")
    elif intent == "refine" and not reading.conflicts:
        lines.append("Nothing changed: that is already the scenario.")
    lines += [f"Note: {n}" for n in notes]
    lines += [f"⚠️ {p.message}" for p in reading.unknown_names]
    said = stated_assumptions(after) if changed else []
    if said:
        lines.append("Assuming: " + "; ".join(said) + ".")
    lines += [f"❓ {q.text}" for q in questions]
    return "\n".join(lines) or "Noted."


def _summary(w: Workload) -> str:
    data = w.model_dump(exclude_none=True)
    return ", ".join(f"{_label(k)} {_show(v)}" for k, v in data.items()) or "nothing yet"


_RUN_NAME = re.compile(r"\b(?:run|running) (?:a |an |the )?([a-z][\w.-]{2,})\b")


def _read_reserve(said: ReserveSaid, cues: set[str], before: Workload, updates: dict[str, Any]) -> bool:
    """What parser.reserve read, applied to this message's updates: in a thread asking it with no model, "at 40%
    utilisation" is the GPUs' use, not model FLOPs utilisation (parser.reserve.reserve_reading drops both in the
    message that asks). True when the message asks the question or says its use or term in a thread that asks it ("3 year term", which
    the grammar reads as nothing)."""
    if not (said.asked or RESERVE_CUE in cues):
        return False
    if any(updates.get(k) or getattr(before, k) for k in ("model", "params_b")):
        return False
    if "busy" in said.settings and "service_hours_per_week" not in updates:
        updates.pop("mfu", None)
    return said.asked or bool(said.settings)


def _read_owning(said: OwningSaid, cues: set[str], before: Workload, updates: dict[str, Any], notes: list[str],
                 resolver: NameResolver | None = None, text: str = "") -> bool:
    """What parser.owning read, applied to this message's updates: a local question is inference (the mode is not
    asked); "DGX H100" is 8 GPUs; the memory said beside a card the catalog lacks ("laptop 4070 8GB") is the card's,
    not training data; and in a buy-or-rent thread with no model, "at 50% utilisation" is the servers' use (not model
    FLOPs utilisation) and "$0.08/kWh" the power price. True when the message refines a buy-or-rent question, or names
    the model of a local question only by a bare word after "run" ("run mixtral locally", which the grammar reads as
    nothing)."""
    named = False
    if said.local and resolver is not None and not any(updates.get(k) or getattr(before, k) for k in ("model", "params_b")):
        # "which GPU should I buy to run mixtral locally": a bare model name after "run" (after "serve" the grammar
        # reads it), when the catalog knows it
        found = _RUN_NAME.search(text)
        resolved = resolver.resolve_model(found.group(1)) if found else None
        if resolved is not None and resolved.id:
            updates["model"] = resolved.id
            if resolved.message:
                notes.append(resolved.message)
            named = True
    model_said = any(updates.get(k) or getattr(before, k) for k in ("model", "params_b"))
    if said.local and updates.get("mode") is None and before.mode is None and model_said:
        updates["mode"] = "inference"
    if said.card is not None and said.card[1] is not None and updates.get("dataset_gb") == said.card[1]:
        del updates["dataset_gb"]
        notes.append(f"read “{said.card[1]:g}GB” as the {said.card[0]}'s memory, not training data")
    if said.eight_gpu_server and updates.get("gpu") and "gpu_count" not in updates:
        updates["gpu_count"] = 8
        notes.append("a DGX or HGX server holds 8 GPUs: planned as 8")
    buying = said.buy_or_rent or BUY_RENT_CUE in cues
    if not (buying and said.settings and not model_said):
        return named
    if "utilisation" in said.settings:
        updates.pop("mfu", None)  # the servers' share of time busy, not the training's FLOPs utilisation
    if "usd_per_kwh" in said.settings:
        notes[:] = [n for n in notes if "electricity price" not in n]
    return True
