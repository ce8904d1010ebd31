"""Importing a model architecture from a Hugging Face `config.json`, offline.

Why: users fine-tune models the catalog does not list. `gpu-advisor catalog import-model
config.json --name ...` (bot/) calls `model_from_config` and `add_model_to_file`, so a new
architecture becomes a reviewed models.csv row with its parameter count computed the same
way as every other row (catalog/params.py).

Key spellings differ per family; handled here: llama/mistral/qwen2/gemma2/phi3
(`num_hidden_layers`, `num_key_value_heads`, `head_dim`), mixtral (`num_local_experts`,
`num_experts_per_tok`), falcon (`n_layer`, `n_head`, `n_head_kv`/`num_kv_heads`,
`multi_query`, `ffn_hidden_size` or 4 x hidden, plain GELU MLP), deepseek_v3 (MLA ranks,
`n_routed_experts`, `n_shared_experts`, `first_k_dense_replace`, `moe_intermediate_size`),
qwen2_moe/qwen3_moe (`num_experts`, `shared_expert_intermediate_size`), GPT-2 style
(`n_embd`, `n_positions`, `n_inner`). Missing `head_dim` defaults to hidden / heads.
"""

from __future__ import annotations

import csv
import datetime as dt
import re
from pathlib import Path
from typing import Any

from catalog.params import Shape, count_params
from catalog.records import ModelRecord

_NON_GATED_TYPES = {"falcon", "gpt2", "gpt_neox", "gptj", "bloom", "opt", "mpt", "starcoder2", "phi"}


class ConfigError(ValueError):
    """The config lacks what a parameter count needs; the message names the missing key."""


def _first(config: dict[str, Any], *keys: str, default: Any = None) -> Any:
    for key in keys:
        value = config.get(key)
        if value is not None:
            return value
    return default


def _required_int(config: dict[str, Any], *keys: str) -> int:
    value = _first(config, *keys)
    if value is None:
        raise ConfigError(f"config.json has none of {', '.join(keys)}")
    try:
        return int(value)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"config.json {keys[0]} is not an integer: {value!r}") from exc


def _optional_int(config: dict[str, Any], *keys: str) -> int | None:
    value = _first(config, *keys)
    return None if value is None else int(value)


def slugify(name: str) -> str:
    """'Llama 3.1 8B' -> 'llama-3.1-8b' (the catalog's id style)."""
    base = name.rsplit("/", 1)[-1].lower()
    return re.sub(r"-{2,}", "-", re.sub(r"[^a-z0-9.]+", "-", base)).strip("-.")


