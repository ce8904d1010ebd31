"""Chat users pause between turns (engine.think_time, 20 s unless said): the answers the brief named, before (users
sending turn after turn with no pause) and after, and the Assumes line and `ask --json` that say so."""

from __future__ import annotations

import json

import pytest

from bot.cli import main
from tests.bot.answers import answered


def test_fifty_users_of_a_70b_on_one_h200_say_the_pause(real_advisor) -> None:  # type: ignore[no-untyped-def]
    """"serve Llama 3.1 70B for 50 users": 2 MI300X ($3,489) with no pause; one H200 ($2,555) at 22.7 tokens/s, with
    all 50 still in its batch at once, and the Assumes line says both."""
    response, view, _text = answered(real_advisor, "serve Llama 3.1 70B for 50 users")
    assert (response.advice.cluster.gpu, response.advice.cluster.gpus) == ("h200-sxm", 1)
    assert "users pause ~20 s between turns (sized for all 50 generating at once)" in view.key_assumptions
    back_to_back, _view, _ = answered(real_advisor, "serve Llama 3.1 70B for 50 users, no pause")
    assert (back_to_back.advice.cluster.gpu, back_to_back.advice.cluster.gpus) == ("mi300x", 2)
    assert "users pause" not in _view.key_assumptions
    assert back_to_back.advice.workload.think_time_s == 0.0


def test_thirty_two_users_of_an_8b_in_int8_get_more_speed_on_the_same_gpu(real_advisor) -> None:  # type: ignore[no-untyped-def]
    """"Serve Llama 3.1 8B in int8 for 32 concurrent users with 8k context": one A100 PCIe either way; 21 tokens/s
    each with no pause, 26.3 with their 1,024-token prompts 20 s apart."""
    response, view, _text = answered(real_advisor, "Serve Llama 3.1 8B in int8 for 32 concurrent users with 8k context")
    assert (response.advice.cluster.gpu, response.advice.cluster.gpus) == ("a100-pcie-80gb", 1)
    speed = response.advice.throughput.decode_tokens_per_s_per_sequence
    assert speed is not None and speed.value == pytest.approx(26.3, abs=0.05)
    assert "users pause ~20 s between turns" in view.key_assumptions


def test_ten_130k_token_rag_users_still_need_a_replica_each_for_a_5_s_p95(real_advisor) -> None:  # type: ignore[no-untyped-def]
    """"Llama 3.3 70B serving 128k context RAG, 10 users, TTFT < 5 s": the pause does not change it. A 130,816-token
    prompt prefills in 5.16 s on a TP8 GB200 group, over the target alone; with a second user on the replica, that
    user's prefills keep it 5.16 / (5.16 + 256 / 182.5 + 20) = 19.5% busy, and 19.5% of first tokens waiting behind a
    5 s prefill put the p95 far past the 10% over the prefill the closest plan allows: 10 replicas, 80 GB200."""
    response, _view, _text = answered(real_advisor, "Llama 3.3 70B serving 128k context RAG, 10 users, TTFT < 5 s")
    assert (response.advice.cluster.gpu, response.advice.cluster.gpus, response.advice.cluster.replicas) == \
        ("gb200", 80, 10)


def test_a_budget_holds_more_users_who_pause(real_advisor) -> None:  # type: ignore[no-untyped-def]
    """"we have $20k/month, how many concurrent users can we serve Llama 3.3 70B for?": 4 B200 hold about 408 users
    sending turn after turn, about 693 pausing 20 s between turns; the answer says the pause."""
    response, view, _text = answered(real_advisor,
                                     "we have $20k/month, how many concurrent users can we serve Llama 3.3 70B for?")
    assert response.capacity is not None and response.capacity.users == 693
    assert view.headline.startswith("✅ About 693 users at once on Llama 3.3 70B for ≤$20,000 a month: 4× B200"), \
        view.headline
    assert "users pause ~20 s between turns (sized for all 693 generating at once)" in view.key_assumptions


def test_ask_json_lists_the_pause(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "--json", "serve Llama 3.1 70B for 50 users"]) == 0
    data = json.loads(capsys.readouterr().out)
    [pause] = [a for a in data["assumptions"] if a["field"] == "think_time_s"]
    assert pause["value"] == 20.0 and "not back to back" in pause["why"]
    assert "think_time_s" not in data["workload"]  # not said: an assumption, not the user's
    assert main(["ask", "--json", "serve Llama 3.1 70B for 50 users, users pause 60 s between questions"]) == 0
    said = json.loads(capsys.readouterr().out)
    assert said["workload"]["think_time_s"] == 60.0
    assert not any(a["field"] == "think_time_s" for a in said["assumptions"])
