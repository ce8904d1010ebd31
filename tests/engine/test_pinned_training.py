"""Pinned figures: training memory (optimizer bytes, ZeRO sharding, activations) and FLOPs.

Expected values are hand arithmetic from the public sources named at each test:
- mixed-precision AdamW: bf16 weights 2 + fp32 gradients 4 + fp32 master 4 + Adam m 4 + v 4 = 18
  bytes/param; with bf16 gradients 16 (Rajbhandari et al. 2020, "ZeRO", section 3.1: 2+2+12);
- activations: Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer
  Models" (arXiv:2205.05198), 34sbh + 5as²b per GPT layer;
- training FLOPs: 6N per token (Kaplan et al. 2020) plus attention 12·L·h·s per token, h = heads x
  head_dim (Chowdhery et al. 2022, "PaLM", appendix B); full activation checkpointing re-runs the
  forward pass, +2N (8N instead of 6N; Korthikanti et al. 2022 section 5).
Llama-2-7B shape: Hugging Face config.json (32 layers, hidden 4096, 32 heads, 32000 vocab).
"""

from __future__ import annotations

import pytest

from engine.architecture import Architecture, from_record
from engine.memory import activation_bytes, estimate_memory, layer_activation_bytes, optimizer_bytes_per_param
from engine.throughput import default_mfu, estimate_training, flops_per_token
from engine.units import GB
from tests.engine.fixtures_physics import A100_80, H100_SXM, LLAMA2_7B, RTX_4090, workload

N_7B = 6_738_415_616  # Llama-2-7B parameters (Hugging Face model card / safetensors index)
ATTN_FLOPS_7B_2K = 12 * 32 * (32 * 128) * 2048  # 12 x layers x (heads x head_dim) x seq = 3,221,225,472


@pytest.mark.parametrize(("recipe", "precision", "optimizer", "weights", "grads", "optimizer_bytes"), [
    ("amp_fp32_grads", "bf16", "adamw", 2, 4, 12),  # 18 B/param: 2 + 4 + (4 master + 4 m + 4 v)
    ("amp_bf16_grads", "bf16", "adamw", 2, 2, 12),  # 16 B/param (ZeRO paper)
    ("pure_bf16", "bf16", "adamw", 2, 2, 4),  # 8 B/param: bf16 weights, grads, m, v
    ("amp_fp32_grads", "fp32", "adamw", 4, 4, 8),  # 16 B/param: fp32 weights, grads, m, v
    ("amp_fp32_grads", "bf16", "adamw_8bit", 2, 4, 6),  # 8-bit Adam: fp32 master 4 + m 1 + v 1
    ("amp_fp32_grads", "bf16", "sgd", 2, 4, 8),  # SGD with momentum: master 4 + one fp32 buffer 4
])
def test_optimizer_bytes_per_param(recipe, precision, optimizer, weights, grads, optimizer_bytes) -> None:
    got = optimizer_bytes_per_param("full", precision, optimizer, recipe)
    assert got == {"weights": weights, "gradients": grads, "optimizer": optimizer_bytes}


def test_full_finetune_memory_is_18_bytes_per_param_on_one_gpu() -> None:
    est = estimate_memory(workload(mode="full"), from_record(LLAMA2_7B), 1)
    c = {k: v.value for k, v in est.components.items()}
    assert c["weights_gb"] == pytest.approx(N_7B * 2 / GB, abs=1e-3)  # 13.477
    assert c["gradients_gb"] == pytest.approx(N_7B * 4 / GB, abs=1e-3)  # 26.954
    assert c["optimizer_gb"] == pytest.approx(N_7B * 12 / GB, abs=1e-3)  # 80.861
    assert c["overhead_gb"] == 1.0
    # logits: seq 2048 x batch 1 x vocab 32000 x (2 B bf16 + 4 B fp32 copy)
    assert c["logits_gb"] == pytest.approx(2048 * 32000 * 6 / GB, abs=1e-3)


