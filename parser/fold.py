"""The fold: a message's phrases, in order, -> one `Reading`.

"X instead of Y" drops Y, "corpus on AWS" is where the data lives (not where it runs), and a
field given two different values becomes a `Conflict` instead of a silent last-one-wins. The
fold also decides the intent (describe, refine, answer, help, ...) and the mode implied by what
was said ("train a 21B model", "32 concurrent users").
"""

from __future__ import annotations

import re
from typing import Any

from engine.models import BUSY_HOUR_FACTOR, DEFAULT_OUTPUT_TOKENS, Problem

from .asides import IMAGE_JOB_NOTE, IMAGE_PROMPT_CUE, IMAGE_PROMPT_TOKENS
from .availability import availability, full_capacity, no_margin
from .batches import read_batch
from .capacity import capacity_asked, max_context_asked
from .quantities import _sig
from .reading import Conflict, Reading
from .said import Said
from .schedule import duration_hours
from .storage import storage_question
from .words import _CLOUD, _JOB_VERB, _pick

_DATA_WORDS = {"corpus", "data", "dataset", "datasets", "files", "bucket", "shards", "it"}
# "training data", "training set": "training" describes a noun there; it is not the verb
_TRAINING_NOUNS = {"data", "dataset", "datasets", "set", "corpus", "tokens", "token", "examples", "samples", "time",
                   "cost", "costs", "budget", "loop", "script", "code", "pipeline", "cluster", "job", "step", "steps"}
# fields only a serving workload has: said alone ("500 rps", "50 ms per token"), they mean serving
_SERVING_ONLY = ("concurrency", "target_tokens_per_s", "output_tokens", "input_tokens", "target_tokens_per_s_per_user",
                 "target_ttft_s", "requests_per_s", "load_tokens_per_s", "agentic", "prefix_cache_hit")
# a price question ("how much is an H100 on AWS?") names hardware and where, nothing of a workload
PRICE_FIELDS = frozenset({"gpu", "gpu_count", "provider", "pricing", "nodes", "instance_type"})
IMPLIED_CUE = "implied_by_name"  # a field was set from a name (the checkpoint's format), not said
_STORAGE_FROM = ("describe", "answer", "refine")  # intents a storage question may have been read as
# "fine-tune llama 3.1 8b full", "train qwen2.5 7b (full)", "finetune it fully": a full fine-tune said after the model;
# not "full precision", "full context", "a full node", "full speed" and the like, which say something else
_FULL_AFTER = re.compile(r"\b(?:fine[ -]?tun(?:e|ed|ing)|finetun(?:e|ed|ing)|ft|sft|train(?:ing)?)\s+(?:[\w.:/-]+\s+){1,4}?"
                         r"\(?(?:full|fully)\)?(?=$|[\s,.;:!?)])(?![ -](?:precision|context|node|nodes|rack|speed|"
                         r"bf16|fp16|fp32|length|window|dataset|data|corpus|run|epoch|set|batch)\b)")
