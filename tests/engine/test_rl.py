"""Online RL (GRPO, PPO critic-free) sized with its rollouts (engine.rl): the tokens trained are prompts x G x
(prompt + completion), the generation phases run at the offline job's throughput on the same GPUs and add to the run,
vLLM's colocated share is headroom, and beta > 0 counts the frozen reference. Before, "GRPO on Qwen2.5 7B with 8
rollouts per prompt on 10k prompts" was a plain fine-tune on 10M guessed tokens with no generation at all."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.advise import advise
from engine.architecture import architecture_for
from engine.defaults import apply_defaults
from engine.memory import estimate_memory
from engine.models import Workload
from engine.recommendation import best_tco, recommended
from engine.rl import RL_NOTE, completions, rollout_gpu_hours, rollouts
from engine.throughput import estimate_training, flops_per_token, training_numbers
from tests.engine.fixtures_catalog import catalog_data
from tests.engine.fixtures_physics import H100_SXM, LLAMA3_8B, workload

DATA = catalog_data()
ARCH = architecture_for(LLAMA3_8B, None)


def _rl(**kw) -> Workload:
    base = dict(objective="grpo", dataset_examples=10_000, rl_generations=8, rl_prompt_tokens=256,
                rl_completion_tokens=1024, rl_kl_beta=0.0, seq_len=1280, dataset_tokens=10_000 * 8 * 1280, headroom=0.4)
    base.update(kw)
    return workload(model="llama-3-8b", **base)


def test_defaults_count_prompts_times_g_times_prompt_plus_completion_and_leave_vllm_its_share() -> None:
    w = Workload(mode="full", model="llama-3.1-8b", objective="grpo", dataset_examples=10_000)
    effective, assumptions, _problems = apply_defaults(w, DATA)
    # TRL's num_generations 8; 1,024-token completions (not TRL's 256); 256-token prompts; beta 0
    assert (effective.rl_generations, effective.rl_completion_tokens, effective.rl_prompt_tokens) == (8, 1024, 256)
    assert effective.rl_kl_beta == 0.0
    assert effective.dataset_tokens == 10_000 * 8 * (256 + 1024) == 102_400_000
    assert effective.seq_len == 1280
    assert effective.headroom == pytest.approx(0.4)  # 30% vLLM (TRL's vllm_gpu_memory_utilization) + 10%
    said = {a.field for a in assumptions}
    assert {"rl_generations", "rl_completion_tokens", "rl_kl_beta", "dataset_tokens"} <= said


def test_said_values_are_kept() -> None:
    w = Workload(mode="lora", model="llama-3.1-8b", objective="grpo", dataset_examples=5_000, rl_generations=16,
                 rl_completion_tokens=2048, rl_kl_beta=0.04)
    effective, _a, _p = apply_defaults(w, DATA)
    assert effective.dataset_tokens == 5_000 * 16 * (256 + 2048)
    assert effective.rl_kl_beta == 0.04 and effective.seq_len == 2304


def test_sft_is_untouched() -> None:
    w = Workload(mode="full", model="llama-3.1-8b", dataset_examples=10_000)
    effective, _a, _p = apply_defaults(w, DATA)
    assert effective.dataset_tokens == 10_000_000 and effective.headroom == pytest.approx(0.1)
    assert rollout_gpu_hours(effective, ARCH, H100_SXM, 8) == 0.0


def test_rollout_hours_are_completions_over_the_offline_rate_and_add_to_the_run() -> None:
    w = _rl()
    found = rollouts(w, ARCH, H100_SXM, 8)
    assert found is not None and found.completions == completions(w) == 80_000
    assert found.tokens == 80_000 * 1024
    # hand arithmetic: hours = completions / (completions per second) / 3600, tokens/s = completions/s x 1,024
    assert found.hours == pytest.approx(80_000 / (found.tokens_per_s / 1024) / 3600, rel=1e-9)
    sft = w.model_copy(update={"objective": None})
    _tps, gh_sft, _wall = training_numbers(sft, ARCH, H100_SXM, 8)
    _tps, gh_rl, wall = training_numbers(w, ARCH, H100_SXM, 8)
    assert gh_sft is not None and gh_rl is not None and wall is not None
    assert gh_rl == pytest.approx(gh_sft + found.hours * 8, abs=0.06)  # every GPU generates, then trains
    est = estimate_training(w, ARCH, H100_SXM, 8)
    assert est.gpu_hours is not None and est.gpu_hours.value == pytest.approx(gh_rl, abs=0.06)
    assert est.gpu_hours.inputs["rollout_gpu_hours"] == pytest.approx(found.hours * 8, abs=0.01)


def test_more_generations_and_longer_completions_take_longer() -> None:
    base = rollouts(_rl(), ARCH, H100_SXM, 8)
    twice = rollouts(_rl(rl_generations=16, dataset_tokens=10_000 * 16 * 1280), ARCH, H100_SXM, 8)
    longer = rollouts(_rl(rl_completion_tokens=2048, seq_len=2304), ARCH, H100_SXM, 8)
    assert base is not None and twice is not None and longer is not None
    assert twice.hours == pytest.approx(2 * base.hours, rel=1e-9)
    assert longer.hours > 1.9 * base.hours  # twice the decode steps, each reading a longer KV cache


def test_beta_counts_the_reference_forward_and_a_full_copy() -> None:
    no_kl, kl = _rl(), _rl(rl_kl_beta=0.04)
    assert flops_per_token(no_kl, ARCH).inputs["factor"] == 6
    assert flops_per_token(kl, ARCH).inputs["factor"] == 8  # + the reference's forward 2N
    assert "reference_gb" not in estimate_memory(no_kl, ARCH, 8, zero_stage=1).components
    ref = estimate_memory(kl, ARCH, 8, zero_stage=1).components["reference_gb"].value
    assert ref == pytest.approx(ARCH.total_params * 2 / 1e9, abs=1e-3)  # a BF16 copy, unsharded below ZeRO-3
    lora = _rl(mode="lora", rl_kl_beta=0.04)
    assert flops_per_token(lora, ARCH).inputs["factor"] == 6  # 4N + the adapter-disabled base's forward
    assert "reference_gb" not in estimate_memory(lora, ARCH, 8).components


def test_the_answer_names_the_split_and_the_cost() -> None:
    advice = advise(Workload(mode="full", model="llama-3.1-8b", objective="grpo", dataset_examples=10_000), DATA)
    [note] = [n for n in advice.notes if n.startswith(RL_NOTE)]
    assert "80,000 completions per epoch (10,000 prompts x 8)" in note and "rollouts " in note
    assert "beta 0 (TRL's default)" in note and "Server mode" in note


def _run_usd(w: Workload) -> float:
    advice = advise(w, DATA)
    pick = recommended(advice.options, advice.recommendation)
    tco = best_tco(pick)
    assert tco is not None and tco.per_run_usd is not None
    return float(tco.per_run_usd)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(g=st.sampled_from([2, 4, 8, 16]), more=st.sampled_from([2, 8, 16]),
       completion=st.sampled_from([256, 1024, 4096]), mode=st.sampled_from(["full", "lora"]))
def test_more_generations_never_make_a_run_cheaper(g: int, more: int, completion: int, mode: str) -> None:
    w = Workload(mode=mode, model="llama-3.1-8b", objective="grpo", dataset_examples=2_000, rl_generations=g,
                 rl_completion_tokens=completion)
    bigger = w.model_copy(update={"rl_generations": g + more})
    assert _run_usd(bigger) >= _run_usd(w) - 1e-9
