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
    """Owning 8 H100s is not written down to $0: the GPUs resell for 20% after 3 years ($48k), and owning ($420k) against
    reserved ($434k) is 3% apart, inside the H100 price's own $25k-$40k spread: a close call that says what flips it
    (resale above ~$4,200 a GPU), never "owning is never the cheapest"."""
    response, view, text = answered(real_advisor, "should we buy or rent 8 H100s?")
    assert view.headline.startswith("💸 Buy or rent 8× H100 SXM5 80GB: close call, buy by 3%: over 3 years at 100% busy, "
                                    "owning costs $420k net of resale against $434k 1-3 yr reserved"), view.headline
    assert "~18 months against on-demand $2.95/GPU-hour" in view.notes[0], view.notes
    assert "resale after 3 years ~$48,000 (20% of the GPUs' price, assumed: used A100s" in view.notes[1], view.notes
    assert view.notes[2].startswith("close call: at the GPU's price spread ($25k-$40k a GPU, the range its price source "
                                    "quotes) owning costs $368k-$524k over 3 years against $434k"), view.notes
    assert "owning wins with resale above ~$4,200 a GPU (14% of its price)" in view.notes[2]
    assert "never" not in text
    assert "at 50% utilisation" in view.key_assumptions and "“no resale”, “resale 30%”" in view.key_assumptions
    assert "GPUs resold for 20% of their price at the end" in view.key_assumptions
    assert "I size GPU jobs" not in text
    contract = real_advisor.contract(response)["buy_or_rent"]
    assert contract["verdict"] == "buy" and contract["close_call"] and contract["gpus"] == 8
    assert round(contract["months_to_break_even_reserved"]) == 34
    assert contract["resale_share"] == 0.2 and contract["resale_usd"] == 48_000 and not contract["resale_said"]
    assert 4_000 < contract["resale_to_flip_usd_per_gpu"] < 4_500
    assert (contract["price_low_usd_per_gpu"], contract["price_high_usd_per_gpu"]) == (25_000, 40_000)


def test_buy_or_rent_for_years_of_training_is_the_same_break_even(real_advisor) -> None:
    """"for 3 years of training" names a use, not a workload to size: the break-even of 64 H100s, not the help text."""
    response, view, text = answered(real_advisor, "buy or rent 64 H100s for 3 years of training")
    assert "I size GPU jobs" not in text and response.buy_or_rent is not None
    assert view.headline.startswith("💸 Buy or rent 64× H100 SXM5 80GB: close call, buy by 3%: over 3 years"), \
        view.headline
    contract = real_advisor.contract(response)["buy_or_rent"]
    assert contract["gpus"] == 64 and contract["years"] == 3 and round(contract["months_to_break_even_reserved"]) == 34
    _, served, _ = answered(real_advisor, "should we buy or rent 16 H100s for inference?")
    assert served.headline.startswith("💸 Buy or rent 16× H100 SXM5 80GB: close call"), served.headline
    _, users, _ = answered(real_advisor, "buy or rent 8 H100s for serving 100 users")  # a load: the model is asked
    assert not users.headline.startswith("💸 Buy or rent 8×"), users.headline


def test_the_thread_says_the_resale(real_advisor) -> None:
    conversation = real_advisor.new_conversation()
    real_advisor.respond(conversation, "should we buy or rent 8 H100s?")
    from bot.summary import build_answer_view

    names = real_advisor.display_names()
    none = build_answer_view(real_advisor.respond(conversation, "no resale"), names)
    assert none.headline.startswith("💸 Buy or rent 8× H100 SXM5 80GB: close call, rent by 8%: over 3 years at 100% "
                                    "busy, owning costs $468k against $434k"), none.headline
    assert "no resale at the end (as you said)" in none.key_assumptions
    thirty = real_advisor.respond(conversation, "resale 30%")
    assert build_answer_view(thirty, names).headline.startswith(
        "💸 Buy or rent 8× H100 SXM5 80GB: close call, buy by 9%: over 3 years at 100% busy, owning costs $396k")
    assert real_advisor.contract(thirty)["buy_or_rent"]["resale_share"] == 0.3
    per_gpu = real_advisor.respond(conversation, "resale $10k per GPU")
    contract = real_advisor.contract(per_gpu)["buy_or_rent"]
    assert contract["resale_usd"] == 80_000 and contract["resale_said"]


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
    assert five.headline.startswith("💸 Buy or rent 8× H100 SXM5 80GB: close call, buy by 8%: over 5 years at 50% busy"), \
        five.headline
    assert "GPUs resold for 7% of their price at the end" in five.key_assumptions  # 20% at 3 years, ~40% less a year
    assert "$0.08/kWh" in five.key_assumptions


def test_buy_or_rent_with_a_model_keeps_its_form(real_advisor) -> None:
    _, view, _ = answered(real_advisor, "should I buy or rent 8 H100s for continuous fine-tuning of 70B models?")
    # the plan's note weighs the same inputs as the no-model answer: the GPUs' resale, and the price's spread
    assert view.headline.startswith("💸 Buy or rent: close call: 8× H100 SXM5 80GB pay off at 34+ months"), view.headline