_SCENARIO_WORDS = {"it", "this", "that", "them", "we", "our", "us"}  # "how much would it cost on H100s?"


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
    end_to_end: tuple[float, str] | None = None
    implied: dict[str, tuple[Any, str]] = {}
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
        for name, pair in said.implied.items():
            implied.setdefault(name, pair)
        notes += said.notes
        problems += said.problems
        bare += said.bare
        if said.requests_per_s:
            requests.append((said.requests_per_s, said.text))
        if said.end_to_end_s:
            end_to_end = (said.end_to_end_s, said.text)

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
        count = updates.pop("batch")
        if mode == "inference":
            updates["concurrency"] = count
        else:  # per GPU or across them: the words beside it, the steps and the size decide (parser.batches)
            field, why = read_batch(count, given["batch"][0][1], updates, mode)
            updates.setdefault(field, count)
            notes.extend([why] if why else [])
    if updates.get("mode", current_mode) == "inference":  # a serving batch is its concurrency; steps are training's
        for name in ("train_steps", "gradient_accumulation", "global_batch", "global_batch_tokens"):
            updates.pop(name, None)
    whole = text or " ".join(said.text for said in items)
    if end_to_end is not None:
        if not {"target_ttft_s", "target_tokens_per_s_per_user"} & set(updates):  # the split is the thread's target
            cues.add(END_TO_END_CUE)
        notes.append(end_to_end_split(end_to_end, updates, current_output_tokens))
    if "target_tokens_per_s" in updates and _IN_AND_OUT.search(whole):
        # "100k tokens/s total (input plus output)": prompt and output tokens counted together, a load for the engine to
        # turn into requests at the request shape; as output tokens it bought 11x the fleet at 2k-token prompts
        updates["load_tokens_per_s"] = updates.pop("target_tokens_per_s")
        updates["load_period"] = "minute"
        notes.append(f"read {updates['load_tokens_per_s']:,.0f} tokens/s as input and output together, not generated "
                     "tokens alone")
    note = _per_user_speed(updates, given, whole)
    if note:
        notes.append(note)
    notes += _translation_length(whole, updates, current_output_tokens, _train_verb(items) or bool(cues & {"finetune", "adapt"}))
    if requests:
        # "1M requests a day" is sized at a busy hour of BUSY_HOUR_FACTOR x the day's average, as a token load a day is
        # (engine.models.load_peak_factor); offline work takes the average (a queue smooths the busy hour)
        per_s, rate_said = requests[0]
        offline = updates.get("offline") or _OFFLINE.search(whole) or _OFFLINE_WORK.search(whole)
        busy = BUSY_HOUR_FACTOR if _AVERAGED.search(rate_said) and not offline else 1.0
        updates["requests_per_s"] = _sig(per_s * busy)
        notes.append(_requests_to_tokens(requests[0], updates, current_output_tokens, busy))
    mode_conflict = any(c.field == "mode" for c in conflicts)
    mode_unsaid = "mode" not in updates and current_mode is None and not mode_conflict
    training_said = _train_verb(items) or bool(cues & {"finetune", "adapt"})
    # prompt and reply lengths ("3k-token prompts") are not a count of prompts to run
    job_text = text or " ".join(s.text for s in items if not {"input_tokens", "output_tokens"} & s.values.keys())
    job = _job_items(job_text, updates, current_mode, training_said)
    if job:
        updates["batch_items"] = job
        if "input_tokens" not in updates and _IMAGE_JOB.search(job_text):
            updates["input_tokens"] = IMAGE_PROMPT_TOKENS
            updates["prompt_holds_image"] = True  # a catalog VLM recounts the image by its own rule (engine.vision)
            cues.add(IMAGE_PROMPT_CUE)
            notes.append(f"{IMAGE_JOB_NOTE} {job:,.0f} images: each prompt is sized at {IMAGE_PROMPT_TOKENS:,} "
                         "tokens, an image of about 1024x1024 (~1.3k vision tokens in Qwen2-VL-style encoders, one per "
                         "28x28 pixels) and its instruction; say the image size or the prompt length if yours differ")
    elif (not training_said and updates.get("mode", current_mode) in (None, "inference") and "offline" not in updates
          and (_OFFLINE.search(whole) or ("load_tokens_per_s" in updates and _OFFLINE_WORK.search(whole)))):
        # "offline batch" (in a thread too), or a token load of batch work ("500M tokens a day of summarization"):
        # throughput, not chat
        updates["offline"] = True
    if (not training_said and updates.get("mode", current_mode) in (None, "inference") and "agentic" not in updates
            and _AGENT.search(whole)):
        # a coding assistant or an agent loop: each call resends the conversation so far (mostly prefix-cached)
        updates["agentic"] = True
    available = availability(whole) if (not training_said and "min_replicas" not in updates
                                         and updates.get("mode", current_mode) in (None, "inference")) else None
    if available is not None:  # "99.9% uptime", "across 2 regions": replicas to fail over to
        updates["min_replicas"], said_how = available
        notes.append(said_how)
        full = full_capacity(whole, available[0], updates)  # "... at full capacity": the load said x 2 over 2 zones
        notes.extend([full] if full else [])
    if (not training_said and "mode" not in updates and current_mode is None and not job
            and ("model" in updates or "params_b" in updates)
            and (_RUN_A_MODEL.search(whole) or max_context_asked(whole))
            and not cues & {"finetune", "adapt", "train"}):
        # "how much VRAM do I need to run Llama 3.1 70B?", "can I run 70B on 2x A100?": running a model is inference;
        # so is the longest context it takes ("max context for Llama 3.1 70B on 2x H100")
        updates["mode"], updates["intent"] = "inference", "serve"
    if no_margin(whole) and not training_said:  # "no margin": sized to the per-user speed asked, exactly
        updates["speed_margin"] = 0.0
    instance = str(updates.get("instance_type") or "")
    if instance and "gpu_count" in updates and re.search(rf"\bhow many (?:of (?:the |those )?)?{re.escape(instance.lower())}",
                                                           whole.lower()):
        # "how many p5.48xlarge do I need to …": the machine type to plan on, not one machine fixed
        updates.pop("gpu_count")
        notes.append(f"read “how many {instance}” as the machine to plan on: the count is the answer")
    serving_only = [f for f in _SERVING_ONLY if f in updates]
    if mode_unsaid and not training_said and job and not requests:  # prompt lengths come with a job, as with a service
        updates["mode"] = "inference"
        notes.append("read as running the model over your prompts offline (no training was said, and you gave a count of "
                     "prompts)")
    elif mode_unsaid and not training_said and (serving_only or requests or capacity_asked(whole)):
        updates["mode"] = "inference"
        why = ("a number of users" if "concurrency" in updates else "how many users it serves" if capacity_asked(whole)
               and not serving_only and not requests else "a token load" if serving_only == ["load_tokens_per_s"]
               else "agents or a coding assistant as its users" if set(serving_only) <= {"agentic", "prefix_cache_hit"}
               else "a latency, request rate or response length")
        notes.append(f"read as serving the model (no training was said, and you gave {why})")
    if "mode" not in updates and not mode_conflict and training_said and _FULL_AFTER.search(whole):
        # "fine-tune llama 3.1 8b full on 8x MI250": the method said after the model (FULL_FT reads it before);
        # dropped, the answer was LoRA and asked "QLoRA, LoRA or a full fine-tune?"
        updates["mode"] = "full"
    if ("mode" not in updates and not mode_conflict and current_mode in (None, "pretrain")
            and _CONTEXT_EXTENSION.search(whole)):
        # "extend qwen2.5 7b context from 32k to 128k with yarn": continued pre-training at the new length, every
        # weight trained (read as LoRA and asked "what do you want to do?")
        updates["mode"] = "pretrain"
        notes.append(f"{CONTEXT_EXTENSION_NOTE}continued pre-training at the target length, every weight trained "
                     "(as Llama 3.1 and Qwen2.5 were extended), sized at the sequence length said; if the model card "
                     "already documents YaRN to that length (Qwen2.5: rope_scaling yarn, factor 4, to 131,072 tokens), "
                     "enabling it at inference needs no training: check its quality on your long prompts first")
    if _pretraining_scale(items, updates, cues, mode_unsaid):
        updates["mode"] = "pretrain"
        notes.append(f"read as pre-training: “train” with no base model named, a generic {updates['params_b']:g}B model "
                     f"and {updates['dataset_tokens'] / 1e9:,.0f}B tokens (at least {PRETRAIN_SCALE_TOKENS / 1e9:.0f}B is "
                     "a pre-training corpus, not a fine-tuning set); say “fine-tune” or the method to size that instead")
    if "mode" in updates:  # the intent follows a method said outright ("QLoRA" trains, "serve" serves)
        updates["intent"] = "serve" if updates["mode"] == "inference" else "train"
    elif training_said and not mode_conflict:
        # "fine-tune X", "train on our data", "adapt X", "SFT": training with no method said. The mode
        # stays unset: the method question is asked and the engine plans the cheapest method that fits
        updates["intent"] = "train"
    _imply(implied, updates, conflicts, notes, cues, current_mode)
    _budget_for_the_mode(updates, notes, current_mode)
    notes += _undated_deadline(whole, updates, current_mode)
    unhurried = _NO_DEADLINE.search(whole)
    if unhurried and "deadline_hours" not in updates:
        cues.add(NO_DEADLINE_CUE)  # not asked how soon (parser.questions)
        if "batch_items" in updates:
            notes.append(f"“{unhurried.group(0)}”: sized to finish within a day, as the job's GPU-hours and cost barely "
                         "depend on it; say e.g. “within a week” for a smaller fleet")
    if "refine_verb" in cues:  # "use A100s": a follow-up, unless the message describes a whole job
        cues.discard("refine_verb")
        if not ("mode" in updates and ("model" in updates or "params_b" in updates)):
            cues.add("refine")
    # a value ignored with a note ("0 epochs", "-5 epochs") was said: the reply shows the note, not help
    intent = _intent(updates, conflicts, problems, cues, bare, said_something=bool(requests) or "ignored" in cues)
    if ("price" not in cues and "instance_type" in updates and set(updates) <= PRICE_FIELDS
            and _PRICE_PERIOD.search(whole)):
        cues.add("price")  # "2 p5en.48xlarge reserved for a year, monthly": an instance and a period ask its price
    if _price_question(updates, conflicts, cues) and not _about_the_scenario(items, updates, current_mode):
        intent = "prices"
    # "from GCS to S3" is a source and a destination, not two data locations in conflict
    places_only = all(c.field in ("data_location", "provider") for c in conflicts)
    storage = storage_question(whole.lower(), updates, cues) if intent in _STORAGE_FROM and places_only else None
    if storage is not None:  # "how big is a 70B checkpoint?", "egress to move 2TB out of S3": a size or a bill, no plan
        intent = "storage"
    if _EMBEDDING.search(whole) and "model" not in updates and (intent == "gibberish" or not training_said):
        # an encoder (embeddings, a reranker) named or described, and no LLM: sizing it as a chat model would be wrong
        # by an order of magnitude (no decode; every candidate pair is a full forward pass), so it is said, not sized
        intent = "gibberish"
        notes.append(f"{UNCOVERED_PREFIX}yet: the advice covers LLM training and serving. An encoder's pass is "
                     "compute-bound, about 2 x parameters FLOPs per token with no decoding: GPU-hours ≈ 2 x parameters "
                     "x tokens / (the GPU's dense BF16 peak x ~40%), a reranker's tokens being queries x candidates x "
                     "pair length")
    elif _SPEECH_IMAGE.search(whole) and "model" not in updates:
        intent = "gibberish"
        notes.append(f"{SPEECH_IMAGE_PREFIX}yet: the advice covers LLM training and serving. Their cost is set by audio "
                     "seconds or images per GPU-second, not by tokens decoded per user (Whisper large-v3 is 1.55B "
                     "parameters and fits any datacenter GPU; faster-whisper, vLLM's Whisper support and diffusers "
                     "publish throughput to size from)")
    compared = next((s.compared for s in items if s.compared), ())
    compared_precisions = next((s.compared_precisions for s in items if s.compared_precisions), ())
    return Reading(
        text=text, updates=updates, intent=intent, conflicts=tuple(conflicts), unknown_names=tuple(problems),
        notes=tuple(dict.fromkeys(notes)), cues=frozenset(cues), bare=tuple(bare), compared=compared,
        compared_precisions=compared_precisions, storage=storage,
    )


