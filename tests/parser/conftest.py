"""Shared fixtures: the fake resolver and the phrasing corpus."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # fake_resolver is a plain module beside the tests

from fake_resolver import FakeResolver  # noqa: E402

CORPUS_PATH = HERE / "corpus.yaml"


def load_corpus() -> list[dict[str, Any]]:
    return yaml.safe_load(CORPUS_PATH.read_text(encoding="utf-8"))


@pytest.fixture
def resolver() -> FakeResolver:
    return FakeResolver()


def read_entry(entry: dict[str, Any], resolver: Any) -> Any:
    """An entry as the parser reads it: alone, or, with `after`, as a follow-up in a thread that said those messages
    first; then `updates` are the fields the follow-up changed (their new values) and the intent is the turn's."""
    from parser import Conversation, parse

    if "after" not in entry:
        return parse(entry["text"], resolver)
    conversation = Conversation(resolver)
    for earlier in entry["after"]:
        conversation.turn(earlier)
    turn = conversation.turn(entry["text"])
    return SimpleNamespace(text=entry["text"], updates={k: new for k, (_, new) in turn.changed.items()},
                           intent=turn.intent, conflicts=turn.conflicts, unknown_names=turn.unknown_names,
                           notes=turn.notes)


def with_intent(expect: dict[str, Any]) -> dict[str, Any]:
    """The Workload `intent` follows a mode said outright (inference serves, every other mode trains), so
    an entry lists `intent` only where no mode is set ("fine-tune X": intent train, mode asked)."""
    if "mode" in expect and "intent" not in expect:
        return {**expect, "intent": "serve" if expect["mode"] == "inference" else "train"}
    return dict(expect)


def assert_reading(reading: Any, entry: dict[str, Any], *, real: bool = False) -> None:
    """The corpus contract for one entry: exactly the expected fields (floats approximately), the
    intent, conflicts, unknown names and note where listed; `real` applies the `*_real` overrides."""
    expect = entry.get("expect_real", entry["expect"]) if real else entry["expect"]
    expect = dict(expect) if "after" in entry else with_intent(expect)  # a follow-up lists what it changed
    assert set(reading.updates) == set(expect), f"{reading.text!r}: {reading.updates}"
    for field, value in expect.items():
        got = reading.updates[field]
        got = list(got) if isinstance(got, tuple) and isinstance(value, list) else got  # YAML has no tuples
        if isinstance(value, float) or isinstance(got, float):
            assert got == pytest.approx(value, rel=1e-9), field
        else:
            assert got == value, field
    if "intent" in entry:
        assert reading.intent == entry["intent"]
    assert sorted(c.field for c in reading.conflicts) == sorted(entry.get("conflicts", []))
    unknown = entry.get("unknown_real", entry.get("unknown", 0)) if real else entry.get("unknown", 0)
    assert len(reading.unknown_names) == unknown, reading.unknown_names
    note = entry.get("note_real", entry.get("note")) if real else entry.get("note")
    if note:
        assert any(note in n for n in reading.notes), reading.notes
