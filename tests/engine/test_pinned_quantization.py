"""Pinned figures: which precision a GPU supports and which one fits, and the unit helpers.

Hardware support from NVIDIA's CUDA compute-capability tables: FP8 tensor cores from Ada/Hopper
(compute capability 8.9 / 9.0), BF16 from Ampere (8.0; T4 at 7.5 has none), bitsandbytes 4-bit
from 7.5. Fit: weights = params x bytes (+ 1 GB CUDA overhead) against 90% of the card
(10% allocator headroom), GPUs needed = ceil(total / usable).
"""

from __future__ import annotations

import math

import pytest

from engine.architecture import from_record
from engine.quantization import cheapest_fitting_precision, compute_capability, precision_table, supported
from engine.units import GB, GIB, figure, finite, to_gb, to_gib
from tests.engine.fixtures_physics import A100_80, H100_SXM, LLAMA2_13B, LLAMA2_70B, RTX_4090, T4

MI300X = H100_SXM.model_copy(update={"id": "mi300x", "name": "MI300X", "vendor": "AMD", "compute_capability": "gfx942",
                                     "fp8_dense_tflops": 2614.9, "memory_gb": 192})
N_70B = 68_976_648_192


@pytest.mark.parametrize(("gpu", "precision", "ok"), [
    (H100_SXM, "fp8", True),  # 9.0
    (RTX_4090, "fp8", True),  # 8.9, exactly the minimum
    (A100_80, "fp8", False),  # 8.0: no FP8 tensor cores
    (T4, "int4", True),  # 7.5, exactly the bitsandbytes minimum
    (A100_80, "int4", True),
    (A100_80, "bf16", True),
    (T4, "bf16", True),  # runs, emulated: said in the text
    (MI300X, "fp8", True),  # AMD: judged by its FP8 figure, not a compute capability
    (MI300X.model_copy(update={"fp8_dense_tflops": None}), "fp8", False),
    (None, "fp8", True),  # no GPU chosen: nothing to refuse
])
def test_precision_support(gpu, precision: str, ok: bool) -> None:
    assert supported(gpu, precision)[0] is ok


def test_support_explanations() -> None:
    ok, why = supported(A100_80, "fp8")
    assert not ok and "8.9" in why and "A100 SXM 80GB is 8" in why
    assert "emulate" in supported(T4, "bf16")[1]
    assert supported(H100_SXM, "bf16")[1] == "BF16 tensor cores need Ampere+ (>= 8.0); older cards (T4, V100) emulate it slowly - use FP16"
    assert supported(H100_SXM, "fp32") == (True, "")
    assert "not an NVIDIA compute-capability part" in supported(MI300X, "int4")[1]


def test_compute_capability_parsing() -> None:
    assert compute_capability(H100_SXM) == 9.0
    assert compute_capability(MI300X) is None
    assert compute_capability(None) is None


@pytest.mark.parametrize(("model", "gpu", "gpus", "expected"), [
    (LLAMA2_70B, H100_SXM, 1, "fp8"),  # bf16 138.95 GB > 72 usable; fp8 69.98 GB fits
    (LLAMA2_70B, A100_80, 1, "int8"),  # no FP8 on Ampere: INT8 69.98 GB fits
    (LLAMA2_70B, H100_SXM, 2, "bf16"),  # 138.95 / 72 = 1.93: two cards
    (LLAMA2_13B, RTX_4090, 1, "fp8"),  # bf16 27.03 > 21.6; fp8 14.02 fits and Ada has FP8
    (LLAMA2_70B, RTX_4090, 1, None),  # even INT4 (34.5 GB + constants) > 21.6 GB
])
def test_cheapest_fitting_precision(model, gpu, gpus: int, expected: str | None) -> None:
    row = cheapest_fitting_precision(from_record(model), gpu, gpus)
    assert (row["precision"] if row else None) == expected


def test_cheapest_fitting_precision_counts_the_kv_cache() -> None:
    """70B on one H100 (72 GB usable) with 2 sequences of 32k tokens. KV per token 2 x 80 x 8 x 128:
    FP8 69.98 GB + 1-byte KV 10.7 GB = 80.7 GB: no; INT8 69.98 + 16-bit KV 21.5 = 91.5: no;
    INT4 34.49 + group constants 2.14 + 21.5 + 1 = 59.1 GB: yes. At 4 sequences nothing fits."""
    kv_elements = 2 * 80 * 8 * 128 * 32_768 * 2
    row = cheapest_fitting_precision(from_record(LLAMA2_70B), H100_SXM, 1, seq_len=32_768, sequences=2)
    assert row is not None and row["precision"] == "int4"
    assert row["kv_cache_gb"] == round(kv_elements * 2 / GB, 2)
    assert row["total_gb"] == round((N_70B * 0.5 + 68_451_041_280 * 4 / 128 + kv_elements * 2) / GB + 1, 2)
    assert cheapest_fitting_precision(from_record(LLAMA2_70B), H100_SXM, 1, seq_len=32_768, sequences=4) is None


