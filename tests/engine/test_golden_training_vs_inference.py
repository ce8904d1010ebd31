"""A published worked example ("Selecting GPUs for training vs inference") pinned twice: once with the article's own
assumptions (our lower-level functions fed its parameters), once under the product's defaults,
each case saying what differs and why. Tolerances are stated per case."""

import pytest

from engine.architecture import architecture_for
from engine.memory import estimate_memory, kv_cache_bytes, optimizer_bytes_per_param
from engine.throughput import (
    cost_per_1m_tokens,
    decode_step_seconds,
    estimate_inference,
    weight_bytes_read_per_step,
)
from engine.units import GB, GIB
from tests.engine.fixtures_physics import (
    A100_40,
    A100_80,
    LLAMA2_7B,
    LLAMA2_13B,
    LLAMA3_70B,
    workload,
)

# --- training memory: the article's estimator (18 B/param + activations = 2 x weights, divided by 1024^3) ---


@pytest.mark.parametrize(("params", "total_gib"), [(7e9, 143.4), (13e9, 266.5), (70e9, 1433.6)])
def test_mixed_precision_totals_with_article_assumptions(params, total_gib):
    """The article prints 'GB' but divides by 1024^3 (so its 'GB' are GiB). Its 13B/70B lines (266.5, 1433.6) do
    not quite match its own code (266.4, 1434.2): tolerance 0.1%."""
    bpp = optimizer_bytes_per_param("full", "bf16", "adamw")
    weights = params * bpp["weights"]
    total = weights + params * bpp["gradients"] + params * bpp["optimizer"] + 2 * weights
    assert total / GIB == pytest.approx(total_gib, rel=1e-3)


def test_7b_breakdown_with_article_assumptions():
    bpp = optimizer_bytes_per_param("full", "bf16", "adamw")
    got = [7e9 * bpp[k] / GIB for k in ("weights", "gradients", "optimizer")] + [2 * 7e9 * bpp["weights"] / GIB]
    assert [round(x, 1) for x in got] == [13.0, 26.1, 78.2, 26.1]


def test_7b_under_product_defaults():
    """Product: real Llama-2-7B shape (6.74B), decimal GB, Korthikanti activations at seq 2048 / batch 1 with
    flash attention instead of '2 x weights', + 1 GB CUDA overhead. State alone is 18 x 6.74 = 121.3 GB."""
    m = estimate_memory(workload(mode="full"), architecture_for(LLAMA2_7B, None))
    state = sum(m.components[k].value for k in ("weights_gb", "gradients_gb", "optimizer_gb"))
    assert state == pytest.approx(121.3, abs=0.1)
    assert 12 < m.components["activations_gb"].value < 14  # vs the article's 26.1 GiB rule of thumb
    assert 130 < m.per_gpu_gb < 140


# --- KV cache (the article's 70B formula omits kv_heads; its results hold with 8 KV heads) ---


@pytest.mark.parametrize(("seq", "gb"), [(4096, 42.9), (8192, 85.9)])
def test_70b_kv_cache_32_sequences(seq, gb):
    arch = architecture_for(LLAMA3_70B, None)
    assert kv_cache_bytes(arch, seq, 32, 2) / GB == pytest.approx(gb, abs=0.05)
    # as the article writes it (no kv_heads): 8x smaller - 10.7 GB at 8K
    assert 32 * seq * 80 * 128 * 2 * 2 / GB == pytest.approx(gb / 8, abs=0.05)


def test_kv_per_8k_sequence_is_2_5_gib():
    """The QLoRA worked example: ~2.5 GB per 8K sequence for a 70B with 8 KV heads - that is 2.5 GiB = 2.68 GB."""
    b = kv_cache_bytes(architecture_for(LLAMA3_70B, None), 8192, 1, 2)
    assert b / GIB == pytest.approx(2.5, abs=0.01) and b / GB == pytest.approx(2.68, abs=0.01)


# --- decode throughput table (batch 1, bandwidth-bound) ---


