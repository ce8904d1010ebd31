"""The engine's boundary types: the workload a user describes and the advice the engine returns.

`Workload` is what the parser produces and what `gpu-advisor estimate --json` reads; its first
twenty fields are the public scripting contract (docs/json.md) and must never be renamed.
Fields after the marked line are additions (allowed by the contract) that expose the knobs a
user can change in a thread ("cache the data", "spot pricing", "assume 45% MFU").

Every number in the advice is a `Figure`: a value together with the formula, the inputs and the
assumptions that produced it, so a reply can show *why* and tests can check the path, not only
the value. All sizes are decimal GB (10^9 bytes) unless a name says otherwise.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

Mode = Literal["pretrain", "full", "lora", "qlora", "inference"]
Precision = Literal["fp32", "bf16", "fp16", "fp8", "int8", "int4", "nf4"]
Location = Literal["aws", "gcp", "azure", "onprem"]
Optimizer = Literal["adamw", "adamw_8bit", "paged_adamw_8bit", "sgd"]
PriceKind = Literal["on_demand", "spot", "reserved"]
TcoItem = Literal["compute", "storage", "egress", "managed"]
# What a fine-tune optimises. "sft": next-token loss on one sequence per example (the default). "dpo": preference
# tuning against a frozen reference model (DPO and its IPO / robust variants, TRL's DPOTrainer): each pair trains two sequences
# (chosen and rejected) and a full fine-tune holds the reference's weights beside the policy's. "orpo": reference-free
# preference tuning (ORPO, SimPO, CPO): both sequences of each pair, no reference model. "grpo": online RL without a
# critic (GRPO, RLOO, DAPO, RLVR; TRL's GRPOTrainer, verl, OpenRLHF): each step samples G completions per prompt, scores
# them and trains the policy on them (engine.rl sizes the generation too). "ppo": the same plus a value model (critic)
# trained beside the policy, sized in memory and FLOPs (engine.rl, engine.memory, engine.throughput).
Objective = Literal["sft", "dpo", "orpo", "grpo", "ppo"]
PREFERENCE_OBJECTIVES: tuple[Objective, ...] = ("dpo", "orpo")
RL_OBJECTIVES: tuple[Objective, ...] = ("grpo", "ppo")

TRAINING_MODES: tuple[Mode, ...] = ("pretrain", "full", "lora", "qlora")
# Raw English text per BPE token: how a corpus size becomes a token guess. Shared by the parser's
# question ("500 GB is ~125B tokens") and the engine's default, so the two never disagree.
BYTES_PER_TOKEN_TEXT = 4.0
# Request-rate sizing when the prompt / output lengths are not given: stated in the answer and asked
# by the parser's question, which quotes these same figures.
DEFAULT_INPUT_TOKENS = 1024
# The sequence length assumed when none is said: a serving context (prompt, reply and earlier turns) and a
# fine-tuning sequence, and a pre-training one. "Double the context" reads these.
DEFAULT_SERVING_SEQ_LEN = 4096
DEFAULT_TRAINING_SEQ_LEN = 2048
PRETRAIN_SEQ_LEN = 8192  # Llama 3 (8,192), torchtitan's default recipe; 2,048 is a fine-tuning length
DEFAULT_OUTPUT_TOKENS = 256
# A token load counted over a day, week or month ("500M tokens a day") is an average over quiet hours too: a service
# is sized for its busy hour, taken as twice the average (daytime traffic in one region). A rate per hour or minute is
# sized as said.
BUSY_HOUR_FACTOR = 2.0
# A headcount a service is for ("300 employees", "a team of 40 engineers", "500 seats", "our 2,000 users") is people,
# not streams generating at once: most are in meetings, reading a reply or typing the next prompt. Sized at the busy
# hour for this share of them at once: ~10% of named users concurrent is the usual ratio in enterprise sizing guides
# (Infor EPM's hardware recommendations: "of 100 users, 10% or 10 users would, on average, be concurrent"); a worked
# breakdown (in the office x at the desk x using it x waiting on the back end) gives ~2%, so 10% is the busy hour's.
# Said, changeable ("60 at once"), and all of them at once is shown as the upper bound.
STAFF_ACTIVE_SHARE = 0.10
# Sign-ups ("2,000 users signed up", "2k registered users") are fewer still at once: about a quarter use a chat app on
# a given day (the DAU/MAU the parser's monthly-users rule takes, parser.asides.DAILY_SHARE_OF_MONTHLY) and of those
# online at the busy hour at most ~20% wait on a reply at once: 25% x 20% = 5%.
SIGNUP_ACTIVE_SHARE = 0.05
LOAD_AVERAGED_PERIODS = ("day", "week", "month")
LOAD_PERIOD_SECONDS = {"minute": 60.0, "hour": 3600.0, "day": 86_400.0, "week": 7 * 86_400.0, "month": 730 * 3600.0}
# Compressed or columnar corpora (gzip, zstd, Parquet, Arrow) hold several times their size in raw text: JSONL text
# compresses ~3-4x with gzip or zstd, so a compressed size is read as ~3x that much text (the low end, said as assumed).
COMPRESSED_TEXT_RATIO = 3.0
# A training example (a conversation, an instruction/response pair, a row) when only their count is said: ~1,000
# tokens, prompt and response together, typical of chat fine-tuning sets; said as assumed and asked.
DEFAULT_TOKENS_PER_EXAMPLE = 1_000
# A preference pair (DPO, ORPO, SimPO) is two training sequences, prompt + chosen and prompt + rejected: TRL
# concatenates them into one forward, so a pair costs two sequences' tokens, FLOPs and activations.
PREFERENCE_SEQUENCES_PER_PAIR = 2
# Online RL (engine.rl): a completion's length when not said. TRL's GRPOConfig max_completion_length is 256, too short
# for reasoning RL (1-4k), so 1,024 is assumed (DeepSeekMath's GRPO setting) and asked; the parser's question quotes both
DEFAULT_RL_COMPLETION_TOKENS = 1_024
TRL_COMPLETION_TOKENS = 256
DEFAULT_RL_GENERATIONS = 8  # TRL GRPOConfig.num_generations: completions sampled per prompt (G) when not said
# PPO samples one completion per prompt (its value model is the baseline; a group of completions is GRPO's), keeps a
# frozen reference policy for a KL penalty (TRL PPOConfig.kl_coef 0.05) and trains each rollout batch for several
# passes (TRL PPOConfig.num_ppo_epochs 4): "4 epochs" said of PPO is that count (engine.rl)
PPO_GENERATIONS = 1
PPO_KL_COEF = 0.05
PPO_EPOCHS = 4
# A reasoning model's reply carries its thinking: DeepSeek-R1, QwQ, Qwen3 and gpt-oss traces run 1,000-4,000 tokens,
# so its load is sized at 2,000 tokens per reply unless said (256 would undersize a request rate about eight times)
DEFAULT_REASONING_OUTPUT_TOKENS = 2_000
# An agent (a coding assistant such as Cline or Claude Code, a tool-calling loop) sends each call the whole
# conversation so far: with the prefix cache on (vLLM's automatic prefix caching, on by default in its V1 engine;
# SGLang's RadixAttention), most of each prompt is already in the KV cache from the previous call and only the
# new tail (tool output, the user's message) is prefilled. The SGLang paper (Zheng et al., NeurIPS 2024) measured
# 50-99% cache hit rates across workloads, multi-turn and agent loops at the high end; 80% is assumed for an agent
# and said, so a user who knows theirs can give it ("95% prefix cache hits", "no prefix caching").
AGENT_PREFIX_CACHE_HIT = 0.8
# An agent call's prompt when its length is not said: its instructions, tool definitions, the files it has read and
# the conversation so far run to tens of thousands of tokens (a chat turn's 1,024 undersizes its KV cache ~8x)
AGENT_DEFAULT_PROMPT_TOKENS = 32_000
# Every run pays start-up on every rented GPU: instance boot, container pull, model download and
# load, and the final checkpoint save, about a quarter hour. It is what makes an 8-GPU node for a
# 5-minute job dearer than one GPU for an hour; an offline inference job pays it too (weights and vLLM warm-up).
DEFAULT_SETUP_HOURS = 0.25


class Workload(BaseModel):
    """A scenario as the user described it. `None` means 'not said': the engine assumes and says so."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    # --- contract fields (docs/json.md); never rename ---
    mode: Mode | None = None
    model: str | None = None  # catalog model id
    params_b: float | None = None  # total parameters, billions (MoE: all experts)
    precision: Precision | None = None  # weights precision (inference) / base precision (training)
    dataset_gb: float | None = None  # corpus size, decimal GB
    dataset_tokens: int | None = None  # tokens per epoch
    epochs: float | None = None
    runs_per_month: float | None = None
    data_location: Location | None = None
    gpu: str | None = None  # catalog GPU id
    gpu_count: int | None = None
    seq_len: int | None = None
    batch_size: int | None = None  # per-GPU micro-batch (training)
    concurrency: int | None = None  # concurrent sequences (inference)
    hourly_rate: float | None = None  # USD per GPU-hour the user quoted
    optimizer: Optimizer | None = None
    gradient_checkpointing: bool | None = None
    lora_rank: int | None = None
    zero_stage: Literal[0, 1, 2, 3] | None = None
    mfu: float | None = Field(default=None, description="assumed model FLOPs utilisation, 0-1")

    # --- additions: knobs a user can set in a thread ---
    cache_dataset: bool | None = None  # pull once and keep on the GPU provider
    provider: str | None = None  # restrict to one provider id ("aws", "lambda", "sagemaker")
    pricing: PriceKind | None = None  # on-demand (default), spot, reserved
    nodes: int | None = None
    tensor_parallel: int | None = None
    pipeline_parallel: int | None = None
    flash_attention: bool | None = None
    lora_targets: tuple[str, ...] | None = None  # ("q_proj","v_proj") or ("all",)
    target_tokens_per_s: float | None = None  # inference: aggregate throughput to provision for
    output_tokens: int | None = None  # inference: generated tokens per request
    input_tokens: int | None = None  # inference: prompt tokens per request
    headroom: float | None = None  # fragmentation headroom fraction kept free on each GPU (0.10-0.15)
    dependencies: tuple[str, ...] | None = None  # named cloud dependencies, for migration friction
    # Overrides that let a scenario be run with a published worked example's own assumptions (golden tests)
    flops_per_token_factor: float | None = None  # 6 for full training; engine default lower for (Q)LoRA
    adapter_overhead_gb: float | None = None  # fixed adapter + optimizer + activation allowance
    egress_usd_per_gb: float | None = None  # flat egress rate instead of the provider's tier table
    storage_usd_per_month: float | None = None  # fixed storage bill instead of GB x rate
    storage_gb: float | None = None  # corpus + checkpoints + artifacts, if the user knows it
    managed_premium: float | None = None  # flat managed-service premium fraction (0.30 = +30%)
    utilization: float | None = None  # owned hardware / serving duty cycle 0-1 (cost per 1M tokens)
    bandwidth_efficiency: float | None = None  # fraction of peak HBM bandwidth reached when decoding
    # added by the economics engine (engine/egress.py, engine/tco.py)
    dataset_pulls_per_month: float | None = None  # uncached workflow: dataset reads from its source per month; default runs_per_month
    checkpoints_kept: int | None = None  # checkpoints stored at a time (storage row); default 3
    gpu_memory_gb: float | None = None  # "one 24GB card": consider only GPUs with this much memory
    setup_hours_per_run: float | None = None  # start-up per training run on every rented GPU; default 0.25 h
    deadline_hours: float | None = None  # "within 2 weeks": wall-clock target per run (training)
    # "under $5k a month": a monthly bill over it counts as a missed target (ranked after the options within it)
    budget_usd_per_month: float | None = None
    # training: "total budget $150k", "$15k per run": a run costing more counts as a missed target
    budget_usd_per_run: float | None = None
    # an offline job's count of prompts ("10 million documents", "2m rows"): sized as their average request rate over
    # the job's deadline (deadline_hours, else a day), and costed for the job as well as for the month
    batch_items: float | None = None
    # a cloud instance the user named ("g2-standard-24", "p5.48xlarge"): priced on that machine only
    instance_type: str | None = None
    # serving targets (contract keys): what one user must see, the request rate to sustain
    target_tokens_per_s_per_user: float | None = None  # "30 tokens/s per user"; "50 ms per token" is 20
    target_ttft_s: float | None = None  # time to first token, seconds
    # the percentile the time to first token is graded at, as said with it ("median TTFT under 300 ms" is "p50",
    # "p99 TTFT < 1 s" "p99", "average TTFT" "mean"): engine.queueing states and sizes the queued first token there.
    # None: p95 (engine.queueing.DEFAULT_TTFT_PERCENTILE), said as assumed
    ttft_percentile: str | None = Field(default=None, pattern=r"^(?:mean|p(?:[1-9]\d?)(?:\.\d+)?)$")
    requests_per_s: float | None = None  # request rate to sustain (with input/output tokens per request)
    # "fine-tune X" with no method: training of some kind (the engine plans the cheapest method that fits
    # and asks which); "serve X": inference. None: not said.
    intent: Literal["train", "serve"] | None = None
    # accelerators the user named that the catalog does not cover (TPU, Trainium, Inferentia): named in
    # the answer as not covered instead of silently dropped
    unsupported_accelerator: str | None = None
    # "NVIDIA only", "no AMD" (a CUDA-only stack): plans on that vendor's GPUs only (engine.advise filters the offers)
    gpu_vendor: Literal["nvidia", "amd"] | None = None
    # serving: a load said as tokens over a period ("500M tokens a day", "2M tokens an hour"), prompt + output counted
    # together, as tokens per second averaged over that period; the engine turns it into `requests_per_s` at the
    # request shape (input/output tokens), at BUSY_HOUR_FACTOR x the average when the period is a day or longer
    load_tokens_per_s: float | None = None
    # serving a load offline ("500M tokens a day of batch summarization"): batched for throughput with no interactive
    # per-user floor, and sized at the period's average (a queue smooths the busy hour)
    offline: bool | None = None
    # the load counts generated tokens only ("20M output tokens a day"): requests are the load over the reply length
    load_output_only: bool | None = None
    # serving an agent or coding assistant ("40 developers using Cline", "coding agents", "agentic"): each call
    # carries the conversation so far, so its prompt is mostly a cached prefix (AGENT_PREFIX_CACHE_HIT unless said)
    agentic: bool | None = None
    # serving: the fraction of each prompt's tokens already in the KV cache from an earlier call (prefix caching):
    # only the rest is prefilled; the cache still holds the whole context. None: 0, unless `agentic`
    prefix_cache_hit: float | None = None
    # serving for availability ("99.9% uptime", "across 2 regions", "HA"): at least this many replicas, one per region
    # or zone, so one can fail or be updated while the rest serve; the load is spread over them
    min_replicas: int | None = Field(default=None, ge=1, le=64)
    # serving to a per-user speed asked: the share over it the batches are sized for (None: SPEED_TARGET_MARGIN, for
    # the estimate's error; "no margin": 0)
    speed_margin: float | None = Field(default=None, ge=0.0, le=0.5)
    load_period: Literal["minute", "hour", "day", "week", "month"] | None = None
    # training: the corpus size is compressed or columnar ("40 GB of gzipped JSONL", "parquet"): the token guess
    # from `dataset_gb` counts COMPRESSED_TEXT_RATIO x that much text; transfer and storage stay at the size said
    dataset_compressed: bool | None = None
    # serving a vision-language model (engine.vision): images in each request ("2 images per request"; 0 is text only)
    # and their size in pixels ("1024x1024"); None: one image of DEFAULT_IMAGE_PIXELS assumed for a model served for
    # images (its catalog row's images_by_default), none for the rest
    images_per_request: float | None = Field(default=None, ge=0, le=64)
    image_width: int | None = Field(default=None, ge=16, le=16384)
    image_height: int | None = Field(default=None, ge=16, le=16384)
    # the prompt length was assumed for an image by the parser's generic rule (one token per 28x28 pixels, plus its
    # instruction): for a catalog VLM the engine recounts that image by the model's own rule
    prompt_holds_image: bool | None = None
    # training: the examples in the dataset ("100k conversations", "2,000 examples"): with no size or token count,
    # the tokens are guessed at DEFAULT_TOKENS_PER_EXAMPLE each (an assumption the answer states and asks about)
    dataset_examples: int | None = None
    # a service used only in some hours ("9am-6pm weekdays" is 45 of 168): on hourly-billed capacity it is stopped
    # (or scaled to zero) outside them, so on-demand and spot compute is billed for these hours only; reserved
    # capacity is paid around the clock whatever the schedule (engine/tco.py). None or 168: always on
    service_hours_per_week: float | None = None
    service_schedule: str | None = None  # the schedule in words, as the answer repeats it ("9am-6pm weekdays")
    # training: what the fine-tune optimises (`Objective`); None is SFT. Preference objectives count two sequences per
    # example (pair), and "dpo" on a full fine-tune holds a frozen BF16 reference copy of the weights (engine.memory)
    objective: Objective | None = None
    # training: the optimiser (global) batch across all GPUs, Megatron-LM's --global-batch-size, torchtitan's
    # global_batch_size, Hugging Face's per_device_train_batch_size x gradient_accumulation_steps x GPUs: reached with
    # gradient accumulation, so it never sets memory per GPU (`batch_size`, the micro-batch, does). In sequences
    # ("global batch size 512"), or in tokens ("a global batch of 4M tokens")
    global_batch: int | None = None
    global_batch_tokens: int | None = None
    # training: optimiser steps ("for 5000 steps", Megatron's --train-iters, HF's max_steps): with the global batch and
    # the sequence length, the tokens trained (engine.defaults)
    train_steps: int | None = None
    gradient_accumulation: int | None = None  # micro-batches per optimiser step (training)
    # online RL (objective "grpo"/"ppo", engine.rl): completions sampled per prompt (G, TRL's num_generations), each
    # completion's and prompt's length in tokens, and the KL coefficient (beta > 0 holds and runs a frozen reference).
    # `dataset_examples` counts the prompts; `global_batch` counts the prompts per step (verl's data.train_batch_size,
    # OpenRLHF's rollout_batch_size), so `train_steps` x `global_batch` is the prompts a run samples from. None:
    # engine.rl's defaults, said as assumed.
    rl_generations: int | None = Field(default=None, ge=1, le=1024)
    rl_completion_tokens: int | None = Field(default=None, ge=1, le=1_000_000)
    rl_prompt_tokens: int | None = Field(default=None, ge=1, le=1_000_000)
    rl_kl_beta: float | None = Field(default=None, ge=0.0, le=10.0)
    # serving a quantised file of this many bits per weight over all its parameters, embeddings included: llama.cpp's
    # GGUF files (Q4_K_M 4.89, Q8_0 8.50 on Llama 3.1 8B, llama.cpp's quantize table), as local runtimes (Ollama,
    # llama.cpp, LM Studio) load them (engine.local). None: the precision's vLLM layout (AWQ/GPTQ int4 at 4 bits plus
    # group-128 scales on the linear layers, embeddings and head kept in 16-bit), as a rented service runs it
    weight_bits: float | None = Field(default=None, gt=1.0, le=16.0)
    # PPO's value model (critic), in billions of parameters: trained beside the policy with its own gradients and
    # optimizer state (OpenRLHF, verl, TRL's PPOTrainer); None on PPO is a copy of the policy's size (engine.rl)
    rl_critic_params_b: float | None = Field(default=None, gt=0.0, le=10_000.0)
    # a reward model said ("an 8B reward model"), in billions of parameters: held frozen and run forward over every
    # completion; None is a reward function (a verifier, a rule), which costs no GPU time
    rl_reward_params_b: float | None = Field(default=None, gt=0.0, le=10_000.0)
    # serving: the people the service is for, said as a headcount ("300 employees", "a team of 40", "2,000 users signed
    # up"), not streams at once: `concurrency` is the share of them generating at once at the busy hour
    # (STAFF_ACTIVE_SHARE, SIGNUP_ACTIVE_SHARE unless said), and the answer shows all of them at once as the upper bound
    population: int | None = Field(default=None, ge=1)
    # a provider constraint naming several ("only AWS or GCP"): plans on those providers' offers only, ranked together
    # (the cheaper named first); one provider is `provider`
    providers: tuple[str, ...] | None = None
    # serving chat users: seconds between a user's reply and their next prompt ("users pause 60 s between questions";
    # 0 for "no pause", "back to back", "32 concurrent requests"): thins the prefill arrivals, never the decode batch,
    # which is still sized for all users generating at once. None: engine.think_time's default where users read and
    # type between turns (20 s), 0 for an agent's loop, a request rate or an offline job
    think_time_s: float | None = Field(default=None, ge=0.0, le=86_400.0)
    # where the GPUs must be ("in the EU", "GDPR", "data can't leave germany", "us only", "in frankfurt"): the places
    # said, as `catalog.regions` keys (an area "eu", "europe", "us"; a country "germany", "canada"; a city "frankfurt";
    # a cloud region id "eu-west-1"). Plans use offers in any of them only (engine.recommend); when the catalog has none
    # there the answer says so and plans on the nearest place around it, named as outside (engine.advise)
    regions: tuple[str, ...] | None = None
    # a data-residency constraint ("GDPR", "data must stay in", "can't leave", "EU only"): marketplace hosts, machines of
    # individual owners with no data processing agreement, are not options
    data_residency: bool | None = None
    # training across nodes: the network between them as said ("100GbE between nodes", "2x200G RoCE per node", "8x400G
    # IB"), Gb/s per node, and its kind ("no infiniband", "ethernet only": plain TCP Ethernet, 100 Gb/s unless a rate is
    # said). engine.network times the traffic between nodes on it. None: the offer's fabric (on a cluster of their own,
    # InfiniBand or RoCE assumed and said)
    inter_node_gbps: float | None = Field(default=None, gt=0.0, le=100_000.0)
    inter_node_link: Literal["ethernet", "roce", "infiniband"] | None = None


    @field_validator("ttft_percentile", mode="before")
    @classmethod
    def _percentile_as_said(cls, value: Any) -> Any:
        """A script's `"ttft_percentile"` in any of the usual spellings: 99 or "99" or "P99" -> "p99", 0.5 or "median"
        -> "p50", "average" or "avg" -> "mean"; anything else goes on to the pattern, which refuses it."""
        if isinstance(value, int | float) and not isinstance(value, bool):
            value = f"p{value * 100 if 0 < value < 1 else value:g}"
        if isinstance(value, str):
            value = value.strip().lower()
            value = {"median": "p50", "average": "mean", "avg": "mean"}.get(value, value)
            value = f"p{value}" if value[:1].isdigit() else value
        return value