def _imply(implied: dict[str, tuple[Any, str]], updates: dict[str, Any], conflicts: list[Conflict], notes: list[str],
           cues: set[str], current_mode: str | None) -> None:
    """What a name implies, where nothing said sets it: a quantized checkpoint named for serving is served in its
    format. Not for training (an adapter is trained on a 16-bit or 4-bit base, whatever checkpoint is named)."""
    mode = updates.get("mode", current_mode)
    serving = mode == "inference" or (mode is None and updates.get("intent") != "train")
    for name, (value, note) in implied.items():
        if serving and name not in updates and not any(c.field == name for c in conflicts):
            updates[name] = value
            notes.append(note)
            cues.add(IMPLIED_CUE)


# "10 million documents", "2m rows", "500k prompts": an offline job's prompts (not "a day": that is a rate)
_JOB_ITEMS = re.compile(
    r"\b(\d+(?:\.\d+)?)\s*(k|m|mm|b|bn|thousand|million|billion)?\s+(?:\w+[- ]token\s+|(?!tokens?\b)[a-z]+\s+)?"
    r"(documents|docs|rows|records|prompts|requests|items|queries|pages|emails|tickets|reviews|articles|products|"
    r"messages|conversations|files|pdfs|passages|chunks|transcripts|questions|abstracts|descriptions|tweets|posts|"
    r"comments|sentences|paragraphs|snippets|logs|lines|chats|(?<!tool )(?<!api )(?<!function )calls|invoices|contracts|"
    r"resumes|résumés|listings|entries|reports|notes|receipts|captions|summaries|"
    # the short texts a batch job classifies, and the samples of an eval or a labelling set ("classify 50M short texts")
    r"texts|samples|examples|"
    # images a vision-language model captions, describes or reads ("caption 10M images", "OCR 500k pages")
    r"images|photos|photographs|pictures|screenshots|scans|frames|thumbnails)\b"
    r"(?!\s*(?:/|per\b|an?\s+(?:second|sec|s|minute|min|hour|hr|day|week|month|year)\b|each\s+(?:second|minute|hour|day)))",
    re.IGNORECASE)
