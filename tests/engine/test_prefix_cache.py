"""Agents and coding assistants resend the conversation so far on every call: with the prefix cache on (vLLM's
automatic prefix caching, SGLang's RadixAttention) only the uncached tail of each prompt is prefilled, while the KV
cache still holds the whole context. "Qwen3-Coder for 40 developers using Cline, 30k-token prompts" was planned on
40 MI300X ($69,788 a month) because every 30k-token prompt was prefilled in full; one 8-GPU node serves it."""

from __future__ import annotations

import pytest

from catalog import open_catalog
from engine.advise import advise
from engine.architecture import generic_architecture
from engine.defaults import apply_defaults
from engine.models import AGENT_DEFAULT_PROMPT_TOKENS, AGENT_PREFIX_CACHE_HIT, Workload
from engine.throughput import cached_prompt_tokens, prefill_attention_flops, prefill_seconds_for
from tests.engine.fixtures_catalog import catalog_data

FIXTURE = catalog_data()
REAL = open_catalog().data()
H100 = next(g for g in FIXTURE.gpus if g.id == "h100-sxm")
CODER = "qwen3-coder-480b-a35b-instruct"


def _arch(params_b: float = 70.0):
    return generic_architecture(params_b)


def test_attention_over_a_cached_prefix_is_the_whole_prompt_less_the_prefix() -> None:
    arch = _arch()
    full = prefill_attention_flops(arch, 30_000)
    # causal: 2 x layers x L^2 x heads x head_dim
    assert full == pytest.approx(2 * arch.layers * 30_000 ** 2 * arch.heads * arch.head_dim)
    assert prefill_attention_flops(arch, 30_000, 24_000) == pytest.approx(full - prefill_attention_flops(arch, 24_000))
    # 6,000 new tokens against 30,000 of context cost (30² - 24²) / 6² = 9x the attention of 6,000 tokens alone
    assert prefill_attention_flops(arch, 30_000, 24_000) == pytest.approx(9 * prefill_attention_flops(arch, 6_000))
    assert prefill_attention_flops(arch, 30_000, 30_000) == 0.0


def test_the_cached_share_applies_to_a_prompt_length_said_only() -> None:
    said = Workload(mode="inference", params_b=70, input_tokens=30_000, prefix_cache_hit=0.8)
    assert cached_prompt_tokens(said, 30_000) == 24_000
    # no prompt length: a turn is DEFAULT_INPUT_TOKENS new tokens, its earlier turns already counted as cached
    assert cached_prompt_tokens(Workload(mode="inference", params_b=70, prefix_cache_hit=0.8), 1_024) == 0


def test_a_cached_prefix_is_not_multiplied_through_the_weights() -> None:
    arch = _arch()
    cold = Workload(mode="inference", params_b=70, input_tokens=30_000, precision="fp8")
    warm = cold.model_copy(update={"prefix_cache_hit": 0.8})
    t_cold = prefill_seconds_for(cold, arch, H100, 4, 30_000)
    t_warm = prefill_seconds_for(warm, arch, H100, 4, 30_000)
    # linear FLOPs fall to 20%; attention to 1 - 0.8^2 = 36% of the full prompt's: between the two overall
    assert 0.2 * t_cold < t_warm < 0.36 * t_cold


def test_an_agent_is_assumed_a_long_prompt_mostly_cached() -> None:
    w = Workload(mode="inference", model=CODER, concurrency=40, agentic=True)
    effective, assumptions, _ = apply_defaults(w, REAL)
    assert effective.input_tokens == AGENT_DEFAULT_PROMPT_TOKENS == 32_000
    assert effective.prefix_cache_hit == AGENT_PREFIX_CACHE_HIT == 0.8
    fields = {a.field for a in assumptions}
    assert {"input_tokens", "prefix_cache_hit"} <= fields
    # each sequence holds the whole call: prompt and reply (the chat default of 4,096 would undersize it ~8x)
    assert effective.seq_len == 32_000 + 256


def test_a_prompt_length_or_cache_share_said_is_kept() -> None:
    w = Workload(mode="inference", model=CODER, concurrency=40, agentic=True, input_tokens=30_000, prefix_cache_hit=0.95)
    effective, assumptions, _ = apply_defaults(w, REAL)
    assert (effective.input_tokens, effective.prefix_cache_hit) == (30_000, 0.95)
    assert not {"input_tokens", "prefix_cache_hit"} & {a.field for a in assumptions}


@pytest.mark.parametrize("w", [
    Workload(mode="inference", model=CODER, concurrency=40, input_tokens=30_000),  # not an agent: prompts as said
    Workload(mode="lora", model="llama-3.1-8b", dataset_tokens=10**9, agentic=True),  # training an agent model
])
def test_no_cache_share_is_assumed_where_no_agent_is_served(w: Workload) -> None:
    effective, assumptions, _ = apply_defaults(w, REAL)
    assert effective.prefix_cache_hit is None
    assert "prefix_cache_hit" not in {a.field for a in assumptions}


def test_forty_developers_on_coding_agents_fit_one_node() -> None:
    """The real catalog: prefilled whole, 40 users at 30k-token prompts take 16 B200 on 2 nodes (19.0 tokens/s, the
    assumed 20 within its slack; 40 MI300X at 20.3 before); with the agent's cache one 8-GPU node at half the bill."""
    # an agent's calls back to back (no pause between turns), with and without its prefix cache
    base = Workload(mode="inference", model=CODER, concurrency=40, input_tokens=30_000, think_time_s=0.0)
    cold = advise(base, REAL).options[0]
    warm = advise(base.model_copy(update={"agentic": True}), REAL).options[0]
    assert (cold.cluster.gpus, cold.total_usd) == (16, pytest.approx(64_240, rel=0.01))
    assert (warm.cluster.gpus, warm.cluster.nodes) == (8, 1)
    assert warm.total_usd == pytest.approx(32_120, rel=0.01)
    assert warm.throughput.decode_tokens_per_s_per_sequence.value >= 19  # the interactive floor still holds
    # the first token of a warm call: its 6,000 new tokens, not 30,000
    assert warm.throughput.ttft_s.value < 0.25 * cold.throughput.ttft_s.value
    assert warm.throughput.ttft_s.inputs["prefix_cached_tokens"] == 24_000
