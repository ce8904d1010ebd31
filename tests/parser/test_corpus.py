"""Every phrasing in corpus.yaml reads as expected: exactly the fields listed, nothing more."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import load_corpus

from parser import parse

CORPUS = load_corpus()


def test_corpus_is_big_enough() -> None:
    assert len(CORPUS) >= 80
    assert len({entry["text"] for entry in CORPUS}) == len(CORPUS), "duplicate phrasings"


@pytest.mark.parametrize("entry", CORPUS, ids=[e["text"][:40] for e in CORPUS])
def test_phrasing(entry: dict[str, Any], resolver) -> None:
    reading = parse(entry["text"], resolver)
    expect = entry["expect"]
    assert set(reading.updates) == set(expect), f"{reading.text!r}: {reading.updates}"
    for field, value in expect.items():
        got = reading.updates[field]
        if isinstance(value, float) or isinstance(got, float):
            assert got == pytest.approx(value, rel=1e-9), field
        else:
            assert got == value, field
    if "intent" in entry:
        assert reading.intent == entry["intent"]
    assert sorted(c.field for c in reading.conflicts) == sorted(entry.get("conflicts", []))
    assert len(reading.unknown_names) == entry.get("unknown", 0), reading.unknown_names
    if "note" in entry:
        assert any(entry["note"] in note for note in reading.notes), reading.notes
