"""Shared fixtures: one in-memory catalog built from the packaged data, and the snapshot dir."""

from __future__ import annotations

from pathlib import Path

import pytest

from catalog import Catalog, open_catalog

REPO = Path(__file__).resolve().parents[2]
DATA_DIR = REPO / "catalog" / "data"
FIXTURES = Path(__file__).parent / "fixtures"
# SkyPilot catalog rows copied into the repo (their public source is in the README there)
SNAPSHOT_DIR = FIXTURES / "skypilot"


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return open_catalog()


@pytest.fixture(scope="session")
def snapshot_dir() -> Path:
    assert (SNAPSHOT_DIR / "aws_vms.csv").is_file(), f"SkyPilot fixture rows missing from {SNAPSHOT_DIR}"
    return SNAPSHOT_DIR
