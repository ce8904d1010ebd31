"""Importing offers from SkyPilot catalog CSVs (skypilot-org/skypilot-catalog, schema v8).

Why an importer and not hand-typing: hyperscaler and GPU-cloud prices change every few
months; SkyPilot refreshes its catalog every few hours. The importer turns one of its
`vms.csv` files into `OfferRecord`s and `merge_offers` writes them into offers.csv for review.

Quirks handled (each exercised by tests/catalog/fixtures/skypilot/):
1. `GpuInfo` is a Python repr, parsed with `ast.literal_eval` (never `eval`).
2. GCP a2/a3 rows with no AcceleratorName price the host VM only: skipped.
3. `700.0` is GCP's placeholder for slices not on offer: skipped.
4. Lambda's TotalGpuMemoryInMiB is per GPU: only the per-GPU size is read.
5. RunPod's SizeInMiB holds GB; RunPod's SpotPrice equals Price, i.e. no spot market.
6. Empty Price (capacity-block only) is kept as an offer without an on-demand price.
7. Fractional GPUs (g6f, AcceleratorCount < 1) are skipped.
8. Several AZs (incl. Local Zones) per instance type and region: one row, min spot price.
Columns are read by header name: the order differs per cloud.
"""

from __future__ import annotations

import ast
import csv
import io
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from catalog.records import GpuRecord, OfferRecord

GCP_PLACEHOLDER_PRICE = 700.0
# File column order: the record's own fields first, provenance last (as reviewers read rows).
OFFER_COLUMNS = tuple(f for f in OfferRecord.model_fields if f not in ("source", "observed_on")) + (
    "source",
    "observed_on",
)

# Networking SkyPilot does not record, for the multi-GPU shapes we know (AWS documentation).
KNOWN_NETWORK: dict[str, tuple[str, str | None, float | None]] = {
    "p3.8xlarge": ("NVLink 2 (300 GB/s)", "Ethernet 10 Gbps", 10),
    "p3dn.24xlarge": ("NVLink 2 (300 GB/s)", "EFA 100 Gbps", 100),
    "p4d.24xlarge": ("NVLink 3 (600 GB/s, NVSwitch)", "EFA 400 Gbps", 400),
    "p4de.24xlarge": ("NVLink 3 (600 GB/s, NVSwitch)", "EFA 400 Gbps", 400),
    "p5.48xlarge": ("NVLink 4 (900 GB/s, NVSwitch)", "EFA 3200 Gbps", 3200),
    "p5e.48xlarge": ("NVLink 4 (900 GB/s, NVSwitch)", "EFA 3200 Gbps", 3200),
    "p5en.48xlarge": ("NVLink 4 (900 GB/s, NVSwitch)", "EFA 3200 Gbps", 3200),
    "p6-b200.48xlarge": ("NVLink 5 (1800 GB/s, NVSwitch)", "EFA 3200 Gbps", 3200),
}


def _float(value: Any) -> float | None:
    try:
        number = float(str(value).strip())
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def parse_gpu_info(text: str | None) -> dict[str, Any]:
    """The GpuInfo column: a Python-repr dict (single quotes), so `ast.literal_eval`."""
    if not text:
        return {}
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def _per_gpu_memory_gb(info: dict[str, Any], provider_id: str) -> float | None:
    """Per-GPU memory in marketed GB. MiB/1024 (80 GB cards report 81920 MiB); RunPod: already GB."""
    gpus = info.get("Gpus") or []
    size = None
    if gpus and isinstance(gpus[0], dict):
        size = _float((gpus[0].get("MemoryInfo") or {}).get("SizeInMiB"))
    if size is None or size <= 0:
        return None
    return size if provider_id == "runpod" else size / 1024


def _pick_gpu(options: Sequence[GpuRecord], memory_gb: float | None, hint: str) -> GpuRecord:
    """Among a family's members, the one matching the PCIe hint and the reported memory."""
    wants_pcie = "pcie" in hint.lower()

    def score(item: tuple[int, GpuRecord]) -> tuple[int, float, int]:
        order, gpu = item
        pcie_mismatch = int(("pcie" in gpu.id) != wants_pcie)
        memory_gap = abs(gpu.memory_gb - memory_gb) if memory_gb else 0.0
        return (pcie_mismatch, memory_gap, order)

    return min(enumerate(options), key=score)[1]


