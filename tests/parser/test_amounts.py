"""Loads, example counts, people and compressed sizes said in words (parser/amounts.py) and the questions they ask.

Each case is a message the bot used to misread: the load dropped or read as training data, replies read as a
sequence length, conversations read as users at once in a training question, a gzipped size read as raw text.
"""

from __future__ import annotations

import pytest

from engine.models import Workload
from parser import Conversation, parse, questions_for
from tests.parser.fake_resolver import FakeResolver


def _updates(text: str, current_mode: str | None = None) -> dict:
    current = Workload(mode=current_mode) if current_mode else None
    return dict(parse(text, FakeResolver(), current=current).updates)


def test_tokens_a_day_when_serving_are_a_load_not_training_data() -> None:
    said = _updates("serve Llama 3.1 8B, 2 billion tokens a day")
    assert "dataset_tokens" not in said
    assert said["load_tokens_per_s"] == pytest.approx(2e9 / 86_400, rel=1e-6) and said["load_period"] == "day"


def test_a_week_and_a_month_average_per_second_over_the_period() -> None:
    week = _updates("serve llama 3 8b, 100M tokens/week")
    assert week["load_tokens_per_s"] == pytest.approx(1e8 / 7 / 86_400, rel=1e-6)
    assert week["load_period"] == "week"
    month = _updates("serve llama 3 8b, 1B tokens monthly")
    assert month["load_tokens_per_s"] == pytest.approx(1e9 / (730 * 3600), rel=1e-6) and month["load_period"] == "month"


def test_tokens_an_hour_or_minute_are_a_load_as_said() -> None:
    hour = _updates("serve llama 3 8b at 3M tokens an hour")
    assert hour["load_tokens_per_s"] == pytest.approx(3e6 / 3600) and hour["load_period"] == "hour"
    minute = _updates("llama 3 8b, 30k tokens per minute")
    assert minute["load_tokens_per_s"] == pytest.approx(500) and minute["mode"] == "inference"
    assert "target_tokens_per_s" not in minute
    assert _updates("serve llama 3 8b at 3000 tokens/s")["target_tokens_per_s"] == 3000  # a speed stays a speed


def test_tokens_a_month_in_training_stay_the_training_data() -> None:
    said = _updates("pretrain 7b on 1T tokens a month")
    assert said["dataset_tokens"] == 1_000_000_000_000 and "load_tokens_per_s" not in said
    assert "load_tokens_per_s" not in _updates("and 2B tokens a day", current_mode="lora")
    assert "load_tokens_per_s" in _updates("what about 2B tokens a day", current_mode="inference")


@pytest.mark.parametrize(("text", "field", "value"), [
    ("serve qwen2.5 72b, replies are about 1500 tokens", "output_tokens", 1500),
    ("serve llama 3 8b, answers of ~300 tokens", "output_tokens", 300),
    ("serve llama 3 8b, responses average 800 tokens", "output_tokens", 800),
    ("serve llama 3 8b with 1500-token replies", "output_tokens", 1500),
    ("serve llama 3 8b, prompts 6k", "input_tokens", 6000),
    ("serve llama 3 8b, prompts are around 6k tokens", "input_tokens", 6000),
])
def test_prose_reply_and_prompt_lengths(text: str, field: str, value: int) -> None:
    said = _updates(text)
    assert said[field] == value and "seq_len" not in said


def test_compressed_sizes_are_marked_and_raw_ones_are_not() -> None:
    for text in ("LoRA Llama 3.1 8B on 40 GB of gzipped jsonl", "lora 8b on data.jsonl.gz, 40GB", "qlora 70b, 2 TB of parquet",
                 "lora 8b, 40 GB zstd-compressed shards"):
        assert _updates(text).get("dataset_compressed") is True, text
    for text in ("LoRA Llama 3.1 8B on 40 GB of jsonl", "lora 8b on 40 GB, not compressed"):
        assert "dataset_compressed" not in _updates(text), text


def test_counts_of_examples_in_training_are_the_dataset() -> None:
    said = _updates("fine-tune Llama 3.1 8B on 100k conversations")
    assert said["dataset_examples"] == 100_000 and "concurrency" not in said
    assert _updates("QLoRA 70B on 2,000 examples")["dataset_examples"] == 2000
    assert _updates("lora 8b on 50k instruction pairs")["dataset_examples"] == 50_000
    # the tokens per example said: the token count is known
    assert _updates("lora 8b on 100k samples of 2k tokens")["dataset_tokens"] == 200_000_000
    # serving: conversations at once stay users
    assert _updates("serve llama 3 8b, 100 conversations")["concurrency"] == 100


def test_people_in_a_serving_question_are_users() -> None:
    """People are a headcount: 10% of them at once at the busy hour (engine.models.STAFF_ACTIVE_SHARE)."""
    for text, count in (("serve Llama 3.1 8B for 40 developers", 40), ("serve llama 3 8b for 2,000 engineers", 2000),
                        ("llama 3 8b for 500 seats", 500)):
        reading = parse(text, FakeResolver())
        assert reading.updates["concurrency"] == count // 10 and reading.updates["mode"] == "inference", text
        assert reading.updates["population"] == count and "users_counted" in reading.cues
    assert "concurrency" not in _updates("we are 5 engineers and want to fine-tune llama 3 8b")


