"""Names are never silently wrong: every alias lands on the size it names, a name of another size
resolves to nothing (with suggestions), families that need a choice ask, and accelerators the
catalog does not cover are named as such."""

from __future__ import annotations

import csv

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catalog import Catalog, open_catalog
from catalog.resolve import size_matches, sizes_in_name

from .conftest import DATA_DIR

# (what people type, the model it must be) - the names of issue 9 and their neighbours
RESOLVES = [
    ("Mistral Large 2", "mistral-large-2"),
    ("mistral large", "mistral-large-2"),
    ("Mistral-Large-Instruct-2407", "mistral-large-2"),
    ("Mistral Small 3", "mistral-small-3-24b"),
    ("Mistral Small 3 24B", "mistral-small-3-24b"),
    ("mistral 24b", "mistral-small-3-24b"),
    ("mistralai/Mistral-Small-24B-Instruct-2501", "mistral-small-3-24b"),
    ("mistral 7b", "mistral-7b"),
    ("Mistral NeMo", "mistral-nemo-12b"),
    ("Qwen3-235B-A22B", "qwen3-235b-a22b"),
    ("qwen3 235b a22b", "qwen3-235b-a22b"),
    ("Qwen3-30B-A3B", "qwen3-30b-a3b"),
    ("Qwen/Qwen3-32B", "qwen3-32b"),
    ("Qwen2.5-Coder-32B-Instruct", "qwen2.5-coder-32b"),
    ("QwQ-32B", "qwq-32b"),
    ("Llama 4 Scout", "llama-4-scout"),
    ("Llama-4-Scout-17B-16E-Instruct", "llama-4-scout"),
    ("llama 4 maverick", "llama-4-maverick"),
    ("meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8", "llama-4-maverick"),
    ("llama 3.3 70b", "llama-3.3-70b"),
    ("meta-llama/Llama-3.3-70B-Instruct", "llama-3.3-70b"),
    ("gpt-oss-20b", "gpt-oss-20b"),
    ("gpt oss 120b", "gpt-oss-120b"),
    ("DeepSeek R1", "deepseek-r1"),
    ("DeepSeek-R1-Distill-Llama-70B", "deepseek-r1-distill-llama-70b"),
    ("deepseek r1 distill 70b", "deepseek-r1-distill-llama-70b"),
    ("deepseek r1 8b", "deepseek-r1-distill-llama-8b"),
    ("DeepSeek-R1-Distill-Qwen-32B", "deepseek-r1-distill-qwen-32b"),
    ("DeepSeek-V3.1", "deepseek-v3.1"),
    ("gemma 3 27b", "gemma-3-27b"),
    ("google/gemma-3-4b-it", "gemma-3-4b"),
    ("Phi-4", "phi-4"),
    ("microsoft/phi-4", "phi-4"),
    ("Kimi K2", "kimi-k2"),
    ("moonshotai/Kimi-K2-Instruct-0905", "kimi-k2"),
    ("GLM-4.5", "glm-4.5"),
    ("glm 4.5 air", "glm-4.5-air"),
    ("mixtral 8x22b", "mixtral-8x22b"),
]

# names the catalog must not map to an entry of another size (or another model): nothing, plus suggestions
NEVER_SILENT = [
    "Mistral Large 7B",  # Mistral Large is 123B
    "Mistral Small 3 7B",
    "Phi-4-mini",  # 3.8B, not Phi-4 (14B)
    "llama 3.3 8b",  # Llama 3.3 comes in 70B only
    "qwen3 72b",  # no Qwen3 72B
    "gemma 3 9b",
    "gpt-oss 70b",
    "llama 4 scout 70b",
    "Qwen3-235B-A3B",  # active count of another model
    "llama 3 405b",  # 405B is Llama 3.1
    "kimi k2 7b",
    "deepseek r1 3b",
]

