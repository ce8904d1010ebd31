"""Shared fixtures: the fake resolver and the phrasing corpus."""

from __future__ import annotations

import sys
from pathlib import Path
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
