"""Finding a hosted model API named in a message ("vs gpt-4o-mini api", "cheaper than claude haiku?").

Why in the catalog: the names are the data file's (`api_prices.csv`, column `aliases`), and the parser must take an
API's name out of the text before it reads model names, or "gpt-4o-mini" is an unknown model to size. Pure over
the records: no database, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from catalog.records import ApiPriceRecord

# what may surround an API's name and goes with it: "vs the gpt-4o-mini api", "or use the together api", "than claude
# haiku", "gpt-4o via the openai api"
_BEFORE = r"(?:(?:\bvs\.?|\bversus|\bor\s+use|\bor\s+just\s+use|\bor|\bthan|\bagainst|\bcompared\s+(?:to|with)|\bto)\s+" \
          r"(?:(?:using|paying\s+for|just)\s+)?(?:the\s+|an?\s+)?)?"
_AFTER = r"(?:'s)?(?:\s+(?:api|apis|endpoints?|serverless|via\s+(?:the\s+)?(?:openai|anthropic|google)\s+api))?"
# a vendor's own API word ("the openai api", "anthropic's api") without a model: not a price row, so not matched


@dataclass(frozen=True)
class ApiMention:
    """An API named in a text: the row it names, the words as written, and where they were (`start:end`, with the
    connecting words around them that go with it)."""

    id: str
    said: str
    start: int
    end: int


def _spelled(alias: str) -> str:
    """An alias as a pattern: spaces, '-' and '.' between its parts interchangeable ("gpt 4o mini" = "gpt-4o-mini")."""
    parts = [re.escape(p) for p in re.split(r"[\s\-]+", alias.lower()) if p]
    return r"[\s\-]*".join(parts)


@lru_cache(maxsize=8)
def _pattern(aliases: tuple[tuple[str, str], ...]) -> re.Pattern[str]:
    ordered = sorted(aliases, key=lambda a: -len(a[0]))  # the longest name first: "gpt-4o-mini" before "gpt-4o"
    names = "|".join(f"(?P<a{i}>{_spelled(alias)})" for i, (alias, _) in enumerate(ordered))
    return re.compile(rf"{_BEFORE}(?<![\w.\-/])(?:{names})(?![\w\-]|\.\d){_AFTER}", re.IGNORECASE)


def _table(records: Sequence[ApiPriceRecord]) -> tuple[tuple[str, str], ...]:
    rows = [(alias.lower(), r.id) for r in records for alias in r.alias_list()]
    return tuple(sorted(rows, key=lambda a: -len(a[0])))


def find_api(text: str, records: Sequence[ApiPriceRecord]) -> ApiMention | None:
    """The first API a text names (its longest name where two overlap), or None. Never raises."""
    if not isinstance(text, str) or not records:
        return None
    table = _table(records)
    found = _pattern(table).search(text)
    if found is None:
        return None
    index = next(int(k[1:]) for k, v in found.groupdict().items() if v is not None)
    said = found.group(f"a{index}")
    return ApiMention(id=table[index][1], said=said, start=found.start(), end=found.end())


def without_api(text: str, mention: ApiMention) -> str:
    """The text with the API's words (and the "vs" or "than" that led to them) taken out, for the rest to be read."""
    return re.sub(r"\s{2,}", " ", f"{text[:mention.start]} {text[mention.end:]}").strip()


def for_model(records: Iterable[ApiPriceRecord], named: ApiPriceRecord, model_id: str | None) -> ApiPriceRecord:
    """The row a comparison uses: a vendor of open weights named ("the together api") serving the model planned, when
    it lists that model; else the row named."""
    if named.open_model is None or not model_id or named.open_model == model_id:
        return named
    same = [r for r in records if r.vendor == named.vendor and r.open_model == model_id]
    return same[0] if same else named
