"""Hub lookups against a fake Hugging Face Hub on loopback: found, gated (401/403), not found,
unreachable, MoE, FP8, MXFP4, a multimodal config, a sharded safetensors index, name search, and the
second lookup served from the cache with the server seeing no request."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from catalog.hub import HubCache, HubClient, HubSettings, is_repo_id, native_precision, pick_canonical
from tests.catalog.fake_hub import FakeHub, FakeRepo, safetensors_header

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "hub"
TODAY = "2026-11-23"


def config(name: str) -> dict:
    return json.loads((FIXTURES / f"{name}_config.json").read_text())


def single_file(tensors: dict[str, tuple[str, list[int]]]) -> dict[str, bytes]:
    return {"model.safetensors": safetensors_header(tensors)}


def sharded(shards: list[dict[str, tuple[str, list[int]]]]) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    weight_map: dict[str, str] = {}
    for i, tensors in enumerate(shards, start=1):
        name = f"model-{i:05d}-of-{len(shards):05d}.safetensors"
        files[name] = safetensors_header(tensors)
        weight_map.update({t: name for t in tensors})
    files["model.safetensors.index.json"] = json.dumps({"metadata": {"total_size": 1}, "weight_map": weight_map}).encode()
    return files


@pytest.fixture
def hub() -> Iterator[FakeHub]:
    fake = FakeHub()
    fake.add(FakeRepo("Qwen/Qwen3-30B-A3B", config("qwen3_30b_a3b"),
                      single_file({"w": ("BF16", [30_532_122_624])}), sha="ad44e777bcd18fa416d9da3bd8f70d33ebb85d39",
                      downloads=900_000))
    fake.add(FakeRepo("Qwen/Qwen3-32B-FP8", config("qwen3_32b_fp8"),
                      sharded([{"a": ("F8_E4M3", [16_000_000_000])},
                               {"b": ("F8_E4M3", [16_762_123_264]), "scale": ("BF16", [2_000_000])}])))
    fake.add(FakeRepo("openai/gpt-oss-20b", config("gpt_oss_20b"),
                      single_file({"blocks": ("U8", [9_000_000_000]), "rest": ("BF16", [3_000_000_000])})))
    fake.add(FakeRepo("google/gemma-3-27b-it", config("gemma_3_27b_it"),
                      single_file({"w": ("BF16", [27_432_406_640])})))
    fake.add(FakeRepo("meta-llama/Llama-3.3-70B-Instruct", config("llama_3_3_70b_instruct"), gated=True))
    fake.start()
    yield fake
    fake.stop()


def client(hub_url: str, tmp_path: Path, token: str | None = None, offline: bool = False) -> HubClient:
    return HubClient(HubSettings(endpoint=hub_url, token=token, offline=offline, timeout_s=5),
                     HubCache(tmp_path / "catalog.db"), today=lambda: TODAY)


def test_moe_model_found_with_exact_count_and_provenance(hub: FakeHub, tmp_path: Path) -> None:
    result = client(hub.url, tmp_path).lookup("Qwen/Qwen3-30B-A3B")
    assert result.status == "found", result.message
    record = result.record
    assert record is not None
    assert record.id == "qwen/qwen3-30b-a3b" and record.hf_repo == "Qwen/Qwen3-30B-A3B"
    assert result.exact_params == 30_532_122_624
    assert record.total_params_b == pytest.approx(30.532, abs=0.001)
    assert record.num_experts == 128 and record.experts_per_token == 8
    assert 3.0 < record.active_params_b < 3.6  # 3.3B active per token, as Qwen publishes
    assert record.native_precision == "bf16"
    assert "ad44e777bcd18fa416d9da3bd8f70d33ebb85d39" in record.source and record.observed_on == TODAY
    # every read is pinned to the commit the model info named
    assert "/Qwen/Qwen3-30B-A3B/resolve/ad44e777bcd18fa416d9da3bd8f70d33ebb85d39/config.json" in hub.requests


def test_second_lookup_is_served_from_the_cache_without_a_request(hub: FakeHub, tmp_path: Path) -> None:
    first = client(hub.url, tmp_path).lookup("Qwen/Qwen3-30B-A3B")
    sent = len(hub.requests)
    assert sent >= 3  # model info, config.json, safetensors header
    again = client(hub.url, tmp_path).lookup("qwen/qwen3-30b-a3b")  # a new client: the cache is in the DB file
    assert len(hub.requests) == sent
    assert again.from_cache and again.record == first.record and again.revision == first.revision


def test_cache_answers_even_when_offline(hub: FakeHub, tmp_path: Path) -> None:
    client(hub.url, tmp_path).lookup("openai/gpt-oss-20b")
    offline = client(hub.url, tmp_path, offline=True)
    assert offline.lookup("openai/gpt-oss-20b").ok
    assert offline.lookup("Qwen/Qwen3-30B-A3B").status == "unreachable"


def test_fp8_model_from_a_sharded_index(hub: FakeHub, tmp_path: Path) -> None:
    result = client(hub.url, tmp_path).lookup("Qwen/Qwen3-32B-FP8")
    assert result.status == "found", result.message
    assert result.exact_params == 16_000_000_000 + 16_762_123_264 + 2_000_000  # both shards' headers
    assert any("model-00002-of-00002.safetensors" in r for r in hub.requests)
    assert result.record is not None and result.record.native_precision == "fp8"
    assert result.record.total_params_b == pytest.approx(32.764, abs=0.001)


def test_mxfp4_moe_keeps_the_architecture_count(hub: FakeHub, tmp_path: Path) -> None:
    """Packed 4-bit weights hold two values per stored byte: the header's element count is not a parameter count."""
    result = client(hub.url, tmp_path).lookup("openai/gpt-oss-20b")
    record = result.record
    assert record is not None and record.native_precision == "mxfp4"
    assert record.total_params_b == pytest.approx(20.9, abs=0.1)  # not the 12B elements in the headers
    assert record.num_experts == 32 and record.experts_per_token == 4
    assert "packed mxfp4" in record.notes


