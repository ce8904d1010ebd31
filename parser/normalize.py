"""Text clean-up before the grammar sees a message.

The grammar stays small because it only ever sees one dialect: lower-case ASCII, single spaces,
digits instead of number words, magnitudes glued to their number ("70 billion" -> "70b"), units
split from their number ("500GB" -> "500 gb"), GPU counts split from names ("8xA100" ->
"8 x a100"), and Slack markup (mentions, links, emoji) removed. Typos are corrected only for a
short list of domain keywords, and only when difflib finds a close match, so ordinary words and
names are never rewritten.

Everything here is plain `re` over the whole string: linear in the length of the message.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from decimal import Decimal, InvalidOperation
from functools import lru_cache

from .repo_ids import hub_links_to_repo_ids
from .schedule import clock_times, day_ranges

MAX_CHARS = 10_000  # Slack allows 40k; nobody describes a workload in more than this

_SLACK_LINK = re.compile(r"<(?:https?|mailto):[^|>\s]*\|([^>]*)>")  # <https://x|label> -> label
_SLACK_OTHER = re.compile(r"<[@#!][^>]*>|<(?:https?|mailto):[^>]*>")  # mentions, channels, bare links
_URL = re.compile(r"https?://\S+")
_EMOJI = re.compile(r":[a-z0-9_+\-]+:")
_DIGIT_GROUPS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")  # 10,000 -> 10000
_APOSTROPHE = re.compile(r"['\u2019`]")
_DISALLOWED = re.compile(r"[^a-z0-9 .,%$/=+\-]")
_EDGE_PUNCT = re.compile(r"(?<![\w])[.\-/=+]+(?!\d)|[.\-/=+]+(?![\w$])")  # punctuation not inside a token
_SPACES = re.compile(r"\s+")
# Where one phrase ends and the next begins: ",", ";", "?", "!", a line break, a sentence's ".".
# They become one "," token, so a name or a phrase never runs across them ("on H100s, 1B tokens").
_BOUNDARY = re.compile(r"[,;!?\n\u2022]+|\.(?=\s|$)")
_BOUNDARIES = re.compile(r"(?: ?,)+")
# Scientific notation and powers of ten, with an optional magnitude: "1e21B", "2.5e9", "10^30",
# "2.5 x 10^9", "10**12". Read before the symbols go; positive exponents only ("2e-5" is a rate).
_MAGNITUDE_WORDS = r"billion|bn|b|million|mn|mm|m|trillion|tn|t|thousand|k"
_SCIENTIFIC = re.compile(
    r"(?<![\w.])(?:(\d+(?:\.\d+)?)(?:e\+?| ?[x*] ?10 ?(?:\^|\*\*) ?\+?)|10 ?(?:\^|\*\*) ?\+?)(\d{1,3})(?![\d.])"
    r"(?: ?(" + _MAGNITUDE_WORDS + r")\b(?!-?bit))?"
)
_MAGNITUDE_FACTOR = {"b": 10**9, "m": 10**6, "t": 10**12, "k": 10**3}
_LARGEST = Decimal("1e290")  # beyond this a float (times a magnitude) would overflow
# A number too long to compute with becomes one word the transformer explains ("... ignored it")
HUGE_NUMBER = "hugenumber"
_HUGE = re.compile(r"(?<![\d.])\d{291,}(?:\.\d+)?")

_SMALL = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
_PHRASE_NUMBERS = [
    (re.compile(r"\b(?:a single|a lone|just one|only one)\b"), "1"),
    (re.compile(r"\ba (?:couple|pair) of\b"), "2"),
    (re.compile(r"\ba dozen\b"), "12"),
    (re.compile(r"\ba hundred\b"), "100"),
    (re.compile(r"\ba thousand\b"), "1000"),
]
# "zero" is deliberately absent: "ZeRO 3" is an optimizer setting, not a number.
_NUMBER_WORDS = re.compile(
    r"\b(?:(" + "|".join(_TENS) + r")(?:[ -](" + "|".join(k for k, v in _SMALL.items() if v < 10) + r"))?"
    r"|(" + "|".join(_SMALL) + r"))\b(?: (hundred))?"
)
_MAGNITUDE = re.compile(
    r"(\d+(?:\.\d+)?) ?(billion|bn|b|million|mn|mm|m|trillion|tn|t|thousand|k)\b(?!-?bit)"
)
_MAGNITUDE_LETTER = {
    "billion": "b", "bn": "b", "b": "b", "million": "m", "mn": "m", "mm": "m", "m": "m",
    "trillion": "t", "tn": "t", "t": "t", "thousand": "k", "k": "k",
}
_UNIT_SPLIT = re.compile(r"(\d)(gb|gib|tb|tib|mb|mib|pb|pib|kb|kib|gigabytes?|terabytes?|megabytes?|petabytes?)\b")
_TIMES_SPLIT = re.compile(r"(?<![a-z0-9.])(\d+(?:\.\d+)?k?) ?[x*] ?(?=[a-z]|[1-5]0[5-9]0\b)")  # 8xa100, 8 x h100, 4x4090; not 8x7b
_PERCENT = re.compile(r"(\d) %")
_TRAILING_TIMES = re.compile(r"\b([a-z]+\d+[a-wyz]*) ?x(\d{1,4})\b(?!\.)")  # a100x4, h100 x8 -> a100 x 4 (not 8x7b)
_NUMBER_DASH_TOKEN = re.compile(r"(\d[kmbt]?)-(?=toks?\b|tokens?\b)")  # 200-token responses, 4k-token context
# "FT llama 3 8b (full)", "[full]": a bracketed "full" is the mode; "(qlora)" needs nothing (a keyword)
# "2B training tokens", "50k SFT tokens": the corpus, said the way the grammar reads it
_TRAINING_TOKENS = re.compile(r"(\d(?:\.\d+)?[kmbt]?) (?:training|train|pretraining|fine-?tuning|sft|dataset|corpus) (tokens?)\b")
# "w/ 50k tokens", "w/o caching": Slack shorthand for with / without
_WITH = re.compile(r"\bw/o\b|\bw/(?=\s|[a-z0-9])")
# "0.40$/hr", "2 usd/hr", "1.5 dollars an hour", "5k dollars a month": the dollar sign goes in front, as the grammar reads it
_TRAILING_DOLLAR = re.compile(r"(?<![\w.$])(\d+(?:\.\d+)?k?) ?(?:\$|usd\b|dollars?\b|bucks\b)")  # "5k usd" too
# "we've got 5k a month for inference", "budget of 20k/month", "5000 a month on gpus": an amount a month with no "$",
# a budget by the words around it (a spend word before it, or "for inference" after it); the sign goes in front
_SPEND = (r"(?:budget(?: of| is)?|spend(?:ing)?|weve got|we have|ive got|i have|have got|got|afford|allocated|under|within"
          r"|up to|at most|max(?:imum)?|cap(?:ped)?(?: at| of)?|capped at)")
_BARE_BUDGET = re.compile(
    r"\b(" + _SPEND + r" (?:about |around |roughly |~ ?)?)(\d+(?:\.\d+)?k|\d{3,}(?:\.\d+)?)(?= ?(?:a|per|/|each|every) ?"
    r"(?:month|mo|year|yr)\b| ?(?:monthly|yearly|annually)\b)"
    r"|(?<![\w.$])(\d+(?:\.\d+)?k|\d{3,}(?:\.\d+)?)(?= ?(?:a|per|/) ?(?:month|mo)\b,? (?:for|on|to spend on) (?:the )?"
    r"(?:inference|compute|gpus?|serving|hosting|cloud|infra(?:structure)?|llm|model serving)\b)")
# "a100-40gb", "h100-80gb": the memory behind a GPU name, spelt the way the aliases are ("a100 40 gb")
_NAME_DASH_MEMORY = re.compile(r"\b([a-z]+\d+[a-z]*)-(\d{2,3}) ?gb\b")
# An MoE said by its total and active sizes: "7b moe with 1b active", "moe with 7b total and 1b active parameters",
# "7b total / 1b active", "7b-a1b". Written as one name of the shape MoE checkpoints carry ("qwen3-30b-a3b"), which the
# resolver sizes as an MoE of those sizes (the catalog's stand-in for an MoE it lacks), not as two model sizes
_PARAMS_WORD = r"(?: (?:parameters?|params?))?"
_MOE_SAID = re.compile(
    r"(?<![\w.\-])(\d+(?:\.\d+)?)b" + _PARAMS_WORD + r"(?: total" + _PARAMS_WORD + r")? (?:sparse )?moe(?: model)?"
    r"(?: with| ,)? (\d+(?:\.\d+)?)b active" + _PARAMS_WORD + r"\b"
    r"|(?<![\w.\-])(?:(?:an? )?(?:sparse )?moe(?: model)? (?:with |of )?)?(\d+(?:\.\d+)?)b total" + _PARAMS_WORD
    + r"(?: and| with| ,)? ?/? ?(\d+(?:\.\d+)?)b active" + _PARAMS_WORD + r"\b"
    r"|(?<![\w.\-])(\d+(?:\.\d+)?)b-a(\d+(?:\.\d+)?)b\b")
_BRACKETED_FULL = re.compile(r"[(\[]\s*full\s*[)\]]")
# A learning rate ("lr 2e-5", "1e-4") is no Workload field; left in, "e-5" would look like a name
_LEARNING_RATE = re.compile(r"(?<![\w.])\d+(?:\.\d+)?e-\d+\b")
# A minus sign glued to a number after other text on the line ("70b -5 epochs", "epochs: -5") is a
# negative number: it becomes this word, and the transformer ignores the value with a note. At a
# line's start a dash is a bullet ("- 5 epochs", "-5 epochs"); between digits a range ("3-5").
NEGATIVE_NUMBER = "negativenumber"
_GLUED_MINUS = re.compile(r"(?<=[^\s\-])(?:[ \t]+|[ \t]*[,;:=(][ \t]*)-(?=\d)")

# Keywords worth correcting. Only words of five letters or more, and only close matches.
TYPO_TARGETS = (
    "qlora", "epochs", "epoch", "pretrain", "pretraining", "inference", "finetune", "finetuning",
    "tokens", "experiments", "context", "concurrent", "concurrency", "checkpointing", "gradient",
    "optimizer", "deepspeed", "precision", "serving", "deploy", "scratch", "continued", "month",
    "nodes", "cache", "caching", "parallel", "requests", "batch", "instead", "adamw", "paged",
    "utilisation", "utilization", "dataset", "corpus", "billion", "million", "trillion",
)
_KNOWN_WORDS = frozenset(TYPO_TARGETS) | {
    # common words within difflib's reach of a keyword that must stay as they are
    "contest", "content", "contexts", "tokes", "serve", "server", "severe", "deploys", "months",
    "notes", "noted", "codes", "caches", "cached", "catch", "batches", "patch", "bunch", "paper",
    "pages", "pretty", "epic", "instant", "insteads", "parallels", "request", "token", "corpora",
    "training", "trained", "trainer", "monthly", "context", "batched", "nodes", "model", "models",
    "deepseek",  # a model family, one letter from "deepspeed"
}
_WORD = re.compile(r"\b[a-z]{5,}\b")


_HA_CAPITALS = re.compile(r"(?<![\w-])HA(?![\w-])")


def normalize(text: str) -> str:
    """Return the one dialect the grammar reads. Never raises for any `str`."""
    text = unicodedata.normalize("NFKC", text[:MAX_CHARS])
    text = hub_links_to_repo_ids(text)  # a pasted Hub link is its repo id, read as one name
    text = _SLACK_LINK.sub(r" \1 ", text)
    text = _SLACK_OTHER.sub(" ", text)
    text = _URL.sub(" ", text)
    text = _HA_CAPITALS.sub(" high availability ", text)  # "HA" is a requirement only in capitals ("ha" is a laugh)
    text = text.lower().replace("\u00d7", "x").replace("_", " ").replace("\u2212", "-")
    text = clock_times(text)  # "9 am - 6 pm", "8:30am–5:30pm" -> "9am-6pm", "8.5am-5.5pm" before ":" and "–" go
    text = day_ranges(text)  # "Mon – Sat" -> "mon-sat", before "–" goes
    text = _WITH.sub(lambda m: " without " if m.group(0) == "w/o" else " with ", text)
    text = _TRAILING_DOLLAR.sub(r" $\1", text)
    text = _NAME_DASH_MEMORY.sub(r"\1 \2 gb", text)
    text = _BRACKETED_FULL.sub(" full ft ", text)
    text = _LEARNING_RATE.sub(" ", text)
    text = _GLUED_MINUS.sub(lambda m: m.group(0)[:-1] + f" {NEGATIVE_NUMBER} ", text)
    text = _EMOJI.sub(" ", text)
    text = _APOSTROPHE.sub("", text)
    text = _DIGIT_GROUPS.sub("", text)
    text = _BARE_BUDGET.sub(lambda m: f"{m.group(1)}${m.group(2)}" if m.group(2) else f"${m.group(3)}", text)
    text = _SCIENTIFIC.sub(_scientific, text)
    text = _HUGE.sub(" " + HUGE_NUMBER + " ", text)
    text = _BOUNDARY.sub(" , ", text)
    text = _DISALLOWED.sub(" ", text)
    text = _EDGE_PUNCT.sub(" ", text)
    text = _SPACES.sub(" ", text).strip()
    text = _WORD.sub(_fix_typo, text)
    for pattern, digits in _PHRASE_NUMBERS:
        text = pattern.sub(digits, text)
    text = _NUMBER_WORDS.sub(_number_word, text)
    text = _UNIT_SPLIT.sub(r"\1 \2", text)
    text = _MAGNITUDE.sub(lambda m: m.group(1) + _MAGNITUDE_LETTER[m.group(2)], text)
    text = _MOE_SAID.sub(_moe_name, text)
    text = _TIMES_SPLIT.sub(r"\1 x ", text)
    text = _TRAILING_TIMES.sub(r"\1 x \2", text)
    text = _NUMBER_DASH_TOKEN.sub(r"\1 ", text)
    text = _TRAINING_TOKENS.sub(r"\1 \2 of training data", text)
    text = _latency_seconds(text)
    text = _PERCENT.sub(r"\1%", text)
    text = _BOUNDARIES.sub(" ,", _SPACES.sub(" ", text))
    return text.strip(" ,")


def _scientific(m: re.Match[str]) -> str:
    """'1e21b' -> '1000000000000000000000b', '2.5e9' -> '2.5b', '10^30' -> '1000000000000000000000b'."""
    try:
        value = Decimal(m.group(1) or "1") * Decimal(10) ** int(m.group(2))
    except (InvalidOperation, ValueError):
        return m.group(0)
    if m.group(3):
        value *= _MAGNITUDE_FACTOR[_MAGNITUDE_LETTER[m.group(3)]]
    if value >= _LARGEST:
        return f" {HUGE_NUMBER} "
    for letter in ("b", "m"):
        factor = _MAGNITUDE_FACTOR[letter]
        if value >= factor:
            return _plain(value / factor) + letter
    return _plain(value)


# a family word right before "235b-a22b": the checkpoint's own name ("qwen3 235b-a22b", "qwen3-coder 480b-a35b"), which
# the catalog resolves, not an MoE described by its sizes
_FAMILY_BEFORE = re.compile(r"(?:qwen[\d.]*|coder|next|ernie[\d.]*|hunyuan|ling|ring|4\.5)[ -]$")


def _moe_name(m: re.Match[str]) -> str:
    """'7b moe with 1b active' -> 'moe-7b-a1b'; unchanged when the active size is not below the total, or when the
    sizes follow a family name ("qwen3 235b-a22b" is the catalog's Qwen3 235B-A22B, was sized as a generic MoE)."""
    total, active = (g for g in m.groups() if g is not None)
    if not 0 < float(active) < float(total):
        return m.group(0)
    if m.group(5) is not None and _FAMILY_BEFORE.search(m.string[:m.start()]):
        return m.group(0)
    return f"moe-{total}b-a{active}b"


def _plain(value: Decimal) -> str:
    text = format(value.normalize(), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


# "ttft 1s", "first token within 2s": seconds glued to their number, split only after a latency word
# or a comparison, so "4090s" and "h100s" stay GPU names
_GLUED_SECONDS = re.compile(
    r"\b((?:ttft|tpot|itl|latency|token|under|below|within|than|most|of|is|=) )(\d+(?:\.\d+)?)(s|secs?|seconds?)\b")


def _latency_seconds(text: str) -> str:
    """'ttft 1s' -> 'ttft 1 s': the grammar's time span wants the space before seconds (see above)."""
    return _GLUED_SECONDS.sub(r"\1\2 \3", text)


def _number_word(m: re.Match[str]) -> str:
    value = _TENS[m.group(1)] + (_SMALL[m.group(2)] if m.group(2) else 0) if m.group(1) else _SMALL[m.group(3)]
    if m.group(4):
        value *= 100
    return str(value)


def _fix_typo(m: re.Match[str]) -> str:
    return _closest_keyword(m.group(0))


@lru_cache(maxsize=4096)
def _closest_keyword(word: str) -> str:
    """A keyword when `word` is a near miss of one ("qlroa", "epcohs"); otherwise `word` unchanged."""
    if word in _KNOWN_WORDS or word.endswith("s") and word[:-1] in _KNOWN_WORDS:
        return word
    # same first letter and nearly the same length: a slip of the fingers, not another word
    targets = [t for t in TYPO_TARGETS if t[0] == word[0] and abs(len(t) - len(word)) <= 1]
    match = difflib.get_close_matches(word, targets, n=1, cutoff=0.8)
    return match[0] if match else word
