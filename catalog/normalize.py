"""Turning what people type ("A100 80G", "Meta-Llama-3-70B-Instruct") into alias-table keys.

Why one function for keys: the build step stores aliases under `alias_key(alias)` and lookups
compute `alias_key(text)`, so matching is case-, space-, hyphen- and underscore-insensitive by
construction. Model names get extra variants (org prefix, "Meta-" prefix, -Instruct/-chat/-hf,
context-length and version suffixes stripped) because repo names carry them and the
architecture does not change. Nothing here raises, whatever the text.
"""

from __future__ import annotations

import re
import unicodedata

_VENDOR_WORDS = re.compile(r"\b(nvidia|geforce|tesla|amd|instinct|the|gpus?|cards?)\b")
_GB_SUFFIX = re.compile(r"(\d)\s*(gib|gb|g)\b")
_NOT_KEY = re.compile(r"[^a-z0-9.+]")
# Suffix words a model repo adds without changing the architecture.
_MODEL_SUFFIX = re.compile(
    r"[-_ .](instruct|chat|hf|it|base|fp8|fp16|bf16|awq|gptq|gguf|int4|int8|4bit|8bit|bnb|"
    r"quantized|w4a16|w8a8|w8a16|w4a8|dynamic|nvfp4|mxfp4|"
    r"\d+k|(?:24|25|26)(?:0[1-9]|1[0-2]))$"  # "…-2503", "…-2507": a release's year and month
)
_VERSION_SUFFIX = re.compile(r"[-_ ]v\d+(\.\d+)*$")


def alias_key(text: str) -> str:
    """Canonical lookup key: lower case, vendor words and separators removed, "80G" -> "80gb"."""
    if not isinstance(text, str):
        return ""
    s = unicodedata.normalize("NFKC", text).lower().replace("×", "x")
    s = _VENDOR_WORDS.sub(" ", s)
    s = _GB_SUFFIX.sub(r"\1gb", s)
    s = _NOT_KEY.sub("", s)
    return s.strip(".")


def model_name_variants(text: str) -> list[str]:
    """Progressively stripped spellings of a model name, most specific first.

    "meta-llama/Meta-Llama-3-70B-Instruct" -> [..., "Meta-Llama-3-70B", "Llama-3-70B"].
    """
    if not isinstance(text, str):
        return []
    raw = text.strip()
    out: list[str] = [raw]
    base = raw.rsplit("/", 1)[-1].strip()
    if base and base != raw:
        out.append(base)
    current = base
    for _ in range(6):  # bounded: at most a handful of suffixes
        stripped = _MODEL_SUFFIX.sub("", current.lower())
        stripped = _VERSION_SUFFIX.sub("", stripped)
        if stripped == current.lower():
            break
        current = stripped
        out.append(current)
    for name in list(out):
        lowered = name.lower()
        if lowered.startswith("meta-") or lowered.startswith("meta "):
            out.append(name[5:])
    return out


def lookup_keys(text: str, kind: str) -> list[str]:
    """Keys to try in order: each spelling variant, then the same without a plural "s"."""
    variants = model_name_variants(text) if kind == "model" else [text]
    keys: list[str] = []
    for variant in variants:
        key = alias_key(variant)
        if key and key not in keys:
            keys.append(key)
    for key in list(keys):
        if key.endswith("s") and len(key) > 2 and key[:-1] not in keys:
            keys.append(key[:-1])
    return keys
