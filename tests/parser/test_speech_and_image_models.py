"""Speech and image models are said not to be sized, not sized as a chat LLM of a size the user is asked for."""

from __future__ import annotations

import pytest

from parser import parse
from parser.fold import SPEECH_IMAGE_PREFIX


@pytest.mark.parametrize("text", [
    "serve whisper large v3 for 100 concurrent streams",
    "transcribe 10k hours of audio on L4s",
    "speech-to-text for our call center, 50 streams",
    "stable diffusion xl for 50 users",
    "FLUX.1 dev image generation on H100",
])
def test_speech_and_image_models_are_said_not_sized(text: str) -> None:
    reading = parse(text)
    assert reading.intent == "gibberish", reading
    assert any(n.startswith(SPEECH_IMAGE_PREFIX) for n in reading.notes), reading.notes


@pytest.mark.parametrize("text", [
    "summarize call transcripts with llama 3.1 8b for 20 users",
    "serve Llama 3.1 8B for 50 users",
    "fine-tune mistral 7b on 1B tokens of transcripts",
])
def test_an_llm_job_about_audio_text_is_sized(text: str) -> None:
    reading = parse(text)
    assert reading.intent != "gibberish" and not any(n.startswith(SPEECH_IMAGE_PREFIX) for n in reading.notes)


@pytest.mark.parametrize("text, asked", [
    ("what's the max context for llama 3.1 70b on 2x H100 in fp8", True),
    ("longest context we can run qwen2.5 72b with on one H200", True),
    ("how long a context fits llama 3.1 8b on an L4", True),
    ("serve llama 3.1 8b with 8k context for 20 users", False),
    ("max concurrent users on 4 MI300X", False),
])
def test_a_max_context_question_is_read_as_one(text: str, asked: bool) -> None:
    from parser import max_context_asked

    assert max_context_asked(text) is asked
    if asked:
        assert parse(text).updates.get("mode") == "inference"