@pytest.mark.parametrize(("zero_stage", "weights_div", "grads_div", "optimizer_div"), [
    (0, 1, 1, 1), (1, 1, 1, 8), (2, 1, 8, 8), (3, 8, 8, 8),
])
def test_zero_stages_shard_over_eight_data_parallel_gpus(zero_stage, weights_div, grads_div, optimizer_div) -> None:
    """ZeRO-1 shards optimizer state, ZeRO-2 also gradients, ZeRO-3 also weights (ZeRO paper fig. 1)."""
    est = estimate_memory(workload(mode="full", zero_stage=zero_stage), from_record(LLAMA2_7B), 8,
                          tensor_parallel=1, zero_stage=zero_stage)
    c = est.components
    assert c["weights_gb"].value == pytest.approx(N_7B * 2 / weights_div / GB, abs=1e-3)
    assert c["gradients_gb"].value == pytest.approx(N_7B * 4 / grads_div / GB, abs=1e-3)
    assert c["optimizer_gb"].value == pytest.approx(N_7B * 12 / optimizer_div / GB, abs=1e-3)


def _gpt(layers: int = 1, hidden: int = 4096, heads: int = 32) -> Architecture:
    """A GPT-3-style layer: MHA, GELU MLP of width 4h, untied embeddings."""
    return Architecture(name="gpt", layers=layers, hidden=hidden, heads=heads, kv_heads=heads, head_dim=hidden // heads,
                        ffn=4 * hidden, vocab=50257, gated_mlp=False, total_params=1, active_params=1)


def test_activations_per_layer_match_korthikanti_for_a_gpt_layer() -> None:
    """Paper: 34sbh + 5as²b with dropout and 2-byte layernorm inputs. The product models no dropout
    (-2sbh: the attention and MLP dropout masks, 1 byte each) and keeps an fp32 copy of each of the
    two norm inputs (+2 x 4sbh): 34 - 2 + 8 = 40sbh, + 5as²b without FlashAttention."""
    s, b, h, a = 2048, 1, 4096, 32
    assert layer_activation_bytes(_gpt(), s, b, flash=False) == 40 * s * b * h + 5 * a * s * s * b
    assert layer_activation_bytes(_gpt(), s, b, flash=True) == 40 * s * b * h


def test_swiglu_gqa_layer_activations() -> None:
    """Llama-2-7B layer, flash attention: attention 2sb(h + 2q + 2kv) = 10sbh (MHA), SwiGLU MLP
    2sbh + 8sbf (gate, up, activation, product), norms 12sbh."""
    s, b, h, f = 4096, 2, 4096, 11008
    expected = 10 * s * b * h + 2 * s * b * h + 8 * s * b * f + 12 * s * b * h
    assert layer_activation_bytes(from_record(LLAMA2_7B), s, b, flash=True) == expected


def test_full_checkpointing_keeps_layer_inputs_plus_one_layer() -> None:
    arch = from_record(LLAMA2_7B)
    s, b = 2048, 4
    one_layer = layer_activation_bytes(arch, s, b, flash=True)
    assert activation_bytes(arch, s, b, flash=True, checkpointing=False) == 32 * one_layer
    assert activation_bytes(arch, s, b, flash=True, checkpointing=True) == 2 * s * b * 4096 * 32 + one_layer
    assert activation_bytes(arch, s, b, flash=True, checkpointing=False, tp=4) == 32 * one_layer // 4


def test_attention_flops_per_token_are_12_layers_width_seq() -> None:
    fig = flops_per_token(workload(mode="full", seq_len=2048), from_record(LLAMA2_7B))
    assert fig.inputs["attention_flops"] == ATTN_FLOPS_7B_2K == 3_221_225_472
    assert fig.value == 6 * N_7B + ATTN_FLOPS_7B_2K


