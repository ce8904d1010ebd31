"""Which messages are checkpoint-size, storage or transfer questions (intent "storage") and which stay plans.

"how much to store 10 checkpoints of a 70B full fine-tune on S3?" was planned as a training job asking for the token
count; "QLoRA 70B, 500GB corpus in S3, 20 runs" must stay a plan (its egress is part of the plan's cost), and data
merely said to be somewhere ("data in S3") is not a storage question."""

from __future__ import annotations

from typing import Any

import pytest

from parser import Conversation, parse
from parser.storage import StorageAsk, storage_follow_up


@pytest.fixture(scope="module")
def catalog():
    import catalog as catalog_module

    return catalog_module.open_catalog()


@pytest.mark.parametrize(("text", "expect"), [
    ("how much to store 10 checkpoints of a 70B full fine-tune on S3?",
     {"question": "storage", "checkpoint": "training", "params_b": 70.0, "mode": "full", "count": 10, "provider": "aws"}),
    ("how big is a Llama 3.1 70B checkpoint?", {"question": "size", "checkpoint": "weights", "model": "llama-3.1-70b"}),
    ("checkpoint size for full fine-tuning Llama 3.1 8B with Adam",
     {"question": "size", "checkpoint": "training", "model": "llama-3.1-8b", "mode": "full", "optimizer": "adamw"}),
    ("how much does it cost to keep 5 TB of checkpoints in GCS for 6 months?",
     {"question": "storage", "size_gb": 5000.0, "months": 6.0, "provider": "gcp"}),
    ("egress cost to move 2TB from S3 to Lambda",
     {"question": "transfer", "size_gb": 2000.0, "provider": "aws", "destination": "lambda"}),
    ("what does it cost to download our 500GB dataset out of S3?",
     {"question": "transfer", "size_gb": 500.0, "provider": "aws"}),
    ("LoRA adapter size for rank 16 on Llama 3.1 70B",
     {"question": "size", "checkpoint": "adapter", "model": "llama-3.1-70b", "mode": "lora", "lora_rank": 16}),
    ("how much to move 800GB from GCS to S3", {"question": "transfer", "size_gb": 800.0, "provider": "gcp",
                                               "destination": "aws"}),
    ("how much to store 500GB on Nebius for a year",
     {"question": "storage", "size_gb": 500.0, "months": 12.0, "provider": "nebius"}),
    ("how big is the checkpoint of a QLoRA 70B run",
     {"question": "size", "checkpoint": "adapter", "params_b": 70.0, "mode": "qlora"}),
    ("keep the last 3 checkpoints of Llama 3.1 8B full fine-tune on S3 for a year",
     {"question": "storage", "checkpoint": "training", "model": "llama-3.1-8b", "mode": "full", "count": 3,
      "months": 12.0, "provider": "aws"}),
    ("how big is Llama 3.1 70B on disk?", {"question": "size", "checkpoint": "weights", "model": "llama-3.1-70b"}),
    ("how much disk space do I need to fine-tune Llama 3.1 8B?",
     {"question": "size", "checkpoint": "training", "model": "llama-3.1-8b"}),
    # review 26b: each of these was planned as a job (a serving plan, a training plan) or lost a word
    ("how much disk do I need to full fine-tune Llama 3.1 8B?",
     {"question": "size", "checkpoint": "training", "model": "llama-3.1-8b", "mode": "full"}),
    ("cost to store Llama 3.1 70B LoRA adapters for 50 customers on S3",
     {"question": "storage", "checkpoint": "adapter", "model": "llama-3.1-70b", "mode": "lora", "count": 50,
      "provider": "aws"}),
    ("egress to move 2TB from S3 to Lambda",
     {"question": "transfer", "size_gb": 2000.0, "provider": "aws", "destination": "lambda"}),
    # review 28: the generic help, and "Which model?", for an egress bill on training data
    ("training data is 2TB in S3, training on Lambda, 10 runs, egress cost?",
     {"question": "transfer", "size_gb": 2000.0, "provider": "aws", "destination": "lambda", "runs": 10.0,
      "training": True}),
    ("copy 50TB dataset from GCS to CoreWeave for pretraining, egress cost?",
     {"question": "transfer", "size_gb": 50000.0, "provider": "gcp", "destination": "coreweave", "training": True}),
    ("how long to download Llama 3.1 405B weights at 1 Gbps?",
     {"question": "time", "checkpoint": "weights", "model": "llama-3.1-405b", "link_gbps": 1.0}),
    ("how long to download Llama 3.1 405B at 1 Gbps?",
     {"question": "time", "checkpoint": "weights", "model": "llama-3.1-405b", "link_gbps": 1.0}),
    ("how long to copy 5 TB from S3 at 1 GB/s?",
     {"question": "time", "size_gb": 5000.0, "provider": "aws", "link_gbps": 8.0, "link_said": "1 GB/s"}),
    ("how long to copy 5 TB from S3 at 10 Gb/s?",
     {"question": "time", "size_gb": 5000.0, "provider": "aws", "link_gbps": 10.0}),
    ("how long to move 500GB from S3 to GCS", {"question": "time", "size_gb": 500.0, "provider": "aws",
                                                "destination": "gcp"}),
])
def test_a_storage_question(catalog: Any, text: str, expect: dict[str, Any]) -> None:
    reading = parse(text, catalog)
    assert reading.intent == "storage", reading
    assert reading.storage is not None
    assert reading.storage.model_dump(exclude_none=True) == expect


