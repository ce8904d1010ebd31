"""A thread: questions only for what matters, bare answers, refinements old -> new, undo, storage."""

from __future__ import annotations

import json

import pytest

from engine.models import Workload
from parser import EXAMPLES, HELP_TEXT, Conversation, questions_for


@pytest.fixture
def chat(resolver) -> Conversation:
    return Conversation(resolver)


def test_seed_request_answers_at_once_and_asks_only_about_tokens(chat: Conversation) -> None:
    turn = chat.turn("QLoRA 70B, 500GB corpus in S3, 20 runs")
    assert turn.intent == "describe"
    assert turn.workload.mode == "qlora" and turn.workload.params_b == 70
    assert [q.field for q in turn.questions] == ["dataset_tokens"]  # 500 GB -> ~125B tokens: worth checking
    assert any("125B tokens" in a for a in turn.assumptions)
    assert any("1 epoch" in a for a in turn.assumptions)


def test_bare_size_answers_the_tokens_question_not_the_model(chat: Conversation) -> None:
    chat.turn("QLoRA 70B, 500GB corpus in S3, 20 runs")
    turn = chat.turn("1B")
    assert turn.intent == "answer"
    assert turn.changed == {"dataset_tokens": (None, 1_000_000_000)}
    assert turn.workload.params_b == 70


def test_bare_number_answers_the_pending_question(chat: Conversation) -> None:
    chat.turn("full fine-tune llama-3-8b on 2TB")
    assert chat.pending and chat.pending[0].field == "dataset_tokens"
    turn = chat.turn("3")
    assert turn.workload.dataset_tokens == 3_000_000_000
    assert any("3B tokens" in n for n in turn.notes)


def test_yes_answers_a_yes_no_question(resolver) -> None:
    from parser.questions import Question

    chat = Conversation(resolver, Workload(mode="qlora", params_b=70))
    chat.pending = [Question(field="cache_dataset", text="Cache the data?", why="egress")]
    turn = chat.turn("yes")
    assert turn.workload.cache_dataset is True
    assert turn.intent == "answer"


def test_at_most_two_questions_and_only_essentials_for_an_empty_request(chat: Conversation) -> None:
    turn = chat.turn("we want to train something")
    assert [q.field for q in turn.questions] == ["mode", "model"]
    assert "pretrain" in turn.questions[0].text


def test_small_corpus_is_assumed_not_asked() -> None:
    questions = questions_for(Workload(mode="lora", params_b=8, dataset_gb=4, data_location="aws"))
    assert questions == []


def test_inference_does_not_ask_about_data() -> None:
    assert [q.field for q in questions_for(Workload(mode="inference", model="llama-3-8b"))] == ["concurrency"]
    assert questions_for(Workload(mode="inference", model="llama-3-8b", concurrency=8)) == []


@pytest.mark.parametrize("load", [{"concurrency": 50}, {"requests_per_s": 10.0, "output_tokens": 200},
                                  {"target_tokens_per_s": 3000.0}])
def test_serving_asks_for_the_load_until_one_is_given(load: dict[str, float]) -> None:
    [question] = questions_for(Workload(mode="inference", model="llama-3-8b"))
    assert question.field == "concurrency" and "users at once (or requests per second)" in question.text
    assert "1 stream" in question.text  # the figures shown meanwhile are for one stream, and it says so
    assert questions_for(Workload(mode="inference", model="llama-3-8b", **load)) == []


def test_the_load_question_is_asked_once_and_a_bare_number_answers_it(resolver) -> None:
    chat = Conversation(resolver)
    first = chat.turn("serve llama 3 8b")
    assert [q.field for q in first.questions] == ["concurrency"]
    answered = chat.turn("40")
    assert answered.workload.concurrency == 40 and answered.questions == ()
    ignored = Conversation(resolver)
    ignored.turn("serve llama 3 8b")
    assert ignored.turn("in fp8").questions == ()  # not asked again: the 1-stream assumption stands


