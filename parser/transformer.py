"""Parse tree -> `Reading`: one method per grammar rule, then one fold over the message.

Each rule method turns its phrase into a `Said` (the Workload fields it sets, cues, notes, name
problems). `start` folds the phrases in order: "X instead of Y" drops Y, "corpus on AWS" is where
the data lives (not where it runs), and a field given two different values becomes a `Conflict`
instead of a silent last-one-wins.

Before the fold, `start` reads what depends on a phrase's neighbours: a bare word in a name
position ("serve mixtral", "what about SageMaker?"), "what about AWS" as where it runs, and
"8 GPUs per node" next to "2 nodes".

Names are resolved here through the injected `NameResolver`; nothing in this module knows a
model or GPU by name.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field, replace
from typing import Any

from lark import Token, Transformer

from engine.models import Problem

from .normalize import HUGE_NUMBER
from .reading import Conflict, NameResolver, Reading, Resolved
from .schedule import HOURS_PER_MONTH, duration_hours, per_month, seconds_in

_PLAIN_PARAMS_MIN = 1e5  # "7 parameters" is not a model size; "125000000 parameters" is
_QTY = {"k": 1e3, "m": 1e6, "b": 1e9, "t": 1e12}
_BINARY_QTY = {"k": 1024, "m": 1024**2}  # context lengths: "8k" is 8192
_DATA_UNIT_GB = {
    "kb": 1e-6, "kib": 1.024e-6, "mb": 1e-3, "mib": 1.048576e-3, "gb": 1.0, "gib": 1.073741824,
    "tb": 1e3, "tib": 1099.511627776, "pb": 1e6, "pib": 1125899.906842624,
    "kilobyte": 1e-6, "megabyte": 1e-3, "gigabyte": 1.0, "terabyte": 1e3, "petabyte": 1e6,
}
_PRECISION = [
    ("bf16|bfloat16", "bf16"), ("fp16|float16|half", "fp16"), ("fp8|float8", "fp8"),
    ("int8|8 ?-?bit", "int8"), ("nf4", "nf4"), ("int4|4 ?-?bit|awq|gptq", "int4"), ("fp32|float32|full", "fp32"),
]
_STORE = [("s3", "aws"), ("gcs|google", "gcp"), ("blob|azure|adls", "azure"), ("prem|local|nas", "onprem")]
_CLOUD = [("aws|amazon", "aws"), ("gcp|google", "gcp"), ("azure", "azure")]
_REFINE_VERBS = {"try", "use", "using", "switch to", "switching to", "move to", "go with"}
_DATA_WORDS = {"corpus", "data", "dataset", "datasets", "files", "bucket", "shards", "it"}
# Words that can head a size-shaped span ("for 70b", "a 7b") without being a model name.
_NOT_NAMES = {
    "a", "an", "the", "for", "of", "with", "my", "our", "its", "is", "be", "to", "and", "or", "size",
    "model", "models", "about", "around", "approx", "approximately", "roughly", "like", "say", "than",
    "base", "it", "we", "i", "have", "has", "got", "need", "want", "run", "do", "some", "any", "by",
    "vs", "versus", "compare", "also", "maybe", "then", "but", "llm", "llms", "lm", "slm",
}
_COUNT = re.compile(r"^(\d+(?:\.\d+)?)(k?)(?: x ?| |x)(?=\S)")
_SIZE_B = re.compile(r"(?<![x\d.])(\d+(?:\.\d+)?)b\b")
_MOE = re.compile(r"\d+x\d+(?:\.\d+)?b")
_PLURAL = re.compile(r"(?<=\d)s\b")
_MEMORY_SUFFIX = re.compile(r" \d+ ?gb$")
_TRAILING_COUNT = re.compile(r" x (\d{1,5})$")
_WORD_VERSION = re.compile(r"[a-z]+ v\d+(?:\.\d+)?")
_DID_YOU_MEAN = re.compile(r"[Dd]id you mean:? (.+?)\?\s*$")
_ID_IN_PARENS = re.compile(r"\(([a-z0-9][a-z0-9.\-]*)\)")
# An unknown name that looks like a GPU rather than a model: "h20", "a800 80 gb", "gb300s", "5090"
_GPU_SHAPED = re.compile(r"(?:(?:rtx|gtx|nvidia|amd|tesla) ?)?(?:[a-z]{1,2}\d{2,4}[a-z]{0,3}|\d{4}(?: ?ti)?)(?: .*)?")

# "training data", "training set": "training" describes a noun there; it is not the verb
_TRAINING_NOUNS = {"data", "dataset", "datasets", "set", "corpus", "tokens", "token", "examples", "samples", "time",
                   "cost", "costs", "budget", "loop", "script", "code", "pipeline", "cluster", "job", "step", "steps"}
TRAIN_NOTE = "“train” read as full fine-tuning; say “from scratch” for pre-training, or “QLoRA”/“LoRA”"
_EVERY = re.compile(r"(?:every|each) |(?:daily|weekly|monthly|quarterly|yearly|annually)$")
_SINGULAR_RUN = re.compile(r"(?:^|\s)(?:run|experiment|job|sweep|trial)$")
# Words skipped between a verb and a bare name ("serve the mixtral"), and roles that make a
# following bare word a name position: the kinds of verbs, and which catalog tables to ask.
_ARTICLES = {"a", "an", "the", "our", "my", "of", "this", "that", "some", "their", "your"}
_NAME_LOOKUPS = {"refine": ("provider", "model", "gpu"), "verb": ("model",)}
# Ordinary words that follow a verb ("serve traffic", "qlora please", "train for ..."): never an
# unknown model. Other plain words there are, when nothing else in the message names the model.
_COMMON_AFTER_VERB_WORDS = """
    traffic it its our my the them this that these those we us you your their his her me models model llm llms
    lm api apis app apps endpoint endpoints service services server servers backend frontend production prod
    staging dev please only just also then now again today tomorrow soon later first next fast quickly cheap
    cheaply up out in on at for to from into onto over under about around across via by with without and or
    but so if what which how when where why who can could would should will must may might is are be been
    being was were do does did done have has had get got need needs want wants like try trying one ones
    something anything everything nothing stuff thing things all both each every any some lot lots bit
    little more less most much many few several own new old small smaller large larger big bigger huge tiny
    same other another different custom base pretrained trained existing current open source opensource
    local remote internal internally external users user customers customer clients client people team
    teams employees requests request queries query calls chat chats chatbot bot bots assistant agent agents
    rag embeddings embedding search retrieval classifier classification summarization translation code coding
    docs documents data dataset datasets corpus text texts images image vision audio speech video
    predictions results outputs inputs tokens weights adapters adapter checkpoint checkpoints job jobs run
    runs workload workloads pipeline pipelines cluster gpu gpus hardware infra infrastructure instance
    instances machine machines node nodes cost costs price pricing budget time hours days weeks months
    latency throughput performance speed memory vram efficiently efficient properly well better best
    realtime real live online offline batch batches streaming stream cloud clouds onprem prem house
    yes no not sure maybe ok okay thanks thank hey hi hello guys folks all
