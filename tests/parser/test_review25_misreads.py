"""Phrasings a senior reviewer found misread: a count of prompts read as a prompt length, short texts and generated
tokens read as a chat service or training data, "x8" and a bare "aws" after a GPU, a price per kWh read as a GPU-hour
rate, an MoE said by its total and active sizes, a Mac's memory read as a dataset, and two GPUs compared read as a
conflict (a third GPU was planned)."""

from __future__ import annotations

import pytest

from engine.models import Workload
from engine.recommend import USD_PER_KWH
from parser import Conversation, parse, questions_for
from parser.amounts import ENGINE_USD_PER_KWH, GENERATED_REPLY_TOKENS
from parser.fold import NO_DEADLINE_CUE
from tests.parser.fake_resolver import FakeResolver


def _updates(text: str) -> dict[str, object]:
    return dict(parse(text, FakeResolver()).updates)


# ---- 1. a count of prompts is the job's size, not a prompt length --------------------------------------------------
@pytest.mark.parametrize("text", [
    "offline batch inference with Llama 3.3 70B: 1M prompts of 500 tokens, 1000 tokens out each, cheapest",
    "run Llama 3.3 70B over 1,000,000 prompts (500 input tokens, 1000 output tokens each) within 2 days",
    "process 1M documents of 500 tokens each into 1000-token outputs with Llama 3.3 70B within a week",
])
def test_a_count_of_prompts_is_the_job(text: str) -> None:
    reading = parse(text, FakeResolver())
    assert not reading.conflicts, reading.conflicts
    updates = reading.updates
    assert updates.get("batch_items") == 1_000_000, updates
    assert updates.get("input_tokens") == 500
    assert updates.get("output_tokens") == 1000
    assert updates.get("mode") == "inference"
    assert "seq_len" not in updates


def test_the_deadline_of_a_counted_job_stays() -> None:
    assert _updates("run Llama 3.3 70B over 1,000,000 prompts (500 input tokens, 1000 output tokens each) within 2 days"
                    ).get("deadline_hours") == 48


@pytest.mark.parametrize(("text", "field", "value"), [
    ("1k prompt, 256 out", "input_tokens", 1000),  # singular: a length
    ("prompts of 2000 tokens", "input_tokens", 2000),
    ("input 512 output 128", "input_tokens", 512),
])
def test_a_prompt_length_is_still_a_length(text: str, field: str, value: int) -> None:
    assert _updates(text).get(field) == value


# ---- 2. short texts are the items of a batch job ---------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "batch: classify 50M short texts (300 tokens in, 5 tokens out) with Llama 3.1 8B, cheapest",
    "classify 50M texts with Llama 3.1 8B, 300 tokens in and 5 tokens out each",
    "offline: label 50M samples with Llama 3.1 8B, 300 tokens in and 5 tokens out each",
    "run Llama 3.1 8B over 50M examples, 300 tokens in and 5 tokens out each",
])
def test_texts_are_batch_items(text: str) -> None:
    updates = _updates(text)
    assert updates.get("batch_items") == 50e6, updates
    assert (updates.get("input_tokens"), updates.get("output_tokens")) == (300, 5)
    assert updates.get("mode") == "inference"


def test_examples_in_training_stay_the_dataset() -> None:
    updates = _updates("fine-tune Llama 3.1 8B on 50k examples")
    assert "batch_items" not in updates and updates.get("dataset_examples") == 50_000


# ---- 3. generated tokens are an offline generation job --------------------------------------------------------------
def test_generated_tokens_are_a_generation_job() -> None:
    reading = parse("generate 1B tokens of synthetic data with Llama 3.3 70B, cheapest, no deadline", FakeResolver())
    updates = reading.updates
    assert updates.get("mode") == "inference"
    assert updates.get("output_tokens") == GENERATED_REPLY_TOKENS
    assert updates.get("batch_items") == 1e9 / GENERATED_REPLY_TOKENS
    assert "dataset_tokens" not in updates and "deadline_hours" not in updates
    assert any("offline generation job" in n and "a length I assumed" in n for n in reading.notes), reading.notes
    assert any(n.startswith("“no deadline”") for n in reading.notes), reading.notes


def test_a_reply_length_said_sets_the_count_of_replies() -> None:
    updates = _updates("generate 1B tokens of synthetic data with Llama 3.3 70B, 500 output tokens each")
    assert (updates.get("batch_items"), updates.get("output_tokens")) == (2e6, 500)


def test_no_deadline_is_not_asked_how_soon() -> None:
    conversation = Conversation(FakeResolver())
    turn = conversation.turn("generate 1B tokens of synthetic data with Llama 3.3 70B, cheapest, no deadline")
    assert all(q.field != "deadline_hours" for q in turn.questions), turn.questions
    assert NO_DEADLINE_CUE in conversation.cues
    turn = conversation.turn("use spot")  # a refinement keeps it
    assert all(q.field != "deadline_hours" for q in turn.questions), turn.questions


def test_training_on_generated_data_stays_training() -> None:
    updates = _updates("LoRA Llama 3.1 8B on 1B tokens of synthetic data")
    assert updates.get("dataset_tokens") == 1_000_000_000 and "batch_items" not in updates


# ---- 4. "x8" after a GPU is its count; a bare trailing cloud is where it runs ----------------------------------------
def test_x8_and_a_bare_cloud() -> None:
    reading = parse("train 70b lora 10 epochs 1b tokens 4k seq len bf16 h100 x8 aws", FakeResolver())
    assert not reading.unknown_names, reading.unknown_names
    updates = reading.updates
    assert (updates.get("gpu"), updates.get("gpu_count")) == ("h100-sxm", 8)
    assert updates.get("provider") == "aws" and "data_location" not in updates
    assert any("as where it runs" in n for n in reading.notes), reading.notes
    on_aws = parse("train 70b lora 10 epochs 1b tokens 4k seq len bf16 h100 x8 on aws", FakeResolver()).updates
    assert {k: v for k, v in on_aws.items()} == {k: v for k, v in updates.items()}


