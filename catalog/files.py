"""Reading the reviewed data files (catalog/data/*.csv|yml) into validated records.

Why validate here: the files are edited by hand, so a typo ("9.0.1" TFLOPS, a missing
observed_on) must fail the build with the file and row named, not surface later as a wrong
answer. Several data directories can be given; a later directory's row replaces an earlier
row with the same id, which is how `open_catalog(extra_data_dirs=...)` adds local offers.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from catalog.fingerprint import (  # noqa: F401 - re-exported: catalog.files was their home
    DATA_FILES,
    DEFAULT_DATA_DIR,
    SCHEMA_VERSION,
    content_hash,
    data_dirs_or_default,
)
from catalog.records import ApiPriceRecord, EgressTier, GpuRecord, ModelRecord, OfferRecord, ProviderRecord

# Columns kept in the files for reviewers and tests, not part of the records.
REVIEW_ONLY_COLUMNS = frozenset({"params_b_vendor", "active_params_b_vendor"})


class CatalogDataError(ValueError):
    """A data file row that does not validate; the message names file, row and field."""


@dataclass(frozen=True)
class AliasRow:
    """One hand-written alias: `id` None with candidates = ambiguous; both = family default."""

    kind: str
    alias: str
    id: str | None
    candidates: tuple[str, ...]
    note: str
    source: str
    observed_on: str


@dataclass(frozen=True)
class UnsupportedRow:
    """An accelerator the catalog deliberately does not cover (TPU, Trainium, Inferentia): a user who
    names one is told so instead of being answered for a GPU."""

    alias: str
    display: str
    note: str
    source: str
    observed_on: str


@dataclass
class RawData:
    """Everything read from the data directories, validated, in file order."""

    gpus: list[GpuRecord] = field(default_factory=list)
    models: list[ModelRecord] = field(default_factory=list)
    offers: list[OfferRecord] = field(default_factory=list)
    providers: list[ProviderRecord] = field(default_factory=list)
    aliases: list[AliasRow] = field(default_factory=list)
    unsupported: list[UnsupportedRow] = field(default_factory=list)
    api_prices: list[ApiPriceRecord] = field(default_factory=list)


def _clean(row: dict[str, Any]) -> dict[str, Any]:
    """CSV strings -> values pydantic can coerce: '' is None, review-only columns dropped."""
    out: dict[str, Any] = {}
    for key, value in row.items():
        if key is None or key in REVIEW_ONLY_COLUMNS:
            continue
        if isinstance(value, str):
            value = value.strip()
            if value == "":
                value = None
        out[key] = value
    return out


def read_csv_rows(path: Path) -> list[dict[str, Any]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return [_clean(row) for row in csv.DictReader(handle)]


def _validate(model: type[BaseModel], row: dict[str, Any], where: str) -> Any:
    if row.get("notes") is None and "notes" in model.model_fields:
        row["notes"] = ""
    try:
        return model.model_validate(row)
    except ValidationError as exc:
        raise CatalogDataError(f"{where}: {exc}") from exc


def _merge_by_id(target: list[Any], new: list[Any]) -> None:
    index = {item.id: i for i, item in enumerate(target)}
    for item in new:
        if item.id in index:
            target[index[item.id]] = item
        else:
            index[item.id] = len(target)
            target.append(item)


def _read_providers(path: Path) -> list[ProviderRecord]:
    import yaml  # only when the data files are read (a build), not when a built catalog is opened

    doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    out = []
    for i, entry in enumerate(doc.get("providers", [])):
        entry = dict(entry)
        entry["egress_tiers"] = tuple(EgressTier(**tier) for tier in entry.get("egress_tiers") or ())
        entry.setdefault("notes", "")
        if entry.get("observed_on") is not None:
            entry["observed_on"] = str(entry["observed_on"])
        out.append(_validate(ProviderRecord, entry, f"{path} entry {i + 1}"))
    return out


def _read_aliases(path: Path) -> list[AliasRow]:
    rows = []
    for i, row in enumerate(read_csv_rows(path), start=2):
        if not row.get("kind") or not row.get("alias") or not row.get("source") or not row.get("observed_on"):
            raise CatalogDataError(f"{path} line {i}: kind, alias, source and observed_on are required")
        candidates = tuple(c.strip() for c in (row.get("candidates") or "").split(";") if c.strip())
        if not row.get("id") and not candidates:
            raise CatalogDataError(f"{path} line {i}: an alias needs an id or candidates")
        rows.append(
            AliasRow(
                kind=row["kind"],
                alias=row["alias"],
                id=row.get("id"),
                candidates=candidates,
                note=row.get("note") or "",
                source=row["source"],
                observed_on=row["observed_on"],
            )
        )
    return rows


def _read_unsupported(path: Path) -> list[UnsupportedRow]:
    rows = []
    for i, row in enumerate(read_csv_rows(path), start=2):
        if not all(row.get(k) for k in ("alias", "display", "source", "observed_on")):
            raise CatalogDataError(f"{path} line {i}: alias, display, source and observed_on are required")
        rows.append(UnsupportedRow(row["alias"], row["display"], row.get("note") or "", row["source"], row["observed_on"]))
    return rows


def read_data(data_dirs: Sequence[Path] | None = None) -> RawData:
    """Read and validate every data file in `data_dirs` (default: the packaged catalog/data)."""
    raw = RawData()
    for directory in data_dirs_or_default(data_dirs):
        directory = Path(directory)
        buckets: tuple[tuple[str, type[BaseModel], list[Any]], ...] = (
            ("gpus.csv", GpuRecord, raw.gpus),
            ("models.csv", ModelRecord, raw.models),
            ("offers.csv", OfferRecord, raw.offers),
            ("api_prices.csv", ApiPriceRecord, raw.api_prices),
        )
        for name, model, bucket in buckets:
            path = directory / name
            if path.is_file():
                rows = read_csv_rows(path)
                _merge_by_id(
                    bucket, [_validate(model, r, f"{path} line {i}") for i, r in enumerate(rows, start=2)]
                )
        if (directory / "providers.yml").is_file():
            _merge_by_id(raw.providers, _read_providers(directory / "providers.yml"))
        if (directory / "aliases.csv").is_file():
            raw.aliases.extend(_read_aliases(directory / "aliases.csv"))
        if (directory / "unsupported.csv").is_file():
            raw.unsupported.extend(_read_unsupported(directory / "unsupported.csv"))
    return raw
