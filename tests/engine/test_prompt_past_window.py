"""Prompts longer than the model's context window: the KV cache was capped at the window while the prefill kept the
whole prompt (211 s for a 1M-token prompt to Qwen2.5 7B, whose window is 131k), and nothing said the model cannot read
it. Now a problem says so, and the figures are for prompts cut to the window."""

from __future__ import annotations

from catalog import open_catalog
from engine.advise import advise
from engine.models import Workload

REAL = open_catalog().data()


def test_a_prompt_past_the_window_is_a_problem_and_is_cut_to_it() -> None:
    w = Workload(mode="inference", model="qwen2.5-7b", concurrency=10, input_tokens=1_000_000)
    advice = advise(w, REAL)
    (problem,) = [p for p in advice.problems if p.code == "exceeds_context"]
    assert problem.field == "input_tokens"
    assert problem.message.startswith("1,000,000-token prompts exceed Qwen2.5 7B's context of 131,072 tokens")
    window = advise(w.model_copy(update={"input_tokens": 131_072 - 256}), REAL)
    assert advice.effective.input_tokens == window.effective.input_tokens == 131_072 - 256
    assert advice.throughput.ttft_s.value == window.throughput.ttft_s.value


def test_a_prompt_inside_the_window_is_not() -> None:
    w = Workload(mode="inference", model="qwen2.5-7b", concurrency=10, input_tokens=100_000)
    assert not [p for p in advise(w, REAL).problems if p.code == "exceeds_context"]
