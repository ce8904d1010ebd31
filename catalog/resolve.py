"""Name lookup: text -> `Resolution` (resolved, family default, ambiguous, or unknown).

Why here and not in the parser: names belong to the catalog (the skypilot accelerator
registry does the same), so the grammar never hard-codes "A100". The parser calls these
through its `NameResolver` protocol. `resolve` never raises: unknown text comes back as a
Resolution with a message and close suggestions (difflib over the alias keys).

Two guards keep a name from being silently wrong:
- a size written in a model name ("Mistral 24B", "235B-A22B", "Scout 17B") must match the
  entry's total or active parameters within rounding; an alias that would map it to a model of
  another size resolves to nothing (with the entry as a suggestion) instead;
- an accelerator the catalog deliberately leaves out (TPU, Trainium, Inferentia) comes back
  as `unsupported_accelerator`, so the answer names it rather than answering for a GPU.

`find_names` finds multi-word names inside a message ("mistral large 2", "llama 4 scout",
"tpu v5e") with one dictionary lookup per word window, so the parser can read a name its
grammar would split into plain words.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping

from catalog.aliases import UNSUPPORTED, AliasEntry
from catalog.normalize import alias_key, lookup_keys
from catalog.records import NameMatch, Resolution, moe_sizes_in_name, unlisted_moe_id

_KIND_WORD = {"gpu": "GPU", "model": "model", "provider": "provider"}
# "70b", "0.6b", "a22b" (active), "17b": a size written in a name; not "8x7b" (Mixtral counts experts)
_SIZE_IN_NAME = re.compile(r"(?<![x\d.])(\d+(?:\.\d+)?) ?b\b")
# Names round: "Llama 3.2 1B" is 1.24B, "Gemma 2 2B" 2.61B, "gpt-oss-120b" 116.8B. Sizes 3x apart never pass.
SIZE_RATIO_LOW, SIZE_RATIO_HIGH = 0.69, 1.45
MAX_NAME_WORDS = 6
_WORD = re.compile(r"\S+")
_SLICE_SIZE = re.compile(r"-\d+$")


def sizes_in_name(text: str) -> list[float]:
    """The parameter sizes (billions) a name states: "Qwen3-235B-A22B" -> [235.0, 22.0]."""
    return [float(m.group(1)) for m in _SIZE_IN_NAME.finditer(text.lower())]


def size_matches(stated_b: float, total_b: float, active_b: float) -> bool:
    """A stated size fits a model when it is its total or its active count, within name rounding."""
    return any(SIZE_RATIO_LOW <= value / stated_b <= SIZE_RATIO_HIGH for value in (total_b, active_b) if stated_b > 0)


# a generation said apart from the name: "deepseek v4", "deepseek-v3.2", "glm 5" (not "qwen2.5", "70b" or a "-2501" date)
_VERSION = re.compile(r"(?:^|(?<=[\s\-/]))v?(\d{1,2}(?:\.\d+)?)(?=[\s\-]|$)")


class Resolver:
    """Alias entries indexed by (kind, key), plus display names and model sizes for messages."""

    def __init__(
        self,
        entries: Iterable[AliasEntry],
        names: Mapping[str, Mapping[str, str]],
        model_sizes: Mapping[str, tuple[float, float]] | None = None,
    ) -> None:
        self._by_kind: dict[str, dict[str, AliasEntry]] = {}
        for entry in entries:
            self._by_kind.setdefault(entry.kind, {})[entry.key] = entry
        self._names = names
        self._sizes = dict(model_sizes or {})

    def _label(self, kind: str, target: str) -> str:
        name = self._names.get(kind, {}).get(target)
        return f"{name} ({target})" if name and name != target else target

    def resolve(self, kind: str, text: object) -> Resolution:
        query = text if isinstance(text, str) else ""
        table = self._by_kind.get(kind, {})
        for index, key in enumerate(lookup_keys(query, kind)):
            entry = table.get(key)
            if entry is None:
                continue
            if kind == "model" and index > 0 and self._other_version(query, entry):
                return Resolution(query=query, candidates=tuple(t for t in (entry.id, *entry.candidates) if t),
                                  message=self._other_version_message(query, entry))
            if kind == "model":
                sized = self._size_checked(query, entry)
                if sized is not None:
                    return sized
            return self._resolution(kind, query, entry)
        if kind == "gpu":
            unsupported = self.unsupported(query)
            if unsupported is not None:
                return unsupported
        if kind == "model":
            unlisted = self.unlisted_moe(query)
            if unlisted is not None and not self._slip(query, self._close_targets(kind, query, table)):
                return unlisted
        return Resolution(query=query, message=self._unknown_message(kind, query, table))

    def _other_version(self, query: str, entry: AliasEntry) -> bool:
        """"DeepSeek V4" reached the "deepseek" family entry by dropping its version: a generation none of the family's
        models has is another model (V4 Flash is 284B/13B, not V3's 671B), not the family's default."""
        # a release's own version ("Mixtral-8x7B-Instruct-v0.1") is a checkpoint, not a generation
        versions = [v for v in _VERSION.findall(query.lower()) if not v.startswith("0")]
        if not versions:
            return False
        targets = [t for t in (entry.id, *entry.candidates) if t]
        names = " ".join([*targets, *(self._names.get("model", {}).get(t, "") for t in targets)]).lower()
        # a minor release keeps its generation's shape (Mistral Small 3.1 is Small 3's 24B): the major number decides
        majors = {v.split(".")[0] for v in versions}
        return not any(re.search(rf"(?:^|[^\d.]){m}(?:\.\d+)?(?![\d])", names) for m in majors)

    def _other_version_message(self, query: str, entry: AliasEntry) -> str:
        shown = ", ".join(self._names.get("model", {}).get(t, t) for t in (entry.id, *entry.candidates) if t)
        said = query.strip()[:80]
        name = re.sub(r"\s+", "-", said)
        return (f"'{said}' is not in the catalog (it has {shown}): which model is it like, or how big is it? Say its "
                f"sizes with its name (e.g. “{name}-284B-A13B” for an MoE of 284B total and 13B active parameters), or "
                "“70B” for a dense model")

    def _slip(self, query: str, near: Iterable[str]) -> bool:
        """An MoE name whose total is a close catalog name's total with another active count ("Qwen3-235B-A3B"):
        a slip to point out with the suggestion, not a model to size."""
        sizes = moe_sizes_in_name(query)
        # only an MoE's name can slip on its active count: a dense model of about the same total (Qwen2.5-Coder 32B
        # beside "Qwen3-Coder-30B-A3B") is another model, and the name is sized as the MoE it states
        return sizes is not None and any(
            t in self._sizes and 0 < self._sizes[t][1] < self._sizes[t][0]
            and size_matches(sizes[0], self._sizes[t][0], 0.0)
            and not size_matches(sizes[1], self._sizes[t][1], 0.0) for t in near)

    def _close_targets(self, kind: str, query: str, table: Mapping[str, AliasEntry]) -> list[str]:
        """The entries a close spelling of `query` points to (what an unknown name's message suggests)."""
        keys = lookup_keys(query, kind)
        close = difflib.get_close_matches(keys[0], list(table), n=6, cutoff=0.6) if keys else []
        return [t for key in close for t in (table[key].id, *table[key].candidates) if t]

    @staticmethod
    def unlisted_moe(query: str) -> Resolution | None:
        """A name the catalog lacks that states an MoE's total and active sizes ("Foo-480B-A35B") resolves to
        itself as a stand-in id (`CatalogData.model` gives it those sizes on a catalog MoE's layer shape):
        sized as what its name says, never as a dense model of its total."""
        model_id = unlisted_moe_id(query)
        sizes = moe_sizes_in_name(query)
        if model_id is None or sizes is None:
            return None
        total, active = sizes
        return Resolution(query=query, id=model_id, params_b=total,
                          message=f"{query.strip()} is not in the catalog: sized as an MoE of {total:g}B total / "
                                  f"{active:g}B active, the sizes its name states")

    def _resolution(self, kind: str, query: str, entry: AliasEntry) -> Resolution:
        word = _KIND_WORD.get(kind, kind)
        params = self._params(kind, entry.id)
        if entry.id and not entry.candidates:
            return Resolution(query=query, id=entry.id, params_b=params)
        others = ", ".join(self._label(kind, c) for c in entry.candidates)
        if entry.id:
            return Resolution(query=query, id=entry.id, candidates=entry.candidates,
                              message=self._covers_message(kind, entry), params_b=params)
        return Resolution(
            query=query,
            candidates=entry.candidates,
            message=f"'{query.strip()}' is ambiguous: which {word}? {others}.",
        )

    def _covers_message(self, kind: str, entry: AliasEntry) -> str:
        """"'H100' covers several GPUs (SXM5 80GB, PCIe 80GB, NVL 94GB): used H100 SXM5 80GB; the SXM5
        80GB is the common cloud H100 (...)." A family name is a choice among models, not a count, so
        the note names the choice made and why; the variants are shown without the family's own name."""
        word = _KIND_WORD.get(kind, kind)
        shown = [self._names.get(kind, {}).get(t, t) for t in (entry.id or "", *entry.candidates)]
        family = shown[0].split()[0] if shown[0] else ""
        variants = [v[len(family):].strip() if family and v.startswith(family + " ") and kind == "gpu" else v
                    for v in shown]
        why = entry.note.split(": ", 1)[1] if entry.note.startswith(("family: ", "ambiguous version: ")) else entry.note
        alias = entry.alias.strip() or entry.key
        return (f"'{alias}' covers several {word}s ({', '.join(variants)}): used {shown[0]}"
                + (f"; {why}" if why else "") + ".")

    def _params(self, kind: str, target: str | None) -> float | None:
        return self._sizes[target][0] if kind == "model" and target in self._sizes else None

    def _size_checked(self, query: str, entry: AliasEntry) -> Resolution | None:
        """None when the name states no size or the entry fits it; otherwise the fitting family
        member, or an unknown model that suggests the entry (never a neighbour of another size)."""
        stated = sizes_in_name(query)
        if not stated:
            return None
        targets = [t for t in (entry.id, *entry.candidates) if t]
        fitting = [t for t in targets if t in self._sizes and all(size_matches(s, *self._sizes[t]) for s in stated)]
        if entry.id in fitting:
            return None
        if len(fitting) == 1:
            return Resolution(query=query, id=fitting[0], params_b=self._params("model", fitting[0]))
        if fitting:
            names = ", ".join(self._label("model", t) for t in fitting)
            return Resolution(query=query, candidates=tuple(fitting),
                              message=f"'{query.strip()}' is ambiguous: which model? {names}.")
        unlisted = self.unlisted_moe(query)  # "Qwen3-Coder-30B-A3B": another size of a family the catalog holds
        if unlisted is not None and not self._slip(query, targets):
            return unlisted
        size = "/".join(f"{s:g}B" for s in stated)
        closest = ", ".join(self._label("model", t) for t in targets[:3])
        return Resolution(
            query=query,
            message=f"Unknown model '{query.strip()[:80]}': the catalog has no {size} model by that name "
            f"(not {closest}). Did you mean: {closest}?",
        )

    def unsupported(self, text: str) -> Resolution | None:
        """'TPU v5e', 'trainium2' -> a Resolution naming the accelerator as not covered; else None."""
        table = self._by_kind.get(UNSUPPORTED, {})
        for key in (*lookup_keys(text, "gpu"), alias_key(_SLICE_SIZE.sub("", text.strip()))):
            entry = table.get(key)
            if entry is not None and entry.id:
                why = f" ({entry.note})" if entry.note else ""
                return Resolution(
                    query=text,
                    unsupported_accelerator=entry.id,
                    message=f"{entry.id} is not covered: this catalog sizes NVIDIA, AMD and Intel Gaudi 3 accelerators "
                    f"only{why}.",
                )
        return None

    def find_names(self, text: str) -> list[NameMatch]:
        """Model names of two or more words, GPU names written as words ("gaudi 3", "rtx pro 6000")
        and unsupported accelerators inside `text`, longest first, without overlaps.

        Only windows whose key is an alias count, so ordinary words never match; a window may not
        start or end on a word that vanishes from keys ("the", "nvidia", "gpus").
        """
        words = [(m.start(), m.end(), m.group(0)) for m in _WORD.finditer(text if isinstance(text, str) else "")]
        found: list[NameMatch] = []
        i = 0
        while i < len(words):
            match = None
            if alias_key(words[i][2]):
                for n in range(min(MAX_NAME_WORDS, len(words) - i), 0, -1):
                    if not alias_key(words[i + n - 1][2]) or any(w[2] == "," for w in words[i:i + n]):
                        continue
                    match = self._window(text, words[i][0], words[i + n - 1][1], n)
                    if match is not None:
                        i += n
                        break
            if match is None:
                i += 1
            else:
                found.append(match)
        return found

    def _window(self, text: str, start: int, end: int, n: int) -> NameMatch | None:
        span = text[start:end]
        keys = [alias_key(span)]
        if keys[0].endswith("s") and len(keys[0]) > 2:
            keys.append(keys[0][:-1])
        slice_size = _SLICE_SIZE.sub("", span)  # "tpu v5e-8": a v5e slice of 8 chips
        for key in (*keys, alias_key(slice_size)):
            unsupported = self._by_kind.get(UNSUPPORTED, {}).get(key)
            if unsupported is not None and unsupported.id:
                return NameMatch(start=start, end=end, text=span, kind="unsupported", display=unsupported.id)
        key = keys[0]
        if n >= 2 or "/" in span:  # one word only as a Hub repo id ("qwen/qwen3-32b")
            entry = self._by_kind.get("model", {}).get(key)
            if entry is not None:
                resolved = self.resolve("model", span)
                if resolved.id and not resolved.candidates:
                    return NameMatch(start=start, end=end, text=span, kind="model", id=resolved.id)
                if resolved.id is None and resolved.candidates and entry.id is None:
                    return NameMatch(start=start, end=end, text=span, kind="model", candidates=resolved.candidates)
        has_digit = any(c.isdigit() for c in span)
        if n >= 2 or not has_digit:
            entry = self._by_kind.get("gpu", {}).get(key)
            if entry is not None and entry.id and not entry.candidates:
                return NameMatch(start=start, end=end, text=span, kind="gpu", id=entry.id)
        return None

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
