"""Storage and data-transfer questions: "how big is a Llama 3.1 70B checkpoint?", "how much to store 10 checkpoints
of a 70B full fine-tune on S3?", "egress cost to move 2TB from S3 to Lambda".

Such a message asks for a size or a bill, not a plan: planned as a training job it came back as "Fits: full fine-tune
70B on 8x B200 … How much training data?". `storage_question` reads it as a `StorageAsk` (the fold sets the
intent "storage"); `storage_follow_up` applies a reply in the same thread ("keep 3 checkpoints", "on GCS", "for 6
months") to the last one. Nothing is computed here: `engine.checkpoints` sizes and prices it.

What is NOT a storage question: a workload with training data, runs, GPUs or users ("QLoRA 70B, 500GB corpus in S3,
20 runs" is a plan whose egress is part of its cost), and data merely said to be somewhere ("data in S3"): a storage
question names checkpoints or adapters (with a size, a place or a price asked), or a volume with a verb that keeps
or moves it and a cost asked.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

StorageQuestion = Literal["size", "storage", "transfer"]
CheckpointKind = Literal["weights", "training", "adapter"]


class StorageAsk(BaseModel):
    """What a storage or transfer question asks. None means not said: the answer assumes it and says so."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    question: StorageQuestion  # a checkpoint's size, keeping data stored, or moving it
    checkpoint: CheckpointKind | None = None  # None: a volume said in GB ("5 TB of checkpoints")
    model: str | None = None  # catalog model id
    params_b: float | None = None  # a bare size ("a 70B full fine-tune")
    mode: str | None = None  # the training method the checkpoint comes from
    precision: str | None = None
    optimizer: str | None = None
    lora_rank: int | None = None
    size_gb: float | None = None  # a volume said, decimal GB
    count: int | None = None  # checkpoints kept
    months: float | None = None  # how long they are kept
    provider: str | None = None  # where it is stored, or moved from (catalog provider id)
    destination: str | None = None  # where it is moved to (catalog provider id); None: out to the internet


# fields a storage question may set besides its own: the checkpoint's model and method, and where it lives
_CHECKPOINT_FIELDS = frozenset({"model", "params_b", "mode", "intent", "precision", "optimizer", "lora_rank",
                                "lora_targets", "data_location", "provider", "dataset_gb"})
_VOLUME_FIELDS = frozenset({"dataset_gb", "data_location", "provider"})
_TRAINING_MODES = ("full", "pretrain", "lora", "qlora")

# "checkpoint", never "gradient/activation checkpointing" (a memory technique)
_CHECKPOINT = re.compile(r"\b(?:checkpoints?|ckpts?)\b(?!ing)")
_ADAPTER = re.compile(r"\badapters?\b")
_WEIGHTS = re.compile(r"\b(?:weights|safetensors|model files?|on disk|disk space|download size)\b")
_SIZE = re.compile(r"\b(?:how (?:big|large)|sizes?|how many (?:gb|tb|gigabytes|terabytes)|disk(?: space)?|on disk|"
                   r"take up|takes up)\b")
_STORE = re.compile(r"\b(?:store|stores|storing|stored|storage|keep|keeping|kept|retain|retaining|archive|archiving|"
                    r"hold|holding|save|saving|host|hosting)\b")
_TRANSFER = re.compile(r"\b(?:egress|transfer|transferring|move|moving|download|downloading|copy|copying|migrate|"
                       r"migrating|pull (?:it |them |the data )?out|get (?:it |them |the data )?out)\b")
_COST = re.compile(r"\b(?:cost|costs|costing|how much|price|pay|bill|charge|charges|fees?|usd)\b|\$")
_RESUMABLE = re.compile(r"\b(?:resum\w*|optimi[sz]er|adam\w*|training (?:checkpoint|state)s?|full state|"
                        r"fine[- ]?tun\w*|pre[- ]?train\w*|full)\b")
