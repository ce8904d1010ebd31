"""Model names the catalog does not know, looked up on the Hugging Face Hub while a message is read.

Why in the bot: the Hub is the network, and only the bot touches it (the parser asks a resolver,
the engine receives records). `HubResolver` wraps the catalog's resolver: it answers exactly as
the catalog does, except for
- a repo id (`Qwen/Qwen3-32B`, or a pasted Hub link, which the parser reads as one): the catalog's
  own row when one has that `hf_repo`, else the Hub's config.json + safetensors headers;
- a sized name the catalog does not know ("qwen3 30b a3b", "gemma 3 27b"): a Hub search for the
  publisher's repo, or a question when several publishers fit.
Names the catalog knows, GPU-shaped names and plain words never reach the network.

What it found is added to the `CatalogData` the engine receives (`with_hub_models`), and what a
reply should say about it (where the shape came from; "the Hugging Face Hub could not be
reached"; "it is gated: set HF_TOKEN") is collected per turn (`begin_turn` / `turn_notes`).
"""

from __future__ import annotations

import re
import threading
from typing import Any

from catalog.hub import HubCache, HubClient, HubResult, HubSettings, is_repo_id
from catalog.records import CatalogData, ModelRecord, Resolution
from parser.repo_ids import repo_ids_in

# "70b", "30b a3b", "8x7b", "1.5b": a parameter size, what makes an unknown name worth a Hub search
_SIZED = re.compile(r"(?<![a-z])\d+(?:\.\d+)?b\b|\d+x\d+(?:\.\d+)?b\b")
_FILLER = {"a", "an", "the", "of", "on", "for", "with", "to", "in", "our", "my", "your", "model", "models", "llm",
           "llms", "dense", "moe", "base", "instruct", "chat", "sized", "size", "param", "params", "parameter",
           "parameters", "a3b", "a22b",
           # verbs in front of a count ("embed 1b documents", "index 2b rows"): not part of a model's name
           "embed", "embedding", "index", "process", "classify", "label", "ingest", "have", "has", "got", "handle"}
_GPU_WORDS = {"rtx", "gtx", "nvidia", "amd", "tesla", "radeon", "instinct", "gaudi", "tpu", "trainium", "inferentia"}


def hub_client(settings: HubSettings, catalog_path: Any) -> HubClient:
    """A client whose cache lives in the catalog database file (in memory without one)."""
    return HubClient(settings, HubCache(catalog_path))


class HubResolver:
    """The catalog's name resolver, plus Hub lookups for repo ids and sized unknown model names."""

    def __init__(self, catalog: Any, client: HubClient) -> None:
        self._catalog = catalog
        self._client = client
        self._local = threading.local()
        self._lock = threading.Lock()
        self._found: dict[str, ModelRecord] = {m.id: m for m in client.cache.models()}
        self._missed: set[str] = set()  # names the Hub search did not find, this process

    def __getattr__(self, name: str) -> Any:  # resolve_gpu, resolve_provider, resolve_instance, ...
        return getattr(self._catalog, name)

    # --- per turn -------------------------------------------------------------------------------
    def begin_turn(self, text: str) -> None:
        """Start a message: remember how its repo ids were spelt, forget the last turn's notes."""
        self._local.spelling = repo_ids_in(text)
        self._local.notes = []

    def turn_notes(self) -> list[str]:
        """What the reply should say about Hub lookups made while reading this message."""
        return list(dict.fromkeys(getattr(self._local, "notes", [])))

    def _note(self, line: str) -> None:
        if line:
            if not hasattr(self._local, "notes"):
                self._local.notes = []
            self._local.notes.append(line)

    # --- records --------------------------------------------------------------------------------
    def models(self) -> tuple[ModelRecord, ...]:
        """Every model the Hub gave so far (cached ones included, so a restored thread still sizes)."""
        with self._lock:
            return tuple(self._found.values())

    def with_hub_models(self, data: CatalogData) -> CatalogData:
        """`data` plus the Hub's models whose ids the catalog does not have."""
        known = {m.id for m in data.models}
        extra = tuple(m for m in self.models() if m.id not in known)
        return data.model_copy(update={"models": data.models + extra}) if extra else data

    def _keep(self, result: HubResult) -> Resolution:
        assert result.record is not None
        with self._lock:
            self._found[result.record.id] = result.record
        self._note(f"{result.provenance()}: {_summary(result.record)}.")
        return Resolution(query=result.query, id=result.record.id)

    # --- resolving ------------------------------------------------------------------------------
    def _stand_in(self, resolution: Resolution) -> bool:
        """The catalog's stand-in for an MoE name it lacks ("foo-480b-a35b", sized from the name): for a repo id the
        Hub's config.json is exact, so it is asked first; the stand-in answers when the Hub has not the model."""
        return not any(m.id == resolution.id for m in self._catalog.models())

    def resolve_model(self, text: str) -> Resolution:
        resolution = self._catalog.resolve_model(text)
        if resolution.id is not None and ("/" not in text or not self._stand_in(resolution)):
            return resolution
        key = text.strip().lower()
        with self._lock:
            if key in self._found:
                return Resolution(query=text, id=key)
        if "/" in key:
            return self._repo(text, key, resolution)
        if resolution.candidates or not self._worth_a_search(key):
            return resolution
        if key in self._missed:
            return resolution
        result = self._client.search(key)
        if result.ok:
            return self._keep(result)
        if result.status == "not_found":
            self._missed.add(key)
            return resolution
        self._note(result.message)
        if result.status == "ambiguous":
            return Resolution(query=text, candidates=tuple(c.lower() for c in result.candidates), message=result.message)
        return resolution

    def _repo(self, text: str, key: str, resolution: Resolution) -> Resolution:
        spelling = getattr(self._local, "spelling", {}).get(key, text.strip())
        if not is_repo_id(spelling) or any(self._is_gpu(part) for part in key.split("/")):
            return resolution
        own = next((m for m in self._catalog.models() if (m.hf_repo or "").lower() == key), None)
        if own is not None:  # the catalog's reviewed row for that repo
            return Resolution(query=text, id=own.id)
        result = self._client.lookup(spelling)
        if result.ok:
            return self._keep(result)
        self._note(result.message)
        # the name part may still be a model the catalog knows ("meta-llama/Llama-3.3-70B-Instruct")
        by_name = self._catalog.resolve_model(key.split("/", 1)[1])
        return by_name if by_name.id is not None else resolution

    def _is_gpu(self, text: str) -> bool:
        gpu = self._catalog.resolve_gpu(text)
        return gpu.id is not None or bool(gpu.candidates)

    def _worth_a_search(self, key: str) -> bool:
        """A sized name that is not a GPU: 'qwen3 30b a3b' yes; 'h20', 'rtx 5090', 'traffic' no; nor a bare
        size behind a filler word ('a 70b', 'of 70b models'): that is a size, not a model's name."""
        words = re.split(r"[\s\-_]+", key)
        named = [w for w in words if w and not _SIZED.fullmatch(w) and w not in _FILLER and not w.isdigit()]
        return (bool(_SIZED.search(key)) and bool(named) and words[0] not in _GPU_WORDS
                and not self._is_gpu(key))


def _summary(record: ModelRecord) -> str:
    moe = f", MoE {record.num_experts} experts / {record.experts_per_token} per token, {record.active_params_b:g}B active" \
        if record.num_experts else ""
    fmt = f", weights in {record.native_precision}" if record.native_precision != "bf16" else ""
    return (f"{record.total_params_b:g}B parameters, {record.num_layers} layers, hidden {record.hidden_size}"
            f"{moe}{fmt}, context {record.max_context:,}")