# "run" a model (not "a run", "runs a month", "run a fine-tune"): using it, i.e. inference
_RUN_A_MODEL = re.compile(r"\b(?:can (?:i|we|you) run|to run|run(?:ning)? (?!(?:a |the )?(?:fine|train|lora|qlora|sft|"
                          r"pretrain|job|experiment|sweep|eval))|runs? (?:it|this|that) )", re.IGNORECASE)
# a job over images: each prompt is mostly the image's vision tokens, which the engine sees as prompt tokens
_IMAGE_JOB = re.compile(r"\b(?:images|photos|photographs|pictures|screenshots|scans|frames|thumbnails|ocr)\b",
                        re.IGNORECASE)

CONTEXT_EXTENSION_NOTE = "read as context extension: "
_CONTEXT_EXTENSION = re.compile(r"\bcontext extension\b|\bextend(?:ing|ed)?\b[\w .-]{0,40}?\bcontext\b"
                                r"|\b(?:with|using|via) (?:yarn|rope scaling|longrope|position interpolation)\b")
_OFFLINE = re.compile(r"\boffline\b|\bbatch (?:job|jobs|processing|inference|mode|pipeline|workload|summari\w+)\b",
                      re.IGNORECASE)
# work that makes a token load an offline pipeline rather than a chat service
_OFFLINE_WORK = re.compile(r"\b(?:offline|batch(?:ed|es)?|summari[sz](?:e|es|ed|ing|ation)|classif(?:y|ies|ying|ication)|"
                           r"extract(?:s|ed|ing|ion)?|label(?:s|ed|led|ing|ling)?|translat(?:e|es|ed|ing|ion)|"
                           r"tagg?(?:ing)?|pipeline|nightly|overnight|backfill)\b", re.IGNORECASE)
