"""Parse tree -> `Reading`: one method per grammar rule, then one fold over the message.

Each rule method turns its phrase into a `Said` (the Workload fields it sets, cues, notes, name
problems). `start` first reads what depends on a phrase's neighbours (`neighbours`, `hardware`,
and a bare word in a name position through `names`: "serve mixtral", "what about SageMaker?"),
then `fold` combines the phrases in order: "X instead of Y" drops Y, "corpus on AWS" is where
the data lives, and a field given two different values becomes a `Conflict`.

This module holds only the rule methods and the order of the passes. Names are resolved through
the injected `NameResolver` by `names.NameReader`; nothing here knows a model or GPU by name.
Numbers and units are read by `quantities`, fixed words by `words`.
"""

from __future__ import annotations

import re
from typing import Any

from lark import Token, Transformer

from .amounts import (
    _compressed_data,
    _electricity_prices,
    _generated_tokens,
    _new_tokens_per_turn,
    _people_as_users,
    _request_lengths,
    _token_loads,
    _training_examples,
    _users_behind_a_rate,
    minute_or_hour,
    token_load,
)
from .fold import fold
from .hardware import (
    OWN_HARDWARE_NOTE,
    _compared_gpus,
    _compared_precisions,
    _count_of_them,
    _host_machines,
    _memory_card,
    _one_gpu,
    _own_hardware,
    _owned_gpus,
    _per_node,
)
from .names import _NOT_NAMES, NameReader
from .neighbours import (
    _counted_things,
    _io_lengths,
    _label_replies,
    _negatives,
    _reasoning_lengths,
    _sequence_lengths,
    _soft_modes,
    _token_wording,
    _zeros_and_ranges,
)
from .normalize import HUGE_NUMBER
from .percentiles import percentile_said
from .price_asks import read_price_ask
from .quantities import _DATA_UNIT_GB, _number, _qty, _sig
from .rag import rag_prompts
from .reading import NameResolver, Reading
from .said import Said
from .schedule import HOURS_PER_MONTH, combine_schedules, duration_hours, per_month, seconds_in, span_seconds
from .words import _CLOUD, _PRECISION, _STORE, _pick

# a cloud said bare that may be where a job runs (`_bare_clouds`); "amazon", "google" name other things too
_BARE_CLOUDS = {"aws", "gcp", "azure"}
# words that put the data beside a bare cloud: then it says where the data lives
_DATA_NEAR_CLOUD = {"data", "dataset", "datasets", "corpus", "bucket", "buckets", "files", "shards", "stored", "lives",
                    "sits", "kept", "s3", "gcs", "blob"}
_PLAIN_PARAMS_MIN = 1e5  # "7 parameters" is not a model size; "125000000 parameters" is
_REFINE_VERBS = {"try", "use", "using", "switch to", "switching to", "move to", "go with"}
_PER_USER = re.compile(r"(?: (?:per|each|for each|for every|a|for one) | ?/ ?)(?:users?|streams?|sequences?|sessions?|"
                       r"requests?|clients?|conversations?|persons?)$| each$")
_FIRST_TOKEN = re.compile(r"ttft|first token")
_PER_TOKEN_KEY = re.compile(r"token|itl|tpot|decod|generation")
_PER_TOKEN_SPAN = re.compile(r"tokens?$")
_END_TO_END = re.compile(r"e2e|end[ -]to[ -]end|request|response")
_EVERY = re.compile(r"(?:every|each) |(?:daily|weekly|monthly|quarterly|yearly|annually)$")
_SINGULAR_RUN = re.compile(r"(?:^|\s)(?:run|experiment|job|sweep|trial)$")
PEFT_NOTE = "“PEFT” read as LoRA; say “QLoRA” for 4-bit adapters"
SFT_CUE = "sft_full"  # "SFT" said with no method: sized as a full fine-tune, the method still asked
# Preference tuning the engine sizes as such (engine.models.Objective): DPO and "preference tuning" hold a reference
# model, ORPO and SimPO are reference-free; both train two sequences per pair
_OBJECTIVES = {"dpo": "dpo", "orpo": "orpo", "simpo": "orpo", "grpo": "grpo", "ppo": "ppo"}
# online RL sized as itself (engine.rl): GRPO and PPO here; RLOO, DAPO, RLVR and "RL fine-tuning" are read as GRPO by
# parser.rl_phrases before the grammar
# RLHF (PPO or DPO, said no further) and KTO are not sized as themselves: said, with what is left out
RL_NOTE = ("{name} is reinforcement learning: besides the policy it generates rollouts and holds a reward model and a "
           "frozen reference (PPO a value model too); only the policy's training is sized here, none of those")
