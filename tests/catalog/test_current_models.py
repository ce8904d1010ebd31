"""Open models released after mid-2025: each resolves by its common names and Hugging Face repo id, and an MoE
name the catalog lacks ("Foo-480B-A35B") is sized as the MoE its name states, never as a dense model of its total.

Before: "serve Qwen/Qwen3-Coder-480B-A35B-Instruct for 20 users" was sized as a dense 480B (16x B300 over two
nodes, $92k/month) while vLLM's recipe serves it on one 8x H200 node; "Qwen3.5-397B-A17B" said "No model named";
"GLM-4.6" and "Kimi K2.5" were refused.
"""

from __future__ import annotations

import pytest

from catalog import Catalog
from catalog.records import UNLISTED_MOE_FAMILY, CatalogData, moe_sizes_in_name, unlisted_moe_id
from engine.advise import advise
from engine.architecture import architecture_for
from engine.models import Workload

NAMES = [
    ("qwen3 coder 480b", "qwen3-coder-480b-a35b-instruct"),
    ("Qwen/Qwen3-Coder-480B-A35B-Instruct", "qwen3-coder-480b-a35b-instruct"),
    ("Qwen3-Coder-480B-A35B-Instruct-FP8", "qwen3-coder-480b-a35b-instruct"),
    ("qwen3 coder", "qwen3-coder-480b-a35b-instruct"),
    ("qwen3.5 397b", "qwen3.5-397b-a17b"),
    ("Qwen/Qwen3.5-397B-A17B", "qwen3.5-397b-a17b"),
    ("Qwen3-Next-80B-A3B", "qwen3-next-80b-a3b-instruct"),  # the family default; the Thinking release is named
    ("Qwen/Qwen3-Next-80B-A3B-Instruct", "qwen3-next-80b-a3b-instruct"),
    ("Qwen/Qwen3-Next-80B-A3B-Thinking", "qwen3-next-80b-a3b-thinking"),
    ("qwen3 next thinking", "qwen3-next-80b-a3b-thinking"),
    ("glm 4.6", "glm-4.6"),
    ("zai-org/GLM-4.6", "glm-4.6"),
    ("GLM-4.6-FP8", "glm-4.6"),
    ("glm 4.7", "glm-4.7"),
    ("zai-org/GLM-4.7", "glm-4.7"),
    ("kimi k2.5", "kimi-k2.5"),
    ("moonshotai/Kimi-K2.5", "kimi-k2.5"),
    ("kimi k2 thinking", "kimi-k2-thinking"),
    ("moonshotai/Kimi-K2-Thinking", "kimi-k2-thinking"),
]


@pytest.mark.parametrize(("name", "model_id"), NAMES)
def test_current_models_resolve_by_their_common_names(catalog: Catalog, name: str, model_id: str) -> None:
    resolution = catalog.resolve_model(name)
    assert resolution.id == model_id, (name, resolution)
    assert resolution.params_b == catalog.data().model(model_id).total_params_b  # type: ignore[union-attr]


def test_family_names_now_cover_the_new_releases(catalog: Catalog) -> None:
    assert set(catalog.resolve_model("glm").candidates) == {"glm-4.7", "glm-4.6", "glm-4.5", "glm-4.5-air"}
    kimi = catalog.resolve_model("kimi")
    assert kimi.id == "kimi-k2" and set(kimi.candidates) == {"kimi-k2-thinking", "kimi-k2.5"}
    assert "K2 Thinking" in kimi.message and "K2.5" in kimi.message  # the choice made is said, not silent