# agents and coding assistants, whose every call carries the conversation so far ("40 developers using Cline")
_AGENT = re.compile(r"\b(?:cline|cursor|aider|claude code|codex|openhands|open hands|roo ?code|kilo ?code|continue\.dev|"
                    r"copilot|opencode|swe-?agent|coding (?:agent|assistant|copilot)s?|agent(?:s|ic)?|ai agents?|"
                    r"tool[- ]call(?:s|ing)?|function[- ]calling)\b", re.IGNORECASE)
_RETRIEVAL = re.compile(r"\b(?:rag|retriev\w*|search|index\w*|vector\w*|knowledge base)\b", re.IGNORECASE)
_JOB_SCALE = {"k": 1e3, "thousand": 1e3, "m": 1e6, "mm": 1e6, "million": 1e6, "b": 1e9, "bn": 1e9, "billion": 1e9}
_JOB_MIN_ITEMS = 1000  # fewer is a test run, not a job worth a fleet


def _job_items(text: str, updates: dict[str, Any], current_mode: str | None, training_said: bool) -> float | None:
    """The prompts of an offline inference job ("run Llama 3.1 8B over 10 million documents"), None when the count is
    training data (training said, or a training mode), a load already given (users, a rate), or too few to size."""
    mode = updates.get("mode", current_mode)
    if training_said or (mode is not None and mode != "inference") or updates.get("intent") == "train":
        return None
    if "concurrency" in updates or "requests_per_s" in updates or "load_tokens_per_s" in updates or _EMBEDDING.search(text) or _RETRIEVAL.search(text):
        return None
    if not _JOB_VERB.search(text):
        return None
    found = _JOB_ITEMS.search(text)
    if found is None:
        return None
    count = float(found.group(1)) * _JOB_SCALE.get((found.group(2) or "").lower(), 1.0)
    return count if count >= _JOB_MIN_ITEMS else None


UNCOVERED_PREFIX = "embedding and reranking models (bge, e5, gte, …) are not sized here "
SPEECH_IMAGE_PREFIX = "speech and image models (Whisper, text-to-speech, Stable Diffusion, FLUX, …) are not sized here "
UNCOVERED_PREFIXES = (UNCOVERED_PREFIX, SPEECH_IMAGE_PREFIX)  # said instead of a plan (bot.render's help view)
# an audio or image model named or described: "I don't know whisper, tell me its size" would size it as a chat LLM
_JOIN = r"(?:\s*-\s*|\s+)"  # "speech-to-text" reaches the fold as "speech - to - text" (the lexer's tokens)
_SPEECH_IMAGE = re.compile(rf"\b(?:whisper|speech{_JOIN}to{_JOIN}text|stt|asr|transcrib(?:e|es|ing)|transcriptions?|"
                           rf"text{_JOIN}to{_JOIN}speech|tts|stable{_JOIN}diffusion|sdxl|sd ?3(?:\.5)?|flux(?:\.1)?|"
                           rf"image generation|text{_JOIN}to{_JOIN}image|diffusion models?)\b", re.IGNORECASE)
