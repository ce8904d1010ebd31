"""Name resolution: a table of (input -> expected id / ambiguity), plus Hypothesis on any text."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catalog import Catalog
from catalog.normalize import alias_key, lookup_keys

GPU_CASES = [
    ("A100 80GB", "a100-sxm-80gb"),
    ("a100-80g", "a100-sxm-80gb"),
    ("A100-80GB", "a100-sxm-80gb"),
    ("nvidia a100 80gb", "a100-sxm-80gb"),
    ("A100 40GB", "a100-sxm-40gb"),
    ("A100 PCIe 80GB", "a100-pcie-80gb"),
    ("H100 SXM", "h100-sxm"),
    ("h100_sxm5", "h100-sxm"),
    ("H100 PCIe", "h100-pcie"),
    ("H100-NVL", "h100-nvl"),
    ("4090", "rtx-4090"),
    ("rtx4090", "rtx-4090"),
    ("RTX 4090", "rtx-4090"),
    ("GeForce RTX 4090", "rtx-4090"),
    ("rtx 3090s", "rtx-3090"),
    ("L40S", "l40s"),
    ("l40s", "l40s"),
    ("L4", "l4"),
    ("A10G", "a10g"),
    ("T4", "t4"),
    ("V100-32GB", "v100-sxm2-32gb"),
    ("RTX PRO Server 6000", "rtx-pro-6000"),
    ("A6000", "rtx-a6000"),
    ("MI300X", "mi300x"),
    ("H200", "h200-sxm"),
    ("B200", "b200"),
    ("GH200", "gh200"),
    ("H800", "h800"),
    ("h800s", "h800"),
    ("NVIDIA H800 SXM5", "h800"),
    ("H800 80GB", "h800"),
]

FAMILY_CASES = [
    ("A100", "a100-sxm-80gb", {"a100-sxm-40gb", "a100-pcie-80gb"}),
    ("H100", "h100-sxm", {"h100-pcie", "h100-nvl"}),
    ("h100s", "h100-sxm", {"h100-pcie", "h100-nvl"}),
    ("V100", "v100-sxm2-16gb", {"v100-sxm2-32gb"}),
    ("MI300", "mi300x", {"mi325x"}),
]

MODEL_CASES = [
    ("llama 3 70b", "llama-3-70b"),
    ("LLaMA-3 70B", "llama-3-70b"),
    ("Llama-3.1-70B-Instruct", "llama-3.1-70b"),
    ("meta-llama/Meta-Llama-3-70B", "llama-3-70b"),
    ("meta-llama/Meta-Llama-3-70B-Instruct", "llama-3-70b"),
    ("meta-llama/Meta-Llama-3.1-8B-Instruct", "llama-3.1-8b"),
    ("Llama-3.1-8B", "llama-3.1-8b"),
    ("llama 3.1 8b", "llama-3.1-8b"),
    ("llama-2-7b-chat-hf", "llama-2-7b"),
    ("mixtral 8x7b", "mixtral-8x7b"),
    ("Mixtral-8x7B-Instruct-v0.1", "mixtral-8x7b"),
    ("qwen2.5-72b", "qwen2.5-72b"),
    ("Qwen/Qwen2.5-72B-Instruct", "qwen2.5-72b"),
    ("qwen 2.5 7b", "qwen2.5-7b"),
    ("phi-3-mini", "phi-3-mini"),
    ("Phi-3-mini-4k-instruct", "phi-3-mini"),
    ("microsoft/Phi-3-mini-128k-instruct", "phi-3-mini"),
    ("gemma-2-9b-it", "gemma-2-9b"),
    ("Mistral-7B-Instruct-v0.2", "mistral-7b"),
    ("deepseek-v3", "deepseek-v3"),
    ("DeepSeek R1", "deepseek-r1"),
    ("falcon 180b", "falcon-180b"),
]

PROVIDER_CASES = [
    ("AWS", "aws"),
    ("amazon", "aws"),
    ("SageMaker", "sagemaker"),
    ("aws sagemaker", "sagemaker"),
    ("GCP", "gcp"),
    ("Google Cloud", "gcp"),
    ("azure", "azure"),
    ("Lambda Labs", "lambda"),
    ("RunPod", "runpod"),
    ("CoreWeave", "coreweave"),
    ("Nebius", "nebius"),
    ("Oracle Cloud", "oci"),
    ("vast.ai", "vast"),
    ("Crusoe", "crusoe"),
    ("Together AI", "together"),
]


def test_no_fictional_provider_ships(catalog: Catalog) -> None:
    """The worked example's $2.80/GPU-hour bare-metal provider exists only as a test fixture."""
    assert catalog.resolve_provider("bare metal").id is None
    assert all("seed" not in p.id and "example" not in p.name.lower() for p in catalog.providers())
    assert all(o.region != "any" for o in catalog.offers())


