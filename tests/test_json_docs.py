"""docs/json.md stays true: every key it documents is in the real `ask --json` / `estimate --json`
output, and every key the output has under `report` (and at the top level) is documented."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main

DOC = Path(__file__).resolve().parent.parent / "docs" / "json.md"
QUESTIONS = (
    "QLoRA 70B, 500GB corpus in S3, 20 runs",
    "Serve Llama 3.1 8B in int8 for 32 concurrent users with 8k context",
    "pretrain a 1.3B model from scratch on 1.5T tokens, 64 H100s",
    "how many requests per second can one H100 handle with Llama 3.1 8B?",
    "H100 or B200 for full fine-tuning llama 3.1 8b on 2B tokens?",
    "we have $20k a month, what's the biggest model we can serve for 100 users?",
    "with $50k what's the biggest model we can full fine-tune on 1B tokens?",
    "translate 20M sentences with Llama 3.1 8B within 24 hours",
    "Llama 3.1 70B AWQ int4 vs FP8 on H100 for 50 users, which is cheaper?",
    "how much to store 10 checkpoints of a 70B full fine-tune on S3 for 6 months?",
    "egress cost to move 2TB from S3 to Lambda",
    "distill llama 3.1 405b into 8b: generate 2B tokens of teacher outputs then SFT",
    "how long to download Llama 3.1 405B weights at 1 Gbps?",
    "can I run Qwen2.5 32B on my 3090?",
    "should we buy or rent 8 H100s?",
    "serve Qwen2.5-VL 7B for 20 users",
    "what's the max context for Llama 3.1 70B on 2x H100 in FP8",
    "is it cheaper to reserve 8xH100 for a year or use on-demand for 6 hrs a day?",
    "serve llama 3.1 70b for 50 users, median TTFT under 300 ms, 2k token prompts",
    "how many gpus do i need on our slurm cluster to train 7B from scratch on 2T tokens in 30 days",
    "train 7b model on 500 A100s for 2 hours",
    "whats our cost per 1M tokens serving llama 3.3 70b at 50 users vs gpt-4o-mini api",
    "rejection sampling: 16 samples per prompt for 100k prompts with llama 3.3 70b, then score them with a 70b reward model",
    "lm-eval-harness on llama 3.1 70b across mmlu, gsm8k, hellaswag",
    "64xH100 for 3 days, biggest model we can pretrain chinchilla-optimal",
    "full finetune llama 3.1 70b on 4 nodes of 8xH100 but we only have 100GbE between nodes, no infiniband. 1B tokens",
    "serve gemma 3 27b on sagemaker vs ec2",
)
OPEN_ENDED = ("components", "workflows", "formulas", "egress", "problems", "notes", "missing", "questions", "parts_gb")


def documented() -> set[str]:
    return set(re.findall(r"^\| `([^`]+)` \|", DOC.read_text(encoding="utf-8"), flags=re.M))


def paths(value: Any, prefix: str = "") -> set[str]:
    """Every key path in `value`; list items as `[]`; maps keyed by names (OPEN_ENDED) stop there."""
    found: set[str] = set()
    if isinstance(value, dict):
        for key, child in value.items():
            path = f"{prefix}.{key}" if prefix else key
            found.add(path)
            if key not in OPEN_ENDED:
                found |= paths(child, path)
    elif isinstance(value, list):
        for item in value:
            found |= paths(item, prefix + "[]")
    return found


@pytest.fixture(scope="module")
def outputs() -> list[dict[str, Any]]:
    results = []
    for question in QUESTIONS:
        out = io.StringIO()
        assert main(["ask", "--json", question], stdout=out) == 0
        results.append(json.loads(out.getvalue()))
    out = io.StringIO()
    workload = json.dumps({"mode": "inference", "model": "llama 3.1 8b", "concurrency": 32})
    assert main(["estimate", "--json"], stdin=io.StringIO(workload), stdout=out) == 0
    results.append(json.loads(out.getvalue()))
    return results


def test_every_documented_key_is_in_the_real_output(outputs: list[dict[str, Any]]) -> None:
    real = set().union(*(paths(o) for o in outputs))
    missing = sorted(documented() - real)
    assert not missing, f"docs/json.md documents keys the output does not have: {missing}"


def test_every_report_and_top_level_key_is_documented(outputs: list[dict[str, Any]]) -> None:
    real = set().union(*(paths(o) for o in outputs))
    shown = {p for p in real if "." not in p or p.startswith("report.")}
    undocumented = sorted(shown - documented())
    assert not undocumented, f"add these keys to docs/json.md: {undocumented}"