@pytest.mark.parametrize("text", [
    "QLoRA 70B, 500GB corpus in S3, 20 runs",
    "QLoRA 70B, data in S3",
    "QLoRA 70B, 500GB corpus in S3, 20 runs, egress cost?",
    "full fine-tune Llama 3.1 8B on 2B tokens, 3 epochs, data in GCS",
    "QLoRA Llama 3.1 8B on SageMaker, data in S3, 30 runs a month",
    "full fine-tune Llama 3.1 8B with gradient checkpointing, batch size 8",
    "serve the Llama 3.1 8B checkpoint",
    "fine-tune from the Llama 3.1 8B instruct checkpoint on 50M tokens",
    "how much is an H100 on AWS?",
    "500GB of data in S3",
    "how big a GPU do I need for Llama 3.1 70B?",
    "how long to fine-tune Llama 3.1 8B on 500GB from S3?",
    "how long to download 500GB dataset from S3 and train Llama 3.1 8B on it",
    "how long does it take to train Llama 3.1 8B on 1B tokens",
    "fine-tune 20 LoRA adapters on Llama 3.1 8B, 100M tokens each",
])
def test_not_a_storage_question(catalog: Any, text: str) -> None:
    reading = parse(text, catalog)
    assert reading.intent != "storage" and reading.storage is None, reading


def test_a_thread_changes_the_question_with_a_reply(catalog: Any) -> None:
    conversation = Conversation(catalog)
    first = conversation.turn("how much to store 10 checkpoints of a 70B full fine-tune on S3?")
    assert first.intent == "storage" and first.storage is not None and first.storage.count == 10
    turns = [conversation.turn(text) for text in ("keep 3 checkpoints", "on GCS", "for 6 months")]
    assert [t.intent for t in turns] == ["storage"] * 3
    last = turns[-1].storage
    assert last is not None and (last.count, last.provider, last.months, last.params_b) == (3, "gcp", 6.0, 70.0)
    # the thread keeps its question across a save and a load, and a plan asked next ends it
    again = Conversation.from_dict(conversation.to_dict(), catalog)
    assert again.storage == last
    plan = again.turn("QLoRA 70B, 500GB corpus in S3, 20 runs")
    assert plan.intent != "storage" and again.storage is None and "storage" not in again.to_dict()


def test_a_checkpoint_asked_after_a_plan_is_the_plans_model() -> None:
    from tests.parser.fake_resolver import FakeResolver

    conversation = Conversation(FakeResolver())
    conversation.turn("full fine-tune Llama 3.1 8B on 2B tokens")
    turn = conversation.turn("how big is its checkpoint?")
    assert turn.intent == "storage" and turn.storage is not None
    assert (turn.storage.model, turn.storage.checkpoint) == ("llama-3.1-8b", "training")
    assert turn.workload.dataset_tokens == 2e9  # the scenario is kept


