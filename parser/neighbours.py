"""Readings that depend on a phrase's neighbours, applied before the fold.

A minus sign in front of a value, a length keyword beside its number ("input 512"), "50k tokens"
as data or as a context length, "SFT" next to an explicit mode, and "0 users" / "3-5 epochs":
each pass rewrites the list of `Said` so the fold sees one meaning per phrase.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from engine.models import TRAINING_MODES

from .quantities import _qty
from .said import Said
from .schedule import seconds_in
from .words import _JOB_VERB

# Fields where 0 means nothing: "0 users", "0 epochs" are ignored with a note, not applied.
_POSITIVE_FIELDS = {
    "params_b", "dataset_gb", "dataset_tokens", "epochs", "runs_per_month", "gpu_count", "seq_len", "batch_size",
    "concurrency", "lora_rank", "nodes", "target_tokens_per_s", "output_tokens", "input_tokens", "gpu_memory_gb",
    "target_tokens_per_s_per_user", "target_ttft_s", "requests_per_s", "load_tokens_per_s", "dataset_examples",
}
_FIELD_WORDS = {
    "params_b": "the model size", "dataset_gb": "the data size", "dataset_tokens": "the token count",
    "runs_per_month": "runs per month", "gpu_count": "the GPU count", "seq_len": "the context length",
    "batch_size": "the batch size", "lora_rank": "the LoRA rank", "nodes": "the node count",
    "target_tokens_per_s": "a tokens/s target", "output_tokens": "the output length", "input_tokens": "the prompt length",
    "gpu_memory_gb": "GPU memory", "hourly_rate": "a price", "deadline_hours": "a deadline",
    "target_tokens_per_s_per_user": "a per-user speed", "target_ttft_s": "a time to first token",
    "requests_per_s": "a request rate", "load_tokens_per_s": "a token load", "dataset_examples": "the example count",
}
# "with 50k tokens", "50k tokens of data": a corpus; "4096 tokens per sample": a sequence length
_DATA_LEADS = {"with", "on", "over", "using", "use", "from", "total", "data", "dataset", "corpus"}
_DATA_NOUNS = {"data", "dataset", "datasets", "training", "text", "examples", "samples", "instructions",
               "conversations", "dialogues", "documents", "docs", "corpus", "total", "overall", "sft", "fine-tuning"}
_SEQ_NOUNS = {"sequence", "seq", "sample", "example", "row", "doc", "document", "record", "conversation", "turn",
              "message", "item", "chunk", "step"}
_SEQ_PLURALS = {"sequences", "samples", "examples", "rows", "docs", "documents", "records", "conversations",
                "chunks", "items", "messages", "pairs"}

# "8192-token sequences", "8k seq": the length of each sequence, never a corpus
_SEQUENCE_WORDS = {"sequences", "sequence", "seqs", "seq"}
# what a prompt of an offline job or a service is ("documents of 2k tokens each", "2k tokens per request"): its
# length is the prompt's (input_tokens), not a context window or a training sequence
_PROMPT_NOUNS = {"documents", "document", "docs", "doc", "prompts", "prompt", "requests", "request", "items", "item",
                 "pages", "page", "articles", "article", "emails", "email", "tickets", "ticket", "chunks", "chunk",
                 "records", "record", "rows", "row", "files", "file", "transcripts", "transcript", "reviews", "review",
                 "queries", "query", "questions", "question", "passages", "passage",
                 # the short texts batch jobs classify or tag ("50M tweets (~60 tokens each)")
                 "tweets", "tweet", "posts", "post", "comments", "comment", "sentences", "sentence", "paragraphs",
                 "paragraph", "snippets", "snippet", "logs", "log", "lines", "line", "chats", "chat", "calls", "call",
                 "invoices", "invoice", "contracts", "contract", "resumes", "resume", "listings", "listing", "entries",
                 "entry", "messages", "message", "conversations", "conversation", "abstracts", "abstract",
                 "descriptions", "description", "reports", "report", "notes", "note", "receipts", "receipt"}

# things counted in millions and billions that are not a model's parameters: "1 billion documents", "10m images"
_COUNTED_THINGS = _SEQ_PLURALS | {
    "images", "photos", "videos", "pages", "files", "vectors", "passages", "paragraphs", "sentences", "queries",
    "requests", "users", "customers", "people", "emails", "tickets", "products", "reviews", "articles", "books",
    "papers", "embeddings", "posts", "tweets", "transactions", "events", "calls", "lines", "words", "pdfs",
}


def training_said(items: list[Said], current_mode: str | None) -> bool:
    """A training mode or verb in the message (or, with none said, the thread's mode): amounts are the data."""
    modes = {s.values.get("mode") for s in items if s.values.get("mode")}
    if modes & set(TRAINING_MODES):
        return True
    if "inference" in modes:
        return False
    if current_mode is not None:
        return current_mode in TRAINING_MODES
    return any(s.cues & {"finetune", "adapt", "train"} for s in items)


_REQUEST_RATE = re.compile(r"(?:requests?|reqs?|queries|calls)(?: ?/ ?| per | a | each )\w+")


def _counted_things(items: list[Said]) -> list[Said]:
    """'embed 1 billion documents': a size the grammar read as a model ("embed 1b") that counts documents, rows
    or images is not a parameter count; it is dropped with a note instead of sizing a 1B model."""
    out = list(items)
    for index, said in enumerate(out[:-1]):
        following = out[index + 1]
        sized = said.kind == "hardware" and "params_b" in said.values and "model" not in said.values
        if sized and _REQUEST_RATE.fullmatch(following.text):  # "1b requests a month": the grammar's rate lost its count
            count = float(said.values["params_b"]) * 1e9
            out[index] = Said("throughput", f"{said.text.split(' ')[-1]} {following.text}",
                              requests_per_s=count / seconds_in(following.text))
            out[index + 1] = Said("filler", "")
            continue
        if (sized and following.word and following.text in _COUNTED_THINGS):
            size = said.text.split(" ")[-1]
            out[index] = Said("filler", said.text, notes=[
                f"read “{size} {following.text}” as a count of {following.text}, not a model size"])
    return out


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
            if numeric or said.bare or said.requests_per_s or said.count is not None or said.load:
                what = ", ".join(_FIELD_WORDS.get(k, k.replace("_", " ")) for k in numeric) or "that number"
                values = {k: v for k, v in said.values.items() if k not in numeric}
                said = replace(said, kind=said.kind if values else "filler", values=values, bare=(), requests_per_s=None, load=None,
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
    for index, said in enumerate(items[:-1]):  # "2k tokens in, 300 out": the prompt, once an output length is said
        following = items[index + 1]
        if (said.kind == "tokens" and "seq_len" in said.values and said.count and following.text == "in"
                and any(s.io_field == "output_tokens" or "output_tokens" in s.values for s in items[index + 2:])):
            items[index] = Said("io", f"{said.text} in", {"input_tokens": int(said.count)})
            items[index + 1] = Said("filler", "")
    used: set[int] = set()
    for index, said in enumerate(items):
        if said.io_field is None:
            continue
        counted = _counted_prompts(items, index)
        if counted:  # "1M prompts of 500 tokens": the number in front counts the prompts (the job's size), not a length
            used.add(index - 1)
            if not _LINKED_PROMPTS.search(said.text):
                continue  # "1M prompts (500 input tokens)": the length comes with its own keyword
        for other in (index + 1,) if counted else (index - 1, index + 1):
            if 0 <= other < len(items) and other not in used and items[other].io_field is None:
                value = _number_like(items[other])
                if value is not None and value >= 1:
                    break
        else:
            continue
        used |= {index, other}
        text = f"{items[other].text} {said.text}" if other < index else f"{said.text} {items[other].text}"
        if counted:  # the keyword stays the count's noun ("1m prompts"), for the job's count (`fold._job_items`)
            items[other] = Said("io", text, {said.io_field: int(value)})
            continue
        items[other] = Said("filler", items[other].text)
        items[index] = Said("io", text, {said.io_field: int(value)})
    return items


# "prompts", "inputs" in the plural behind a number count them ("1M prompts"); "1k prompt", "prompt 1k" are a length
_PLURAL_PROMPTS = re.compile(r"^(?:prompts|inputs)\b")
# the plural noun with a word that brings its length: "prompts of 500 tokens", "prompts averaging 2k"
_LINKED_PROMPTS = re.compile(r"^(?:prompts|inputs) (?:of|around|about|are|average|averaging|roughly|approximately|approx|"
                             r"typically|usually)\b")


def _counted_prompts(items: list[Said], index: int) -> bool:
    """'1M prompts', '10,000 inputs of 2k tokens': a plain count in front of the plural keyword, which is the number of
    prompts of an offline job; read as their length it made a 1,000,000-token prompt."""
    if index == 0 or not _PLURAL_PROMPTS.match(items[index].text) or items[index].io_field != "input_tokens":
        return False
    previous = items[index - 1]
    value = _number_like(previous) if previous.kind in ("filler", "size") and previous.io_field is None else None
    if value is None:
        return False
    return not _prompt_length_said(items, index, value)


# "with 4k prompts": after "with", a context-sized number and no period after it, the plural is each prompt's length
_LENGTH_LEAD = {"with", "at"}
_LONGEST_PROMPT = 262_144
_PERIOD_WORDS = {"a", "an", "per", "each", "every", "/"}


def _prompt_length_said(items: list[Said], index: int, value: float) -> bool:
    """A context-sized number of prompts with no period after it that practitioners say for each prompt's length:
    - after "with"/"at": 'how many users … with 4k prompts', 'serve 70B for 50 users with 8k prompts' (the count reading
      dropped it, and the prompts were sized at 1,024 tokens);
    - beside a request rate or users: 'serve 8B at 20 QPS, 2k prompts, 300 outputs' (a count of prompts is a job,
      which has no rate of its own; it was read as 2,000 prompts and dropped, half the fleet), unless a job verb says
      it is one ("classify 20k prompts at 10 qps").
    "with 10k prompts a day" stays a count with its period, and a job's count ("1M prompts") is larger than any
    prompt."""
    following = items[index + 1].text.split(" ")[0] if index + 1 < len(items) else ""
    if not 100 <= value <= _LONGEST_PROMPT or following in _PERIOD_WORDS:
        return False
    if index >= 2 and items[index - 2].text in _LENGTH_LEAD:
        return True
    if _JOB_VERB.search(" ".join(s.text for s in items)):
        return False
    return any(s.requests_per_s or {"concurrency", "target_tokens_per_s"} & s.values.keys() for s in items)


_REASONING = {"reasoning", "thinking", "think", "thought", "thoughts", "cot", "chain-of-thought"}
# words between "reasoning" and its length: "reasoning traces around 8k tokens", "thinking budget of 8k tokens"
_REASONING_FILL = {"trace", "traces", "tokens", "token", "budget", "length", "chains", "chain", "of", "around", "about",
                   "is", "are", "~", "average", "averaging", "avg", "typically", "up", "to", "roughly", "runs",
                   "run", ":", "=", "per", "answer", "reply", "response", "each", "a", "usually", "often"}


def _reasoning_lengths(items: list[Said], current_mode: str | None) -> list[Said]:
    """'reasoning traces around 8k tokens', '8k thinking tokens per answer', '8k tokens of reasoning': a reasoning
    model decodes its trace like any reply, so the count is the reply length (output_tokens), with a note; it was
    read as a context window or dropped, and the replies sized at the default length."""
    if training_said(items, current_mode) or any("output_tokens" in s.values for s in items):
        return items
    out = list(items)
    for index, said in enumerate(items):
        if said.text not in _REASONING:
            continue
        at = None
        if index > 0 and _number_like(items[index - 1]) is not None:  # "8k thinking tokens"
            at = index - 1
        elif index > 1 and items[index - 1].text == "of" and items[index - 2].kind == "tokens":  # "8k tokens of reasoning"
            at = index - 2
        else:  # "reasoning traces around 8k tokens"
            for other in range(index + 1, min(index + 5, len(items))):
                if items[other].kind == "tokens" and items[other].count is not None:
                    at = other
                    break
                if items[other].text not in _REASONING_FILL:
                    break
        count = _number_like(items[at]) if at is not None else None
        if at is None or count is None or not 100 <= count < 1e6:
            continue
        tokens = int(count)
        first, last = min(at, index), max(at, index)
        text = " ".join(s.text for s in items[first:last + 1] if s.text)
        for other in range(first, last + 1):
            out[other] = Said("filler", "")
        # "8k thinking tokens per answer": the unpaired "tokens per answer" beside it goes with it
        if last + 1 < len(items) and items[last + 1].io_field == "output_tokens":
            out[last + 1] = Said("filler", "")
            text = f"{text} {items[last + 1].text}"
        out[first] = Said("io", text, {"output_tokens": tokens}, notes=[
            f"read “{text}” as each reply's length ({tokens:,} tokens out): a reasoning model decodes its trace like "
            "the answer (add the visible answer's length if it is long)"])
        return out
    return out


_LABEL_WORDS = {"label", "class", "category", "tag", "verdict", "score", "labels", "classes", "categories", "tags",
                "verdicts", "scores"}
# what says the reply is one label: "one label", "a single label", "one-word labels", "single-word tags"
_ONE_LABEL = ("a", "one", "1", "output 1", "single", "one-word", "1-word", "single-word", "word")
LABEL_REPLY_TOKENS = 5  # a class name ("positive", "billing_issue") is 1-5 tokens; the longer end, as it costs more


def _label_replies(items: list[Said], current_mode: str | None) -> list[Said]:
    """'output one label', 'return a single label', 'a label per tweet': a reply of a few tokens, not the default
    256-token answer nor exactly one token (a class name is often two or three), said in a note."""
    if training_said(items, current_mode):
        return items
    out = list(items)
    for index, said in enumerate(items[1:], start=1):
        previous = items[index - 1]
        if said.text not in _LABEL_WORDS or previous.text not in _ONE_LABEL:
            continue
        # "output 1 label": the io pass already paired "output" with the "1" (left as a filler beside it)
        paired = index - 2 if index >= 2 and items[index - 2].values.get("output_tokens") == 1 else index - 1
        if any("output_tokens" in s.values for i, s in enumerate(items) if i not in (paired, index - 1)):
            continue  # a reply length said as such ("20 output tokens") stands
        text = f"{items[paired].text.removesuffix(' 1')} {previous.text} {said.text}".strip() if paired != index - 1 else (
            f"{previous.text} {said.text}")
        out[paired] = Said("filler", "")
        out[index - 1] = Said("io", text, {"output_tokens": LABEL_REPLY_TOKENS}, previous.cues, notes=[
            f"read “{text}” as a reply of a few tokens (a label is ~1-5 tokens; sized at {LABEL_REPLY_TOKENS} out)"])
        out[index] = Said("filler", "")
    return out


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
                        or (before[0] == "of" and before[1] in _SEQ_PLURALS | _PROMPT_NOUNS) or after[0] in _SEQUENCE_WORDS
                        or (after[0] == "of" and after[1].startswith(("context", "ctx"))))
        data = ((before[0] in _DATA_LEADS and not serving) or after[0] in _DATA_NOUNS or (after[0] == "of" and _DATA_NOUNS & set(after[1:3]))
                or (before[0] == "of" and before[1] in ("dataset", "corpus", "data")))
        seq_len = said.values.get("seq_len") or int(_qty(str(int(count)), binary=True))
        # "documents of 2k tokens", "2k tokens per document", "tweets (~60 tokens each)": what each length is of
        noun = (before[1] if before[0] == "of" else after[1] if after[0] in ("per", "each", "a", "every")
                and after[1] in _PROMPT_NOUNS | _SEQ_NOUNS else before[0] if after[0] in ("each", "long") else "")
        if per_sequence and noun in _PROMPT_NOUNS and not training_said(items, current_mode) or (
                after[0] in _PROMPT_NOUNS and not training_said(items, current_mode)) or (  # "10M 2k-token documents"
                _prompt_noun_behind(items, index) and not training_said(items, current_mode)):
            # "10M documents of 2k tokens each" to summarize: each document is a prompt, not the context window
            items[index] = replace(said, kind="io", values={"input_tokens": int(count)}, notes=[
                *said.notes, f"read “{text}” as each prompt's length ({int(count):,} tokens in)"])
        elif per_sequence:
            items[index] = replace(said, kind="context", values={"seq_len": seq_len})
        elif data or count >= 1e6:
            items[index] = replace(said, values={"dataset_tokens": int(count)})
        elif not serving:
            items[index] = replace(said, notes=[*said.notes, f"read “{text}” as the sequence length; for the training "
                                                             f"data say “{text} of data”"])
    return items


# between a prompt noun and its length: "10M docs avg 3k tokens", "documents (averaging ~3k tokens)", "docs, ~3k tokens"
_LENGTH_FILL = {"avg", "average", "averaging", "averages", "~", "about", "around", "roughly", "approx", "approximately",
                "typically", "usually", "mostly", "(", ",", ":", "-", "at", "are", "is", "each", "of", "say", "maybe"}


def _prompt_noun_behind(items: list[Said], index: int) -> bool:
    """'10M docs avg 3k tokens', 'documents, average 3k tokens', 'docs (~3k tokens)': the length said behind a prompt
    noun with only averaging words or punctuation between is each prompt's, as "docs of 3k tokens" already was. It was
    read as a context window, the prompts sized at the 1,024-token default: a 3-day summarising job booked on one
    node that needs two. A number or any other word in between breaks the link ("docs for 20 users, 8k tokens")."""
    for other in range(index - 1, max(-1, index - 5), -1):
        said = items[other]
        if said.text in _PROMPT_NOUNS:
            return other < index - 1  # right beside it is "docs 3k tokens": no averaging word, left as it was
        if said.text not in _LENGTH_FILL:
            return False
    return False


def _soft_modes(items: list[Said], current_mode: str | None) -> list[Said]:
    """'SFT'/'PEFT'/'DPO' give a mode only when none is said outright ("DPO with LoRA" is LoRA) and
    the thread is not already an adapter run; PEFT makes the others LoRA. The preference objective
    and the RLHF note stay whenever training; neither is said when serving ("serve the DPO model")."""
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
            values = {k: v for k, v in said.values.items() if k == "objective"}
            # PEFT read as LoRA, SFT as a full fine-tune: not when a mode is said ("LoRA SFT")
            notes = [] if said.text == "peft" or "mode" not in values and not said.values.get("objective") \
                else list(said.notes)
        else:
            mode = "lora" if lora else said.values.get("mode")  # "SFT" alone: a full fine-tune, as TRL runs it
            values = {**({"mode": mode} if mode else {}), **{k: v for k, v in said.values.items() if k == "objective"}}
            notes = list(said.notes)
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


_LENGTH_LEADS = {"on", "over", "of", "from", "batch"}  # "on 50k sequences", "a batch of 64 sequences": a count


def _sequence_lengths(items: list[Said]) -> list[Said]:
    """'8k sequences', '8k seq', '4096 sequences': a sequence length as ML people say it ("8k" a power of two
    thousands, or a power of two from 512), in training and serving alike; "on 50k sequences" stays a count."""
    out = list(items)
    for index, said in enumerate(items[:-1]):
        following = items[index + 1]
        value = _number_like(said) if said.kind in ("size", "filler") else None
        if value is None or following.text not in _SEQUENCE_WORDS or not _length_shaped(said.text, value):
            continue
        if index > 0 and items[index - 1].text in _LENGTH_LEADS:
            continue
        text = f"{said.text} {following.text}"
        out[index] = Said("context", text, {"seq_len": int(_qty(said.text, binary=True))}, said.cues)
        out[index + 1] = Said("filler", "")
    return out


def _length_shaped(text: str, value: float) -> bool:
    """'8k', '32k', '4096', '512' (a power of two thousands or tokens); not '10k' or '1000'."""
    if text.endswith("k"):
        thousands = value / 1000
        return thousands.is_integer() and int(thousands) & (int(thousands) - 1) == 0 and thousands <= 1024
    return value.is_integer() and value >= 512 and int(value) & (int(value) - 1) == 0
