"""Which follow-up questions to ask, and which gaps to fill with a stated assumption instead.

Policy: ask only what changes the answer by a large factor, never more than two questions at a
time, and answer everything else at once with a stated assumption.

1. Mode (essential, always asked while missing): QLoRA vs full fine-tuning differ ~10x in
   memory, serving is a different calculation. Not asked when the message says "serve"
   (inference) or gives serving-only details (concurrent users), which set the mode. "Fine-tune
   X", "train on our data", "adapt X", "SFT" say training without a method (`intent` "train"):
   the method is asked, and meanwhile the engine plans the cheapest method that fits.
2. Model (essential, always asked while missing): no model and no parameter count means no
   memory estimate at all. When the message named a model the catalog does not know, the
   question is the catalog's answer in friendly words ("I don't know “gpt-5”; did you mean ...?
   Or tell me its size, e.g. “70B”.").
3. Training data size (training only, asked once): with neither a corpus size nor a token count,
   GPU-hours and cost cannot be computed. If ignored, the engine's default is used.
4. Tokens per epoch (training only, asked once): when only the corpus size is known, tokens are
   estimated at ~4 bytes/token and stated. Asked only when that guess exceeds ~10B tokens, because
   then a wrong guess moves the cost by a large absolute amount (500 GB -> ~125B tokens; a
   curated 1B-token subset would cost 100x less). Small corpora are just assumed.
5. Data location (training only, asked once): egress is paid per run when data and GPUs are in
   different clouds, so it matters only for a corpus of >= 100 GB pulled more than once a month.
6. Load (serving only, asked once): with no concurrency, request rate or throughput target the
   plan is sized for one stream, and the KV cache, the replica count, the GPU choice and the cost
   per token all move 10-50x between 1 and 50 users. The figures are still shown, for one stream,
   and the question says so.
7. Audience (serving only, asked once): a headcount ("300 employees", "2,000 users signed up") is sized for a
   share of it at once (parser.population) and the share is asked; 1,000 or more plain "users" may be users online,
   of whom typically 10-20% wait on a reply at once; sized for all of them generating at once until the user says.
8. Prompt length (serving only, asked once): concurrent users at a stated context of 16k+ tokens, or a
   request rate, with no prompt and reply lengths: long prompts are prefilled on the same GPUs.
9. Ownership (asked once): a stated GPU count of 256 or more with no provider, rate or pricing said may be
   the team's own cluster; priced as a rental until the user says "on prem".
10. A GPU the catalog does not know or cannot pick alone ("RTX 6000"), asked first whenever a message names one:
   the plan is on another GPU meanwhile (the catalog's pick, or the thread's), and the question says so with the
   catalog's nearest names; never only a note the first message may cut, so "on 2048 H900" does not read as an
   answer about the GPU named.

Never asked, only stated when assumed: epochs (1), precision, sequence length, batch size,
GPU type when none is named (candidates come from the catalog), hourly rate (catalog prices), runs
per month (1). A question the user ignored (3-5) is not asked again: the assumption stands.
Questions about conflicting values (see `Conversation`) come first and count toward the two.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict

from engine.models import (
    AGENT_DEFAULT_PROMPT_TOKENS,
    AGENT_PREFIX_CACHE_HIT,
    BUSY_HOUR_FACTOR,
    BYTES_PER_TOKEN_TEXT,
    DEFAULT_INPUT_TOKENS,
    DEFAULT_OUTPUT_TOKENS,
    DEFAULT_RL_COMPLETION_TOKENS,
    DEFAULT_TOKENS_PER_EXAMPLE,
    DEFAULT_TRAINING_SEQ_LEN,
    LOAD_PERIOD_SECONDS,
    RL_OBJECTIVES,
    TRAINING_MODES,
    TRL_COMPLETION_TOKENS,
    Workload,
    load_peak_factor,
    rate_text,
    sequences_per_example,
    steps_tokens,
    text_gb,
)

from .budget_first import budget_first, budget_words
from .capacity import CAPACITY_CUE, capacity_asked
from .completion import COMPLETION_CUE, COMPLETION_REQUESTS_PER_DEV_S
from .fold import NO_DEADLINE_CUE
from .owning import LOCAL_CUE
from .reading import Reading

MAX_QUESTIONS = 2
BYTES_PER_TOKEN = int(BYTES_PER_TOKEN_TEXT)  # the engine's figure, shown as "~4 bytes/token"
BIG_CORPUS_TOKENS = 10e9  # above this, the token guess is worth checking
EGRESS_WORTH_ASKING_GB = 100
ESSENTIAL = frozenset({"mode", "model"})


class Question(BaseModel):
    """A follow-up question: the Workload field it fills, what the user reads, why it matters."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    field: str
    text: str
    why: str


