"""Every corpus phrasing read again with the real catalog's resolver.

A catalog that cannot be opened fails these tests with the reason, never skips them: a broken
catalog API must show as failures, not as a quiet row of skips.

The corpus is written against the small fake resolver; the catalog must read it the same way.
Where the catalog legitimately differs (its default "Llama 70B", a family alias it does not
have), the entry says so with `expect_real` / `unknown_real` / `note_real`.
"""

from __future__ import annotations

from typing import Any

import pytest
from conftest import assert_reading, load_corpus, read_entry

from parser import Conversation, parse

CORPUS = load_corpus()


@pytest.fixture(scope="module")
def catalog():
    import catalog as catalog_module

    if not hasattr(catalog_module, "open_catalog"):
        pytest.fail("catalog.open_catalog() is missing: the parser corpus cannot be read with the real catalog",
                    pytrace=False)
    return catalog_module.open_catalog()


@pytest.mark.repeats("tests/parser/test_corpus.py::test_phrasing")
@pytest.mark.parametrize("entry", CORPUS, ids=[e["text"][:40] for e in CORPUS])
def test_phrasing_with_the_real_catalog(entry: dict[str, Any], catalog) -> None:
    assert_reading(read_entry(entry, catalog), entry, real=True)


def test_overrides_are_few_and_not_copies() -> None:
    overridden = [e for e in CORPUS if {"expect_real", "unknown_real", "note_real"} & set(e)]
    assert len(overridden) <= len(CORPUS) // 10, "the real catalog should read the corpus like the test resolver"
    for entry in overridden:
        assert entry.get("expect_real", entry["expect"]) != entry["expect"] or "unknown_real" in entry, entry["text"]


def test_real_catalog_resolves_what_users_write(catalog) -> None:
    reading = parse("QLoRA Llama 3.1 405B on 2 nodes of 8xA100 80GB, 500GB in S3, try mixtral 8x7b later", catalog)
    assert reading.updates["gpu"] == "a100-sxm-80gb"
    assert reading.updates["gpu_count"] == 16 and reading.updates["nodes"] == 2
    assert reading.updates["data_location"] == "aws"
    assert {c.field for c in reading.conflicts} == {"model"}  # 405B and mixtral in one message
    turn = Conversation(catalog).turn("serve qwen2.5-72b on a single 4090, 8k context, int4")
    assert turn.workload.model == "qwen2.5-72b" and turn.workload.gpu == "rtx-4090"
    assert turn.workload.seq_len == 8192 and turn.workload.precision == "int4"


def test_real_catalog_unknown_names_get_its_suggestions(catalog) -> None:
    reading = parse("deploy mixtrall on a100", catalog)
    assert reading.updates == {"mode": "inference", "intent": "serve", "gpu": "a100-sxm-80gb"}
    (problem,) = reading.unknown_names
    assert problem.field == "model" and "mixtral-8x7b" in problem.candidates and "mixtral-8x7b" in problem.message
    assert "70B" in problem.message
    for text in ("serve llms on h100", "we serve a lot of traffic", "serve our users"):  # ordinary words stay words
        assert parse(text, catalog).unknown_names == (), text
    gpu = parse("inference llama 3 8b on a800", catalog).unknown_names[0]
    assert gpu.field == "gpu" and "a100-sxm-80gb" in gpu.candidates
