"""`Catalog`: read access to a built catalog database, as records and name resolutions.

Why the engine never sees this class: it takes a `CatalogData` bundle of plain records
(`Catalog.data()`), so estimates are pure functions testable without SQLite. The bot owns the
`Catalog` and decides where its database lives; nothing here reads the environment.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterable, Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

from catalog.aliases import AliasEntry
from catalog.fingerprint import DEFAULT_DATA_DIR, content_hash
from catalog.overlay import apply_overlay, load_overlay
from catalog.records import (
    ApiPriceRecord,
    AzureName,
    CatalogData,
    EgressTier,
    GpuRecord,
    InstanceResolution,
    ModelRecord,
    NameMatch,
    OfferRecord,
    ProviderRecord,
    Resolution,
    azure_name,
)
from catalog.resolve import Resolver

# The family-and-version shorthand people write for Azure's H100 VMs: "NDv5" for ND H100 v5, the first v5 ND series
# (ND H200 v5 and ND MI300X v5 came later and are named with their GPU)
AZURE_SHORTHANDS = {("nd", "v5"): "h100"}
# An Azure VM name inside a message, as words ("nd h100 v5", "standard nc24ads a100 v4", "ndv5"): a candidate for
# `Catalog.find_names`, kept only when `resolve_instance` knows it
_AZURE_IN_TEXT = re.compile(r"(?<![\w.-])(?:standard[ _-]*)?n[cdv]\d*[a-z]*(?:[ _-]+[a-z]+\d+[a-z]*)?[ _-]*v\d+(?![\w.-])",
                            re.IGNORECASE)


class Catalog:
    """A built catalog database. Records are read once and cached (the database is read-only)."""

    def __init__(self, db: Any, data_hash: str | None = None) -> None:
        """`db`: a sqlite3 connection, or a sqlite-utils Database (its connection is used). Reads
        are plain sqlite3, so opening a built catalog never imports sqlite-utils (cold start)."""
        self.conn: sqlite3.Connection = getattr(db, "conn", db)
        self.data_hash = data_hash if data_hash is not None else _stored_hash(self.conn)

    def _rows(self, table: str, order_by: str = "id") -> list[dict]:
        cursor = self.conn.execute(f"select * from [{table}] order by {order_by}")
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]

    @cached_property
    def _data(self) -> CatalogData:
        tiers: dict[str, list[EgressTier]] = {}
        for row in self._rows("egress_tiers", order_by="provider, seq"):
            tiers.setdefault(row["provider"], []).append(
                EgressTier(up_to_gb=row["up_to_gb"], usd_per_gb=row["usd_per_gb"])
            )
        providers = tuple(
            ProviderRecord.model_validate({**row, "egress_tiers": tuple(tiers.get(row["id"], ()))})
            for row in self._rows("providers")
        )
        return CatalogData(
            gpus=tuple(GpuRecord.model_validate(r) for r in self._rows("gpus")),
            models=tuple(ModelRecord.model_validate(r) for r in self._rows("models")),
            offers=apply_overlay(self.bundled_offers(), load_overlay(self.conn)),
            providers=providers,
            api_prices=tuple(ApiPriceRecord.model_validate(r) for r in self._rows("api_prices")),
        )

    def bundled_offers(self) -> list[OfferRecord]:
        """The offers of the data files, before refreshed prices (`gpu-advisor catalog refresh`) apply."""
        return [OfferRecord.model_validate(r) for r in self._rows("offers")]

    @property
    def db(self) -> Any:
        """The database as a sqlite-utils Database, for writes (refreshed prices, Hub lookups); reads use
        the plain connection, so answering does not import sqlite-utils."""
        import sqlite_utils

        return sqlite_utils.Database(self.conn)

    def reload(self) -> None:
        """Forget the cached records, so refreshed prices stored since are used by the next answer."""
        for name in ("_data", "_resolver"):
            self.__dict__.pop(name, None)

    def data(self) -> CatalogData:
        """Everything the engine needs, as frozen records."""
        return self._data

    def gpus(self) -> list[GpuRecord]:
        return list(self._data.gpus)

    def models(self) -> list[ModelRecord]:
        return list(self._data.models)

    def offers(self) -> list[OfferRecord]:
        return list(self._data.offers)

    def providers(self) -> list[ProviderRecord]:
        return list(self._data.providers)

    @cached_property
    def _resolver(self) -> Resolver:
        entries = [
            AliasEntry(
                kind=r["kind"],
                key=r["key"],
                alias=r["alias"],
                id=r["id"],
                candidates=tuple(json.loads(r["candidates"] or "[]")),
                note=r["note"] or "",
                source=r["source"] or "",
                rank=r["rank"],
            )
            for r in self._rows("aliases", order_by="rowid")
        ]
        data = self._data
        names = {
            "gpu": {g.id: g.name for g in data.gpus},
            "model": {m.id: m.name for m in data.models},
            "provider": {p.id: p.name for p in data.providers},
        }
        sizes = {m.id: (m.total_params_b, m.active_params_b) for m in data.models}
        return Resolver(entries, names, sizes)

    def resolve_gpu(self, text: str) -> Resolution:
        """'A100 80GB', 'a100-80g', 'H100', '4090' -> a GPU id (never raises)."""
        return self._resolver.resolve("gpu", text)

    def resolve_model(self, text: str) -> Resolution:
        """'llama 3 70b', 'Llama-3.1-70B-Instruct', 'meta-llama/Meta-Llama-3-70B' -> a model id."""
        return self._resolver.resolve("model", text)

    def resolve_provider(self, text: str) -> Resolution:
        """'AWS', 'SageMaker', 'Lambda Labs', 'bare metal' -> a provider id."""
        return self._resolver.resolve("provider", text)

    def find_api(self, text: str) -> Any:
        """A hosted model API named in `text` ("vs gpt-4o-mini api"): a `catalog.api_prices.ApiMention` (its row id and
        where its words are, so the parser can take them out), or None. Never raises."""
        from catalog.api_prices import find_api

        return find_api(text, self._data.api_prices)

    def find_names(self, text: str) -> list[NameMatch]:
        """Multi-word model names, GPU names written as words and unsupported accelerators inside a
        message ("serve mistral large 2 on tpu v5e"), so the parser can read names its grammar would
        split into plain words. Never raises."""
        found = self._resolver.find_names(text)
        machines = self._azure_names(text)
        if not machines:
            return found
        free = [m for m in found if not any(m.start < a.end and a.start < m.end for a in machines)]
        return sorted([*free, *machines], key=lambda m: m.start)

    def _azure_names(self, text: str) -> list[NameMatch]:
        """Azure VM names written as words ("ND H100 v5"), as one name-shaped word the parser reads as a machine
        ("nd-h100-v5"); only names some offer has."""
        out: list[NameMatch] = []
        for m in _AZURE_IN_TEXT.finditer(text if isinstance(text, str) else ""):
            if self.resolve_instance(m.group(0)) is not None:
                glued = "-".join(re.split(r"[ _-]+", m.group(0).lower()))
                out.append(NameMatch(start=m.start(), end=m.end(), text=m.group(0), kind="instance", id=glued))
        return out

    def _azure_instance(self, query: str, name: AzureName) -> InstanceResolution | None:
        """An Azure size ("ND96isr H100 v5": that VM, its GPUs fixed) or series ("ND H100 v5", "NC A100 v4", "NDv5":
        its sizes, as many machines as the job needs, like an AWS family); None when no Azure offer has it."""
        if not name.accelerator and not name.vcpus:
            shorthand = AZURE_SHORTHANDS.get((name.family, name.version))
            if shorthand is None:
                return None
            name = name._replace(accelerator=shorthand)
        azure = [(o, azure_name(o.instance_type)) for o in self._data.offers if o.provider == "azure"]
        if name.vcpus:  # a size: the same family, vCPUs, features and version (the accelerator, when written)
            size = next((o for o, a in azure if a is not None and (a.family, a.vcpus, a.features, a.version)
                         == (name.family, name.vcpus, name.features, name.version)
                         and name.accelerator in ("", a.accelerator)), None)
            if size is None:
                return None
            return InstanceResolution(query=query, instance_type=size.instance_type, id=size.gpu,
                                      gpus_per_node=size.gpus_per_node, provider=size.provider, offer_id=size.id)
        series = [o for o, a in azure if a is not None and a.series.lower() == name.series.lower()]
        largest = max(series, key=lambda o: (o.gpus_per_node, o.id), default=None)
        if largest is None:
            return None
        return InstanceResolution(query=query, instance_type=name.series, id=largest.gpu, gpus_per_node=largest.gpus_per_node,
                                  provider=largest.provider, offer_id=largest.id, family=True)

    def resolve_instance(self, text: str) -> InstanceResolution | None:
        """`_resolve_instance` with the GPU's and provider's display names, for the notes that say it back."""
        found = self._resolve_instance(text)
        if found is None:
            return None
        gpu = self._data.gpu(found.id)
        provider = self._data.provider(found.provider)
        return found.model_copy(update={"gpu_name": gpu.name if gpu is not None else "",
                                        "provider_name": provider.name if provider is not None else ""})

    def _resolve_instance(self, text: str) -> InstanceResolution | None:
        """'p5.48xlarge', 'ml.p4d.24xlarge', 'a3-highgpu-1g', 'gpu_8x_h100_sxm5', 'ND96isr H100 v5' -> the GPU, how
        many per node and whose; a family or series ('p5', 'ND H100 v5') -> its machines; None when no offer has that
        instance type. Case-insensitive; never raises."""
        key = str(text).strip().lower()
        if not key:
            return None
        match = next((o for o in self._data.offers if o.instance_type.lower() == key), None)
        if match is None and re.fullmatch(r"[a-z]+\d+[a-z]*(?:-[a-z0-9]+)?", key):
            # a family as people say it ("p5", "p4de", "p6-b200"): its largest machine, the one clusters are built of
            family = [o for o in self._data.offers if o.instance_type.lower().split(".")[0] == key and "." in o.instance_type]
            match = max(family, key=lambda o: (o.gpus_per_node, o.id), default=None)
            if match is not None:
                return InstanceResolution(query=str(text), instance_type=key, id=match.gpu, gpus_per_node=match.gpus_per_node,
                                          provider=match.provider, offer_id=match.id, family=True)
        if match is None:
            azure = azure_name(key)
            return self._azure_instance(str(text), azure) if azure is not None else None
        return InstanceResolution(query=str(text), instance_type=match.instance_type, id=match.gpu,
                                  gpus_per_node=match.gpus_per_node, provider=match.provider, offer_id=match.id)


def price_offers(
    offers: Iterable[OfferRecord],
    *,
    gpus: Sequence[str] = (),
    provider: str | None = None,
    gpus_per_node: int | None = None,
    providers: Sequence[str] = (),
    regions: Sequence[str] = (),
) -> tuple[list[OfferRecord], list[str]]:
    """The offers a price question asks about ("how much is an H100 on AWS?", "price of 8x H100 on
    Lambda"), cheapest on-demand GPU-hour first, and which filters ("provider", "gpus_per_node") were
    dropped because nothing matched them.

    `gpus` is the GPU and its family (an "H100" question is about every H100 one can rent). A provider
    or instance size that has no matching offer widens the search instead of answering with nothing,
    and says so: the user learns that RunPod has no 4090 row *and* who does rent one. Offers without
    any published price come last. Pure over the records, so a refreshed price overlay is queried alike.

    `providers` ("on CoreWeave vs Lambda vs Nebius") keeps the offers of each one named, a comparison: one without
    the GPU is simply absent (`missing_providers` says which), and only when none has it is the search widened.

    `regions` ("in Europe", "in eu-west-1", "in us-east"; `catalog.regions`) keeps the offers there. A region id with no
    offer widens to its area first ("region_area": eu-west-1 to Europe), then to every region ("region"), and the
    answer says so: a row outside the region asked never answers as if it were in it.
    """
    wanted = set(gpus)
    pool = [o for o in offers if not wanted or o.gpu in wanted]
    widened: list[str] = []  # the reply says "no RunPod offer of that GPU; other providers:"
    if providers:
        at_any = at_providers(pool, providers)
        if at_any or not pool:
            pool = at_any
        else:
            widened.append("provider")
    if provider is not None:
        at_provider = [o for o in pool if o.provider == provider]
        if at_provider or not pool:
            pool = at_provider
        else:
            widened.append("provider")
    if regions and pool:
        pool = _in_regions(pool, regions, widened)
    if gpus_per_node is not None and pool:
        sized = [o for o in pool if o.gpus_per_node == gpus_per_node]
        if sized:
            pool = sized
        else:
            widened.append("gpus_per_node")

    def cheapest_gpu_hour(offer: OfferRecord) -> tuple[int, float, str]:
        prices = [p for p in (offer.on_demand_usd_per_hour, offer.reserved_usd_per_hour, offer.spot_usd_per_hour) if p]
        if not prices:
            return (1, 0.0, offer.id)
        return (0, (offer.on_demand_usd_per_hour or min(prices)) / offer.gpus_per_node, offer.id)

    return sorted(pool, key=cheapest_gpu_hour), widened


def _in_regions(pool: list[OfferRecord], regions: Sequence[str], widened: list[str]) -> list[OfferRecord]:
    """The offers of `pool` in one of `regions`, else in their areas, else all of them (`widened` says which)."""
    from catalog.regions import in_region, widened_area

    there = [o for o in pool if any(in_region(o.region, r) for r in regions)]
    if there:
        return there
    areas = [a for a in dict.fromkeys(widened_area(r) for r in regions) if a]
    nearby = [o for o in pool if any(in_region(o.region, a) for a in areas)]
    if nearby:
        widened.append("region_area")
        return nearby
    widened.append("region")
    return pool


def at_providers(offers: Iterable[OfferRecord], providers: Sequence[str]) -> list[OfferRecord]:
    """The offers of the providers named (a comparison lists each one's rows)."""
    named = set(providers)
    return [o for o in offers if o.provider in named]


def missing_providers(offers: Iterable[OfferRecord], providers: Sequence[str]) -> list[str]:
    """The providers named that have none of `offers` (a price comparison says so, never drops them silently)."""
    having = {o.provider for o in offers}
    return [p for p in providers if p not in having]


def open_catalog(db_path: str | Path | None = None, *, extra_data_dirs: Sequence[Path] = ()) -> Catalog:
    """Open (building or rebuilding as needed) the catalog database.

    `db_path` None builds an in-memory database. Otherwise the file is built on first use and
    rebuilt when the data files' content hash differs from the one stored in it.
    `extra_data_dirs` are read after the packaged data; their rows replace same-id rows.
    """
    dirs = [DEFAULT_DATA_DIR, *(Path(d) for d in extra_data_dirs)]
    current = content_hash(dirs)
    if db_path is None:
        import sqlite_utils

        from catalog.build import build_into

        db = sqlite_utils.Database(memory=True)
        return Catalog(db, build_into(db, dirs))
    path = Path(db_path)
    if path.is_file():
        conn = sqlite3.connect(str(path), check_same_thread=False)
        if _stored_hash(conn) == current:
            return Catalog(conn, current)
        conn.close()
    from catalog.build import build_catalog

    build_catalog(path, dirs)
    return Catalog(sqlite3.connect(str(path), check_same_thread=False), current)


def _stored_hash(conn: sqlite3.Connection) -> str | None:
    """`catalog.build.stored_hash` with plain sqlite3 (same answer; no sqlite-utils import)."""
    from catalog.fingerprint import SCHEMA_VERSION

    if conn.execute("select 1 from sqlite_master where type = 'table' and name = 'meta'").fetchone() is None:
        return None
    rows = dict(conn.execute("select key, value from meta").fetchall())
    if rows.get("schema_version") != SCHEMA_VERSION:
        return None
    return rows.get("data_hash")
