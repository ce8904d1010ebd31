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


def test_an_owner_whose_cards_run_it_sees_those_cards_compared(real_advisor) -> None:
    """The star marks the user's own cards at the precision the headline names, not 2x RTX 3090 to buy."""
    _, view, text = answered(real_advisor, "I have two 4090s, can I run Llama 3.1 70B?")
    assert [(row.role, row.name, row.winner) for row in view.comparison] == [
        ("BF16", "your 2× GeForce RTX 4090 24GB", False), ("8-bit", "your 2× GeForce RTX 4090 24GB", False),
        ("4-bit", "your 2× GeForce RTX 4090 24GB", True)]
    assert view.comparison[1].unit_cost == "needs 39.3 GB per card (does not fit)"
    assert view.comparison[2].unit_cost == "23.4 GB of 24.0 GB per card" and view.cost_label == "cost"
    assert "3090" not in text


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
    response, view, text = answered(real_advisor, "can I run DeepSeek V3 on a Mac Studio with 512GB?")
    assert view.headline.startswith("⚠️ Apple silicon is not covered"), view.headline
    assert not any("fine-tune" in q for q in response.questions), response.questions
    # 4-bit (412 GB) is within 512 GB but past macOS's default GPU share: said, not "does not fit"; no MI300X rented
    assert "at 4-bit needs 412 GB: over macOS's default ~384 GB of its 512 GB" in view.headline, view.headline
    assert any("iogpu.wired_limit_mb" in n for n in view.notes) and "RunPod" not in text and "$" not in text


@pytest.mark.parametrize("question, headline", [
    ("llama 3.1 8b inference on my macbook m3 max 64gb",
     "⚠️ Apple M3 Max is not covered (the catalog sizes GPUs); Llama 3.1 8B should fit its 64 GB at BF16 (17.8 GB): "
     "run it with llama.cpp or MLX"),
    ("can I run llama 3.1 70b on my macbook pro m3 max 36gb?",
     "⚠️ Apple M3 Max is not covered (the catalog sizes GPUs); Llama 3.1 70B does not fit its 36 GB: even 4-bit needs "
     "45.8 GB"),
    ("run qwen2.5 32b on my m2 ultra",
     "⚠️ Apple M2 Ultra is not covered (the catalog sizes GPUs); Qwen2.5 32B needs 22.4 GB of memory at 4-bit (GGUF "
     "Q4_K_M): run it with llama.cpp or MLX"),
])
def test_a_model_on_a_mac_is_a_local_answer_not_a_rental(real_advisor, question: str, headline: str) -> None:
    """"inference on my macbook m3 max 64gb" was planned on a rented L4 ($516 a month on Google Cloud), under a note
    about TPUs and Trainium; a Mac is the user's own machine: the memory the model needs against the Mac's, the runtimes
    that run it there, and nothing rented or bought instead."""
    response, view, text = answered(real_advisor, question)
    assert view.headline == headline, view.headline
    assert not response.questions, response.questions
    assert "$" not in text and "Google Cloud" not in text and "GeForce" not in text, text
    assert "TPU" not in text and "Trainium" not in text, text
    assert not view.plan and not view.cost and not view.comparison
    assert any(n.startswith("memory it needs (weights, KV cache for 4,096 tokens, runtime): BF16 ") for n in view.notes)


def test_training_on_a_mac_says_why_without_tpus(real_advisor) -> None:
    """A fine-tune on a Mac stays a training plan on GPUs (said not covered); the reason names Apple silicon, not TPUs."""
    _, view, text = answered(real_advisor, "fine-tune llama 3.1 8b on my macbook m3 max 64GB")
    assert view.headline.startswith("⚠️ Apple M3 Max is not covered; on GPUs:"), view.headline
    assert "TPU" not in text and "no figures for Apple silicon or CPUs (llama.cpp, MLX)" in text, text


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