def estimated_tokens(workload: Workload) -> int | None:
    """Tokens per epoch guessed from the corpus size at ~4 bytes/token, of ~3x the size when it is compressed or
    columnar (None without a size): the engine's guess (engine/defaults.py), so question and answer agree."""
    if workload.dataset_gb is None:
        return None
    return int(text_gb(workload) * 1e9 / BYTES_PER_TOKEN)


def _size_said(workload: Workload) -> str:
    """'40 GB', or '40 GB compressed (~120 GB of text)'."""
    if workload.dataset_compressed:
        return f"{workload.dataset_gb:g} GB compressed (~{text_gb(workload):g} GB of text)"
    return f"{workload.dataset_gb:g} GB"


def questions_for(
    workload: Workload,
    reading: Reading | None = None,
    *,
    asked: Iterable[str] = (),
    cues: Iterable[str] = (),
    reply_tokens: int = DEFAULT_OUTPUT_TOKENS,
    images_asked: bool = False,
) -> list[Question]:
    """At most two questions, most important first; see the module docstring for the policy. `reply_tokens`: the
    reply length the engine assumes for this model (a reasoning model's replies carry their thinking)."""
    asked = set(asked)
    cues = set(cues) | (set(reading.cues) if reading else set())
    wanted: list[Question] = []
    unknown_gpu = unknown_gpu_question(workload, reading)
    if unknown_gpu is not None:
        wanted.append(unknown_gpu)
    if reading is not None and len(reading.compared) >= 2 and workload.gpu:
        # "is A100 or H100 cheaper?": one GPU is planned at a time, so the other is offered on the same load (the bot
        # plans each and drops this question when it can)
        first, second = reading.compared[0].upper(), " or ".join(name.upper() for name in reading.compared[1:])
        plural = "" if second.endswith("s") else "s"
        wanted.append(Question(
            field="gpu",
            text=f"{first} or {second}: I plan one GPU at a time, and this is the {first}. Reply “try {second}{plural}” "
                 f"for the {second} on the same load, then compare the two costs per 1M tokens (or per run).",
            why="a comparison of two GPUs is two plans on the same load"))
    # "fine-tune X" with no method: training all the same (the data question applies); the method is asked
    training = workload.mode in TRAINING_MODES or (workload.mode is None and workload.intent == "train")
    if workload.mode is None:
        wanted.append(_mode_question(cues, workload.intent))
    elif "sft_full" in cues and workload.mode == "full" and "mode" not in asked:
        # "SFT llama 3 8b": sized as TRL's SFTTrainer runs it (every weight), the method still asked
        wanted.append(Question(field="mode", text="Full fine-tune, LoRA or QLoRA? Sized as a full fine-tune (TRL's "
                               "SFTTrainer trains every weight unless given a LoRA config) until you say",
                               why="memory differs ~10x between QLoRA and full training"))
    # "the biggest model we can fine-tune for $1000": the ladder of models answers the model; the data is what it needs
    ladder = budget_first(workload) == "train"
    if workload.model is None and workload.params_b is None and not ladder:
        unknown = next((p for p in (reading.unknown_names if reading else ()) if p.field == "model"), None)
        text = unknown.message if unknown else "Which model, or how many parameters (e.g. “Llama 3 8B”, “70B”)?"
        wanted.append(Question(field="model", text=text, why="memory and speed scale with the parameter count"))
    rl = training and workload.objective in RL_OBJECTIVES
    rl_prompts = rl and _rl_prompts_question(workload)
    if rl_prompts:
        wanted.append(rl_prompts)
    if rl and workload.rl_completion_tokens is not None:
        pass  # online RL: the prompts are counted and the lengths said; the tokens follow (engine.rl)
    elif rl and workload.dataset_tokens is None:
        # online RL: the completions are generated and trained, so their length sets both phases (engine.rl)
        wanted.append(Question(
            field="rl_completion_tokens",
            text=f"How long are the completions, in tokens? Sized at up to {DEFAULT_RL_COMPLETION_TOKENS:,} until you say "
                 f"(reasoning RL runs 1-4k; TRL's max_completion_length default is {TRL_COMPLETION_TOKENS}): e.g. "
                 "“2k-token completions”.",
            why="generation and training time scale with the completion length"))
    elif (training and workload.dataset_gb is None and workload.dataset_tokens is None and workload.dataset_examples
            and sequences_per_example(workload.objective) > 1):
        wanted.append(Question(
            field="dataset_tokens",
            text=f"How long is a sequence, in tokens (the prompt and one response)? {workload.dataset_examples:,} pairs "
                 f"train two sequences each (chosen and rejected), sized at ~{DEFAULT_TOKENS_PER_EXAMPLE:,} tokens each "
                 "until you say (e.g. “pairs of 300 tokens” or “20M tokens in total”).",
            why="training time and cost scale with the tokens processed"))
    elif training and workload.dataset_gb is None and workload.dataset_tokens is None and workload.dataset_examples:
        wanted.append(Question(
            field="dataset_tokens",
            text=f"How long is an example, in tokens (prompt and response together)? {workload.dataset_examples:,} examples "
                 f"are sized at ~{DEFAULT_TOKENS_PER_EXAMPLE:,} tokens each until you say (e.g. “examples of 300 tokens” "
                 "or “20M tokens in total”).",
            why="training time and cost scale with the tokens processed"))
    elif (training and workload.dataset_gb is None and workload.dataset_tokens is None
          and steps_tokens(workload, int(workload.seq_len or DEFAULT_TRAINING_SEQ_LEN)) is None):
        # steps x global batch x sequence length is the data: with the steps said, the batch is what is missing
        text = (f"{workload.train_steps:,} steps at what global batch size (e.g. “global batch 256”)? Steps × batch × "
                "sequence length is the data trained; or give the data (“2B tokens”)." if workload.train_steps else
                f"How many tokens does a run train on (e.g. “100M tokens”, “2B tokens”, or a size, “5GB”)? A run's cost "
                f"is linear in them, so the biggest model {budget_words(workload)} fine-tunes moves with them: not "
                "assumed." if ladder else "How much training data: a size (“500GB”) or tokens (“2B tokens”)?")
        wanted.append(Question(field="dataset_tokens", text=text, why="training time and cost scale with the tokens processed"))
    guess = estimated_tokens(workload)
    if training and workload.dataset_tokens is None and guess is not None and guess > BIG_CORPUS_TOKENS:
        wanted.append(Question(
            field="dataset_tokens",
            text=f"How many tokens per epoch? From {_size_said(workload)} I'm assuming ~{_billions(guess)} "
                 f"(~{BYTES_PER_TOKEN} bytes/token); if you train on a subset, say e.g. “1B tokens”.",
            why="cost is linear in tokens; a big corpus makes the guess expensive if wrong"))
    if ownership_unsaid(workload):
        wanted.append(Question(
            field="data_location",
            text=f"Are the {_cluster_said(workload)} yours or to rent? Priced as a rental until you say "
                 "“on prem” (then costed at their power).",
            why="GPUs a team owns cost their power, about a tenth of their rent"))
    elif desktop_card_unsaid(workload):
        card = str(workload.gpu).upper().replace("-", " ")
        count = int(workload.gpu_count or 1)
        wanted.append(Question(
            field="data_location",
            text=(f"Is the {card} yours or to rent? " if count == 1 else f"Are the {count} {card}s yours or to rent? ")
                 + f"Priced as a rental until you say “my own” (then costed at {'its' if count == 1 else 'their'} power).",
            why="a desktop card named on its own is often the user's; owned, it costs its power, not a rent"))
    if (training and workload.data_location is None and (workload.dataset_gb or 0) >= EGRESS_WORTH_ASKING_GB
            and (workload.runs_per_month is None or workload.runs_per_month > 1)):
        wanted.append(Question(field="data_location", text="Where does the data live: S3, GCS, Azure Blob or on-prem?",
                               why="pulling the corpus across clouds every run costs egress"))
    if serving_without_load(workload) and workload.batch_items:
        if workload.deadline_hours is None and NO_DEADLINE_CUE not in cues:  # "no deadline": nothing to ask
            wanted.append(Question(
                field="deadline_hours",
                text=f"How soon must the {workload.batch_items:,.0f} prompts be done? Sized to finish within a day until you "
                     "say (e.g. “within 6 hours”).",
                why="the fleet is the prompts' rate over the time the job may take; the job's GPU-hours barely change"))
    elif serving_without_load(workload) and CAPACITY_CUE not in cues and LOCAL_CUE not in cues and not (
            reading is not None and capacity_asked(reading.text or "")):
        # "how many users can 8 H100s serve?" asks for the load: the answer gives it, no question back
        wanted.append(Question(
            field="concurrency",
            text="How many users at once (or requests per second)? Sized for 1 stream until you say (e.g. “50 users”).",
            why="the KV cache, the replicas and the cost per token scale with the load"))
    if workload.batch_items and not workload.requests_per_s and workload.output_tokens is None:
        # a prompt length known (said, or assumed for an image and said so) is not asked again, nor contradicted
        text = (f"How many tokens does each answer generate? Sized at {reply_tokens:,} out with "
                f"{workload.input_tokens:,}-token prompts until you say (e.g. “100 output tokens”)."
                if workload.input_tokens else
                f"How long is each prompt, and how many tokens does each answer generate? Sized at {DEFAULT_INPUT_TOKENS:,} "
                f"in and {reply_tokens:,} out until you say (e.g. “500 tokens in, 100 out”).")
        wanted.append(Question(
            field="output_tokens",
            text=text,
            why="the job's GPU-hours scale with the tokens generated and the prompts to prefill"))
    if workload.requests_per_s and workload.output_tokens is None:
        # only what is missing: prompts said ("8k-token prompts") are not asked again, nor restated as the default
        prompts = workload.input_tokens
        lead = ("How many tokens does a response generate?" if prompts else
                "How many tokens does a response generate, and how long are the prompts?")
        shape = (f"{prompts:,}-token prompts with {reply_tokens:,} output tokens each" if prompts else
                 f"{DEFAULT_INPUT_TOKENS:,} prompt + {reply_tokens:,} output tokens each")
        wanted.append(Question(
            field="output_tokens",
            text=f"{lead} {rate_text(workload.requests_per_s)} requests/s is sized at {shape} until you say "
                 "(e.g. “300 output tokens”).",
            why="the fleet scales with the tokens generated per request and the prompts to prefill"))
    if workload.load_tokens_per_s and workload.mode == "inference" and not workload.requests_per_s and (
            workload.input_tokens is None or workload.output_tokens is None):
        wanted.append(_load_split_question(workload, reply_tokens))
    if population_unsaid(workload):
        people, at_once = int(workload.population or 0), int(workload.concurrency or 0)
        wanted.append(Question(
            field="concurrency",
            text=f"How many of the {people:,} people wait on a reply at the same moment at the busy hour? Sized for "
                 f"{at_once:,} ({at_once / people:.0%}) until you say (e.g. “{min(people, 2 * at_once):,} at once”).",
            why="the fleet is sized for the streams generating at once, a share of the people who use it"))
    elif online_users_unsaid(workload, cues):
        wanted.append(Question(
            field="concurrency",
            text=f"Are all {workload.concurrency:,} users generating at the same moment, or online? Of users online, "
                 f"typically 10-20% wait on a reply at once; say e.g. “{_active_example(workload.concurrency or 0):,} at once” "
                 f"to size for that. Sized for {workload.concurrency:,} at once until you say.",
            why="the fleet is sized for the streams generating at once: users online can be 5-10x more"))
    if workload.agentic and workload.input_tokens is None and workload.mode in (None, "inference") and (
            workload.intent != "train"):
        # an agent's call resends the conversation so far: its length sets the KV cache and the prefill per call
        wanted.append(Question(
            field="input_tokens",
            text=f"How long is each agent call's prompt (instructions, tool definitions, files read, the conversation so "
                 f"far) and its reply? Sized at {AGENT_DEFAULT_PROMPT_TOKENS:,}-token prompts, "
                 f"{float(workload.prefix_cache_hit if workload.prefix_cache_hit is not None else AGENT_PREFIX_CACHE_HIT):.0%}"
                 f" of each already in the prefix cache, and {reply_tokens:,}-token replies "
                 "until you say (e.g. “20k-token prompts, 800-token replies”).",
            why="an agent's context sets the KV cache each user holds, and its uncached tail the prefill every call"))
    if COMPLETION_CUE in cues and workload.requests_per_s and "requests_per_s" not in asked:
        wanted.append(Question(
            field="requests_per_s",
            text=f"How many completion requests per second reach the server at the busy hour? Sized at "
                 f"{COMPLETION_REQUESTS_PER_DEV_S:g} per developer ({rate_text(workload.requests_per_s)} requests/s) "
                 "until you say (e.g. “20 requests/s”); the plugin's or gateway's request logs give it.",
            why="completion is a request-rate load: the fleet scales with the requests and their prefixes"))
    if long_prompts_unsaid(workload):
        wanted.append(Question(
            field="input_tokens",
            text=f"How long are the prompts (new tokens per turn) and the replies? {workload.concurrency:,} users at "
                 f"{workload.seq_len:,} tokens of context are sized at {DEFAULT_INPUT_TOKENS:,}-token prompts and "
                 f"{reply_tokens:,}-token replies until you say (e.g. “{_long_prompt_example(workload.seq_len or 0)}"
                 "-token prompts, 500-token answers”).",
            why="long prompts (documents, retrieval) are prefilled on the same GPUs and can need several times the hardware"))
    if images_asked and workload.images_per_request is None and workload.mode in (None, "inference") and (
            workload.intent != "train"):
        # a vision-language model served for images: each image is hundreds to thousands of prompt tokens
        size = (f"{workload.image_width}x{workload.image_height}" if workload.image_width and workload.image_height
                else "1024x1024")
        wanted.append(Question(
            field="images_per_request",
            text=f"How many images per request, and how big? Sized at one {size} image a request until you say "
                 "(e.g. “2 images per request”, “512x512”, or “text only”).",
            why="each image is hundreds to thousands of prompt tokens: the prefill and the KV cache grow with them"))
    essential = (ESSENTIAL | {"dataset_tokens"}) if ladder else ESSENTIAL  # a ladder has no token count to assume
    if unknown_gpu is not None:  # named in this message: asked whatever was asked before
        essential = essential | {"gpu"}
    fresh = [q for q in wanted if q.field in essential or q.field not in asked]
    unique = list({q.field: q for q in reversed(fresh)}.values())[::-1]
    return unique[:MAX_QUESTIONS]


