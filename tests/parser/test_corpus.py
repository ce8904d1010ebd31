"""Every phrasing in corpus.yaml reads as expected: exactly the fields listed, nothing more."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import assert_reading, load_corpus, read_entry

CORPUS = load_corpus()


def test_corpus_is_big_enough() -> None:
    assert len(CORPUS) >= 80
    assert len({entry["text"] for entry in CORPUS}) == len(CORPUS), "duplicate phrasings"


@pytest.mark.parametrize("entry", CORPUS, ids=[e["text"][:40] for e in CORPUS])
def test_phrasing(entry: dict[str, Any], resolver) -> None:
    assert_reading(read_entry(entry, resolver), entry)
