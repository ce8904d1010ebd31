"""Quantisation table and the precision choice (the usual 70B table: 280/140/70/35 GB)."""

import pytest

from engine.architecture import architecture_for
from engine.quantization import cheapest_fitting_precision, precision_table, supported
from tests.engine.fixtures_physics import A100_80, H100_SXM, L40S, LLAMA3_70B, RTX_4090, T4


def test_70b_footprints():
    rows = {r["precision"]: r for r in precision_table(architecture_for(None, 70))}
    assert [rows[p]["weights_gb"] for p in ("fp32", "bf16", "int8", "int4")] == [280.0, 140.0, 70.0, 35.0]
    assert rows["int4"]["quant_constants_gb"] > 0 and "measurable loss" in rows["int4"]["accuracy"]
    assert "minor" in rows["int8"]["accuracy"] and "training" in rows["bf16"]["accuracy"]


def test_kv_added_at_context():
    rows = {r["precision"]: r for r in precision_table(architecture_for(LLAMA3_70B, None), seq_len=8192, sequences=10)}
    assert rows["bf16"]["kv_cache_gb"] == pytest.approx(26.84, abs=0.01)
    assert rows["fp8"]["kv_cache_gb"] == pytest.approx(13.42, abs=0.01)


def test_hardware_caveats():
    assert not supported(A100_80, "fp8")[0] and supported(H100_SXM, "fp8")[0] and supported(L40S, "fp8")[0]
    assert supported(T4, "int4")[0] and supported(RTX_4090, "fp8")[0]


def test_least_lossy_fitting_precision():
    arch = architecture_for(LLAMA3_70B, None)
    assert cheapest_fitting_precision(arch, A100_80, 1)["precision"] == "int8"
    assert cheapest_fitting_precision(arch, A100_80, 2)["precision"] == "bf16"
    assert cheapest_fitting_precision(arch, H100_SXM, 1)["precision"] == "fp8"
    assert cheapest_fitting_precision(arch, RTX_4090, 1) is None