def unknown_gpu_question(workload: Workload, reading: Reading | None) -> Question | None:
    """A GPU this message named that the catalog does not know ("2048 H800" before the H800 was a row) or cannot pick
    alone ("8 RTX 6000": Ada or PRO?), asked first: the plan below it is on another GPU (the catalog's pick, or the
    thread's), and only a question says so where it is read. As a note it was cut from the first message by the
    decision caveats, so "on 2048 H800" read as an answer on 2048 B200s and "8 RTX 6000" as one on 8 L40S. None when
    this message also named a GPU the catalog knows (that GPU is planned)."""
    if reading is None or "gpu" in reading.updates:
        return None
    problem = next((p for p in reading.unknown_names if p.code in ("unknown_gpu", "ambiguous_gpu")), None)
    if problem is None:
        return None
    kept = (f"the thread's {str(workload.gpu).upper().replace('-', ' ')}" if workload.gpu else "the catalog's pick")
    example = f"on {workload.gpu_count:,} H100" if workload.gpu_count else "on H100s"
    return Question(field="gpu", text=f"{problem.message.rstrip()} Planned on {kept} until you name a GPU the catalog "
                                      f"has (e.g. “{example}”).",
                    why="a GPU the catalog lacks is never silently swapped for another")


OWNED_CLUSTER_GPUS = 256  # "with 2048 H100s": at this size a team often runs its own (or a reserved) cluster


