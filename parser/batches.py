"""A bare "batch size N" in a training question: the optimiser's batch across all GPUs, or each GPU's micro-batch.

Practitioners say both. Megatron-LM (--global-batch-size vs --micro-batch-size) and torchtitan (global_batch_size vs
local_batch_size) name them apart; Hugging Face's Trainer sets per_device_train_batch_size and
gradient_accumulation_steps, and "batch size" in a paper or a Slack thread is usually the product across the GPUs. The
two readings differ in what they cost: a global batch read as the micro-batch sizes memory for hundreds of sequences a
GPU (an 8B fine-tune planned at tensor parallel x8 on B300s), a micro-batch read as global undersizes activations.
So the words decide first ("global", "micro", "per GPU" are the grammar's), then the job:

- gradient accumulation said beside it: the Hugging Face pair, so the batch is per GPU;
- steps said: "10k steps, batch size 64" counts the data a run trains, which only the global batch does;
- past MAX_MICRO_BATCH_TOKENS at the sequence length (16 x 2k, 4 x 8k): no recipe runs that micro-batch, so global;
- else the micro-batch.

Each reading is said in a note with the words for the other.
"""

from __future__ import annotations

from typing import Any

from engine.models import DEFAULT_TRAINING_SEQ_LEN, MAX_MICRO_BATCH_TOKENS, PRETRAIN_SEQ_LEN


def read_batch(count: int, said: str, updates: dict[str, Any], mode: str | None) -> tuple[str, str | None]:
    """The field a bare training "batch size N" sets ("global_batch" or "batch_size") and the note that says so."""
    if "gradient_accumulation" in updates:
        return "batch_size", None
    seq = int(updates.get("seq_len") or (PRETRAIN_SEQ_LEN if mode == "pretrain" else DEFAULT_TRAINING_SEQ_LEN))
    if "train_steps" in updates or count * seq > MAX_MICRO_BATCH_TOKENS:
        why = "with the steps, it is the data trained" if "train_steps" in updates else (
            f"{count:,} sequences of {seq:,} tokens is past any per-GPU micro-batch")
        return "global_batch", (f"read “{said}” as the global batch across all GPUs ({why}): reached with gradient "
                                "accumulation, it does not change memory per GPU; say "
                                f"“micro-batch {count}” if each GPU takes {count}")
    return "batch_size", (f"read “{said}” as the per-GPU micro-batch; say “global batch {count}” if it is the batch "
                          "across all GPUs")