def test_a_token_load_asks_the_split_and_not_the_user_count() -> None:
    w = Workload(mode="inference", params_b=70, load_tokens_per_s=5787.037, load_period="day")
    questions = questions_for(w)
    assert [q.field for q in questions] == ["input_tokens"]
    text = questions[0].text
    assert "500M tokens a day" in text and "1,024 prompt + 256 output" in text and "9 requests/s" in text
    assert "2x the day's average" in text
    said = Workload(mode="inference", params_b=70, load_tokens_per_s=500.0, load_period="minute", input_tokens=2000,
                    output_tokens=300)
    assert questions_for(said) == []


def test_examples_ask_their_length_not_the_data_size() -> None:
    [question] = [q for q in questions_for(Workload(mode="qlora", params_b=70, dataset_examples=2000))
                  if q.field == "dataset_tokens"]
    assert "How long is an example" in question.text and "2,000 examples" in question.text and "~1,000" in question.text


def test_a_compressed_corpus_question_counts_the_text_it_holds() -> None:
    [question] = [q for q in questions_for(Workload(mode="lora", params_b=8, dataset_gb=40, dataset_compressed=True))
                  if q.field == "dataset_tokens"]
    assert "40 GB compressed (~120 GB of text)" in question.text and "~30B" in question.text


def test_small_request_rates_keep_their_digits() -> None:
    [question] = [q for q in questions_for(Workload(mode="inference", params_b=8, requests_per_s=10_000 / 86_400))
                  if q.field == "output_tokens"]
    assert "0.12 requests/s" in question.text and " 0 requests/s" not in question.text


@pytest.mark.parametrize(("reply", "tokens"), [
    ("300", 600_000), ("examples of 300 tokens", 600_000), ("about 300 tokens each", 600_000),
    ("20M tokens in total", 20_000_000), ("1B", 1_000_000_000),
])
def test_the_example_length_answer_multiplies_the_count(reply: str, tokens: int) -> None:
    chat = Conversation(FakeResolver())
    turn = chat.turn("QLoRA 70B on 2,000 examples")
    assert [q.field for q in turn.questions] == ["dataset_tokens"]
    turn = chat.turn(reply)
    assert turn.workload.dataset_tokens == tokens, turn.notes


def test_a_load_in_a_serving_thread_is_a_refinement() -> None:
    chat = Conversation(FakeResolver())
    chat.turn("serve llama 3 8b")
    turn = chat.turn("it's 500M tokens a day")
    assert turn.workload.load_tokens_per_s == pytest.approx(5e8 / 86_400, rel=1e-6)
    assert [q.field for q in turn.questions] == ["input_tokens"]
    turn = chat.turn("prompts are around 2k tokens, replies are about 300 tokens")
    assert (turn.workload.input_tokens, turn.workload.output_tokens) == (2000, 300) and not turn.questions


def test_a_new_load_replaces_the_request_rate_and_back() -> None:
    chat = Conversation(FakeResolver())
    chat.turn("serve llama 3 8b at 10 qps")
    turn = chat.turn("make it 1B tokens a day")
    assert turn.workload.requests_per_s is None and turn.workload.load_tokens_per_s == pytest.approx(1e9 / 86_400, rel=1e-6)
    turn = chat.turn("make it 20 qps")
    assert turn.workload.requests_per_s == 20 and turn.workload.load_tokens_per_s is None


def test_a_new_corpus_size_is_raw_unless_said_compressed() -> None:
    chat = Conversation(FakeResolver())
    chat.turn("LoRA Llama 3.1 8B on 40 GB of gzipped jsonl")
    turn = chat.turn("what about 100 GB")
    assert turn.workload.dataset_gb == 100 and turn.workload.dataset_compressed is None


def test_users_beside_a_rate_are_its_audience_not_streams_at_once() -> None:
    """"100 users at 5 requests/s" led with "⚠️ misses the concurrency" (5 requests a second keep a few dozen in
    flight). Users said beside a rate or a token load are the audience; "concurrent users" stay a target."""
    from parser import Conversation

    for text in ("serve llama 3.1 8b for 100 users at 5 requests per second", "serve llama 3.1 8b for 100 users, 50M tokens a day"):
        conversation = Conversation(resolver=FakeResolver())
        reading = conversation.turn(text)
        assert conversation.workload.concurrency is None, text
        assert any(n.startswith("read “100 users” as the audience behind the rate") for n in reading.notes), reading.notes
    conversation = Conversation(resolver=FakeResolver())
    conversation.turn("serve llama 3.1 8b for 100 concurrent users at 5 requests per second")
    assert conversation.workload.concurrency == 100 and conversation.workload.requests_per_s == 5


