"""A small in-test stand-in for the catalog's resolver, with the same alias behaviour.

- exact aliases resolve ("llama 3 70b", "Llama-3.1-70B-Instruct", "a100 80gb", "4090");
- a family name resolves to its default and lists the other members ("A100" -> a100-sxm-80gb);
- an ambiguous name resolves to nothing and lists candidates ("llama");
- an unknown name resolves to nothing and suggests close names, if any;
- a memory size ("24GB") is ambiguous between the cards that have it;
- `find_names` finds multi-word names in a message ("mistral large 2", "llama 4") and accelerators
  the catalog does not cover ("tpu v5e"), like `catalog.Catalog.find_names`.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class FakeResolution:
    query: str
    id: str | None = None
    candidates: tuple[str, ...] = ()
    message: str = ""


def _key(text: str) -> str:
    text = text.lower().replace("meta-", "")
    text = re.sub(r"[-_ ](instruct|chat|hf|base)$", "", text)
    return re.sub(r"[\s\-_]", "", text)


MODELS = {
    "llama-3-8b": ["llama 3 8b", "llama3 8b", "meta-llama-3-8b"],
    "llama-3.1-8b": ["llama 3.1 8b", "llama3.1 8b"],
    "llama-3-70b": ["llama 3 70b", "llama3 70b"],
    "llama-3.1-70b": ["llama 3.1 70b"],
    "llama-3.1-405b": ["llama 3.1 405b", "llama 405b"],
    "llama-2-70b": ["llama 2 70b", "llama2 70b"],
    "mixtral-8x7b": ["mixtral 8x7b"],
    "mistral-7b": ["mistral 7b"],
    "qwen2.5-72b": ["qwen 2.5 72b", "qwen2.5 72b", "qwen/qwen2.5-72b-instruct-awq"],
    "qwen2.5-7b": ["qwen 2.5 7b", "qwen/qwen2.5-7b-instruct-gptq-int8"],
    "phi-3-mini": ["phi 3 mini", "phi3 mini", "phi-3-mini-4k"],
    "deepseek-v3": ["deepseek v3"],
    "deepseek-r1": ["deepseek r1"],
    "gemma-2-9b": ["gemma 2 9b"],
    "gemma-2-27b": ["gemma 2 27b"],
    "mistral-small-3-24b": ["mistral small 3", "mistral small 3 24b", "mistral 24b"],
    "mistral-large-2": ["mistral large 2", "mistral large"],
    "qwen3-235b-a22b": ["qwen3 235b a22b", "qwen/qwen3-235b-a22b-instruct-2507-fp8"],
    "qwen3-30b-a3b": ["qwen3 30b a3b"],
    "qwen3-32b": ["qwen/qwen3-32b", "qwen3 32b"],
    "llama-3.3-70b": ["llama 3.3 70b", "meta-llama/llama-3.3-70b-instruct"],
    "llama-4-scout": ["llama 4 scout"],
    "llama-4-maverick": ["llama 4 maverick"],
    "gpt-oss-20b": ["gpt oss 20b"],
    "gpt-oss-120b": ["gpt oss 120b"],
    "deepseek-r1-distill-llama-70b": ["deepseek r1 distill 70b", "deepseek r1 distill llama 70b"],
    "gemma-3-27b": ["gemma 3 27b"],
    "phi-4": ["phi 4"],
    "kimi-k2": ["kimi k2"],
}
MODEL_FAMILIES = {
    "llama 70b": ("llama-3-70b", ("llama-3.1-70b", "llama-2-70b")),
    "mixtral": ("mixtral-8x7b", ("mixtral-8x22b",)),
    "deepseek": ("deepseek-v3", ("deepseek-r1",)),
}
MODEL_AMBIGUOUS = {
    "llama": ("llama-3-8b", "llama-3-70b", "llama-3.1-405b"),
    "qwen": ("qwen2.5-7b", "qwen2.5-72b"),
    "gemma": ("gemma-2-9b", "gemma-2-27b"),
    "mistral": ("mistral-7b", "mistral-small-3-24b", "mistral-large-2"),
    "llama 4": ("llama-4-scout", "llama-4-maverick"),
    "gpt oss": ("gpt-oss-20b", "gpt-oss-120b"),
}
UNSUPPORTED = {"tpu": "Google TPU", "tpu v5e": "TPU v5e", "tpu v6e": "TPU v6e (Trillium)", "trainium": "AWS Trainium",
               "trainium2": "AWS Trainium2", "inferentia2": "AWS Inferentia2"}

GPUS = {
    "h100-sxm": ["h100 sxm", "h100 sxm5", "h100 80gb"],
    "h100-pcie": ["h100 pcie"],
    "h200-sxm": ["h200"],
    "b200": ["b200"],
    "a100-sxm-80gb": ["a100 80gb", "a100-80g", "a100 sxm 80gb", "a100 80 gb"],
    "a100-sxm-40gb": ["a100 40gb", "a100 40 gb"],
    "a100-pcie-80gb": ["a100 pcie"],
    "l40s": ["l40s"],
    "l4": ["l4"],
    "a10g": ["a10g"],
    "t4": ["t4"],
    "rtx-4090": ["4090", "rtx 4090", "rtx4090", "geforce rtx 4090"],
    "rtx-3090": ["3090", "rtx 3090"],
    "mi300x": ["mi300x", "amd mi300x"],
    "mi250": ["mi250", "amd mi250"],
    "mi250x": ["mi250x"],
    "h20": ["h20"],
    "gaudi3": ["gaudi 3", "gaudi"],
}
GPU_FAMILIES = {
    "h100": ("h100-sxm", ("h100-pcie", "h100-nvl")),
    "a100": ("a100-sxm-80gb", ("a100-sxm-40gb", "a100-pcie-80gb")),
}
GPU_BY_MEMORY = {"24gb": ("rtx-4090", "rtx-3090", "a10g", "l4"), "80gb": ("h100-sxm", "a100-sxm-80gb")}

PROVIDERS = {
    "aws": ["amazon", "amazon web services"],
    "gcp": ["google cloud", "google"],
    "azure": ["microsoft azure"],
    "lambda": ["lambda labs", "lambdalabs"],
    "runpod": ["run pod"],
    "coreweave": ["core weave"],
    "sagemaker": ["aws sagemaker"],
}


# Instance types (the catalog reads them from its offers table): type -> (GPU, GPUs per node, provider)
INSTANCES = {
    "p5.48xlarge": ("h100-sxm", 8, "aws"),
    "p5en.48xlarge": ("h200-sxm", 8, "aws"),
    "p4d.24xlarge": ("a100-sxm-40gb", 8, "aws"),
    "p4de.24xlarge": ("a100-sxm-80gb", 8, "aws"),
    "g5.xlarge": ("a10g", 1, "aws"),
    "g5.12xlarge": ("a10g", 4, "aws"),
    "ml.p4d.24xlarge": ("a100-sxm-40gb", 8, "sagemaker"),
    "ml.p5.48xlarge": ("h100-sxm", 8, "sagemaker"),
    "ml.g5.xlarge": ("a10g", 1, "sagemaker"),
    "a3-highgpu-1g": ("h100-sxm", 1, "gcp"),
    "a3-highgpu-8g": ("h100-sxm", 8, "gcp"),
}
# Azure VM names as people write them, words joined by spaces (the real catalog reads any Azure size or series its
# offers have): series read as that family of machines, sizes as one VM (instance type as Azure spells it)
AZURE = {
    "nd h100 v5": ("h100-sxm", 8, "ND H100 v5", True),
    "ndv5": ("h100-sxm", 8, "ND H100 v5", True),
    "nd96isr h100 v5": ("h100-sxm", 8, "Standard_ND96isr_H100_v5", False),
    "standard nd96isr h100 v5": ("h100-sxm", 8, "Standard_ND96isr_H100_v5", False),
    "nd a100 v4": ("a100-sxm-40gb", 8, "ND A100 v4", True),
    "ndm a100 v4": ("a100-sxm-80gb", 8, "NDm A100 v4", True),
    "nd mi300x v5": ("mi300x", 8, "ND MI300X v5", True),
    "nd h200 v5": ("h200-sxm", 8, "ND H200 v5", True),
    "nc a100 v4": ("a100-pcie-80gb", 4, "NC A100 v4", True),
    "nc h100 v5": ("h100-nvl", 2, "NC H100 v5", True),
}


@dataclass(frozen=True)
class FakeMatch:
    start: int
    end: int
    text: str
    kind: str
    id: str | None = None
    candidates: tuple[str, ...] = ()
    display: str = ""


@dataclass(frozen=True)
class FakeInstance:
    query: str
    instance_type: str
    id: str
    gpus_per_node: int
    provider: str
    family: bool = False

    @property
    def gpu_name(self) -> str:  # as the real catalog names them in notes
        return INSTANCE_NAMES.get(self.id, "")

    @property
    def provider_name(self) -> str:
        return INSTANCE_NAMES.get(self.provider, "")


INSTANCE_NAMES = {"h100-sxm": "H100 SXM5 80GB", "a100-sxm-40gb": "A100 SXM4 40GB", "a100-sxm-80gb": "A100 SXM4 80GB",
                  "a10g": "A10G 24GB", "azure": "Microsoft Azure", "aws": "AWS (EC2)", "sagemaker": "Amazon SageMaker",
                  "gcp": "Google Cloud (Compute Engine)"}


class FakeResolver:
    """Counts calls so tests can check the parser does not look names up in bulk."""

    def __init__(self) -> None:
        self.calls = 0
        self._models = {_key(a): i for i, aliases in MODELS.items() for a in [i, *aliases]}
        self._gpus = {_key(a): i for i, aliases in GPUS.items() for a in [i, *aliases]}
        self._providers = {_key(a): i for i, aliases in PROVIDERS.items() for a in [i, *aliases]}

    def resolve_model(self, text: str) -> FakeResolution:
        return self._resolve(text, "model", self._models, MODEL_FAMILIES, MODEL_AMBIGUOUS)

    def resolve_gpu(self, text: str) -> FakeResolution:
        return self._resolve(text, "GPU", self._gpus, GPU_FAMILIES, GPU_BY_MEMORY)

    def resolve_provider(self, text: str) -> FakeResolution:
        return self._resolve(text, "provider", self._providers, {}, {})

    def resolve_instance(self, text: str) -> FakeInstance | None:
        """Like `catalog.Catalog.resolve_instance`: exact instance type, case-insensitive, else None."""
        self.calls += 1
        key = str(text).strip().lower()
        azure = AZURE.get(re.sub(r"[\s_-]+", " ", key))
        if azure is not None:
            gpu, per_node, instance_type, family = azure
            return FakeInstance(text, instance_type, gpu, per_node, "azure", family)
        if key not in INSTANCES:
            return None
        gpu, per_node, provider = INSTANCES[key]
        return FakeInstance(text, key, gpu, per_node, provider)

    def find_names(self, text: str) -> list[FakeMatch]:
        """Like `catalog.Catalog.find_names`: the longest word windows whose key is a known name."""
        self.calls += 1
        words = [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]
        ambiguous = {_key(k): v for k, v in MODEL_AMBIGUOUS.items()}
        unsupported = {_key(k): v for k, v in UNSUPPORTED.items()}
        found, i = [], 0
        while i < len(words):
            for n in range(min(6, len(words) - i), 0, -1):
                start, end = words[i][0], words[i + n - 1][1]
                span = text[start:end]
                key = _key(span)
                match = None
                if re.sub(r"[\s_-]+", " ", span.lower()) in AZURE:
                    match = FakeMatch(start, end, span, "instance", "-".join(re.split(r"[\s_-]+", span.lower())))
                elif key in unsupported or key.rstrip("s") in unsupported:
                    match = FakeMatch(start, end, span, "unsupported", display=unsupported.get(key) or unsupported[key.rstrip("s")])
                elif (n >= 2 or "/" in span) and key in self._models:
                    match = FakeMatch(start, end, span, "model", self._models[key])
                elif n >= 2 and key in ambiguous:
                    match = FakeMatch(start, end, span, "model", candidates=ambiguous[key])
                elif (n >= 2 or not any(c.isdigit() for c in span)) and key in self._gpus:
                    match = FakeMatch(start, end, span, "gpu", self._gpus[key])
                if match is not None:
                    found.append(match)
                    i += n
                    break
            else:
                i += 1
        return found

    def _resolve(self, text, kind, table, families, ambiguous) -> FakeResolution:
        self.calls += 1
        key = _key(text)
        if key in table:
            return FakeResolution(text, table[key])
        family = {_key(k): v for k, v in families.items()}.get(key) if families else None
        if family:
            default, others = family
            return FakeResolution(text, default, others,
                                  f"'{text}' covers several {kind}s ({', '.join((default, *others))}): used {default}.")
        options = {_key(k): v for k, v in ambiguous.items()}.get(key)
        if options:
            return FakeResolution(text, None, options, f"“{text}” could be {', '.join(options)}: which one?")
        close = tuple(dict.fromkeys(table[k] for k in difflib.get_close_matches(key, list(table), n=3, cutoff=0.75)))
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        return FakeResolution(text, None, close, f"I don't know the {kind} “{text}”.{hint}")