_UNIT = r"(?!\s*(?:kb|mb|gb|tb|pb|gib|tib|b|months?|years?|weeks?|days?)\b)"  # "5 TB of checkpoints" is a volume
_COUNT = re.compile(rf"\b(?<!rank )(?<!r )(\d+)\b{_UNIT}\s+(?:[a-z0-9.-]+\s+){{0,3}}?(?:checkpoints?|ckpts?|copies|snapshots|adapters)\b")
_KEEP = re.compile(rf"\b(?:keep|keeping|last|latest|retain)\s+(?:only\s+)?(?:the\s+)?(?:last\s+|latest\s+)?(\d+)\b{_UNIT}")
_MONTHS = re.compile(r"\bfor\s+(?:(\d+(?:\.\d+)?)\s*|(a|one|an)\s+|(half a)\s+)(months?|mos?|years?|yrs?|weeks?|days?)\b")
_PERIOD_MONTHS = {"month": 1.0, "mo": 1.0, "year": 12.0, "yr": 12.0, "week": 12 / 52, "day": 12 / 365}
# object stores and clouds as people name them: the provider whose tables price them
_PLACES = {"s3": "aws", "aws": "aws", "amazon": "aws", "ec2": "aws", "gcs": "gcp", "gcp": "gcp", "google": "gcp",
           "azure": "azure", "blob": "azure"}
_FROM = re.compile(r"\b(?:from|out of)\s+(?:the\s+|our\s+|an?\s+)?([a-z0-9]+)")
_TO = re.compile(r"\b(?:to|into|onto)\s+(?:the\s+|our\s+|an?\s+)?([a-z0-9]+)")
_ANYWHERE = re.compile(r"\b(?:in|on|at|from|out of)\s+(?:the\s+|our\s+|an?\s+)?([a-z0-9]+)")


def storage_question(text: str, updates: Mapping[str, Any], cues: Collection[str] = ()) -> StorageAsk | None:
    """The storage or transfer question `text` asks (the normalized message and what the fold read from it), or
    None when it is anything else."""
    said = set(updates)
    asks_cost = "price" in cues or bool(_COST.search(text))
    checkpoint = bool(_CHECKPOINT.search(text)) or (bool(_ADAPTER.search(text)) and bool(_SIZE.search(text)))
    if checkpoint and said <= _CHECKPOINT_FIELDS and updates.get("mode") != "inference":
        if not ({"model", "params_b", "dataset_gb"} & said):
            return None  # "how often should I checkpoint?": no model, no volume
        if not (_SIZE.search(text) or _STORE.search(text) or _TRANSFER.search(text) or asks_cost):
            return None  # "serve this checkpoint", "fine-tune from the instruct checkpoint"
        return _ask(text, updates, _kind(text, updates, asks_cost))
    on_disk = (_WEIGHTS.search(text) and _SIZE.search(text) and said <= _CHECKPOINT_FIELDS - {"dataset_gb"}
               and {"model", "params_b"} & said and updates.get("mode") != "inference")
    if on_disk:  # "how big are the Llama 3.1 70B weights?", "how much disk space to fine-tune Llama 3.1 8B?"
        return _ask(text, updates, "size")
    if said and said <= _VOLUME_FIELDS and "dataset_gb" in said:
        if _TRANSFER.search(text) and (asks_cost or "egress" in text):
            return _ask(text, updates, "transfer")
        if _STORE.search(text) and asks_cost:
            return _ask(text, updates, "storage")
    return None


def storage_follow_up(text: str, updates: Mapping[str, Any], ask: StorageAsk) -> StorageAsk | None:
    """A reply in a storage thread that changes the question ("keep 3 checkpoints", "on GCS", "for 6 months",
    "what about 405B?", "rank 64", "to RunPod"), or None when it says something else (the thread's scenario then
    reads it as usual)."""
    said = set(updates)
    if not said <= _CHECKPOINT_FIELDS or updates.get("mode") == "inference":
        return None
    change: dict[str, Any] = {}
    count, months = _count(text), _months(text)
    if count is not None:
        change["count"] = count
    if months is not None:
        change["months"] = months
    if "model" in said or "params_b" in said:
        change.update(model=updates.get("model"), params_b=None if updates.get("model") else updates.get("params_b"))
    for name in ("precision", "optimizer", "lora_rank"):
        if name in said:
            change[name] = updates[name]
    if "dataset_gb" in said:
        change.update(size_gb=float(updates["dataset_gb"]), checkpoint=None)
    if updates.get("mode") in _TRAINING_MODES:
        change["mode"] = updates["mode"]
        change["checkpoint"] = "adapter" if updates["mode"] in ("lora", "qlora") else "training"
    elif "lora_rank" in said and ask.checkpoint not in (None, "adapter"):
        change["checkpoint"] = "adapter"
    source, destination = _places(text, updates)
    if ask.question == "transfer" or _TRANSFER.search(text):
        if source:
            change["provider"] = source
        if destination:
            change["destination"] = destination
    elif source or destination:
        change["provider"] = source or destination
    if _TRANSFER.search(text) and ask.question != "transfer":
        change["question"] = "transfer"
    elif ask.question == "size" and ({"count", "months", "provider"} & set(change) or _STORE.search(text)):
        change["question"] = "storage"  # "on S3 for 6 months": the size asked becomes a bill
    if not change:
        return None
    return ask.model_copy(update=change)