def test_a_load_for_batch_work_is_offline_and_prompt_lengths_are_no_job_count() -> None:
    """"500M tokens a day … for batch summarization" was sized as a chat service (20 tokens/s per user, a 2x busy hour):
    $40k/month where a queue at the day's average needs a quarter. In the thread, "3k-token prompts, 300-token replies;
    offline batch" was read as a job of 3,000 prompts ("$6.23 for the job") and dropped the load."""
    conversation = Conversation(resolver=FakeResolver())
    conversation.turn("500M tokens a day through Llama 3.3 70B for batch summarization, on AWS")
    w = conversation.workload
    assert w.offline is True and w.load_tokens_per_s == pytest.approx(5787.04, rel=1e-4)
    conversation.turn("3k-token prompts, 300-token replies; offline batch")
    w = conversation.workload
    assert (w.input_tokens, w.output_tokens, w.batch_items) == (3000, 300, None)
    assert w.load_tokens_per_s == pytest.approx(5787.04, rel=1e-4) and w.offline is True
    chat = Conversation(resolver=FakeResolver())
    chat.turn("serve Llama 3.3 70B, 500M tokens a day")
    assert chat.workload.offline is None
    assert parse("run llama 3.1 8b over 10 million 500-token documents", FakeResolver()).updates["batch_items"] == 1e7


def test_people_are_a_headcount_asked_at_any_size_and_a_team_of_n_is_users() -> None:
    """"200 employees" was sized as 200 streams at once with no question (asked only from 1,000 users), and "a team of
    10" was not read at all. People from 10 are a headcount sized for 10% at once, and how many are at once is asked;
    "N users" keeps its threshold."""
    for text, count in (("serve Llama 3.3 70B for 200 employees", 200), ("serve gpt-oss-20b for a team of 10", 10)):
        conversation = Conversation(resolver=FakeResolver())
        reading = conversation.turn(text)
        assert conversation.workload.concurrency == count // 10 and conversation.workload.population == count, text
        assert any(q.field == "concurrency" and q.text.startswith(f"How many of the {count:,} people wait on a reply")
                   and f"Sized for {count // 10:,} (10%)" in q.text for q in reading.questions), [q.text for q in reading.questions]
    conversation = Conversation(resolver=FakeResolver())
    reading = conversation.turn("serve llama 3.1 8b for 40 users")
    assert conversation.workload.concurrency == 40 and not any(q.field == "concurrency" for q in reading.questions)


def test_output_tokens_per_day_are_a_load_of_generated_tokens() -> None:
    """"serve Llama 3.1 8B for 20 million output tokens per day" was read as a 20M-token reply ("far beyond any real
    workload"); it is a load of generated tokens, the requests being it over the reply length."""
    said = _updates("serve Llama 3.1 8B for 20 million output tokens per day")
    assert "output_tokens" not in said
    assert said["load_tokens_per_s"] == pytest.approx(2e7 / 86_400, rel=1e-6) and said["load_output_only"] is True
    asked = next(q for q in questions_for(Workload(mode="inference", model="llama-3.1-8b", **{
        k: said[k] for k in ("load_tokens_per_s", "load_period", "load_output_only")})) if q.field == "output_tokens")
    assert "256-token replies" in asked.text and "1.8 requests/s" in asked.text


def test_an_output_load_sizes_requests_by_the_reply_alone() -> None:
    from engine.defaults import load_requests_per_s

    w = Workload(mode="inference", load_tokens_per_s=2e7 / 86_400, load_period="day", output_tokens=500, input_tokens=2000)
    both, _ = load_requests_per_s(w)
    out_only, why = load_requests_per_s(w.model_copy(update={"load_output_only": True}))
    assert out_only == pytest.approx(both * 2500 / 500)
    assert "output tokens a day" in why


@pytest.mark.parametrize(("reply", "tokens"), [
    ("300", 1_200_000), ("pairs of 300 tokens", 1_200_000), ("20M tokens in total", 20_000_000),
])
def test_a_preference_pair_is_two_sequences_of_the_length_said(reply: str, tokens: int) -> None:
    """DPO's pairs train prompt + chosen and prompt + rejected: the length asked is a sequence's, counted twice."""
    chat = Conversation(FakeResolver())
    turn = chat.turn("DPO on llama 3.1 8b with 2,000 preference pairs")
    assert turn.workload.objective == "dpo" and [q.field for q in turn.questions] == ["dataset_tokens"]
    assert "2,000 pairs train two sequences each (chosen and rejected)" in turn.questions[0].text
    turn = chat.turn(reply)
    assert turn.workload.dataset_tokens == tokens, turn.notes


def test_preference_tuning_is_kept_through_a_change_of_method() -> None:
    chat = Conversation(FakeResolver())
    chat.turn("DPO on llama 3.1 8b with 20k preference pairs")
    turn = chat.turn("use LoRA instead")
    assert (turn.workload.mode, turn.workload.objective) == ("lora", "dpo")
