"""Fill every field the user did not give, and say so: each default is an `Assumption`.

Why this is its own step: the answer must show what it assumed so users can change it ("with
rank 64", "3 epochs", "cache the data"). The effective workload returned here is what every
physics and cost function computes on; the user's workload stays as given.
"""

from __future__ import annotations

from typing import Any

from catalog.records import CatalogData
from engine.cluster import compute_capability
from engine.models import (
    AGENT_DEFAULT_PROMPT_TOKENS,
    AGENT_PREFIX_CACHE_HIT,
    BUSY_HOUR_FACTOR,
    BYTES_PER_TOKEN_TEXT,
    DEFAULT_REASONING_OUTPUT_TOKENS,
    DEFAULT_SERVING_SEQ_LEN,
    DEFAULT_SETUP_HOURS,
    DEFAULT_TOKENS_PER_EXAMPLE,
    DEFAULT_TRAINING_SEQ_LEN,
    LOAD_PERIOD_SECONDS,
    PRETRAIN_SEQ_LEN,
    RL_OBJECTIVES,
    TRAINING_MODES,
    Assumption,
    Problem,
    Workload,
    load_peak_factor,
    rate_text,
    sequences_per_example,
    steps_tokens,
    text_gb,
)
from engine.rl import rl_defaults
from engine.serving import (
    DEFAULT_FLOOR_SLACK,
    DEFAULT_TOKENS_PER_S_PER_USER,
    MAX_BATCH_LARGE_GPU,
    MAX_BATCH_PER_REPLICA,
    SPEED_TARGET_MARGIN,
    user_floor,
)
from engine.think_time import DEFAULT_THINK_TIME_S, THINK_TIME_WHY, think_time_assumed
from engine.throughput import default_mfu, planned_rate, request_shape, turns_assumed
from engine.vision import image_load, prompt_why, text_prompt

DEFAULT_HEADROOM = 0.10  # PyTorch's caching allocator fragments: leave 10-15% free
LORA_TARGETS_ALL = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
LARGE_MODEL_PARAMS_B = 1.0  # gradient checkpointing on from here: activations outgrow weights on long sequences


DEFAULT_JOB_HOURS = 24.0  # an offline job over N prompts with no deadline said: done within a day



def _count(tokens: float) -> str:
    """30B, 100M, 2M, 500k: a token count in a sentence."""
    for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if tokens >= scale:
            return f"{tokens / scale:.3g}{suffix}"
    return f"{tokens:,.0f}"


def load_requests_per_s(w: Workload) -> tuple[float, str]:
    """'500M tokens a day' -> the request rate to size for, and why in words: the tokens are prompt + output, a
    day's (week's, month's) count averages quiet hours in, so the busy hour is sized at BUSY_HOUR_FACTOR x the
    average; each request is the stated or assumed prompt + output (a reasoning model's replies are longer)."""
    per_s = float(w.load_tokens_per_s or 0)
    period = w.load_period or "day"
    prompt_in, out = request_shape(w)
    averaged = load_peak_factor(w) > 1
    peak = per_s * load_peak_factor(w)
    rate = peak / (out if w.load_output_only else prompt_in + out)
    said = (f"{_count(per_s * LOAD_PERIOD_SECONDS[period])} output tokens a {period}," if w.load_output_only else
            f"{_count(per_s * LOAD_PERIOD_SECONDS[period])} tokens a {period}, prompt + output counted together,")
    busy = (f" average {rate_text(per_s)} tokens/s; a busy hour runs about {BUSY_HOUR_FACTOR:g}x the {period}'s average, "
            f"so the fleet is sized for {rate_text(peak)} tokens/s" if averaged else
            f" average {rate_text(per_s)} tokens/s, processed offline: queued and batched for throughput (no per-user "
            "speed floor), so the fleet is sized for the average" if w.offline else f" are {rate_text(per_s)} tokens/s")
    shape = ("as you said" if w.input_tokens and w.output_tokens else
             "the split assumed: say e.g. “2k-token prompts, 300-token replies”; the fleet scales with the output tokens")
    return rate, (f"{said}{busy}: {rate_text(rate)} requests/s at {prompt_in:,} prompt + {out:,} output tokens a "
                  f"request ({shape})")