def test_ignored_optional_question_is_not_asked_again(chat: Conversation) -> None:
    chat.turn("QLoRA 70B, 500GB corpus in S3, 20 runs")
    turn = chat.turn("what about 40 runs?")
    assert turn.questions == ()


@pytest.mark.parametrize(
    ("follow_up", "field", "new"),
    [
        ("what about 40 runs?", "runs_per_month", 40),
        ("try A100s", "gpu", "a100-sxm-80gb"),
        ("use int4", "precision", "int4"),  # int8 on QLoRA is asked about: test_conversation_switch.py
        ("cache the data", "cache_dataset", True),
        ("make it 3 epochs", "epochs", 3),
        ("and with 8k context?", "seq_len", 8192),
        ("on GCP instead", "provider", "gcp"),
        ("spot pricing", "pricing", "spot"),
        ("what about SageMaker?", "provider", "sagemaker"),
        ("it has to finish within 2 weeks", "deadline_hours", 336),
        ("what about 2 runs a week?", "runs_per_month", 2 * 365 / 12 / 7),
        ("what about 4 nodes?", "nodes", 4),
    ],
)
def test_refinement_changes_one_field(chat: Conversation, follow_up: str, field: str, new) -> None:
    first = chat.turn("QLoRA 70B, 500GB corpus in S3, 20 runs")
    turn = chat.turn(follow_up)
    assert turn.intent == "refine"
    assert turn.changed == {field: (getattr(first.workload, field), new)}
    assert "→" in turn.message


def test_new_model_replaces_the_bare_size(chat: Conversation) -> None:
    chat.turn("QLoRA 70B, 500GB corpus in S3")
    turn = chat.turn("try llama-3-8b")
    assert turn.changed["model"] == (None, "llama-3-8b")
    assert turn.changed["params_b"] == (70, None)


def test_undo_restores_the_previous_scenario(chat: Conversation) -> None:
    chat.turn("QLoRA 70B, 500GB corpus in S3, 20 runs")
    chat.turn("what about 40 runs?")
    chat.turn("use int4")
    turn = chat.turn("undo")
    assert turn.intent == "undo" and turn.changed == {"precision": ("int4", None)}
    turn = chat.turn("undo")
    assert turn.workload.runs_per_month == 20


def test_undo_with_nothing_to_undo(chat: Conversation) -> None:
    assert chat.turn("undo").message == "Nothing to undo yet."


def test_conflict_is_pointed_out_not_resolved(chat: Conversation) -> None:
    turn = chat.turn("QLoRA 70B full fine-tune")
    assert turn.workload.mode is None
    assert turn.questions[0].field == "mode"
    assert "qlora" in turn.questions[0].text and "full fine-tune" in turn.questions[0].text
    assert chat.turn("qlora").workload.mode == "qlora"


def test_hardware_conflict_asks_about_both(chat: Conversation) -> None:
    turn = chat.turn("QLoRA 70B, 8 H100s on 4 A100s")
    assert {c.field for c in turn.conflicts} == {"gpu", "gpu_count"}
    assert len(turn.questions) == 2
    assert turn.workload.gpu is None


def test_gibberish_gets_help_with_three_examples(chat: Conversation) -> None:
    turn = chat.turn("the quick brown fox")
    assert turn.intent == "gibberish"
    assert turn.message == HELP_TEXT and len(EXAMPLES) == 3
    assert turn.workload == Workload()


def test_examples_in_help_are_understood(resolver) -> None:
    for example in EXAMPLES:
        turn = Conversation(resolver).turn(example)
        assert turn.intent == "describe" and len(turn.changed) >= 3, example


