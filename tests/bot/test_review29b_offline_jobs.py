"""Offline generation, padding, evaluation and compute-optimal questions (review 29b), each as the user asked it, on
the real catalog, parser and engine:

- "generate 1B tokens of synthetic training data with llama 3.3 70b" planned a LoRA of the 70B: it is offline
  inference of 1B output tokens (replies of an assumed length, said so);
- "rejection sampling: 16 samples per prompt for 100k prompts …, then score them with a 70b reward model" sized one
  sample a prompt and no scoring ($21, 8.8 h): n=16 with the prompt prefix-cached, and a reward-model prefill stage;
- "… on together, h100, spot" (no priced offer) printed the deadline's 82.8 prompts/s as what 2 H100s do: they
  sustain ~4.4, and 44 GPUs meet the rate;
- "SFT … 1M examples averaging 300 tokens, we pad to 4096" ignored the padding (1.5 h): 4.1B positions, ~18 h, with
  packing named as the way back;
- "lm-eval-harness on llama 3.1 70b across 10 benchmarks (mmlu, gsm8k, …)" read gsm8k as a model; "64xH100 for 3
  days, biggest model chinchilla-optimal" asked for a model: ~7B on ~140B tokens.
"""

from __future__ import annotations

import json
from typing import Any

from bot.cli import main
from bot.limits import violations
from bot.render import render_response
from bot.terminal import render_terminal
from parser.offline_jobs import offline_ask
from parser.padding import padded_length
from tests.bot.answers import answered


def staged(advisor: Any, text: str) -> tuple[Any, None, str]:
    """(response, no view, terminal text): an answer in stages has no plan view; its Slack message is checked."""
    response = advisor.respond(advisor.new_conversation(), text)
    names = advisor.display_names()
    [message] = render_response(response, names)
    assert violations(message.blocks, text=message.text) == []
    return response, None, render_terminal(response, names)

SYNTHETIC_Q = "what would it cost to generate 1B tokens of synthetic training data with llama 3.3 70b"
SAMPLING_Q = ("rejection sampling: 16 samples per prompt for 100k prompts with llama 3.3 70b, then score them with a "
              "70b reward model. cost?")
UNPRICED_Q = ("batch inference: 50M prompts of 2k tokens, 300 token outputs, qwen2.5 72b, done within a week, on "
              "together, h100, spot")
FIXED_Q = ("batch inference: 50M prompts of 2k tokens, 300 token outputs, qwen2.5 72b, done within a week, on 2 "
           "h100s")
PADDED_Q = "SFT llama 3.1 8b on 1M examples averaging 300 tokens, we pad to 4096. how long on 8 h100s"
EVAL_Q = ("how many gpu hours to run lm-eval-harness on llama 3.1 70b across 10 benchmarks (mmlu, gsm8k, hellaswag, "
          "arc, etc)")
CHINCHILLA_Q = "we have a 64xH100 reservation for 3 days, what's the biggest model we can pretrain chinchilla-optimal"


def test_synthetic_training_data_is_offline_generation_not_a_lora(real_advisor) -> None:
    response, _, text = answered(real_advisor, SYNTHETIC_Q)
    w = response.advice.effective
    assert w.mode == "inference" and w.batch_items == 1_000_000 and w.output_tokens == 1000
    assert w.batch_items * w.output_tokens == 1e9
    assert "LoRA" not in text and "Fine-tune (QLoRA" not in text and "for the job" in text
    assert any("offline generation job" in n and "a length I assumed" in n for n in response.notes)


def test_rejection_sampling_counts_the_samples_and_the_reward_pass(real_advisor) -> None:
    response, _, text = staged(real_advisor, SAMPLING_Q)
    answer = response.offline
    assert answer is not None and answer.kind == "sampling"
    c = answer.contract
    assert c["samples"] == 16 and c["completions"] == 1_600_000
    sampling, scoring = c["sampling"], c["scoring"]
    # 16 samples a prompt: 1.6M replies, the prompt cached for 15 of them; scoring: a prefill of prompt + reply
    assert sampling["requests"] == 1_600_000 and c["reply_tokens"] == 256 and c["prompt_tokens"] == 1024
    assert scoring["requests"] == 1_600_000 and scoring["output_tokens"] == 1 and scoring["input_tokens"] == 1280
    assert scoring["params_b"] == 70
    # ~240 GPU-hours and ~$500-750, not 8.8 h and $21
    assert 150 < c["gpu_hours"] < 400 and 350 < c["total_usd"] < 1_000
    assert text.splitlines()[0].startswith("Sampling 16 completions for each of 100,000 prompts with Llama 3.3 70B, "
                                           "then scoring all 1,600,000 with a 70B reward model")
    assert "SamplingParams(n=16)" in text and "prefix" in text