"""
_COMMON_AFTER_VERB = frozenset(_COMMON_AFTER_VERB_WORDS.split())
OWN_HARDWARE_NOTE = "own hardware: give the GPU, e.g. “on 2x 4090”, and a price per hour for costs"
SFT_NOTE = "“SFT” read as full fine-tuning (it usually is unless LoRA is said); say “LoRA” or “QLoRA” for adapters"
PEFT_NOTE = "“PEFT” read as LoRA; say “QLoRA” for 4-bit adapters"
PREFERENCE_NOTE = ("{name} is preference tuning: it also holds a frozen reference model (RLHF adds reward and value "
                   "models); I size the policy only")
# Fields where 0 means nothing: "0 users", "0 epochs" are ignored with a note, not applied.
_POSITIVE_FIELDS = {
    "params_b", "dataset_gb", "dataset_tokens", "epochs", "runs_per_month", "gpu_count", "seq_len", "batch_size",
    "concurrency", "lora_rank", "nodes", "target_tokens_per_s", "output_tokens", "prompt_tokens", "gpu_memory_gb",
}
_FIELD_WORDS = {
    "params_b": "the model size", "dataset_gb": "the data size", "dataset_tokens": "the token count",
    "runs_per_month": "runs per month", "gpu_count": "the GPU count", "seq_len": "the context length",
    "batch_size": "the batch size", "lora_rank": "the LoRA rank", "nodes": "the node count",
    "target_tokens_per_s": "a tokens/s target", "output_tokens": "the output length", "prompt_tokens": "the prompt length",
    "gpu_memory_gb": "GPU memory", "hourly_rate": "a price", "max_hours_per_run": "a deadline",
}
# "with 50k tokens", "50k tokens of data": a corpus; "4096 tokens per sample": a sequence length
_DATA_LEADS = {"with", "on", "over", "using", "use", "from", "total", "data", "dataset", "corpus"}
_DATA_NOUNS = {"data", "dataset", "datasets", "training", "text", "examples", "samples", "instructions",
               "conversations", "dialogues", "documents", "docs", "corpus", "total", "overall", "sft", "fine-tuning"}
_SEQ_NOUNS = {"sequence", "seq", "sample", "example", "row", "doc", "document", "record", "conversation", "turn",
              "message", "item", "chunk", "step"}
_SEQ_PLURALS = {"sequences", "samples", "examples", "rows", "docs", "documents", "records", "conversations",
                "chunks", "items", "messages"}
_NOT_DATA_BEFORE_LOCALLY = {"data", "dataset", "datasets", "corpus", "files", "bucket", "shards", "stored", "lives",
                            "sits", "kept", "saved"}
_RUN_WORDS = {"run", "runs", "running", "host", "hosted", "hosting", "deployed", "it", "them", "this", "everything"}
# A cloud instance type: "p5.48xlarge", "ml.p4d.24xlarge", "g5.xlarge", "a3-highgpu-8g", "g2-standard-4"
_INSTANCE_SHAPED = re.compile(
    r"(?:ml\.)?[a-z]+\d+[a-z]*\.\d*x?(?:large|medium|small|metal)|[a-z]\d+-(?:high|mega|ultra|edge)gpu-\d+g"
    r"|[a-z]\d+-standard-\d+"
)


@dataclass
class Said:
    """One recognised phrase: the fields it sets and what the reply should mention."""

    kind: str
    text: str
    values: dict[str, Any] = field(default_factory=dict)
    cues: frozenset[str] = frozenset()
    notes: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    bare: tuple[Any, ...] = ()
    word: bool = False  # a filler that is one plain word: may be a bare name after a verb
    requests_per_s: float | None = None  # "50 qps": becomes tokens/s once the response length is known
    per_node: int | None = None  # "8 GPUs per node": multiplied by the node count said elsewhere
    count: float | None = None  # "50k tokens": the count, read as data or context by its neighbours
    io_field: str | None = None  # "input"/"out": takes the number beside it as prompt/output tokens


def _text(items: list[Any]) -> str:
    return " ".join(str(t) for t in items if isinstance(t, Token | str))


def _number(text: str) -> float:
    return float(re.sub(r"[^\d.]", "", text) or 0)


def _qty(text: str, binary: bool = False) -> float:
    """'70b' -> 7e10; '8k' -> 8000 (or 8192 for context lengths); a plain number stays itself."""
    text = text.strip()
    if text and text[-1] in _QTY:
        unit = text[-1]
        factor = _BINARY_QTY.get(unit, _QTY[unit]) if binary else _QTY[unit]
        return float(text[:-1]) * factor
    return float(text)


def _pick(text: str, table: list[tuple[str, str]]) -> str | None:
    return next((value for pattern, value in table if re.search(pattern, text)), None)


class MessageTransformer(Transformer[Token, Reading]):
    """Turns the parse tree of one normalized message into a `Reading`."""

    def __init__(
        self, resolver: NameResolver | None, current_mode: str | None = None, current_output_tokens: int | None = None
    ) -> None:
        super().__init__()
        self.resolver = resolver
        self.current_mode = current_mode
        self.current_output_tokens = current_output_tokens
        self._seen: dict[tuple[str, str], Resolved | None] = {}  # one lookup per name per message
        self._instances: dict[str, Any] = {}  # the same for instance types (`InstanceResolver`)

    # ---- phrases -------------------------------------------------------------------------
    def mode(self, items: list[Token]) -> Said:
        kind = items[0].type
        value = {"QLORA": "qlora", "LORA": "lora", "FULL_FT": "full", "PRETRAIN": "pretrain"}.get(kind, "inference")
        return Said("mode", _text(items), {"mode": value})

    def soft_mode(self, items: list[Token]) -> Said:
        """'SFT' -> full, 'PEFT' -> LoRA, 'DPO'/'RLHF' -> full with the reference-model caveat. A mode
        said outright in the same message ("SFT with LoRA") wins: see `_soft_modes`."""
        text = str(items[0])
        if text == "peft":
            return Said("soft_mode", text, {"mode": "lora"}, frozenset({"finetune"}), notes=[PEFT_NOTE])
        if re.match(r"sft|supervised|instruction", text):
            return Said("soft_mode", text, {"mode": "full"}, frozenset({"finetune"}), notes=[SFT_NOTE])
        return Said("soft_mode", text, {"mode": "full"}, frozenset({"finetune"}),
                    notes=[PREFERENCE_NOTE.format(name=text.upper() if len(text) <= 5 else text)])

    def size(self, items: list[Token]) -> Said:
        text = str(items[0])
        if items[0].type == "NUMBER":  # "175000000000 parameters": a plain count
            count = _number(text)
            if count < _PLAIN_PARAMS_MIN:
                return Said("filler", _text(items), bare=(count,))
            return Said("size", _text(items), {"params_b": count / 1e9})
        unit = text[-1]
        value = float(text[:-1])
        if unit == "b" or (unit == "m" and len(items) > 1):
            params_b = value if unit == "b" else value / 1000
            return Said("size", _text(items), {"params_b": params_b}, bare=(("qty", _qty(text)),))
        if unit == "t" and len(items) > 1:
            return Said("size", _text(items), {"params_b": value * 1000})
        return Said("size", _text(items), bare=(("qty", _qty(text)),))

    def tokens(self, items: list[Token]) -> Said:
        """'2B tokens' is a corpus; under a million the wording decides (see `_token_wording`):
        'with 50k tokens' is data, '4096 tokens per sample' a sequence length, and a bare
        '2048 tokens' stays a sequence length."""
        number = str(next(t for t in items if t.type in ("QTY", "NUMBER")))  # "2B tokens" or "tokens: 2B"
        count = _qty(number)
        if count < 1e6:
            return Said("tokens", _text(items), {"seq_len": int(_qty(number, binary=True))}, count=count)
        return Said("tokens", _text(items), {"dataset_tokens": int(count)}, count=count)

    def data(self, items: list[Token]) -> Said:
        unit = str(items[1]).rstrip("s")
        gb = _number(str(items[0])) * _DATA_UNIT_GB.get(unit, 1.0)
        return Said("data", _text(items), {"dataset_gb": round(gb, 6)})

    def epochs(self, items: list[Token]) -> Said:
        number = next(t for t in items if t.type == "NUMBER")  # "3 epochs" or "epochs: 3"
        return Said("epochs", _text(items), {"epochs": _number(str(number))})

    def runs(self, items: list[Token]) -> Said:
        text = _text(items)
        tail = items[-1] if items[-1].type in ("PERIOD", "DURATION") else None
        if items[0].type == "NUMBER":
            count: float | None = _number(str(items[0]))
        elif tail is None:  # "can we run it", "training runs": no schedule said
            return Said("filler", text)
        else:  # "a run every 3 months", "runs weekly": one run each time; "runs per month" says no count
            every = _SINGULAR_RUN.search(str(items[0])) or _EVERY.match(str(tail))
            count = 1.0 if every else None
        if tail is None or tail.type == "PERIOD":
            factor = per_month(str(tail)) if tail is not None else 1.0
            if count is None or factor is None:
                return Said("filler", text)
            return Said("runs", text, {"runs_per_month": count * factor})
        hours = duration_hours(str(tail))
        if str(tail).startswith("in ") and not str(tail).startswith(("in under", "in less")) and "run" not in str(tail):
            if count is None or hours is None:  # "5 runs in a week": a rate, not a deadline
                return Said("filler", text)
            return Said("runs", text, {"runs_per_month": count * HOURS_PER_MONTH / hours})
        said = self.deadline([tail])
        if count is not None and items[0].type == "NUMBER":
            said.values["runs_per_month"] = count
        said.kind, said.text = "runs", text
        return said

    def deadline(self, items: list[Token]) -> Said:
        hours = duration_hours(str(items[0]))
        if hours is None or hours <= 0:
            return Said("filler", _text(items))
        return Said("deadline", _text(items), {"max_hours_per_run": hours})

    def own_hardware(self, items: list[Token]) -> Said:
        """'on my laptop', 'locally', 'on our own GPUs': where the GPUs run; no Workload field holds
        that, and it says nothing about where the data lives (see `_own_hardware` for "stored locally")."""
        return Said("own_hw", _text(items), notes=[OWN_HARDWARE_NOTE])

    def location(self, items: list[Token]) -> Said:
        word = str(items[-1])
        table = _STORE if items[-1].type == "STORE" else _CLOUD
        kind = "cloud" if len(items) == 1 and items[0].type == "CLOUD" else "location"  # bare "aws": see start
        return Said(kind, _text(items), {"data_location": _pick(word, table)})

    def provider(self, items: list[Token]) -> Said:
        verb, word = str(items[0]), str(items[1])
        cues = frozenset({"refine_verb"}) if verb in _REFINE_VERBS else frozenset()
        if items[1].type == "CLOUD":
            cloud = _pick(word, _CLOUD) or word
            resolved = self._resolve("provider", cloud)
            return Said("provider_cloud", _text(items), {"provider": resolved.id if resolved else cloud}, cues)
        if len(word) < 3 or word in _NOT_NAMES or self.resolver is None:
            return Said("filler", _text(items), cues=cues)
        resolved = self._resolve("provider", word)
        if resolved is not None and resolved.id is not None:
            return Said("provider", _text(items), {"provider": resolved.id}, cues)
        for kind in ("model", "gpu"):  # "try mixtral", "use deepseek": a letters-only name
            named = self._resolve(kind, word)
            if named is not None and named.id is not None:
                said = Said("hardware", _text(items), cues=cues)
                self._apply(said, kind, word, named)
                return said
        return Said("filler", _text(items), cues=cues)

    def _bare_name(self, word: str, kinds: tuple[str, ...]) -> Said | None:
        """A plain word in a name position ("serve mixtral"): a name only if the catalog knows it.

        An unknown word is filler, not a problem: "serve traffic" must not complain. An ambiguous
        family ("serve llama") counts when every candidate carries the word; suggestions for a
        near miss do not.
        """
        if len(word) < 3 or word in _NOT_NAMES or word in _ARTICLES or self.resolver is None:
            return None
        for kind in kinds:
            resolved = self._resolve(kind, word)
            if resolved is None:
                continue
            family = bool(resolved.candidates) and all(c.startswith(word) for c in resolved.candidates)
            if resolved.id is not None or family:
                said = Said("provider" if kind == "provider" else "hardware", word)
                if kind == "provider" and resolved.id is not None:
                    said.values["provider"] = resolved.id
                else:
                    self._apply(said, kind, word, resolved)
                return said
        model = self._resolve("model", word) if "model" in kinds else None
        ids = _suggestions(model)[1]
        if any(_near(word, i) for i in ids):  # "serve mixtrall": a near miss of a model; "serve llms" is not
            return Said("hardware", word, problems=[_unknown(word, model, None, None)])
        return None

    def hardware(self, items: list[Token]) -> Said:
        last = items[-1]
        if last.type == "NAME":
            return self._name(str(last))
        if items[0].type == "GPUS":  # "gpus: 8", "gpus per node: 8"
            items = [items[1], items[0]]
            last = items[-1]
        count = int(_number(str(items[0]))) if len(items) > 1 else None
        if last.type == "GPUS":
            if count and re.search(r" (?:per|each|a) |each$", str(last)):
                return Said("hardware", _text(items), {"gpu_count": count}, per_node=count)
            return Said("hardware", _text(items), {"gpu_count": count})
        return self._memory_card(_text(items), _number(str(last).split("gb")[0]), count)

    def cluster(self, items: list[Token]) -> Said:
        if items[0].type == "NODES":  # "nodes: 2"
            return Said("cluster", _text(items), {"nodes": int(_number(str(items[1])))})
        nodes = int(_number(str(items[0])))
        said = Said("cluster", _text(items), {"nodes": nodes})
        if len(items) < 3:
            return said
        if items[2].type == "NAME":
            named = self._name(str(items[2]))
            per_node = named.values.pop("gpu_count", None)
            said.values.update(named.values)
            said.notes += named.notes
            said.problems += named.problems
        else:  # "2 nodes with 8 gpus", "4 nodes of 8"
            per_node = int(_number(str(items[2])))
        if per_node:
            said.values["gpu_count"] = nodes * per_node
            said.notes.append(f"{nodes} nodes × {per_node} GPUs = {nodes * per_node} GPUs")
        return said

    def precision(self, items: list[Token]) -> Said:
        return Said("precision", _text(items), {"precision": _pick(str(items[0]), _PRECISION)})

    def context(self, items: list[Token]) -> Said:
        number = next(t for t in items if t.type in ("QTY", "NUMBER"))
        return Said("context", _text(items), {"seq_len": int(_qty(str(number), binary=True))})

    def concurrency(self, items: list[Token]) -> Said:
        number = next(t for t in items if t.type in ("NUMBER", "QTY"))
        count = int(_qty(str(number)))
        if items[-1].type == "PERIOD":  # "50 users a day": traffic over a day, not at the same time
            return Said("filler", _text(items), notes=[
                f"“{_text(items)}” is not how many at the same time; say e.g. “{number} concurrent users” to size for that"])
        if count < 1:
            return Said("filler", _text(items), cues=frozenset({"ignored"}),
                        notes=[f"concurrency can't be 0: ignored “{_text(items)}”"])
        notes = [f"read “{_text(items)}” as {count} at the same time (concurrency)"] if items[-1].type == "USERS" else []
        return Said("concurrency", _text(items), {"concurrency": count}, notes=notes)

    def throughput(self, items: list[Token]) -> Said:
        amount, rate = _qty(str(items[0])), str(items[1])
        per_s = amount / seconds_in(rate)
        if items[1].type == "TOK_RATE":
            return Said("throughput", _text(items), {"target_tokens_per_s": round(per_s, 6)})
        return Said("throughput", _text(items), requests_per_s=per_s)

    def output(self, items: list[Token]) -> Said:
        number = next((t for t in items if t.type in ("NUMBER", "QTY")), None)
        if number is None or _qty(str(number)) < 1:  # "responses of" alone
            return Said("filler", _text(items))
        return Said("output", _text(items), {"output_tokens": int(_qty(str(number)))})

    def io_length(self, items: list[Token]) -> Said:
        """'input', '1k tokens in', 'out', 'max new tokens': a length keyword; `_io_lengths` pairs it
        with the number beside it."""
        kind = items[0].type
        io_field = "prompt_tokens" if kind.startswith("PROMPT") else "output_tokens"
        return Said("filler", _text(items), io_field=io_field)

    def batch(self, items: list[Token]) -> Said:
        field_name = "batch_size" if "micro" in str(items[0]) or str(items[0]) == "mbs" else "batch"
        return Said("batch", _text(items), {field_name: int(_number(str(items[1])))})

    def price(self, items: list[Token]) -> Said:
        value = _number(str(items[0]))
        if len(items) > 1:
            return Said("price", _text(items), {"hourly_rate": value})
        if value <= 20:
            return Said("price", _text(items), {"hourly_rate": value}, notes=[f"read {items[0]} as per GPU-hour"])
        return Said("price", _text(items), notes=[f"{items[0]} is not a per-GPU-hour price; ignored it"])

    def rank(self, items: list[Token]) -> Said:
        text = str(items[0])
        # "LoRA r=16" is a knob of LoRA and QLoRA alike: no mode, but the question narrows to fine-tuning
        cues = frozenset({"finetune"}) if text.startswith("lora") else frozenset()
        return Said("rank", _text(items), {"lora_rank": int(re.findall(r"\d+", text)[-1])}, cues)

    def checkpointing(self, items: list[Token]) -> Said:
        off = items[0].type == "NEG" or items[-1].type == "OFF"
        return Said("checkpointing", _text(items), {"gradient_checkpointing": not off})

    def optimizer(self, items: list[Token]) -> Said:
        text = str(items[0])
        if "paged" in text:
            value = "paged_adamw_8bit"
        elif "8" in text:
            value = "adamw_8bit"
        else:
            value = "sgd" if text == "sgd" else "adamw"
        return Said("optimizer", text, {"optimizer": value})

    def zero(self, items: list[Token]) -> Said:
        if items[0].type == "FSDP":
            return Said("zero", "fsdp", {"zero_stage": 3}, notes=["read FSDP (full sharding) as ZeRO stage 3"])
        return Said("zero", str(items[0]), {"zero_stage": int(str(items[0])[-1])})

    def mfu(self, items: list[Token]) -> Said:
        number = next(t for t in items if t.type in ("PCT", "NUMBER"))
        value = _number(str(number))
        value = value / 100 if number.type == "PCT" or value > 1 else value
        if not 0 < value <= 1:
            return Said("mfu", _text(items), notes=[f"{number} is not a utilisation between 0 and 100%; ignored it"])
        return Said("mfu", _text(items), {"mfu": round(value, 4)})

    def cache(self, items: list[Token]) -> Said:
        return Said("cache", _text(items), {"cache_dataset": items[0].type != "NEG"})

    def pricing(self, items: list[Token]) -> Said:
        text = str(items[0])
        value = "spot" if text.startswith(("spot", "preempt")) else "reserved" if "reserved" in text else "on_demand"
        return Said("pricing", text, {"pricing": value})

    def cue(self, items: list[Token]) -> Said:
        kind = items[0].type
        text = str(items[0])
        if kind == "YES":
            return Said("cue", text, cues=frozenset({"yes"}), bare=(True,))
        if kind == "NEG":
            return Said("cue", text, cues=frozenset({"no"}), bare=(False,))
        if kind == "INSTEAD_OF":
            return Said("instead_of", text, cues=frozenset({"refine"}))
        cue = {"UNDO": "undo", "HELP": "help", "REFINE": "refine", "VRAM": "vram", "TRAIN": "train"}.get(kind, "finetune")
        return Said("cue", text, cues=frozenset({cue}))

    def filler(self, items: list[Token]) -> Said:
        token = items[0]
        if token.type == "NEGATIVE":
            return Said("negative", "-")
        if str(token) == HUGE_NUMBER:
            return Said("filler", str(token), notes=["a number with hundreds of digits is beyond what I can compute with; ignored it"])
        if token.type == "ON" and str(token) in _REFINE_VERBS:
            return Said("filler", str(token), cues=frozenset({"refine_verb"}))
        bare = (_number(str(token)),) if token.type == "NUMBER" else ()
        return Said("filler", str(token), bare=bare, word=token.type == "WORD")

    # ---- names ---------------------------------------------------------------------------
    def _resolve(self, kind: str, text: str) -> Resolved | None:
        if self.resolver is None:
            return None
        if (kind, text) not in self._seen:
            self._seen[(kind, text)] = self._lookup(kind, text)
        return self._seen[(kind, text)]

    def _lookup(self, kind: str, text: str) -> Resolved | None:
        assert self.resolver is not None
        lookup = {"model": self.resolver.resolve_model, "gpu": self.resolver.resolve_gpu}.get(
            kind, self.resolver.resolve_provider
        )
        result = lookup(text)
        if result.id is None and _PLURAL.search(text):  # "h100s", "a100s 80gb"
            singular = lookup(_PLURAL.sub("", text))
            if singular.id is not None or singular.candidates:
                return singular
        return result

    def _name(self, text: str) -> Said:
        """A name-shaped span: a GPU when a count is in front, else a model, else a GPU."""
        count_match = None if _MOE.fullmatch(text) else _COUNT.match(text)
        count = None
        name = text
        if count_match:
            count = int(float(count_match.group(1)) * (1000 if count_match.group(2) else 1))
            name = text[count_match.end():]
        trailing = _TRAILING_COUNT.search(name)
        if trailing:  # "h100 80 gb x 8"
            name = name[: trailing.start()]
            count = count or int(trailing.group(1))
        said = Said("hardware", text)
        if _INSTANCE_SHAPED.fullmatch(name):
            return self._instance(text, name, count) or Said("hardware", text, problems=[Problem(
                code="unknown_gpu", field="gpu",
                message=f"I don't know the instance type “{name}”: which GPU does it have, and how many? e.g. “8x H100”")])
        if count is not None:
            said.values["gpu_count"] = count
            self._apply(said, "gpu", name, self._resolve_gpu(name))
            return said
        model = self._resolve("model", name)
        if model is not None and model.id is not None:
            self._apply(said, "model", name, model)
            return said
        gpu = self._resolve_gpu(name)
        if gpu is not None and gpu.id is not None:
            self._apply(said, "gpu", name, gpu)
            return said
        size = _SIZE_B.findall(name)
        head = re.split(r"[ \-]", name)[0]
        if size and (head in _NOT_NAMES or head.isdigit()):
            said.values["params_b"] = float(size[-1])
            return said
        if _WORD_VERSION.fullmatch(name) and not (model and model.candidates) and not (gpu and gpu.candidates):
            return Said("filler", text)  # "pipeline v2": a version of something, not a model we know
        instance = self._instance(text, name, None)  # an instance type of an unusual shape
        if instance is not None:
            return instance
        if model is not None and model.candidates and model.id is None and not (size and _near_misses(name, model)):
            self._apply(said, "model", name, model)
        elif gpu is not None and gpu.candidates and gpu.id is None:
            self._apply(said, "gpu", name, gpu)
        else:
            if size:
                said.values["params_b"] = float(size[-1])
            said.problems.append(_unknown(name, model, gpu, size[-1] if size else None))
        return said

    def _instance(self, text: str, name: str, count: int | None) -> Said | None:
        """'4 ml.p4d.24xlarge' -> 32 a100-sxm-40gb on sagemaker, through the resolver's optional
        `resolve_instance` (see `InstanceResolver`); None when it has none or does not know the name."""
        lookup = getattr(self.resolver, "resolve_instance", None)
        if not callable(lookup):
            return None
        if name not in self._instances:
            self._instances[name] = lookup(name)
        found = self._instances[name]
        if found is None or getattr(found, "id", None) is None:
            return None
        per_node = int(getattr(found, "gpus_per_node", 1) or 1)
        instances = count or 1
        values: dict[str, Any] = {"gpu": found.id, "gpu_count": instances * per_node}
        provider = getattr(found, "provider", None)
        if provider:
            values["provider"] = provider
        where = f" on {provider}" if provider else ""
        total = f": {instances} × {per_node} = {instances * per_node} GPUs" if instances > 1 else ""
        note = f"“{name}” is {per_node}× {found.id}{where}{total}"
        return Said("hardware", text, values, notes=[note])

    def _resolve_gpu(self, name: str) -> Resolved | None:
        gpu = self._resolve("gpu", name)
        if gpu is not None and gpu.id is None and not gpu.candidates and _MEMORY_SUFFIX.search(name):
            return self._resolve("gpu", _MEMORY_SUFFIX.sub("", name))  # "a100 48 gb" -> "a100"
        return gpu

    def _apply(self, said: Said, kind: str, name: str, resolved: Resolved | None) -> None:
        """Record a resolution: resolved (maybe a family default, noted), ambiguous, or unknown."""
        if resolved is None:  # no resolver: nothing can be named
            said.problems.append(Problem(code=f"unknown_{kind}", field=kind, message=f"I can't look up “{name}” here."))
            return
        if resolved.id is not None:
            said.values[kind] = resolved.id
            if resolved.candidates:
                said.notes.append(resolved.message or f"“{name}” → assumed {resolved.id} (also: {', '.join(resolved.candidates)})")
            return
        code = f"ambiguous_{kind}" if resolved.candidates else f"unknown_{kind}"
        message = resolved.message or f"I don't know the {kind} “{name}”."
        said.problems.append(Problem(code=code, field=kind, message=message, candidates=tuple(resolved.candidates)))

    def _memory_card(self, text: str, memory_gb: float, count: int | None) -> Said:
        """'one 24GB card': a GPU-memory constraint, not a GPU. The engine picks the cards that have it."""
        said = Said("hardware", text, {"gpu_count": count} if count else {})
        if memory_gb <= 0:
            return said
        said.values["gpu_memory_gb"] = memory_gb
        said.notes.append(f"{memory_gb:g} GB cards: I'll only consider GPUs with {memory_gb:g} GB")
        return said

    # ---- the whole message -------------------------------------------------------------------
    def start(self, items: list[Said]) -> Reading:
        items = _negatives(items)
        items = _io_lengths(items)
        items = _token_wording(items, self.current_mode)
        items = self._names_in_position(items)
        items = _own_hardware(items)
        items = _soft_modes(items, self.current_mode)
        items = _per_node(items)
        items = _zeros_and_ranges(items)
        return fold(items, self.current_mode, current_output_tokens=self.current_output_tokens)

    def _names_in_position(self, items: list[Said]) -> list[Said]:
        """After a verb ("serve", "fine-tune", "qlora") a plain word may be a model; after "what
        about" it may be a provider, model or GPU, and a bare cloud is where it runs."""
        items = list(items)
        named = any("model" in s.values or "params_b" in s.values or s.problems for s in items)
        for index, said in enumerate(items):
            role = "refine" if said.cues & {"refine", "refine_verb"} and said.kind in ("cue", "filler") else (
                "verb" if said.kind == "mode" or said.cues & {"train", "finetune"} else None)
            if role is None:
                continue
            nxt = index + 1
            while nxt < len(items) and nxt - index <= 2 and items[nxt].word and items[nxt].text in _ARTICLES:
                nxt += 1
            if nxt >= len(items):
                continue
            target = items[nxt]
            if role == "refine" and target.kind == "cloud":
                cloud = str(target.values["data_location"])
                resolved = self._resolve("provider", cloud)
                items[nxt] = Said("provider_cloud", target.text, {"provider": resolved.id if resolved and resolved.id else cloud})
            elif target.word:
                word, width = target.text, 1
                if nxt + 2 < len(items) and items[nxt + 1].text == "-" and items[nxt + 2].word:  # "falcon-mamba"
                    word, width = f"{word}-{items[nxt + 2].text}", 3
                found = self._bare_name(word, _NAME_LOOKUPS[role])  # "falcon-mamba" is not a Falcon
                if found is None and role == "verb" and not named and self._unknown_word(target.text):
                    found = Said("hardware", word, problems=[_unknown(word, self._resolve("model", word), None, None)])
                if found is not None:
                    items[nxt:nxt + width] = [found] + [Said("filler", s.text) for s in items[nxt + 1:nxt + width]]
                    named = named or bool(found.values or found.problems)
        return items

    def _unknown_word(self, word: str) -> bool:
        """A plain word after a verb that could be a model the catalog lacks ("serve grok"): not a
        common word, an adverb, a gerund or a plural ("serve traffic", "deploy quickly", "serve requests")."""
        return (self.resolver is not None and len(word) >= 3 and word not in _COMMON_AFTER_VERB
                and word not in _NOT_NAMES and not word.endswith(("ly", "ing", "s")))


