"""The catalog: reviewed data files (GPUs, models, offers, provider price tables) and the SQLite
database built from them with sqlite-utils. No estimation lives here.

Public surface (docs/interfaces.md): `open_catalog`, `build_catalog`, `Catalog` and the record
types from `catalog.records`. Importers live in `catalog.skypilot` and `catalog.hf_config`.
"""

from typing import TYPE_CHECKING, Any

from catalog.records import (
    CatalogData,
    EgressTier,
    GpuRecord,
    ModelRecord,
    OfferRecord,
    ProviderRecord,
    Resolution,
)

if TYPE_CHECKING:
    from catalog.build import build_catalog
    from catalog.query import Catalog, open_catalog


def __getattr__(name: str) -> Any:
    """`build_catalog`, `Catalog`, `open_catalog` imported on first use: the engine imports
    `catalog.records` through this package, and must not pay for the database code (sqlite-utils)."""
    if name == "build_catalog":
        from catalog.build import build_catalog

        return build_catalog
    if name in ("Catalog", "open_catalog"):
        from catalog import query

        return getattr(query, name)
    raise AttributeError(f"module 'catalog' has no attribute {name!r}")


__all__ = [
    "Catalog",
    "CatalogData",
    "EgressTier",
    "GpuRecord",
    "ModelRecord",
    "OfferRecord",
    "ProviderRecord",
    "Resolution",
    "build_catalog",
    "open_catalog",
]
