"""Name lookup: text -> `Resolution` (resolved, family default, ambiguous, or unknown).

Why here and not in the parser: names belong to the catalog (the skypilot accelerator
registry does the same), so the grammar never hard-codes "A100". The parser calls these
through its `NameResolver` protocol. `resolve` never raises: unknown text comes back as a
Resolution with a message and close suggestions (difflib over the alias keys).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping

from catalog.aliases import AliasEntry
from catalog.normalize import lookup_keys
from catalog.records import Resolution

_KIND_WORD = {"gpu": "GPU", "model": "model", "provider": "provider"}


class Resolver:
    """Alias entries indexed by (kind, key), plus display names for messages."""

    def __init__(self, entries: Iterable[AliasEntry], names: Mapping[str, Mapping[str, str]]) -> None:
        self._by_kind: dict[str, dict[str, AliasEntry]] = {}
        for entry in entries:
            self._by_kind.setdefault(entry.kind, {})[entry.key] = entry
        self._names = names

    def _label(self, kind: str, target: str) -> str:
        name = self._names.get(kind, {}).get(target)
        return f"{name} ({target})" if name and name != target else target

    def resolve(self, kind: str, text: object) -> Resolution:
        query = text if isinstance(text, str) else ""
        table = self._by_kind.get(kind, {})
        word = _KIND_WORD.get(kind, kind)
        for key in lookup_keys(query, kind):
            entry = table.get(key)
            if entry is None:
                continue
            if entry.id and not entry.candidates:
                return Resolution(query=query, id=entry.id)
            others = ", ".join(self._label(kind, c) for c in entry.candidates)
            if entry.id:
                why = f" ({entry.note})" if entry.note else ""
                message = (
                    f"'{query.strip()}' can mean more than one {word}; using {self._label(kind, entry.id)}{why}. "
                    f"Others: {others}."
                )
                return Resolution(query=query, id=entry.id, candidates=entry.candidates, message=message)
            return Resolution(
                query=query,
                candidates=entry.candidates,
                message=f"'{query.strip()}' is ambiguous: which {word}? {others}.",
            )
        return Resolution(query=query, message=self._unknown_message(kind, query, table))

    def _unknown_message(self, kind: str, query: str, table: Mapping[str, AliasEntry]) -> str:
        word = _KIND_WORD.get(kind, kind)
        shown = query.strip()[:80]
        keys = lookup_keys(query, kind)
        suggestions: list[str] = []
        if keys:
            for key in difflib.get_close_matches(keys[0], list(table), n=6, cutoff=0.6):
                target = table[key].id or (table[key].candidates[0] if table[key].candidates else None)
                if target and target not in suggestions:
                    suggestions.append(target)
        if not suggestions:
            return f"Unknown {word} '{shown}': not in the catalog."
        labels = ", ".join(self._label(kind, s) for s in suggestions[:3])
        return f"Unknown {word} '{shown}'. Did you mean: {labels}?"
