"""Record types for what the catalog knows: GPUs, model architectures, offers and provider price tables.

These are the only catalog types the engine may import. The engine receives a `CatalogData`
bundle of them and never touches the SQLite database itself, so every estimate is a pure
function of (workload, catalog records) and can be tested without a database.

Every record carries `source` and `observed_on` so that any figure the product prints can be
traced back to where it came from. Units are in the field names (decimal GB, TB/s, TFLOPS, USD).
"""

from __future__ import annotations

import math
import re
from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from catalog.regions import CLOUD_REGIONS_IN as CLOUD_REGIONS_IN
from catalog.regions import country_name as country_name
from catalog.regions import in_region
from catalog.regions import label as region_label  # noqa: F401  (re-exported for engine.placement)
from catalog.regions import widened_area as widened_area

PriceKind = Literal["on_demand", "spot", "reserved"]
ProviderKind = Literal["hyperscaler", "gpu_cloud", "bare_metal", "managed", "marketplace", "owned"]


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    source: str = Field(description="Where the row's facts come from (URL, document, or import path).")
    observed_on: str = Field(description="ISO date the source was read.")


class GpuRecord(_Record):
    """One accelerator model. Throughputs are dense (no 2:4 sparsity), in TFLOPS per GPU."""

    id: str  # canonical, lower-case kebab: "h100-sxm", "a100-sxm-80gb", "rtx-4090"
    name: str  # display name: "H100 SXM5 80GB"
    vendor: str
    architecture: str
    memory_gb: float  # decimal GB as marketed (80 for an 80GB card)
    memory_type: str
    memory_bandwidth_tb_s: float
    bf16_dense_tflops: float | None  # None where the chip has no BF16 tensor path (T4, V100)
    fp16_dense_tflops: float | None
    fp8_dense_tflops: float | None
    int8_dense_tops: float | None
    fp32_tflops: float | None
    tdp_w: float | None
    scaleup_link: str  # "NVLink 4", "PCIe only", "Infinity Fabric"
    scaleup_bandwidth_gb_s: float | None  # bidirectional, per GPU; None for PCIe-only cards
    pcie_gen: int | None
    compute_capability: str | None  # "9.0"; AMD: "gfx942"
    form_factor: str
    tier: Literal["datacenter", "workstation", "consumer"]
    release_year: int | None
    purchase_price_usd: float | None  # street price per GPU where known, else None
    purchase_price_source: str | None = None
    notes: str = ""
    # dies the driver exposes as separate GPUs per package: an MI250/MI250X OAM is 2 GCDs, which ROCm (rocm-smi,
    # torch.cuda.device_count()) lists as 2 devices of 64 GB, so a row holds one GCD and "8x MI250" plans 16 of them
    devices_per_card: int | None = None


