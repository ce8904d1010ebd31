"""The H800 is a catalog row, and a GPU the catalog lacks is asked about, never silently swapped.

"pretrain DeepSeek-V3 on 14.8T tokens on 2048 H800" answered "✅ Fits: pre-training DeepSeek-V3 on 2048× B200": the H800
was not in the catalog, the parser kept the count and dropped the name, and its "Unknown GPU 'h800'" note was cut from
the first message by the decision caveats. DeepSeek published 2.664M H800-hours for that run (README.md; arXiv
2412.19437), with FP8 matmuls at 4k sequences."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.bot.answers import answered

DEEPSEEK_V3_H800_HOURS = 2.664e6


def _gpu_hours(text: str) -> float:
    found = re.search(r"· ([\d.]+)M GPU-hours", text)
    assert found, text
    return float(found.group(1)) * 1e6


def test_deepseek_v3_on_2048_h800_is_planned_on_the_h800s(real_advisor: Any) -> None:
    response, view, text = answered(real_advisor, "pretrain DeepSeek-V3 on 14.8T tokens on 2048 H800")
    assert view.headline.startswith("✅ Fits: pre-training DeepSeek-V3 (671B MoE) on 2048× H800 SXM5 80GB"), view.headline
    assert "B200" not in text and "Unknown GPU" not in text
    # rented by no provider, not said to be theirs: its price asked (power alone a floor), and no rent question
    assert "No provider in the catalog rents the H800 SXM5 80GB: give a price per GPU-hour" in text
    assert "a run on your own 2048x" in text
    assert not any("yours or to rent" in q for q in response.questions), response.questions
    # BF16 at 8k sequences, 25% MFU: ~2x DeepSeek's FP8 run at 4k, which the published line says, beside the ratio
    hours = _gpu_hours(text)
    assert 1.5 * DEEPSEEK_V3_H800_HOURS < hours < 2.5 * DEEPSEEK_V3_H800_HOURS, hours
    assert "DeepSeek-V3 took 2.664M H800-hours for 14.8T tokens, 0.5x ours" in text
    assert "their run used FP8 matmuls, 4k sequences, 2,048 GPUs" in text


def test_deepseek_v3_as_they_ran_it_is_within_a_fifth_of_their_hours(real_advisor: Any) -> None:
    """Their setup said (FP8 matmuls, 4k sequences): 3.1M GPU-hours, 0.9x ours, against their 2.664M."""
    _, _, text = answered(real_advisor, "pretrain DeepSeek-V3 on 14.8T tokens on 2048 H800 in fp8 with 4k sequences")
    hours = _gpu_hours(text)
    assert DEEPSEEK_V3_H800_HOURS < hours < 1.25 * DEEPSEEK_V3_H800_HOURS, hours
    assert "0.9x ours" in text


@pytest.mark.parametrize(("text", "said"), [
    ("pretrain DeepSeek-V3 on 14.8T tokens on 2048 H900", "Unknown GPU 'h900'. Did you mean: H800 SXM5 80GB (h800)"),
    ("serve llama 3.1 70B for 20 users on 8 mi260", "Unknown GPU 'mi260'. Did you mean: Instinct MI250 GCD 64GB"),
    ("serve llama 3.1 70B for 20 users on 8 RTX 6000", "'rtx 6000' is ambiguous: which GPU? RTX 6000 Ada 48GB"),
])
def test_a_gpu_the_catalog_lacks_is_the_first_question(real_advisor: Any, text: str, said: str) -> None:
    response, view, terminal = answered(real_advisor, text)
    assert response.questions and response.questions[0].startswith(said), response.questions
    assert "Planned on the catalog's pick until you name a GPU the catalog has" in response.questions[0]
    assert view.questions[0] == response.questions[0]
    assert terminal.count(said) == 1, terminal  # asked, not also repeated as a note
    # no green tick over another GPU's plan: the headline asks, and says the plan is a stand-in
    assert view.headline.startswith("⚠️ Which GPU? Meanwhile, ") and " fits on " in view.headline, view.headline
    assert not any(said in note for note in response.notes), response.notes  # nor in the JSON's notes


def test_a_gpu_the_catalog_lacks_keeps_the_threads_gpu_and_says_so(real_advisor: Any) -> None:
    conversation = real_advisor.new_conversation()
    first = real_advisor.respond(conversation, "serve llama 3.1 70B for 20 users on 8 H100")
    response = real_advisor.respond(conversation, "what about 8 H900s?", first.advice)
    assert response.advice.workload.gpu == "h100-sxm"
    assert response.questions and response.questions[0].startswith("Unknown GPU 'h900s'"), response.questions
    assert "Planned on the thread's H100 SXM until you name a GPU the catalog has" in response.questions[0]