def load_peak_factor(w: Workload) -> float:
    """How far above its average a token load is sized: BUSY_HOUR_FACTOR for a chat load counted over a day, week or
    month (quiet hours are in the average); 1 for a load said per hour or minute, or one processed offline (a queue
    takes the average). The engine's assumption and the parser's question read it from here, so they agree."""
    return BUSY_HOUR_FACTOR if (w.load_period or "day") in LOAD_AVERAGED_PERIODS and not w.offline else 1.0


def sequences_per_example(objective: str | None) -> int:
    """Training sequences one example is: two for a preference pair (chosen and rejected), else one. The engine's
    token guess and the parser's "pairs of 500 tokens" both read it, so they agree."""
    return PREFERENCE_SEQUENCES_PER_PAIR if objective in PREFERENCE_OBJECTIVES else 1


# The largest micro-batch per GPU recipes run: torchtitan and Megatron-LM train 1-8 sequences of 2-8k tokens a GPU
# (16 x 2k, 4 x 8k). A "batch size" said past it is a global batch (the parser's reading), and memory left past it is
# not a micro-batch anyone would set (engine.cluster)
MAX_MICRO_BATCH_TOKENS = 32_768


def rl_generations(w: Workload) -> int:
    """G, the completions sampled per prompt: as said, else TRL's default (GRPO's group of 8, PPO's one)."""
    return int(w.rl_generations or (PPO_GENERATIONS if w.objective == "ppo" else DEFAULT_RL_GENERATIONS))


