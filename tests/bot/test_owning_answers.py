"""Answers about owned hardware: what to buy to run a model locally, and buy or rent with no model."""

from __future__ import annotations

import pytest

from tests.bot.answers import answered


def test_run_locally_names_the_card_to_buy(real_advisor) -> None:
    response, view, text = answered(real_advisor, "what GPU do I need to run Llama 3.1 8B locally?")
    assert view.headline.startswith("🖥️ To run Llama 3.1 8B locally: 1× GeForce RTX 4060 8GB (~$299) at 4-bit"), \
        view.headline
    assert "tokens/s for you" in view.headline
    assert not response.questions  # serving for one person: neither "fine-tune or serve?" nor "how many users?"
    assert "Google Cloud" not in text and "your own 1x GeForce RTX 4060 8GB (power only)" in view.cost
    assert [row.role for row in view.comparison] == ["BF16", "8-bit", "4-bit"]
    assert any("sized as GGUF Q4_K_M" in n and "launch price $299" in n for n in view.notes), view.notes
    assert "4,096 tokens of context" in view.key_assumptions and "10%" not in view.key_assumptions
    contract = real_advisor.contract(response)
    assert contract["local"]["pick"]["gpu"] == "rtx-4060" and contract["local"]["pick"]["purchase_usd"] == 299
    assert contract["local"]["pick"]["weights_as"] == "GGUF Q4_K_M"
    assert contract["local"]["pick"]["max_context_tokens"] > 8192
    assert contract["buy_or_rent"] is None


@pytest.mark.parametrize("question, headline", [
    ("can I run Qwen2.5 32B on my 3090?",
     "✅ Runs on your 1× GeForce RTX 3090 24GB at 4-bit (GGUF Q4_K_M): 22.4 GB of 24.0 GB per card"),
    ("can I run Qwen2.5 32B AWQ on a 4090?", "✅ Runs on 1× GeForce RTX 4090 24GB at 4-bit (AWQ/GPTQ int4): 22.1 GB"),
    ("I have two 4090s, can I run Llama 3.1 70B?", "✅ Runs on your 2× GeForce RTX 4090 24GB at 4-bit (GGUF Q4_K_M)"),
    ("can I run Llama 3.1 70B on two 3090s at 4-bit?", "✅ Runs on 2× GeForce RTX 3090 24GB at 4-bit (GGUF Q4_K_M)"),
    ("can I run Llama 3.1 8B on my RTX 4060 8GB?", "✅ Runs on your 1× GeForce RTX 4060 8GB at 4-bit (GGUF Q4_K_M)"),
])
def test_the_common_home_setups_run(real_advisor, question: str, headline: str) -> None:
    """Each was ❌ under a rented server's 10% headroom (22.1 GB of 21.6 GB usable; 7.5 of 7.2), with a second card
    to buy; they run at home, and the answer says up to what context, and asks nothing."""
    response, view, text = answered(real_advisor, question)
    assert view.headline.startswith(headline), view.headline
    assert "tokens of context" in view.headline and not response.questions, (view.headline, response.questions)
    assert "headroom" not in text and "cheapest that runs it" not in text


def test_my_card_that_cannot_hold_it_says_what_does(real_advisor) -> None:
    _, view, text = answered(real_advisor, "can I run Llama 3.1 70B on my 4090?")
    assert view.headline.startswith("❌ Not on your 1× GeForce RTX 4090 24GB: even 4-bit needs 45.8 GB"), view.headline
    assert view.notes[0].startswith("cheapest that runs it: 2× GeForce RTX 3090 24GB (~$1,400 used) at 4-bit"), view.notes
    assert "after 0% headroom" not in text


def test_a_longer_context_than_the_card_holds_is_a_warning(real_advisor) -> None:
    _, view, _ = answered(real_advisor, "can I run Qwen2.5 32B on my 3090 with 32k context?")
    assert view.headline.startswith("⚠️ Fits your 1× GeForce RTX 3090 24GB at 4-bit (GGUF Q4_K_M) with up to 10k "
                                    "tokens of context, not 32k"), view.headline


def test_a_laptop_card_the_catalog_lacks_is_said(real_advisor) -> None:
    _, view, _ = answered(real_advisor, "run deepseek r1 distill 14b on my laptop 4070 8GB")
    assert "does not fit an 8 GB RTX 4070 Laptop GPU" in view.headline, view.headline  # not the desktop 4070 12GB
    assert view.notes[0].startswith("the RTX 4070 Laptop GPU is not in the catalog"), view.notes
    _, twelve, _ = answered(real_advisor, "run deepseek r1 distill 14b on my laptop 4080 12GB")
    assert twelve.headline.startswith("✅ DeepSeek-R1-Distill-Qwen 14B should fit your RTX 4080 Laptop GPU (12 GB) "
                                      "at 4-bit (GGUF Q4_K_M)"), twelve.headline


def test_a_mac_is_said_not_covered_without_asking_the_mode(real_advisor) -> None:
    response, view, _ = answered(real_advisor, "can I run DeepSeek V3 on a Mac Studio with 512GB?")
    assert view.headline.startswith("⚠️ Apple silicon is not covered"), view.headline
    assert not any("fine-tune" in q for q in response.questions), response.questions


def test_buy_or_rent_with_no_model_is_the_break_even(real_advisor) -> None:
    response, view, text = answered(real_advisor, "should we buy or rent 8 H100s?")
    assert view.headline.startswith("💸 Buy or rent 8× H100 SXM5 80GB: rent: over 3 years at 100% busy"), view.headline
    assert "~25 months against on-demand $2.95/GPU-hour" in view.notes[0], view.notes
    assert "at 50% utilisation" in view.key_assumptions
    assert "I size GPU jobs" not in text
    contract = real_advisor.contract(response)
    assert contract["buy_or_rent"]["verdict"] == "rent" and contract["buy_or_rent"]["gpus"] == 8
    assert round(contract["buy_or_rent"]["months_to_break_even_reserved"]) == 40


def test_a_dgx_is_eight_gpus(real_advisor) -> None:
    _, view, _ = answered(real_advisor, "is it cheaper to buy a DGX H100 or rent one?")
    assert view.headline.startswith("💸 Buy or rent 8× H100 SXM5 80GB"), view.headline


def test_the_thread_changes_the_assumptions(real_advisor) -> None:
    conversation = real_advisor.new_conversation()
    real_advisor.respond(conversation, "should we buy or rent 8 H100s?")
    from bot.summary import build_answer_view

    names = real_advisor.display_names()
    half = build_answer_view(real_advisor.respond(conversation, "at 50% utilisation"), names)
    assert "at 50% busy" in half.headline and "on-demand" in half.headline, half.headline
    real_advisor.respond(conversation, "$0.08/kWh")
    five = build_answer_view(real_advisor.respond(conversation, "over 5 years"), names)
    assert five.headline.startswith("💸 Buy or rent 8× H100 SXM5 80GB: buy: over 5 years at 50% busy"), five.headline
    assert "$0.08/kWh" in five.key_assumptions


def test_buy_or_rent_with_a_model_keeps_its_form(real_advisor) -> None:
    _, view, _ = answered(real_advisor, "should I buy or rent 8 H100s for continuous fine-tuning of 70B models?")
    assert view.headline.startswith("💸 Buy or rent: rent, unless 8× H100 SXM5 80GB stay busy 40+ months"), view.headline