def _negatives(items: list[Said]) -> list[Said]:
    """'70b -5 epochs': a value after a minus sign is ignored with a note, never flipped positive."""
    out: list[Said] = []
    negative = False
    for said in items:
        if said.kind == "negative":
            negative = True
            continue
        if negative:
            negative = False
            numeric = [k for k, v in said.values.items() if isinstance(v, int | float) and not isinstance(v, bool)]
            if numeric or said.bare or said.requests_per_s or said.count is not None:
                what = ", ".join(_FIELD_WORDS.get(k, k.replace("_", " ")) for k in numeric) or "that number"
                values = {k: v for k, v in said.values.items() if k not in numeric}
                said = replace(said, kind=said.kind if values else "filler", values=values, bare=(), requests_per_s=None,
                               per_node=None, count=None, io_field=None, cues=said.cues | {"ignored"},
                               notes=[*said.notes, f"{what} can't be negative: ignored “-{said.text}”"])
        out.append(said)
    return out


def _number_like(said: Said) -> float | None:
    """The number a phrase is made of when it is only a number: '512', '1k', '2000 tokens'."""
    if said.kind == "tokens" and said.count is not None:
        return said.count
    if said.kind == "size" and not said.values and len(said.bare) == 1 and isinstance(said.bare[0], tuple):
        return float(said.bare[0][1])
    if said.kind == "filler" and len(said.bare) == 1 and re.fullmatch(r"\d+(?:\.\d+)?", said.text):
        return float(said.bare[0])
    return None