def test_multimodal_config_reads_text_config(hub: FakeHub, tmp_path: Path) -> None:
    record = client(hub.url, tmp_path).lookup("google/gemma-3-27b-it").record
    assert record is not None
    assert (record.num_layers, record.hidden_size, record.num_kv_heads) == (62, 5376, 16)
    assert record.tie_word_embeddings and record.family == "gemma3"
    assert record.total_params_b == pytest.approx(27.432, abs=0.001)  # the vision tower counts too
    assert record.active_params_b == pytest.approx(record.total_params_b, abs=0.01)


@pytest.mark.parametrize(("token", "status_code", "words"), [
    (None, 401, "set HF_TOKEN"),
    ("hf_test_token_without_access", 403, "has no access yet"),
])
def test_gated_model_says_how_to_give_a_token(hub: FakeHub, tmp_path: Path, token: str | None,
                                              status_code: int, words: str) -> None:
    result = client(hub.url, tmp_path, token=token).lookup("meta-llama/Llama-3.3-70B-Instruct")
    assert result.status == "gated"
    assert "gated model" in result.message and words in result.message
    assert result.record is None
    assert client(hub.url, tmp_path).cache.get_model("meta-llama/Llama-3.3-70B-Instruct") is None  # never cached


def test_not_found(hub: FakeHub, tmp_path: Path) -> None:
    result = client(hub.url, tmp_path).lookup("nobody/no-such-model-7b")
    assert result.status == "not_found"
    assert "no model “nobody/no-such-model-7b” on the Hugging Face Hub" in result.message


def test_unreachable_hub_is_one_clear_line(tmp_path: Path) -> None:
    with socket.socket() as sock:  # a port nothing listens on: connection refused
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    result = client(f"http://127.0.0.1:{port}", tmp_path).lookup("Qwen/Qwen3-30B-A3B")
    assert result.status == "unreachable"
    assert result.message.startswith("The Hugging Face Hub could not be reached")