def global_batch_sequences(w: Workload, seq_len: int) -> int | None:
    """Sequences per optimiser step, as said: the global batch, a global batch in tokens over the sequence length, or
    Hugging Face's effective batch (micro-batch x gradient accumulation x GPUs) when all three are said. None: not
    said (the engine then plans micro-batch 1 and caps data parallel at a published batch). Online RL counts its
    global batch in prompts (verl's data.train_batch_size, OpenRLHF's rollout_batch_size): each trains G completions,
    so a step is prompts x G sequences; TRL's effective batch (micro-batch x accumulation x GPUs) already counts
    completions (its num_generations divides it)."""
    if w.global_batch:
        return int(w.global_batch) * (rl_generations(w) if w.objective in RL_OBJECTIVES else 1)
    if w.global_batch_tokens:
        return max(1, round(w.global_batch_tokens / max(1, seq_len)))
    if w.batch_size and w.gradient_accumulation and w.gpu_count:
        return int(w.batch_size * w.gradient_accumulation * w.gpu_count)
    return None


def steps_tokens(w: Workload, seq_len: int) -> tuple[int, str] | None:
    """The tokens `train_steps` optimiser steps train, and the arithmetic in words ("5,000 steps x 256 sequences x
    4,096 tokens = 5.24B tokens"); None without steps or a global batch. Steps x global batch x sequence length is the
    data a run trains on, whatever the corpus behind it (the parser asks no data question then)."""
    if not w.train_steps:
        return None
    steps = int(w.train_steps)
    if w.global_batch_tokens and not w.global_batch:
        tokens = steps * int(w.global_batch_tokens)
        return tokens, f"{steps:,} steps × {_count_words(w.global_batch_tokens)} tokens a step = {_count_words(tokens)} tokens"
    sequences = global_batch_sequences(w, seq_len)
    if sequences is None:
        return None
    tokens = steps * sequences * seq_len
    if w.objective in RL_OBJECTIVES:  # online RL: prompts x G completions a step, each prompt + completion long
        g = rl_generations(w)
        length = (f"({w.rl_prompt_tokens:,} + {w.rl_completion_tokens:,}) tokens" if w.rl_prompt_tokens and
                  w.rl_completion_tokens and w.rl_prompt_tokens + w.rl_completion_tokens == seq_len else
                  f"{seq_len:,} tokens")
        prompts = (f"{int(w.global_batch):,} prompts × {g} completions" if w.global_batch else
                   f"{sequences:,} completions ({w.batch_size} per GPU × {w.gradient_accumulation} accumulation × "
                   f"{w.gpu_count} GPUs, {sequences / g:,.4g} prompts × {g})")
        return tokens, f"{steps:,} steps × {prompts} × {length} = {_count_words(tokens)} tokens"
    how = ("" if w.global_batch else f" ({w.batch_size} per GPU × {w.gradient_accumulation} accumulation × "
           f"{w.gpu_count} GPUs)")
    return tokens, (f"{steps:,} steps × {sequences:,} sequences{how} × {seq_len:,} tokens = {_count_words(tokens)} "
                    "tokens")


