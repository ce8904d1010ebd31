"""Pinned figures: bytes per parameter and per KV element for every precision.

Each expected value is derived here by hand from its public source, not read back from the code:
- element sizes: IEEE 754 binary32 = 4 bytes, bfloat16/binary16 = 2, FP8 E4M3/E5M2 = 1 (NVIDIA
  Hopper whitepaper), INT8 = 1, INT4/NF4 = 4 bits = 0.5 byte;
- NF4 constants: Dettmers et al. 2023, "QLoRA" (arXiv:2305.14314) section 3, "Double Quantization":
  one fp32 absmax per 64 weights costs 32/64 = 0.5 bit per parameter; double-quantised, 8/64 +
  32/(64*256) = 0.127 bit per parameter;
- GPTQ/AWQ group-128 constants: one fp16 scale + one fp16 zero per 128 weights = 4/128 byte;
- KV cache: 2 (K and V) x layers x kv_heads x head_dim x bytes per token; an FP8 KV cache stores
  one byte per element (vLLM `kv_cache_dtype="fp8"`).
Model shapes are the Hugging Face config.json values (meta-llama/Llama-2-7b-hf, Llama-3-8B,
Llama-2-70b-hf).
"""

from __future__ import annotations

import pytest

from engine.architecture import from_record
from engine.memory import (
    INT4_GROUP_BYTES,
    NF4_BITS,
    NF4_DQ_BITS,
    MemoryOptions,
    estimate_memory,
    kv_cache_bytes,
)
from engine.quantization import precision_table
from engine.throughput import estimate_inference, weight_bytes_read_per_step
from engine.units import BYTES_PER_ELEMENT, GB, bytes_per_element
from tests.engine.fixtures_physics import H100_SXM, LLAMA2_7B, LLAMA2_70B, LLAMA3_8B, workload

# Llama-2-7B, Hugging Face config.json: 32 layers, 32 heads, 32 KV heads, head_dim 4096/32 = 128.
# Parameter count from the shape: 6,738,415,616 (the figure Hugging Face shows for the checkpoint).
LLAMA2_7B_PARAMS = 6_738_415_616
# Llama-3-8B: 32 layers, 8 KV heads of 128: KV per token = 2 x 32 x 8 x 128 = 65,536 elements.
LLAMA3_8B_KV_ELEMENTS_PER_TOKEN = 2 * 32 * 8 * 128


@pytest.mark.parametrize(("precision", "expected_bytes"), [
    ("fp32", 4.0), ("bf16", 2.0), ("fp16", 2.0), ("fp8", 1.0), ("int8", 1.0), ("int4", 0.5), ("nf4", 0.5),
])
def test_bytes_per_parameter_for_every_precision(precision: str, expected_bytes: float) -> None:
    assert bytes_per_element(precision) == expected_bytes
    assert BYTES_PER_ELEMENT[precision] == expected_bytes


def test_unknown_precision_falls_back_to_16_bit() -> None:
    assert bytes_per_element(None) == 2.0
    assert bytes_per_element("no-such-dtype") == 2.0


def test_nf4_quantisation_constants_match_the_qlora_paper() -> None:
    assert NF4_BITS == 32 / 64  # one fp32 absmax per 64-weight block
    assert abs(NF4_DQ_BITS - (8 / 64 + 32 / (64 * 256))) < 5e-4  # 0.127 bit, the paper's figure
    assert NF4_DQ_BITS == 0.127
    assert INT4_GROUP_BYTES == 4 / 128  # fp16 scale + fp16 zero per group of 128


def _weights_gb(precision: str, **options: object) -> tuple[float, float]:
    arch = from_record(LLAMA2_7B)
    est = estimate_memory(workload(mode="inference", precision=precision, concurrency=1, seq_len=16), arch, 1,
                          options=MemoryOptions(**options))  # type: ignore[arg-type]
    consts = est.components.get("quant_constants_gb")
    return est.components["weights_gb"].value, consts.value if consts else 0.0


@pytest.mark.parametrize(("precision", "bytes_per_param"), [("fp32", 4), ("bf16", 2), ("fp16", 2)])
def test_unquantised_inference_weights_are_params_times_element_size(precision: str, bytes_per_param: int) -> None:
    weights, consts = _weights_gb(precision)
    assert weights == pytest.approx(LLAMA2_7B_PARAMS * bytes_per_param / GB, abs=1e-3)
    assert consts == 0.0