def _io_lengths(items: list[Said]) -> list[Said]:
    """'input 512 output 128', '1k prompt', '1k tokens in / 256 out': each length keyword takes the
    number just before it, else the one just after it (a number is used once)."""
    items = list(items)
    used: set[int] = set()
    for index, said in enumerate(items):
        if said.io_field is None:
            continue
        for other in (index - 1, index + 1):
            if 0 <= other < len(items) and other not in used and items[other].io_field is None:
                value = _number_like(items[other])
                if value is not None and value >= 1:
                    break
        else:
            continue
        used |= {index, other}
        text = f"{items[other].text} {said.text}" if other < index else f"{said.text} {items[other].text}"
        items[other] = Said("filler", items[other].text)
        items[index] = Said("io", text, {said.io_field: int(value)})
    return items


def _token_wording(items: list[Said], current_mode: str | None) -> list[Said]:
    """Tokens under a million: 'with/on/over 50k tokens' (unless serving: "serve it with 4k tokens"
    is a context), '50k tokens of data' are the corpus;
    '4096 tokens per sample', 'samples of 2k tokens' a sequence length; bare, a sequence length
    (with a note when training, where the corpus is the likelier meaning)."""
    items = list(items)
    serving = current_mode == "inference" or any(s.values.get("mode") == "inference" for s in items)
    for index, said in enumerate(items):
        if said.kind != "tokens" or said.count is None:
            continue
        before = [s.text for s in items[max(0, index - 2):index]][::-1] + ["", ""]
        after = [s.text for s in items[index + 1:index + 4]] + ["", "", ""]
        count, text = said.count, said.text
        per_sequence = ((after[0] in ("per", "each", "a", "every") and after[1] in _SEQ_NOUNS) or after[0] in ("each", "long")
                        or (before[0] == "of" and before[1] in _SEQ_PLURALS))
        data = ((before[0] in _DATA_LEADS and not serving) or after[0] in _DATA_NOUNS or (after[0] == "of" and _DATA_NOUNS & set(after[1:3]))
                or (before[0] == "of" and before[1] in ("dataset", "corpus", "data")))
        seq_len = said.values.get("seq_len") or int(_qty(str(int(count)), binary=True))
        if per_sequence:
            items[index] = replace(said, kind="context", values={"seq_len": seq_len})
        elif data or count >= 1e6:
            items[index] = replace(said, values={"dataset_tokens": int(count)})
        elif not serving:
            items[index] = replace(said, notes=[*said.notes, f"read “{text}” as the sequence length; for the training "
                                                             f"data say “{text} of data”"])
    return items