def _links(instance: str, gpu: GpuRecord, count: int) -> tuple[str, str | None, float | None]:
    if instance in KNOWN_NETWORK:
        return KNOWN_NETWORK[instance]
    if count <= 1:
        return ("none (single GPU)", None, None)
    link = gpu.scaleup_link
    if link.startswith("NVLink ") and "bridge" not in link and gpu.scaleup_bandwidth_gb_s:
        return (f"{link} ({gpu.scaleup_bandwidth_gb_s:g} GB/s)", None, None)
    return (f"PCIe Gen{gpu.pcie_gen}" if gpu.pcie_gen else "PCIe", None, None)


REQUIRED_COLUMNS = ("InstanceType", "AcceleratorName", "AcceleratorCount", "Price", "Region")
# Header spellings seen across schema versions (v5 wrote "GPUInfo"); matched case-insensitively.
_COLUMN_ALIASES = {"gpuinfo": "GpuInfo"}


def canonical_header(fieldnames: Sequence[str] | None) -> dict[str, str]:
    """File column -> the name this module reads ("gpuinfo"/"GPUInfo" -> "GpuInfo")."""
    known = {c.lower(): c for c in (*REQUIRED_COLUMNS, "SpotPrice", "GpuInfo", "vCPUs", "MemoryGiB",
                                    "AvailabilityZone")}
    known.update(_COLUMN_ALIASES)
    return {f: known.get(f.strip().lower(), f.strip()) for f in (fieldnames or ())}


def missing_columns(fieldnames: Sequence[str] | None) -> list[str]:
    """The required columns a header lacks (schema v8 and v9 alike are read by header name)."""
    present = set(canonical_header(fieldnames).values())
    return [c for c in REQUIRED_COLUMNS if c not in present]


def read_skypilot_csv(
    path: str | Path,
    provider_id: str,
    observed_on: str,
    *,
    catalog: Any = None,
    source_label: str | None = None,
    skipped: list[str] | None = None,
) -> list[OfferRecord]:
    """Offers in one SkyPilot `vms.csv` file (see `read_skypilot_text`)."""
    text = Path(path).read_text(encoding="utf-8")
    return read_skypilot_text(text, provider_id, observed_on, catalog=catalog,
                              source_label=source_label or str(path), skipped=skipped)