_AVERAGED = re.compile(r"\b(?:day|week|wk|month|mo)\b")
_EMBEDDING = re.compile(r"\b(?:embed|embeds|embedding|embeddings|bge|e5|gte|rerank|reranker|rerankers|reranking|"
                        r"sentence[- ]transformers?|cross[- ]encoders?|(?:an? |bert )?encoder(?:-only)? models?|bert)\b",
                        re.IGNORECASE)
# "by Friday", "by end of week", "by tomorrow": a date the parser cannot turn into hours (it knows no calendar)
_UNDATED = re.compile(r"\bby (?:(?:next |this )?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend)"
                      r"|tomorrow|tonight|eod|eow|eom|the end of (?:the )?(?:day|week|month)|end of (?:the )?(?:day|week|month)"
                      r"|(?:next|this) week|month end)\b", re.IGNORECASE)


# "no deadline", "no rush": a job that may take its time, which is no deadline to plan to (nor a question to ask)
_NO_DEADLINE = re.compile(r"\bno (?:deadline|rush|hurry|time limit|time constraints?)\b|\bwhenever\b", re.IGNORECASE)
NO_DEADLINE_CUE = "no_deadline"


# "by Friday (4 days)", "by Friday, i.e. 4 days", "by end of week — 5 days": the length said right after the date
_SAID_LENGTH = re.compile(r"^[\s,;:()\-–—.]*(?:(?:i ?\.? ?e|that's|that is|which is|so|so about|about|roughly|~|or|aka)"
                          r"[\s,;:.]+)?(?:in |within )?(\d+(?:\.\d+)?) ?(hours?|hrs?|h|days?|weeks?|wks?)\b",
                          re.IGNORECASE)


def _undated_deadline(text: str, updates: dict[str, Any], current_mode: str | None) -> list[str]:
    """A training run (or an offline job) due "by Friday": said back as not applied, with the wording that would be,
    rather than silently planned without it (a serving "live by Friday" is not a run's length). With its length
    said right after it ("by Friday (4 days)") that length is the deadline."""
    found = _UNDATED.search(text)
    mode = updates.get("mode", current_mode)
    training = updates.get("intent") == "train" or mode in ("pretrain", "full", "lora", "qlora")
    job = "batch_items" in updates
    if found is None or not (training or job) or "deadline_hours" in updates:
        return []
    length = _SAID_LENGTH.match(text[found.end():])
    if length is not None:
        hours = duration_hours(f"{length.group(1)} {length.group(2)}")
        if hours is not None and hours > 0:
            updates["deadline_hours"] = hours
            said = f"{found.group(0)} ({length.group(1)} {length.group(2)})"
            return [f"read “{said}” as {'the run' if training else 'the job'} done within {hours:,.0f} hours"]
    what = "one run" if training else "the job"
    return [f"“{found.group(0)}”: I can't count hours to a date; say how long {what} may take (e.g. “within 72 hours”) "
            "and the plan is held to it"]


_TRANSLATE = re.compile(r"\btranslat(?:e|es|ed|ing|ion|ions)\b", re.IGNORECASE)


def _translation_length(text: str, updates: dict[str, Any], current_output_tokens: int | None,
                        training_said: bool) -> list[str]:
    """'translate 1M documents of 3k tokens each': a translation is about as long as its source, so with a prompt
    length and no reply length said the reply is the prompt's length (the default 256 would size a tenth of the
    decode, the part that costs). Said in a note."""
    prompt = updates.get("input_tokens")
    if (training_said or not prompt or "output_tokens" in updates or current_output_tokens
            or updates.get("mode") not in (None, "inference") or not _TRANSLATE.search(text)):
        return []
    updates["output_tokens"] = int(prompt)
    return [f"a translation is about as long as its source: replies sized at {int(prompt):,} tokens, the prompt's "
            f"length; say the reply length (e.g. “{int(prompt) * 6 // 5:,} output tokens”) if yours run longer"]


def _budget_for_the_mode(updates: dict[str, Any], notes: list[str], current_mode: str | None) -> None:
    """A sum with no period ("budget $150k") is a training run's budget; a service's budget needs its period ("$5k a
    month"), so for serving it is said back and not applied."""
    mode = updates.get("mode", current_mode)
    if "budget_usd_per_run" in updates and (mode == "inference" or updates.get("intent") == "serve"):
        value = updates.pop("budget_usd_per_run")
        notes[:] = [n for n in notes if not n.startswith("read $")]
        notes.append(f"${value:,.0f} is not a GPU-hour price, and a service's budget needs its period: say e.g. "
                     f"“${value:,.0f} a month”")


