"""Answers about owned hardware: what to buy to run a model locally, and buy or rent with no model."""

from __future__ import annotations

from tests.bot.answers import answered


def test_run_locally_names_the_card_to_buy(real_advisor) -> None:
    response, view, text = answered(real_advisor, "what GPU do I need to run Llama 3.1 8B locally?")
    assert view.headline.startswith("🖥️ To run Llama 3.1 8B locally: 1× GeForce RTX 3090 24GB (~$700 used) at BF16"), \
        view.headline
    assert "tokens/s for you" in view.headline
    assert not response.questions  # serving for one person: neither "fine-tune or serve?" nor "how many users?"
    assert "Google Cloud" not in text and "your own 1x GeForce RTX 3090 24GB (power only)" in view.cost
    assert [row.role for row in view.comparison] == ["BF16", "8-bit", "4-bit"]
    assert any("used-market price" in n for n in view.notes), view.notes
    contract = real_advisor.contract(response)
    assert contract["local"]["pick"]["gpu"] == "rtx-3090" and contract["local"]["pick"]["purchase_usd"] == 700
    assert contract["buy_or_rent"] is None


def test_my_card_that_cannot_hold_it_says_what_does(real_advisor) -> None:
    _, view, _ = answered(real_advisor, "can I run Qwen2.5 32B on my 3090?")
    assert view.headline.startswith("❌ Not on your 1× GeForce RTX 3090 24GB: even 4-bit needs 22.1 GB"), view.headline
    assert view.notes[0].startswith("cheapest that runs it: 2× GeForce RTX 3090 24GB (~$1,400 used) at 8-bit"), view.notes


def test_a_laptop_card_the_catalog_lacks_is_said(real_advisor) -> None:
    _, view, _ = answered(real_advisor, "run deepseek r1 distill 14b on my laptop 4070 8GB")
    assert "does not fit an 8 GB RTX 4070 Laptop GPU" in view.headline, view.headline
    assert view.notes[0].startswith("the RTX 4070 Laptop GPU is not in the catalog"), view.notes


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