def test_a_new_job_in_the_thread_starts_a_new_scenario(chat: Conversation) -> None:
    chat.turn("QLoRA 70B, 500GB corpus in S3, 20 runs")
    turn = chat.turn("serve llama-3-8b for 32 concurrent users")
    assert turn.workload.dataset_gb is None and turn.workload.model == "llama-3-8b"
    assert chat.turn("undo").workload.params_b == 70


def test_round_trips_through_json(chat: Conversation, resolver) -> None:
    chat.turn("QLoRA 70B, 500GB corpus in S3, 20 runs")
    chat.turn("try A100s")
    stored = json.loads(json.dumps(chat.to_dict()))
    again = Conversation.from_dict(stored, resolver)
    assert again.workload == chat.workload and again.history == chat.history
    assert [q.field for q in again.pending] == [q.field for q in chat.pending]
    assert again.turn("undo").workload.gpu is None


def test_unknown_model_with_a_size_is_sized_generically(chat: Conversation) -> None:
    turn = chat.turn("qlora on gpt-7 13b with 1B tokens")
    assert turn.workload.params_b == 13
    assert "gpt-7 13b" in turn.message


def test_memory_constraint_and_named_gpu_replace_each_other(chat: Conversation) -> None:
    turn = chat.turn("QLoRA 70B on one 24GB card")
    assert turn.workload.gpu_memory_gb == 24 and turn.workload.gpu is None and turn.workload.gpu_count == 1
    turn = chat.turn("try A100s")
    assert turn.changed["gpu_memory_gb"] == (24, None) and turn.workload.gpu == "a100-sxm-80gb"
    turn = chat.turn("what about a 48GB GPU?")
    assert turn.changed["gpu"] == ("a100-sxm-80gb", None) and turn.workload.gpu_memory_gb == 48


def test_request_rate_uses_the_threads_response_length(chat: Conversation) -> None:
    chat.turn("serve llama-3-8b with 300-token responses")
    turn = chat.turn("what about 20 qps?")
    assert turn.changed == {"requests_per_s": (None, 20), "target_tokens_per_s": (None, 6000)}
    assert any("20 requests/s × 300 output tokens" in n for n in turn.notes)


def test_request_rate_without_a_response_length_is_kept_as_a_rate(chat: Conversation) -> None:
    chat.turn("serve llama-3-8b")
    turn = chat.turn("50 qps")
    assert turn.changed == {"requests_per_s": (None, 50)} and turn.workload.target_tokens_per_s is None
    assert turn.intent == "refine"
    assert any("response length" in n for n in turn.notes)
    # the length moves the fleet linearly: it is asked (once), with the sizes assumed meanwhile
    assert [q.field for q in turn.questions] == ["output_tokens"] and "256 output tokens" in turn.questions[0].text


def test_the_derived_aggregate_follows_the_rate_and_the_length(chat: Conversation) -> None:
    chat.turn("serve llama-3-8b at 500 requests per second, 300 output tokens each")
    assert chat.workload.target_tokens_per_s == 150_000
    turn = chat.turn("at 200 requests per second")
    assert turn.workload.requests_per_s == 200 and turn.workload.target_tokens_per_s == 60_000
    turn = chat.turn("make it 100 output tokens")
    assert turn.workload.output_tokens == 100 and turn.workload.target_tokens_per_s == 20_000


def test_an_aggregate_said_outright_is_not_rederived(chat: Conversation) -> None:
    chat.turn("serve llama-3-8b at 500 rps, 300 output tokens each")
    chat.turn("3000 tokens/s")
    turn = chat.turn("make it 100 output tokens")
    assert turn.workload.target_tokens_per_s == 3000


def test_memory_constraint_stored_by_an_older_version_is_kept(resolver) -> None:
    stored = {"workload": {"mode": "qlora", "params_b": 70}, "gpu_memory_gb": 24.0}
    assert Conversation.from_dict(stored, resolver).workload.gpu_memory_gb == 24