@pytest.mark.parametrize(("bandwidth_tb_s", "model_gb", "tok_s"), [
    (3.35, 14, 240), (2.0, 14, 143), (1.0, 14, 71), (0.936, 14, 67), (3.35, 140, 24), (2.0, 140, 14),
])
def test_decode_table_at_100_percent(bandwidth_tb_s, model_gb, tok_s):
    """The article's table: its bandwidths (A100 2.0, 4090 1.0; the catalog has 2.039 and 1.008) at 100%
    efficiency (its code's default is 70%); its figures are rounded ('~14' is 14.3): 2.5% tolerance."""
    assert 1 / decode_step_seconds(model_gb * 1e9, bandwidth_tb_s, 1.0) == pytest.approx(tok_s, rel=0.025)


def test_decode_under_product_defaults():
    """Product: real bytes read (no input-embedding table), 68% bandwidth efficiency (gpt-fast on A100),
    5-token prompt: 7B on A100 80GB ~104 tok/s, matching gpt-fast's measured 104.9 (calibration c01),
    vs the article's 143 at 100% or 100 at its 70%."""
    arch = architecture_for(LLAMA2_7B, None)
    w = workload(mode="inference", input_tokens=5, output_tokens=200)
    t = estimate_inference(w, arch, A100_80, None)
    assert t.decode_tokens_per_s_per_sequence.value == pytest.approx(104.9, rel=0.05)
    assert weight_bytes_read_per_step(arch, "bf16") / GB == pytest.approx(13.22, abs=0.01)


# --- cost per 1M tokens on owned hardware (70% utilisation, 3-year life, $0.12/kWh, power at TDP 24/7) ---


@pytest.mark.parametrize(("hw", "tok_s", "tdp", "usd"), [
    (700, 65, 350, 0.4190), (1600, 70, 450, 0.6513), (8000, 114, 400, 1.2267), (30000, 239, 700, 2.0349),
])
def test_cost_per_1m_tokens_table(hw, tok_s, tdp, usd):
    assert cost_per_1m_tokens(hw, 0.70, tok_s, tdp_w=tdp).value == pytest.approx(usd, abs=2e-4)


def test_cost_under_product_defaults_uses_estimated_throughput():
    """Product: the throughput comes from the roofline at 68% efficiency, full seq_len context and the
    catalog price; the formula is the article's."""
    arch = architecture_for(LLAMA2_7B, None)
    t = estimate_inference(workload(mode="inference", input_tokens=5, output_tokens=200), arch, A100_40, None)
    assert t.cost_per_1m_tokens_usd.inputs["hardware_cost_usd"] == 8000
    assert t.cost_per_1m_tokens_usd.value == pytest.approx(1.2267 * 114 / t.decode_tokens_per_s.value, rel=0.01)


# --- QLoRA 7B is not ~35 GB (the article's table is off by its own formula) ---


def test_qlora_7b_is_single_digit_to_low_teens():
    arch = architecture_for(LLAMA2_7B, None)
    w = workload(mode="qlora", precision="nf4", optimizer="paged_adamw_8bit", gradient_checkpointing=True)
    assert 5 < estimate_memory(w, arch).per_gpu_gb < 14
    w2 = workload(mode="qlora", precision="nf4", seq_len=1304)  # litgpt a03: 13.84 GB measured, no checkpointing
    assert estimate_memory(w2, arch).per_gpu_gb == pytest.approx(13.84, rel=0.15)


def test_13b_zero3_on_four_a100s_is_comfortable():
    """The article's Q2: 13B mixed precision on 4x A100 80GB with ZeRO-3 is ~72 GB/GPU 'comfortable'; with
    checkpointed activations the product gives well under that."""
    m = estimate_memory(workload(mode="full", zero_stage=3, gradient_checkpointing=True), architecture_for(LLAMA2_13B, None), 4, A100_80)
    assert m.fits and m.per_gpu_gb < 72
