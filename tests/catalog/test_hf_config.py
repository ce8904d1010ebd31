"""Importing architectures from config.json fixtures (offline) into a models file."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from catalog import Catalog, open_catalog
from catalog.hf_config import ConfigError, add_model_to_file, model_from_config

from .conftest import FIXTURES


def _config(name: str) -> dict:
    return json.loads((FIXTURES / f"{name}_config.json").read_text())


@pytest.mark.parametrize(
    ("fixture", "name", "total", "active", "kv_heads", "gated"),
    [
        ("llama3_8b", "Llama 3 8B", 8.03, 8.03, 8, True),
        ("mixtral_8x7b", "Mixtral 8x7B", 46.70, 12.88, 8, True),
        ("falcon_40b", "Falcon 40B", 41.30, 41.30, 8, False),
        ("deepseek_v3", "DeepSeek-V3", 671.03, 37.55, 128, True),
    ],
)
def test_model_from_config(
    fixture: str, name: str, total: float, active: float, kv_heads: int, gated: bool
) -> None:
    record = model_from_config(_config(fixture), name=name, source="test fixture", observed_on="2026-11-21")
    assert record.total_params_b == pytest.approx(total, abs=0.01)
    assert record.active_params_b == pytest.approx(active, abs=0.01)
    assert record.num_kv_heads == kv_heads and record.gated_mlp is gated


def test_matches_the_catalog_row(catalog: Catalog) -> None:
    """The importer and the reviewed row agree on every architecture field."""
    record = model_from_config(_config("llama3_8b"), name="Llama 3 8B", source="t", observed_on="2026-11-21")
    stored = catalog.data().model("llama-3-8b")
    assert stored is not None
    for field in (
        "num_layers",
        "hidden_size",
        "num_attention_heads",
        "num_kv_heads",
        "head_dim",
        "intermediate_size",
        "vocab_size",
        "max_context",
        "total_params_b",
    ):
        assert getattr(record, field) == getattr(stored, field), field
    assert record.id == "llama-3-8b" and record.hf_repo == "meta-llama/Meta-Llama-3-8B"


def test_key_variants() -> None:
    falcon = model_from_config(_config("falcon_40b"), name="Falcon 40B", source="t")
    assert (
        falcon.head_dim == 64 and falcon.intermediate_size == 4 * 8192
    )  # defaults: hidden/heads, 4 x hidden
    assert falcon.tie_word_embeddings
    mqa = model_from_config(
        {
            "model_type": "falcon",
            "hidden_size": 4544,
            "n_layer": 32,
            "n_head": 71,
            "multi_query": True,
            "vocab_size": 65024,
        },
        name="Falcon 7B",
        source="t",
    )
    assert mqa.num_kv_heads == 1 and mqa.total_params_b == pytest.approx(6.92, rel=0.02)
    ds = model_from_config(_config("deepseek_v3"), name="DeepSeek-V3", model_id="my-ds", source="t")
    assert (ds.id, ds.kv_lora_rank, ds.qk_rope_head_dim, ds.first_dense_layers) == ("my-ds", 512, 64, 3)


def test_missing_key_is_a_clear_error() -> None:
    with pytest.raises(ConfigError, match="vocab_size"):
        model_from_config(
            {"hidden_size": 8, "num_hidden_layers": 2, "num_attention_heads": 2}, name="x", source="t"
        )


def test_add_model_to_file_and_open_with_it(tmp_path: Path) -> None:
    record = model_from_config(
        _config("mixtral_8x7b"),
        name="My Mixtral",
        model_id="my-mixtral",
        source="t",
        observed_on="2026-11-21",
    )
    target = tmp_path / "models.csv"
    assert add_model_to_file(record, target) is False
    assert add_model_to_file(record, target) is True  # same id replaced, not duplicated
    with target.open(newline="") as handle:
        assert [r["id"] for r in csv.DictReader(handle)] == ["my-mixtral"]
    catalog = open_catalog(extra_data_dirs=[tmp_path])
    assert catalog.resolve_model("my mixtral").id == "my-mixtral"
    assert catalog.data().model("my-mixtral").num_experts == 8  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("quantization_config", "expected"),
    [
        (None, "bf16"),
        ({"quant_method": "fp8", "fmt": "e4m3", "weight_block_size": [128, 128]}, "fp8"),  # DeepSeek-V3, Kimi K2
        ({"quant_method": "mxfp4", "modules_to_not_convert": ["model.layers.*.self_attn"]}, "mxfp4"),  # gpt-oss
        ({"quant_method": "gptq", "bits": 4}, "int4"),
        ({"quant_method": "awq", "bits": 4}, "int4"),
        ({"quant_method": "bitsandbytes", "load_in_4bit": True}, "int4"),
        ({"quant_method": "bitsandbytes", "load_in_8bit": True}, "int8"),
    ],
)
def test_native_precision_from_quantization_config(quantization_config: dict | None, expected: str) -> None:
    config = json.loads((FIXTURES / "llama3_8b_config.json").read_text())
    if quantization_config is not None:
        config["quantization_config"] = quantization_config
    record = model_from_config(config, name="Test", source="test")
    assert record.native_precision == expected


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        # gpt-oss: alternating layer_types, 128-token window
        ({"model_type": "gpt_oss", "sliding_window": 128, "max_position_embeddings": 131072,
          "layer_types": ["sliding_attention", "full_attention"] * 12}, (128, 12)),
        # Gemma 3: every 6th layer global
        ({"model_type": "gemma3_text", "sliding_window": 1024, "sliding_window_pattern": 6,
          "max_position_embeddings": 131072}, (1024, 62 - 62 // 6)),
        # Gemma 2: alternating
        ({"model_type": "gemma2", "sliding_window": 4096, "max_position_embeddings": 8192}, (4096, 21)),
        # Llama 4: 8k chunks on 3 of 4 layers
        ({"model_type": "llama4_text", "attention_chunk_size": 8192, "max_position_embeddings": 10485760}, (8192, 36)),
        # Mistral 7B v0.1: every layer
        ({"model_type": "mistral", "sliding_window": 4096, "max_position_embeddings": 32768}, (4096, 42)),
        # Qwen2 carries a window it does not use
        ({"model_type": "qwen2", "sliding_window": 131072, "use_sliding_window": False,
          "max_position_embeddings": 32768}, (None, None)),
        # a window as long as the context is no window
        ({"model_type": "mistral", "sliding_window": 32768, "max_position_embeddings": 32768}, (None, None)),
        ({"model_type": "llama"}, (None, None)),
    ],
)
def test_local_attention_from_config(config: dict, expected: tuple) -> None:
    from catalog.hf_config import local_attention

    layers = 24 if config["model_type"] == "gpt_oss" else (62 if "gemma3" in config["model_type"] else
                                                           (48 if "llama4" in config["model_type"] else 42))
    assert local_attention(config, layers) == expected


def test_windowed_models_in_the_catalog_say_so(catalog: Catalog) -> None:
    """The reviewed rows carry their config.json's local attention (KV cache and prefill depend on it)."""
    data = catalog.data()
    expected = {"gemma-3-27b": (1024, 52), "gemma-2-9b": (4096, 21), "gpt-oss-120b": (128, 18),
                "llama-4-scout": (8192, 36), "mistral-7b": (4096, 32), "llama-3.1-70b": (None, None)}
    for model_id, (window, local) in expected.items():
        m = data.model(model_id)
        assert m is not None and (m.sliding_window, m.local_attention_layers) == (window, local), model_id
