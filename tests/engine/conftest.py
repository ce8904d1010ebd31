"""Fixtures shared by the engine tests."""

from __future__ import annotations

import pytest

from catalog import open_catalog
from catalog.records import CatalogData


@pytest.fixture(scope="session", name="data")
def real_catalog_data(tmp_path_factory: pytest.TempPathFactory) -> CatalogData:
    """The shipped catalog, built once, for the tests that rank its real offers (budgets, deadlines, weights,
    offline jobs). Tests that need a fixed world use tests/engine/fixtures_catalog.py instead."""
    return open_catalog(tmp_path_factory.mktemp("catalog") / "catalog.db").data()