def _count_words(tokens: float) -> str:
    """5.24B, 4M, 512k: a token count in a sentence."""
    for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if tokens >= scale:
            return f"{tokens / scale:.3g}{suffix}"
    return f"{tokens:,.0f}"


def rate_text(value: float) -> str:
    """A rate as a person writes it: 0.12, 5.8, 11.6, 1,234 (10,000 requests a day is 0.12 requests/s, not 0). Here
    rather than in engine.units so the parser's questions quote rates as the engine's assumptions do."""
    if value >= 100:
        return f"{value:,.0f}"
    return f"{value:.3g}" if value >= 10 else f"{value:.2g}"


def text_gb(w: Workload) -> float:
    """The raw text a corpus holds: its size, or COMPRESSED_TEXT_RATIO x a compressed or columnar size."""
    return float(w.dataset_gb or 0) * (COMPRESSED_TEXT_RATIO if w.dataset_compressed else 1.0)


class Assumption(BaseModel):
    """A value the engine used that the user did not give, and why that value."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    field: str
    value: Any
    why: str


class Figure(BaseModel):
    """A number with its provenance: formula name, the inputs it was computed from, and notes."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    value: float
    unit: str
    formula: str  # human-readable: "params × bytes_per_param"
    inputs: dict[str, Any] = Field(default_factory=dict)
    notes: tuple[str, ...] = ()