class ModelRecord(_Record):
    """One transformer architecture, as its Hugging Face config.json describes it."""

    id: str  # canonical, lower-case: "llama-3-70b", "mixtral-8x7b", "qwen2.5-72b"
    name: str  # display name: "Llama 3 70B"
    family: str  # "llama", "qwen2", "mixtral", "deepseek_v3", ...
    hf_repo: str | None
    num_layers: int
    hidden_size: int
    num_attention_heads: int
    num_kv_heads: int
    head_dim: int
    intermediate_size: int  # dense FFN width (per expert for MoE if no moe_intermediate_size)
    moe_intermediate_size: int | None = None
    vocab_size: int
    max_context: int
    tie_word_embeddings: bool = False
    gated_mlp: bool = True  # SwiGLU/GeGLU (3 FFN matrices) vs plain GELU MLP (2)
    num_experts: int | None = None  # routed experts; None for dense models
    experts_per_token: int | None = None
    shared_experts: int | None = None
    first_dense_layers: int | None = None  # MoE models whose first k layers are dense (DeepSeek)
    kv_lora_rank: int | None = None  # MLA latent (DeepSeek); cache holds kv_lora_rank + rope dims
    q_lora_rank: int | None = None
    qk_rope_head_dim: int | None = None
    total_params_b: float  # all experts, billions
    active_params_b: float  # per token, billions (== total for dense)
    # the format the weights are released in: "bf16" (most), "fp8" (DeepSeek-V3/R1, Kimi K2), "mxfp4"
    # (gpt-oss), "int4" (GPTQ/AWQ repos), "int8" (bitsandbytes 8-bit); serving defaults to it
    native_precision: str = "bf16"
    # thinks before it answers by default (DeepSeek-R1 and its distills, QwQ, Qwen3, gpt-oss): a reply carries its
    # reasoning, often thousands of tokens, which decides how long a user waits at a given tokens/s
    reasoning: bool = False
    # local attention: `local_attention_layers` of the layers attend only to the last `sliding_window`
    # tokens (Gemma 2/3 sliding window, gpt-oss alternating 128-token window, Llama 4 8k chunks); they
    # hold that much KV cache at most, which vLLM's and SGLang's hybrid allocators exploit
    sliding_window: int | None = None
    local_attention_layers: int | None = None
    # a vision-language model (Qwen2.5-VL, Llama 3.2 Vision, Pixtral, InternVL, LLaVA, Gemma 3 4B+): the fields above
    # are its text model; these say how big its vision encoder is and how many prompt tokens an image becomes. Two
    # rules, as the processors apply them: one token per `image_token_px` x `image_token_px` pixels (Qwen2.5-VL 28 after
    # its 2x2 merge, Pixtral 16), capped at `image_max_tokens`; or `image_tokens_per_tile` per `image_tile_px` tile, up to
    # `image_max_tiles` (Llama 3.2 Vision 1,601 per 560-px tile, up to 4; Gemma 3 256 per 896-px image; InternVL 256
    # per 448-px tile, plus a thumbnail tile when split). The arithmetic is engine.vision's.
    vision_params_b: float | None = None  # the vision tower and projector, billions (not in total_params_b)
    image_token_px: int | None = None
    image_max_tokens: int | None = None
    image_tile_px: int | None = None
    image_tokens_per_tile: int | None = None
    image_max_tiles: int | None = None
    image_thumbnail_tile: bool = False  # InternVL: a whole-image thumbnail tile is added when the image is split
    # Llama 3.2 Vision: image tokens are read by this many cross-attention layers (of num_layers), not put in the prompt
    vision_cross_attention_layers: int | None = None
    # served for images unless told otherwise (Qwen2.5-VL, Llama 3.2 Vision, ...): one image a request is assumed and
    # asked; False where the checkpoint is as often served for text (Gemma 3): images counted only when said
    images_by_default: bool = False
    notes: str = ""

    @property
    def vision(self) -> bool:
        """Reads images: a vision encoder and an image-token rule."""
        return bool(self.vision_params_b) and bool(self.image_token_px or self.image_tokens_per_tile)


class OfferRecord(_Record):
    """One rentable node shape at one provider. Prices are per node-hour (whole instance)."""

    id: str  # "<provider>:<instance_type>:<region>"
    provider: str  # provider id, matches ProviderRecord.id
    instance_type: str
    gpu: str  # GpuRecord.id
    gpus_per_node: int
    vcpus: float | None = None
    ram_gb: float | None = None
    intra_node_link: str  # "NVLink 4 (900 GB/s)", "PCIe Gen4"
    inter_node_fabric: str | None  # "EFA 3200 Gbps", "InfiniBand NDR 400 Gb/s x8", None = single node only
    inter_node_gbps: float | None  # per node, Gb/s
    max_nodes: int | None = None  # largest cluster the provider sells in this shape, if known
    on_demand_usd_per_hour: float | None
    spot_usd_per_hour: float | None = None
    reserved_usd_per_hour: float | None = None
    region: str
    managed: bool = False  # True for SageMaker / Vertex / Azure ML style managed training
    managed_premium_fraction: float | None = None  # premium over the self-managed equivalent
    notes: str = ""

    def in_region(self, said: str) -> bool:
        """Whether this offer is in a place a question names ("eu", "germany", "us", "eu-west-1"; `catalog.regions`):
        the engine keeps a plan to offers there when a region constraint is said (`Workload.regions`)."""
        return in_region(self.region, said)


