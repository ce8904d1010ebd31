"""The reviewer's RL questions end to end: runs said in steps, PPO's critic and reward model, an unpriced DAPO run.

Before: "GRPO Qwen2.5 72B, group size 16, 1000 steps, 512 prompts per step, 2k-token completions" was 18.5M tokens,
29 min and $42 on 16 B200 (the run is 1,000 x 512 x 16 completions, 18.5B tokens); the 7B run in steps printed
"0 GPU-hours"; PPO was "sized critic-free"; "8 rollouts, 50k prompts, 8k completions" asked which number was the
dataset."""

from __future__ import annotations

from engine.recommendation import best_tco
from tests.bot.answers import answered


def _run_usd(response) -> float:
    advice = response.advice
    primary = next(o for o in advice.options if o.name == advice.recommendation.primary)
    t = best_tco(primary)
    assert t is not None
    return float(t.job_usd or t.per_run_usd or 0)


def test_steps_times_prompts_per_step_is_priced_as_the_whole_run(real_advisor) -> None:
    response, _view, text = answered(
        real_advisor, "GRPO Qwen2.5 72B, group size 16, 1000 steps, 512 prompts per step, 2k-token completions")
    effective = response.advice.effective
    assert effective.dataset_tokens == 1000 * 512 * 16 * (256 + 2000)
    assert "1,000 steps × 512 prompts × 16 completions × (256 + 2,000) tokens = 18.5B tokens trained" in text
    assert "18.5M" not in text
    assert _run_usd(response) > 5_000  # was $42.35: a thousand times too small
    assert "1,000 steps of 512 prompts" in text


def test_a_short_run_in_steps_is_not_zero_gpu_hours(real_advisor) -> None:
    response, _view, text = answered(
        real_advisor, "GRPO on Qwen2.5 7B, 500 steps, 64 prompts per step, 8 generations each, 1k-token completions")
    assert response.advice.effective.dataset_tokens == 500 * 64 * 8 * (256 + 1000)  # 322M, not 643k
    assert "0 GPU-hours" not in text and "Rollouts 0 min" not in text
    assert "= 322M tokens trained" in text


def test_ppo_counts_the_critic_and_the_reward_model(real_advisor) -> None:
    ppo, _view, text = answered(real_advisor, "PPO on Llama 3.1 8B with a 8B reward model, 20k prompts")
    grpo, _v, _t = answered(real_advisor, "GRPO on Llama 3.1 8B, 20k prompts")
    assert "not counted" not in text and "critic-free" not in text
    assert "value model counted" in text and "8B reward model counted" in text
    assert ppo.advice.effective.rl_reward_params_b == 8.0
    components = ppo.advice.memory.components
    assert components["critic_gb"].value > 0 and components["reward_model_gb"].value > 0
    flops = ppo.advice.throughput.training_tokens_per_s.inputs["model_flops_per_token"]
    assert flops > 2.2 * grpo.advice.throughput.training_tokens_per_s.inputs["model_flops_per_token"]


def test_k_completions_is_the_length_and_the_run_is_priced(real_advisor) -> None:
    response, _view, text = answered(real_advisor,
                                     "GRPO on Qwen2.5 32B with 8 rollouts, 50k prompts, 8k completions on 16 H100s")
    assert not any("which one did you mean" in q for q in response.questions)
    assert response.advice.effective.rl_completion_tokens == 8000
    assert "priced once the open question is answered" not in text and "per run" in text


def test_rl_without_prompts_asks_for_them(real_advisor) -> None:
    response, _view, text = answered(real_advisor, "DAPO on Qwen3 8B math, 16 samples per prompt, 20k-token completions")
    assert any(q.startswith("How many prompts does the run sample") for q in response.questions)
    assert "priced once the open question is answered" in text


def test_thread_follow_ups_set_the_batch_and_the_reward_model(real_advisor) -> None:
    """"512 prompts per step" after a run in steps is its batch (was a 512-prompt dataset, 9.2M tokens); "with an
    8B reward model" adds the reward model (was read as the model: "GRPO (full) 8B")."""
    conversation = real_advisor.new_conversation()
    first = real_advisor.respond(conversation, "GRPO on Qwen2.5 7B, 1000 steps, 2k-token completions")
    batch = real_advisor.respond(conversation, "512 prompts per step", first.advice)
    reward = real_advisor.respond(conversation, "with an 8B reward model", batch.advice)
    assert batch.advice.effective.dataset_tokens == 1000 * 512 * 8 * (256 + 2000)
    assert reward.advice.effective.model == "qwen2.5-7b" and reward.advice.effective.rl_reward_params_b == 8.0
    assert reward.advice.effective.dataset_tokens == batch.advice.effective.dataset_tokens