KTO_NOTE = ("KTO holds a frozen reference model like DPO but trains unpaired examples: sized as a plain fine-tune, "
            "without the reference (say “DPO” to size one with it)")


def _text(items: list[Any]) -> str:
    return " ".join(str(t) for t in items if isinstance(t, Token | str))


# how a batch is said: per GPU (the micro-batch, memory) or across all GPUs (the optimiser's batch, steps)
_PER_GPU_BATCH = re.compile(r"micro|per[ -]?gpu|per[ -]?device|local|device|^mbs$")
_GLOBAL_BATCH = re.compile(r"global|effective|total|overall|optimi[sz]er|^gbs$")

# a budget per period -> per month (730 hours a month, as every monthly figure here)
_MONTHS_PER = {"day": 730 / 24, "week": 730 / 168, "month": 1.0, "quarter": 1 / 3, "year": 1 / 12}


def _period_unit(period: str) -> str:
    """'a month', 'per yr', '/wk', 'monthly', 'annually' -> 'month', 'year', 'week', ..."""
    text = period.lower()
    for unit, words in (("quarter", ("quarter",)), ("year", ("year", "yr", "annual")), ("week", ("week", "wk")),
                        ("day", ("day", "daily")), ("month", ("month", "mo"))):
        if any(w in text for w in words):
            return unit
    return "month"