def shape_from_config(config: dict[str, Any]) -> tuple[Shape, dict[str, Any]]:
    """The architecture shape plus the extra record fields (family, context, hf repo)."""
    if not isinstance(config, dict):
        raise ConfigError("config.json must be a JSON object")
    model_type = str(config.get("model_type") or "unknown")
    hidden = _required_int(config, "hidden_size", "n_embd", "d_model")
    layers = _required_int(config, "num_hidden_layers", "n_layer", "num_layers")
    heads = _required_int(config, "num_attention_heads", "n_head", "num_heads")
    if (
        config.get("multi_query")
        and _first(config, "n_head_kv", "num_kv_heads", "num_key_value_heads") is None
    ):
        kv_heads = 1
    else:
        kv_heads = int(_first(config, "num_key_value_heads", "n_head_kv", "num_kv_heads", default=heads))
    head_dim = int(_first(config, "head_dim", "qk_nope_head_dim", default=hidden // heads))
    gated = model_type not in _NON_GATED_TYPES
    ffn = _first(config, "intermediate_size", "ffn_hidden_size", "n_inner")
    intermediate = int(ffn) if ffn is not None else 4 * hidden
    vocab = _required_int(config, "vocab_size")

    num_experts = _optional_int(config, "num_local_experts", "n_routed_experts", "num_experts")
    if num_experts is not None and num_experts <= 1:
        num_experts = None
    moe_width = _optional_int(config, "moe_intermediate_size")
    shared = _optional_int(config, "n_shared_experts")
    shared_width = _optional_int(config, "shared_expert_intermediate_size")
    if shared is None and shared_width and moe_width:
        shared = max(1, round(shared_width / moe_width))  # Qwen MoE: one wide shared expert
    first_dense = _optional_int(config, "first_k_dense_replace")
    tie_default = model_type in {"gemma", "gemma2", "gemma3", "falcon"}

    shape = Shape(
        num_layers=layers,
        hidden_size=hidden,
        num_attention_heads=heads,
        num_kv_heads=kv_heads,
        head_dim=head_dim,
        intermediate_size=intermediate,
        vocab_size=vocab,
        tie_word_embeddings=bool(config.get("tie_word_embeddings", tie_default)),
        gated_mlp=gated,
        moe_intermediate_size=moe_width if num_experts else None,
        num_experts=num_experts,
        experts_per_token=_optional_int(config, "num_experts_per_tok", "num_experts_per_token")
        if num_experts
        else None,
        shared_experts=shared if num_experts else None,
        first_dense_layers=first_dense if num_experts else None,
        kv_lora_rank=_optional_int(config, "kv_lora_rank"),
        q_lora_rank=_optional_int(config, "q_lora_rank"),
        qk_rope_head_dim=_optional_int(config, "qk_rope_head_dim"),
        v_head_dim=_optional_int(config, "v_head_dim"),
    )
    extra = {
        "family": model_type,
        "max_context": int(
            _first(config, "max_position_embeddings", "n_positions", "seq_length", default=2048)
        ),
        "hf_repo": config.get("_name_or_path") or None,
    }
    return shape, extra


def native_precision(config: dict[str, Any]) -> str:
    """The format a checkpoint's weights are released in, from `quantization_config`:
    "fp8" (DeepSeek-V3, Kimi K2: block-wise e4m3), "mxfp4" (gpt-oss), "int4" (GPTQ, AWQ,
    bitsandbytes 4-bit), "int8" (bitsandbytes 8-bit); "bf16" when there is none."""
    quant = config.get("quantization_config")
    if not isinstance(quant, dict):
        return "bf16"
    method = str(quant.get("quant_method") or "").lower()
    if method == "fp8" or str(quant.get("fmt") or "").lower().startswith("e4m3"):
        return "fp8"
    if method == "mxfp4":
        return "mxfp4"
    if method in ("gptq", "awq") or quant.get("load_in_4bit") or quant.get("bits") == 4:
        return "int4"
    if quant.get("load_in_8bit") or quant.get("bits") == 8:
        return "int8"
    return "bf16"


def local_attention(config: dict[str, Any], layers: int) -> tuple[int | None, int | None]:
    """(window tokens, layers that use it) from config.json: `layer_types` (gpt-oss, newer Gemma/Qwen
    configs) counts them; Gemma 3's `sliding_window_pattern` makes every Nth layer global; Gemma 2
    alternates; Llama 4's `attention_chunk_size` applies to 3 of every 4 layers (every 4th is global, NoPE);
    Mistral-style configs apply `sliding_window` to every layer unless `use_sliding_window` is false
    (Qwen2 configs carry a window they do not use)."""
    model_type = str(config.get("model_type") or "")
    chunk = _optional_int(config, "attention_chunk_size")
    if chunk and model_type.startswith("llama4"):
        return chunk, layers - layers // 4
    window = _optional_int(config, "sliding_window")
    if not window or config.get("use_sliding_window") is False:
        return None, None
    if window >= int(_first(config, "max_position_embeddings", default=0) or 0) > 0:
        return None, None  # a window as long as the context is no window
    types = config.get("layer_types")
    if isinstance(types, list) and types:
        local = sum(1 for t in types if "sliding" in str(t) or "local" in str(t) or "chunk" in str(t))
        return (window, local) if local else (None, None)
    pattern = _optional_int(config, "sliding_window_pattern")
    if pattern and pattern > 1:
        return window, layers - layers // pattern
    if model_type == "gemma2":
        return window, layers // 2
    if model_type in ("mistral", "mixtral"):
        return window, layers
    return None, None


def model_from_config(
    config: dict[str, Any],
    *,
    name: str,
    model_id: str | None = None,
    source: str,
    observed_on: str | None = None,
) -> ModelRecord:
    """A `ModelRecord` from a config.json dict, with total and active params computed.

    Raises `ConfigError` when a key the count needs is missing (the CLI prints it).
    """
    shape, extra = shape_from_config(config)
    total, active = count_params(shape)
    window, local_layers = local_attention(config, shape.num_layers)
    return ModelRecord(
        id=model_id or slugify(name),
        name=name,
        family=extra["family"],
        hf_repo=extra["hf_repo"],
        num_layers=shape.num_layers,
        hidden_size=shape.hidden_size,
        num_attention_heads=shape.num_attention_heads,
        num_kv_heads=shape.num_kv_heads,
        head_dim=shape.head_dim,
        intermediate_size=shape.intermediate_size,
        moe_intermediate_size=shape.moe_intermediate_size,
        vocab_size=shape.vocab_size,
        max_context=extra["max_context"],
        tie_word_embeddings=shape.tie_word_embeddings,
        gated_mlp=shape.gated_mlp,
        num_experts=shape.num_experts,
        experts_per_token=shape.experts_per_token,
        shared_experts=shape.shared_experts,
        first_dense_layers=shape.first_dense_layers,
        kv_lora_rank=shape.kv_lora_rank,
        q_lora_rank=shape.q_lora_rank,
        qk_rope_head_dim=shape.qk_rope_head_dim,
        total_params_b=round(total / 1e9, 2),
        active_params_b=round(active / 1e9, 2),
        native_precision=native_precision(config),
        reasoning=reasoning_by_name(" ".join(filter(None, (model_id, name, extra["hf_repo"])))),
        sliding_window=window,
        local_attention_layers=local_layers,
        notes="imported from config.json; parameter counts computed from the architecture",
        source=source,
        observed_on=observed_on or dt.date.today().isoformat(),
    )


_REASONING_NAME = re.compile(r"(?:^|[-_/ ])(?:r1|qwq|qwen3|gpt-oss|thinking|reasoning|reasoner)(?:$|[-_/ .])", re.IGNORECASE)


def reasoning_by_name(name: str) -> bool:
    """config.json does not say whether a model thinks before it answers; its name does for the families that
    do by default (DeepSeek-R1 and distills, QwQ, Qwen3, gpt-oss, "-Thinking" releases). A reviewer sets the
    column by hand for a row kept in models.csv."""
    return bool(_REASONING_NAME.search(name))


def _csv_value(value: Any) -> str:
    return "" if value is None else str(value)


def add_model_to_file(record: ModelRecord, models_csv: str | Path) -> bool:
    """Append `record` to a models.csv, or replace the row with the same id; True if replaced.

    Keeps the file's existing columns (review-only ones like params_b_vendor stay empty for
    the new row); a new file gets the record's columns.
    """
    path = Path(models_csv)
    fieldnames = list(ModelRecord.model_fields)
    rows: list[dict[str, str]] = []
    if path.is_file():
        with path.open(newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            fieldnames = list(reader.fieldnames or fieldnames)
            rows = list(reader)
    for column in ModelRecord.model_fields:
        if column not in fieldnames:
            fieldnames.append(column)
    dumped = {k: _csv_value(v) for k, v in record.model_dump().items()}
    new_row = {c: dumped.get(c, "") for c in fieldnames}
    replaced = False
    for i, row in enumerate(rows):
        if row.get("id") == record.id:
            rows[i] = new_row
            replaced = True
    if not replaced:
        rows.append(new_row)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=fieldnames, lineterminator="\n", extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return replaced
