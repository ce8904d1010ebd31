"""Phrases taken out of the normalized text before the grammar sees it, each leaving a note.

Some phrases look like a GPU count, a model size or a training method to the grammar but are none of
them: an image resolution ("1024x1024 images" read as 1,024 GPUs), a count of LoRA adapters served on
one base model ("100 rank-16 adapters" read as 100 GPUs, "multi-LoRA" as LoRA training), a draft
model's size ("speculative decoding (8B draft)" read as a model). Users counted by the day or month
("50k DAU, 20 messages a day", "1M monthly users") are a request rate a day, which the grammar reads
well once said that way ("1000000 requests a day", sized at a busy hour as any daily rate is). Doing
this on the text keeps the grammar and the transformer as they are: the phrase becomes a boundary
(or the rate it stands for) and `Asides.apply` adds the notes, and a prompt length where the message
says none, to the Reading.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .population import audience_note, take_population
from .quantities import _qty
from .reading import Reading
from .rl_phrases import take_rl

_COUNT = r"\d+(?:\.\d+)?[kmb]?"
# "1024x1024", "768 x 768", "1920x1080 px": two pixel sizes (a GPU count is followed by a name, never by a number)
_RESOLUTION = re.compile(r"(?<![\w.])(\d{3,4}) ?x ?(\d{3,4})(?: ?(?:px|pixels?))?(?![\w.])")
# "4k images", "1080p screenshots": a named video resolution before an image noun
_IMAGE_NOUN = r"(?:images?|photos?|pictures?|screenshots?|scans?|frames?|photographs?|renders?)\b"
_BEFORE_IMAGE_NOUN = re.compile(r" (?:[a-z]+ )?" + _IMAGE_NOUN)
_NAMED_RESOLUTION = re.compile(r"(?<![\w.])(4k|8k|2k|2160p|1440p|1080p|720p)(?= (?:[a-z]+ )?" + _IMAGE_NOUN + ")")
_NAMED_PIXELS = {"8k": (7680, 4320), "4k": (3840, 2160), "2160p": (3840, 2160), "2k": (2048, 1080),
                 "1440p": (2560, 1440), "1080p": (1920, 1080), "720p": (1280, 720)}
# Qwen2-VL / Qwen2.5-VL: 14-px patches merged 2x2, so one vision token per 28x28 pixels, capped at 16,384 tokens
# (the processor's default max_pixels); LLaVA-style encoders give ~0.6-2.9k per image
_PIXELS_PER_TOKEN = 28
_MAX_VISION_TOKENS = 16384
_TEXT_WITH_AN_IMAGE = 256  # the instruction and question that come with the image
IMAGE_PROMPT_TOKENS = 1400  # an image of unsaid size (~1,024x1,024: ~1.3k vision tokens) and its instruction
IMAGE_PROMPT_CUE = "image_prompt"  # set by the fold when it assumed IMAGE_PROMPT_TOKENS for a job over images
IMAGE_JOB_NOTE = "read as a batch job over"

# "100 rank-16 adapters", "30 LoRA adapters", "200 lora adapters", "multi-LoRA"
_ADAPTERS = re.compile(r"(?<![\w.])(?:(" + _COUNT + r") )?(?:(?:different|distinct|fine-?tuned|custom) )?"
                       r"(?:rank[ -]?(\d+) )?(?:lora |qlora )?(?:rank[ -]?\d+ )?adapters\b")
_MULTI_LORA = re.compile(r"\bmulti[ -]?(?:lora|adapter)s?\b")
_SERVING = re.compile(r"\b(?:serv(?:e|es|ed|ing)|inference|deploy\w*|host\w*|endpoints?|multi[ -]?lora|users?|"
                      r"concurrent|requests?|qps|rps)\b")
_TRAINING = re.compile(r"\b(?:train\w*|fine-?tun\w*|finetun\w*|pretrain\w*|sft|epochs?)\b")

# speculative decoding, said any way; a draft model's size is not the model served ("(8B draft)")
_SPECULATIVE = re.compile(r"\b(?:speculative (?:decoding|decode|sampling)|spec(?:ulative)? ?dec(?:ode|oding)?|mtp|"
                          r"multi[- ]token prediction|eagle[- ]?[123]?|medusa|draft models?|lookahead decoding)\b")
_DRAFT_SIZE = re.compile(r"(?:an? )?(?<![\w.])\d+(?:\.\d+)?b draft(?: models?)?\b|\bdraft(?: models?)? (?:of )?"
                         r"(?<![\w.])\d+(?:\.\d+)?b\b")
SPECULATIVE_NOTE = ("speculative decoding (MTP/EAGLE/draft models) is not modelled: speeds are without it; it typically "
                    "gives 1.5-2x decode speed at low batch (SGLang/vLLM docs), less at high batch")

# users counted over a day or a month, and the messages each sends a day
_DAILY_USERS = re.compile(r"(?<![\w.])(" + _COUNT + r") (?:dau|daily (?:active )?users?|daily actives?|"
                          r"(?:active )?users? (?:a|per|each) day|users? daily)\b")
_MONTHLY_USERS = re.compile(r"(?<![\w.])(" + _COUNT + r") (?:mau|monthly (?:active )?users?|monthly actives?|"
                            r"(?:active )?users? (?:a|per|each) month|users? monthly)\b")
_MESSAGES_A_DAY = re.compile(r"(?:(?:each|every user|they|who) (?:sends?|makes?|asks?|has|have|does|do) |averaging |at )?"
                             r"(?<![\w.])(\d+(?:\.\d+)?) (?:messages?|msgs?|requests?|queries|questions?|prompts?|chats?|"
                             r"turns?|calls?)(?: each| per user)? (?:a|per|each|/) ?day\b(?: each| per user)?")
_RATE_SAID = re.compile(r"(?<![\w.])" + _COUNT + r" (?:requests?|reqs?|queries|calls|messages?)(?: ?/ ?| per | a | each )"
                        r"(?:s|sec|second|min|minute|hr|hour|h|day|week|month)\b|\b(?:qps|rps|rpm)\b")
DEFAULT_MESSAGES_A_DAY = 10  # a chat assistant's user, when the message does not say
MAX_MESSAGES_A_DAY = 1000  # more "a day" is the whole service's rate, not one user's
DAILY_SHARE_OF_MONTHLY = 0.25  # DAU/MAU of a consumer chat app: ~20-30%


@dataclass
class Asides:
    """What the taken-out phrases add to the Reading: notes, and fields set only where nothing said them."""

    notes: list[str] = field(default_factory=list)
    defaults: dict[str, Any] = field(default_factory=dict)
    # a headcount ("2,000 users signed up") as said, and how it was read (parser.population)
    population: tuple[str, str] | None = None

    def apply(self, reading: Reading, current_mode: str | None = None) -> Reading:
        if not self.notes and not self.defaults:
            return reading
        updates = dict(reading.updates)
        notes = reading.notes
        defaults = dict(self.defaults)
        if self.population is not None:
            people, at_once = int(defaults.pop("population")), defaults.pop("concurrency")
            said, how = self.population
            if updates.get("mode", current_mode) not in (None, "inference") or updates.get("intent") == "train":
                pass  # "our 300-person company wants to fine-tune ...": the people are the team, not a load
            elif any(name in updates for name in ("requests_per_s", "load_tokens_per_s", "target_tokens_per_s")):
                # "2,000 users signed up, 5k requests a day": the rate sizes the service; the people send it
                notes = (*notes, audience_note(said, people))
            elif "concurrency" in updates:  # "2,000 users signed up, 150 at once": the number at once is said
                updates.setdefault("population", people)
            else:
                updates.update({"population": people, "concurrency": at_once})
                notes = (how, *notes)
                if current_mode is None and "mode" not in updates and "intent" not in updates:
                    # "llama 3.1 8b chatbot for our 300 users": people using it are a service's, as "300 users" is
                    updates.update({"mode": "inference", "intent": "serve"})
                    notes = (*notes, "read as serving the model (no training was said, and you gave a number of users)")
        if "input_tokens" in self.defaults and IMAGE_PROMPT_CUE in reading.cues:
            # an image job's prompt, assumed for an image of unsaid size: the size said sets it
            updates.pop("input_tokens", None)
            notes = tuple(n for n in notes if not n.startswith(IMAGE_JOB_NOTE))
        if "input_tokens" in updates and "input_tokens" in defaults:
            defaults.pop("prompt_holds_image", None)  # the prompt length said is the text's: the image is added to it
        for name, value in defaults.items():
            updates.setdefault(name, value)
        intent = reading.intent
        if intent == "gibberish" and current_mode == "inference" and _IMAGE_FIELDS & set(self.defaults):
            intent = "refine"  # "2 images per request", "512x512", "text only" in a serving thread: its images
        # first: they say why a number that looks like GPUs is not, which the reader must see among the few notes shown
        return reading.model_copy(update={"updates": updates, "intent": intent,
                                          "notes": tuple(dict.fromkeys((*self.notes, *notes)))})


_IMAGE_FIELDS = frozenset({"images_per_request", "image_width"})


# "2 images per request", "one screenshot each message", "3 photos a prompt": images in each request of a VLM
_COUNT_WORDS = {"a": 1, "an": 1, "one": 1, "single": 1, "two": 2, "three": 3, "four": 4, "five": 5}
_IMAGES_PER = re.compile(r"(?<![\w.])(\d{1,2}|an?|one|single|two|three|four|five) (?:images?|photos?|pictures?|"
                         r"screenshots?|scans?|pages?) (?:per|each|a|an|in each|with each|for each) "
                         r"(?:requests?|messages?|prompts?|query|queries|calls?|turns?|questions?|chats?)\b")
# "text only", "no images": a VLM served for text
_TEXT_ONLY = re.compile(r"\b(?:text[- ]only|only text|no images?|without images?|no vision|text prompts only)\b")
IMAGES_SAID_NOTE = "read “{said}” as images in each request: counted as prompt tokens by the model's image rule"


def _images_per_request(text: str, asides: Asides) -> str:
    found = _IMAGES_PER.search(text)
    if found is not None:
        word = found.group(1)
        asides.defaults["images_per_request"] = float(int(word) if word.isdigit() else _COUNT_WORDS[word])
        asides.notes.append(IMAGES_SAID_NOTE.format(said=found.group(0)))
        return text[:found.start()] + " , " + text[found.end():]
    only = _TEXT_ONLY.search(text)
    if only is not None:
        asides.defaults["images_per_request"] = 0.0
        return text[:only.start()] + " , " + text[only.end():]
    return text


def take_asides(text: str) -> tuple[str, Asides]:
    """The normalized text without the phrases above (or with the request rate they stand for), and their notes."""
    asides = Asides()
    text = take_rl(text, asides.notes, asides.defaults)  # "GRPO, 16 samples per prompt": online RL (parser.rl_phrases)
    text = _images_per_request(text, asides)
    text = _images(text, asides)
    text = _adapters(text, asides)
    text = _speculative(text, asides)
    text = _users_by_period(text, asides)
    text, asides.population = take_population(text, asides.defaults)  # "2,000 users signed up": people, not at once
    return re.sub(r"(?: ?,)+", " ,", re.sub(r" +", " ", text)).strip(" ,"), asides


def vision_tokens(width: int, height: int) -> int:
    """Vision tokens of one image in a Qwen2-VL-style encoder: one per 28x28 pixels (each side rounded), capped."""
    return min(_MAX_VISION_TOKENS, max(1, round(width / _PIXELS_PER_TOKEN)) * max(1, round(height / _PIXELS_PER_TOKEN)))


def _images(text: str, asides: Asides) -> str:
    sizes: list[tuple[str, int, int]] = []

    def resolution(m: re.Match[str]) -> str:
        width, height = int(m.group(1)), int(m.group(2))
        if not (64 <= width <= 8192 and 64 <= height <= 8192):
            return m.group(0)
        sizes.append((m.group(0), width, height))
        return " " if _BEFORE_IMAGE_NOUN.match(m.string, m.end()) else " , "  # "1M 512x512 images" stays a count of images

    def named(m: re.Match[str]) -> str:
        sizes.append((m.group(1), *_NAMED_PIXELS[m.group(1)]))
        return " "

    text = _NAMED_RESOLUTION.sub(named, _RESOLUTION.sub(resolution, text))
    if not sizes:
        return text
    said, width, height = sizes[0]
    tokens = vision_tokens(width, height)
    prompt = tokens + _TEXT_WITH_AN_IMAGE
    asides.defaults["input_tokens"] = prompt
    asides.defaults["prompt_holds_image"] = True  # a VLM in the catalog recounts the image by its own rule (engine.vision)
    asides.defaults["image_width"], asides.defaults["image_height"] = width, height
    asides.notes.append(
        f"read “{said}” as an image size, not a GPU count: each image is taken as prompt tokens, by the model's own "
        f"rule for a vision-language model in the catalog; otherwise a {width}x{height} image is about {tokens:,} vision "
        f"tokens in Qwen2-VL-style encoders (one per 28x28 pixels; LLaVA-style ~0.6-2.9k), so prompts are sized at "
        f"{prompt:,} tokens (one image and its text; say the prompt length if yours carry more)")
    return text


def _adapters(text: str, asides: Asides) -> str:
    found = _ADAPTERS.search(text)
    multi = _MULTI_LORA.search(text)
    if not (found and (found.group(1) or found.group(2) or "lora" in found.group(0))) and not multi:
        return text
    if not _SERVING.search(text) or _TRAINING.search(text):
        return text  # training adapters ("train 30 LoRA adapters") is LoRA training, read as it is
    said = found.group(0) if found else multi.group(0) if multi else ""
    count = _qty(found.group(1)) if found and found.group(1) else None
    rank = int(found.group(2)) if found and found.group(2) else None
    text = _MULTI_LORA.sub(" , ", _ADAPTERS.sub(" , ", text))
    how_many = f"{count:,.0f} adapters" if count else "the adapters"
    each = (f"a rank-{rank} adapter on all linear layers" if rank else "an adapter (rank r) on all linear layers")
    asides.notes.append(
        f"read “{said}” as LoRA adapters served on one base model, not GPUs: planned as the base model's service "
        "(vLLM --enable-lora --max-loras --max-lora-rank serves many on one copy). Adapters are not modelled: "
        f"{each} adds rank x (d_in + d_out) x 2 bytes per adapted matrix per layer (about 84 MB at rank 16 on an 8B "
        f"model), so {how_many} add the memory of those resident on the GPU; batching many adapters costs a few % to "
        "~30% of throughput (S-LoRA, Punica)")
    return text


def _speculative(text: str, asides: Asides) -> str:
    if not _SPECULATIVE.search(text):
        return text
    asides.notes.append(SPECULATIVE_NOTE)
    return _DRAFT_SIZE.sub(" , ", text)


def _users_by_period(text: str, asides: Asides) -> str:
    daily = _DAILY_USERS.search(text)
    monthly = None if daily else _MONTHLY_USERS.search(text)
    found = daily or monthly
    if found is None:
        return text
    users = _qty(found.group(1))
    messages_found = _MESSAGES_A_DAY.search(text)
    if (messages_found and float(messages_found.group(1)) > MAX_MESSAGES_A_DAY) or (
            messages_found is None and _RATE_SAID.search(text)):
        return text  # "10k DAU, 1M requests a day": the service's rate is said; the users are who send it
    messages = float(messages_found.group(1)) if messages_found else float(DEFAULT_MESSAGES_A_DAY)
    active = users if daily else users * DAILY_SHARE_OF_MONTHLY
    requests = round(active * messages)
    if requests < 1:
        return text
    if messages_found:
        text = text[:messages_found.start()] + " , " + text[messages_found.end():]
        found = (_DAILY_USERS if daily else _MONTHLY_USERS).search(text)
        assert found is not None  # the users phrase is before or after the messages, untouched
    text = f"{text[:found.start()]}{requests} requests a day{text[found.end():]}"
    how = (f"{users:,.0f} daily users" if daily else
           f"{users:,.0f} monthly users at ~{DAILY_SHARE_OF_MONTHLY:.0%} active on a given day (DAU/MAU of a chat "
           f"app is ~20-30%): {active:,.0f} a day")
    if messages_found:
        asides.notes.append(f"read “{found.group(0)}” and “{messages_found.group(0).strip()}” as {how} x "
                            f"{messages:g} messages a day = {requests:,} requests a day")
    else:
        asides.notes.append(f"read “{found.group(0)}” as {how} x {DEFAULT_MESSAGES_A_DAY} messages a day each (assumed: "
                            f"say e.g. “20 messages a day each”) = {requests:,} requests a day")
    return text