def _own_hardware(items: list[Said]) -> list[Said]:
    """'data stored locally' is where the data lives; 'run it on-prem', 'train on-prem' where it runs."""
    items = list(items)
    for index, said in enumerate(items):
        before = items[max(0, index - 3):index]
        if said.kind == "own_hw" and said.text == "locally":
            if any(s.kind == "data" or s.text in _NOT_DATA_BEFORE_LOCALLY for s in before):
                items[index] = Said("location", said.text, {"data_location": "onprem"})
        elif said.kind == "location" and "prem" in said.text and before:
            previous = next((s for s in reversed(before) if s.text not in ("it", "them", "this", "everything")), before[-1])
            if (previous.kind in ("mode", "soft_mode") or previous.cues & {"train", "finetune"}
                    or previous.text in _RUN_WORDS):
                items[index] = Said("own_hw", said.text, notes=[OWN_HARDWARE_NOTE])
    return items


def _soft_modes(items: list[Said], current_mode: str | None) -> list[Said]:
    """'SFT'/'PEFT'/'DPO' give a mode only when none is said outright ("DPO with LoRA" is LoRA) and
    the thread is not already an adapter run; PEFT makes the others LoRA. The preference-tuning
    note stays whenever training; none is said when serving ("serve the DPO model")."""
    soft = [i for i, s in enumerate(items) if s.kind == "soft_mode"]
    if not soft:
        return items
    items = list(items)
    hard = [s.values["mode"] for s in items if s.kind == "mode"]
    lora = any(items[i].text == "peft" for i in soft)
    for index in soft:
        said = items[index]
        values: dict[str, Any]
        notes: list[str]
        if hard and all(m == "inference" for m in hard):
            values, notes = {}, []
        elif hard or current_mode in ("lora", "qlora"):
            values, notes = {}, [n for n in said.notes if "preference" in n]
        else:
            values, notes = {"mode": "lora" if lora else said.values["mode"]}, list(said.notes)
        items[index] = replace(said, values=values, notes=notes)
    return items