# Llama-2-7B's linear projections: total - embeddings (32000 x 4096) - lm_head (32000 x 4096)
# - RMSNorm weights (2 per layer + the final one, 4096 each) = 6,476,005,376; the other
# 262,410,240 parameters stay in 16-bit in quantised checkpoints.
LLAMA2_7B_LINEAR = LLAMA2_7B_PARAMS - 2 * 32000 * 4096 - (2 * 32 + 1) * 4096
LLAMA2_7B_OTHER = LLAMA2_7B_PARAMS - LLAMA2_7B_LINEAR


def test_llama2_7b_linear_parameter_split() -> None:
    assert LLAMA2_7B_LINEAR == 6_476_005_376
    assert from_record(LLAMA2_7B).linear_params == LLAMA2_7B_LINEAR


@pytest.mark.parametrize(("precision", "linear_bytes", "const_bytes"), [
    ("fp8", 1.0, 0.0),
    ("int8", 1.0, 0.0),
    ("int4", 0.5, 4 / 128),
    ("nf4", 0.5, 0.127 / 8),
])
def test_quantised_inference_weights(precision: str, linear_bytes: float, const_bytes: float) -> None:
    weights, consts = _weights_gb(precision)
    assert weights == pytest.approx((LLAMA2_7B_LINEAR * linear_bytes + LLAMA2_7B_OTHER * 2) / GB, abs=1e-3)
    assert consts == pytest.approx(LLAMA2_7B_LINEAR * const_bytes / GB, abs=1e-3)


def test_nf4_without_double_quantisation_keeps_an_fp32_absmax_per_64_weights() -> None:
    _, consts = _weights_gb("nf4", double_quant=False)
    assert consts == pytest.approx(LLAMA2_7B_LINEAR * (32 / 64) / 8 / GB, abs=1e-3)  # 0.405 GB


def test_qlora_base_weights_are_nf4_half_a_byte_per_linear_param() -> None:
    """QLoRA keeps linear layers in NF4 (0.5 B/param) and embeddings/norms in bf16 (2 B)."""
    arch = from_record(LLAMA2_7B)
    est = estimate_memory(workload(mode="qlora"), arch, 1)
    assert est.components["weights_gb"].value == pytest.approx((LLAMA2_7B_LINEAR * 0.5 + LLAMA2_7B_OTHER * 2) / GB, abs=1e-3)
    assert est.components["quant_constants_gb"].value == pytest.approx(LLAMA2_7B_LINEAR * 0.127 / 8 / GB, abs=1e-3)


def test_kv_cache_bytes_per_token_llama3_8b() -> None:
    arch = from_record(LLAMA3_8B)
    assert arch.kv_values_per_token_per_layer * arch.layers == LLAMA3_8B_KV_ELEMENTS_PER_TOKEN
    # 8,192 tokens x 4 sequences in bf16: 65,536 x 2 B x 32,768 tokens = 4.294967296 GB
    assert kv_cache_bytes(arch, 8192, 4, 2.0) == 65_536 * 2 * 8192 * 4 == 4_294_967_296
    assert kv_cache_bytes(arch, 8192, 4, 1.0) == 2_147_483_648


@pytest.mark.parametrize(("precision", "kv_bytes_per_element"), [("bf16", 2), ("fp16", 2), ("fp8", 1), ("int4", 2)])
def test_inference_kv_cache_bytes_per_precision(precision: str, kv_bytes_per_element: int) -> None:
    """FP8 serving stores the KV cache in FP8 (1 byte); other precisions keep a 16-bit cache."""
    arch = from_record(LLAMA3_8B)
    est = estimate_memory(workload(mode="inference", precision=precision, seq_len=8192, concurrency=4), arch, 1)
    kv = est.components["kv_cache_gb"]
    assert kv.inputs["bytes_per_element"] == kv_bytes_per_element
    assert kv.value == pytest.approx(LLAMA3_8B_KV_ELEMENTS_PER_TOKEN * kv_bytes_per_element * 8192 * 4 / GB, abs=1e-3)


