"""Budget first, for a fine-tune: "what's the biggest model we can fine-tune for $1000?" got the help text, and "with
$50k what's the biggest model we can full fine-tune on 1B tokens?" got "Which model? Nothing can be sized without
it". Now the tokens are asked (never assumed), and with them the models are laddered as the serving budget is: each
one's cheapest run, the largest within the budget, and "size is not quality". Also the thread follow-ups that are only
a number or a duration ("what about 2 s?", "make it 50k")."""

from __future__ import annotations

import pytest

from bot.render import render_response
from bot.terminal import render_terminal
from tests.bot.answers import answered


def test_no_token_count_is_asked_not_assumed(real_advisor) -> None:
    response = real_advisor.respond(real_advisor.new_conversation(), "what's the biggest model we can fine-tune for $1000?")
    assert response.advice is None and response.ladder is None
    assert response.question_fields == ["mode", "dataset_tokens"]
    text = render_terminal(response, real_advisor.display_names())
    assert text.startswith("💰 The biggest model $1,000 a run fine-tunes depends on the tokens a run trains on")
    assert "I size GPU jobs" not in text and "Which model" not in text
    [message] = render_response(response, real_advisor.display_names())
    assert "QLoRA 70B, 500GB corpus in S3" not in message.text  # no examples under it
    out = real_advisor.contract(response)
    assert out["budget_ladder"] is None and out["report"]["tco"] is None
    assert out["questions"][1].startswith("How many tokens does a run train on")


def test_a_full_fine_tune_budget_names_the_largest_model(real_advisor) -> None:
    response, view, text = answered(real_advisor, "with $50k what's the biggest model we can full fine-tune on 1B tokens?")
    assert response.ladder is not None and {r.mode for r in response.ladder} == {"full"}
    chosen = max((r for r in response.ladder if r.within), key=lambda r: r.params_b)
    assert response.advice.effective.model == chosen.model and response.advice.effective.mode == "full"
    names = real_advisor.display_names()
    assert view.headline.startswith(f"💰 $50,000 a run on 1B tokens: with a full fine-tune, up to {names[chosen.model]}")
    assert f"${chosen.usd_per_run:,.0f} a run on {chosen.option.cluster.gpus}× " in view.headline
    assert view.notes[0].startswith("By model, each one's cheapest run: Full fine-tune: Llama 3.1 8B $")
    assert "Size is not quality" in view.notes[0]
    assert not response.questions  # neither the model nor the method is asked back
    assert "Which model" not in text
    ladder = real_advisor.contract(response)["budget_ladder"]
    assert [(r["model"], r["mode"]) for r in ladder] == [(r.model, "full") for r in response.ladder]
    assert all(r["usd_per_run"] is not None and r["hours_per_run"] is not None and r["tokens_per_s_per_user"] is None
               for r in ladder)
    assert [r["within_budget"] for r in ladder] == [r.within for r in response.ladder]


def test_no_method_said_shows_qlora_and_full_side_by_side(real_advisor) -> None:
    response, view, _ = answered(real_advisor, "what's the biggest model we can fine-tune for $1000 on 100M tokens?")
    assert [m for m in dict.fromkeys(r.mode for r in response.ladder)] == ["qlora", "full"]
    assert response.advice.effective.mode == "qlora"  # the plan shown is QLoRA's pick
    assert "; with a full fine-tune, up to " in view.headline and "with QLoRA, up to " in view.headline
    assert "QLoRA: Llama 3.1 8B $" in view.notes[0] and ". Full fine-tune: Llama 3.1 8B $" in view.notes[0]
    assert "say “full fine-tune” for that one's" in view.notes[0]
    assert not response.questions  # both methods are shown: the method is not asked


def test_a_budget_too_small_says_what_the_smallest_run_costs(real_advisor) -> None:
    response, view, _ = answered(real_advisor, "biggest model we can full fine-tune for $50 on 1B tokens")
    assert response.ladder is not None and not any(r.within for r in response.ladder)
    smallest = response.ladder[0]
    assert view.headline.startswith("💰 $50 a run on 1B tokens: with a full fine-tune, not even Llama 3.1 8B: its "
                                    f"cheapest run is ${smallest.usd_per_run:,.2f} on ")


def test_a_monthly_budget_holds_the_month_of_runs(real_advisor) -> None:
    response, view, _ = answered(real_advisor, "we have $5k a month for fine-tuning, 4 runs a month, QLoRA on 500M "
                                               "tokens, biggest model?")
    chosen = max((r for r in response.ladder if r.within), key=lambda r: r.params_b)
    assert view.headline.startswith("💰 $5,000 a month (4 runs a month) on 500M tokens: with QLoRA, up to ")
    assert f"${chosen.usd_per_run:,.0f} a run (${chosen.usd_per_month:,.0f} a month)" in view.headline


def test_the_thread_answers_the_tokens_then_the_method(real_advisor) -> None:
    conversation = real_advisor.new_conversation()
    first = real_advisor.respond(conversation, "what's the biggest model we can fine-tune for $1000?")
    tokens = real_advisor.respond(conversation, "100M tokens", first.advice)
    assert tokens.ladder is not None and {r.mode for r in tokens.ladder} == {"qlora", "full"}
    full = real_advisor.respond(conversation, "full", tokens.advice)
    assert full.ladder is not None and {r.mode for r in full.ladder} == {"full"}
    assert full.advice.effective.mode == "full" and full.changes
    named = real_advisor.respond(conversation, "ok, Llama 3.3 70B", full.advice)
    assert named.ladder is None and named.advice.effective.model == "llama-3.3-70b"


def test_an_end_to_end_latency_follow_up(real_advisor) -> None:
    conversation = real_advisor.new_conversation()
    first = real_advisor.respond(conversation, "p99 end-to-end latency under 5 s for 300-token answers, Llama 3.1 70B, "
                                               "50 users")
    on_h100 = real_advisor.respond(conversation, "on H100", first.advice)
    tighter = real_advisor.respond(conversation, "what about 2 s?", on_h100.advice)
    assert tighter.intent == "refine" and tighter.changes
    w = tighter.advice.effective
    assert w.target_ttft_s == pytest.approx(0.2) and w.target_tokens_per_s_per_user == pytest.approx(166.7)
    assert w.gpu == "h100-sxm"
    text = render_terminal(tighter, real_advisor.display_names())
    assert "I didn't understand that" not in text
    assert "the end-to-end latency 5 s → 2 s" in text


def test_a_throughput_follow_up(real_advisor) -> None:
    conversation = real_advisor.new_conversation()
    first = real_advisor.respond(conversation, "we need 20k output tokens/s for Llama 3.1 8B")
    more = real_advisor.respond(conversation, "make it 50k", first.advice)
    assert more.intent == "refine" and more.advice.effective.target_tokens_per_s == 50_000
    text = render_terminal(more, real_advisor.display_names())
    assert "I couldn't tell" not in text and "I didn't understand that" not in text
    assert "50.0k tokens/s in total" in text