def test_sampling_json_adds_its_key(capsys) -> None:
    assert main(["ask", "--json", SAMPLING_Q]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["sampling"]["samples"] == 16 and out["sampling"]["scoring"] is not None
    assert {"workload", "missing", "questions", "report", "notes", "window", "api_comparison"} <= set(out)


def test_no_priced_offer_prints_what_the_fitted_gpus_sustain(real_advisor) -> None:
    response, _, text = answered(real_advisor, UNPRICED_Q)
    speed = next(line for line in text.splitlines() if line.startswith("Speed:"))
    assert "82.8 prompts/s" not in speed and "4.4 prompts/s" in speed and "130.9 days" in speed
    problem = response.advice.problems[0].message
    assert "sustain 4.4 of the 82.8 prompts/s" in problem and "44 GPUs (11 replicas of 4) meet it" in problem
    assert "sells no spot H100" in problem
    # the same figures as the answer with the 2 GPUs fixed
    _, _, fixed = answered(real_advisor, FIXED_Q)
    assert "4.4 prompts/s" in fixed and "44 GPUs (11 replicas of 4) meet it" in fixed


def test_padding_to_4096_is_sized_as_run_and_packing_is_named(real_advisor) -> None:
    response, _, text = answered(real_advisor, PADDED_Q)
    w = response.advice.effective
    assert w.dataset_tokens == 4_096_000_000 and w.seq_len == 4096
    hours = response.advice.options[0].hours_per_run
    assert 12 < hours < 25  # ~13.7x the 1.5 h of the 300M real tokens
    assert "13.7x the 300M real tokens" in text and "packing=True" in text and "padding_free=True" in text


def test_eval_suite_is_offline_inference_from_the_benchmarks_sizes(real_advisor) -> None:
    response, _, text = staged(real_advisor, EVAL_Q)
    answer = response.offline
    assert answer is not None and answer.kind == "eval"
    c = answer.contract
    assert c["sized"] == ["mmlu", "gsm8k", "hellaswag", "arc"] and c["said_count"] == 10
    assert c["loglikelihood"]["output_tokens"] == 1 and c["generation"]["requests"] == 1319
    assert 1 < c["gpu_hours"] < 30
    assert "gsm8k" not in " ".join(response.notes).lower() and "I don't know" not in text
    assert "log-likelihood" in text.splitlines()[0] and "all 10 at the same average" in text.splitlines()[0]
    assert "--model vllm" in text


def test_chinchilla_optimal_on_a_fixed_fleet_and_window(real_advisor) -> None:
    response, _, text = staged(real_advisor, CHINCHILLA_Q)
    answer = response.offline
    assert answer is not None and answer.kind == "compute_optimal"
    c = answer.contract
    # 64 x 72 h x 989 TF x ~40% ≈ 6.6e21 FLOPs: N = sqrt(C / 120) ≈ 7B, D = 20 N ≈ 140B
    assert 4e21 < c["flops"] < 8e21 and 5.5 < c["params_b"] < 8.5 and abs(c["tokens"] - 20e9 * c["params_b"]) < 1e9
    assert 0.25 < c["mfu"] < 0.55
    assert text.splitlines()[0].startswith("64× H100 SXM5 80GB for 3.0 days pre-train a ~7")
    assert "chinchilla-optimal" not in text.lower() or "I don't know" not in text


def test_phrases() -> None:
    assert padded_length("we pad to 4096") == (4096, "pad to 4096")
    assert padded_length("padded to 4k tokens") is not None and padded_length("padded to 4k tokens")[0] == 4096
    assert padded_length("pad everything to max length 2048")[0] == 2048  # type: ignore[index]
    assert padded_length("we use 4096-token sequences") is None
    found = offline_ask("best-of-8 for 20k prompts with a 8b judge", {"batch_items": 20000, "model": "llama-3.1-8b"},
                        None)
    assert found is not None and found.sampling is not None and found.sampling.samples == 8
    assert offline_ask("grpo with 16 samples per prompt, 20k prompts", {"batch_items": 20000}, None) is None
    assert offline_ask("serve llama 3.1 70b for 50 users", {"model": "llama-3.1-70b", "concurrency": 50}, None) is None
    assert offline_ask("chinchilla optimal on 64 h100s", {"gpu": "h100-sxm", "gpu_count": 64}, None) is None