def test_rows_carry_what_changes_the_plan(catalog: Catalog) -> None:
    data = catalog.data()
    coder = data.model("qwen3-coder-480b-a35b-instruct")
    assert coder is not None and coder.num_experts == 160 and coder.experts_per_token == 8
    assert coder.active_params_b == pytest.approx(35.5, abs=0.1) and not coder.reasoning
    for kimi in ("kimi-k2-thinking", "kimi-k2.5"):  # released in INT4 (the routed experts), 256K context
        row = data.model(kimi)
        assert row is not None and row.native_precision == "int4" and row.max_context == 262144
    for hybrid, full_layers in (("qwen3-next-80b-a3b-instruct", 12), ("qwen3.5-397b-a17b", 15)):
        row = data.model(hybrid)
        assert row is not None and row.num_layers - (row.local_attention_layers or 0) == full_layers
        assert "Gated DeltaNet" in row.notes and "window" in row.notes  # the row says how it is modelled
    thinking, instruct = data.model("qwen3-next-80b-a3b-thinking"), data.model("qwen3-next-80b-a3b-instruct")
    assert thinking is not None and instruct is not None and thinking.reasoning and not instruct.reasoning


def test_every_new_row_cites_a_config_json(catalog: Catalog) -> None:
    new = ("qwen3-coder-480b-a35b-instruct", "qwen3-next-80b-a3b-thinking", "qwen3-next-80b-a3b-instruct",
           "qwen3.5-397b-a17b", "kimi-k2-thinking", "kimi-k2.5", "glm-4.7", "glm-4.6")
    for model_id in new:
        row = catalog.data().model(model_id)
        assert row is not None and "config.json" in row.source and row.observed_on == "2026-11-24", model_id


# ---- an MoE name the catalog lacks ----------------------------------------------------------------------------


def test_moe_sizes_are_read_from_a_name() -> None:
    assert moe_sizes_in_name("Foo-480B-A35B") == (480.0, 35.0)
    assert moe_sizes_in_name("baidu/ERNIE-4.5-300B-A47B-PT") == (300.0, 47.0)
    assert moe_sizes_in_name("Ling-flash-2.0-100B-A6B") == (100.0, 6.0)
    for not_moe in ("llama-3-70b", "mixtral-8x7b", "foo-35b-a480b", "a100-80gb", "Hunyuan-A13B"):
        assert moe_sizes_in_name(not_moe) is None, not_moe
    assert unlisted_moe_id("someorg/Foo-480B-A35B") == "foo-480b-a35b"


def test_an_unknown_moe_name_resolves_to_its_own_sizes(catalog: Catalog) -> None:
    resolution = catalog.resolve_model("Foo-480B-A35B")
    assert resolution.id == "foo-480b-a35b" and resolution.params_b == 480.0
    assert "not in the catalog" in resolution.message and "35B active" in resolution.message
    # another size of a family the catalog holds: its own sizes, not a refusal nor the 480B
    other = catalog.resolve_model("Qwen/Qwen3-Coder-30B-A3B-Instruct")
    assert other.id == "qwen3-coder-30b-a3b-instruct" and other.params_b == 30.0
    assert catalog.resolve_model("llama-5-70b").id is None  # a dense name the catalog lacks stays unknown
    # a close catalog name's total with another active count is a slip to point out, not a model to size
    slip = catalog.resolve_model("qwen3-coder-480b-a22b")
    assert slip.id is None and "qwen3-coder-480b-a35b-instruct" in slip.message


def test_the_stand_in_is_an_moe_of_the_stated_sizes(catalog: Catalog) -> None:
    data = catalog.data()
    stand_in = data.model("foo-480b-a35b")
    assert stand_in is not None and stand_in.family == UNLISTED_MOE_FAMILY
    assert (stand_in.total_params_b, stand_in.active_params_b) == (480.0, 35.0)
    assert not stand_in.kv_lora_rank and not stand_in.sliding_window  # full-attention GQA: the cautious KV cache
    assert stand_in.notes.startswith("foo-480b-a35b is not in the catalog: sized as an MoE of 480B total / 35B active")
    arch = architecture_for(stand_in, 480)
    assert arch.generic and arch.is_moe
    assert arch.total_params == 480_000_000_000 and arch.active_params == 35_000_000_000
    assert data.model("foo-70b") is None and data.model("foo-35b-a480b") is None
    assert stand_in not in data.models  # never listed, only looked up