def test_unknown_model_is_asked_about_in_friendly_words(chat: Conversation) -> None:
    turn = chat.turn("serve gpt-5 on h100")
    assert turn.workload.mode == "inference" and turn.workload.gpu == "h100-sxm"
    assert [p.code for p in turn.unknown_names] == ["unknown_model"]
    assert "gpt-5" in turn.unknown_names[0].message and "70B" in turn.unknown_names[0].message
    model_question = next(q for q in turn.questions if q.field == "model")
    assert model_question.text == turn.unknown_names[0].message
    assert "Which model did you mean" not in turn.message  # asked once, in the catalog's words


def test_questions_for_uses_the_unknown_name_problem(resolver) -> None:
    from parser import parse

    reading = parse("serve gpt-5", resolver)
    questions = questions_for(Workload(mode="inference"), reading)
    assert questions[0].field == "model" and "I don't know “gpt-5”" in questions[0].text


def test_train_with_a_size_is_training_and_the_method_is_asked(chat: Conversation) -> None:
    turn = chat.turn("train a 21B model")
    assert turn.workload.intent == "train" and turn.workload.mode is None and turn.workload.params_b == 21
    assert turn.questions[0].field == "mode" and "pretrain" in turn.questions[0].text
    turn = chat.turn("qlora")  # the answer sets the method; the intent stays training
    assert turn.workload.mode == "qlora" and turn.workload.intent == "train" and turn.workload.params_b == 21


def test_train_in_a_thread_that_already_has_a_mode_keeps_it(chat: Conversation) -> None:
    chat.turn("QLoRA 70B, 500GB corpus in S3")
    turn = chat.turn("train it on 2B tokens")
    assert turn.workload.mode == "qlora"


def test_a_checkpoint_format_from_its_name_belongs_to_that_checkpoint(resolver) -> None:
    """"…-FP8" serves in FP8; another model named later in the thread is served in its own format again
    (said back), and the thread survives storage with that knowledge; a precision said outright stays."""
    chat = Conversation(resolver)
    first = chat.turn("serve Qwen/Qwen3-235B-A22B-Instruct-2507-FP8 for 50 users")
    assert first.workload.precision == "fp8"
    assert any("format of the checkpoint" in n for n in first.notes)
    same = Conversation.from_dict(json.loads(json.dumps(chat.to_dict())), resolver)
    assert same.turn("try 8x H100").workload.precision == "fp8"  # the same checkpoint on other GPUs
    switched = same.turn("try qwen2.5-72b")
    assert switched.workload.model == "qwen2.5-72b" and switched.workload.precision is None
    assert any("previous checkpoint's format" in n for n in switched.notes)

    said = Conversation(resolver)
    said.turn("serve qwen3 235b a22b in fp8 for 50 users")
    assert said.turn("try qwen2.5-72b").workload.precision == "fp8"



SAID_SAMPLES = (
    "QLoRA 70B, 500GB corpus in S3, 20 runs at $2/hr on 8x H100, 1B tokens, 3 epochs, ZeRO 3, done in 2 days",
    "serve llama 3.1 8b in int8 for 32 users at 8k context, 300 tokens out, 1000 in, ttft under 1s, 20 tok/s",
    "we own 16 A100 40GB on prem, 2 nodes, batch 16, lora r=16, mfu 0.4, cache the dataset, spot",
)



def test_said_anything_is_any_field_of_the_dump_set() -> None:
    """`_said_anything` reads the fields instead of dumping the workload: the same answer with nothing set
    and with each field the sample messages set, alone."""
    from parser.conversation import _said_anything

    said = [Conversation().turn(text).workload for text in SAID_SAMPLES]
    workloads = [Workload()]
    for name in Workload.model_fields:
        values = [getattr(w, name) for w in said]
        workloads += [Workload.model_construct(**{name: v}) for v in values if v is not None]
    assert len(workloads) > 20
    for workload in workloads:
        assert _said_anything(workload) == any(v is not None for v in workload.model_dump().values())