def test_an_outage_is_not_asked_again_for_a_while(hub: FakeHub, tmp_path: Path) -> None:
    hub.fail_with = 503
    hub_client = client(hub.url, tmp_path)
    first = hub_client.lookup("Qwen/Qwen3-30B-A3B")
    assert first.status == "unreachable" and "HTTP 503" in first.message
    sent = len(hub.requests)
    assert hub_client.search("gemma 3 27b").status == "unreachable"  # answered at once
    assert len(hub.requests) == sent
    hub.fail_with = None
    hub_client.retry_after_s = 0.0
    hub_client._down = None  # the window has passed
    assert hub_client.lookup("Qwen/Qwen3-30B-A3B").ok


def test_offline_setting_sends_nothing(hub: FakeHub, tmp_path: Path) -> None:
    result = client(hub.url, tmp_path, offline=True).lookup("Qwen/Qwen3-30B-A3B")
    assert result.status == "unreachable" and "HF_HUB_OFFLINE" in result.message
    assert hub.requests == []


def test_name_search_picks_the_publisher_and_caches_the_choice(hub: FakeHub, tmp_path: Path) -> None:
    hub.search_results["qwen3-30b-a3b"] = [
        ("Qwen/Qwen3-30B-A3B", 900_000), ("unsloth/Qwen3-30B-A3B-GGUF", 800_000), ("someone/Qwen3-30B-A3B-abliterated", 5)]
    result = client(hub.url, tmp_path).search("qwen3 30b a3b")
    assert result.status == "found" and result.repo_id == "Qwen/Qwen3-30B-A3B"
    sent = len(hub.requests)
    assert client(hub.url, tmp_path).search("Qwen3-30B-A3B").ok
    assert len(hub.requests) == sent


def test_name_search_asks_when_two_publishers_fit(hub: FakeHub, tmp_path: Path) -> None:
    hub.search_results["foo-7b"] = [("alpha/Foo-7B", 1000), ("beta/Foo-7B", 900)]
    result = client(hub.url, tmp_path).search("foo 7b")
    assert result.status == "ambiguous" and result.candidates == ("alpha/Foo-7B", "beta/Foo-7B")
    assert "which one" in result.message


def test_name_search_without_a_match(hub: FakeHub, tmp_path: Path) -> None:
    assert client(hub.url, tmp_path).search("zzz 3b").status == "not_found"


@pytest.mark.parametrize(("found", "expected"), [
    ([("google/gemma-3-27b-it", 500), ("google/gemma-3-27b-pt", 100), ("unsloth/gemma-3-27b-it-GGUF", 900)],
     ("google/gemma-3-27b-it", ())),
    ([("Qwen/Qwen3-32B-AWQ", 50), ("Qwen/Qwen3-32B", 40)], ("Qwen/Qwen3-32B", ())),
    ([("a/Bar-2B", 10), ("b/Bar-2B", 9)], (None, ("a/Bar-2B", "b/Bar-2B"))),
    ([("a/Other-2B", 10)], (None, ())),
])
def test_pick_canonical(found: list[tuple[str, int]], expected: tuple) -> None:
    query = found[0][0].split("/")[1].lower().replace("-awq", "").replace("-gguf", "")
    if query == "other-2b":
        query = "bar 2b"
    assert pick_canonical(query, found) == expected


@pytest.mark.parametrize(("quant", "expected"), [
    ({"quant_method": "mxfp4"}, "mxfp4"),
    ({"quant_method": "fp8", "fmt": "e4m3"}, "fp8"),
    ({"quant_method": "gptq", "bits": 4}, "int4"),
    ({"quant_method": "awq", "bits": 4}, "int4"),
    ({"quant_method": "gptq", "bits": 8}, "int8"),
    ({"quant_method": "compressed-tensors",
      "config_groups": {"g": {"weights": {"type": "float", "num_bits": 8}}}}, "fp8"),
    (None, "bf16"),
])
def test_native_precision(quant: dict | None, expected: str) -> None:
    cfg = {"torch_dtype": "bfloat16"} | ({"quantization_config": quant} if quant else {})
    assert native_precision(cfg) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("Qwen/Qwen3-32B", True), ("meta-llama/Llama-3.3-70B-Instruct", True), ("openai/gpt-oss-20b", True),
    ("tokens/s", False), ("a/b/c", False), ("qwen3 32b", False), ("1k/256", False),
])
def test_is_repo_id(text: str, expected: bool) -> None:
    assert is_repo_id(text) is expected
