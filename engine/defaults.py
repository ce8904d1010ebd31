"""Fill every field the user did not give, and say so: each default is an `Assumption`.

Why this is its own step: the answer must show what it assumed so users can change it ("with
rank 64", "3 epochs", "cache the data"). The effective workload returned here is what every
physics and cost function computes on; the user's workload stays as given.
"""

from __future__ import annotations

from typing import Any

from catalog.records import CatalogData
from engine.cluster import compute_capability
from engine.models import BYTES_PER_TOKEN_TEXT, TRAINING_MODES, Assumption, Problem, Workload
from engine.throughput import default_mfu

MAX_SERVING_BATCH = 64  # largest batch per replica tried when sizing for a throughput target
MIN_TOKENS_PER_S_PER_USER = 10.0  # a batch that leaves a user below this is not worth its throughput
DEFAULT_HEADROOM = 0.10  # seed 001: the CUDA allocator fragments; leave 10-15% free
LORA_TARGETS_ALL = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
LARGE_MODEL_PARAMS_B = 1.0  # gradient checkpointing on from here: activations outgrow weights on long sequences


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
        mode = "lora" if (w.dataset_gb or w.dataset_tokens) else "inference"
        why = (
            "a dataset was given but no training mode: LoRA is the common fine-tuning default; say 'full' or 'qlora' to change"
            if mode == "lora"
            else "no dataset and no training mode: sized for serving"
        )
        assume("mode", mode, why)
    training = mode in TRAINING_MODES

    if w.precision is None:
        if mode == "qlora":
            assume("precision", "nf4", "QLoRA keeps the frozen base in 4-bit NormalFloat (0.5 bytes/param)")
        elif training:
            assume("precision", "bf16", "BF16 is the standard training precision: FP32's exponent range at half the memory")
        else:
            assume("precision", "bf16", "serving the released BF16 weights; int8/int4 are offered when they change the hardware")

    max_context = model.max_context if model is not None else None
    if w.seq_len is None:
        seq = 2048 if training else 4096
        why = f"{'training' if training else 'serving'} default of {seq} tokens"
        if max_context is not None and seq > max_context:
            seq = max_context
            why += f", capped at the model's context ({max_context})"
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
                assume("optimizer", "adamw", "AdamW with FP32 states (18 bytes/param for full training, ERRATA 3)")
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
            assume("zero_stage", 3, "ZeRO-3 / FSDP shards weights, gradients and optimizer states when the plan spans more than one GPU")
        if w.epochs is None:
            assume("epochs", 1, "one pass over the data; say '3 epochs' to change")
        if w.dataset_tokens is None and w.dataset_gb is not None:
            tokens = int(w.dataset_gb * 1e9 / BYTES_PER_TOKEN_TEXT)
            assume(
                "dataset_tokens",
                tokens,
                f"{w.dataset_gb:g} GB of raw text at ~4 bytes/token (English, BPE tokenizer); fine-tuning often uses "
                "a subset: give the token count if you train on less",
            )
    else:
        if w.concurrency is None and w.target_tokens_per_s:
            assumptions.append(Assumption(
                field="concurrency", value="per option",
                why=f"to serve {w.target_tokens_per_s:,.0f} tokens/s each option batches as many sequences per replica "
                    f"(up to {MAX_SERVING_BATCH}, continuous batching as in vLLM/TGI) as its memory allows while each user "
                    f"still gets {MIN_TOKENS_PER_S_PER_USER:g}+ tokens/s, then adds replicas; say 'batch 16' to fix it"))
        elif w.concurrency is None:
            assume("concurrency", 1, "one sequence at a time; say how many concurrent users to size the KV cache")

    gpu = data.gpu(w.gpu) if w.gpu else None
    if w.flash_attention is None:
        cc = compute_capability(gpu)
        if gpu is not None and cc is not None and cc < 8.0:
            assume("flash_attention", False, f"{gpu.name} predates FlashAttention-2 (needs Ampere or newer)")
        else:
            assume("flash_attention", True, "FlashAttention on (Ampere or newer): attention memory grows linearly with sequence length")
    if w.headroom is None:
        assume("headroom", DEFAULT_HEADROOM, "seed 001: the CUDA allocator fragments and OOMs at 85-90% of capacity; keep 10% free")
    if w.runs_per_month is None and training:
        assume("runs_per_month", 1, "one run a month; say '20 runs a month' to size experiments")
    elif w.runs_per_month is None:
        updates["runs_per_month"] = 1  # serving is priced as an always-on month; nothing to state
    if w.mfu is None and training:
        # Not written into the effective workload: engine.throughput picks MFU per GPU type and count
        # (and adjusts for gradient checkpointing) for every option; this records what it will use.
        value: float | str | None = "per GPU type"
        why = "model FLOPs utilisation per GPU type and count (35-55% is typical; seed 000's 100% is not reachable, ERRATA 6)"
        if gpu is not None:
            try:
                value, gpu_why = default_mfu(gpu, mode, w.gpu_count or 1)
                why = f"{gpu.name}: {gpu_why}"
            except Exception:  # the physics module failing must not stop the defaults
                value = "per GPU type"
        assumptions.append(Assumption(field="mfu", value=value, why=why))
    if w.data_location is None:
        assumptions.append(Assumption(field="data_location", value=None, why="data location not given: no egress counted"))
    if w.pricing is None:
        assume("pricing", "on_demand", "on-demand prices; reserved is typically 30-50% cheaper for multi-quarter commitments (seed 002)")
    if w.cache_dataset is None and w.data_location is not None and training:
        assumptions.append(
            Assumption(field="cache_dataset", value=None, why="both workflows shown: dataset cached after one pull, and pulled on every run")
        )
    if params_b is not None and w.params_b is None:
        updates["params_b"] = params_b

    effective = w.model_copy(update=updates)
    return effective, assumptions, problems
