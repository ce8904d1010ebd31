"""Two GPUs asked about together ("is A100 or H100 cheaper per token for Llama 3.1 8B?") are both planned on the
same load and compared by what the question is about; the answer had planned an L4 (the two read as a conflict),
then the first GPU alone with a question offering the second."""

from __future__ import annotations

import pytest

from bot.summary import build_answer_view


def _view(real_advisor, text: str, conversation=None, previous=None):
    conversation = conversation or real_advisor.new_conversation()
    response = real_advisor.respond(conversation, text, previous)
    return response, build_answer_view(response, real_advisor.display_names())


def test_per_token_is_compared_with_the_gpus_full(real_advisor) -> None:
    response, view = _view(real_advisor, "is A100 or H100 cheaper per token for Llama 3.1 8B inference?")
    won, lost = response.compared
    assert (won.gpu, lost.gpu) == ("h100-sxm", "a100-sxm-80gb")
    assert won.capacity is not None and lost.capacity is not None
    assert won.usd_per_1m_tokens < lost.usd_per_1m_tokens
    # each figure is the one the engine gives that GPU asked alone at its capacity
    for plan in (won, lost):
        alone = real_advisor.respond(real_advisor.new_conversation(),
                                     f"how many users can one {plan.gpu} serve Llama 3.1 8B to?")
        assert alone.capacity is not None and alone.capacity.users == plan.capacity.users
    # read at a provider renting both (the cheapest of each anywhere is the line under it)
    assert won.shared is not None and lost.shared is not None
    assert view.headline.startswith(
        f"⚖️ H100 SXM5 80GB is cheaper per token than A100 SXM4 80GB for serving Llama 3.1 8B at "
        f"{won.shared.provider_name}: ${won.shared.usd_per_1m_tokens:,.2f} vs ${lost.shared.usd_per_1m_tokens:,.2f} "
        "per 1M output tokens with the GPUs full"), view.headline
    assert response.advice.cluster.gpu == "h100-sxm"  # the rest of the answer is the cheaper one's plan
    assert not response.questions, response.questions  # neither "which GPU" nor "how many users" is left to ask


def test_a_load_said_is_compared_by_the_month(real_advisor) -> None:
    response, view = _view(real_advisor, "compare A100 vs H100 for serving Llama 3.1 70B to 50 users")
    won, lost = response.compared
    assert won.capacity is None and won.usd_per_month <= lost.usd_per_month
    assert view.headline.startswith(f"⚖️ {'H100 SXM5 80GB' if won.gpu == 'h100-sxm' else 'A100 SXM4 80GB'} is cheaper "
                                    "than"), view.headline
    assert "a month on the same load" in view.headline


def test_training_is_compared_by_the_run(real_advisor) -> None:
    response, view = _view(real_advisor, "H100 or B200 for full fine-tuning llama 3.1 8b on 2B tokens?")
    won, lost = response.compared
    assert {won.gpu, lost.gpu} == {"h100-sxm", "b200"}
    assert won.usd_per_run <= lost.usd_per_run and won.hours_per_run and lost.hours_per_run
    assert "is cheaper per run than" in view.headline and " h vs " in view.headline


def test_the_thread_keeps_comparing_until_a_gpu_is_said(real_advisor) -> None:
    conversation = real_advisor.new_conversation()
    first, _ = _view(real_advisor, "is A100 or H100 cheaper per token for Llama 3.1 8B inference?", conversation)
    more, view = _view(real_advisor, "what about 100 users?", conversation, first.advice)
    assert more.compared is not None and more.advice.workload.concurrency == 100
    assert "a month on the same load" in view.headline, view.headline
    one, _ = _view(real_advisor, "try L40S", conversation, more.advice)
    assert one.compared is None and one.advice.cluster.gpu == "l40s"


@pytest.mark.parametrize("text", ["serve Llama 3.1 8B on H100 for 20 users", "serve Llama 3.1 8B for 20 users"])
def test_one_gpu_is_no_comparison(real_advisor, text: str) -> None:
    response, _ = _view(real_advisor, text)
    assert response.compared is None
    assert real_advisor.contract(response)["compared_gpus"] is None