class ApiPriceRecord(_Record):
    """A hosted model API's list price per 1M tokens: the bill a team compares self-hosting against.

    Why its own record: an API is priced per token, not per GPU-hour, so it is no offer; and closed models
    (GPT-4o, Claude) have no architecture to size. `open_model` links an open-weight endpoint (Together's Llama 3.3
    70B) to the catalog model it serves, so a comparison can say when both sides run the same weights.
    """

    id: str  # "<vendor>:<model>": "openai:gpt-4o-mini", "together:llama-3.3-70b"
    vendor: str  # "openai", "anthropic", "google", "together", "groq", "fireworks", "deepinfra"
    name: str  # display name: "GPT-4o mini (OpenAI API)"
    api_model: str  # the model id the API takes: "gpt-4o-mini", "meta-llama/Llama-3.3-70B-Instruct-Turbo"
    open_model: str | None = None  # catalog ModelRecord.id of the open weights served, None for a closed model
    aliases: str | None = None  # names people write for it, ";"-separated ("4o-mini;gpt4o mini"); matched whole words
    usd_per_1m_input: float = Field(ge=0)
    usd_per_1m_cached_input: float | None = Field(default=None, ge=0)  # where the vendor publishes a cached-input rate
    usd_per_1m_output: float = Field(ge=0)
    reasoning: bool = False  # hidden reasoning tokens are billed as output (o3, GPT-5, R1): a reply costs more than it shows
    pricing_page: str  # the vendor's public pricing page, as answers cite it
    confidence: Literal["high", "medium", "low"]  # how well the sources agree (notes and source say which)
    notes: str = ""

    def alias_list(self) -> tuple[str, ...]:
        return tuple(a.strip() for a in (self.aliases or "").split(";") if a.strip())


class EgressTier(BaseModel):
    """A slice of monthly egress volume and its price. `up_to_gb` None means unbounded."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    up_to_gb: float | None
    usd_per_gb: float


class ProviderRecord(_Record):
    """What a provider charges besides compute: data leaving it, data stored in it, managed service."""

    id: str  # "aws", "gcp", "azure", "lambda", "runpod", "coreweave", "sagemaker", ...
    name: str
    kind: ProviderKind
    cloud: Literal["aws", "gcp", "azure", "onprem"] | None = None  # which data location counts as same-cloud
    egress_tiers: tuple[EgressTier, ...]  # internet egress per month, in order
    storage_usd_per_gb_month: float  # object / persistent storage used for datasets and checkpoints
    storage_product: str  # "S3 Standard", "persistent filesystem", ...
    managed_premium_fraction: float | None = None  # default premium for managed offers of this provider
    notes: str = ""


class CatalogData(BaseModel):
    """Everything the engine needs from the catalog, as plain records."""

    model_config = ConfigDict(frozen=True)

    gpus: tuple[GpuRecord, ...]
    models: tuple[ModelRecord, ...]
    offers: tuple[OfferRecord, ...]
    providers: tuple[ProviderRecord, ...]
    # hosted model APIs' token prices (catalog/data/api_prices.csv): what self-hosting is compared against
    api_prices: tuple[ApiPriceRecord, ...] = ()

    def gpu(self, gpu_id: str) -> GpuRecord | None:
        return next((g for g in self.gpus if g.id == gpu_id), None)

    def model(self, model_id: str) -> ModelRecord | None:
        """The catalog row, or, for an id `unlisted_moe_id` made from a name the catalog lacks that states an
        MoE's total and active sizes ("foo-480b-a35b"), a stand-in record of those sizes (`unlisted_moe`)."""
        found = next((m for m in self.models if m.id == model_id), None)
        return found if found is not None else unlisted_moe(model_id, self.models)

    def provider(self, provider_id: str) -> ProviderRecord | None:
        return next((p for p in self.providers if p.id == provider_id), None)

    def offer(self, offer_id: str | None) -> OfferRecord | None:
        """The offer an option was priced from (`Option.offer_id`); None for a quote, owned GPUs or an unknown id."""
        return next((o for o in self.offers if o.id == offer_id), None) if offer_id else None