@pytest.mark.parametrize(("text", "expected"), GPU_CASES)
def test_gpu_aliases(catalog: Catalog, text: str, expected: str) -> None:
    assert catalog.resolve_gpu(text).id == expected


@pytest.mark.parametrize(("text", "default", "others"), FAMILY_CASES)
def test_gpu_families_default_with_candidates(
    catalog: Catalog, text: str, default: str, others: set[str]
) -> None:
    res = catalog.resolve_gpu(text)
    assert res.id == default
    assert others <= set(res.candidates)
    names = {g.id: g.name for g in catalog.gpus()}
    # a family is a choice among models, not a count: the note names the one used and the variants, not ids
    assert "covers several GPUs" in res.message and "more than one" not in res.message
    assert f"used {names[default]}" in res.message and default not in res.message
    family = names[default].split()[0]
    assert all(names[o].removeprefix(family).strip() in res.message for o in others)


@pytest.mark.parametrize(("text", "expected"), MODEL_CASES)
def test_model_aliases(catalog: Catalog, text: str, expected: str) -> None:
    res = catalog.resolve_model(text)
    assert res.id == expected, res.message
    assert res.candidates == ()


@pytest.mark.parametrize(("text", "expected"), PROVIDER_CASES)
def test_provider_aliases(catalog: Catalog, text: str, expected: str) -> None:
    assert catalog.resolve_provider(text).id == expected


def test_llama_70b_defaults_to_newest_and_lists_the_rest(catalog: Catalog) -> None:
    res = catalog.resolve_model("llama 70b")
    assert res.id == "llama-3.3-70b"
    assert {"llama-3.1-70b", "llama-3-70b", "llama-2-70b"} <= set(res.candidates)


@pytest.mark.parametrize(("text", "kind"), [("llama", "model"), ("RTX 6000", "gpu"), ("falcon", "model")])
def test_truly_ambiguous_has_no_id(catalog: Catalog, text: str, kind: str) -> None:
    res = catalog.resolve_model(text) if kind == "model" else catalog.resolve_gpu(text)
    assert res.id is None and len(res.candidates) >= 2 and not res.ok
    assert "ambiguous" in res.message


def test_unknown_suggests_close_names(catalog: Catalog) -> None:
    res = catalog.resolve_model("llamma 3 70b")
    assert res.id is None and res.candidates == ()
    assert "llama-3-70b" in res.message
    gpu = catalog.resolve_gpu("H10O")
    assert gpu.id is None and "h100-sxm" in gpu.message


def test_unknown_without_suggestions(catalog: Catalog) -> None:
    res = catalog.resolve_provider("vertex")
    assert res.id is None and "vertex" in res.message


def test_every_record_resolves_by_id_and_name(catalog: Catalog) -> None:
    for gpu in catalog.gpus():
        assert catalog.resolve_gpu(gpu.id).id == gpu.id
        assert catalog.resolve_gpu(gpu.name).id == gpu.id, gpu.name
    for model in catalog.models():
        assert catalog.resolve_model(model.id).id == model.id
        assert catalog.resolve_model(model.name).id == model.id, model.name
    for provider in catalog.providers():
        assert catalog.resolve_provider(provider.id).id == provider.id


@pytest.mark.parametrize(
    ("a", "b"), [("A100 80GB", "a100_80g"), ("H100-SXM", "h100 sxm"), ("Llama 3 70B", "llama-3-70b")]
)
def test_key_is_case_space_hyphen_underscore_insensitive(a: str, b: str) -> None:
    assert alias_key(a) == alias_key(b)


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_resolution_never_raises(text: str) -> None:
    from catalog import open_catalog

    catalog = _shared_catalog(open_catalog)
    for resolve in (catalog.resolve_gpu, catalog.resolve_model, catalog.resolve_provider):
        res = resolve(text)
        assert res.query == text
        assert res.id is None or isinstance(res.id, str)
    assert isinstance(alias_key(text), str)
    assert all(isinstance(k, str) and k for k in lookup_keys(text, "model"))