def _zeros_and_ranges(items: list[Said]) -> list[Said]:
    """'0 users', '0 epochs': ignored with a note. '3-5 epochs': the upper end, with a note."""
    items = list(items)
    for index, said in enumerate(items):
        zero = [k for k in _POSITIVE_FIELDS if k in said.values and said.values[k] == 0]
        if zero:
            values = {k: v for k, v in said.values.items() if k not in zero}
            what = ", ".join(_FIELD_WORDS.get(k, k.replace("_", " ")) for k in sorted(zero))
            items[index] = replace(said, values=values, kind=said.kind if values else "filler", cues=said.cues | {"ignored"},
                                   notes=[*said.notes, f"{what} can't be 0: ignored “{said.text}”"])
            continue
        if index >= 2 and said.values and items[index - 1].text in ("-", "to"):
            low, high = _number_like(items[index - 2]), re.match(r"\d+(?:\.\d+)?", said.text)
            if low is not None and items[index - 2].kind == "filler" and high and low < float(high.group(0)):
                sep = "-" if items[index - 1].text == "-" else " to "
                said.notes.append(f"read “{items[index - 2].text}{sep}{said.text}” as {said.text} (the upper end)")
    return items


def _suggestions(resolved: Resolved | None) -> tuple[str, tuple[str, ...]]:
    """What a resolver suggests for an unknown name: (text to show, ids). The catalog puts its
    suggestions in the message ("Did you mean: Mixtral 8x7B (mixtral-8x7b), ...?")."""
    if resolved is None or resolved.id is not None:
        return "", ()
    if resolved.candidates:
        ids = tuple(resolved.candidates)
        return ", ".join(ids[:4]), ids
    found = _DID_YOU_MEAN.search(resolved.message or "")
    if found is None:
        return "", ()
    return found.group(1), tuple(_ID_IN_PARENS.findall(found.group(1)))