class Problem(BaseModel):
    """Why the engine could not answer (part of) a question. Never raised, always returned."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    code: str  # "unknown_model", "unknown_gpu", "invalid_value", "fits_nowhere", "implausible"
    field: str | None = None
    message: str  # what a user reads
    candidates: tuple[str, ...] = ()


class MemoryEstimate(BaseModel):
    """Peak memory on the busiest GPU and across the cluster, with per-component breakdown."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    per_gpu_gb: float
    total_gb: float  # all GPUs together (for unsharded state: per_gpu x gpus)
    components: dict[str, Figure]  # per GPU; names: weights_gb, gradients_gb, optimizer_gb, ...
    gpus: int  # how many GPUs the state is spread over in this estimate
    usable_gb_per_gpu: float | None = None  # GPU memory after headroom, when a GPU was given
    fits: bool | None = None
    notes: tuple[str, ...] = ()


class ClusterPlan(BaseModel):
    """How many GPUs and nodes, how they talk, and how the model is split."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    gpu: str
    gpus: int
    nodes: int
    gpus_per_node: int
    fits: bool
    data_parallel: int
    tensor_parallel: int
    pipeline_parallel: int
    zero_stage: int
    interconnect: str
    parallelism: str
    needs_nvlink: bool
    needs_infiniband: bool
    gpus_per_replica: int | None = None  # inference: GPUs holding one copy of the model (tp x pp)
    replicas: int | None = None  # inference: independent copies behind a load balancer
    checklist: tuple[str, ...] = ()  # NCCL / fabric checks for multi-node
    provider_questions: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


class TargetCheck(BaseModel):
    """A user target (serving speed, request rate, time to first token, training deadline) and whether
    the plan meets it. `name` is the Workload field; for per-user speed and rate, higher is better;
    for TTFT and deadlines, lower is better."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    name: str
    wanted: float
    got: float
    met: bool
    # a time to first token: the percentile `got` is at ("p95" unless the user said one; "mean"); None elsewhere
    percentile: str | None = None