def test_kv_cache_splits_over_tensor_parallel_kv_heads() -> None:
    """Llama-2-70B on 8 GPUs (TP 8, 8 KV heads): each GPU holds one KV head's cache (1/8)."""
    arch = from_record(LLAMA2_70B)
    est = estimate_memory(workload(mode="inference", seq_len=4096, concurrency=2), arch, 8)
    per_token = 2 * 80 * 8 * 128 * 2  # bytes, bf16
    assert est.components["kv_cache_gb"].value == pytest.approx(per_token * 4096 * 2 / 8 / GB, abs=1e-3)


def test_precision_table_rows_llama2_7b() -> None:
    """Weights = params x bytes (70B-style table), KV at 4,096 tokens, 1 GB CUDA overhead."""
    rows = {r["precision"]: r for r in precision_table(from_record(LLAMA2_7B), seq_len=4096, sequences=1)}
    kv_per_token = 2 * 32 * 32 * 128  # elements, Llama-2-7B (MHA)
    for p, bpp in (("fp32", 4), ("bf16", 2), ("fp8", 1), ("int8", 1), ("int4", 0.5)):
        assert rows[p]["bytes_per_param"] == bpp
        assert rows[p]["weights_gb"] == round(LLAMA2_7B_PARAMS * bpp / GB, 2)
    assert rows["int4"]["quant_constants_gb"] == round(LLAMA2_7B_LINEAR * 4 / 128 / GB, 2)
    assert rows["bf16"]["kv_cache_gb"] == round(kv_per_token * 2 * 4096 / GB, 2)  # 2.15 GB
    assert rows["fp8"]["kv_cache_gb"] == round(kv_per_token * 1 * 4096 / GB, 2)  # 1.07 GB: FP8 KV is 1 byte
    assert rows["bf16"]["total_gb"] == round((LLAMA2_7B_PARAMS * 2 + kv_per_token * 2 * 4096) / GB + 1.0, 2)


def test_precision_table_gpus_needed_is_a_ceiling() -> None:
    """Llama-2-70B in bf16 at 1 sequence: 137.95 GB weights + 1 GB > one 72 GB-usable H100, < two."""
    rows = {r["precision"]: r for r in precision_table(from_record(LLAMA2_70B), gpu=H100_SXM)}
    usable = 80 * (1 - 0.10)
    assert rows["bf16"]["total_gb"] == round(68_976_648_192 * 2 / GB + 1.0, 2)
    assert rows["bf16"]["gpus_needed"] == 2  # ceil(138.95 / 72)
    assert rows["int4"]["gpus_needed"] == 1 and rows["int4"]["fits_one_gpu"] is (rows["int4"]["total_gb"] <= usable)


@pytest.mark.parametrize(("precision", "linear_bytes", "other_bytes"), [
    ("bf16", 2.0, 2.0), ("fp16", 2.0, 2.0), ("fp32", 4.0, 4.0), ("fp8", 1.0, 2.0), ("int8", 1.0, 2.0),
    ("int4", 0.5 + 4 / 128, 2.0), ("nf4", 0.5 + 0.127 / 8, 2.0),
])
def test_decode_weight_bytes_per_step(precision: str, linear_bytes: float, other_bytes: float) -> None:
    """A decode step streams the linear layers, lm_head and norms, not the embedding table."""
    lm_head = 32000 * 4096
    norms = 2 * 4096 * 32  # the code counts 2 x hidden x layers of norm/bias traffic
    expected = LLAMA2_7B_LINEAR * linear_bytes + lm_head * other_bytes + norms * other_bytes
    assert weight_bytes_read_per_step(from_record(LLAMA2_7B), precision) == pytest.approx(expected, rel=1e-12)


def test_decode_reads_fp8_kv_cache_at_one_byte() -> None:
    arch = from_record(LLAMA3_8B)
    for precision, kv_bytes in (("fp8", 1), ("bf16", 2)):
        w = workload(mode="inference", precision=precision, input_tokens=3000, output_tokens=2000, concurrency=8)
        est = estimate_inference(w, arch, H100_SXM)  # one GPU, no tensor parallel
        inputs = est.decode_tokens_per_s_per_sequence.inputs
        assert inputs["context_tokens"] == 3000 + 2000 // 2
        assert inputs["kv_bytes_read"] == LLAMA3_8B_KV_ELEMENTS_PER_TOKEN * kv_bytes * 4000 * 8
