"""Serving targets, training intent and deadlines: the arithmetic of each phrasing (Hypothesis), the
panel's questions, and the refinements a thread makes to them."""

from __future__ import annotations

import pytest
from fake_resolver import FakeResolver
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.models import BUSY_HOUR_FACTOR
from parser import Conversation, parse

RESOLVER = FakeResolver()
whole = st.integers(min_value=1, max_value=100_000)


@settings(max_examples=80, deadline=None)
@given(whole, st.sampled_from(["{n} ms per token", "{n}ms per token", "tpot {n}ms", "inter-token latency {n} ms",
                               "p50 latency under {n}ms per token", "decode latency {n} ms"]))
def test_time_per_token_is_the_per_user_speed(n: int, template: str) -> None:
    reading = parse(template.format(n=n), RESOLVER)
    assert reading.updates["target_tokens_per_s_per_user"] == pytest.approx(1000 / n, rel=1e-5)
    assert reading.updates["mode"] == "inference" and reading.updates["intent"] == "serve"


@settings(max_examples=80, deadline=None)
@given(whole, st.sampled_from([("time to first token under {n} ms", 1e-3), ("ttft {n}ms", 1e-3),
                               ("TTFT < {n}s", 1.0), ("first token within {n} seconds", 1.0)]))
def test_time_to_first_token_in_seconds(n: int, case: tuple[str, float]) -> None:
    template, unit_s = case
    assert parse(template.format(n=n), RESOLVER).updates["target_ttft_s"] == pytest.approx(n * unit_s, rel=1e-6)


@settings(max_examples=80, deadline=None)
@given(whole, st.sampled_from(["tokens/s per user", "tok/s each", "tokens per second per stream"]))
def test_a_speed_per_user_is_not_the_aggregate(n: int, unit: str) -> None:
    updates = parse(f"{n} {unit}", RESOLVER).updates
    assert updates["target_tokens_per_s_per_user"] == n and "target_tokens_per_s" not in updates


@settings(max_examples=80, deadline=None)
@given(whole, st.sampled_from([("requests per second", 1), ("rps", 1), ("qps", 1), ("requests per minute", 60),
                               ("requests a day", 86400)]),
       st.one_of(st.none(), st.integers(min_value=1, max_value=20_000)))
def test_a_request_rate_is_kept_and_times_the_response_length_is_the_aggregate(
        n: int, rate: tuple[str, int], output_tokens: int | None) -> None:
    unit, seconds = rate
    busy = BUSY_HOUR_FACTOR if unit.endswith("day") else 1.0  # a count a day is sized at its busy hour
    text = f"{n} {unit}" + (f", {output_tokens} output tokens each" if output_tokens else "")
    updates = parse(text, RESOLVER).updates
    assert updates["requests_per_s"] == pytest.approx(n / seconds * busy, rel=1e-5, abs=1e-6)
    if output_tokens:
        assert updates["output_tokens"] == output_tokens
        assert updates["target_tokens_per_s"] == pytest.approx(n / seconds * busy * output_tokens, rel=1e-5, abs=1e-3)
    else:
        assert "target_tokens_per_s" not in updates


@pytest.mark.parametrize(("text", "hours"), [("done in 2 hours", 2), ("within a week", 168), ("in 3 days", 72),
                                             ("by tomorrow", 24), ("overnight", 12), ("within 2 months", 1460)])
def test_deadlines(text: str, hours: float) -> None:
    assert parse(text, RESOLVER).updates == {"deadline_hours": hours}


@pytest.mark.parametrize("text", ["fine-tune llama 3 8b", "finetune it", "train on our data", "adapt mistral 7b to our domain"])
def test_training_without_a_method_is_intent_train_and_never_inference(text: str) -> None:
    turn = Conversation(RESOLVER).turn(text)
    assert turn.workload.intent == "train" and turn.workload.mode is None
    assert turn.questions[0].field == "mode"


@pytest.mark.parametrize("text", ["SFT llama 3 8b", "instruction-tune llama 3 8b", "supervised fine-tuning of mistral 7b"])
def test_sft_is_sized_as_a_full_fine_tune_and_the_method_asked(text: str) -> None:
    """TRL's SFTTrainer trains every weight unless given a LoRA config: SFT with no method is sized as a full
    fine-tune (it was sized as LoRA while the method was asked), and the method is still asked."""
    turn = Conversation(RESOLVER).turn(text)
    assert turn.workload.intent == "train" and turn.workload.mode == "full"
    assert turn.questions[0].field == "mode" and "Sized as a full fine-tune" in turn.questions[0].text
    assert Conversation(RESOLVER).turn(f"LoRA {text}").workload.mode == "lora"


@pytest.mark.parametrize("text", ["serve llama 3 8b", "deploy phi-3-mini", "host llama 3 8b", "inference on mistral 7b",
                                  "a llama 3 8b endpoint"])
def test_serving_words_are_intent_serve(text: str) -> None:
    updates = parse(text, RESOLVER).updates
    assert updates["intent"] == "serve" and updates["mode"] == "inference"