def _near_misses(name: str, model: Resolved) -> bool:
    """Suggestions for a sized name that are not its own family ("llama-5-70b" -> llama-3-70b):
    the size still counts, the suggestions go in the message."""
    return not all(c.startswith(name.replace(" ", "-")) for c in model.candidates)


def _near(word: str, model_id: str) -> bool:
    """A plain word close to a model id's family ("mixtrall" ~ "mixtral-8x7b", "lama" ~ "llama-3-8b")."""
    family = re.split(r"[-\d]", model_id)[0]
    return model_id.startswith(word) or difflib.SequenceMatcher(None, word, family).ratio() >= 0.8


def _unknown(name: str, model: Resolved | None, gpu: Resolved | None, size: str | None) -> Problem:
    """The friendly problem for a name-shaped word the catalog does not know: a model unless it
    looks like a GPU ("h20", "a800") or only the GPU table has suggestions for it."""
    model_hint, model_ids = _suggestions(model)
    gpu_hint, gpu_ids = _suggestions(gpu)
    if size is None and not model_hint and (gpu_hint or _GPU_SHAPED.fullmatch(name)):
        hint = f"; did you mean {gpu_hint}?" if gpu_hint else ". Which GPU is it closest to?"
        return Problem(code="unknown_gpu", field="gpu", candidates=gpu_ids, message=f"I don't know the GPU “{name}”{hint}")
    if size is not None:
        hint = f"; did you mean {model_hint}?" if model_hint else "."
        message = f"I don't know “{name}”{hint} I'll size it as a generic {size}B model."
    elif model_ids and all(i.startswith(name.replace(" ", "-")) for i in model_ids):  # "gemma": a family
        return Problem(code="ambiguous_model", field="model", candidates=model_ids,
                       message=f"“{name}” could be {model_hint}: which one? Or tell me its size, e.g. “70B”.")
    elif model_hint:
        message = f"I don't know “{name}”; did you mean {model_hint}? Or tell me its size, e.g. “70B”."
    else:
        message = f"I don't know “{name}”. Which model is it like, or how big is it? Tell me its size, e.g. “70B”."
    return Problem(code="unknown_model", field="model", candidates=model_ids, message=message)