# names that need a choice: no id, and the candidates to choose from
ASKS = [
    ("Llama 4", {"llama-4-scout", "llama-4-maverick"}),
    ("mistral", {"mistral-7b", "mistral-small-3-24b", "mistral-large-2"}),
    ("gpt-oss", {"gpt-oss-20b", "gpt-oss-120b"}),
    ("gemma 3", {"gemma-3-1b", "gemma-3-27b"}),
    ("qwen3", {"qwen3-32b", "qwen3-235b-a22b"}),
    ("deepseek r1 distill", {"deepseek-r1-distill-llama-70b", "deepseek-r1-distill-qwen-32b"}),
    ("glm", {"glm-4.5", "glm-4.5-air"}),
]


@pytest.mark.parametrize(("text", "expected"), RESOLVES)
def test_names_resolve_to_the_right_model(catalog: Catalog, text: str, expected: str) -> None:
    res = catalog.resolve_model(text)
    assert res.id == expected, res.message
    model = catalog.data().model(expected)
    assert model is not None and res.params_b == model.total_params_b  # the size a named model brings


@pytest.mark.parametrize("text", NEVER_SILENT)
def test_a_name_of_another_size_never_resolves(catalog: Catalog, text: str) -> None:
    res = catalog.resolve_model(text)
    assert res.id is None, f"{text!r} silently became {res.id}"
    assert "Unknown model" in res.message


@pytest.mark.parametrize(("text", "choices"), ASKS)
def test_families_that_need_a_choice_ask(catalog: Catalog, text: str, choices: set[str]) -> None:
    res = catalog.resolve_model(text)
    assert res.id is None and choices <= set(res.candidates), res
    assert "ambiguous" in res.message


def _alias_rows() -> list[dict[str, str]]:
    with (DATA_DIR / "aliases.csv").open(newline="") as handle:
        return [row for row in csv.DictReader(handle) if row["kind"] == "model"]


def test_every_model_alias_resolves_to_the_size_it_names(catalog: Catalog) -> None:
    """Every hand-written model alias, and every model's id, name and repo: a size in the words
    is the target's total or active parameter count (within name rounding)."""
    data = catalog.data()
    spellings = [(row["alias"], row["id"] or None, row["candidates"]) for row in _alias_rows()]
    spellings += [(s, m.id, "") for m in data.models for s in (m.id, m.name, m.hf_repo or m.id)]
    checked = 0
    for text, target, candidates in spellings:
        res = catalog.resolve_model(text)
        if target:
            assert res.id == target, (text, res.message)
        else:
            assert res.id is None and set(res.candidates) == set(candidates.split(";")), text
        for stated in sizes_in_name(text):
            for model_id in filter(None, (res.id, *res.candidates)):
                model = data.model(model_id)
                assert model is not None
                assert size_matches(stated, model.total_params_b, model.active_params_b), (text, model_id)
                checked += 1
    assert checked >= 100


def test_moe_names_read_total_and_active(catalog: Catalog) -> None:
    model = catalog.data().model(catalog.resolve_model("Qwen3-235B-A22B").id or "")
    assert model is not None
    assert model.total_params_b == pytest.approx(235, rel=0.01)
    assert model.active_params_b == pytest.approx(22, rel=0.02)
    assert sizes_in_name("Qwen3-235B-A22B") == [235.0, 22.0]
    assert sizes_in_name("Mixtral-8x7B") == []  # experts x size is not a total


@pytest.mark.parametrize(
    ("text", "display"),
    [("TPU v5e", "TPU v5e"), ("tpu v6e", "TPU v6e (Trillium)"), ("TPUs", "Google TPU"), ("Trainium2", "AWS Trainium2"),
     ("inferentia2", "AWS Inferentia2"), ("Gaudi 2", "Intel Gaudi 2")],
)
def test_unsupported_accelerators_are_named_not_swapped(catalog: Catalog, text: str, display: str) -> None:
    res = catalog.resolve_gpu(text)
    assert res.id is None and res.candidates == ()
    assert res.unsupported_accelerator == display and "not covered" in res.message


