"""The reviewer's question end to end: "GRPO on Qwen2.5 7B with 8 rollouts per prompt on 10k prompts" was a full
fine-tune on 10M guessed tokens (17 min, $6.79) with a note that rollouts are not sized. The answer now says GRPO,
counts prompts x G x (prompt + completion) tokens, times the generation beside the training and costs both."""

from __future__ import annotations

from engine.rl import RL_NOTE
from tests.bot.answers import answered

REVIEWED = "GRPO on Qwen2.5 7B with 8 rollouts per prompt on 10k prompts"


def test_grpo_headline_split_and_assumptions(real_advisor) -> None:
    response, view, text = answered(real_advisor, REVIEWED)
    advice = response.advice
    assert "GRPO (full) Qwen2.5 7B" in text
    assert "only the policy's training is sized" not in text
    assert advice.effective.dataset_tokens == 10_000 * 8 * (256 + 1024)
    [line] = [n for n in view.notes if n.startswith("Rollouts ")]
    assert "one after the other" in line and "8 completions per prompt of up to 1,024 tokens" in line
    assert "beta 0" in line and "“16 generations”" in line
    assert any("How long are the completions" in q for q in response.questions)
    assert any(n.startswith(RL_NOTE) for n in advice.notes)


def test_lora_ppo_says_the_value_model(real_advisor) -> None:
    _response, _view, text = answered(real_advisor, "PPO on Qwen2.5 7B with LoRA on 10k prompts, 2k-token completions")
    assert "PPO (LoRA) Qwen2.5 7B" in text and "value model counted" in text and "not counted" not in text


def test_the_gpu_hours_say_they_hold_the_rollouts(real_advisor) -> None:
    """engine.rl adds the rollouts' GPU-hours to the run's: "(training only)" beside them misread the figure."""
    response = real_advisor.respond(real_advisor.new_conversation(),
                                    "GRPO on Qwen2.5 7B with 8 rollouts per prompt on 10k prompts")
    from bot.terminal import render_terminal

    text = render_terminal(response, real_advisor.display_names())
    assert "GPU-hours (rollouts and training)" in text and "(training only" not in text