def _steps_data(w: Workload, trained: tuple[int, str], updates: dict[str, Any], assumptions: list[Assumption]) -> None:
    """'5000 steps at global batch 256, seq len 4096': steps x global batch x sequence length is the tokens a run
    trains (5.24B), stated with the arithmetic as the `train_steps` assumption. With no data said it is the data (one
    pass, or the epochs said over it); with data said it sets the passes over it, as Hugging Face's max_steps
    overrides num_train_epochs."""
    tokens, how = trained
    data = updates.get("dataset_tokens", w.dataset_tokens)
    if data is None:
        epochs = float(w.epochs or 1)
        updates["dataset_tokens"] = max(1, round(tokens / epochs))
        why = f"{how} trained" + (f", {epochs:g} epochs of {_count(tokens / epochs)}" if w.epochs else "")
    else:
        epochs = tokens / float(data)
        updates["epochs"] = epochs
        said = f" (not the {w.epochs:g} epochs said: steps decide, as max_steps does in Hugging Face's Trainer)" if (
            w.epochs and abs(float(w.epochs) - epochs) > 0.01 * epochs) else ""
        over = (f"the {int(w.dataset_examples):,} prompts" if w.objective in RL_OBJECTIVES and w.dataset_examples else
                f"the {_count(float(data))} tokens of data")
        why = f"{how} trained, {epochs:.3g} passes over {over}{said}"
    assumptions[:] = [a for a in assumptions if a.field != "epochs"]  # the steps say how much is trained
    assumptions.append(Assumption(field="train_steps", value=tokens, why=why))


