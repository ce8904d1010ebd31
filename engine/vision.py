"""Images in a vision-language model's requests: how many prompt tokens they become, and what they add.

A VLM's text model is sized like any LLM, but every image in a request is first run through a vision
encoder and becomes hundreds to thousands of prompt tokens: Qwen2.5-VL one per 28x28 pixels (~1,300 for
a 1024x1024 image), Llama 3.2 Vision 1,601 per 560-px tile up to 4 tiles (read through cross-attention
layers rather than the prompt), Gemma 3 256, Pixtral one per 16x16 patch. Sized as text, image-heavy chat
understates the prefill and the KV cache several times over. The rules and the encoder sizes are the
catalog's (ModelRecord's vision fields, each row with its source); the arithmetic is here.
"""

from __future__ import annotations

import math
from typing import Any

from pydantic import BaseModel, ConfigDict

from catalog.records import ModelRecord

from .models import DEFAULT_INPUT_TOKENS, Workload

# an image of unsaid size: ~1 megapixel, what a phone photo or a screenshot is resized to by most VLM processors
DEFAULT_IMAGE_PIXELS = (1024, 1024)
# the instruction and question that come with an image, when the prompt length was assumed for an image
TEXT_WITH_AN_IMAGE = 256
IMAGES_NOTE = "images counted as prompt tokens: "


class ImageLoad(BaseModel):
    """What the images of one request add to a VLM's prompt."""

    model_config = ConfigDict(frozen=True)

    model: str
    images_per_request: float
    count_assumed: bool  # no count said: one image a request assumed
    width: int
    height: int
    size_assumed: bool  # no size said: DEFAULT_IMAGE_PIXELS
    tokens_per_image: int
    image_tokens: int  # images_per_request x tokens_per_image
    # what the images add to the prompt the engine sizes: the image tokens, or for cross-attention (Llama 3.2 Vision)
    # their K/V as a share of the layers that hold them (cross-attention layers / all layers)
    prompt_tokens: int
    cross_attention_layers: int | None
    encoder_params_b: float
    rule: str
    source: str


def tokens_per_image(model: ModelRecord, width: int, height: int) -> int:
    """Tokens one image of width x height pixels becomes in `model` (its catalog rule)."""
    if model.image_token_px:  # Qwen2.5-VL, Pixtral: one token per px x px patch (each side rounded), capped
        px = model.image_token_px
        tokens = max(1, round(width / px)) * max(1, round(height / px))
        return min(tokens, model.image_max_tokens or tokens)
    tile = model.image_tile_px or 1
    tiles = min(model.image_max_tiles or 1, math.ceil(width / tile) * math.ceil(height / tile))
    if model.image_thumbnail_tile and tiles > 1:
        tiles += 1
    return tiles * int(model.image_tokens_per_tile or 0)


def rule_text(model: ModelRecord) -> str:
    """'one per 28x28 pixels, up to 16,384', '1,601 per 560x560 tile, up to 4 tiles'."""
    if model.image_token_px:
        px = model.image_token_px
        cap = f", up to {model.image_max_tokens:,}" if model.image_max_tokens else ""
        return f"one per {px}x{px} pixels{cap}"
    tile, per, most = model.image_tile_px, int(model.image_tokens_per_tile or 0), model.image_max_tiles or 1
    if most == 1:
        return f"{per:,} per image (resized to {tile}x{tile})"
    thumb = ", plus a thumbnail tile when split" if model.image_thumbnail_tile else ""
    return f"{per:,} per {tile}x{tile} tile, up to {most} tiles{thumb}"


def image_load(w: Workload, model: ModelRecord | None) -> ImageLoad | None:
    """The images of each request of a VLM being served; None for a text model, training, or a model as often served
    for text (Gemma 3) when no image was said. Text only said ("text only", 0 images): a load of no images."""
    if model is None or not model.vision or (w.mode or "inference") != "inference":
        return None
    said_images = w.images_per_request
    count_assumed = said_images is None
    if said_images is None:
        if not (model.images_by_default or w.image_width or w.prompt_holds_image):
            return None
        said_images = 1.0
    size_assumed = not (w.image_width and w.image_height)
    width, height = (int(w.image_width or 0), int(w.image_height or 0)) if not size_assumed else DEFAULT_IMAGE_PIXELS
    per = tokens_per_image(model, width, height)
    tokens = int(round(float(said_images) * per))
    cross = model.vision_cross_attention_layers
    prompt = math.ceil(tokens * cross / model.num_layers) if cross else tokens
    return ImageLoad(
        model=model.name, images_per_request=float(said_images), count_assumed=count_assumed, width=width,
        height=height, size_assumed=size_assumed, tokens_per_image=per, image_tokens=tokens, prompt_tokens=prompt,
        cross_attention_layers=cross, encoder_params_b=float(model.vision_params_b or 0.0), rule=rule_text(model),
        source=model.source)


def _images(count: float) -> str:
    return f"{count:g} image" + ("" if count == 1 else "s")


def text_prompt(w: Workload) -> int:
    """The text part of a request's prompt: said, the chat default, or an image's instruction when the prompt length
    was assumed for an image by the parser (recounted here by the model's rule)."""
    if w.prompt_holds_image:
        return TEXT_WITH_AN_IMAGE
    return int(w.input_tokens or DEFAULT_INPUT_TOKENS)


def prompt_why(load: ImageLoad, text: int) -> str:
    """The assumption's sentence: how the prompt was counted, what was assumed, what to say to change it."""
    count = _images(load.images_per_request)
    size = f"{load.width}x{load.height}"
    assumed = [part for part, yes in (("one image a request", load.count_assumed),
                                      (f"{size} pixels", load.size_assumed)) if yes]
    how = (f"{text:,} text tokens + {count} at {size} x {load.tokens_per_image:,} tokens ({load.model}: "
           f"{load.rule}) = {load.image_tokens:,} image tokens")
    if load.cross_attention_layers:
        how += (f", read by {load.cross_attention_layers} cross-attention layers rather than the prompt: sized as "
                f"{load.prompt_tokens:,} prompt tokens of K/V cache and prefill")
    said = (f"; assumed {' and '.join(assumed)}: say e.g. “2 images per request”, “512x512” or “text only”"
            if assumed else "")
    return how + said


def images_note(load: ImageLoad, text: int) -> str:
    """The answer's plain statement of the images counted, and the encoder they need."""
    count = _images(load.images_per_request)
    size = f"{load.width}x{load.height}"
    lead = (f"{IMAGES_NOTE}{count} a request at {size}"
            + (" (assumed)" if load.count_assumed or load.size_assumed else "")
            + f" = {load.image_tokens:,} image tokens ({load.model}: {load.rule})")
    if load.cross_attention_layers:
        lead += (f", read through {load.cross_attention_layers} cross-attention layers: sized as {load.prompt_tokens:,} "
                 "prompt tokens")
    return (lead + f", so each prompt is {text + load.prompt_tokens:,} tokens with {text:,} of text; the "
            f"{load.encoder_params_b:g}B vision encoder's weights are held beside the model's, and its pass over each "
            "image (about 2 x its parameters FLOPs per patch) comes before the prefill and is not timed")


def as_dict(load: ImageLoad | None) -> dict[str, Any] | None:
    return None if load is None else load.model_dump()
