"""Follow-ups in a distillation thread, as people type them in Slack or `gpu-advisor chat` (Advisor.respond on the
real catalog, the thread's state stored and loaded between turns as the bot does).

"distill llama 3.1 405b into 8b: generate 2B tokens of teacher outputs then SFT" is answered with two stages; its
follow-ups ("what about 4B tokens?", "try H100s") re-planned a full fine-tune of Llama 3.1 405B on 96 B200s, the one
job the thread's workload read as. A follow-up changes the distillation and is answered with the two stages again,
saying what changed against the previous answer's totals.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bot.limits import violations
from bot.render import render_response
from bot.terminal import render_terminal

ROOT = Path(__file__).resolve().parents[2]
DISTILL = "distill llama 3.1 405b into 8b: generate 2B tokens of teacher outputs then SFT"


class Thread:
    """One thread: each message answered in the stored-and-loaded state of the previous ones."""

    def __init__(self, advisor: Any) -> None:
        self.advisor = advisor
        self.state: dict[str, Any] | None = None
        self.previous: Any = None

    def say(self, text: str) -> tuple[Any, str]:
        conversation = self.advisor.load_conversation(self.state)
        response = self.advisor.respond(conversation, text, self.previous)
        self.state = conversation.to_dict()
        self.previous = response.advice
        [message] = render_response(response, self.advisor.display_names())
        assert violations(message.blocks, text=message.text) == []
        return response, render_terminal(response, self.advisor.display_names())


def _plan(response: Any) -> dict[str, Any]:
    assert response.distill is not None, "not answered as a distillation"
    return dict(response.distill.contract)


@pytest.fixture
def thread(real_advisor: Any) -> Thread:
    return Thread(real_advisor)


def test_more_tokens_then_h100s_stay_a_distillation(thread: Thread) -> None:
    """The brief's chat: "what about 4B tokens?" and "try H100s" answered 'full fine-tune Llama 3.1 405B on 96×
    B200' and '… on 224× H100'."""
    first = _plan(thread.say(DISTILL)[0])
    response, text = thread.say("what about 4B tokens?")
    more = _plan(response)
    assert "405B on" not in text and "full fine-tune Llama 3.1 405B" not in text
    assert (more["teacher"], more["student"], more["tokens"]) == ("llama-3.1-405b", "llama-3.1-8b", 4e9)
    assert more["previous_total_usd"] == first["total_usd"]
    assert more["total_usd"] > first["total_usd"] * 1.8  # both stages scale with the tokens
    assert text.startswith("Distilling Llama 3.1 405B into Llama 3.1 8B on 4B tokens of teacher outputs: two jobs")
    assert "What changed: tokens 2B → 4B; " in text
    assert f"{_usd(first['total_usd'])} → {_usd(more['total_usd'])} in all" in text
    response, text = thread.say("try H100s")
    h100 = _plan(response)
    assert h100["generation"]["gpu"] == h100["sft"]["gpu"] == "h100-sxm" and h100["tokens"] == 4e9
    assert "What changed: GPU any → H100 SXM5 80GB (both stages)" in text
    assert "1. Generate 4B tokens with Llama 3.1 405B" in text and "2. Full fine-tune of Llama 3.1 8B" in text
    assert "both stages on H100 SXM5 80GB as said" in text


def _usd(value: float) -> str:
    return f"${value:,.0f}"


def test_reply_length_provider_spot_lora_and_epochs_change_their_stage(thread: Thread) -> None:
    first = _plan(thread.say(DISTILL)[0])
    replies = _plan(thread.say("500-token replies")[0])
    assert replies["reply_tokens"] == 500 and replies["tokens"] == 2e9
    assert replies["generation"]["usd"] != first["generation"]["usd"]
    assert replies["sft"]["usd"] == first["sft"]["usd"]  # the same tokens to train on
    response, text = thread.say("on Lambda")
    lambda_ = _plan(response)
    assert lambda_["generation"]["provider"] == lambda_["sft"]["provider"] == "lambda"
    assert "provider any → Lambda (both stages)" in text
    response, text = thread.say("use spot for the generation")
    spot = _plan(response)
    assert "pricing on-demand → spot (generation)" in text
    assert spot["sft"]["pricing"] == "on_demand"
    lora = _plan(thread.say("LoRA for the student")[0])
    assert lora["student_mode"] == "lora" and lora["sft"]["mode"] == "lora" and lora["reply_tokens"] == 500
    response, text = thread.say("2 epochs")
    epochs = _plan(response)
    assert epochs["epochs"] == 2 and epochs["sft"]["hours"] == pytest.approx(2 * lora["sft"]["hours"], rel=0.1)
    assert "epochs 1 → 2" in text and "LoRA fine-tune of Llama 3.1 8B on those 2B tokens, 2 epochs" in text
    assert epochs["generation"]["usd"] == lora["generation"]["usd"]  # the teacher generates once


