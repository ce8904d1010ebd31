"""Phrasings the second senior review found misread: an image resolution and a count of LoRA adapters read as GPUs,
users counted by the day or month sized as one stream (or as runs a month), a generic model trained on a pre-training
corpus sized as LoRA, image jobs read as chat, speculative decoding dropped silently, a price comparison of several
providers or price kinds cut to the first or asked back as a contradiction."""

from __future__ import annotations

import pytest

from engine.models import BUSY_HOUR_FACTOR
from parser import parse
from parser.asides import (
    DAILY_SHARE_OF_MONTHLY,
    DEFAULT_MESSAGES_A_DAY,
    IMAGE_PROMPT_TOKENS,
    SPECULATIVE_NOTE,
    vision_tokens,
)
from tests.parser.fake_resolver import FakeResolver

DAY_S = 86_400


def _reading(text: str):
    return parse(text, FakeResolver())


# ---- 1. an image resolution is neither GPUs nor a size ----------------------------------------------------------------
@pytest.mark.parametrize("text, pixels", [
    ("serve Llama 3.1 8B for 20 users, 1024x1024 images", (1024, 1024)),
    ("serve Qwen2.5 72B for 50 users, images of 1024x1024", (1024, 1024)),
    ("serve Llama 3.1 8B for 20 users, 768 x 768 images", (768, 768)),
    ("serve Llama 3.1 8B for 20 users, 4k images", (3840, 2160)),
])
def test_an_image_resolution_is_prompt_tokens_not_gpus(text: str, pixels: tuple[int, int]) -> None:
    reading = _reading(text)
    assert "gpu_count" not in reading.updates and "gpu" not in reading.updates, reading.updates
    assert not reading.unknown_names, reading.unknown_names
    assert reading.updates["concurrency"] in (20, 50)
    assert reading.updates["input_tokens"] == vision_tokens(*pixels) + 256
    assert any("image size, not a GPU count" in n for n in reading.notes), reading.notes


def test_a_1024_pixel_image_is_about_1_4k_vision_tokens() -> None:
    assert 1_000 <= vision_tokens(1024, 1024) <= 1_400  # Qwen2-VL: one token per 28x28 pixels after the 2x2 merge


def test_gpus_said_beside_an_image_size_stay() -> None:
    reading = _reading("serve Llama 3.1 8B on 8x H100 for 20 users, 1024x1024 images")
    assert reading.updates["gpu_count"] == 8 and reading.updates["gpu"] == "h100-sxm"


# ---- 2. LoRA adapters served on one base model ----------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "multi-LoRA serving: Llama 3.1 8B base with 100 rank-16 adapters, 200 concurrent users",
    "serve 30 rank-16 adapters on Llama 3.1 8B for 200 users",
    "serve Llama 3.1 8B with 100 LoRA adapters for 200 users",
    "multi-LoRA: serve Llama 3.1 8B with 200 LoRA adapters for 300 users",
])
def test_a_count_of_adapters_is_the_base_models_service(text: str) -> None:
    reading = _reading(text)
    assert not reading.conflicts, reading.conflicts  # "lora" and "serve" are not two modes here
    assert reading.updates.get("mode") == "inference", reading.updates
    assert reading.updates.get("model") == "llama-3.1-8b"
    assert "gpu_count" not in reading.updates and "gpu" not in reading.updates
    assert not reading.unknown_names, reading.unknown_names
    assert any("LoRA adapters served on one base model" in n and "--enable-lora" in n for n in reading.notes)


def test_training_adapters_stays_lora_training() -> None:
    assert _reading("train a LoRA adapter on Llama 3.1 8B with 2B tokens").updates.get("mode") == "lora"


# ---- 3. users counted by the day or the month are a request rate a day ----------------------------------------------
def test_daily_users_times_messages_is_requests_a_day() -> None:
    reading = _reading("chatbot with 50k DAU, each sends 20 messages a day, Llama 3.3 70B")
    assert reading.updates["mode"] == "inference"
    assert reading.updates["requests_per_s"] == pytest.approx(1_000_000 / DAY_S * BUSY_HOUR_FACTOR)
    assert any("= 1,000,000 requests a day" in n for n in reading.notes), reading.notes


@pytest.mark.parametrize("text", ["serve Llama 3.1 8B for 10,000 daily active users",
                                  "serve Llama 3.1 8B for 10k daily active users",
                                  "serve Llama 3.1 8B for 10k DAU"])
def test_daily_users_alone_assume_messages_a_day_and_say_so(text: str) -> None:
    reading = _reading(text)
    assert "runs_per_month" not in reading.updates and "concurrency" not in reading.updates, reading.updates
    per_day = 10_000 * DEFAULT_MESSAGES_A_DAY
    assert reading.updates["requests_per_s"] == pytest.approx(per_day / DAY_S * BUSY_HOUR_FACTOR)
    assert any("messages a day each (assumed" in n for n in reading.notes), reading.notes


