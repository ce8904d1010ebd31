"""Names the grammar splits into words, read through the real catalog: the model and its size,
the question a family needs, and accelerators the catalog does not cover."""

from __future__ import annotations

import pytest
from fake_resolver import FakeResolver

from catalog import open_catalog
from parser import Conversation, parse
from parser.names import glue_names


@pytest.fixture(scope="module")
def catalog():  # type: ignore[no-untyped-def]
    return open_catalog()


@pytest.mark.parametrize(
    ("text", "model", "params_b"),
    [
        ("QLoRA Mistral Large 2 on 100M tokens", "mistral-large-2", 122.61),
        ("serve Mistral Small 3 24B", "mistral-small-3-24b", 23.57),
        ("LoRA Qwen3-235B-A22B", "qwen3-235b-a22b", 235.09),
        ("serve Llama 4 Scout with 128k context", "llama-4-scout", 107.77),
        ("serve gpt-oss-20b on a 4090", "gpt-oss-20b", 20.91),
        ("serve deepseek r1 on 8x h200", "deepseek-r1", 671.03),
        ("fine-tune Qwen/Qwen3-32B", "qwen3-32b", 32.76),
    ],
)
def test_a_named_model_brings_its_catalog_size(catalog, text: str, model: str, params_b: float) -> None:  # type: ignore[no-untyped-def]
    turn = Conversation(catalog).turn(text)
    assert turn.workload.model == model
    assert turn.workload.params_b == pytest.approx(params_b)  # total parameters, all experts
    assert turn.workload.lora_rank is None  # "r1" in "deepseek r1" is not a LoRA rank


def test_a_size_the_user_gives_is_kept(catalog) -> None:  # type: ignore[no-untyped-def]
    chat = Conversation(catalog)
    assert chat.turn("QLoRA 70B, 500GB corpus in S3, 20 runs").workload.params_b == 70
    after = chat.turn("try llama 3.1 8b")
    assert after.workload.model == "llama-3.1-8b" and after.workload.params_b == pytest.approx(8.03)
    assert chat.turn("what about 13B?").workload.model is None  # a bare size replaces the model


def test_llama_4_alone_asks_scout_or_maverick(catalog) -> None:  # type: ignore[no-untyped-def]
    reading = parse("serve Llama 4", catalog)
    assert "model" not in reading.updates
    (problem,) = reading.unknown_names
    assert problem.code == "ambiguous_model" and set(problem.candidates) == {"llama-4-scout", "llama-4-maverick"}
    assert "“llama 4”" in problem.message


def test_mistral_alone_is_never_mistral_7b(catalog) -> None:  # type: ignore[no-untyped-def]
    for text in ("QLoRA Mistral Large 2 on 100M tokens", "serve Mistral Small 3 24B", "fine-tune mistral"):
        assert parse(text, catalog).updates.get("model") != "mistral-7b", text


def test_unsupported_accelerator_is_named_and_no_gpu_substituted(catalog) -> None:  # type: ignore[no-untyped-def]
    chat = Conversation(catalog)
    turn = chat.turn("QLoRA 70B on TPU v5e")
    assert turn.workload.unsupported_accelerator == "TPU v5e"
    assert turn.workload.gpu is None and turn.workload.params_b == 70
    assert any("TPU v5e" in note for note in turn.notes)
    assert chat.turn("try A100s").workload.unsupported_accelerator is None  # a named GPU replaces it


def test_gaudi_3_is_a_gpu_the_catalog_sizes(catalog) -> None:  # type: ignore[no-untyped-def]
    reading = parse("serve llama 3.1 8b on 8x gaudi 3", catalog)
    assert reading.updates["gpu"] == "gaudi3" and reading.updates["gpu_count"] == 8
    assert "unsupported_accelerator" not in reading.updates


def test_glue_is_one_lookup_and_leaves_other_words() -> None:
    resolver = FakeResolver()
    text, found = glue_names("qlora mistral large 2 , 8 x h100 , 500 gb in s3", resolver)
    assert text == "qlora mistral-large-2 , 8 x h100 , 500 gb in s3"
    assert resolver.calls == 1 and not found.unsupported
    assert glue_names("qlora 70b", None)[0] == "qlora 70b"  # no resolver, no change