class ThroughputEstimate(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)

    training_tokens_per_s: Figure | None = None  # all GPUs together
    gpu_hours: Figure | None = None  # per run
    wall_clock_hours: Figure | None = None  # per run
    decode_tokens_per_s: Figure | None = None  # summed over concurrent sequences and GPUs
    decode_tokens_per_s_per_sequence: Figure | None = None
    prefill_seconds: Figure | None = None
    bound: Literal["compute", "bandwidth"] | None = None
    replicas: int | None = None  # inference: copies needed for target_tokens_per_s
    cost_per_1m_tokens_usd: Figure | None = None
    ttft_s: Figure | None = None  # inference: time to first token of one request (prefill + queueing share)
    targets: tuple[TargetCheck, ...] = ()
    notes: tuple[str, ...] = ()


class TcoRow(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)

    item: TcoItem
    usd: float
    formula: str
    inputs: dict[str, Any] = Field(default_factory=dict)


class TcoOption(BaseModel):
    """The four TCO rows for one way of running the workload, for one month of `runs_per_month` runs."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    name: str  # "Lambda 8x H100 SXM (on-demand)"
    offer_id: str | None
    provider: str
    rows: tuple[TcoRow, ...]
    total_usd: float
    workflow: Literal["cached", "uncached", "same_cloud", "none"] = "none"
    per_run_usd: float | None = None  # compute + managed for one run, plus its pull when every run pulls
    job_usd: float | None = None  # the whole training job when one run lasts longer than a month
    prices_observed_on: str | None = None  # when the offer's price was read (catalog row date)
    usd_per_1b_tokens: float | None = None  # training: compute + premium per billion tokens trained
    notes: tuple[str, ...] = ()


class Option(BaseModel):
    """One candidate configuration, fully evaluated."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    name: str
    offer_id: str | None
    gpu: str
    mode: Mode
    precision: Precision
    memory: MemoryEstimate
    cluster: ClusterPlan
    throughput: ThroughputEstimate
    tco: tuple[TcoOption, ...]  # one per workflow that applies (cached / uncached / same-cloud)
    total_usd: float  # the cheapest applicable workflow's monthly total
    hours_per_run: float | None = None
    rank_by_cost: int | None = None
    rank_by_time: int | None = None


