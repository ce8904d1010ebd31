"""What the advisor says when a message is not about GPUs: what it does, and three examples."""

from __future__ import annotations

EXAMPLES: tuple[str, ...] = (
    "QLoRA 70B, 500GB corpus in S3, 20 runs a month",
    "serve Llama 3 8B in int8 for 32 concurrent users with 8k context",
    "full fine-tune of a 7B model on 2B tokens, 8x H100 at $2.80/hr",
)

HELP_TEXT = (
    "I size GPU jobs: tell me what you want to train or serve and I'll say whether it fits, how many "
    "GPUs, how long it takes and what it costs. For example:\n" + "\n".join(f"• {e}" for e in EXAMPLES)
    + "\nOr ask for prices: “how much is an H100 on AWS?”"
)