def test_monthly_users_go_through_a_daily_share() -> None:
    reading = _reading("chatbot for 1M monthly users, Llama 3.1 70B")
    per_day = 1_000_000 * DAILY_SHARE_OF_MONTHLY * DEFAULT_MESSAGES_A_DAY
    assert reading.updates["requests_per_s"] == pytest.approx(per_day / DAY_S * BUSY_HOUR_FACTOR)
    assert any("monthly users at ~25%" in n for n in reading.notes), reading.notes


def test_requests_a_day_are_read_as_before() -> None:
    reading = _reading("serve Llama 3.1 70B for 1M requests a day")
    assert reading.updates["requests_per_s"] == pytest.approx(1_000_000 / DAY_S * BUSY_HOUR_FACTOR)


# ---- 4. a generic model on a pre-training corpus is pre-training ----------------------------------------------------
def test_training_a_generic_model_on_100b_tokens_is_pretraining() -> None:
    reading = _reading("train a 1B model on 100B tokens on 8 H100s, how long?")
    assert reading.updates["mode"] == "pretrain", reading.updates
    assert any(n.startswith("read as pre-training") for n in reading.notes)


@pytest.mark.parametrize("text", ["fine-tune a 7B model on 50M tokens", "train a 7B model on 2B tokens",
                                  "train Llama 3.1 8B on 20B tokens"])
def test_fine_tuning_sets_and_named_models_are_not_pretraining(text: str) -> None:
    assert _reading(text).updates.get("mode") != "pretrain"


# ---- 5. image jobs ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text, items", [
    ("caption 10M images with Qwen2.5 7B within a week", 10_000_000),
    ("describe 2M product photos with Qwen2.5 7B", 2_000_000),
    ("OCR 500k pages with Qwen2.5 7B", 500_000),
])
def test_image_jobs_are_batch_jobs_with_an_image_prompt(text: str, items: int) -> None:
    reading = _reading(text)
    assert reading.updates["batch_items"] == items, reading.updates
    assert reading.updates["mode"] == "inference"
    assert reading.updates["input_tokens"] == IMAGE_PROMPT_TOKENS
    assert any("images: each prompt is sized at" in n for n in reading.notes), reading.notes


def test_an_image_size_said_sets_the_jobs_prompt() -> None:
    reading = _reading("caption 1M 512x512 images with Qwen2.5 7B")
    assert reading.updates["batch_items"] == 1_000_000
    assert reading.updates["input_tokens"] == vision_tokens(512, 512) + 256
    assert not any("images: each prompt is sized at" in n for n in reading.notes)


# ---- 6. speculative decoding is said not modelled ---------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "serve DeepSeek V3 with MTP speculative decoding on 8x H200 for 100 users",
    "serve Llama 3.3 70B with EAGLE speculative decoding, 20 users, need 60 tok/s each",
    "serve Llama 3.3 70B with speculative decoding (8B draft) for 50 users",
    "serve Llama 3.3 70B with Medusa heads for 50 users",
])
def test_speculative_decoding_is_noted(text: str) -> None:
    reading = _reading(text)
    assert SPECULATIVE_NOTE in reading.notes
    assert reading.notes.index(SPECULATIVE_NOTE) < 2  # among the notes a short answer shows
    assert reading.updates.get("params_b") is None and not reading.unknown_names  # "(8B draft)" is not the model


# ---- 7. several providers in a price question -----------------------------------------------------------------------
@pytest.mark.parametrize("text, providers", [
    ("price of 8x H100 on CoreWeave vs Lambda vs RunPod", ("coreweave", "lambda", "runpod")),
    ("price of 8x H100 on CoreWeave or on Lambda", ("coreweave", "lambda")),
    ("H100 price on Lambda and RunPod", ("lambda", "runpod")),
])
def test_every_provider_of_a_price_comparison_is_read(text: str, providers: tuple[str, ...]) -> None:
    reading = _reading(text)
    assert reading.intent == "prices", (reading.intent, reading.conflicts)
    assert reading.providers == providers
    assert reading.updates["providers"] == providers and "provider" not in reading.updates


def test_providers_compared_in_a_workload_keep_the_first() -> None:
    reading = _reading("serve Llama 3.1 8B on Lambda vs RunPod")
    assert reading.updates["provider"] == "lambda" and reading.providers == ("lambda", "runpod")
    assert reading.intent == "describe"


# ---- 8. price kinds compared ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text", ["reserved vs on-demand for 8 H100s",
                                  "3-year reserved price for 64 H100s on AWS vs on-demand"])
def test_price_kinds_compared_are_a_price_comparison(text: str) -> None:
    reading = _reading(text)
    assert reading.intent == "prices" and not reading.conflicts, reading
    assert reading.updates["compared_pricing"] == ("reserved", "on_demand")
    assert "pricing" not in reading.updates


def test_price_kinds_in_a_workload_are_still_asked() -> None:
    reading = _reading("serve Llama 3.1 8B on 8 H100s, spot vs on-demand")
    assert [c.field for c in reading.conflicts] == ["pricing"]


def test_a_rate_said_beside_daily_users_is_the_rate() -> None:
    reading = _reading("serve Llama 3.1 8B for 10k DAU, 1M requests a day")
    assert reading.updates["requests_per_s"] == pytest.approx(1_000_000 / DAY_S * BUSY_HOUR_FACTOR)