def apply_defaults(w: Workload, data: CatalogData) -> tuple[Workload, list[Assumption], list[Problem]]:
    """Return (effective workload, assumptions made, problems found while defaulting)."""
    updates: dict[str, Any] = {}
    assumptions: list[Assumption] = []
    problems: list[Problem] = []

    def assume(field: str, value: Any, why: str) -> None:
        updates[field] = value
        assumptions.append(Assumption(field=field, value=value, why=why))

    model = data.model(w.model) if w.model else None
    params_b = w.params_b
    if params_b is None and model is not None:
        params_b = model.total_params_b
        assume("params_b", params_b, f"{model.name} has {params_b:g}B parameters ({model.source})")

    mode = w.mode
    if mode is None:
        if w.intent == "train":
            mode = "lora"
            why = ("fine-tuning without a method: LoRA and QLoRA are both planned and the cheaper one that fits is "
                   "recommended; full fine-tuning needs ~16-18 bytes per parameter: say 'full' to size it")
        elif w.intent == "serve" or not (w.dataset_gb or w.dataset_tokens):
            mode = "inference"
            why = "serving asked for" if w.intent == "serve" else "no dataset and no training mode: sized for serving"
        else:
            mode = "lora"
            why = ("a dataset was given but no training mode: LoRA and QLoRA are both planned and the cheaper one that "
                   "fits is recommended; say 'full' or 'qlora' to fix it")
        assume("mode", mode, why)
    training = mode in TRAINING_MODES

    if w.precision is None:
        if mode == "qlora":
            assume("precision", "nf4", "QLoRA keeps the frozen base in 4-bit NormalFloat (0.5 bytes/param)")
        elif training:
            assume("precision", "bf16", "BF16 is the standard training precision: FP32's exponent range at half the memory")
        else:
            native = model.native_precision if model is not None else "bf16"
            if native == "fp8":
                assume("precision", "fp8", f"{model.name if model else 'the model'} is released in FP8: served in its native "
                       "format (1 byte per weight), as its own inference code and vLLM/SGLang do")
            elif native in ("mxfp4", "int4"):
                label = "MXFP4" if native == "mxfp4" else "4-bit (GPTQ/AWQ)"
                assume("precision", "int4", f"{model.name if model else 'the model'} is released in {label}: served in its "
                       "native 4-bit format (about half a byte per weight)")
            else:
                assume("precision", "bf16", "serving the released BF16 weights; int8/int4 are offered when they change the hardware")

    if not training and w.agentic:
        # an agent's call carries the conversation so far: a long prompt, most of it in the prefix cache
        if w.input_tokens is None:
            assume("input_tokens", AGENT_DEFAULT_PROMPT_TOKENS,
                   f"an agent's call carries its instructions, tool definitions, the files it read and the conversation "
                   f"so far: sized at {AGENT_DEFAULT_PROMPT_TOKENS:,} prompt tokens a call; say yours (e.g. “20k-token prompts”)")
            w = w.model_copy(update={"input_tokens": AGENT_DEFAULT_PROMPT_TOKENS})
        if w.prefix_cache_hit is None:
            assume("prefix_cache_hit", AGENT_PREFIX_CACHE_HIT,
                   f"each agent call resends the conversation so far, so {AGENT_PREFIX_CACHE_HIT:.0%} of its prompt is "
                   "assumed in the prefix cache from the previous call (vLLM's automatic prefix caching, SGLang's "
                   "RadixAttention; the SGLang paper measured 50-99% hits across workloads): only the rest is prefilled, "
                   "while the KV cache still holds the whole context; say e.g. “95% prefix cache hits” or “no prefix caching”")
            w = w.model_copy(update={"prefix_cache_hit": AGENT_PREFIX_CACHE_HIT})

    if not training and w.prompt_holds_image and w.images_per_request == 0:
        # "text only" after a prompt length assumed for an image: the chat default's text prompt, no image in it
        w = w.model_copy(update={"input_tokens": None, "prompt_holds_image": None})
        updates.update(input_tokens=None, prompt_holds_image=None)
    if not training:
        images = image_load(w.model_copy(update={"mode": mode}), model)
        if images is not None and images.images_per_request > 0:
            # a VLM's images are prompt tokens (engine.vision): the prefill and the KV cache grow with them
            text = text_prompt(w)
            if images.count_assumed:
                updates["images_per_request"] = images.images_per_request
            assume("input_tokens", text + images.prompt_tokens, prompt_why(images, text))
            w = w.model_copy(update={"input_tokens": text + images.prompt_tokens,
                                     "images_per_request": images.images_per_request})

    w = rl_defaults(w, mode, assume, params_b)  # online RL: G, lengths, beta, tokens, vLLM's memory share (engine.rl)
    max_context = model.max_context if model is not None else None
    if w.seq_len is None:
        seq = (PRETRAIN_SEQ_LEN if mode == "pretrain" else DEFAULT_TRAINING_SEQ_LEN) if training else DEFAULT_SERVING_SEQ_LEN
        why = (f"pre-training default of {seq} tokens (Llama 3 and torchtitan train at 8,192)" if mode == "pretrain"
               else f"{'training' if training else 'serving'} default of {seq} tokens")
        if not training and ((w.input_tokens and w.output_tokens) or planned_rate(w) or w.load_tokens_per_s):
            prompt_in, out = request_shape(w)
            seq = int(prompt_in + out)
            why = ("prompt + output tokens per request: the KV cache each sequence needs at its longest"
                   + ("" if w.input_tokens and w.output_tokens else " (request lengths assumed: see above)"))
        elif not training and (w.input_tokens or w.output_tokens) and sum(request_shape(w)) > seq:
            # "30k-token prompts" for 40 users: each sequence holds its prompt and reply, past the chat default
            # (the cache was sized at 4,096 tokens beside 30,000-token prompts)
            prompt_in, out = request_shape(w)
            seq = int(prompt_in + out)
            why = (f"prompt + output tokens ({prompt_in:,} + {out:,}): the KV cache each sequence needs at its longest, "
                   f"more than the {DEFAULT_SERVING_SEQ_LEN:,}-token chat default")
        if max_context is not None and seq > max_context:
            seq = max_context
            why += f", capped at the model's context ({max_context})"
            prompt_in, _out = request_shape(w)
            if not training and w.input_tokens and prompt_in >= max_context:
                # "1M-token prompts" to a 128k model: the KV cache is capped at the window, the prefill is not, and
                # neither is a plan for what the model cannot read
                problems.append(Problem(
                    code="exceeds_context", field="input_tokens",
                    message=f"{prompt_in:,}-token prompts exceed {model.name if model else 'the model'}'s context of "
                            f"{max_context:,} tokens: it cannot read them whole. Use a long-context model (say which), "
                            "or split, retrieve or summarise the input to fit; the figures below are for prompts cut to "
                            "the window"))
                w = w.model_copy(update={"input_tokens": max(1, max_context - request_shape(w)[1])})
        assume("seq_len", seq, why)
    elif max_context is not None and w.seq_len > max_context:
        problems.append(
            Problem(
                code="exceeds_context",
                field="seq_len",
                message=f"seq_len {w.seq_len:,} exceeds {model.name if model else 'the model'}'s context of {max_context:,}; "
                "estimated as asked, but the model was not trained for it",
            )
        )

    if training:
        if w.batch_size is None:
            assume("batch_size", 1, "per-GPU micro-batch 1; reach a larger effective batch with gradient accumulation (no extra memory)")
        if w.optimizer is None:
            if mode == "qlora":
                assume("optimizer", "paged_adamw_8bit", "QLoRA's paged 8-bit AdamW (pages optimizer state to CPU on spikes)")
            else:
                assume("optimizer", "adamw", "AdamW with FP32 states (18 bytes/param for full training: bf16 weights 2 + fp32 gradients 4 + fp32 master copy 4 + two Adam moments 8)")
        if w.gradient_checkpointing is None:
            on = (params_b or 0) >= LARGE_MODEL_PARAMS_B
            assume(
                "gradient_checkpointing",
                on,
                "on: recomputing activations costs ~1/3 more compute but without it activations can exceed weights on long sequences"
                if on
                else "off: a small model's activations fit without recomputation",
            )
        if mode in ("lora", "qlora"):
            if w.lora_rank is None:
                assume("lora_rank", 16, "LoRA rank 16, a common default; rank changes adapter memory only a little")
            if w.lora_targets is None:
                assume("lora_targets", LORA_TARGETS_ALL, "adapters on all attention and MLP projections (q,k,v,o,gate,up,down)")
        if mode in ("full", "pretrain") and w.zero_stage is None:
            # not written into the workload: each plan takes the lowest stage that fits (less traffic)
            assumptions.append(Assumption(
                field="zero_stage", value="per plan",
                why="the lowest ZeRO stage that fits each plan: plain data parallel, then sharded optimizer (ZeRO-1, "
                    "Megatron's distributed optimizer), gradients (2), weights (3 / FSDP)"))
        if w.epochs is None:
            assume("epochs", 1, "one pass over the data; say '3 epochs' to change")
        if w.dataset_tokens is None and w.dataset_gb is not None:
            tokens = int(text_gb(w) * 1e9 / BYTES_PER_TOKEN_TEXT)
            if w.dataset_compressed:
                why = (f"{w.dataset_gb:g} GB compressed (gzip, zstd, Parquet and Arrow hold ~3-4x their size in text) ~ "
                       f"{text_gb(w):g} GB of text at ~4 bytes/token (English, BPE tokenizer) ~ {_count(tokens)} tokens; "
                       "give the token count if you know it, or if you train on a subset")
            else:
                why = (f"{w.dataset_gb:g} GB of raw text at ~4 bytes/token (English, BPE tokenizer); fine-tuning often "
                       "uses a subset: give the token count if you train on less")
            assume("dataset_tokens", tokens, why)
        elif w.dataset_tokens is None and w.dataset_examples and sequences_per_example(w.objective) > 1:
            # a preference pair trains prompt + chosen and prompt + rejected: two sequences of ~a chat example each
            tokens = int(w.dataset_examples * sequences_per_example(w.objective) * DEFAULT_TOKENS_PER_EXAMPLE)
            assume("dataset_tokens", tokens,
                   f"{w.dataset_examples:,} preference pairs x {sequences_per_example(w.objective)} sequences (prompt + "
                   f"chosen, prompt + rejected) at ~{DEFAULT_TOKENS_PER_EXAMPLE:,} tokens each ~ {_count(tokens)} tokens "
                   "trained; give the tokens per sequence (e.g. “pairs of 300 tokens”) or the total")
        elif w.dataset_tokens is None and w.dataset_examples:
            tokens = int(w.dataset_examples * DEFAULT_TOKENS_PER_EXAMPLE)
            assume("dataset_tokens", tokens,
                   f"{w.dataset_examples:,} examples at ~{DEFAULT_TOKENS_PER_EXAMPLE:,} tokens each (prompt and response "
                   f"together, typical of chat fine-tuning data) ~ {_count(tokens)} tokens; give the tokens per example "
                   "(e.g. “examples of 300 tokens”) or the total")
        trained = steps_tokens(w, int(updates.get("seq_len", w.seq_len) or DEFAULT_TRAINING_SEQ_LEN))
        if trained is not None:
            _steps_data(w, trained, updates, assumptions)
    else:
        if w.runs_per_month and w.runs_per_month != 1:
            # "what about 40 runs?" on a service: runs are training's; the service is one fleet, always on (it
            # multiplied the monthly bill by 40)
            problems.append(Problem(code="runs_for_a_service", field="runs_per_month", message=(
                f"{w.runs_per_month:g} runs a month counts training runs; a service is priced as one fleet kept on "
                f"all month, so it changes nothing here: for {w.runs_per_month:g} users at once say “{w.runs_per_month:g} "
                "users”, for an offline job “run N prompts”")))
            updates["runs_per_month"] = None
            w = w.model_copy(update={"runs_per_month": None})
        loaded = planned_rate(w) or w.batch_items or (w.concurrency or 0) > 1 or w.load_tokens_per_s
        if model is not None and model.reasoning and w.output_tokens is None and loaded:
            assume("output_tokens", DEFAULT_REASONING_OUTPUT_TOKENS,
                   f"{model.name} thinks before it answers: a reply with its reasoning runs 1,000-4,000 tokens, so each "
                   f"is sized at {DEFAULT_REASONING_OUTPUT_TOKENS:,} (say e.g. “500-token answers” if yours are shorter)")
            w = w.model_copy(update={"output_tokens": DEFAULT_REASONING_OUTPUT_TOKENS})
        if w.load_tokens_per_s and not w.requests_per_s and not w.batch_items:
            rate, why = load_requests_per_s(w)
            assume("requests_per_s", rate, why)
            w = w.model_copy(update={"requests_per_s": rate})
        if w.batch_items and not w.requests_per_s and not w.concurrency:
            # an offline job: its prompts' average rate over the time it may take is what the fleet must sustain
            hours = float(w.deadline_hours or DEFAULT_JOB_HOURS)
            said = f"within {hours:g} hours as you said" if w.deadline_hours else (
                f"within {hours:g} hours, assumed: say e.g. “within 6 hours” for a bigger fleet, “within a week” for a smaller one")
            # the fleet's start-up (weights, vLLM warm-up) comes out of the deadline before the first prompt runs
            running = hours - DEFAULT_SETUP_HOURS if hours > 2 * DEFAULT_SETUP_HOURS else hours / 2
            assume("requests_per_s", w.batch_items / (running * 3600),
                   f"{w.batch_items:,.0f} prompts {said}, {DEFAULT_SETUP_HOURS * 60:.0f} minutes of it start-up: sized "
                   "as their average rate, batched for throughput (as many prompts per replica as memory and vLLM's "
                   "max_num_seqs allow; nobody waits on a prompt's tokens)")
            w = w.model_copy(update={"requests_per_s": updates["requests_per_s"]})
        planned = planned_rate(w)
        if (planned or turns_assumed(w)) and (w.input_tokens is None or w.output_tokens is None):
            prompt_in, out = request_shape(w)
            from_total = bool(planned and not (w.requests_per_s and planned <= w.requests_per_s))
            why = (f"{rate_text(float(w.target_tokens_per_s or 0))} output tokens/s in total sized as {rate_text(planned)} "
                   f"requests/s of {prompt_in:,} prompt and {out:,} output tokens: every request's prompt is prefilled "
                   "on the same GPUs, so shorter replies mean more requests for the same total; give yours "
                   "('2k-token prompts, 500-token replies')"
                   if planned and from_total else
                   f"{rate_text(planned)} requests/s sized at {prompt_in:,} prompt and {out:,} output tokens per "
                   "request: the fleet scales with the output length, so give yours ('300 output tokens each')"
                   if planned else
                   f"each agent call sized at {prompt_in:,} prompt tokens ({float(w.prefix_cache_hit or 0):.0%} of them "
                   f"prefix-cached) and {out:,} output tokens: under load the prefills share the GPU with every user's "
                   "decoding, which lowers the per-user speed; give yours ('30k-token prompts, 800-token replies')"
                   if w.agentic else
                   f"each user's turn sized at {prompt_in:,} new prompt tokens (earlier turns prefix-cached) and {out:,} "
                   "output tokens: under load the prefills share the GPU with every user's decoding, which lowers "
                   "the per-user speed; give yours ('2k-token prompts, 500-token answers')")
            assumptions.append(Assumption(field="output_tokens" if w.output_tokens is None else "input_tokens",
                                          value=f"{prompt_in} in / {out} out", why=why))
        if w.concurrency is None and (w.target_tokens_per_s or w.requests_per_s):
            assumptions.append(Assumption(
                field="concurrency", value="per option",
                why=f"each replica batches as many sequences as its memory allows (continuous batching as in vLLM, up to "
                    f"its default max_num_seqs: {MAX_BATCH_LARGE_GPU:,} on GPUs of 70 GiB or more other than the A100, "
                    f"{MAX_BATCH_PER_REPLICA} on the rest)" + ("" if w.batch_items and not w.target_tokens_per_s_per_user else
                                                            f" while every user still gets {user_floor(w):g}+ tokens/s") + ", then "
                    "replicas are added for the load"))
        elif w.concurrency is None:
            assume("concurrency", 1, "one sequence at a time; say how many concurrent users to size the KV cache")
        if (w.precision or updates.get("precision")) == "fp8":  # asked for, or the model's native format
            # FP8 weights do not imply an FP8 cache in vLLM (--kv-cache-dtype auto keeps the model's 16-bit dtype)
            assumptions.append(Assumption(
                field="kv_cache_dtype", value="fp8",
                why="FP8 weights served with an FP8 KV cache (vLLM --kv-cache-dtype fp8, SGLang the same flag): half the "
                    "cache memory per token of vLLM's default, which keeps the cache in the model's 16-bit dtype and so "
                    "holds about half the users per GPU and reads twice the cache per step"))
        if w.target_tokens_per_s_per_user is None and not w.batch_items and not w.offline and (
                w.concurrency or w.requests_per_s or w.target_tokens_per_s):
            assumptions.append(Assumption(
                field="target_tokens_per_s_per_user", value=DEFAULT_TOKENS_PER_S_PER_USER,
                why=f"no per-user speed given: batches are kept at about {DEFAULT_TOKENS_PER_S_PER_USER:g} tokens/s per user (interactive "
                    f"chat, about twice reading speed; {DEFAULT_TOKENS_PER_S_PER_USER * (1 - DEFAULT_FLOOR_SLACK):g} or more counts, "
                    "as the estimate itself is about ±10%); say '40 tokens/s per user' or '25 ms per token' for a tighter target, "
                    "'10 tokens/s per user' for a cheaper, batch-heavy one"))
        elif w.target_tokens_per_s_per_user is None and w.offline and not w.batch_items and (
                w.concurrency or w.requests_per_s or w.target_tokens_per_s):
            # "no latency requirement", "offline batch": the chat floor is dropped for the batch floor, said with its value
            assumptions.append(Assumption(
                field="target_tokens_per_s_per_user", value=user_floor(w),
                why=f"no latency target (served offline): batches fill each replica's memory (up to vLLM's max_num_seqs) "
                    f"at a batch floor of {user_floor(w):g} token/s per user instead of interactive chat's "
                    f"{DEFAULT_TOKENS_PER_S_PER_USER:g}; say e.g. '10 tokens/s per user' to keep a floor"))
        elif w.target_tokens_per_s_per_user and not w.gpu_count and w.speed_margin is None:
            assumptions.append(Assumption(
                field="speed_margin", value=SPEED_TARGET_MARGIN,
                why=f"batches sized for {w.target_tokens_per_s_per_user * (1 + SPEED_TARGET_MARGIN):g}+ tokens/s per user, "
                    f"{SPEED_TARGET_MARGIN:.0%} over the {w.target_tokens_per_s_per_user:g} asked (as a request rate is "
                    "sized at 80% of capacity): longer prompts, another kernel build or the estimate's own error take "
                    "a plan met on paper below its target; a replica that cannot reach the margin is sized to the target"))
        if think_time_assumed(w):
            assume("think_time_s", DEFAULT_THINK_TIME_S, THINK_TIME_WHY.format(
                pause=DEFAULT_THINK_TIME_S, users=int(w.concurrency or 0)))

    gpu = data.gpu(w.gpu) if w.gpu else None
    if w.flash_attention is None:
        cc = compute_capability(gpu)
        if gpu is not None and cc is not None and cc < 8.0:
            assume("flash_attention", False, f"{gpu.name} predates FlashAttention-2 (needs Ampere or newer)")
        else:
            assume("flash_attention", True, "FlashAttention on (Ampere or newer): attention memory grows linearly with sequence length")
    if w.headroom is None:
        assume("headroom", DEFAULT_HEADROOM, "PyTorch's CUDA caching allocator fragments, and jobs run out of memory at 85-90% of capacity: 10% kept free")
    if w.runs_per_month is None and training and "runs_per_month" not in updates:
        assume("runs_per_month", 1, "one run a month; say '20 runs a month' to size experiments")
    elif w.runs_per_month is None:
        updates["runs_per_month"] = 1  # serving is priced as an always-on month; nothing to state
    if w.mfu is None and training:
        # Not written into the effective workload: engine.throughput picks MFU per GPU type and count
        # (and adjusts for gradient checkpointing) for every option; this records what it will use.
        value: float | str | None = "per GPU type"
        why = "model FLOPs utilisation per GPU type and count (35-55% is typical in published runs; 100% of peak is never reached)"
        if gpu is not None:
            try:
                value, gpu_why = default_mfu(gpu, mode, w.gpu_count or 1, bool(model is not None and model.num_experts))
                why = f"{gpu.name}: {gpu_why}"
            except Exception:  # the physics module failing must not stop the defaults
                value = "per GPU type"
        assumptions.append(Assumption(field="mfu", value=value, why=why))
    if w.data_location is None:
        assumptions.append(Assumption(field="data_location", value=None, why="data location not given: no egress counted"))
    if w.pricing is None:
        assume("pricing", "on_demand", "on-demand prices; 1-3 year commitments are typically 30-50% cheaper where a provider sells them: say 'reserved' to see them")
    if w.cache_dataset is None and w.data_location is not None and training:
        assumptions.append(
            Assumption(field="cache_dataset", value=None, why="both workflows shown: dataset cached after one pull, and pulled on every run")
        )
    if params_b is not None and w.params_b is None:
        updates["params_b"] = params_b

    effective = w.model_copy(update=updates)
    return effective, assumptions, problems