def test_gaudi_3_is_covered(catalog: Catalog) -> None:
    assert catalog.resolve_gpu("Gaudi 3").id == "gaudi3"
    assert catalog.resolve_gpu("gaudi").id == "gaudi3"


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("qlora mistral large 2 on 100m tokens", [("mistral large 2", "model", "mistral-large-2")]),
        ("serve llama 4 scout with 128k context", [("llama 4 scout", "model", "llama-4-scout")]),
        ("serve deepseek r1 , 8 x h100", [("deepseek r1", "model", "deepseek-r1")]),
        ("qlora 70b on tpu v5e", [("tpu v5e", "unsupported", None)]),
        ("serve it on a tpu v5e-8 slice", [("tpu v5e-8", "unsupported", None)]),
        ("serve it on 8 x gaudi 3", [("gaudi 3", "gpu", "gaudi3")]),
        ("fine-tune qwen/qwen3-32b", [("qwen/qwen3-32b", "model", "qwen3-32b")]),
        ("serve the mistral small 3 24b model", [("mistral small 3 24b", "model", "mistral-small-3-24b")]),
        ("we serve a lot of traffic on our cluster", []),
        ("serve llama 3 , 8b tokens", [("llama 3", "model", None)]),  # never across a phrase boundary
    ],
)
def test_find_names_in_a_message(catalog: Catalog, text: str, found: list[tuple[str, str, str | None]]) -> None:
    matches = catalog.find_names(text)
    assert [(m.text, m.kind, m.id) for m in matches] == found
    for m in matches:
        assert text[m.start:m.end] == m.text


def test_find_names_asks_for_families(catalog: Catalog) -> None:
    (match,) = catalog.find_names("serve llama 4 on h100")
    assert match.id is None and set(match.candidates) == {"llama-4-scout", "llama-4-maverick"}


def test_find_names_never_raises(catalog: Catalog) -> None:
    for text in ("", " ", ",,,", "a" * 5000, "tpu " * 50, "\x00 \u2603 llama 4", "-1 -- 8b-"):
        assert isinstance(catalog.find_names(text), list)


_SHARED: dict[str, Catalog] = {}


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("abcdeilmnopqrstuvwxz0123456789 .-,/")), max_size=60))
def test_find_names_spans_are_inside_the_text(text: str) -> None:
    if "c" not in _SHARED:
        _SHARED["c"] = open_catalog()
    previous_end = 0
    for match in _SHARED["c"].find_names(text):
        assert previous_end <= match.start < match.end <= len(text)
        assert text[match.start:match.end] == match.text and "," not in match.text
        previous_end = match.end


def test_size_guard_catches_an_alias_that_points_at_another_size() -> None:
    """A data slip ("mistral 24b" -> the 7B) cannot reach a user: the name's size wins."""
    from catalog.aliases import AliasEntry
    from catalog.resolve import Resolver

    sizes = {"mistral-7b": (7.24, 7.24), "mistral-small-3-24b": (23.57, 23.57), "qwen-32b-a": (32.76, 32.76)}
    names = {"model": {"mistral-7b": "Mistral 7B", "mistral-small-3-24b": "Mistral Small 3", "qwen-32b-a": "Qwen 32B"}}
    entries = [
        AliasEntry("model", "mistral24b", "mistral 24b", "mistral-7b", (), "", "test", 0),
        AliasEntry("model", "mistral24bx", "mistral 24b x", "mistral-7b", ("mistral-small-3-24b",), "", "test", 0),
    ]
    resolver = Resolver(entries, names, sizes)
    wrong = resolver.resolve("model", "mistral 24b")
    assert wrong.id is None and "no 24B model" in wrong.message and "mistral-7b" in wrong.message
    picked = resolver.resolve("model", "mistral 24b x")  # a family whose default is the wrong size
    assert picked.id == "mistral-small-3-24b" and picked.params_b == 23.57