_CACHE: dict[str, Catalog] = {}


def _shared_catalog(factory) -> Catalog:  # type: ignore[no-untyped-def]
    """Hypothesis forbids function-scoped fixtures in @given; share one catalog instead."""
    if "c" not in _CACHE:
        _CACHE["c"] = factory()
    return _CACHE["c"]


def test_instance_types_resolve_to_gpu_count_and_provider() -> None:
    """Users name instance types ("4 ml.p4d.24xlarge"); the catalog knows what each one holds."""
    from catalog import open_catalog

    catalog = open_catalog()
    p5 = catalog.resolve_instance("P5.48XLARGE")
    assert p5 is not None and (p5.id, p5.gpus_per_node, p5.provider) == ("h100-sxm", 8, "aws")
    sm = catalog.resolve_instance("ml.p4d.24xlarge")
    assert sm is not None and (sm.id, sm.gpus_per_node, sm.provider) == ("a100-sxm-40gb", 8, "sagemaker")
    assert catalog.resolve_instance("not-an-instance") is None
    assert catalog.resolve_instance("") is None


@pytest.mark.parametrize(("said", "instance_type", "gpu", "family"), [
    ("ND H100 v5", "ND H100 v5", "h100-sxm", True),  # a series: its machines, as many as the job needs
    ("nd-h100-v5", "ND H100 v5", "h100-sxm", True),  # as the parser glues it
    ("NDv5", "ND H100 v5", "h100-sxm", True),
    ("ND96isr H100 v5", "Standard_ND96isr_H100_v5", "h100-sxm", False),  # a size: one VM, its 8 GPUs
    ("standard nd96isr h100 v5", "Standard_ND96isr_H100_v5", "h100-sxm", False),
    ("ND A100 v4", "ND A100 v4", "a100-sxm-40gb", True),
    ("NDm A100 v4", "NDm A100 v4", "a100-sxm-80gb", True),  # the memory-intensive series is its own (A100 80GB)
    ("ND MI300X v5", "ND MI300X v5", "mi300x", True),
    ("ND H200 v5", "ND H200 v5", "h200-sxm", True),
    ("NC A100 v4", "NC A100 v4", "a100-pcie-80gb", True),
    ("NC H100 v5", "NC H100 v5", "h100-nvl", True),
])
def test_azure_vm_names_as_people_write_them(said: str, instance_type: str, gpu: str, family: bool) -> None:
    """Azure's series and size names (learn.microsoft.com GPU size series) resolve to the catalog's Azure offers."""
    from catalog import open_catalog

    found = _shared_catalog(open_catalog).resolve_instance(said)
    assert found is not None and (found.instance_type, found.id, found.provider, found.family) == (
        instance_type, gpu, "azure", family)


def test_an_azure_series_is_its_sizes_and_nothing_else() -> None:
    """"NC A100 v4" is the NC24ads/48ads/96ads A100 v4 sizes; "ND A100 v4" (A100 40GB) is not NDm A100 v4 (80GB);
    an Azure name no offer has, or another family's shorthand, is not a machine."""
    from catalog import open_catalog
    from catalog.records import instance_matches

    catalog = _shared_catalog(open_catalog)
    nc = {o.instance_type for o in catalog.offers() if instance_matches(o.instance_type, "NC A100 v4")}
    assert nc == {"Standard_NC24ads_A100_v4", "Standard_NC48ads_A100_v4", "Standard_NC96ads_A100_v4"}
    assert not instance_matches("Standard_ND96amsr_A100_v4", "ND A100 v4")
    assert instance_matches("p5.48xlarge", "p5") and not instance_matches("p5e.48xlarge", "p5")
    for unknown in ("NC T4 v9", "NCv3", "ND GB300 v6"):
        assert catalog.resolve_instance(unknown) is None


def test_azure_names_in_a_message_are_found_as_one_machine() -> None:
    from catalog import open_catalog

    found = _shared_catalog(open_catalog).find_names("serve llama 3.1 70b on azure nd h100 v5")
    machine = [m for m in found if m.kind == "instance"]
    assert [(m.text, m.id) for m in machine] == [("nd h100 v5", "nd-h100-v5")]
    assert any(m.kind == "model" for m in found)
