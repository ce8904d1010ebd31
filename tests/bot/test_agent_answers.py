"""Coding agents in the first message: the prefix-cache share is an assumption said on the Assumes line, the
prompt length is asked, and a model the catalog lacks is named before the FP8 reminder even when a question takes
a note's line. The real catalog, parser and engine answer."""

from __future__ import annotations

from bot.summary import build_answer_view


def _view(real_advisor, text: str):
    response = real_advisor.respond(real_advisor.new_conversation(), text)
    return response, build_answer_view(response, real_advisor.display_names())


def test_the_assumed_cache_share_is_on_the_assumes_line(real_advisor) -> None:
    response, view = _view(real_advisor, "serve Qwen3-Coder 480B for 40 developers at once using Cline, 30k-token prompts")
    assert "80% of each prompt in the prefix cache" in view.key_assumptions, view.key_assumptions
    assert "30,000-token prompts, 256-token replies" in view.key_assumptions
    winner = response.advice.options[0]
    assert (winner.cluster.gpus, winner.cluster.nodes) == (8, 1)  # was 40 MI300X over 5 nodes


def test_a_cache_share_said_is_not_restated_as_assumed(real_advisor) -> None:
    _response, view = _view(real_advisor, "serve Qwen3-Coder 480B for 40 developers using Cline, 30k-token prompts, "
                                          "95% prefix cache hits")
    assert "prefix cache" not in view.key_assumptions


def test_an_unlisted_moe_is_named_ahead_of_the_fp8_reminder(real_advisor) -> None:
    """"Qwen3-Coder-30B-A3B" was sized as a dense 30B (Qwen2.5-Coder 32B read as a slip of its name), and with two
    questions open the note saying so gave way to the FP8 reminder."""
    response, view = _view(real_advisor, "serve Qwen3-Coder-30B-A3B for our 10 developers using Cursor")
    assert response.advice.workload.model == "qwen3-coder-30b-a3b"
    assert any("agent call's prompt" in q for q in response.questions), response.questions
    assert view.notes and view.notes[0].startswith("qwen3-coder-30b-a3b is not in the catalog: sized as an MoE of 30B "
                                                   "total / 3B active"), view.notes


def test_long_prompts_sent_whole_say_they_set_the_gpu_count(real_advisor) -> None:
    """"serve Qwen2.5 72B for 10 users with 128k-token prompts": 40 MI300X for 10 users with no word why; each
    27 s prefill holds up the others on its replica, so replicas are small and many."""
    response, view = _view(real_advisor, "serve Qwen2.5 72B for 10 users with 128k-token prompts")
    line = next((n for n in view.notes if n.startswith("Prefill-bound: each 128,000-token prompt takes ")), None)
    assert line is not None and "“90% prefix cache hits”" in line, view.notes
    cached = real_advisor.respond(real_advisor.new_conversation(),
                                  "serve Qwen2.5 72B for 10 users with 128k-token prompts, 90% prefix cache hits")
    assert cached.advice.options[0].cluster.gpus < response.advice.options[0].cluster.gpus
    _short, short_view = _view(real_advisor, "serve Llama 3.1 8B for 10 users with 2k-token prompts")
    assert not any(n.startswith("Prefill-bound") for n in short_view.notes)
