"""Answers from review 28 (items 5, 9, 10), asked as people type them (Advisor.respond on the real catalog)."""

from __future__ import annotations

from tests.bot.answers import answered


def test_full_said_after_the_model_on_mi250_is_a_full_fine_tune_on_its_gcds(real_advisor) -> None:
    """'fine-tune llama 3.1 8b full on 8x MI250' answered 'LoRA Llama 3.1 8B on 8x H100', asked 'QLoRA, LoRA or a full
    fine-tune?' and said "Unknown GPU 'mi250'"."""
    response, view, text = answered(real_advisor, "fine-tune llama 3.1 8b full on 8x MI250")
    assert view.headline.startswith("✅ Fits: full fine-tune Llama 3.1 8B on 16× Instinct MI250 GCD 64GB"), view.headline
    assert "H100" not in text and "Unknown GPU" not in text
    assert not any("full fine-tune?" in q for q in response.questions), response.questions
    assert "Counted in GCDs: 8× Instinct MI250 = 16 GPUs of 64 GB" in text
    assert "power only" in text  # no public rental price: their allocation, sized and costed at power
