"""Shared fixtures: one in-memory catalog built from the packaged data, and the snapshot dir."""

from __future__ import annotations

from pathlib import Path

import pytest

from catalog import Catalog, open_catalog

REPO = Path(__file__).resolve().parents[2]
DATA_DIR = REPO / "catalog" / "data"
FIXTURES = Path(__file__).parent / "fixtures"
# CI runs with shared/ beside the repo (../shared); the catalog-snapshot lives there.
SNAPSHOT_DIR = REPO.parent / "shared" / "catalog-snapshot"


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return open_catalog()


@pytest.fixture(scope="session")
def snapshot_dir() -> Path:
    if not (SNAPSHOT_DIR / "aws_vms.csv").is_file():
        pytest.skip(f"SkyPilot snapshot not found at {SNAPSHOT_DIR} (shared/ must sit beside the repo)")
    return SNAPSHOT_DIR
