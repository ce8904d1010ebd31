"""The alias table: every spelling the catalog answers to, built from records plus aliases.csv.

Why generated at build time: ids, display names and Hugging Face repo names are aliases
automatically, so aliases.csv only holds what cannot be derived (families like "A100",
shorthands like "4090", ambiguous names like "llama 70b"); unsupported.csv adds the accelerators
the catalog deliberately leaves out (kind "unsupported", `id` = their display name). The result is
one flat table of (kind, key) -> target, stored in SQLite, so a lookup is a dictionary hit.

Precedence when two spellings normalise to the same key: hand-written alias, then record id,
then display name, then HF repo; within a level, sorted by id. Deterministic by construction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from catalog.normalize import alias_key, model_name_variants

if TYPE_CHECKING:  # building the table reads the data files; answering only reads it (cold start)
    from catalog.files import RawData

KINDS = ("gpu", "model", "provider")
UNSUPPORTED = "unsupported"  # accelerators the catalog knows it does not cover; `id` holds the display name


@dataclass(frozen=True)
class AliasEntry:
    """One row of the built alias table."""

    kind: str
    key: str
    alias: str
    id: str | None
    candidates: tuple[str, ...]
    note: str
    source: str
    rank: int  # 0 hand-written, 1 id, 2 name, 3 hf repo


def _ids_by_kind(raw: RawData) -> dict[str, set[str]]:
    return {
        "gpu": {g.id for g in raw.gpus},
        "model": {m.id for m in raw.models},
        "provider": {p.id for p in raw.providers},
    }


def build_alias_entries(raw: RawData) -> list[AliasEntry]:
    """All alias entries, one per (kind, key), checked against the records they point to."""
    from catalog.files import CatalogDataError

    ids = _ids_by_kind(raw)
    entries: list[AliasEntry] = []
    for row in raw.aliases:
        if row.kind not in KINDS:
            raise CatalogDataError(f"aliases.csv: unknown kind {row.kind!r} for alias {row.alias!r}")
        for target in (row.id, *row.candidates):
            if target is not None and target not in ids[row.kind]:
                raise CatalogDataError(
                    f"aliases.csv: alias {row.alias!r} points to unknown {row.kind} {target!r}"
                )
        entries.append(
            AliasEntry(
                row.kind, alias_key(row.alias), row.alias, row.id, row.candidates, row.note, row.source, 0
            )
        )
    for u in raw.unsupported:
        entries.append(AliasEntry(UNSUPPORTED, alias_key(u.alias), u.alias, u.display, (), u.note, u.source, 0))
    auto: list[tuple[str, str, str, int]] = []  # kind, spelling, id, rank
    for g in sorted(raw.gpus, key=lambda r: r.id):
        auto += [("gpu", g.id, g.id, 1), ("gpu", g.name, g.id, 2)]
    for m in sorted(raw.models, key=lambda r: r.id):
        auto += [("model", m.id, m.id, 1), ("model", m.name, m.id, 2)]
        if m.hf_repo:
            auto += [("model", spelling, m.id, 3) for spelling in model_name_variants(m.hf_repo)]
    for p in sorted(raw.providers, key=lambda r: r.id):
        auto += [("provider", p.id, p.id, 1), ("provider", p.name, p.id, 2)]
    for kind, spelling, target, rank in auto:
        entries.append(
            AliasEntry(kind, alias_key(spelling), spelling, target, (), "", "catalog record", rank)
        )

    chosen: dict[tuple[str, str], AliasEntry] = {}
    for entry in sorted(entries, key=lambda e: (e.rank, e.kind, e.key, e.id or "", e.alias)):
        if entry.key:
            chosen.setdefault((entry.kind, entry.key), entry)
    return sorted(chosen.values(), key=lambda e: (e.kind, e.key))