class Resolution(BaseModel):
    """The answer to 'which catalog entry does this name mean?'.

    - `id` set, `candidates` empty: resolved.
    - `id` set, `candidates` non-empty: a family name resolved to its default member ("A100" ->
      A100 SXM 80GB); `message` says so and names the other members, so the reply can state it.
    - `id` None, `candidates` non-empty: ambiguous; `message` lists the candidates.
    - neither: unknown; `message` says so (and suggests close names where there are any).
    """

    model_config = ConfigDict(frozen=True)

    query: str
    id: str | None = None
    candidates: tuple[str, ...] = ()
    message: str = ""
    # a model's total parameters (billions, all experts), so a named model fills Workload.params_b
    params_b: float | None = None
    # an accelerator the catalog knows it does not cover ("TPU v5e"): named in the answer, never
    # swapped for a GPU
    unsupported_accelerator: str | None = None

    @property
    def ok(self) -> bool:
        return self.id is not None


class NameMatch(BaseModel):
    """A name found inside a message by `Catalog.find_names`: characters `start:end` of the text.

    `kind` is "model", "gpu", "unsupported" or "instance" (a cloud machine written as words, "ND H100 v5": `id`
    is its name as one word). `id` is set when the words name exactly one catalog entry; `candidates` when they name a family that needs a choice ("Llama 4"); `display` is the
    accelerator's name for "unsupported" ("TPU v5e").
    """

    model_config = ConfigDict(frozen=True)

    start: int
    end: int
    text: str
    kind: Literal["model", "gpu", "unsupported", "instance"]
    id: str | None = None
    candidates: tuple[str, ...] = ()
    display: str = ""


class InstanceResolution(BaseModel):
    """What a provider's instance type name means: "p5.48xlarge" -> 8x h100-sxm at aws."""

    model_config = ConfigDict(frozen=True)

    query: str
    instance_type: str
    id: str  # the GPU id
    gpus_per_node: int
    provider: str
    offer_id: str
    family: bool = False  # "p5", "g5": a family of machine sizes, not one size (no GPU count follows from it)
    gpu_name: str = ""  # as answers name them ("H100 SXM5 80GB", "Microsoft Azure"): ids are not for users
    provider_name: str = ""


# Azure VM sizes are named Standard_<family><vCPUs><additive features>_<accelerator>_<version>
# ("Standard_ND96isr_H100_v5"; learn.microsoft.com/azure/virtual-machines/vm-naming-conventions), and people write
# the series the size belongs to: the name without its vCPU count and features ("ND H100 v5", "NC A100 v4"), or
# the family and version alone ("NDv5").
_AZURE_NAME = re.compile(r"(?:standard[ _-]*)?(n[cdv])(\d*)([a-z]*)(?:[ _-]+([a-z]+\d+[a-z]*))?[ _-]*(v\d+)")
# Additive features Azure writes into a series name: "m" (memory-intensive) makes NDm A100 v4
# (Standard_ND96amsr_A100_v4, A100 80GB) a series of its own beside ND A100 v4 (Standard_ND96asr_v4, A100 40GB).
_SERIES_FEATURES = "m"


class AzureName(NamedTuple):
    """An Azure GPU VM name taken apart: 'Standard_NC24ads_A100_v4' -> (nc, 24, ads, a100, v4)."""

    family: str  # "nc", "nd", "nv"
    vcpus: str  # "" in a series name
    features: str  # "ads", "isr"; in a series name only the letters Azure writes there ("m")
    accelerator: str  # "" in a family-and-version shorthand ("NDv5")
    version: str  # "v4", "v5"

    @property
    def series(self) -> str:
        """'ND H100 v5', 'NDm A100 v4': the series as Azure writes it, the key a workload's `instance_type` holds."""
        letters = "".join(c for c in self.features if c in _SERIES_FEATURES)
        accelerator = f" {self.accelerator.upper()}" if self.accelerator else ""
        return f"{self.family.upper()}{letters}{accelerator} {self.version}"


def azure_name(text: str) -> AzureName | None:
    """The Azure VM name `text` spells, whole, in any case and with spaces, '_' or '-' between its parts; else None."""
    m = _AZURE_NAME.fullmatch(text.strip().lower())
    if m is None:
        return None
    family, vcpus, features, accelerator, version = m.groups()
    return AzureName(family, vcpus, features, accelerator or "", version)


