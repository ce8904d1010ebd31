"""The reviewer's question, end to end: "DPO on Llama 3.1 70B with 50k preference pairs" was planned as a plain full
fine-tune "sizing the policy only", at 161.9 of 162 GB per B200 without the ~17.6 GB reference share. The answer now
counts the frozen reference model, two sequences per pair and the reference forward, fits with them, and names
precompute_ref_log_probs and LoRA-DPO as the ways to drop the copy."""

from __future__ import annotations

import pytest

from engine.preference import PREFERENCE_NOTE
from tests.bot.answers import answered

REVIEWED = "DPO on Llama 3.1 70B with 50k preference pairs"


def test_full_dpo_fits_with_the_reference_counted_and_names_the_ways_out(real_advisor) -> None:
    response, view, text = answered(real_advisor, REVIEWED)
    advice = response.advice
    assert "I size the policy only" not in text and not any("policy only" in n for n in response.notes)
    assert advice.effective.objective == "dpo" and advice.effective.mode == "full"
    memory = advice.memory
    assert memory is not None and advice.cluster is not None and advice.cluster.fits
    reference = memory.components["reference_gb"].value
    assert reference > 0 and memory.per_gpu_gb <= memory.usable_gb_per_gpu
    # 50k pairs x 2 sequences x ~1,000 tokens: the question asks a sequence's length
    assert advice.effective.dataset_tokens == 100_000_000
    assert any("50,000 pairs train two sequences each" in q for q in response.questions)
    [line] = [n for n in view.notes if n.startswith("DPO: ")]
    assert f"({reference:,.1f} GB per GPU here)" in line
    assert "precompute_ref_log_probs=True" in line and "LoRA-DPO needs no copy" in line
    assert any(n.startswith(PREFERENCE_NOTE) for n in advice.notes)


def test_lora_dpo_holds_no_copy_and_says_so(real_advisor) -> None:
    response, view, text = answered(real_advisor, "LoRA DPO on Llama 3.1 70B with 50k preference pairs")
    advice = response.advice
    assert advice.effective.objective == "dpo" and advice.effective.mode in ("lora", "qlora")
    assert advice.memory is not None and "reference_gb" not in advice.memory.components
    assert any(n.startswith(("LoRA-DPO: no reference copy", "QLoRA-DPO: no reference copy")) for n in view.notes)
    assert "I size the policy only" not in text


def test_a_full_dpo_that_fits_nowhere_still_says_what_was_counted(real_advisor) -> None:
    response, view, _text = answered(real_advisor, "DPO on Llama 3.1 405B with 50k preference pairs on 8 L40S")
    assert any(n.startswith(PREFERENCE_NOTE + "DPO holds a frozen reference copy") for n in response.advice.notes)


@pytest.mark.parametrize(("text", "said"), [
    (REVIEWED, "DPO (full) Llama 3.1 70B on "),
    ("LoRA DPO on Llama 3.1 70B with 50k preference pairs", "DPO (LoRA) Llama 3.1 70B on "),
    ("full fine-tune Llama 3.1 8B on 1B tokens", "full fine-tune Llama 3.1 8B on "),
])
def test_the_headline_names_the_objective_with_the_method(real_advisor, text: str, said: str) -> None:
    _response, view, _text = answered(real_advisor, text)
    assert said in view.headline, view.headline