def test_lora_flops_per_token_are_4n_and_scaled_attention() -> None:
    """(Q)LoRA: forward 2N + input-gradient backward 2N, no weight gradients: 4N, attention x 4/6."""
    fig = flops_per_token(workload(mode="lora", seq_len=2048), from_record(LLAMA2_7B))
    assert fig.value == 4 * N_7B + ATTN_FLOPS_7B_2K * 4 / 6


def test_user_factor_replaces_the_flops_count() -> None:
    fig = flops_per_token(workload(mode="full", flops_per_token_factor=6.0), from_record(LLAMA2_7B))
    assert fig.value == 6 * N_7B


def test_gradient_checkpointing_adds_one_forward_pass_2n() -> None:
    """8N accounting: checkpointing re-runs the forward (2N FLOPs per token) on top of 6N."""
    arch = from_record(LLAMA2_7B)
    plain = estimate_training(workload(mode="full"), arch, H100_SXM, 8).training_tokens_per_s.inputs
    ckpt = estimate_training(workload(mode="full", gradient_checkpointing=True), arch, H100_SXM, 8).training_tokens_per_s.inputs
    assert plain["model_flops_per_token"] == ckpt["model_flops_per_token"] == 6 * N_7B + ATTN_FLOPS_7B_2K
    assert plain["flops_per_token"] == 6 * N_7B + ATTN_FLOPS_7B_2K
    assert ckpt["flops_per_token"] == 8 * N_7B + ATTN_FLOPS_7B_2K
    # recomputation runs at higher hardware utilisation (MosaicML HFU vs MFU): 0.48 x 1.25 = 0.60
    assert plain["utilisation"] == 0.48
    assert ckpt["utilisation"] == pytest.approx(0.60)


def test_gpu_hours_from_flops_hand_arithmetic() -> None:
    """1e9 tokens x 1 epoch of Llama-2-7B at 2k tokens on H100 (989.4 dense BF16 TFLOPS) at MFU 0.5.
    Attention FLOPs run at 0.53 of the matmul utilisation (the calibration constant), so their time
    counts 1/0.53 times."""
    arch = from_record(LLAMA2_7B)
    est = estimate_training(workload(mode="full", mfu=0.5, dataset_tokens=1_000_000_000), arch, H100_SXM, 8)
    time_flops = 6 * N_7B + ATTN_FLOPS_7B_2K / 0.53
    gpu_hours = time_flops * 1e9 / (989.4e12 * 0.5 * 3600)  # 12.05 + 3.41 = ~24.1 GPU-hours
    assert est.gpu_hours is not None and est.wall_clock_hours is not None
    assert est.gpu_hours.value == pytest.approx(gpu_hours, abs=0.06)
    assert est.wall_clock_hours.value == pytest.approx(gpu_hours / 8, abs=0.006)
    assert est.training_tokens_per_s.value == pytest.approx(8 * 989.4e12 * 0.5 / time_flops, abs=0.06)
    # epochs multiply the hours
    est2 = estimate_training(workload(mode="full", mfu=0.5, dataset_tokens=1_000_000_000, epochs=3), arch, H100_SXM, 8)
    assert est2.gpu_hours is not None and est2.gpu_hours.value == pytest.approx(3 * gpu_hours, abs=0.2)


def test_dataset_gb_converts_at_4_bytes_per_token() -> None:
    """English BPE text averages ~4 bytes per token (OpenAI tokenizer guidance): 4 GB = 1e9 tokens."""
    arch = from_record(LLAMA2_7B)
    a = estimate_training(workload(mode="full", mfu=0.5, dataset_gb=4.0), arch, H100_SXM, 8)
    b = estimate_training(workload(mode="full", mfu=0.5, dataset_tokens=1_000_000_000), arch, H100_SXM, 8)
    assert a.gpu_hours is not None and b.gpu_hours is not None
    assert a.gpu_hours.value == b.gpu_hours.value
    assert a.gpu_hours.inputs["tokens"] == 1_000_000_000