def _serve(data: CatalogData, model: str) -> tuple[str, int, int]:
    advice = advise(Workload(mode="inference", model=model, concurrency=20), data)
    assert advice.cluster is not None and advice.cluster.fits, advice.problems
    return advice.cluster.gpu, advice.cluster.gpus, advice.cluster.nodes


def test_qwen3_coder_480b_for_20_users_plans_one_node_not_sixteen_b300s(catalog: Catalog) -> None:
    """vLLM's recipe: one 8x H200 node (docs.vllm.ai/projects/recipes, Qwen3-Coder-480B-A35B). Sized as a dense
    480B it was 16x B300 over two nodes at $92k a month."""
    data = catalog.data()
    gpu, gpus, nodes = _serve(data, "qwen3-coder-480b-a35b-instruct")
    assert nodes == 1 and gpus <= 8, (gpu, gpus)
    for pinned in ("h200-sxm", "b200"):
        advice = advise(Workload(mode="inference", model="qwen3-coder-480b-a35b-instruct", concurrency=20,
                                 gpu=pinned), data)
        assert advice.cluster is not None and advice.cluster.fits and advice.cluster.gpus <= 8, pinned
        assert advice.cluster.nodes == 1, pinned
    # the same sizes under a name the catalog lacks: planned as the MoE, not as a dense 480B
    _gpu, stand_in_gpus, stand_in_nodes = _serve(data, "foo-480b-a35b")
    assert stand_in_nodes == 1 and stand_in_gpus <= 8


def test_a_generation_the_catalog_lacks_is_not_its_family_default() -> None:
    """"DeepSeek V4 Flash" reached the "deepseek" family entry by dropping its version and was sized as DeepSeek-V3
    (671B) with no word; V4 Flash is another model (284B total / 13B active). A version no family member has asks,
    naming what the catalog has; the family alone, and generations it has (a minor release keeps its generation's
    shape: Mistral Small 3.1 is Small 3's 24B), resolve as before; a checkpoint's own
    version ("-v0.1") and a date ("-2501") are no generation."""
    from catalog import open_catalog

    catalog = open_catalog()
    for text in ("deepseek v4", "DeepSeek-V4"):
        found = catalog.resolve_model(text)
        assert found.id is None and "is not in the catalog (it has DeepSeek-V3 (671B MoE)" in (found.message or ""), text
        assert "-284B-A13B” for an MoE" in (found.message or "")
    for text, model in (("deepseek", "deepseek-v3"), ("deepseek v3.1", "deepseek-v3.1"), ("deepseek v3", "deepseek-v3"),
                        ("mistralai/Mistral-Small-3.1-24B-Instruct-2503", "mistral-small-3-24b"),
                        ("Mixtral-8x7B-Instruct-v0.1", "mixtral-8x7b"), ("llama 3.1 70b", "llama-3.1-70b"),
                        ("mistralai/Mistral-Small-24B-Instruct-2501", "mistral-small-3-24b")):
        assert catalog.resolve_model(text).id == model, text


def test_an_moe_name_beside_a_dense_model_of_its_total_is_sized_as_the_moe() -> None:
    """"Qwen3-Coder-30B-A3B": Qwen2.5-Coder 32B (dense) was taken for a name it slipped from, so the name was unknown
    and the parser sized a dense 30B. Only an MoE's name slips on its active count ("Qwen3-235B-A3B" still asks)."""
    from catalog import open_catalog

    catalog = open_catalog()
    coder = catalog.resolve_model("Qwen3-Coder-30B-A3B")
    assert (coder.id, coder.params_b) == ("qwen3-coder-30b-a3b", 30.0)
    slip = catalog.resolve_model("Qwen3-235B-A3B")
    assert slip.id is None and "Did you mean" in (slip.message or "")