class MessageTransformer(Transformer[Token, Reading]):
    """Turns the parse tree of one normalized message into a `Reading`."""

    def __init__(
        self, resolver: NameResolver | None, current_mode: str | None = None, current_output_tokens: int | None = None,
        them: str | None = None,
    ) -> None:
        super().__init__()
        self.them = them  # what "N of them" counts in this thread: "users", "unclear", "files", or None (GPUs)
        self.resolver = resolver
        self.current_mode = current_mode
        self.current_output_tokens = current_output_tokens
        self.names = NameReader(resolver)  # one lookup per name per message

    # ---- phrases -------------------------------------------------------------------------
    def mode(self, items: list[Token]) -> Said:
        kind = items[0].type
        value = {"QLORA": "qlora", "LORA": "lora", "FULL_FT": "full", "PRETRAIN": "pretrain"}.get(kind, "inference")
        return Said("mode", _text(items), {"mode": value})

    def soft_mode(self, items: list[Token]) -> Said:
        """'SFT' -> training, 'PEFT' -> LoRA, 'DPO'/'preference tuning' -> full with objective "dpo" (the engine
        sizes its reference model), 'ORPO'/'SimPO' -> objective "orpo" (reference-free), 'RLHF'/'PPO'/'GRPO'/'KTO'
        -> full with a note of what is not sized. A mode said outright in the same message ("DPO with LoRA") wins:
        see `_soft_modes`."""
        text = str(items[0])
        if text == "peft":
            return Said("soft_mode", text, {"mode": "lora"}, frozenset({"finetune"}), notes=[PEFT_NOTE])
        if re.match(r"sft|supervised|instruction", text):
            # TRL's SFTTrainer (and Megatron's and torchtitan's SFT recipes) train every weight unless handed a LoRA
            # config: a full fine-tune, said so; "LoRA SFT" said outright wins (`_soft_modes`)
            return Said("soft_mode", text, {"mode": "full"}, frozenset({"finetune", SFT_CUE}))
        objective = _OBJECTIVES.get(text, "dpo" if text.startswith("preference") else None)
        if objective is not None:
            return Said("soft_mode", text, {"mode": "full", "objective": objective}, frozenset({"finetune"}))
        note = KTO_NOTE if text == "kto" else RL_NOTE.format(name=text.upper())
        return Said("soft_mode", text, {"mode": "full"}, frozenset({"finetune"}), notes=[note])

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
        if items[-1].type == "PER_BATCH":  # "4M tokens per batch": the optimiser's batch across all GPUs
            return Said("batch", _text(items), {"global_batch_tokens": max(1, round(count))})
        load = token_load(count, str(items[-1])) if items[-1].type == "PERIOD" else None
        if count < 1e6:
            return Said("tokens", _text(items), {"seq_len": int(_qty(number, binary=True))}, count=count, load=load)
        return Said("tokens", _text(items), {"dataset_tokens": int(count)}, count=count, load=load)

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
        return Said("deadline", _text(items), {"deadline_hours": hours})

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
            resolved = self.names.resolve("provider", cloud)
            return Said("provider_cloud", _text(items), {"provider": resolved.id if resolved else cloud}, cues)
        if len(word) < 3 or word in _NOT_NAMES or self.resolver is None:
            return Said("filler", _text(items), cues=cues)
        resolved = self.names.resolve("provider", word)
        if resolved is not None and resolved.id is not None:
            return Said("provider", _text(items), {"provider": resolved.id}, cues)
        for kind in ("model", "gpu"):  # "try mixtral", "use deepseek": a letters-only name
            named = self.names.resolve(kind, word)
            if named is not None and named.id is not None:
                said = Said("hardware", _text(items), cues=cues)
                self.names.apply(said, kind, word, named)
                return said
        return Said("filler", _text(items), cues=cues)

    def hardware(self, items: list[Token]) -> Said:
        last = items[-1]
        if last.type == "NAME":
            return self.names.name(str(last))
        if items[0].type == "GPUS":  # "gpus: 8", "gpus per node: 8"
            items = [items[1], items[0]]
            last = items[-1]
        count = int(_number(str(items[0]))) if len(items) > 1 else None
        if last.type == "GPUS":
            if count and re.search(r" (?:per|each|a) |each$", str(last)):
                return Said("hardware", _text(items), {"gpu_count": count}, per_node=count)
            return Said("hardware", _text(items), {"gpu_count": count})
        return _memory_card(_text(items), _number(str(last).split("gb")[0]), count)

    def cluster(self, items: list[Token]) -> Said:
        if items[0].type == "NODES":  # "nodes: 2"
            return Said("cluster", _text(items), {"nodes": int(_number(str(items[1])))})
        nodes = int(_number(str(items[0])))
        said = Said("cluster", _text(items), {"nodes": nodes})
        if len(items) < 3:
            return said
        if items[2].type == "NAME":
            named = self.names.name(str(items[2]))
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
        # "5,000 users" (concurrent or not) may be users online, of whom a fraction generate at once: a question
        # when the count is large (parser.questions); "5,000 streams" or "at once" says generating
        users = any(t.type in ("USERS", "CONCURRENT") and re.search(r"\busers?\b", str(t)) and "at " not in str(t)
                    for t in items)
        return Said("concurrency", _text(items), {"concurrency": count}, frozenset({"users_counted"}) if users else frozenset(),
                    notes=notes)

    def throughput(self, items: list[Token]) -> Said:
        """'3000 tokens/s' is the aggregate; '30 tokens/s per user', '40 tok/s each' what one user sees;
        '500 rps' a request rate (the fold pairs it with the response length)."""
        amount, rate = _qty(str(items[0])), str(items[1])
        if items[1].type == "TOK_RATE":
            per_user = _PER_USER.search(rate)
            per_s = amount / seconds_in(rate[:per_user.start()] if per_user else rate)
            if per_user:
                return Said("throughput", _text(items), {"target_tokens_per_s_per_user": _sig(per_s)})
            period = minute_or_hour(rate)
            if period is not None:  # "2M tokens an hour": a load counted like an API's tokens per minute
                return Said("throughput", _text(items), load=(per_s, period))
            return Said("throughput", _text(items), {"target_tokens_per_s": round(per_s, 6)})
        return Said("throughput", _text(items), requests_per_s=amount / seconds_in(rate))

    def latency(self, items: list[Token]) -> Said:
        """'ttft under 500 ms' -> target_ttft_s 0.5; '50 ms per token', 'tpot 40ms', 'inter-token latency
        25 ms' -> a per-user speed (1000/ms tokens/s); a bare 'latency 200 ms' says neither, so it is
        asked about in a note, never guessed; '200 ms' alone is no target at all."""
        text, span = _text(items), str(items[-1])
        key = str(items[0]) if len(items) > 1 else ""
        seconds = span_seconds(span)
        if seconds is None:
            return Said("filler", text)
        if seconds <= 0:
            return Said("filler", text, cues=frozenset({"ignored"}), notes=[f"a latency can't be 0: ignored “{text}”"])
        if _FIRST_TOKEN.search(key):
            return Said("latency", text, {"target_ttft_s": _sig(seconds), **percentile_said(key)})
        if key.startswith("response time") and not _PER_TOKEN_SPAN.search(span):
            # a streamed chat reply's "response time" is when it starts answering: the first token, said so
            return Said("latency", text, {"target_ttft_s": _sig(seconds), **percentile_said(key)}, notes=[
                f"read “{text}” as the time to the first token (replies stream); say “end-to-end under "
                f"{span.split(' per')[0]}” for the whole reply"])
        if _END_TO_END.search(key) and not _PER_TOKEN_SPAN.search(span):
            return Said("latency", text, end_to_end_s=seconds)
        if _PER_TOKEN_KEY.search(key) or _PER_TOKEN_SPAN.search(span):
            return Said("latency", text, {"target_tokens_per_s_per_user": _sig(1 / seconds)},
                        notes=[f"read “{text}” as {1 / seconds:g} tokens/s per user"])
        if key:
            return Said("filler", text, cues=frozenset({"ignored"}), notes=[
                f"“{text}”: per output token or to the first token? Say e.g. “{span.split(' per')[0]} per token” "
                f"or “time to first token under {span.split(' per')[0]}”"])
        return Said("filler", text)

    def output(self, items: list[Token]) -> Said:
        number = next((t for t in items if t.type in ("NUMBER", "QTY")), None)
        if number is None or _qty(str(number)) < 1:  # "responses of" alone
            return Said("filler", _text(items))
        if items[-1].type == "PERIOD":  # "20M output tokens a day": a load of generated tokens, not a reply length
            load = token_load(_qty(str(number)), str(items[-1]))
            if load is not None:
                per_s, period = load
                return Said("load", _text(items), {"load_tokens_per_s": per_s, "load_period": period,
                                                   "load_output_only": True},
                            notes=[f"read “{_text(items)}” as the load to serve: {per_s:,.4g} output tokens/s"
                                   + (" on average" if period in ("day", "week", "month") else "")])
        return Said("output", _text(items), {"output_tokens": int(_qty(str(number)))})

    def io_length(self, items: list[Token]) -> Said:
        """'input', '1k tokens in', 'out', 'max new tokens': a length keyword; `_io_lengths` pairs it
        with the number beside it."""
        kind = items[0].type
        io_field = "input_tokens" if kind.startswith("PROMPT") else "output_tokens"
        return Said("filler", _text(items), io_field=io_field)

    def batch(self, items: list[Token]) -> Said:
        """'micro-batch 4', 'batch size 4 per gpu': the per-GPU micro-batch; 'global batch size 512', 'a batch of 4M
        tokens': the optimiser's batch across all GPUs (Megatron-LM's --global-batch-size), which never sets memory
        per GPU; a bare 'batch size 64' is read by the fold (`parser.batches`) from the job and the size."""
        words, count = str(items[0]), max(1, round(_qty(str(items[1]))))
        after = str(items[2]) if len(items) > 2 else ""
        per_gpu = bool(_PER_GPU_BATCH.search(words)) or bool(re.search(r"gpu|device", after))
        if items[-1].type == "TOKENS" and not per_gpu:
            return Said("batch", _text(items), {"global_batch_tokens": count})
        if items[-1].type == "TOKENS":  # "micro-batch of 16k tokens": sequences are what a micro-batch counts
            return Said("filler", _text(items), notes=[f"“{_text(items)}”: say the micro-batch in sequences "
                                                       "(“micro-batch 4”) to size it"])
        if per_gpu:
            return Said("batch", _text(items), {"batch_size": count})
        if _GLOBAL_BATCH.search(words):
            return Said("batch", _text(items), {"global_batch": count})
        return Said("batch", _text(items), {"batch": count})

    def steps(self, items: list[Token]) -> Said:
        """'for 5000 steps', '10k training steps': optimiser steps (with the global batch, the tokens trained)."""
        number = next(t for t in items if t.type in ("NUMBER", "QTY"))
        steps = round(_qty(str(number)))
        return Said("steps", _text(items), {"train_steps": steps} if steps >= 1 else {})

    def grad_accum(self, items: list[Token]) -> Said:
        """'gradient accumulation 8': micro-batches per optimiser step (a 'batch size' beside it is per GPU)."""
        number = next(t for t in items if t.type == "NUMBER")
        count = round(_number(str(number)))
        return Said("grad_accum", _text(items), {"gradient_accumulation": count} if count >= 1 else {})

    def price(self, items: list[Token]) -> Said:
        value = _qty(str(items[0]).replace("$", "").replace(" ", ""))  # "$5k" is 5,000
        if len(items) > 1 and items[1].type == "PERIOD":  # a budget, never an hourly rate
            monthly = value * _MONTHS_PER.get(_period_unit(str(items[1])), 1.0)
            per = f"${value:,.0f} {items[1]}" + ("" if abs(monthly - value) < 0.5 else f", ${monthly:,.0f} a month")
            return Said("price", _text(items), {"budget_usd_per_month": round(monthly, 2)}, notes=[
                f"read “{_text(items)}” as a budget ({per}): options over it are ranked after those within it"])
        if len(items) > 1:
            return Said("price", _text(items), {"hourly_rate": value})
        if value <= 20:
            return Said("price", _text(items), {"hourly_rate": value}, notes=[f"read {items[0]} as per GPU-hour"])
        return Said("price", _text(items), {"budget_usd_per_run": value}, notes=[
            f"read {items[0]} as a budget for a run (a GPU-hour costs $0.2-$15): options over it are ranked after those "
            "within it"])

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

    def prefix_cache(self, items: list[Token]) -> Said:
        """'90% prefix cache hits', 'cache hit rate of 0.85', 'no prefix caching': the share of each prompt already in
        the KV cache. Said bare ('with prefix caching'), it sets nothing: the rate is what changes the plan."""
        if any(t.type in ("NEG", "OFF") for t in items):
            return Said("prefix_cache", _text(items), {"prefix_cache_hit": 0.0})
        number = next((t for t in items if t.type in ("PCT", "NUMBER")), None)
        if number is None:
            return Said("prefix_cache", _text(items))
        value = _number(str(number))
        value = value / 100 if number.type == "PCT" or value > 1 else value
        if not 0 <= value <= 1:
            return Said("prefix_cache", _text(items), notes=[f"{number} is not a share of the prompt between 0 and 100%; "
                                                             "ignored it"])
        # a prompt is never wholly cached (its last message is new): 99% at most, as the answer's range allows
        return Said("prefix_cache", _text(items), {"prefix_cache_hit": round(min(value, 0.99), 4)})

    def cache(self, items: list[Token]) -> Said:
        return Said("cache", _text(items), {"cache_dataset": items[0].type != "NEG"})

    def pricing(self, items: list[Token]) -> Said:
        text = str(items[0])
        value = ("spot" if text.startswith(("spot", "preempt")) else
                 "reserved" if text.startswith(("reserv", "commit", "savings")) else "on_demand")
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
        cue = {"UNDO": "undo", "HELP": "help", "REFINE": "refine", "VRAM": "vram", "TRAIN": "train", "ADAPT": "adapt",
               "PRICE_ASK": "price"}.get(kind, "finetune")
        return Said("cue", text, cues=frozenset({cue}))

    def schedule(self, items: list[Token]) -> Said:
        """'9am-6pm', 'on weekdays', '8 hours a day', 'business hours', '24/7': one part of the hours a service runs;
        `combine_schedules` reads a message's parts together (parser.schedule)."""
        return Said("schedule", _text(items))

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
    # ---- the whole message -------------------------------------------------------------------
    def start(self, items: list[Said]) -> Reading:
        items = _negatives(items)
        items = _electricity_prices(items)
        items = _io_lengths(items)
        items = _label_replies(items, self.current_mode)
        items = _reasoning_lengths(items, self.current_mode)
        items = _sequence_lengths(items)
        items = _token_loads(items, self.current_mode)
        items = _generated_tokens(items, self.current_mode)
        items = _training_examples(items, self.current_mode)
        items = _people_as_users(items, self.current_mode)
        items = _users_behind_a_rate(items)
        items = _compressed_data(items)
        items = _token_wording(items, self.current_mode)
        items = _new_tokens_per_turn(items, self.current_mode)
        items = _request_lengths(items)
        items = rag_prompts(items, self.current_mode)
        items = self.names.names_in_position(items)
        items = _own_hardware(items)
        items = _host_machines(items)
        items = _owned_gpus(items)
        items = _compared_gpus(items)
        items = _compared_precisions(items)
        items = _one_gpu(items)
        items = _count_of_them(items, self.them)
        items = _soft_modes(items, self.current_mode)
        items = _per_node(items)
        items = _zeros_and_ranges(items)
        items = _counted_things(items)
        items = self._price_providers(items)
        items = self._bare_clouds(items)
        items = combine_schedules(items)
        reading = fold(items, self.current_mode, current_output_tokens=self.current_output_tokens)
        reading = read_price_ask(reading, items, lambda word: self.names.resolve("provider", word), self.current_mode)
        if reading.intent == "prices" and "gpu" in reading.updates:
            reading = reading.model_copy(update={"gpu_family": self._gpu_family(reading.updates["gpu"])})
        return reading

    def _price_providers(self, items: list[Said]) -> list[Said]:
        """'what does RunPod charge for a 4090?': in a price question a plain word may be the provider,
        with no "on" in front; the catalog decides (the word is looked up only after a price cue)."""
        if self.resolver is None or not any("price" in s.cues for s in items):
            return items
        if any("provider" in s.values for s in items):
            return items
        out = list(items)
        for index, said in enumerate(items):
            if said.word and len(said.text) >= 3 and said.text not in _NOT_NAMES:
                resolved = self.names.resolve("provider", said.text)
                if resolved is not None and resolved.id is not None:
                    out[index] = Said("provider", said.text, {"provider": resolved.id})
                    break
        return out

    def _bare_clouds(self, items: list[Said]) -> list[Said]:
        """'train 70b lora ... h100 x8 aws': a cloud named bare, last in its phrase, in a message that describes a job
        and says nothing of its data (no size, store, "data", "bucket") is where the job runs, as "on AWS" is. It was
        read as where the data lives, silently, and the answer priced a marketplace at a quarter of AWS's price.
        Alone ("aws", answering where the data lives) or beside the data ("500GB aws") it stays the data's place."""
        clouds = [i for i, s in enumerate(items) if s.kind == "cloud" and s.text in _BARE_CLOUDS]
        described = any(s.values and s.kind != "cloud" for s in items)
        data = any(s.kind in ("data", "location") or s.text in _DATA_NEAR_CLOUD for s in items)
        if len(clouds) != 1 or not described or data:
            return items
        index = clouds[0]
        following = items[index + 1] if index + 1 < len(items) else None
        if following is not None and following.kind == "filler" and following.text != ",":
            return items  # "aws credits", "azure openai": the cloud describes the next word
        said = items[index]
        cloud = str(said.values.get("data_location") or said.text)
        resolved = self.names.resolve("provider", cloud)
        out = list(items)
        out[index] = Said("provider_cloud", said.text, {"provider": resolved.id if resolved and resolved.id else cloud},
                          said.cues, notes=[f"read “{said.text}” as where it runs (on {said.text.upper()}); say “data in "
                                            f"{said.text.upper()}” if that is where the data lives instead"])
        return out

    def _gpu_family(self, gpu_id: str) -> tuple[str, ...]:
        """The GPU the name resolved to, then the other members of the family the catalog listed."""
        family = [gpu_id]
        for (kind, _), resolved in self.names._seen.items():
            if kind == "gpu" and resolved is not None and resolved.id == gpu_id:
                family += [c for c in resolved.candidates if c not in family]
        return tuple(family)