@pytest.mark.parametrize(("text", "updates", "change"), [
    ("keep the last 2", {}, {"count": 2}),
    ("what about 5 checkpoints?", {}, {"count": 5}),
    ("for 2 weeks", {}, {"months": pytest.approx(12 / 52 * 2)}),
    ("on azure", {"provider": "azure"}, {"provider": "azure"}),
    ("rank 64", {"lora_rank": 64}, {"lora_rank": 64, "checkpoint": "adapter"}),
])
def test_follow_ups(text: str, updates: dict[str, Any], change: dict[str, Any]) -> None:
    ask = StorageAsk(question="size", checkpoint="training", params_b=70.0, mode="full")
    after = storage_follow_up(text, updates, ask)
    assert after is not None
    assert {k: getattr(after, k) for k in change} == change


def test_a_reply_about_something_else_is_not_a_follow_up() -> None:
    ask = StorageAsk(question="storage", checkpoint="training", params_b=70.0, mode="full", count=3)
    assert storage_follow_up("try a100s", {"gpu": "a100-sxm-80gb"}, ask) is None
    assert storage_follow_up("serve it", {"mode": "inference"}, ask) is None
    assert storage_follow_up("thanks", {}, ask) is None


def test_a_link_rate_is_not_a_volume() -> None:
    """"1 GB/s" was read as a second dataset of 1 GB, "400 Gb/s InfiniBand" as a 400 GB dataset: a capital B is bytes,
    a small b bits, as sent (normalizing lowercases the text)."""
    from parser.storage import mark_link_rates

    assert mark_link_rates("copy 5 tb at 1 gb/s", "copy 5 TB at 1 GB/s") == "copy 5 tb at 1 gbytes/s"
    assert mark_link_rates("copy 5 tb at 10 gb/s", "copy 5 TB at 10 Gb/s") == "copy 5 tb at 10 gbps"
    assert mark_link_rates("copy 5 tb", "copy 5 TB") == "copy 5 tb"
    reading = parse("serve llama 3.1 8b on a node with 400 Gb/s infiniband")
    assert "dataset_gb" not in reading.updates


@pytest.mark.parametrize(("thread", "expect"), [
    # t3c: the copy asked after a size was "Moving 0 MB … $0", and "store it" after it the same $0 line
    (("how big is a Llama 3.1 70B checkpoint?", "how long to copy it at 10 Gbps?", "store it on S3 for a year"),
     [("size", None), ("time", 10.0), ("storage", 10.0)]),
    # t3b: "how long at 10 Gbps?" after an egress bill was the help text
    (("egress to move 2TB from S3 to Lambda", "what about 20 TB?", "how long at 10 Gbps?"),
     [("transfer", None), ("transfer", None), ("time", 10.0)]),
    # t3a: "store 10 of them …" after "in FP8" read 10 GPUs
    (("how big is a Llama 3.1 70B checkpoint?", "in FP8", "store 10 of them on S3 for 6 months"),
     [("size", None), ("size", None), ("storage", None)]),
])
def test_storage_threads_stay_on_storage(catalog: Any, thread: tuple[str, ...], expect: list[tuple[str, Any]]) -> None:
    conversation = Conversation(catalog)
    turns = [conversation.turn(text) for text in thread]
    assert [t.intent for t in turns] == ["storage"] * len(thread)
    assert [(t.storage.question, t.storage.link_gbps) for t in turns if t.storage] == expect
    assert not any("GPUs" in note for t in turns for note in t.notes)


def test_ten_of_them_are_ten_checkpoints_in_a_storage_thread(catalog: Any) -> None:
    conversation = Conversation(catalog)
    conversation.turn("how big is a Llama 3.1 70B checkpoint?")
    conversation.turn("in FP8")
    last = conversation.turn("store 10 of them on S3 for 6 months").storage
    assert last is not None and (last.count, last.months, last.provider, last.precision) == (10, 6.0, "aws", "fp8")
    assert conversation.workload.gpu_count is None


def test_a_copy_of_the_threads_checkpoint_keeps_its_model(catalog: Any) -> None:
    conversation = Conversation(catalog)
    conversation.turn("how big is a Llama 3.1 70B checkpoint?")
    ask = conversation.turn("how long to copy it at 10 Gbps?").storage
    assert ask is not None and (ask.question, ask.model, ask.checkpoint, ask.link_gbps) == (
        "time", "llama-3.1-70b", "weights", 10.0)
