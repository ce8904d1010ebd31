"""Parsing cost per message: `python benchmarks/bench_parser.py`.

Prints the median cost of `parse` for typical messages and for messages of growing length
(to show it is linear). It prints figures and asserts nothing: timings belong in a report,
not in a test that flakes on a busy CI machine. Uses the in-test fake resolver so the figures
are the parser's own cost, not the catalog's lookups.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "parser")]

from fake_resolver import FakeResolver  # noqa: E402

from parser import Conversation, parse  # noqa: E402

TYPICAL = [
    "QLoRA 70B, 500GB corpus in S3, 20 runs",
    "<@U123> can we full fine-tune llama-3-8b on 2B tokens, 3 epochs, 8x H100 at $2.80/hr? :rocket:",
    "Serve Llama 3.1 8B in int8 for 32 concurrent users with 8k context",
    "what about 40 runs?",
    "2 nodes of 8x H100, paged adamw 8bit, r=64, ZeRO-3, 40% MFU, gradient checkpointing",
    "serve mixtral at 50 qps with 200-token responses on one 48GB card, what about SageMaker?",
    "fine-tune mistral, 2 runs a week, each within 2 days, 2 nodes with 8 GPUs each",
]


def median_ms(text: str, resolver: FakeResolver, repeat: int = 200) -> float:
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        parse(text, resolver)
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def main() -> None:
    resolver = FakeResolver()
    parse("warm up", resolver)
    print("typical messages (median of 200, ms):")
    for text in TYPICAL:
        print(f"  {median_ms(text, resolver):6.3f}  {text[:70]}")
    print("\nlength scaling (median, ms; ms per 1k chars should stay flat):")
    unit = "QLoRA 70B, 500GB corpus in S3, 20 runs, try A100s and 8k context. "
    for copies in (1, 4, 16, 64, 128):
        text = unit * copies
        ms = median_ms(text, resolver, repeat=30 if copies > 16 else 100)
        print(f"  {len(text):6d} chars  {ms:8.3f} ms  {ms / len(text) * 1000:6.3f} ms/1k chars")
    chat = Conversation(resolver)
    started = time.perf_counter()
    for text in ("QLoRA 70B, 500GB corpus in S3, 20 runs", "1B", "what about 40 runs?", "try A100s", "undo"):
        chat.turn(text)
    print(f"\na five-message thread (Conversation.turn incl. questions): {(time.perf_counter() - started) * 1000:.2f} ms")


if __name__ == "__main__":
    main()