def _price_question(updates: dict[str, Any], conflicts: list[Conflict], cues: set[str]) -> bool:
    """'how much is an H100 on AWS?', 'B200 prices', 'what does RunPod charge for a 4090?': a price cue,
    a GPU or a provider, and nothing that describes a workload ("how much to serve X on H100" is one)."""
    return ("price" in cues and not cues & {"refine", "undo"} and not conflicts and bool(updates)
            and set(updates) <= PRICE_FIELDS and bool({"gpu", "provider"} & set(updates)))


_PRICE_PERIOD = re.compile(r"\b(?:monthly|hourly|per (?:month|hour|hr|mo)|a (?:month|hour)|an hour|/ ?(?:mo|month|hr|h))\b")


def _about_the_scenario(items: list[Said], updates: dict[str, Any], current_mode: str | None) -> bool:
    """'how much would it cost on H100s?', or 'what does it cost on AWS?' in a thread: the price of the
    scenario on other hardware or elsewhere (a refinement), not a question about the price list. An instance type
    named outside a thread ("what does it cost per month to run 4 p5.48xlarge?") is the price list's: "it" is the
    instances."""
    if "instance_type" in updates and current_mode is None:
        return False
    if any(s.kind == "filler" and s.text in _SCENARIO_WORDS for s in items):
        return True
    return current_mode is not None and "gpu" not in updates


PRETRAIN_SCALE_TOKENS = 10e9  # fine-tuning sets are millions to a few billion tokens; tens of billions is a corpus


def _pretraining_scale(items: list[Said], updates: dict[str, Any], cues: set[str], mode_unsaid: bool) -> bool:
    """'train a 1B model on 100B tokens': only "train" said, a size and no model named, and a pre-training corpus.
    Left unset, the engine plans the cheapest method that fits (LoRA), which no one means for a model with no base;
    "fine-tune a 7B model on 50M tokens" stays a fine-tune."""
    return (mode_unsaid and _train_verb(items) and not cues & {"finetune", "adapt"} and "model" not in updates
            and bool(updates.get("params_b")) and (updates.get("dataset_tokens") or 0) >= PRETRAIN_SCALE_TOKENS)


def _train_verb(items: list[Said]) -> bool:
    """'train' as a verb ("train a 21B model"), not a noun's modifier ("training data")."""
    for index, said in enumerate(items):
        if said.kind == "cue" and "train" in said.cues:
            following = items[index + 1].text.split(" ")[0] if index + 1 < len(items) else ""
            if following not in _TRAINING_NOUNS:  # first word: "training tokens/s" is one filler token
                return True
    return False


# a tokens/s figure shared by this many users gives each less than reading speed: meant per user
PER_USER_READING_TOKENS_S = 5.0
_TOTAL = re.compile(r"\b(?:in total|total|aggregate|overall|combined|altogether)\b", re.IGNORECASE)


def _per_user_speed(updates: dict[str, Any], given: dict[str, list[tuple[Any, str]]], text: str) -> str:
    """"40 users at 30 tok/s": a speed said beside a number of users, with no "per user" and no request rate,
    that as the whole service's throughput would give each user less than reading speed (0.75 tokens/s) is the
    speed each user gets. Read as per user, with a note; "100 users at 2,000 tokens/s" stays a total."""
    total, users = updates.get("target_tokens_per_s"), updates.get("concurrency")
    if (total is not None and not users and capacity_asked(text) and "target_tokens_per_s_per_user" not in updates
            and not _TOTAL.search(text) and "requests_per_s" not in updates):
        # "how many users can 2 L40S serve at 30 tokens/s?": the speed each of the users asked about gets
        updates["target_tokens_per_s_per_user"] = updates.pop("target_tokens_per_s")
        return f"read “{float(total):g} tokens/s” as each user's speed (the question is how many users get it)"
    if (total is None or not users or int(users) < 2 or "target_tokens_per_s_per_user" in updates or _TOTAL.search(text)
            or "requests_per_s" in updates or float(total) / int(users) >= PER_USER_READING_TOKENS_S):
        return ""
    updates["target_tokens_per_s_per_user"] = updates.pop("target_tokens_per_s")
    said = given.get("target_tokens_per_s", [(total, f"{total:g} tokens/s")])[0][1]
    return (f"read “{said}” as {float(total):g} tokens/s per user ({float(total):g} for all {int(users):,} users would be "
            f"{float(total) / int(users):.2g} each); say “{float(total):g} tokens/s in total” for the whole service")


