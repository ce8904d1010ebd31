"""Answers from review 28 (items 5, 9, 10), asked as people type them (Advisor.respond on the real catalog)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.bot.answers import answered
from tests.bot.test_storage_answers import answer


def test_full_said_after_the_model_on_mi250_is_a_full_fine_tune_on_its_gcds(real_advisor) -> None:
    """'fine-tune llama 3.1 8b full on 8x MI250' answered 'LoRA Llama 3.1 8B on 8x H100', asked 'QLoRA, LoRA or a full
    fine-tune?' and said "Unknown GPU 'mi250'"."""
    response, view, text = answered(real_advisor, "fine-tune llama 3.1 8b full on 8x MI250")
    assert view.headline.startswith("✅ Fits: full fine-tune Llama 3.1 8B on 16× Instinct MI250 GCD 64GB"), view.headline
    assert "H100" not in text and "Unknown GPU" not in text
    assert not any("full fine-tune?" in q for q in response.questions), response.questions
    assert "Counted in GCDs: 8× Instinct MI250 = 16 GPUs of 64 GB" in text
    assert "give a price per GPU-hour to cost it" in text  # no public rental price: sized, its price asked


def test_an_egress_question_on_training_data_is_answered_once_and_streamed(real_advisor: Any) -> None:
    """'training data is 2TB in S3, training on Lambda, 10 runs, egress cost?' got the generic help text."""
    response, text = answer(real_advisor, "training data is 2TB in S3, training on Lambda, 10 runs, egress cost?")
    assert response.storage is not None
    assert text.startswith("Moving 2 TB from S3 to Lambda: $171 of AWS internet egress once"), text
    # 10 runs streaming it read 20 TB in a month: 10,140 GB at $0.09 and 9,760 GB at $0.085 (AWS's tiers)
    assert "$1,742 a month if each of the 10 runs streams it from S3" in text
    assert "Tiers: AWS internet egress a month, first 100 GB free, $0.09/GB to 10,240 GB" in text
    assert "aws.amazon.com/ec2/pricing/on-demand" in text
    assert "Keeping the copy on Lambda persistent filesystem: $400 a month" in text
    contract = response.storage.contract
    assert contract["runs"] == 10 and contract["streamed_usd"] == 1742.2 and contract["usd"] == 171.0


def test_an_egress_question_with_no_model_is_not_asked_which_model(real_advisor) -> None:
    """'copy 50TB dataset from GCS to CoreWeave for pretraining, egress cost?' asked 'Which model?'."""
    response, text = answer(real_advisor, "copy 50TB dataset from GCS to CoreWeave for pretraining, egress cost?")
    assert response.storage is not None and not response.questions
    # GCS premium tier: 1,024 GB at $0.12 + 9,216 GB at $0.11 + 39,760 GB at $0.08
    assert text.startswith("Moving 50 TB from GCS to CoreWeave: $4,317 of Google Cloud internet egress."), text
    assert "a run that streams it from GCS instead pays it again ($4,317 each)" in text
    assert "cloud.google.com/network-tiers/pricing" in text


def test_distill_a_into_b_prices_the_teacher_s_generation_and_the_student_s_sft(real_advisor: Any) -> None:
    """'distill llama 3.1 405b into 8b: generate 2B tokens of teacher outputs then SFT' was sized as a full fine-tune
    of the 405B on 96 B200s ($7,697 a run) and said "I don't know “into 8b”"."""
    response, text = answer(real_advisor, "distill llama 3.1 405b into 8b: generate 2B tokens of teacher outputs then SFT")
    assert response.distill is not None and "96×" not in text and "I don't know" not in text
    plan = response.distill.contract
    assert (plan["teacher"], plan["student"], plan["tokens"], plan["student_mode"]) == (
        "llama-3.1-405b", "llama-3.1-8b", 2e9, "full")
    gen, sft = plan["generation"], plan["sft"]
    assert gen["usd"] > 1000 and sft["usd"] < 1000 and plan["dominant"] == "generation"
    assert plan["total_usd"] == pytest.approx(gen["usd"] + sft["usd"], abs=0.02)
    assert text.startswith("Distilling Llama 3.1 405B into Llama 3.1 8B on 2B tokens of teacher outputs: two jobs")
    assert "1. Generate 2B tokens with Llama 3.1 405B" in text and "2. Full fine-tune of Llama 3.1 8B" in text
    assert "the teacher's generation is" in text


def test_distill_with_no_token_count_asks_for_it_and_prices_per_billion(real_advisor: Any) -> None:
    response, text = answer(real_advisor, "distill llama 3.1 70b into qwen2.5 7b with LoRA")
    assert response.distill is not None
    assert response.distill.contract["tokens_said"] is False and response.distill.contract["student"] == "qwen2.5-7b"
    assert "per 1B tokens of teacher outputs" in text and "? How many tokens will the teacher generate" in text
    assert "LoRA fine-tune of Qwen2.5 7B" in text