# The panel's questions (users' Slack wording): only the fields this work reads are checked, so a name the
# catalog learns later ("Llama 3.3") does not move these.
PANEL = [
    ("serve Llama 3.3 70B for 100 concurrent users at 8k context, p50 latency under 50ms per token",
     {"mode": "inference", "intent": "serve", "concurrency": 100, "seq_len": 8192, "target_tokens_per_s_per_user": 20}),
    ("inference Llama 3.1 8B at 1000 requests per second", {"mode": "inference", "requests_per_s": 1000}),
    ("serve Llama 3.1 8B for 5000 concurrent users", {"mode": "inference", "concurrency": 5000}),
    ("continued pretraining of Llama 3.1 8B on 50B tokens of code, done in a week",
     {"mode": "pretrain", "intent": "train", "dataset_tokens": 50_000_000_000, "deadline_hours": 168}),
    ("fine-tune llama 3.1 70b", {"intent": "train"}),
    ("fine-tune a 10 trillion parameter model on 1 token", {"intent": "train", "params_b": 10_000, "dataset_tokens": 1}),
    ("QLoRA 70B on 1e15 tokens", {"mode": "qlora", "params_b": 70, "dataset_tokens": 10**15}),
    ("serve Llama 3.1 70B for 32 users, reserved pricing", {"mode": "inference", "concurrency": 32, "pricing": "reserved"}),
    ("pretrain a 13B model on 1T tokens using spot instances", {"mode": "pretrain", "pricing": "spot"}),
]


@pytest.mark.parametrize(("text", "expected"), PANEL, ids=[t[:40] for t, _ in PANEL])
def test_panel_questions(text: str, expected: dict[str, object]) -> None:
    updates = parse(text, RESOLVER).updates
    assert {k: updates.get(k) for k in expected} == expected
    assert "mode" in updates or updates.get("intent") == "train"


def test_fine_tune_is_never_sized_as_serving() -> None:
    updates = parse("fine-tune llama 3.1 70b", RESOLVER).updates
    assert "mode" not in updates and updates["intent"] == "train"


def test_refinements_of_serving_targets_in_a_thread() -> None:
    chat = Conversation(RESOLVER)
    chat.turn("serve llama 3 70b for 100 concurrent users")
    turn = chat.turn("what about 50 ms per token?")
    assert turn.intent == "refine" and turn.changed == {"target_tokens_per_s_per_user": (None, 20)}
    turn = chat.turn("make it 2000 users")
    assert turn.changed == {"concurrency": (100, 2000)}
    turn = chat.turn("at 200 requests per second")
    assert turn.changed == {"requests_per_s": (None, 200)}
    turn = chat.turn("with 300 output tokens each")  # the rate said before and the length now: the aggregate
    assert turn.workload.target_tokens_per_s == 60_000
    turn = chat.turn("ttft under 1s")
    assert turn.changed == {"target_ttft_s": (None, 1)}
    assert chat.workload.mode == "inference" and chat.workload.target_tokens_per_s_per_user == 20
    turn = chat.turn("undo")
    assert turn.workload.target_ttft_s is None


def test_switching_a_serving_thread_to_training_asks_the_method() -> None:
    chat = Conversation(RESOLVER)
    chat.turn("serve llama 3 70b for 100 concurrent users")
    turn = chat.turn("fine-tune it instead")
    assert turn.workload.intent == "train" and turn.workload.mode is None
    assert turn.questions[0].text == "QLoRA, LoRA or a full fine-tune?"
    turn = chat.turn("qlora")
    assert turn.workload.mode == "qlora" and turn.workload.intent == "train"


def test_a_new_training_description_replaces_a_serving_scenario() -> None:
    chat = Conversation(RESOLVER)
    chat.turn("serve llama 3 8b for 100 concurrent users")
    turn = chat.turn("fine-tune llama 3 70b")
    assert turn.workload.model == "llama-3-70b" and turn.workload.concurrency is None and turn.workload.mode is None


def test_a_price_question_leaves_the_thread_alone() -> None:
    chat = Conversation(RESOLVER)
    chat.turn("QLoRA 70B on 1B tokens")
    before = chat.workload
    turn = chat.turn("how much is an H100 on AWS?")
    assert turn.intent == "prices" and turn.changed == {} and chat.workload == before
    assert turn.reading is not None and turn.reading.gpu_family[0] == "h100-sxm"
    assert "h100-pcie" in turn.reading.gpu_family


def test_requests_a_day_are_sized_at_a_busy_hour_with_a_note() -> None:
    """1M requests a day were sized at 11.6 requests/s, the day's average, where a token load a day gets its busy
    hour (engine.models.load_peak_factor): the quiet night hours were in the average."""
    reading = parse("serve Llama 3.1 70B at 1M requests per day, 500 tokens in, 300 out", RESOLVER)
    assert reading.updates["requests_per_s"] == pytest.approx(1e6 / 86400 * BUSY_HOUR_FACTOR, rel=1e-6)
    assert reading.updates["target_tokens_per_s"] == pytest.approx(1e6 / 86400 * BUSY_HOUR_FACTOR * 300, rel=1e-6)
    assert any("sized for a busy hour at 2x the day's average, 23 requests/s; say “peak 12 requests/s”" in n
               for n in reading.notes), reading.notes


def test_requests_a_day_offline_are_the_average() -> None:
    reading = parse("summarize 1M requests a day offline with llama 3.1 8b, 300 output tokens", RESOLVER)
    assert reading.updates["requests_per_s"] == pytest.approx(1e6 / 86400, rel=1e-6)
    assert any("on average, processed offline" in n for n in reading.notes), reading.notes