def _gpus_stated(workload: Workload) -> int:
    """The GPUs said, or the nodes said at 8 GPUs each (the usual server) for the size test only."""
    return int(workload.gpu_count or 0) or int(workload.nodes or 0) * 8


def _cluster_said(workload: Workload) -> str:
    """The cluster in the user's own unit: "2,048 GPUs", or "256 nodes" when only nodes were said."""
    return f"{workload.gpu_count:,} GPUs" if workload.gpu_count else f"{int(workload.nodes or 0):,} nodes"


def ownership_unsaid(workload: Workload) -> bool:
    """A GPU count of cluster size with nothing saying rent or own (no provider, rate, pricing or on-prem):
    priced as a rental it can be ten times what the team's own cluster costs in power, so it is asked."""
    return bool(workload.gpu and _gpus_stated(workload) >= OWNED_CLUSTER_GPUS and workload.provider is None
                and workload.hourly_rate is None and workload.pricing is None and workload.data_location != "onprem")


_DESKTOP_CARD = re.compile(r"rtx-\d{4}")  # GeForce cards (rtx-4090, rtx-3090, rtx-5090), not workstation or datacenter ones


def desktop_card_unsaid(workload: Workload) -> bool:
    """A GeForce card named with a desktop's count ("on a 4090", "2x 3090") and nothing saying rent or own: as often
    the user's own as a rental, and owned it costs a tenth as much, so it is asked."""
    return bool(workload.gpu and _DESKTOP_CARD.fullmatch(str(workload.gpu)) and 0 < int(workload.gpu_count or 1) <= 8
                and workload.provider is None and workload.hourly_rate is None and workload.pricing is None
                and workload.data_location != "onprem" and not workload.instance_type)


