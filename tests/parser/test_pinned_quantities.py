"""Pinned number reading: SI suffixes, binary context lengths, data units (SI and IEC).

Expected values are the unit definitions (SI: k = 10^3 ... ; IEC 80000-13: KiB = 2^10 bytes, so
1 TiB = 2^40 B = 1,099.511627776 GB), and the context-length convention of model cards ("8k
context" = 8,192 tokens, as in Llama's max_position_embeddings).
"""

from __future__ import annotations

import pytest

from parser import parse
from parser.quantities import _DATA_UNIT_GB, _number, _qty
from tests.parser.fake_resolver import FakeResolver


@pytest.mark.parametrize(("text", "binary", "value"), [
    ("70b", False, 70e9), ("8k", False, 8000.0), ("8k", True, 8192.0), ("1m", True, 1_048_576.0),
    ("2m", False, 2e6), ("1.5t", False, 1.5e12), ("512", False, 512.0), (" 4k ", True, 4096.0), ("3b", True, 3e9),
])
def test_quantities(text: str, binary: bool, value: float) -> None:
    assert _qty(text, binary) == value


def test_numbers_drop_separators_and_symbols() -> None:
    assert _number("1,000") == 1000.0
    assert _number("$2.80") == 2.8
    assert _number("") == 0.0


@pytest.mark.parametrize(("unit", "gb"), [
    ("kb", 1e-6), ("mb", 1e-3), ("gb", 1.0), ("tb", 1e3), ("pb", 1e6),
    ("kib", 2**10 / 1e9), ("mib", 2**20 / 1e9), ("gib", 2**30 / 1e9), ("tib", 2**40 / 1e9), ("pib", 2**50 / 1e9),
    ("kilobyte", 1e-6), ("megabyte", 1e-3), ("gigabyte", 1.0), ("terabyte", 1e3), ("petabyte", 1e6),
])
def test_data_units_in_gb(unit: str, gb: float) -> None:
    assert _DATA_UNIT_GB[unit] == pytest.approx(gb, rel=1e-12)


@pytest.mark.parametrize(("text", "field", "value"), [
    ("finetune llama 70b on 2TB of data", "dataset_gb", 2000.0),
    ("qlora 70b, 1 TiB corpus", "dataset_gb", pytest.approx(1099.511628)),
    ("llama 70b, 300mb of text", "dataset_gb", 0.3),
    ("1.2 PB of data, full finetune 7b", "dataset_gb", 1_200_000.0),
    ("500 GB in s3, 8k context", "seq_len", 8192),
    ("serve llama 3 8b with 32k context", "seq_len", 32_768),
    ("pretrain 7b on 1.5t tokens", "dataset_tokens", 1_500_000_000_000),
    ("qlora 70b, 1 TiB corpus", "params_b", 70.0),
])
def test_numbers_in_sentences(text: str, field: str, value: object) -> None:
    assert parse(text, FakeResolver()).updates[field] == value