def _kind(text: str, updates: Mapping[str, Any], asks_cost: bool) -> StorageQuestion:
    if _TRANSFER.search(text) and (asks_cost or "egress" in text):
        return "transfer"
    place = "data_location" in updates or "provider" in updates
    if _STORE.search(text) or _months(text) is not None or (place and asks_cost):
        return "storage"
    return "size"


def _ask(text: str, updates: Mapping[str, Any], question: StorageQuestion) -> StorageAsk:
    """The question with what it sizes: the volume said, else the checkpoint the method (or its words) implies."""
    checkpoint: CheckpointKind | None = None
    mode = updates.get("mode") if updates.get("mode") in _TRAINING_MODES else None
    size = updates.get("dataset_gb")
    if checkpoint is None and size is None:
        if mode in ("lora", "qlora") or (_ADAPTER.search(text) and mode is None):
            checkpoint = "adapter"
        elif mode in ("full", "pretrain") or "optimizer" in updates or _RESUMABLE.search(text):
            checkpoint = "training"
        else:
            checkpoint = "weights"
    source, destination = _places(text, updates)
    return StorageAsk(
        question=question, checkpoint=checkpoint, model=updates.get("model"),
        params_b=None if updates.get("model") else updates.get("params_b"), mode=mode,
        precision=updates.get("precision"), optimizer=updates.get("optimizer"), lora_rank=updates.get("lora_rank"),
        size_gb=float(size) if size else None, count=_count(text), months=_months(text),
        provider=source, destination=destination if question == "transfer" else None)


def _count(text: str) -> int | None:
    """'10 checkpoints', 'keep the last 3': how many are kept."""
    found = _COUNT.search(text) or _KEEP.search(text)
    if found is None:
        return None
    count = int(found.group(1))
    return count if count > 0 else None


def _months(text: str) -> float | None:
    """'for 6 months', 'for a year', 'for 2 weeks': how long, in months."""
    found = _MONTHS.search(text)
    if found is None:
        return None
    number = float(found.group(1)) if found.group(1) else 0.5 if found.group(3) else 1.0
    unit = found.group(4).rstrip("s")
    return number * _PERIOD_MONTHS.get(unit, 1.0) or None


def _places(text: str, updates: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """(where the data is, where it goes): 'from S3 to Lambda' -> (aws, lambda); 'in GCS' -> (gcp, None). A provider
    the reader resolved ("to RunPod") is the destination when a source is named, else where the data is."""
    provider = updates.get("provider")
    source = _place(_FROM.findall(text), provider)
    destination = _place(_TO.findall(text), provider)
    if source is None:
        source = _place(_ANYWHERE.findall(text), provider if destination != provider else None)
    if source is None and updates.get("data_location") in ("aws", "gcp", "azure"):
        source = str(updates["data_location"])
    if source is None and provider and destination != provider:
        source = str(provider)
    if destination is None and provider and source != provider:
        destination = str(provider)
    return source, (destination if destination != source else None)


def _place(words: list[str], provider: Any) -> str | None:
    for word in words:
        if word in _PLACES:
            return _PLACES[word]
        if provider and (word == provider or str(provider).startswith(word) and len(word) >= 4):
            return str(provider)
    return None
