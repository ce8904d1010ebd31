"""A team's own cluster with no GPU named, a fixed window on a fixed fleet, and "train a 7B" on hundreds of GPUs.

Why its own module: each is read from the message's words after the grammar (as a latency waived or a vendor is), and
each changed an answer a team would act on:
- "how many GPUs on our Slurm cluster to train 7B on 2T tokens in 30 days" was answered "40x B200" priced as a Nebius
  rental. "Our cluster", "our k8s cluster", "on-prem", "our own GPUs" with no GPU named are the team's own GPUs of a
  type the message does not say: the GPU type is asked first (the count moves 2.4-7x with it) and meanwhile the answer
  gives the count per common type, costed as owned (`OWN_CLUSTER_CUE`; the thread keeps it until a new question).
- "train a 7B on 500 A100s for 2 hours": a time the GPUs are held is the run's deadline, and with the fleet fixed and
  no data said the answer is what the fleet trains in it (engine.fleet_window), not a question back for a token count.
- "train a 7B model" (no "fine-tune", no adapter words, no released model named) on 64 GPUs or more is pre-training:
  a LoRA or a full fine-tune of a 7B fits one node; 8 nodes and up is a pre-training fleet.
"""

from __future__ import annotations

import re

from engine.models import TRAINING_MODES

from .hardware import OWN_HARDWARE_NOTE
from .reading import Reading

OWN_CLUSTER_CUE = "own_cluster"  # a thread's cue (`Conversation.cues`): its GPUs are the team's own, type unsaid
PRETRAIN_FLEET_GPUS = 64  # "train a 7B" on this many GPUs or more reads as pre-training (8 nodes of 8)

_OWN_CLUSTER = re.compile(
    r"\b(?:my|our)(?: own)?(?: (?:slurm|k8s|kubernetes|hpc|gpu|training|internal|on-?prem|in-?house|compute|research|"
    r"local|private|ml|ai|existing|company))* (?:cluster|clusters|gpus|gpu fleet|fleet|hardware|nodes|servers|partition|"
    r"data ?cent(?:er|re)|dc)\b"
    r"|\bon[ -]?prem(?:ise|ises)?\b|\bin[ -]house (?:cluster|gpus|hardware)\b")
# "data on-prem", "corpus stored on premises": where the data lives, not whose GPUs run the job
_DATA_THERE = re.compile(r"\b(?:data|dataset|datasets|corpus|files|stored|kept|lives|sits|bucket|storage|nas)\b"
                         r"[\w ]{0,20}?\bon[ -]?prem")
# "for 2 hours", "for a day", "for 3 days": how long the GPUs are held ("for 2 hours a day" is a schedule)
_WINDOW = re.compile(r"\bfor (?:the next )?(\d+(?:\.\d+)?|an?|one) ?(hours?|hrs?|h|days?|weeks?)\b"
                     r"(?! ?(?:a|an|per|each|every|/) ?(?:day|week|month|night|weekday)\b| daily\b| weekly\b)")
_HOURS = {"h": 1.0, "hr": 1.0, "hrs": 1.0, "hour": 1.0, "hours": 1.0, "day": 24.0, "days": 24.0, "week": 168.0,
          "weeks": 168.0}
_FINE_TUNE_WORDS = re.compile(r"\b(?:fine[- ]?tun\w*|finetun\w*|adapt\w*|lora|qlora|peft|sft|continued|continual|"
                              r"instruct\w*|checkpoint|base model)\b")

_DATE_NOTE = "can't count hours to a date"  # parser.fold's note for "by Friday"
OWN_CLUSTER_NOTE = "“{said}”: your own GPUs, costed at their power"
WINDOW_NOTE = "“{said}”: read as the time you have the GPUs; the answer is what they train in it"
PRETRAIN_NOTE = ("“train a {size}” on {gpus:,} GPUs read as pre-training from scratch (a fine-tune of a {size} fits "
                 "one node); say “fine-tune” or “LoRA” to plan one")


def own_cluster_said(text: str) -> str | None:
    """The words that say the GPUs are the team's own ("our slurm cluster", "on-prem", "our own gpus"), or None."""
    low = (text or "").lower()
    found = _OWN_CLUSTER.search(low)
    if found is None or (found.group(0).startswith("on") and _DATA_THERE.search(low)):
        return None
    return found.group(0)


def window_hours(text: str) -> tuple[float, str] | None:
    """("for 2 hours" -> 2.0, the words said): a time the GPUs are held, or None."""
    found = _WINDOW.search((text or "").lower())
    if found is None:
        return None
    count = found.group(1)
    value = 1.0 if count in ("a", "an", "one") else float(count)
    unit = _HOURS.get(found.group(2).rstrip("."))
    if unit is None or value <= 0:
        return None
    return value * unit, found.group(0)


def with_fleet(reading: Reading, text: str, current_mode: str | None) -> Reading:
    """`reading` with the team's own cluster (a cue, and its GPUs as theirs), a window said as the deadline, and
    "train a 7B" on a pre-training fleet read as pre-training, each with a note saying the reading."""
    updates = dict(reading.updates)
    notes = list(reading.notes)
    cues = set(reading.cues)
    mode = updates.get("mode", current_mode)
    training = mode in TRAINING_MODES or updates.get("intent") == "train" or "train" in cues
    own = own_cluster_said(text) if training else None  # "host it on-prem" stays where it runs (no per-type answer)
    if own is not None and "gpu" not in updates and "provider" not in updates and "hourly_rate" not in updates:
        cues.add(OWN_CLUSTER_CUE)
        if "data_location" not in updates:
            updates["data_location"] = "onprem"
            # the type is asked and each common one costed at its power: "give the GPU and a price" is not the reading
            notes = [n for n in notes if n != OWN_HARDWARE_NOTE] + [OWN_CLUSTER_NOTE.format(said=own)]
    # only with no data said (the tokens are then the answer) and no date said ("by Friday, 8 H100s for 3 days": the
    # date is said back, as it was)
    data = {"dataset_tokens", "dataset_gb", "dataset_examples", "train_steps"} & set(updates)
    window = window_hours(text) if training and not data and not any(_DATE_NOTE in n for n in notes) else None
    if window is not None and "deadline_hours" not in updates:
        updates["deadline_hours"] = window[0]
        notes.append(WINDOW_NOTE.format(said=window[1]))
    gpus = int(updates.get("gpu_count") or 0) or 8 * int(updates.get("nodes") or 0)
    if (updates.get("mode") is None and updates.get("intent") == "train" and "train" in cues
            and not cues & {"finetune", "adapt"} and updates.get("model") is None and updates.get("params_b")
            and gpus >= PRETRAIN_FLEET_GPUS and not _FINE_TUNE_WORDS.search(text)):
        updates["mode"] = "pretrain"
        notes.append(PRETRAIN_NOTE.format(size=f"{float(updates['params_b']):g}B", gpus=gpus))
    if updates == reading.updates and cues == set(reading.cues):
        return reading
    return reading.model_copy(update={"updates": updates, "notes": tuple(notes), "cues": frozenset(cues)})
