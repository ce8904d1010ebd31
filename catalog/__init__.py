"""The catalog: reviewed data files (GPUs, models, offers, provider price tables) and the SQLite
database built from them with sqlite-utils. No estimation lives here.

Public surface (docs/interfaces.md): `open_catalog`, `build_catalog`, `Catalog` and the record
types from `catalog.records`. Importers live in `catalog.skypilot` and `catalog.hf_config`.
"""

from catalog.build import build_catalog
from catalog.query import Catalog, open_catalog
from catalog.records import (
    CatalogData,
    EgressTier,
    GpuRecord,
    ModelRecord,
    OfferRecord,
    ProviderRecord,
    Resolution,
)

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