def instance_matches(instance_type: str, key: str) -> bool:
    """Whether an offer's instance type is the machine a workload names (`Workload.instance_type`): the type itself,
    a size of an AWS family ("p5" -> p5.48xlarge) or a size of an Azure series ("ND H100 v5" ->
    Standard_ND96isr_H100_v5). Case-insensitive."""
    t, k = instance_type.lower(), key.lower()
    if t == k or t.startswith(k + "."):
        return True
    size = azure_name(t) if t.startswith("standard_n") else None
    return size is not None and size.series.lower() == k


# ---- MoE models the catalog lacks, sized from their names --------------------------------------
# "Foo-480B-A35B", "ERNIE-4.5-300B-A47B": a total and, after "a", the active parameters per token. Sizing such a name
# as a dense 480B model over-counts the memory a token reads ~14x; the name itself says what it is.
_MOE_SIZES = re.compile(r"(?<![a-z0-9.])(\d+(?:\.\d+)?)b[ _-]a(\d+(?:\.\d+)?)b(?![a-z0-9])")
UNLISTED_MOE_FAMILY = "unlisted_moe"  # family of a stand-in record: `engine.architecture` flags its figures


def moe_sizes_in_name(name: str) -> tuple[float, float] | None:
    """(total, active) billions an MoE name states ("qwen3-235b-a22b" -> (235.0, 22.0)); None without both,
    or when the "active" count is not smaller than the total."""
    found = _MOE_SIZES.search(name.lower()) if isinstance(name, str) else None
    if found is None:
        return None
    total, active = float(found.group(1)), float(found.group(2))
    return (total, active) if 0 < active < total else None


def unlisted_moe_id(name: str) -> str | None:
    """The id a name the catalog lacks is carried under when it states MoE sizes: the name itself, lower-case,
    without a Hugging Face org, spaces as dashes ("baidu/ERNIE-4.5-300B-A47B-PT" -> "ernie-4.5-300b-a47b-pt")."""
    if moe_sizes_in_name(name) is None:
        return None
    bare = name.strip().lower().rsplit("/", 1)[-1]
    return re.sub(r"\s+", "-", bare) or None


def unlisted_moe(model_id: str, models: tuple[ModelRecord, ...] | list[ModelRecord]) -> ModelRecord | None:
    """A stand-in record for an MoE the catalog lacks, from the sizes in its id: the user's total and active
    parameters on the layer shape of the catalog MoE closest in both (by ratio), which sets its KV cache and
    activations (a full-attention GQA MoE). None when the id states no MoE sizes or the catalog has no such MoE."""
    sizes = moe_sizes_in_name(model_id)
    # a full-attention GQA shape: borrowing MLA's latent cache or local/linear layers would shrink the KV cache of a
    # model that may have neither; full attention on every layer is the cautious reading of an unknown name
    listed = [m for m in models if m.num_experts and m.family != UNLISTED_MOE_FAMILY and m.active_params_b > 0
              and not m.kv_lora_rank and not m.sliding_window]
    if sizes is None or not listed:
        return None
    total, active = sizes

    def distance(m: ModelRecord) -> tuple[float, str]:
        return (abs(math.log(m.total_params_b / total)) + abs(math.log(m.active_params_b / active)), m.id)

    shape = min(listed, key=distance)
    return shape.model_copy(update={
        "id": model_id, "name": model_id, "family": UNLISTED_MOE_FAMILY, "hf_repo": None,
        "total_params_b": total, "active_params_b": active, "native_precision": "bf16", "reasoning": False,
        "notes": (f"{model_id} is not in the catalog: sized as an MoE of {total:g}B total / {active:g}B active "
                  f"(the sizes its name states) on {shape.name}'s layer shape ({shape.num_layers} layers, hidden "
                  f"{shape.hidden_size}, {shape.num_kv_heads} KV heads); name a catalog model for exact figures"),
        "source": f"the model's name; layer shape from {shape.source}",
    })