def test_spot_said_for_both_prices_both_and_says_why_the_generation_suits_it(thread: Thread) -> None:
    first = _plan(thread.say(DISTILL)[0])
    response, text = thread.say("use spot")
    spot = _plan(response)
    assert spot["generation"]["pricing"] == spot["sft"]["pricing"] == "spot"
    assert spot["total_usd"] < first["total_usd"]
    assert "pricing on-demand → spot (both stages)" in text
    assert "the generation restarts from the prompts it has not finished, so it is on spot" in text
    only = _plan(thread.say("spot for the generation only")[0])
    assert (only["generation"]["pricing"], only["sft"]["pricing"]) == ("spot", "on_demand")


def test_a_gpu_for_one_stage_leaves_the_other_its_own(thread: Thread) -> None:
    first = _plan(thread.say(DISTILL)[0])
    response, text = thread.say("what about H200s for the generation")
    h200 = _plan(response)
    assert h200["generation"]["gpu"] == "h200-sxm" and h200["sft"] == first["sft"]
    assert "GPU any → H200 SXM 141GB (generation)" in text


def test_undo_goes_back_one_distillation_and_another_question_leaves_it(thread: Thread) -> None:
    first = _plan(thread.say(DISTILL)[0])
    thread.say("what about 4B tokens?")
    response, text = thread.say("undo")
    back = _plan(response)
    assert back["tokens"] == 2e9 and back["total_usd"] == first["total_usd"]
    assert "What changed: tokens 4B → 2B" in text
    response, text = thread.say("serve it to 100 users")
    assert response.distill is None and response.advice is not None
    assert response.advice.effective.model == "llama-3.1-8b"  # the thread's workload: the student


def test_a_bare_token_count_answers_the_question_the_answer_asked(thread: Thread) -> None:
    response, _ = thread.say("distill llama 3.1 70b into qwen2.5 7b with LoRA")
    assert _plan(response)["tokens_said"] is False
    response, text = thread.say("4B")
    plan = _plan(response)
    assert plan["tokens_said"] is True and plan["tokens"] == 4e9 and plan["student_mode"] == "lora"
    assert "tokens none said → 4B" in text


def test_the_student_can_be_renamed_in_the_thread(thread: Thread) -> None:
    thread.say(DISTILL)
    response, text = thread.say("the student is qwen2.5 7b")
    plan = _plan(response)
    assert (plan["teacher"], plan["student"]) == ("llama-3.1-405b", "qwen2.5-7b")
    assert "student Llama 3.1 8B → Qwen2.5 7B" in text


def test_chat_over_piped_stdin_keeps_the_distillation() -> None:
    """The brief's command, as typed."""
    script = f"{DISTILL}\nwhat about 4B tokens?\ntry H100s\n"
    result = subprocess.run([sys.executable, "-m", "bot", "chat"], cwd=ROOT, input=script, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    first, tokens, h100 = result.stdout.split("\n> ")
    assert all(turn.splitlines()[1].startswith("Distilling Llama 3.1 405B into Llama 3.1 8B") for turn in (tokens, h100))
    assert "405B on 96" not in result.stdout and "405B on 224" not in result.stdout
    assert "What changed: tokens 2B → 4B" in tokens and "(both stages)" in h100


def test_ask_json_carries_both_stages_and_the_student_as_the_workload(real_advisor: Any) -> None:
    from bot.service import CONTRACT_WORKLOAD_KEYS

    payload = json.loads(json.dumps(real_advisor.contract(real_advisor.respond(real_advisor.new_conversation(),
                                                                                DISTILL)), default=str))
    assert {"workload", "missing", "questions", "assumptions", "report", "distill"} <= set(payload)
    assert set(CONTRACT_WORKLOAD_KEYS) <= set(payload["workload"])
    workload = payload["workload"]
    # was mode "full" on model llama-3.1-405b with params_b 8.0: the 405B fine-tune the answer says is not needed
    assert (workload["mode"], workload["model"], workload["params_b"], workload["dataset_tokens"]) == (
        "full", "llama-3.1-8b", 8.03, 2_000_000_000)
    plan = payload["distill"]
    for name, mode, model in (("generation", "inference", "llama-3.1-405b"), ("sft", "full", "llama-3.1-8b")):
        stage = plan[name]
        assert {"option", "gpu", "gpus", "usd", "hours", "nodes", "provider", "pricing", "mode", "model"} <= set(stage)
        assert (stage["mode"], stage["model"], stage["pricing"]) == (mode, model, "on_demand")
    assert plan["epochs"] == 1 and "changes" not in plan
    asked = real_advisor.contract(real_advisor.respond(real_advisor.new_conversation(),
                                                       "distill llama 3.1 70b into qwen2.5 7b"))
    assert asked["missing"] == ["dataset_tokens"] and asked["questions"]