PEOPLE_ASKED_FROM = 10  # a headcount of people ("40 developers") is asked from here: at most a few wait at once
LARGE_AUDIENCE = 1_000  # "users" this many are often users online, not streams generating at once


def online_users_unsaid(workload: Workload, cues: Iterable[str] = ()) -> bool:
    """A large count of "users" for a service, with no request rate: users online or generating at once? A
    chat product's users online are mostly reading or typing, and sizing every one of them as a stream
    can overbuy the fleet 5-10x, so it is asked (once) rather than assumed."""
    said = set(cues)
    # people ("200 employees", "40 developers", "a team of 10") are a headcount at any size, not streams at once
    large = (workload.concurrency or 0) >= (PEOPLE_ASKED_FROM if "people_counted" in said else LARGE_AUDIENCE)
    return bool(workload.mode == "inference" and large and workload.requests_per_s is None and "users_counted" in said)


def population_unsaid(workload: Workload) -> bool:
    """A headcount ("300 employees", "2,000 users signed up") sized for a share of it at once (parser.population), with
    no rate said: how many wait on a reply at once is the user's to say, so it is asked (once)."""
    return bool(workload.mode == "inference" and workload.population and workload.requests_per_s is None
                and (workload.concurrency or 0) < workload.population)


def _active_example(users: int) -> int:
    """15% of the users, rounded to a number a person would type."""
    active = users * 0.15
    step = 10 ** max(0, len(str(int(active))) - 2)
    return max(1, int(round(active / step) * step))