class Recommendation(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)

    primary: str | None  # Option.name
    alternatives: tuple[str, ...] = ()
    cost_range_usd: tuple[float, float] | None = None
    why: tuple[str, ...] = ()  # why the winner won
    what_would_change_it: tuple[str, ...] = ()
    runner_up: str | None = None  # the next best from another provider
    cheapest: str | None = None  # cheaper than the primary and on time / on target, when there is one
    fastest: str | None = None  # faster (time per run, or per-user speed) than the primary, on target


class Advice(BaseModel):
    """The engine's full answer for one workload. `to_contract()` gives the public JSON."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    workload: Workload  # as the user gave it (None where not said)
    effective: Workload  # after defaults: what was actually computed
    assumptions: tuple[Assumption, ...] = ()
    missing: tuple[str, ...] = ()  # fields that were assumed or are needed
    problems: tuple[Problem, ...] = ()
    memory: MemoryEstimate | None = None
    cluster: ClusterPlan | None = None
    throughput: ThroughputEstimate | None = None
    options: tuple[Option, ...] = ()  # ranked, cheapest first
    options_ranked: int | None = None  # set when a stored answer keeps fewer options than were ranked (bot.stored)
    recommendation: Recommendation | None = None
    quantization: tuple[dict[str, Any], ...] = ()  # footprint per precision with caveats
    egress: dict[str, Any] | None = None  # per-run / cached / tier table used, migration friction
    # a vision-language model served with images: what each request's images add (engine.vision.ImageLoad as a dict)
    images: dict[str, Any] | None = None
    notes: tuple[str, ...] = ()