def _per_node(items: list[Said]) -> list[Said]:
    """'2 nodes, 8 GPUs each' / '8 GPUs per node on 2 nodes': GPUs per node times the node count."""
    per_node = [s for s in items if s.per_node]
    clusters = [s for s in items if s.kind == "cluster" and "gpu_count" not in s.values]
    if len(per_node) != 1 or len(clusters) != 1:
        return items
    gpus, cluster = per_node[0], clusters[0]
    nodes = int(cluster.values["nodes"])
    gpus.values["gpu_count"] = nodes * (gpus.per_node or 0)
    gpus.notes.append(f"{nodes} nodes × {gpus.per_node} GPUs = {nodes * (gpus.per_node or 0)} GPUs")
    return items


def fold(
    items: list[Said], current_mode: str | None = None, text: str = "", current_output_tokens: int | None = None
) -> Reading:
    """Combine a message's phrases in order into one Reading (conflicts kept, not resolved)."""
    given: dict[str, list[tuple[Any, str]]] = {}
    notes: list[str] = []
    problems: list[Problem] = []
    cues: set[str] = set()
    bare: list[Any] = []
    requests: list[tuple[float, str]] = []
    skip_next = False
    for index, said in enumerate(items):
        cues |= said.cues
        if said.kind == "instead_of":
            skip_next = True
            continue
        if skip_next and (said.values or said.problems):
            skip_next = False
            notes.append(f"left out “{said.text}” (what it replaces)")
            continue
        values = dict(said.values)
        if said.kind == "provider_cloud" and _after_data(items[max(0, index - 2):index]):
            cloud = values.pop("provider")  # "500GB corpus on AWS": where the data lives
            values["data_location"] = _pick(str(cloud), _CLOUD)
        for name, value in values.items():
            if value is not None:
                given.setdefault(name, []).append((value, said.text))
        notes += said.notes
        problems += said.problems
        bare += said.bare
        if said.requests_per_s:
            requests.append((said.requests_per_s, said.text))

    updates: dict[str, Any] = {}
    conflicts: list[Conflict] = []
    for name, pairs in given.items():
        distinct = list(dict.fromkeys(value for value, _ in pairs))
        if len(distinct) == 1:
            updates[name] = distinct[0]
        else:
            said_for = {value: text for value, text in reversed(pairs)}
            conflicts.append(Conflict(field=name, values=tuple(distinct), said=tuple(said_for[v] for v in distinct)))

    if "batch" in updates:
        mode = updates.get("mode", current_mode)
        updates["concurrency" if mode == "inference" else "batch_size"] = updates.pop("batch")
    if requests:
        notes.append(_requests_to_tokens(requests[0], updates, current_output_tokens))
    mode_unsaid = "mode" not in updates and current_mode is None and not any(c.field == "mode" for c in conflicts)
    if mode_unsaid and _train_verb(items) and "finetune" not in cues and ("model" in updates or "params_b" in updates):
        updates["mode"] = "full"  # "train a 21B model": training, not serving; the note invites the correction
        notes.append(TRAIN_NOTE)
        mode_unsaid = False
    serving_only = [f for f in ("concurrency", "target_tokens_per_s", "output_tokens", "prompt_tokens") if f in updates]
    if mode_unsaid and (serving_only or requests):
        updates["mode"] = "inference"
        notes.append("serving (you gave concurrent users)" if "concurrency" in updates else "serving (you gave a request rate or response length)")
    if "refine_verb" in cues:  # "use A100s": a follow-up, unless the message describes a whole job
        cues.discard("refine_verb")
        if not ("mode" in updates and ("model" in updates or "params_b" in updates)):
            cues.add("refine")
    if requests and not updates:
        cues.add("refine")  # "50 qps" in a serving thread: said something, even if nothing changes yet
    # a value ignored with a note ("0 epochs", "-5 epochs") was said: the reply shows the note, not help
    intent = _intent(updates, conflicts, problems, cues, bare, said_something=bool(requests) or "ignored" in cues)
    return Reading(
        text=text, updates=updates, intent=intent, conflicts=tuple(conflicts), unknown_names=tuple(problems),
        notes=tuple(dict.fromkeys(notes)), cues=frozenset(cues), bare=tuple(bare),
    )


def _train_verb(items: list[Said]) -> bool:
    """'train' as a verb ("train a 21B model"), not a noun's modifier ("training data")."""
    for index, said in enumerate(items):
        if said.kind == "cue" and "train" in said.cues:
            following = items[index + 1].text if index + 1 < len(items) else ""
            if following not in _TRAINING_NOUNS:
                return True
    return False


def _requests_to_tokens(request: tuple[float, str], updates: dict[str, Any], current_output_tokens: int | None) -> str:
    """A request rate becomes a tokens/s target only with a response length; nothing is assumed."""
    per_s, said = request
    if "target_tokens_per_s" in updates:
        return f"kept the tokens/s target; “{said}” not used"
    output_tokens = updates.get("output_tokens") or current_output_tokens
    if not output_tokens:
        return (f"“{said}” is {per_s:g} requests/s; to size for it I need the response length, "
                f"e.g. “{said}, 200-token responses”")
    updates["target_tokens_per_s"] = round(per_s * output_tokens, 6)
    return f"{per_s:g} requests/s × {output_tokens} output tokens = {per_s * output_tokens:g} tokens/s"


def _after_data(previous: list[Said]) -> bool:
    return any(s.kind == "data" or (s.kind == "filler" and s.text in _DATA_WORDS) for s in previous)


def _intent(
    updates: dict[str, Any], conflicts: list[Conflict], problems: list[Problem], cues: set[str], bare: list[Any],
    said_something: bool = False,
) -> str:
    if "undo" in cues:
        return "undo"
    if not (updates or conflicts or problems or said_something):
        if "help" in cues:
            return "help"
        if bare:
            return "answer"
        if cues & {"train", "finetune", "vram"}:
            return "describe"
        return "gibberish"
    if "vram" in cues:
        return "vram"
    if "refine" in cues:
        return "refine"
    return "describe"