@pytest.mark.parametrize(("text", "where"), [
    ("aws", "aws"),  # an answer to "where does the data live?"
    ("qlora 70b 500gb aws", "aws"),
    ("qlora 70b, data in aws", "aws"),
    ("lora 8b on 1b tokens, aws credits", "aws"),
])
def test_a_cloud_beside_the_data_stays_where_the_data_lives(text: str, where: str) -> None:
    updates = _updates(text)
    assert updates.get("data_location") == where and "provider" not in updates, updates


# ---- 5. a price per kWh is electricity ------------------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "we own 32 H100s, power costs $0.12/kWh, serve Llama 3.1 70B for 200 users",
    "we own 32 H100s, power costs $0.12 per kWh, what does a full fine-tune of Llama 3.1 70B on 2B tokens cost us?",
])
def test_a_price_per_kwh_is_not_an_hourly_rate(text: str) -> None:
    reading = parse(text, FakeResolver())
    assert "hourly_rate" not in reading.updates, reading.updates
    assert reading.updates.get("data_location") == "onprem" and reading.updates.get("gpu_count") == 32
    assert any("electricity price" in n and f"${USD_PER_KWH:g}/kWh" in n for n in reading.notes), reading.notes
    assert not any(n.startswith("read $") for n in reading.notes)


def test_the_parser_says_the_engines_electricity_price() -> None:
    assert ENGINE_USD_PER_KWH == USD_PER_KWH


def test_an_hourly_rate_is_still_one() -> None:
    assert _updates("lora 8b on 8 h100s at $2.10/hr").get("hourly_rate") == 2.1


# ---- 6. an MoE by its total and active sizes -----------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "pretrain a 7B MoE with 1B active on 2T tokens",
    "pretrain an MoE with 7B total and 1B active parameters on 2T tokens",
    "pretrain a 7B total / 1B active MoE on 2T tokens",
    "pretrain a 7B-A1B on 2T tokens",
])
def test_an_moe_by_its_sizes_is_one_model(text: str) -> None:
    reading = parse(text, FakeResolver())
    assert not reading.conflicts, reading.conflicts
    assert reading.updates.get("params_b") == 7  # the test resolver has no stand-in MoE: the total, not 1B
    assert "moe-7b-a1b" in reading.text


def test_the_catalog_sizes_the_moe_by_both_sizes() -> None:
    from catalog.resolve import Resolver  # noqa: PLC0415 - the real resolver's stand-in for an MoE it lacks

    resolution = Resolver.unlisted_moe("moe-7b-a1b")
    assert resolution is not None and resolution.id == "moe-7b-a1b" and resolution.params_b == 7


# ---- 7. a Mac or a CPU is not covered, and its memory is not data ---------------------------------------------------
def test_a_macbook_is_not_covered_and_its_memory_is_not_data() -> None:
    reading = parse("fine-tune llama 3.1 8b on my macbook m3 max 64GB", FakeResolver())
    assert reading.updates.get("unsupported_accelerator") == "Apple M3 Max"
    assert "dataset_gb" not in reading.updates
    assert not reading.unknown_names, reading.unknown_names  # "m3" is the chip
    assert any("as the Mac's memory" in n for n in reading.notes), reading.notes


@pytest.mark.parametrize(("text", "host"), [
    ("serve mistral 7b on cpu", "CPU"),
    ("serve llama 3.1 8b cpu only", "CPU"),
    ("serve llama 3.1 8b on a mac studio m2 ultra 192gb", "Apple M2 Ultra"),
])
def test_hosts_the_catalog_does_not_cover(text: str, host: str) -> None:
    updates = _updates(text)
    assert updates.get("unsupported_accelerator") == host and "dataset_gb" not in updates


def test_cpu_offload_is_not_a_cpu_host() -> None:
    assert "unsupported_accelerator" not in _updates("qlora 70b on a 4090 with cpu offload, 1b tokens")


@pytest.mark.parametrize(("text", "gb"), [("lora 8b on my mac, 2gb of data", 2.0), ("qlora 70b, 500gb of data", 500.0)])
def test_data_said_as_data_stays(text: str, gb: float) -> None:
    assert _updates(text).get("dataset_gb") == gb


def test_a_machines_memory_is_not_data() -> None:
    assert "dataset_gb" not in _updates("lora 8b on a 64gb machine, 2b tokens")


# ---- 8. two GPUs compared -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "is A100 or H100 cheaper per token for Llama 3.1 8B inference?",
    "compare A100 vs H100 for serving Llama 3.1 8B to 100 users",
    "compare A100 and H100 for serving Llama 3.1 8B to 100 users",
])
def test_two_gpus_compared_plan_the_first_and_offer_the_second(text: str) -> None:
    reading = parse(text, FakeResolver())
    assert not reading.conflicts, reading.conflicts
    assert reading.updates.get("gpu") == "a100-sxm-80gb"
    assert reading.compared == ("a100", "h100")
    workload = Workload(**{k: v for k, v in reading.updates.items() if k in Workload.model_fields})
    question = questions_for(workload, reading)[0]
    assert question.field == "gpu" and "try H100s" in question.text and "A100" in question.text


def test_two_gpus_said_apart_are_still_a_conflict() -> None:
    assert [c.field for c in parse("lora 8b on a100, 1b tokens, on h100", FakeResolver()).conflicts] == ["gpu"]
