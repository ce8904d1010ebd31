"""Vision-language models are sized with their images, as people ask (via Advisor.respond on the real catalog).

`serve Qwen2.5-VL-72B for 20 users` had been sized as Qwen2.5 72B, with a note that the model was not in the catalog and
1,024-token text prompts: every image adds hundreds to thousands of prompt tokens (Qwen2.5-VL: one per 28x28 pixels,
~1,370 for a 1024x1024 image) and its vision encoder's weights, so image-heavy chat was understated. A VLM is now a
catalog row (the text model's shape, the encoder's size and the image-token rule, with sources); the answer counts the
images (one 1024x1024 image a request when unsaid, stated and asked), `ask --json` carries them under `images`."""

from __future__ import annotations

import io
import json

from bot.cli import main
from engine.vision import DEFAULT_IMAGE_PIXELS, tokens_per_image
from tests.bot.answers import answered


def test_a_vlm_named_is_the_catalog_model_with_one_image_assumed_and_asked(real_advisor) -> None:
    response, view, text = answered(real_advisor, "serve Qwen2.5-VL-72B for 20 users")
    advice = response.advice
    assert advice.effective.model == "qwen2.5-vl-72b"
    assert "not in the catalog" not in text
    images = advice.images
    assert images is not None and images["images_per_request"] == 1 and images["count_assumed"]
    assert (images["width"], images["height"]) == DEFAULT_IMAGE_PIXELS
    assert images["image_tokens"] == 37 * 37  # one token per 28x28 pixels, each side rounded
    assert advice.effective.input_tokens == 1024 + 37 * 37
    assert "2,393-token prompts" in text and "1,369 image tokens" in text and "(assumed)" in text
    assert any("images per request" in q for q in response.questions)
    assert advice.memory is not None and "vision_encoder_gb" in advice.memory.components


def test_images_said_in_the_thread_are_counted_and_text_only_drops_them(real_advisor) -> None:
    conversation = real_advisor.new_conversation()
    first = real_advisor.respond(conversation, "serve Qwen2.5-VL-72B for 20 users")
    two = real_advisor.respond(conversation, "2 images per request")
    assert two.advice.images["images_per_request"] == 2 and not two.advice.images["count_assumed"]
    assert two.advice.effective.input_tokens == 1024 + 2 * 37 * 37
    assert not any("images per request" in q for q in two.questions)
    text_only = real_advisor.respond(conversation, "text only")
    assert text_only.advice.images["images_per_request"] == 0
    assert text_only.advice.effective.input_tokens is None  # the chat default's text prompt, no image in it
    assert "vision_encoder_gb" not in text_only.advice.memory.components
    assert first.advice.effective.input_tokens == 1024 + 37 * 37


def test_an_image_size_said_is_recounted_by_the_model_s_own_rule(real_advisor) -> None:
    """Gemma 3 reads any image as 256 tokens (896x896); the parser's generic 28-px rule would have said 1,369."""
    response, _, text = answered(real_advisor, "serve gemma 3 27b for 10 users with 1024x1024 images")
    images = response.advice.images
    assert images is not None and images["tokens_per_image"] == 256
    assert response.advice.effective.input_tokens == 256 + 256  # the image's instruction + the image
    assert "256 image tokens" in text


def test_a_text_checkpoint_with_a_vision_tower_counts_no_image_unless_said(real_advisor) -> None:
    response, _, _ = answered(real_advisor, "serve gemma 3 27b for 10 users")
    assert response.advice.images is None
    assert not any("images per request" in q for q in response.questions)
    assert "vision_encoder_gb" not in response.advice.memory.components


def test_llama_vision_tiles_are_read_by_its_cross_attention_layers(real_advisor) -> None:
    response, _, text = answered(real_advisor, "serve llama 3.2 11b vision for 10 users")
    images = response.advice.images
    assert images is not None and images["tokens_per_image"] == 4 * 1601  # 1024x1024: 2x2 tiles of 560
    assert images["cross_attention_layers"] == 8
    assert images["prompt_tokens"] == -(-4 * 1601 * 8 // 40)
    assert "cross-attention" in text


def test_tokens_per_image_follow_each_model_s_rule(real_advisor) -> None:
    models = {m.id: m for m in real_advisor.catalog_data().models}
    assert tokens_per_image(models["pixtral-12b"], 1024, 1024) == 64 * 64
    assert tokens_per_image(models["internvl3-8b"], 1024, 1024) == (9 + 1) * 256  # 3x3 tiles + thumbnail
    assert tokens_per_image(models["llava-1.5-7b"], 1024, 1024) == 576
    assert tokens_per_image(models["qwen2.5-vl-7b"], 8000, 8000) == 16384  # the processor's max_pixels


def test_ask_json_has_the_image_assumption(real_advisor) -> None:
    out = io.StringIO()
    assert main(["ask", "--json", "serve Qwen2.5-VL 7B for 20 users"], stdout=out) == 0
    data = json.loads(out.getvalue())
    assert data["images"]["images_per_request"] == 1 and data["images"]["count_assumed"] is True
    assert data["images"]["tokens_per_image"] == 1369 and data["images"]["encoder_params_b"] == 0.68
    out = io.StringIO()
    assert main(["ask", "--json", "serve Llama 3.1 8B for 20 users"], stdout=out) == 0
    assert json.loads(out.getvalue())["images"] is None
