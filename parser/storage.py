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

from engine.models import TRAINING_MODES

StorageQuestion = Literal["size", "storage", "transfer", "time"]
CheckpointKind = Literal["weights", "training", "adapter"]


class StorageAsk(BaseModel):
    """What a storage or transfer question asks. None means not said: the answer assumes it and says so."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    question: StorageQuestion  # a checkpoint's size, keeping data stored, moving it (the bill) or how long that takes
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
    link_gbps: float | None = None  # the link it moves over, gigabits a second ("at 10 Gbps"; "at 1 GB/s" is 8)
    link_said: str | None = None  # the link as said ("1 GB/s", "100 Mbps"), when its unit is not Gbps
    runs: float | None = None  # training runs that read the data moved ("10 runs"): once if cached, each if streamed
    training: bool | None = None  # True: the data is moved to train on ("for pretraining"); its runs may stream it again


# fields a storage question may set besides its own: the checkpoint's model and method, and where it lives
_CHECKPOINT_FIELDS = frozenset({"model", "params_b", "mode", "intent", "precision", "optimizer", "lora_rank",
                                "lora_targets", "data_location", "provider", "dataset_gb"})
_VOLUME_FIELDS = frozenset({"dataset_gb", "data_location", "provider"})
# what an egress question about training data may say besides the volume and places: the runs that read it and the
# job it is moved for ("training data is 2TB in S3, training on Lambda, 10 runs, egress cost?", "copy 50TB from GCS to
# CoreWeave for pretraining, egress cost?"); no model: with one it is a plan, whose egress is a line of its cost
_EGRESS_FIELDS = _VOLUME_FIELDS | {"runs_per_month", "mode", "intent", "epochs"}
_EGRESS = re.compile(r"\b(?:egress|data[- ]transfer|transfer (?:cost|fees?|bill))\b")

# "checkpoint", never "gradient/activation checkpointing" (a memory technique)
_CHECKPOINT = re.compile(r"\b(?:checkpoints?|ckpts?)\b(?!ing)")
_ADAPTER = re.compile(r"\badapters?\b")
_WEIGHTS = re.compile(r"\b(?:weights|safetensors|model files?|on disk|disk space|download size)\b")
# "how much disk do I need to full fine-tune Llama 3.1 8B?": the disk a run needs, a size question like "disk space"
_DISK = re.compile(r"\b(?:how much (?:disk|storage|ssd|nvme|local storage)|(?:disk|storage|ssd|nvme)(?: space)? "
                   r"(?:do|would|will|does) (?:i|we|it|you) need|(?:disk|storage) needed)\b")
_SIZE = re.compile(r"\b(?:how (?:big|large)|sizes?|how many (?:gb|tb|gigabytes|terabytes)|disk(?: space)?|on disk|"
                   r"take up|takes up)\b")
_STORE = re.compile(r"\b(?:store|stores|storing|stored|storage|keep|keeping|kept|retain|retaining|archive|archiving|"
                    r"hold|holding|save|saving|host|hosting)\b")
_TRANSFER = re.compile(r"\b(?:egress|transfer|transferring|move|moving|download|downloading|copy|copying|migrate|"
                       r"migrating|pull (?:it |them |the data )?out|get (?:it |them |the data )?out)\b")
_COST = re.compile(r"\b(?:cost|costs|costing|how much|price|pay|bill|charge|charges|fees?|usd)\b|\$")
_RESUMABLE = re.compile(r"\b(?:resum\w*|optimi[sz]er|adam\w*|training (?:checkpoint|state)s?|full state|"
                        r"fine[- ]?tun\w*|pre[- ]?train\w*|full)\b")
# how long a move takes: "how long to download …", "how much time to copy …", "transfer time at 10 Gbps"
_TIME = re.compile(r"\b(?:how long|how much time|how many (?:hours|minutes|days)|time to|(?:transfer|download|upload|copy)"
                   r" time|eta)\b")
_TIMED_MOVE = re.compile(r"\b(?:how long|how much time|time)\b[^.?!]{0,40}?\b(?:download|copy|move|transfer|upload|pull|"
                         r"push|sync|migrate|send|get)\w*")
# a link's speed: "10 Gbps", "1 gigabit", "100 Mbps", "25GbE", "1 GB/s" (bytes: 8 Gbps; `mark_link_rates` tells a
# byte rate from a bit rate before the text is lowercased). The grammar's tokens come back spaced ("1 gbytes / s").
_PER_S = r"(?: ?/ ?s(?:ec)?| per second| a second)"
_LINK = re.compile(rf"\b(\d+(?:\.\d+)?)\s*(?:(gbps|gbits?(?:{_PER_S})?|gigabits?(?:{_PER_S})?|gbe|gige)|"
                   rf"(mbps|mbits?(?:{_PER_S})?|megabits?(?:{_PER_S})?)|(gbytes?{_PER_S}|gigabytes?{_PER_S})|"
                   rf"(mbytes?{_PER_S}|megabytes?{_PER_S}))(?![\w/])")
_UNIT = r"(?!\s*(?:kb|mb|gb|tb|pb|gib|tib|b|months?|years?|weeks?|days?)\b)"  # "5 TB of checkpoints" is a volume
_COUNT = re.compile(rf"\b(?<!rank )(?<!\br )(\d+)\b{_UNIT}\s+(?:[a-z0-9.-]+\s+){{0,3}}?(?:checkpoints?|ckpts?|copies|snapshots|adapters)\b")
_OF_THEM = re.compile(r"\b(\d+)\s+(?:of (?:them|those|these)|copies)\b")
_PER_OWNER = re.compile(r"\badapters?\b[^.?!]{0,30}?\b(?:for|per|across)\s+(\d+)\s+(?:customers|tenants|clients|teams|"
                        r"projects|languages|tasks|users|domains)\b")
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
    named = bool({"model", "params_b", "dataset_gb"} & said)
    # "cost to store Llama 3.1 70B LoRA adapters for 50 customers on S3": adapters kept somewhere are stored files, not
    # a training run (it was planned as LoRA training); "LoRA adapter size" is a size
    adapters = bool(_ADAPTER.search(text)) and bool(_SIZE.search(text) or (
        _STORE.search(text) and (asks_cost or _months(text) is not None)) or _TRANSFER.search(text))
    checkpoint = bool(_CHECKPOINT.search(text)) or adapters
    if checkpoint and said <= _CHECKPOINT_FIELDS and updates.get("mode") != "inference":
        if not named:
            return None  # "how often should I checkpoint?": no model, no volume
        if not (_SIZE.search(text) or _STORE.search(text) or _TRANSFER.search(text) or asks_cost or _timed(text)):
            return None  # "serve this checkpoint", "fine-tune from the instruct checkpoint"
        return _ask(text, updates, _kind(text, updates, asks_cost))
    if (_timed(text) and named and said <= _CHECKPOINT_FIELDS and updates.get("mode") != "inference"
            and (updates.get("intent") != "train" or _link(text))):
        # "how long to download Llama 3.1 405B at 1 Gbps?": a time, not a serving plan ("how long to download the
        # data and train on it" stays a plan: its training time is asked too)
        return _ask(text, updates, "time")
    on_disk = ((_WEIGHTS.search(text) and _SIZE.search(text) or _DISK.search(text))
               and said <= _CHECKPOINT_FIELDS - {"dataset_gb"}
               and {"model", "params_b"} & said and updates.get("mode") != "inference")
    if on_disk:  # "how big are the Llama 3.1 70B weights?", "how much disk do I need to fine-tune Llama 3.1 8B?"
        return _ask(text, updates, "size")
    if said and said <= _VOLUME_FIELDS and "dataset_gb" in said:
        if _TRANSFER.search(text) and (asks_cost or "egress" in text):
            return _ask(text, updates, "transfer")
        if _STORE.search(text) and asks_cost:
            return _ask(text, updates, "storage")
    if ("dataset_gb" in said and said <= _EGRESS_FIELDS and updates.get("mode") != "inference"
            and _EGRESS.search(text) and (asks_cost or _TRANSFER.search(text))):
        # an egress bill asked about training data, no model: answered, not "which model?" or the help text
        ask = _ask(text, updates, "transfer")
        runs = updates.get("runs_per_month")
        training = True if updates.get("intent") == "train" or updates.get("mode") is not None else None
        return ask.model_copy(update={"runs": float(runs) if runs else None, "training": training,
                                      "checkpoint": None, "mode": None})
    return None


def storage_follow_up(text: str, updates: Mapping[str, Any], ask: StorageAsk) -> StorageAsk | None:
    """A reply in a storage thread that changes the question ("keep 3 checkpoints", "on GCS", "for 6 months",
    "what about 405B?", "rank 64", "to RunPod", "how long at 10 Gbps?", "store it on S3 for a year"), or None when it
    says something else (the thread's scenario then reads it as usual)."""
    said = set(updates)
    if ask.question == "transfer" and updates.get("runs_per_month") and said <= {"runs_per_month", "intent"}:
        return ask.model_copy(update={"runs": float(updates["runs_per_month"])})  # "what about 40 runs?"
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
    if updates.get("mode") in TRAINING_MODES:
        change["mode"] = updates["mode"]
        change["checkpoint"] = "adapter" if updates["mode"] in ("lora", "qlora") else "training"
    elif "lora_rank" in said and ask.checkpoint not in (None, "adapter"):
        change["checkpoint"] = "adapter"
    link = _link(text)
    if link is not None:
        change.update(link_gbps=link[0], link_said=link[1])
    source, destination = _places(text, updates)
    moving = ask.question in ("transfer", "time") or bool(_TRANSFER.search(text))
    if moving:
        if source:
            change["provider"] = source
        if destination:
            change["destination"] = destination
    elif source or destination:
        change["provider"] = source or destination
    if _TIME.search(text) and (link is not None or moving):
        change["question"] = "time"  # "how long to copy it at 10 Gbps?", "how long at 10 Gbps?"
    elif _TRANSFER.search(text) and ask.question != "transfer" and not (ask.question == "time" and link is not None):
        change["question"] = "transfer"
    elif ask.question in ("transfer", "time") and _STORE.search(text) and not _TRANSFER.search(text):
        change["question"] = "storage"  # "store it on S3 for a year" after "how long to copy it?": a storage bill
        change.setdefault("destination", None)
    elif ask.question == "size" and ({"count", "months", "provider"} & set(change) or _STORE.search(text)):
        change["question"] = "storage"  # "on S3 for 6 months": the size asked becomes a bill
    if not change:
        return None
    return ask.model_copy(update=change)


def _timed(text: str) -> bool:
    """'how long to download …', 'how long at 10 Gbps': a move's duration is asked."""
    return bool(_TIME.search(text)) and bool(_TIMED_MOVE.search(text) or _link(text))


def _link(text: str) -> tuple[float, str | None] | None:
    """'at 10 Gbps' -> (10, None); '100 Mbps' -> (0.1, '100 Mbps'); '1 GB/s' -> (8, '1 GB/s'): gigabits a second,
    and the words when another unit was converted (the answer says both)."""
    found = _LINK.search(text)
    if found is None:
        return None
    value = float(found.group(1))
    if found.group(2):
        return (value, None) if value > 0 else None
    if found.group(3):
        return (value / 1000, f"{value:g} Mbps") if value > 0 else None
    if found.group(4):
        return (value * 8, f"{value:g} GB/s") if value > 0 else None
    return (value * 8 / 1000, f"{value:g} MB/s") if value > 0 else None


_RATE_SAID = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*([gGmMtT])([bB])(?:/s|ps)\b")
_RATE_NORMALIZED = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*([gmt])b/s\b")


def mark_link_rates(normalized: str, original: str) -> str:
    """'at 1 GB/s' -> 'at 1 gbytes/s', 'at 10 Gb/s' -> 'at 10 gbps': a rate, which the grammar read as a volume
    ("how long to copy 5 TB at 1 GB/s?" asked which of 5 TB and 1 GB was the data; "400 Gb/s InfiniBand" became a
    400 GB dataset). Normalizing lowercases the text, so the case is taken from the message as sent: a capital B is
    bytes, a small b bits (the SI convention)."""
    if "b/s" not in normalized:
        return normalized
    said = {(float(m.group(1)), m.group(2).lower()): m.group(3) == "B" for m in _RATE_SAID.finditer(original)}

    def rate(m: re.Match[str]) -> str:
        prefix = m.group(2)
        if said.get((float(m.group(1)), prefix)):
            return f"{m.group(1)} {prefix}bytes/s"
        return f"{m.group(1)} {prefix}bps"

    return _RATE_NORMALIZED.sub(rate, normalized)


def name_destination(ask: StorageAsk, text: str, resolve_provider: Any) -> StorageAsk:
    """A move's destination said as a provider the reader did not resolve: "egress to move 2TB from S3 to Lambda"
    read "Lambda" only when a cost was asked ("egress cost to …"), else said "no destination". `resolve_provider` is
    the catalog's (`NameResolver.resolve_provider`)."""
    if ask.question not in ("transfer", "time") or ask.destination is not None:
        return ask
    for word in _TO.findall(text):
        if word in _PLACES or len(word) < 3:
            continue
        resolved = resolve_provider(word)
        found = getattr(resolved, "id", None)
        if found and found != ask.provider:
            return ask.model_copy(update={"destination": str(found)})
    return ask


def _kind(text: str, updates: Mapping[str, Any], asks_cost: bool) -> StorageQuestion:
    if _timed(text):
        return "time"
    if _TRANSFER.search(text) and (asks_cost or "egress" in text):
        return "transfer"
    place = "data_location" in updates or "provider" in updates
    if _STORE.search(text) or _months(text) is not None or (place and asks_cost):
        return "storage"
    return "size"


def _ask(text: str, updates: Mapping[str, Any], question: StorageQuestion) -> StorageAsk:
    """The question with what it sizes: the volume said, else the checkpoint the method (or its words) implies."""
    checkpoint: CheckpointKind | None = None
    mode = updates.get("mode") if updates.get("mode") in TRAINING_MODES else None
    size = updates.get("dataset_gb")
    if checkpoint is None and size is None:
        if mode in ("lora", "qlora") or (_ADAPTER.search(text) and mode is None):
            checkpoint = "adapter"
        elif mode in ("full", "pretrain") or "optimizer" in updates or _RESUMABLE.search(text):
            checkpoint = "training"
        else:
            checkpoint = "weights"
    source, destination = _places(text, updates)
    link = _link(text)
    return StorageAsk(
        question=question, checkpoint=checkpoint, model=updates.get("model"),
        params_b=None if updates.get("model") else updates.get("params_b"), mode=mode,
        precision=updates.get("precision"), optimizer=updates.get("optimizer"), lora_rank=updates.get("lora_rank"),
        size_gb=float(size) if size else None, count=_count(text), months=_months(text),
        provider=source, destination=destination if question in ("transfer", "time") else None,
        link_gbps=link[0] if link else None, link_said=link[1] if link else None)


def _count(text: str) -> int | None:
    """'10 checkpoints', 'keep the last 3', '10 of them', 'adapters for 50 customers': how many are kept."""
    found = _COUNT.search(text) or _KEEP.search(text) or _OF_THEM.search(text) or _PER_OWNER.search(text)
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
