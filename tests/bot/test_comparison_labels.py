"""The first message's comparison rows: a cheapest row that an always-on service should not run on says why in
its label, since the sentence about it is the first the one-note budget drops when a question is open."""

from __future__ import annotations

import dataclasses
from typing import Any

from bot.caveats import HardwareKinds
from bot.summary import _comparison, _unfit_for_service
from bot.terminal import render_terminal
from engine.diff import provider_of


def _compared(text: str) -> list[str]:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Compared ("))
    return [line for line in lines[start + 1:] if line.startswith(("  * ", "  - "))]


def _row(real_advisor: Any, text: str, role: str) -> tuple[str, list[str], str]:
    """(the comparison row whose label has `role`, every row, the whole terminal answer) for a question."""
    answer = render_terminal(real_advisor.respond(real_advisor.new_conversation(), text), real_advisor.display_names())
    rows = _compared(answer)
    return next(row for row in rows if role in row), rows, answer


def test_a_marketplace_cheapest_row_for_a_service_says_no_sla(real_advisor: Any) -> None:
    cheapest, rows, _ = _row(real_advisor, "serve Mistral Small 3 24B", "cheapest")
    # an RTX 5090 on a marketplace host: both reasons, since no note under the answer repeats them
    assert cheapest.startswith("  - cheapest, GeForce, no SLA Vast.ai (marketplace)"), rows


def test_the_role_column_widens_for_a_long_label_and_keeps_names_aligned(real_advisor: Any) -> None:
    response = real_advisor.respond(real_advisor.new_conversation(), "serve Mistral Small 3 24B")
    geforce = frozenset(o.gpu for o in response.advice.options if "GeForce" in o.name)
    response = dataclasses.replace(response, hardware=HardwareKinds(consumer_gpus=geforce))  # no marketplaces known
    names = {o.name for o in response.advice.options}
    rows = _compared(render_terminal(response, real_advisor.display_names()))
    assert any(row.startswith("  - cheapest, GeForce ") for row in rows)  # 17 characters: past the usual 16
    starts = {min(row.index(n) for n in names if n in row) for row in rows}
    assert len(starts) == 1, rows  # every option name starts in the same column


def test_why_a_service_should_not_run_on_an_option(real_advisor: Any) -> None:
    response = real_advisor.respond(real_advisor.new_conversation(), "serve Mistral Small 3 24B")
    option = next(o for o in response.advice.options if "RTX 5090" in o.name)
    provider = provider_of(option)
    assert _unfit_for_service(option, None) is None
    assert _unfit_for_service(option, HardwareKinds()) is None
    assert _unfit_for_service(option, HardwareKinds(marketplaces=frozenset({provider}))) == "no SLA"
    assert _unfit_for_service(option, HardwareKinds(consumer_gpus=frozenset({option.gpu}))) == "GeForce"
    both = HardwareKinds(consumer_gpus=frozenset({option.gpu}), marketplaces=frozenset({provider}))
    assert _unfit_for_service(option, both) == "GeForce, no SLA"


def test_a_training_answer_labels_a_marketplace_cheapest_row_as_it_always_did(real_advisor: Any) -> None:
    """A restartable training run can use a marketplace host: its own line says so, the label does not."""
    response = real_advisor.respond(real_advisor.new_conversation(), "full fine-tune llama 3 8b on 2B tokens, 3 epochs")
    every = HardwareKinds(marketplaces=frozenset(provider_of(o) for o in response.advice.options),
                          consumer_gpus=frozenset(o.gpu for o in response.advice.options))
    roles = [row.role for row in _comparison(response.advice, every)]
    assert roles and not any("SLA" in r or "GeForce" in r for r in roles)


def test_a_marketplace_fastest_row_for_a_service_says_no_sla(real_advisor: Any) -> None:
    """405B in FP8 for one stream: the fastest option is 8 H200 on a marketplace host; its row says so."""
    fastest, rows, _ = _row(real_advisor, "serve Llama 3.1 405B in fp8", "fastest")
    assert fastest.startswith("  - fastest, no SLA  Vast.ai (marketplace)"), rows


def test_a_cheapest_row_both_slower_and_without_sla_says_both(real_advisor: Any) -> None:
    """70B for 40 users: the cheapest option is a marketplace host at 11.8 tokens/s per user, under the 20 the
    plan keeps; "no SLA" alone would read as a valid cheaper choice for the same speed, and "slower" as a choice
    that still keeps the speed the answer sizes for."""
    cheapest, rows, answer = _row(real_advisor, "serve meta-llama/Llama-3.3-70B-Instruct for 40 concurrent requests", "cheapest")
    assert cheapest.startswith("  - cheapest, under 20 tokens/s, no SLA Vast.ai (marketplace)"), rows
    assert not any(line.startswith("Note: The cheapest, ") for line in answer.splitlines())  # the label said it


def test_behind_an_amd_pick_the_runner_up_is_the_best_option_on_another_vendor(real_advisor: Any) -> None:
    """405B in FP8: the pick is 4 MI300X at RunPod, with "benchmark first". The runner-up is the fallback a team takes
    if ROCm disappoints: the best-ranked NVIDIA option (RunPod's 8 A100 at $9.3k), not the best from another
    provider (Crusoe's 8 A100 at $13.4k), even from the pick's own provider."""
    response = real_advisor.respond(real_advisor.new_conversation(), "serve Llama 3.1 405B in fp8")
    advice = response.advice
    amd = {g for g in {o.gpu for o in advice.options} if g.startswith("mi")}
    assert advice.options[0].gpu in amd
    runner = next(o for o in advice.options if o.name == advice.recommendation.runner_up)
    first_other_vendor = next(o for o in advice.options[1:] if o.gpu not in amd)
    assert runner.name == first_other_vendor.name, (runner.name, first_other_vendor.name)
    assert provider_of(runner) == provider_of(advice.options[0])  # here the same provider: the vendor is what differs
    # an NVIDIA pick keeps the runner-up from another provider
    nvidia = real_advisor.respond(real_advisor.new_conversation(), "serve Llama 3.1 70B on L40S for 20 users").advice
    other = next(o for o in nvidia.options if o.name == nvidia.recommendation.runner_up)
    assert provider_of(other) != provider_of(nvidia.options[0])


def test_a_runner_up_says_what_it_risks_that_the_winner_does_not(real_advisor: Any) -> None:
    """gpt-oss-20b on a 4090: the runner-up is cheaper than the winner, on a marketplace host. Its row said nothing,
    so a cheaper runner-up read as a ranking slip; "GeForce" is not said, since the winner is one too."""
    runner_up, rows, _ = _row(real_advisor, "serve gpt-oss-20b on a 4090", "runner-up")
    assert runner_up.startswith("  - runner-up, no SLA Vast.ai (marketplace)"), rows