def _rl_prompts_question(workload: Workload) -> Question | None:
    """Online RL with nothing that counts its prompts ("DAPO on Qwen3 8B, 16 samples per prompt, 20k-token
    completions"), or steps without the prompts a step samples: the run cannot be timed or priced without them.
    Steps x prompts per step is the run (verl's data.train_batch_size); with a prompt count said, one pass over it is
    sized until the batch is said."""
    if workload.dataset_tokens is not None or workload.dataset_gb is not None:
        return None
    if steps_tokens(workload, int(workload.seq_len or DEFAULT_TRAINING_SEQ_LEN)) is not None:
        return None  # steps x prompts per step: the run is said
    steps = int(workload.train_steps or 0)
    if steps and workload.dataset_examples:
        text = (f"How many prompts per step? {steps:,} steps × prompts per step is what the run samples (verl's "
                f"data.train_batch_size), so the steps set the passes over the {workload.dataset_examples:,} prompts; "
                "sized at one pass until you say (e.g. “512 prompts per step”).")
    elif steps:
        text = (f"{steps:,} steps of how many prompts each (verl's data.train_batch_size, OpenRLHF's "
                "rollout_batch_size)? Steps × prompts per step × completions per prompt is the run (e.g. “512 prompts "
                "per step”).")
    elif workload.dataset_examples:
        return None
    else:
        text = ("How many prompts does the run sample: the dataset (e.g. “20k prompts”, “3 epochs”), or steps × "
                "prompts per step (e.g. “1000 steps, 512 prompts per step”)? Time and cost are not sized without it.")
    return Question(field="dataset_tokens", text=text, why="generation and training time scale with the prompts sampled")


LONG_CONTEXT_TOKENS = 8_192  # a stated context this long may be long prompts (8k prompts for 100 users of 70B are 4.6x the GPUs of 1k)


def _long_prompt_example(context: int) -> str:
    """A retrieval-sized prompt that fits the stated context with room for its answer: "6k" at 8k, "20k" at 32k."""
    return f"{max(1, round(context * 0.6 / 1000 / 2) * 2 if context >= 16_000 else int(context * 0.75) // 1000)}k"