def test_the_json_lists_both(real_advisor) -> None:
    response, _ = _view(real_advisor, "H100 or B200 for full fine-tuning llama 3.1 8b on 2B tokens?")
    out = real_advisor.contract(response)["compared_gpus"]
    assert [row["gpu"] for row in out] == [p.gpu for p in response.compared]
    assert out[0]["usd_per_run"] <= out[1]["usd_per_run"] and out[0]["usd_per_1m_output_tokens"] is None


def test_counted_gpus_are_compared_at_their_counts(real_advisor) -> None:
    """"8x H200 or 8x B200 for …": the second GPU kept as "8 x b200" had resolved to nothing, so the answer planned
    the H200 alone and asked the user to try the B200 themselves."""
    response, view = _view(real_advisor, "8x H200 or 8x B200 for serving DeepSeek V3 to 200 concurrent requests?")
    assert response.compared is not None, response.questions
    assert {p.gpu for p in response.compared} == {"h200-sxm", "b200"}
    assert all(p.gpus == 8 for p in response.compared)
    assert not any("one GPU at a time" in q for q in response.questions)


def test_the_one_that_keeps_the_speed_wins_over_the_cheaper_one(real_advisor) -> None:
    """8 H200 hold 200 DeepSeek-V3 users at under 20 tokens/s each; 8 B200 keep 20+ for more money: the answer is
    the B200 node with what the H200 node costs and gives, not "H200 is cheaper" over a plan too slow for chat."""
    response, view = _view(real_advisor, "8x H200 or 8x B200 for serving DeepSeek V3 to 200 concurrent requests?")
    won, lost = response.compared
    assert won.gpu == "b200" and won.usd_per_month > lost.usd_per_month
    assert lost.tokens_per_s_per_user < 20 <= won.tokens_per_s_per_user
    at = f" at {won.shared.provider_name}" if won.shared is not None else ""  # read at a provider renting both
    assert view.headline.startswith(f"⚖️ B200 180GB (HGX) for serving DeepSeek-V3 (671B MoE){at}: 8 of them keep "), \
        view.headline
    assert "8× H200 SXM 141GB cost $" in view.headline and "under 20 tokens/s per user" in view.headline
    assert response.advice.cluster.gpu == "b200"


def test_prepositions_beside_the_or_still_compare(real_advisor) -> None:
    """"on L4 or on T4" had read as two values of one field ("which one did you mean?") and planned an L40."""
    response, view = _view(real_advisor, "should I serve Llama 3.1 8B on L4 or on T4 for 20 users?")
    assert response.compared is not None, response.questions
    assert {p.gpu for p in response.compared} == {"l4", "t4"}
    assert not any("which one did you mean" in q for q in response.questions)
    # speeds differ by more than 10%, or not: shown only when they do
    won, lost = response.compared
    # the headline's figures: the two at a provider renting both where there is one
    speeds = [(p.shared or p).tokens_per_s_per_user for p in (won, lost)]
    differ = abs(speeds[0] / speeds[1] - 1) >= 0.1
    assert ("tokens/s per user)" in view.headline) == differ, view.headline


@pytest.mark.parametrize("text", ["serve Llama 3.1 8B for 20 users on an L4 or a T4",
                                  "serve Llama 3.1 8B for 20 users on a T4 or an L4"])
def test_a_side_that_cannot_hold_the_model_is_said(real_advisor, text: str) -> None:
    """One T4 (16 GB) cannot hold an 8B model with 20 users' cache; one L4 can: the comparison says both, whichever
    was named first, instead of dropping back to "I plan one GPU at a time" (or a red cross for the T4)."""
    response, view = _view(real_advisor, text)
    assert response.compared is not None, response.questions
    won, lost = response.compared
    assert (won.gpu, won.fits, lost.gpu, lost.fits) == ("l4", True, "t4", False)
    assert lost.need_gb and lost.need_gb > 16
    assert view.headline.startswith(
        f"⚖️ L4 24GB for serving Llama 3.1 8B: 1× T4 16GB cannot hold it (needs {lost.need_gb:.1f} GB per GPU); "
        "1× L4 24GB does, $"), view.headline
    # and what the one L4 gives at 20 users is said, since it is under the chat floor
    assert won.tokens_per_s_per_user < 20 and "under 20 tokens/s per user" in view.headline
    assert response.advice.cluster.gpu == "l4"
    assert real_advisor.contract(response)["compared_gpus"][1]["fits"] is False