# a tokens/s total that counts the prompts too: "(input plus output)", "in and out", "prompt + completion tokens"
_IN_AND_OUT = re.compile(r"\b(?:input|prompt|in)s? (?:plus|and|\+|&) (?:output|completion|generated|out)s?\b"
                         r"|\bprompt \+ (?:output|completion)\b|\bboth directions\b")


# of an end-to-end latency, the share kept for the first token (at most FIRST_TOKEN_CAP_S): prefill and queueing
FIRST_TOKEN_SHARE = 0.1
FIRST_TOKEN_CAP_S = 0.5
# the message's first token and per-user speed are the split of an end-to-end latency: a thread keeps it, so "what
# about 2 s?" splits 2 s the same way (parser.retarget)
END_TO_END_CUE = "end_to_end"


def end_to_end_split(said: tuple[float, str], updates: dict[str, Any], current_output_tokens: int | None) -> str:
    """'p99 end-to-end latency under 5 s for 300-token answers' (vLLM's E2EL, GenAI-Perf's request latency) is the first
    token plus every other token of the reply: planned as a first token within 10% of it (at most 0.5 s) and the
    reply in the rest, i.e. a per-user speed of reply / (latency - first token). A first-token or per-token target
    said beside it is kept; the split is said, so the user can set either."""
    seconds, text = said
    reply = int(updates.get("output_tokens") or current_output_tokens or DEFAULT_OUTPUT_TOKENS)
    first = min(FIRST_TOKEN_CAP_S, seconds * FIRST_TOKEN_SHARE)
    speed = reply / (seconds - first)
    kept = [name for name in ("target_ttft_s", "target_tokens_per_s_per_user") if name in updates]
    updates.setdefault("target_ttft_s", _sig(first))
    updates.setdefault("target_tokens_per_s_per_user", float(f"{speed:.4g}"))
    assumed = "" if "output_tokens" in updates or current_output_tokens else " (the reply length assumed: say yours)"
    if kept:
        return f"read “{text}” beside the {' and '.join(k.removeprefix('target_').replace('_', ' ') for k in kept)} you gave"
    return (f"read “{text}” as a first token within {first:g} s and {reply:,} reply tokens{assumed} in the remaining "
            f"{seconds - first:g} s: {speed:.1f} tokens/s per user; say a time to first token or a per-token target "
            "to split it differently")


def _requests_to_tokens(request: tuple[float, str], updates: dict[str, Any], current_output_tokens: int | None,
                        busy: float = 1.0) -> str:
    """A request rate is kept as `requests_per_s`; with a response length it also becomes the aggregate
    tokens/s target the engine sized for before it read request rates. No length is assumed here. A count per
    day, week or month is an average: sized at `busy` x it (the busy hour), said so with the wording that sizes
    for the user's own peak; offline (`busy` 1), the average, said so."""
    average, said = request
    per_s = average * busy
    averaged = _AVERAGED.search(said)
    if averaged and busy > 1:
        period = {"wk": "week", "mo": "month"}.get(averaged.group(0), averaged.group(0))
        rate = (f"“{said}”: sized for a busy hour at {busy:g}x the {period}'s average, {_round(per_s)} requests/s; "
                f"say “peak {_round(average)} requests/s” to size for your own peak")
    else:
        rate = f"“{said}” is {_plain(per_s)} requests/s" + (" on average, processed offline" if averaged else "")
    if "target_tokens_per_s" in updates:
        return f"{rate}; the tokens/s target you gave is kept as well"
    output_tokens = updates.get("output_tokens") or current_output_tokens
    if not output_tokens:
        return (f"{rate}; say the response length too (e.g. “{said}, 300 output tokens each”), it sets the tokens to "
                "generate")
    updates["target_tokens_per_s"] = round(per_s * output_tokens, 6)
    product = f"{_plain(per_s)} requests/s × {output_tokens} output tokens = {_plain(per_s * output_tokens)} tokens/s"
    return f"{rate} ({product})" if averaged else product


def _round(value: float) -> str:
    """23, 1.2, 0.05: a rate as people say it, two figures below ten."""
    return f"{value:,.0f}" if value >= 10 else f"{value:.2g}"


def _plain(value: float) -> str:
    """380.5, 11.42, 0.1903, 23,148, 10,000: four figures below a thousand, whole numbers above (never 1e+04)."""
    return f"{value:,.0f}" if value >= 1000 else f"{value:.4g}"


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
