"""A total throughput said ("5000 tokens/s total throughput", "20k output tokens/s") is planned for and checked on
the Targets line, and the Speed line's "tokens/s in total" is the fleet's output at the load planned, so it agrees
with the capacity beside it. Before: 2 GH200s at 3.1k tokens/s for 5,000 with no Targets line; one L4 at 21.7
tokens/s for 20k (not read); 91.1k tokens/s in total beside 1,000 requests/s x 100 output tokens met."""

from __future__ import annotations

import re

import pytest

from tests.bot.answers import answered


def _figure(text: str, pattern: str) -> float:
    found = re.search(pattern, text)
    assert found is not None, (pattern, text)
    number = found.group(1).replace(",", "")
    return float(number[:-1]) * 1000 if number.endswith("k") else float(number)


@pytest.mark.parametrize(("question", "wanted"), [
    ("we need 5000 tokens/s total throughput for Qwen2.5 32B", "5.0k"),
    ("serve Qwen2.5 32B at 5000 tokens per second aggregate", "5.0k"),
    ("we need 20k output tokens/s for Llama 3.1 8B", "20.0k"),
])
def test_a_total_throughput_is_planned_and_checked(real_advisor, question: str, wanted: str) -> None:
    response, view, text = answered(real_advisor, question)
    [line] = [t for t in view.targets if t.startswith("total throughput")]
    assert line.startswith(f"total throughput ≥ {wanted} tokens/s: target met (capacity "), line
    capacity = _figure(line, r"capacity ([\d,]+) tokens/s")
    total = _figure(text, r"([\d.,]+k?) tokens/s in total")
    target = float(response.advice.workload.target_tokens_per_s or 0)
    assert capacity >= total >= target * 0.99, text
    targets = real_advisor.contract(response)["report"]["throughput"]["targets"]
    assert [t["name"] for t in targets] == ["target_tokens_per_s"] and targets[0]["met"], targets
    assert "Still open" not in text  # a total is a load: no "how many users?" asked back


def test_a_total_with_a_per_user_speed_meets_both(real_advisor) -> None:
    """Llama 3.3 70B at 10k tokens/s in total and 30 tokens/s per user: 2 B200s missing both, before."""
    response, view, text = answered(real_advisor, "Llama 3.3 70B, need 10,000 tokens/s total throughput, 30 tok/s per user")
    assert view.headline.startswith("✅ Fits"), view.headline
    assert any(t.startswith("per-user speed ≥ 30 tokens/s: target met") for t in view.targets), view.targets
    assert any(t.startswith("total throughput ≥ 10.0k tokens/s: target met") for t in view.targets), view.targets
    assert _figure(text, r"([\d.,]+k?) tokens/s in total") >= 10_000 * 0.99


@pytest.mark.parametrize(("question", "rate", "output"), [
    ("serve Llama 3.1 8B at 1000 requests per second, 500 prompt tokens, 100 output tokens", 1000.0, 100),
    ("serve Llama 3.1 8B at 20 QPS, 200 token outputs", 20.0, 200),
])
def test_a_rates_total_is_its_load_and_within_its_capacity(real_advisor, question: str, rate: float, output: int) -> None:
    response, view, text = answered(real_advisor, question)
    [line] = [t for t in view.targets if t.startswith("request rate")]
    capacity = _figure(line, r"capacity ([\d,.]+) requests/s")
    total = _figure(text, r"([\d.,]+k?) tokens/s in total")
    assert total == pytest.approx(rate * output, rel=0.01), text  # was 91.1k for 100k, 5.4k for 4k
    assert capacity * output >= total
    # the total the parser derives from the rate (1,000 x 100) is the rate restated: one target line, not two
    assert not any(t.startswith("total throughput") for t in view.targets), view.targets