def test_precision_table_headroom_and_fit() -> None:
    rows = {r["precision"]: r for r in precision_table(from_record(LLAMA2_70B), gpu=H100_SXM, headroom=0.0)}
    assert rows["fp8"]["fits_one_gpu"] is True and rows["fp8"]["gpus_needed"] == 1
    assert rows["bf16"]["gpus_needed"] == math.ceil((N_70B * 2 / GB + 1) / 80)  # 2
    assert rows["fp32"]["gpus_needed"] == math.ceil((N_70B * 4 / GB + 1) / 80)  # 4
    assert rows["fp8"]["supported"] is True and rows["int4"]["hardware"].startswith("bitsandbytes")
    assert "financial" in rows["int4"]["accuracy"]


def test_unit_helpers() -> None:
    assert to_gb(80e9) == 80.0
    assert to_gib(GIB * 3) == 3.0
    assert finite(math.inf) == 0.0 and finite(math.nan, 5.0) == 5.0 and finite(2.5) == 2.5
    fig = figure(1.23456, "GB", "f")
    assert fig.value == 1.235  # three decimals by default
    assert figure(math.nan, "GB", "f").value == 0.0
    assert figure(1.23456, "GB", "f", digits=1).value == 1.2


def test_supported_messages_exactly() -> None:
    fp8 = "FP8 tensor cores need Ada or Hopper+ (compute capability >= 8.9)"
    assert supported(H100_SXM, "fp8") == (True, fp8)
    assert supported(RTX_4090, "fp8") == (True, fp8)  # 8.9 is enough: no "is 8.9" complaint
    assert supported(A100_80, "fp8") == (False, fp8 + "; A100 SXM 80GB is 8")
    assert supported(T4, "fp8") == (False, fp8 + "; T4 is 7.5")  # no BF16 path either: still judged on FP8
    assert supported(T4, "int4") == (True, "bitsandbytes 4-bit needs compute capability >= 7.5; GPTQ/AWQ kernels are fastest on Ampere+")


def test_defaults_of_cheapest_fitting_precision() -> None:
    """One GPU and one sequence by default. 70B at 8,192 tokens on an H100 (72 GB usable):
    FP8 69.98 GB + 1-byte KV 1.34 GB = 71.3 GB fits; a second sequence (72.7 GB) would not."""
    arch = from_record(LLAMA2_70B)
    assert cheapest_fitting_precision(arch, H100_SXM)["precision"] == "fp8"  # type: ignore[index]
    row = cheapest_fitting_precision(arch, H100_SXM, seq_len=8192)
    assert row is not None and row["precision"] == "fp8"
    assert cheapest_fitting_precision(arch, H100_SXM, seq_len=8192, sequences=2)["precision"] == "int4"  # type: ignore[index]
    # with no headroom (80 GB usable) two sequences fit in FP8
    assert cheapest_fitting_precision(arch, H100_SXM, seq_len=8192, sequences=2, headroom=0.0)["precision"] == "fp8"  # type: ignore[index]
    # never FP32, even when 8 GPUs would hold it (277 GB / 72 = 4 GPUs)
    assert cheapest_fitting_precision(arch, H100_SXM, 8)["precision"] == "bf16"  # type: ignore[index]


def test_precision_table_defaults_and_formula() -> None:
    rows = {r["precision"]: r for r in precision_table(from_record(LLAMA2_70B), seq_len=4096, gpu=H100_SXM, headroom=0.5)}
    assert rows["bf16"]["kv_cache_gb"] == round(2 * 80 * 8 * 128 * 4096 * 2 / GB, 2)  # one sequence by default
    assert rows["bf16"]["gpus_needed"] == math.ceil(rows["bf16"]["total_gb"] / 40)  # 50% headroom: 40 GB usable
    assert rows["bf16"]["formula"] == "params x bytes_per_param (+ group scales) + KV(seq_len, sequences) + overhead"
    assert "gpus_needed" not in precision_table(from_record(LLAMA2_70B))[0]


def test_exactly_full_still_fits() -> None:
    """35.5B params in bf16 = 71 GB + 1 GB overhead = 72.0 GB = 80 GB x 0.9 usable: fits, 1 GPU."""
    from engine.architecture import architecture_like

    [row] = precision_table(architecture_like(LLAMA2_70B, 35.5), gpu=H100_SXM, precisions=("bf16",))
    assert row["total_gb"] == 72.0
    assert row["fits_one_gpu"] is True and row["gpus_needed"] == 1
