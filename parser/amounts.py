"""Amounts said in words whose meaning depends on the job: a token load, a count of examples, people, a compressed size.

"500M tokens a day" is a service's load when serving and the training data when training; "100k conversations" is the
training set in a fine-tuning question and users at once in a serving one; "40 developers" are a service's users;
"40 GB of gzipped JSONL" holds several times 40 GB of text. Each pass rewrites the list of `Said` before the fold, so
the fold sees one meaning per phrase. Conversions to requests and tokens are the engine's (engine/defaults.py): the
parser records what was said.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from engine.models import STAFF_ACTIVE_SHARE, sequences_per_example

from .neighbours import _number_like, training_said
from .population import POPULATION_CUE, POPULATION_FROM, audience_note, population_note, population_values
from .quantities import _sig
from .said import Said
from .schedule import HOURS_PER_MONTH, per_month

_SECONDS_PER_MONTH = HOURS_PER_MONTH * 3600


def token_load(count: float, period: str) -> tuple[float, str] | None:
    """'500m tokens' + 'per day' -> (5787.04 tokens/s on average, "day"); a quarter or a year is averaged per month."""
    factor = per_month(period)
    if factor is None or factor <= 0:
        return None
    label = "day" if re.search(r"day|daily", period) else "week" if re.search(r"week|wk", period) else "month"
    return _sig(count * factor / _SECONDS_PER_MONTH), label


_MINUTE = re.compile(r"(?:/ ?| per | an? | each )(?:min|minute)$")
_HOUR = re.compile(r"(?:/ ?| per | an? | each )(?:h|hr|hour)$")


def minute_or_hour(rate: str) -> str | None:
    """'tokens per minute' -> "minute", 'tok/hr' -> "hour"; a rate per second (the output speed) -> None."""
    if _MINUTE.search(rate):
        return "minute"
    if _HOUR.search(rate):
        return "hour"
    return None


_MAGNITUDE = re.compile(r"\b(\d+(?:\.\d+)?)([mbt])\b")


def _shown(text: str) -> str:
    """'500m tokens per day' -> '500M tokens per day': a count as people write it (normalize.py lower-cases)."""
    return _MAGNITUDE.sub(lambda m: m.group(1) + m.group(2).upper(), text)


def _plain(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:.3g}"


def _token_loads(items: list[Said], current_mode: str | None) -> list[Said]:
    """'500M tokens a day', '2M tokens an hour', '30k tokens per minute' when not training: the service's load,
    prompt and output tokens together (as API rate limits count them); training keeps a token count as its data."""
    if not any(s.load for s in items):
        return items
    training = training_said(items, current_mode)
    out = list(items)
    for index, said in enumerate(items):
        if said.load is None:
            continue
        if training:
            out[index] = replace(said, load=None) if said.values else replace(
                said, kind="filler", load=None, notes=[*said.notes, f"“{said.text}” is a serving load; ignored for training"])
            continue
        per_s, period = said.load
        out[index] = Said("load", said.text, {"load_tokens_per_s": per_s, "load_period": period}, said.cues, notes=[
            f"read “{_shown(said.text)}” as the load to serve: {_plain(per_s)} tokens/s (prompt + output)"
            + (" on average" if period in ("day", "week", "month") else "")])
    return out


# what a training set is counted in: "100k conversations", "2,000 examples", "50k instruction pairs"
_EXAMPLE_NOUNS = {"conversations", "examples", "samples", "rows", "documents", "docs", "pairs", "records", "dialogues",
                  "dialogs", "instructions", "chats", "transcripts", "prompts", "completions", "demonstrations", "sequences"}
_EXAMPLE_LEADS = {"training", "labelled", "labeled", "annotated", "curated", "synthetic", "chat", "instruction",
                  "preference", "sft", "qa", "q&a", "support", "customer", "high-quality", "quality", "domain"}


def _count_of(said: Said) -> float | None:
    """The number a count phrase holds: '2000', '100k', or the count the grammar read as users ('100k conversations')."""
    if said.kind == "concurrency" and "concurrency" in said.values:
        return float(said.values["concurrency"])
    return _number_like(said)


def _training_examples(items: list[Said], current_mode: str | None) -> list[Said]:
    """'fine-tune X on 100k conversations', 'QLoRA 70B on 2,000 examples': in a training question a count of examples
    is the dataset (the engine guesses its tokens and says so), never users at once."""
    if not training_said(items, current_mode):
        return items
    out = list(items)
    # preference tuning said in the message ("DPO", "ORPO"): each example is a pair of sequences
    objective = next((s.values["objective"] for s in items if "objective" in s.values), None)
    for index, said in enumerate(items):
        count = _count_of(said)
        if count is None or count < 1 or said.kind == "tokens":
            continue
        words = said.text.split(" ")
        if said.kind == "concurrency" and words[-1] in _EXAMPLE_NOUNS:  # "100k conversations" read as users
            noun_at = index
        else:
            following = [s.text for s in items[index + 1:index + 3]] + ["", ""]
            length = items[index + 1] if index + 1 < len(items) else None
            if following[0] in _EXAMPLE_NOUNS:
                noun_at = index + 1
            elif following[1] in _EXAMPLE_NOUNS and (following[0] in _EXAMPLE_LEADS or (
                    # "100k 2k-token documents": the length between the count and its noun
                    length is not None and length.kind == "tokens" and length.count and length.count < 1e6)):
                noun_at = index + 2
            else:
                continue
        text = " ".join(s.text for s in items[index:noun_at + 1] if s.text)
        notes = [f"read “{_shown(text)}” as the training data, not users at once"] if said.kind == "concurrency" else []
        values: dict[str, Any] = {"dataset_examples": int(count)}
        pairs = objective
        if pairs is None and "preference" in text.split(" "):  # "50k preference pairs": DPO unless said otherwise
            values["objective"] = pairs = "dpo"
        sequences = sequences_per_example(pairs)
        inline = items[index + 1] if noun_at == index + 2 and items[index + 1].kind == "tokens" else None
        each, at, average = (inline.count, -1, False) if inline is not None else _tokens_each(items[noun_at + 1:noun_at + 5])
        if each is not None:  # "100k samples of 2k tokens": the tokens are said, nothing to guess
            values["dataset_tokens"] = int(count * sequences * each)
            if average:  # "averaging 500 tokens" is no sequence length; "of 2k tokens", "2k tokens each" are one
                out[noun_at + 1 + at] = Said("filler", items[noun_at + 1 + at].text)
            notes.append(f"{int(count):,} pairs × 2 sequences (chosen and rejected) × {each:,.0f} tokens = "
                         f"{count * sequences * each:,.0f} tokens per epoch" if sequences > 1 else
                         f"{int(count):,} examples × {each:,.0f} tokens = {count * each:,.0f} tokens per epoch")
        out[index] = Said("examples", text, values, said.cues - {"users_counted"}, notes=notes)
        for between in range(index + 1, noun_at + 1):
            out[between] = Said("filler", items[between].text)
    return out


_EACH_WORDS = {"of", "averaging", "average", "avg", "around", "about", "roughly", "at", "with"}
# behind the length: "1M examples, 512 tokens each", "200k conversations ~2k tokens each", "2k tokens per example"
_EACH_AFTER = {"each", "apiece"}
_PER_WORDS = {"per", "a", "every"}


def _tokens_each(following: list[Said]) -> tuple[float | None, int, bool]:
    """'... of 2k tokens', '... averaging 500 tokens', '..., 512 tokens each': the length of one example said right
    behind the count, where it was said among `following`, and whether it is an average ("avg", "averaging": the
    examples vary, so it is no sequence length; "of" and "each" say every example's length, which is one)."""
    if not following:
        return None, 0, False
    start = 1 if following[0].text == "," else 0  # "1M examples, 512 tokens each": a comma before the length
    said = following[start] if start < len(following) else None
    if said is not None and said.kind == "tokens" and said.count and said.count < 1e6:
        after = [s.text for s in following[start + 1:start + 3]] + ["", ""]
        if after[0] in _EACH_AFTER or (after[0] in _PER_WORDS and after[1] in _EXAMPLE_SINGULARS):
            return said.count, start, False
        return None, 0, False
    if start or following[0].text not in _EACH_WORDS:
        return None, 0, False
    for at, said in enumerate(following[1:], start=1):
        if said.kind == "tokens" and said.count and said.count < 1e6:
            return said.count, at, following[0].text != "of"
        if said.text not in _EACH_WORDS:
            break
    return None, 0, False


_EXAMPLE_SINGULARS = {noun[:-1] for noun in _EXAMPLE_NOUNS} | {"pair", "row", "sample"}


# people a service is for: users as much as "users" are ("40 developers", "500 seats"). Staff and seats are a headcount
# (parser.population): sized for a share at once; "people" and "agents" (often AI agents, running non-stop) are not
_PEOPLE = {"developers", "devs", "engineers", "seats", "employees", "analysts", "people", "staff", "agents",
           "researchers", "scientists", "members", "lawyers", "attorneys", "paralegals", "doctors", "physicians",
           "clinicians", "nurses", "accountants", "consultants", "editors", "writers", "designers", "programmers",
           "coders", "colleagues", "coworkers", "teammates", "students", "teachers", "traders", "bankers",
           "underwriters", "recruiters"}
_AT_ONCE_PEOPLE = {"people", "agents"}
# "15 lawyers at once", "20 analysts using it at the same time", "a dozen people hitting it concurrently": all at once
_AT_ONCE = re.compile(r"(?:, )?(?:(?:all )?(?:using|on|hitting|querying|chatting with|asking) (?:it|this|the (?:bot|"
                      r"tool|assistant|model|service|app|system)) )?(?:all )?(?:at once|at a time|at the same time|"
                      r"simultaneously|concurrently|in parallel)\b")


def _headcount(text: str, count: int, cues: frozenset[str], staff: bool, plain: str) -> Said:
    """A count of people using a service: from POPULATION_FROM up a headcount, sized for STAFF_ACTIVE_SHARE of it at
    once (parser.population); below it (or "people", "agents") that many at once, as before."""
    cues = cues | {"users_counted", "people_counted"}
    if staff and count >= POPULATION_FROM:
        return Said("concurrency", text, population_values(count, STAFF_ACTIVE_SHARE), cues | {POPULATION_CUE},
                    notes=[population_note(text, count, STAFF_ACTIVE_SHARE)])
    return Said("concurrency", text, {"concurrency": count}, cues, notes=[f"read “{text}” as {count} {plain}"])


def _people_as_users(items: list[Said], current_mode: str | None) -> list[Said]:
    """'serve X for 40 developers', '500 seats', 'a team of 10': users of a service, a headcount of whom a share wait on
    a reply at once (parser.population); in a training question they are the team, not a load."""
    if training_said(items, current_mode):
        return items
    out = list(items)
    for index, said in enumerate(items[:-1]):
        following = items[index + 1]
        count = _number_like(said) if said.kind in ("filler", "size") else None
        if count is None or count < 1 or following.text not in _PEOPLE or count != int(count):
            continue
        after = " ".join(s.text for s in items[index + 2:index + 5])  # "40 developers at once": all of them at once
        out[index] = _headcount(f"{said.text} {following.text}", int(count), said.cues,
                                following.text not in _AT_ONCE_PEOPLE and not _AT_ONCE.match(after),
                                "at the same time (concurrency)")
        out[index + 1] = Said("filler", "")
    for index, said in enumerate(items[2:], start=2):  # "a team of 10": ten people using it
        count = _number_like(said) if said.kind in ("filler", "size") else None
        if (count is None or count < 1 or count != int(count) or items[index - 2].text not in ("team", "group", "staff")
                or items[index - 1].text != "of" or out[index] is not said):
            continue
        out[index] = _headcount(f"{items[index - 2].text} of {said.text}", int(count), said.cues, True,
                                "users at the same time (concurrency)")
    return out


# compressed or columnar formats: their size on disk is several times less than the text they hold
_COMPRESSED = {"gzipped", "gzip", "gz", "gzip-compressed", "compressed", "zstd", "zst", "zstandard", "parquet", "arrow",
               "snappy", "bzip2", "bz2", "xz", "brotli", "tgz"}
_NEAR = 4  # phrases either side of the size: "40 GB of gzipped JSONL", "parquet files, 40 GB"


def _compressed_data(items: list[Said]) -> list[Said]:
    """'40 GB of gzipped JSONL', 'parquet, 2 TB': the size is compressed; the engine counts ~3x as much text."""
    out = list(items)
    for index, said in enumerate(items):
        if said.kind != "data" or "dataset_gb" not in said.values:
            continue
        near = range(max(0, index - _NEAR), min(len(items), index + _NEAR + 1))
        word = next((items[i].text for i in near if items[i].text in _COMPRESSED
                     and not (i > 0 and "no" in items[i - 1].cues)), None)
        if word is None:
            continue
        out[index] = replace(said, values={**said.values, "dataset_compressed": True}, notes=[
            *said.notes, f"read “{said.text}” as a compressed size ({word}): about 3x as much text"])
    return out


def _users_behind_a_rate(items: list[Said]) -> list[Said]:
    """"100 users at 5 requests/s", "100 users, 50M tokens a day": the rate or load sizes the service and the users
    are its audience. Read as 100 streams at once as well, the answer led with "⚠️ misses the concurrency" (5 requests
    a second with replies of a few seconds keep a few dozen in flight). "100 concurrent users" stays a target."""
    rated = any(s.requests_per_s or s.load or s.kind == "load" or "requests_per_s" in s.values
                or "load_tokens_per_s" in s.values for s in items)
    if not rated:
        return items
    out = list(items)
    for index, said in enumerate(items):
        plain_users = said.kind == "concurrency" and (POPULATION_CUE in said.cues or any(
            n.endswith("at the same time (concurrency)") for n in said.notes))
        if plain_users:
            count = int(said.values.get("population") or said.values.get("concurrency") or 0)
            out[index] = Said("filler", said.text, notes=[audience_note(said.text, count)])
    return out


_PER_REQUEST = re.compile(r"(?:tokens?|toks?) (?:per|each|a|of) request\b")


def _request_lengths(items: list[Said]) -> list[Said]:
    """'4k tokens per request and 300-token replies': beside a reply length said as such, the tokens of each request
    are its prompt (alone, "300 tokens per request" stays what the request generates)."""
    per_request = [i for i, s in enumerate(items) if s.kind == "output" and _PER_REQUEST.search(s.text)]
    replies = [s for s in items if s.kind == "output" and "output_tokens" in s.values and not _PER_REQUEST.search(s.text)]
    if not per_request or not replies:
        return items
    out = list(items)
    for index in per_request:
        said = items[index]
        out[index] = Said("io", said.text, {"input_tokens": int(said.values["output_tokens"])}, said.cues, notes=[
            *said.notes, f"read “{said.text}” as each request's prompt, beside “{replies[0].text}” for its reply"])
    return out


_NEW_TOKENS = re.compile(r"\bnew (?:tokens?|toks?)\b")
_TURNS = {"turn", "call", "step", "iteration", "round", "message"}
# agents and coding assistants: each call carries the conversation so far (as parser.fold reads them)
_AGENT_WORDS = re.compile(r"\b(?:cline|cursor|aider|claude code|codex|openhands|copilot|agent(?:s|ic)?|coding "
                          r"(?:agent|assistant)s?)\b")


def _new_tokens_per_turn(items: list[Said], current_mode: str | None) -> list[Said]:
    """'60k tokens of context, 2k new tokens per turn, 500-token replies': the tokens a turn adds to the prompt, not a
    reply length (the reply is said beside it, or the load is an agent's). With the context said, each call's prompt
    is that context with all but the new tokens already in the prefix cache; without it, the new tokens are the prompt
    and none of them is cached (the engine's agent default would cache 80% of them again)."""
    if training_said(items, current_mode):
        return items
    text = " ".join(s.text for s in items)
    out = list(items)
    for index, said in enumerate(items):
        if said.kind != "output" or not _NEW_TOKENS.search(said.text):
            continue
        following = [s.text for s in items[index + 1:index + 3]] + ["", ""]
        if following[0] not in ("per", "each", "a", "every") or following[1] not in _TURNS:
            continue
        reply_said = any(s is not said and "output_tokens" in s.values for s in items)
        if not (reply_said or _AGENT_WORDS.search(text)):
            continue
        new = int(said.values["output_tokens"])
        phrase = f"{said.text} {following[0]} {following[1]}"
        context = next((s for s in items if s.kind in ("context", "tokens") and "seq_len" in s.values), None)
        prompt = int(context.count) if context is not None and context.count else (
            int(context.values["seq_len"]) if context is not None else 0)
        if prompt > new:
            hit = round(1 - new / prompt, 4)
            values: dict[str, float | int] = {"input_tokens": prompt, "prefix_cache_hit": hit}
            note = (f"read “{phrase}” as {new:,} new tokens in {prompt:,}-token prompts: {hit:.0%} of each prompt is in "
                    "the prefix cache")
        else:
            values = {"input_tokens": new, "prefix_cache_hit": 0.0}
            note = (f"read “{phrase}” as {new:,}-token prompts with nothing prefix-cached; say the context each call "
                    "carries (e.g. “60k tokens of context”) to size the cache for it")
        out[index] = Said("io", phrase, values, said.cues, notes=[*said.notes, note])
        out[index + 1] = Said("filler", "")
        out[index + 2] = Said("filler", "")
    return out


# "generate 1B tokens (of synthetic data)": what a model writes, not what it reads or trains on
_GENERATE_VERBS = {"generate", "generating", "produce", "producing", "synthesize", "synthesise", "synthesizing",
                   "synthesising", "write", "writing", "create", "creating"}
_GENERATE_FILL = {"about", "around", "roughly", "approximately", "approx", "~", "some", "up", "to", "over", "at", "least"}
GENERATED_REPLY_TOKENS = 1000  # one generated sample (a synthetic conversation, an answer with its reasoning): ~1k tokens
# "synthetic training data", "fine-tuning set": what the generated tokens are for, not a training job on this model
_DATA_NOUNS = {"data", "dataset", "datasets", "set", "sets", "corpus", "examples", "samples", "pairs"}


def _data_for_training(items: list[Said]) -> set[int]:
    """The indexes of training words that only name what data is for ("training data", "fine-tuning set")."""
    return {i for i, s in enumerate(items[:-1]) if s.kind == "cue" and s.cues & {"train", "finetune"}
            and items[i + 1].text in _DATA_NOUNS}


def _generated_tokens(items: list[Said], current_mode: str | None) -> list[Said]:
    """'generate 1B tokens of synthetic data with Llama 3.3 70B': an offline generation job of that many output tokens
    (it was read as 1B tokens of training data, and LoRA was planned). A job is prompts run to replies, so the tokens
    become replies of GENERATED_REPLY_TOKENS each, a length assumed and said in a note (or the reply length said).
    "synthetic training data" names what the tokens are for: it is no training job (it planned a LoRA of the 70B)."""
    data_words = _data_for_training(items)
    if training_said([s for i, s in enumerate(items) if i not in data_words], current_mode):
        return items
    out = list(items)
    for index, said in enumerate(items):
        if said.kind != "tokens" or said.load or not said.count or said.count < 1e6:
            continue
        before = index - 1
        while before >= 0 and items[before].text in _GENERATE_FILL:
            before -= 1
        if before < 0 or items[before].text not in _GENERATE_VERBS:
            continue
        said_reply = next((int(s.values["output_tokens"]) for s in items if "output_tokens" in s.values), None)
        reply = said_reply or GENERATED_REPLY_TOKENS
        replies = said.count / reply
        text = " ".join(s.text for s in items[before:index + 1] if s.text)
        values: dict[str, Any] = {"mode": "inference", "batch_items": replies}
        if said_reply is None:
            values["output_tokens"] = reply
        length = (f"{reply:,} tokens each" if said_reply else
                  f"{reply:,} tokens each, a length I assumed: say yours with the total (e.g. “{_shown(text)}, {reply // 2:,} output tokens each”)")
        out[index] = Said("job", text, values, said.cues, notes=[
            f"read “{_shown(text)}” as an offline generation job: {_plain(replies)} replies of {length}"])
        for between in range(before, index):
            out[between] = Said("filler", items[between].text)
        for word in data_words:  # "training data": the generated data's use, not a cue that this job trains
            out[word] = Said("filler", items[word].text)
    return out


# owned GPUs are costed at their power at this electricity price (engine.recommend.USD_PER_KWH; the parser imports only
# engine.models, so the value is repeated here and a test holds the two equal)
ENGINE_USD_PER_KWH = 0.12
_KWH = {"kwh", "kw-h", "kilowatt-hour", "kilowatt"}
_PER = {"/", "per", "a", "each", "every"}


def _electricity_prices(items: list[Said]) -> list[Said]:
    """'power costs $0.12/kWh': an electricity price, never a GPU-hour rate (read as one, 32 owned H100s were costed at
    $0.12 an hour each). No Workload field holds it, so it is dropped with a note that says the price owned GPUs are
    costed at instead."""
    out = list(items)
    for index, said in enumerate(items):
        if said.kind != "price" or "hourly_rate" not in said.values:
            continue
        after = [s.text for s in items[index + 1:index + 3]] + ["", ""]
        unit = 1 if after[0] in _KWH else 2 if after[0] in _PER and after[1] in _KWH else 0
        if not unit:
            continue
        value = float(said.values["hourly_rate"])
        text = " ".join([said.text, *after[:unit]]).replace(" / ", "/").replace(" /", "/").replace("kwh", "kWh")
        same = abs(value - ENGINE_USD_PER_KWH) < 1e-9
        note = (f"“{text}” is an electricity price, not a GPU-hour rate: owned GPUs are costed at the built-in "
                f"${ENGINE_USD_PER_KWH:g}/kWh" + (", the same" if same else
                                                 f" (yours would scale their power cost by {value / ENGINE_USD_PER_KWH:.2g}x)"))
        out[index] = Said("filler", text, cues=said.cues, notes=[note])
        for between in range(index + 1, index + 1 + unit):
            out[between] = Said("filler", "")
    return out