def long_prompts_unsaid(workload: Workload) -> bool:
    """Concurrent users at a long stated context with no prompt length said: the default turn (1,024 new
    prompt tokens) may be far from documents or retrieval prompts, and their prefills decide the hardware."""
    return bool(workload.mode == "inference" and workload.concurrency and workload.concurrency > 1
                and workload.requests_per_s is None and workload.input_tokens is None
                and (workload.seq_len or 0) >= LONG_CONTEXT_TOKENS)


def serving_without_load(workload: Workload) -> bool:
    """Serving with no concurrency, request rate, token load or aggregate throughput said: sized for one stream."""
    return (workload.mode == "inference" and workload.concurrency is None and workload.requests_per_s is None
            and workload.target_tokens_per_s is None and workload.load_tokens_per_s is None)


def _tokens(count: float) -> str:
    for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if count >= scale:
            return f"{count / scale:.3g}{suffix}"
    return f"{count:,.0f}"


def _load_split_question(workload: Workload, reply_tokens: int) -> Question:
    """'500M tokens a day' with no prompt/reply split: the same tokens are 5x the requests as short chats as they are
    as long documents, and the reply tokens are what the fleet generates, so the split is asked."""
    period = workload.load_period or "day"
    per_s = float(workload.load_tokens_per_s or 0)
    prompt_in = workload.input_tokens or DEFAULT_INPUT_TOKENS
    out = workload.output_tokens or reply_tokens
    busy = load_peak_factor(workload)
    rate = per_s * busy / (out if workload.load_output_only else prompt_in + out)
    peak = (f" at a busy hour of {BUSY_HOUR_FACTOR:g}x the {period}'s average" if busy > 1 else
            f", the {period}'s average, processed offline" if workload.offline else "")
    if workload.load_output_only:  # "20M output tokens a day": the reply length sets the requests
        return Question(
            field="output_tokens",
            text=f"How long are the replies and the prompts behind the {_tokens(per_s * LOAD_PERIOD_SECONDS[period])} "
                 f"output tokens a {period}? Sized at {out:,}-token replies to {prompt_in:,}-token prompts "
                 f"({rate_text(rate)} requests/s{peak}) until you say (e.g. “300-token replies, 2k-token prompts”).",
            why="the requests are the output load over the reply length; each request's prompt is prefilled too")
    return Question(
        field="input_tokens",
        text=f"How do the {_tokens(per_s * LOAD_PERIOD_SECONDS[period])} tokens a {period} split between prompts and replies? "
             f"Sized as {prompt_in:,} prompt + {out:,} output tokens a request ({rate_text(rate)} requests/s{peak}) until you "
             "say (e.g. “2k-token prompts, 300-token replies”).",
        why="the fleet scales with the tokens it generates; prompts are prefilled far faster")


def stated_assumptions(workload: Workload) -> list[str]:
    """What the reply states instead of asking (the engine adds its own, with figures)."""
    said: list[str] = []
    if workload.mode in TRAINING_MODES or (workload.mode is None and workload.intent == "train"):
        guess = estimated_tokens(workload)
        if workload.dataset_tokens is None and guess is not None:
            said.append(f"~{_billions(guess)} tokens per epoch, estimated from {_size_said(workload)} "
                        f"at ~{BYTES_PER_TOKEN} bytes/token")
        if workload.epochs is None:
            said.append("1 epoch")
        if workload.runs_per_month is None:
            said.append("1 run per month")
    if workload.gpu is None:
        said.append("GPU: candidates from the catalog, cheapest that fits first")
    return said


def _mode_question(cues: set[str], intent: str | None = None) -> Question:
    if cues & {"finetune", "adapt"}:
        text = "QLoRA, LoRA or a full fine-tune?"
    elif "train" in cues or intent == "train":
        text = "Fine-tune (QLoRA, LoRA or full) or pretrain from scratch?"
    else:
        text = "What do you want to do: fine-tune (QLoRA, LoRA, full), pretrain, or serve the model (inference)?"
    return Question(field="mode", text=text, why="memory differs ~10x between QLoRA and full training; serving is sized differently")


def _billions(tokens: int) -> str:
    return f"{tokens / 1e9:,.0f}B" if tokens >= 1e9 else f"{tokens / 1e6:,.0f}M"
