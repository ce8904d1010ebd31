"""The refreshed prices over the bundled offers, as answers read them.

Why apart from catalog/refresh.py: every answer reads the overlay, while downloading and comparing
SkyPilot's catalog (catalog.refresh, catalog.skypilot) is needed only by `gpu-advisor catalog refresh`;
keeping them apart keeps those imports out of a cold `gpu-advisor ask`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from catalog.records import OfferRecord


def load_overlay(db: Any) -> dict[str, tuple[bool, OfferRecord]]:
    """offer id -> (removed, record) from the overlay; empty when nothing was ever refreshed. `db`: a
    sqlite3 connection or a sqlite-utils Database; read with plain sqlite3 so answering never needs
    sqlite-utils (cold start)."""
    conn = getattr(db, "conn", db)
    if conn.execute("select 1 from sqlite_master where type = 'table' and name = 'offer_overlay'").fetchone() is None:
        return {}
    return {row_id: (bool(removed), OfferRecord.model_validate_json(record))
            for row_id, removed, record in conn.execute("select id, removed, record from offer_overlay order by id")}


def apply_overlay(bundled: Iterable[OfferRecord], overlay: dict[str, tuple[bool, OfferRecord]]) -> tuple[OfferRecord, ...]:
    """The offers answers use: bundled rows, replaced or hidden by refreshed ones, plus new ones."""
    if not overlay:
        return tuple(bundled)
    kept = [o for o in bundled if o.id not in overlay]
    kept += [record for removed, record in overlay.values() if not removed]
    return tuple(sorted(kept, key=lambda o: o.id))