def test_two_weight_precisions_are_compared(real_advisor) -> None:
    """"AWQ int4 vs FP8 … which is cheaper?" asked "which one did you mean?" and planned FP8 alone."""
    response, view = _view(real_advisor, "Llama 3.1 70B AWQ int4 vs FP8 on H100 for 50 concurrent requests, which is cheaper?")
    assert response.compared is not None, response.questions
    won, lost = response.compared
    assert {won.label, lost.label} == {"int4", "fp8"} and won.gpu == lost.gpu == "h100-sxm"
    assert won.usd_per_month <= lost.usd_per_month
    names = {"int4": "AWQ/GPTQ 4-bit", "fp8": "FP8"}
    assert view.headline.startswith(f"⚖️ {names[won.label]} is cheaper than {names[lost.label]} for serving Llama "
                                    "3.1 70B: $"), view.headline
    assert not any("which one did you mean" in q for q in response.questions)
    # each side is the plan asked with those weights
    alone = real_advisor.respond(real_advisor.new_conversation(),
                                 f"serve Llama 3.1 70B in {lost.label} on H100 for 50 concurrent requests")
    assert alone.advice.options[0].total_usd == pytest.approx(lost.usd_per_month)
    entries = real_advisor.contract(response)["compared_gpus"]
    assert [e["precision"] for e in entries] == [won.label, lost.label]
    assert all(e["hours_per_run"] is None for e in entries)  # serving: no run length


def test_a_gpu_comparison_names_no_precision(real_advisor) -> None:
    response, _ = _view(real_advisor, "compare A100 vs H100 for serving Llama 3.1 70B to 50 users")
    assert all(e["precision"] is None for e in real_advisor.contract(response)["compared_gpus"])


def test_when_neither_count_keeps_the_floor_both_are_planned_free(real_advisor) -> None:
    """"8x H200 or 8x B200 … what about 400 users?": both 8-GPU nodes are under 20 tokens/s a user, and the answer
    had been "H200 is cheaper" between two plans too slow to use; both are planned at the floor instead."""
    conversation = real_advisor.new_conversation()
    first, _ = _view(real_advisor, "8x H200 or 8x B200 for serving DeepSeek V3 to 200 concurrent requests?", conversation)
    more, view = _view(real_advisor, "what about 400 concurrent requests?", conversation, first.advice)
    won, lost = more.compared
    assert won.rescaled_from == lost.rescaled_from == 8
    assert won.gpus > 8 and lost.gpus > 8
    assert won.tokens_per_s_per_user >= 20 and lost.tokens_per_s_per_user >= 20
    assert won.usd_per_month <= lost.usd_per_month
    assert "at 20+ tokens/s per user: $" in view.headline and "8 of either give each user less" in view.headline


def test_the_same_cost_is_not_called_cheaper(real_advisor) -> None:
    """"fp8 or bf16 for Llama 3.1 8B on H100, 100 users": $2,154 each, headlined "FP8 is cheaper than BF16"."""
    response, view = _view(real_advisor, "fp8 or bf16 for Llama 3.1 8B on H100, 100 users")
    won, lost = response.compared
    assert won.usd_per_month == pytest.approx(lost.usd_per_month)
    assert won.tokens_per_s_per_user > lost.tokens_per_s_per_user  # the faster first at the same cost
    assert view.headline.startswith("⚖️ FP8 and BF16 cost the same for serving Llama 3.1 8B: $"), view.headline
    assert "is cheaper" not in view.headline


def test_a_comparison_on_sla_providers_says_so_beside_a_marketplace_plan(real_advisor) -> None:
    """The headline compared providers with an SLA ($200 a run) above a Cost line of $127 on Vast.ai, unexplained."""
    response, view = _view(real_advisor, "H100 or H200 for full fine-tuning llama 3.1 8b on 2B tokens?")
    assert any(p.sla_only for p in response.compared)
    assert view.headline.endswith(" with an SLA (below: the cheapest host, a marketplace)"), view.headline
