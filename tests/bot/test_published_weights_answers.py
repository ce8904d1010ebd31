"""GPUs fixed that hold a model only as a 4-bit quant, in the answers: "can we run DeepSeek-V3 on 8x H100?" says in
the first message that the 8 do not hold its published FP8 and names what does (2 nodes of H100, or one of H200),
keeping the 4-bit plan and its quality check."""

from __future__ import annotations

from tests.bot.answers import answered


def test_deepseek_on_8_h100_names_the_fp8_plans_beside_the_4_bit_one(real_advisor) -> None:
    response, view, text = answered(real_advisor, "can we run DeepSeek V3 on 8x H100?")
    assert response.advice.options[0].precision == "int4" and response.advice.cluster.gpus == 8
    assert view.headline.startswith("✅ Fits in 4-bit weights only")
    line = next(n for n in view.notes if n.startswith("Weights: "))
    assert line.startswith("Weights: only 4-bit weights fit the 8 GPUs you fixed, not the published FP8: ")
    assert "check quality on your task. In FP8 as published: 16x H100 SXM5 80GB on 2 nodes ($" in line
    assert ", or 8x H200 SXM 141GB on one node ($" in line
    assert line in text


def test_a_bf16_model_says_8_bit_does_not_fit_either(real_advisor) -> None:
    _, view, _ = answered(real_advisor, "serve Qwen2.5 72B on 1x A100 80GB")
    line = next(n for n in view.notes if n.startswith("Weights: "))
    assert "fit the 1 GPU you fixed, not 8-bit or the published BF16: " in line
    assert "Without a quant: 2x A100 SXM4 80GB (FP8 weight-only, $" in line