@pytest.mark.parametrize(("gpu", "mode", "gpus", "mfu"), [
    (H100_SXM, "full", 8, 0.48),  # NVLink datacenter part
    (A100_80, "full", 2048, 0.48 * 0.9),  # beyond 1,024 GPUs
    (A100_80, "qlora", 1, 0.48 * 0.8),  # NF4 dequantisation in every matmul
    (RTX_4090, "full", 1, 0.35),  # single PCIe card
    (RTX_4090, "full", 4, 0.25),  # multi-GPU over PCIe
])
def test_default_mfu_table(gpu, mode, gpus, mfu) -> None:
    assert default_mfu(gpu, mode, gpus)[0] == pytest.approx(mfu)


def test_mfu_scale_and_vendor_adjustments() -> None:
    mi300x = H100_SXM.model_copy(update={"vendor": "AMD", "scaleup_link": "Infinity Fabric", "compute_capability": "gfx942"})
    assert default_mfu(H100_SXM, "full", 1024)[0] == 0.48  # 1,024 GPUs: no scale discount yet
    assert default_mfu(H100_SXM, "full", 1025)[0] == pytest.approx(0.48 * 0.9)
    assert default_mfu(mi300x, "full", 8)[0] == pytest.approx(0.48 * 0.7)
    assert default_mfu(mi300x, "qlora", 8)[0] == pytest.approx(0.48 * 0.7 * 0.8)
    bridge = RTX_4090.model_copy(update={"tier": "datacenter", "scaleup_link": "NVLink bridge (2-way)"})
    assert default_mfu(bridge, "full", 2)[0] == 0.25  # an NVLink bridge is not an NVLink fabric
    assert default_mfu(H100_SXM, "full", 0)[0] == 0.48
    why = default_mfu(mi300x, "qlora", 2048)[1]
    assert "x0.9 beyond 1,024 GPUs" in why and "x0.7 on AMD" in why and "x0.8 for NF4 dequantisation" in why


def test_training_figure_fields() -> None:
    arch = from_record(LLAMA2_7B)
    est = estimate_training(workload(mode="full", mfu=0.5, dataset_tokens=1_000_000_000), arch, H100_SXM, 8)
    tps = est.training_tokens_per_s
    time_flops = 6 * N_7B + ATTN_FLOPS_7B_2K / 0.53
    assert tps.inputs["gpus"] == 8 and tps.inputs["peak"] == "BF16 dense" and tps.inputs["utilisation"] == 0.5
    assert tps.inputs["mfu"] == pytest.approx(0.5 * (6 * N_7B + ATTN_FLOPS_7B_2K) / time_flops)
    assert tps.notes == ("MFU as given", "6 = forward 2N + backward 4N")
    assert est.gpu_hours is not None and est.gpu_hours.inputs["tokens"] == 1_000_000_000 and est.gpu_hours.inputs["epochs"] == 1.0
    assert est.gpu_hours.notes == ("dataset_tokens as given", "MFU as given")
    assert est.wall_clock_hours is not None and est.wall_clock_hours.unit == "hours"
    lora = flops_per_token(workload(mode="qlora"), arch)
    assert lora.notes == ("4 for (Q)LoRA: forward 2N + input-gradient backward 2N, no weight gradients for the frozen base",)
    assert flops_per_token(workload(mode="full", seq_len=None), arch).inputs["seq_len"] == 2048


def test_checkpointing_note_and_a_given_mfu_counts_no_recompute() -> None:
    arch = from_record(LLAMA2_7B)
    est = estimate_training(workload(mode="full", gradient_checkpointing=True), arch, H100_SXM, 8)
    assert "re-runs the forward (+2N FLOPs)" in est.training_tokens_per_s.notes[0]
    given = estimate_training(workload(mode="full", gradient_checkpointing=True, mfu=0.4), arch, H100_SXM, 8)
    assert given.training_tokens_per_s.inputs["flops_per_token"] == 6 * N_7B + ATTN_FLOPS_7B_2K  # the user's MFU already counts it
