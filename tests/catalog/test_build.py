"""Building the SQLite database: deterministic, rebuilt when the data changes, in memory by default."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import sqlite_utils

from catalog import build_catalog, open_catalog
from catalog.build import stored_hash
from catalog.files import content_hash
from catalog.skypilot import OFFER_COLUMNS

from .conftest import DATA_DIR

TABLES = ("gpus", "models", "offers", "providers", "egress_tiers", "aliases", "meta")


def _dump(path: Path) -> dict[str, list[dict]]:
    db = sqlite_utils.Database(path)
    try:
        return {t: list(db[t].rows) for t in TABLES}
    finally:
        db.close()


def test_tables_exist(tmp_path: Path) -> None:
    path = build_catalog(tmp_path / "c.db")
    db = sqlite_utils.Database(path)
    assert set(TABLES) <= set(db.table_names())
    assert stored_hash(db) == content_hash([DATA_DIR])
    assert db["gpus"].count >= 20 and db["aliases"].count > 100


def test_same_data_same_rows(tmp_path: Path) -> None:
    a = build_catalog(tmp_path / "a.db")
    b = build_catalog(tmp_path / "b.db")
    assert _dump(a) == _dump(b)


def test_in_memory_equals_file(tmp_path: Path) -> None:
    memory = open_catalog()
    on_disk = open_catalog(tmp_path / "c.db")
    assert memory.data() == on_disk.data()
    assert memory.data_hash == on_disk.data_hash


def test_open_reuses_then_rebuilds_on_change(tmp_path: Path) -> None:
    extra = tmp_path / "extra"
    extra.mkdir()
    db_path = tmp_path / "catalog.db"
    offers = extra / "offers.csv"
    row = {
        "id": "local:box:lab",
        "provider": "runpod",
        "instance_type": "box",
        "gpu": "rtx-4090",
        "gpus_per_node": "2",
        "intra_node_link": "PCIe Gen4",
        "on_demand_usd_per_hour": "0.50",
        "region": "lab",
        "managed": "False",
        "source": "our own lab",
        "observed_on": "2026-11-21",
    }
    _write_offer(offers, row)
    first = open_catalog(db_path, extra_data_dirs=[extra])
    assert any(o.id == "local:box:lab" for o in first.offers())
    mtime = db_path.stat().st_mtime_ns
    again = open_catalog(db_path, extra_data_dirs=[extra])  # unchanged data: reused, not rebuilt
    assert db_path.stat().st_mtime_ns == mtime and again.data_hash == first.data_hash

    _write_offer(offers, {**row, "on_demand_usd_per_hour": "0.75"})
    changed = open_catalog(db_path, extra_data_dirs=[extra])
    assert changed.data_hash != first.data_hash
    assert {o.id: o for o in changed.offers()}["local:box:lab"].on_demand_usd_per_hour == 0.75


def _write_offer(path: Path, row: dict[str, str]) -> None:
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(OFFER_COLUMNS), lineterminator="\n")
        writer.writeheader()
        writer.writerow(row)


def test_stale_schema_is_rebuilt(tmp_path: Path) -> None:
    db_path = build_catalog(tmp_path / "c.db")
    db = sqlite_utils.Database(db_path)
    db["meta"].upsert({"key": "data_hash", "value": "stale"}, pk="key")
    db.close()
    catalog = open_catalog(db_path)
    assert catalog.data_hash == content_hash([DATA_DIR])
    assert stored_hash(sqlite_utils.Database(db_path)) == content_hash([DATA_DIR])


def test_build_from_copied_data_dir(tmp_path: Path) -> None:
    copy = tmp_path / "data"
    shutil.copytree(DATA_DIR, copy)
    path = build_catalog(tmp_path / "c.db", [copy])
    assert _dump(path)["gpus"] == _dump(build_catalog(tmp_path / "d.db"))["gpus"]


def test_catalog_reads_no_environment(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import os

    def boom(*_a, **_k):  # type: ignore[no-untyped-def]
        raise AssertionError("the catalog must not read the environment")

    monkeypatch.setattr(os, "getenv", boom)
    monkeypatch.setattr(os.environ, "get", boom)
    assert open_catalog().resolve_gpu("H100").id == "h100-sxm"
