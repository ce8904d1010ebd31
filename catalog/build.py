"""Building the SQLite catalog database from the data files with sqlite-utils.

Why a database at all when the files are small: the bot and CLI open it many times, and the
alias table and egress tiers are relational; SQLite also lets people query the catalog with
`sqlite-utils`/datasette. The files stay the source of truth (STYLE 6): the database is built
from them deterministically (rows inserted in id order, explicit column types, no timestamps)
and carries a `meta` row with the content hash of the files it was built from, so a stale
database is detected and rebuilt.
"""

from __future__ import annotations

import json
import os
import sqlite3
import tempfile
import types
import typing
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import sqlite_utils
from pydantic import BaseModel

from catalog.aliases import build_alias_entries
from catalog.files import SCHEMA_VERSION, content_hash, data_dirs_or_default, read_data
from catalog.records import ApiPriceRecord, GpuRecord, ModelRecord, OfferRecord, ProviderRecord

# Tables that are not built from the data files but fetched at run time (Hub lookups, refreshed
# prices): a rebuild carries them over from the database it replaces (see `_carry_over`).
PERSISTENT_TABLES = ("hub_models", "hub_searches", "offer_overlay", "refresh_log")
RECORD_TABLES: tuple[tuple[str, type[BaseModel]], ...] = (
    ("gpus", GpuRecord),
    ("models", ModelRecord),
    ("offers", OfferRecord),
    ("providers", ProviderRecord),
    ("api_prices", ApiPriceRecord),
)


def _column_type(annotation: Any) -> type:
    """SQLite column type for a record field annotation (Optional[X] -> X; Literal -> str)."""
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType) and args:
        return _column_type(args[0])
    if origin is typing.Literal:
        return str
    if annotation is bool or annotation is int:
        return int
    if annotation is float:
        return float
    return str


def _columns(model: type[BaseModel], skip: frozenset[str] = frozenset()) -> dict[str, type]:
    return {
        name: _column_type(info.annotation) for name, info in model.model_fields.items() if name not in skip
    }


def build_into(db: sqlite_utils.Database, data_dirs: Sequence[Path] | None = None) -> str:
    """(Re)create every catalog table in `db` from the data files; returns the content hash."""
    dirs = data_dirs_or_default(data_dirs)
    raw = read_data(dirs)
    data_hash = content_hash(dirs)
    for table in ("gpus", "models", "offers", "providers", "api_prices", "egress_tiers", "aliases", "meta"):
        db[table].drop(ignore=True)

    by_table: dict[str, Sequence[Any]] = {"gpus": raw.gpus, "models": raw.models, "offers": raw.offers,
                                          "providers": raw.providers, "api_prices": raw.api_prices}
    for table, model in RECORD_TABLES:
        skip = frozenset({"egress_tiers"}) if model is ProviderRecord else frozenset()
        db.table(table).create(_columns(model, skip), pk="id")
        rows = [r.model_dump(exclude=set(skip)) for r in sorted(by_table[table], key=lambda r: r.id)]
        db.table(table).insert_all(rows)

    db.table("egress_tiers").create(
        {"provider": str, "seq": int, "up_to_gb": float, "usd_per_gb": float}, pk=("provider", "seq")
    )
    db.table("egress_tiers").insert_all(
        {"provider": p.id, "seq": i, "up_to_gb": t.up_to_gb, "usd_per_gb": t.usd_per_gb}
        for p in sorted(raw.providers, key=lambda r: r.id)
        for i, t in enumerate(p.egress_tiers)
    )

    db.table("aliases").create(
        {
            "kind": str,
            "key": str,
            "alias": str,
            "id": str,
            "candidates": str,
            "note": str,
            "source": str,
            "rank": int,
        },
        pk=("kind", "key"),
    )
    db.table("aliases").insert_all(
        {
            "kind": e.kind,
            "key": e.key,
            "alias": e.alias,
            "id": e.id,
            "candidates": json.dumps(list(e.candidates)),
            "note": e.note,
            "source": e.source,
            "rank": e.rank,
        }
        for e in build_alias_entries(raw)
    )

    db.table("meta").create({"key": str, "value": str}, pk="key")
    db.table("meta").insert_all(
        [
            {"key": "data_hash", "value": data_hash},
            {"key": "schema_version", "value": SCHEMA_VERSION},
            {"key": "data_dirs", "value": json.dumps([str(d) for d in dirs])},
        ]
    )
    return data_hash


def stored_hash(db: sqlite_utils.Database) -> str | None:
    """The data hash a database was built from, or None if it has no (current-schema) meta."""
    if "meta" not in db.table_names():
        return None
    rows = {r["key"]: r["value"] for r in db["meta"].rows}
    if rows.get("schema_version") != SCHEMA_VERSION:
        return None
    return rows.get("data_hash")


def build_catalog(db_path: str | Path, data_dirs: Sequence[Path] | None = None) -> Path:
    """Build the catalog database file at `db_path` from scratch; returns the path.

    Written to a temporary file beside the target and renamed into place, so a reader never
    sees a half-built catalog and a failed build leaves the old database untouched.
    """
    target = Path(db_path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=".catalog-", suffix=".db", dir=target.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        tmp.unlink()
        db = sqlite_utils.Database(tmp)
        try:
            build_into(db, data_dirs)
            _carry_over(db, target)
        finally:
            db.close()
        os.replace(tmp, target)
    finally:
        if tmp.exists():
            tmp.unlink()
    return target


def _carry_over(db: sqlite_utils.Database, old_path: Path) -> None:
    """Copy the run-time tables (PERSISTENT_TABLES) from the database being replaced.

    Why: the data files changing (a new release, an import) must not forget the Hub lookups and
    refreshed prices fetched since; they carry their own provenance and dates. A corrupt or
    missing old file simply has nothing to carry.
    """
    if not old_path.is_file():
        return
    try:
        db.execute("ATTACH DATABASE ? AS old", [str(old_path)])
    except sqlite3.DatabaseError:
        return
    try:
        schemas = dict(db.execute("SELECT name, sql FROM old.sqlite_master WHERE type = 'table'").fetchall())
        for table in PERSISTENT_TABLES:
            if table in schemas and table not in db.table_names():
                db.execute(schemas[table])
                db.execute(f"INSERT INTO main.[{table}] SELECT * FROM old.[{table}]")
        db.conn.commit()
    except sqlite3.DatabaseError:
        pass  # an unreadable old table: the new catalog starts without it
    finally:
        db.execute("DETACH DATABASE old")