def read_skypilot_text(
    text: str,
    provider_id: str,
    observed_on: str,
    *,
    catalog: Any = None,
    source_label: str = "vms.csv",
    skipped: list[str] | None = None,
) -> list[OfferRecord]:
    """Offers in one SkyPilot `vms.csv` text, mapped to catalog GPU ids, one row per (type, region).

    `catalog` (a `Catalog`, default: the packaged one in memory) supplies the alias table that
    maps SkyPilot accelerator names ("A100-80GB", "RTX PRO Server 6000") to GPU ids. Rows that
    cannot become an offer are left out; `skipped`, if given, collects why.
    """
    if catalog is None:
        from catalog.query import open_catalog

        catalog = open_catalog()
    gpus = {g.id: g for g in catalog.gpus()}
    notes_out = skipped if skipped is not None else []
    source = f"SkyPilot catalog {source_label}"
    merged: dict[tuple[str, str], dict[str, Any]] = {}

    reader = csv.DictReader(io.StringIO(text))
    header = canonical_header(reader.fieldnames)
    for line_no, raw in enumerate(reader, start=2):
        row = {header.get(k, k): v for k, v in raw.items() if k is not None}
        instance = (row.get("InstanceType") or "").strip()
        accelerator = (row.get("AcceleratorName") or "").strip()
        region = (row.get("Region") or "").strip()
        price = _float(row.get("Price"))
        spot = _float(row.get("SpotPrice"))
        count = _float(row.get("AcceleratorCount"))
        if not instance or not accelerator:
            notes_out.append(
                f"line {line_no}: no instance type or accelerator (host-only price, TPU or CPU row)"
            )
            continue
        if price == GCP_PLACEHOLDER_PRICE:
            notes_out.append(f"line {line_no}: {instance} price 700.0 is a placeholder, not an offer")
            continue
        if count is None or count < 1 or count != int(count):
            notes_out.append(f"line {line_no}: {instance} has a fractional GPU ({count}); skipped")
            continue
        info = parse_gpu_info(row.get("GpuInfo"))
        resolution = catalog.resolve_gpu(accelerator)
        options = [
            gpus[i]
            for i in ((resolution.id,) if resolution.id else ()) + resolution.candidates
            if i in gpus
        ]
        if not options:
            notes_out.append(f"line {line_no}: accelerator {accelerator!r} is not in the catalog")
            continue
        names = " ".join(str(g.get("Name", "")) for g in info.get("Gpus") or [] if isinstance(g, dict))
        gpu = _pick_gpu(options, _per_gpu_memory_gb(info, provider_id), f"{instance} {names}")
        if provider_id == "runpod" and spot is not None and spot == price:
            spot = None  # RunPod repeats Price as SpotPrice: no spot market in this row
        if spot is not None and spot == GCP_PLACEHOLDER_PRICE:
            spot = None

        key = (instance, region)
        entry = merged.get(key)
        if entry is None:
            intra, inter, inter_gbps = _links(instance, gpu, int(count))
            ram_gib = _float(row.get("MemoryGiB"))
            merged[key] = {
                "id": f"{provider_id}:{instance}:{region}",
                "provider": provider_id,
                "instance_type": instance,
                "gpu": gpu.id,
                "gpus_per_node": int(count),
                "vcpus": _float(row.get("vCPUs")),
                "ram_gb": round(ram_gib * 1.073741824, 1) if ram_gib else None,
                "intra_node_link": intra,
                "inter_node_fabric": inter,
                "inter_node_gbps": inter_gbps,
                "on_demand_usd_per_hour": price,
                "spot_usd_per_hour": spot,
                "region": region,
                "source": source,
                "observed_on": observed_on,
                "_zones": 1,
                "_spot_zones": int(spot is not None),
            }
            continue
        entry["_zones"] += 1
        if entry["on_demand_usd_per_hour"] is None:
            entry["on_demand_usd_per_hour"] = price
        if spot is not None:
            entry["_spot_zones"] += 1
            current = entry["spot_usd_per_hour"]
            entry["spot_usd_per_hour"] = spot if current is None else min(current, spot)

    offers = []
    for entry in merged.values():
        zones, spot_zones = entry.pop("_zones"), entry.pop("_spot_zones")
        notes = []
        if entry["spot_usd_per_hour"] is not None:
            notes.append(f"spot = lowest of {spot_zones} zone sample(s) (point in time)")
        if entry["on_demand_usd_per_hour"] is None:
            notes.append("no on-demand price (capacity blocks / reservations only)")
        if zones > 1:
            notes.append(f"{zones} availability zones merged")
        offers.append(OfferRecord(**entry, notes="; ".join(notes)))
    return sorted(offers, key=lambda o: o.id)


def _csv_value(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)
    return str(value)


def merge_offers(offers: Sequence[OfferRecord], offers_csv: str | Path) -> int:
    """Write `offers` into an offers.csv, replacing rows with the same id; returns rows written.

    The file is rewritten sorted by id with the record's columns, so re-importing the same
    snapshot gives a byte-identical file (reviewable diffs).
    """
    path = Path(offers_csv)
    rows: dict[str, dict[str, str]] = {}
    if path.is_file():
        with path.open(newline="", encoding="utf-8") as handle:
            for row in csv.DictReader(handle):
                rows[row["id"]] = {c: row.get(c) or "" for c in OFFER_COLUMNS}
    for offer in offers:
        dumped = offer.model_dump()
        rows[offer.id] = {c: _csv_value(dumped.get(c)) for c in OFFER_COLUMNS}
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(OFFER_COLUMNS), lineterminator="\n")
        writer.writeheader()
        for offer_id in sorted(rows):
            writer.writerow(rows[offer_id])
    return len(rows)
