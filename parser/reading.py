"""What one message says: the `Reading` the parser returns, and the resolver it is given.

A Reading is deliberately not a `Workload`: a message usually says a few things ("what about 40
runs?"), may say contradictory things ("QLoRA 70B full fine-tune") and may say things that only
make sense as the answer to a pending question ("3"). `Conversation` turns Readings into
Workloads; `parse` only reports.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from engine.models import Problem

from .storage import StorageAsk

Intent = Literal["describe", "refine", "answer", "undo", "help", "gibberish", "vram", "prices", "storage"]


class Resolved(Protocol):
    """What a resolver returns; `catalog.records.Resolution` has these attributes."""

    @property
    def id(self) -> str | None: ...

    @property
    def candidates(self) -> tuple[str, ...]: ...

    @property
    def message(self) -> str: ...


class NameResolver(Protocol):
    """Catalog name lookup, injected so the parser never imports the catalog.

    Each method returns an object with `.id` (None when unknown or ambiguous), `.candidates`
    (family members, ambiguous matches or suggestions) and `.message` (for the user).
    """

    def resolve_model(self, text: str) -> Resolved: ...

    def resolve_gpu(self, text: str) -> Resolved: ...

    def resolve_provider(self, text: str) -> Resolved: ...


class Instance(Protocol):
    """A cloud instance type's hardware; `catalog.records.InstanceResolution` has these attributes."""

    @property
    def id(self) -> str:  # the GPU id
        ...

    @property
    def gpus_per_node(self) -> int: ...

    @property
    def provider(self) -> str: ...


class InstanceResolver(Protocol):
    """Optional on a `NameResolver`: the parser uses it when present (a getattr check), so
    "4 ml.p4d.24xlarge" reads as 32 A100 40GB on SageMaker. The catalog's `Catalog.resolve_instance`
    is it: case-insensitive exact instance type -> the offer's GPU, GPUs per node and provider, or
    None when no offer has that type. Never raises."""

    def resolve_instance(self, text: str) -> Instance | None: ...


class FoundName(Protocol):
    """A name found inside a message; `catalog.records.NameMatch` has these attributes."""

    @property
    def start(self) -> int: ...

    @property
    def end(self) -> int: ...

    @property
    def kind(self) -> str:  # "model", "gpu" or "unsupported"
        ...

    @property
    def id(self) -> str | None: ...

    @property
    def candidates(self) -> tuple[str, ...]: ...

    @property
    def display(self) -> str: ...


class NameFinder(Protocol):
    """Optional on a `NameResolver` (a getattr check, like `InstanceResolver`): the names inside a
    normalized message that the grammar would split into plain words ("mistral large 2",
    "llama 4 scout", "gaudi 3") and accelerators the catalog does not cover ("tpu v5e").
    `Catalog.find_names` is it. One call per message; never raises."""

    def find_names(self, text: str) -> list[FoundName]: ...


class Conflict(BaseModel):
    """One field given two different values in the same message; neither value is applied."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    field: str
    values: tuple[Any, ...]
    said: tuple[str, ...]  # the words that gave each value, for the reply

    @property
    def message(self) -> str:
        options = " and ".join(f"“{s}”" for s in self.said)
        return f"You said both {options} ({self.field.replace('_', ' ')}); which one did you mean?"


class Reading(BaseModel):
    """Everything the parser understood in one message, and nothing it guessed silently."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    text: str = ""  # the normalized text that was parsed
    updates: dict[str, Any] = Field(default_factory=dict)  # Workload field -> value
    intent: Intent = "gibberish"
    conflicts: tuple[Conflict, ...] = ()
    unknown_names: tuple[Problem, ...] = ()
    notes: tuple[str, ...] = ()  # what was assumed while reading ("A100 -> A100 SXM 80GB")
    cues: frozenset[str] = frozenset()  # "train", "finetune", "refine", "vram", "yes", "no", ...
    bare: tuple[Any, ...] = ()  # numbers / sizes / yes-no said alone: candidate answers
    # intent "prices": the GPU named and the rest of its family ("H100" -> h100-sxm, h100-pcie, h100-nvl),
    # since a price question about "an H100" is about every H100 one can rent
    gpu_family: tuple[str, ...] = ()
    # "is A100 or H100 cheaper ...?": the two GPUs compared, as said; the first is planned and the second offered
    compared: tuple[str, ...] = ()
    # "AWQ int4 vs FP8 … which is cheaper?": the two weight precisions compared (Workload values); the first is applied
    compared_precisions: tuple[str, ...] = ()
    # every provider named ("on CoreWeave vs Lambda vs Nebius"), first said first; `updates["provider"]` is the first
    # (a price question lists them all instead: `updates["providers"]`, see `price_comparisons`)
    providers: tuple[str, ...] = ()
    # intent "storage": a checkpoint's size, keeping data stored or moving it ("how big is a Llama 3.1 70B checkpoint?")
    storage: StorageAsk | None = None
    # regions said ("in Europe" -> "europe", "in eu-west-1" -> "eu-west-1"; `parser.regions`): a price question keeps
    # the offers there; a plan keeps to them too (`parser.residency` sets `regions` in the updates)
    regions: tuple[str, ...] = ()
    # "distill Llama 3.1 405B into 8B …": the teacher's generation and the student's fine-tune (`parser.distill`);
    # the updates keep the teacher as the model, the answer plans both stages
    distill: Any = None
    # rejection sampling with a scoring pass, an eval suite, a compute-optimal size for a fixed fleet and window
    # (`parser.offline_jobs.OfflineAsk`): answered in stages or by arithmetic, not as one service or training run
    offline: Any = None
    # "vs gpt-4o-mini api", "cheaper than claude haiku?": the hosted API named (a catalog api_prices id), compared with
    # the self-hosted plan or priced alone (`parser.api_names`); its words are not read as a model or a provider
    api: str | None = None

    @property
    def understood(self) -> bool:
        """True when anything at all was recognised (fields, answers, names or cues)."""
        return bool(self.updates or self.conflicts or self.unknown_names or self.bare or self.cues or self.api)
