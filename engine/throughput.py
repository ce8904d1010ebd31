"""How fast: training tokens/s and GPU-hours from FLOPs, decode tokens/s from the roofline, and cost
per 1M tokens (cloud rate or owned hardware) with the buy-vs-rent break-even.

Training: time = FLOPs per token x tokens x epochs / (peak TFLOPS x utilisation). FLOPs per token
is factor x N_active (6 = forward 2N + backward 4N; 4 for (Q)LoRA, whose frozen base needs input
gradients but no weight gradients) plus the attention term 12·layers·heads·head_dim·seq (PaLM /
MosaicML convention); full checkpointing re-runs the forward (+2N). The naive 6 x N x D at 100% of
peak (no attention term) understates GPU-hours by 2-3x: published runs reach 35-55% MFU.

Decode: each step streams the weights (and every sequence's KV cache) from HBM once; time per step
is max(bytes / (bandwidth x efficiency), FLOPs / (peak x efficiency)) - the roofline model.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import cast

from catalog.records import GpuRecord
from engine.architecture import Architecture, lora_trainable_params
from engine.memory import INT4_GROUP_BYTES, NF4_DQ_BITS, holds_reference, kv_cache_bytes
from engine.models import (
    BYTES_PER_TOKEN_TEXT,
    DEFAULT_INPUT_TOKENS,
    DEFAULT_OUTPUT_TOKENS,
    PREFERENCE_OBJECTIVES,
    ClusterPlan,
    Figure,
    ThroughputEstimate,
    Workload,
    sequences_per_example,
)
from engine.quantization import compute_capability
from engine.rl import (
    critic_ratio,
    is_rl,
    per_rollout_share,
    ppo_passes,
    reward_ratio,
    rollout_gpu_hours,
    rollouts,
    runs_reference,
)
from engine.think_time import think_time_s
from engine.units import HOURS_PER_YEAR, SECONDS_PER_HOUR, bytes_per_element, figure, finite

DEFAULT_BANDWIDTH_EFFICIENCY = 0.68  # gpt-fast compiled bs=1 decode on A100-80GB: 1397-1411 of 2039 GB/s
QUANT_KERNEL_EFFICIENCY = {"int8": 0.85, "int4": 0.6, "nf4": 0.6}  # dequant-bound (gpt-fast int8 52%, int4 42%)
# vLLM serves AWQ/GPTQ 4-bit weights through Marlin on SM 8.0+ (awq_marlin, gpt_marlin): "close to ideal (4x)
# speedups up to batchsizes of 16-32 tokens" over FP16 weights (github.com/IST-DASLab/marlin README), i.e. the
# packed weights stream at about the FP16 kernels' share of peak bandwidth; 0.9 of it leaves room for the larger
# batches a service runs. Older GPUs (T4, V100) fall back to dequantising kernels: the gpt-fast figure above.
MARLIN_INT4_EFFICIENCY = 0.9
MARLIN_MIN_SM = 8.0
DEFAULT_COMPUTE_EFFICIENCY = 0.5  # fraction of dense tensor peak reached by decode/prefill matmuls
CHECKPOINT_UTILISATION_GAIN = 1.25  # MosaicML: HFU 57-68% with checkpointing vs MFU 40-46% without
# DPO's frozen reference model runs forward (2N FLOPs per token, no backward) over both sequences of every pair:
# 8N per token for a full fine-tune instead of 6N (x 8/6), 6N for (Q)LoRA instead of 4N. Checkpointing's recompute
# is the policy's only (the reference keeps no activations).
REFERENCE_FORWARD_FACTOR = 2.0


def fp8_training_speedup(active_params_b: float, mode: str | None) -> float:
    """A training run's gain from FP8 over BF16, end to end: 1.25x for models up to ~10B (torchao float8, Llama 3 8B on
    8 H100), 1.4x to ~100B (1.34-1.43x on 2k H200; 1.5x for Llama 3 70B on 128 H100 with float8 all-gather), 1.5x
    beyond (405B on 512 GPUs). Adapters train little of the model in FP8: their gain is kept at the small-model end."""
    if mode in ("lora", "qlora") or active_params_b <= 10:
        return 1.25
    return 1.4 if active_params_b <= 100 else 1.5


def peak_tflops(gpu: GpuRecord, precision: str | None) -> tuple[float, str]:
    """Dense tensor-core peak for the compute dtype (never the 2:4-sparsity figure vendors headline)."""
    if precision == "fp8" and gpu.fp8_dense_tflops:
        return gpu.fp8_dense_tflops, "FP8 dense"
    if precision == "fp32" and gpu.fp32_tflops:
        return gpu.fp32_tflops, "FP32"
    if gpu.bf16_dense_tflops:
        return gpu.bf16_dense_tflops, "BF16 dense"
    if gpu.fp16_dense_tflops:
        return gpu.fp16_dense_tflops, "FP16 dense (no BF16 tensor path)"
    return gpu.fp32_tflops or 1.0, "FP32 (no 16-bit tensor path)"


ATTENTION_UTILISATION = 0.53  # relative to dense matmuls; fitted on calibration d14 (64k tokens, H100), stated
AMD_TRAINING_DISCOUNT = 0.7  # see default_mfu: software maturity, not silicon; revisit with a calibration row
# Serving on AMD reaches about 70% of what the spec sheet predicts through the same arithmetic as NVIDIA (low
# confidence, no AMD run in calibration.csv): MLPerf Inference v4.1 (MLCommons, Llama 2 70B offline) measured
# 8x MI300X at 23,515 tokens/s, level with 8x H100 and about 30% behind 8x H200, whose bandwidth and FP8 peak
# are lower; Oracle's 2024 vLLM run of Llama 3.1 405B FP8 on 8x MI300X decoded 36 tokens/s at batch 1 where the
# bandwidth model says 51. Applied to the bandwidth and compute efficiencies of AMD GPUs alike.
AMD_SERVING_EFFICIENCY = 0.7
AMD_SERVING_NOTE = ("AMD: bandwidth and compute efficiency x0.7 (Oracle Cloud's vLLM run of Llama 3.1 405B FP8 on 8x "
                    "MI300X decoded 36 tokens/s at batch 1 where the spec sheet says 51; MLPerf Inference v4.1 measured "
                    "8x MI300X level with 8x H100 on Llama 2 70B; low confidence)")


# Whole published pre-training runs took 0.84x to 1.19x the GPU-hours this model gives them (model cards: Llama 2
# 7B/13B/70B on A100 estimated 10-19% high, Llama 3 70B on H100 16% low, Llama 3.1 405B on 16k H100s 3% high;
# calibration rows d01-d03, d21-d22): the range a pre-training budget is stated with
WHOLE_RUN_RANGE = (0.84, 1.19)
# Meta's model card (huggingface.co/meta-llama/Llama-3.1-8B, "Training Energy Use"): Llama 3.1 8B took 1.46M and
# 70B 7.0M H100-80GB hours for ~15T tokens, 2.33x and 1.30x what this model gives a well-tuned run of each (about
# 14% and 27% of peak over the whole run, where the 405B reached 35%). Small dense models run at scale lose the most
# (small per-GPU steps, restarts and evaluation counted in the whole run), while Llama 2 7B on A100 ran at 39%: the
# published spread for a small model is wide, and its top end is stated with the run that sets it. Llama 3.2 1B and
# 3B (370k and 460k H100-hours for 9T tokens) are left out: they were pruned and distilled from 8B/70B logits, so
# their hours hold the teachers' forward passes, which a plain run does not have.
PUBLISHED_WHOLE_RUNS = (
    (8.03, 2.33, "Llama 3.1 8B took 1.46M H100-hours for ~15T tokens"),
    (70.6, 1.30, "Llama 3.1 70B took 7.0M H100-hours for ~15T tokens"),
)


WHOLE_RUN_SCALE_GPUS = (64, 1024)  # Meta's runs were on thousands of GPUs: their losses apply in full from 1,024


def whole_run_range(params_b: float, gpus: int | None = None) -> tuple[float, float, str]:
    """(low, high, the published run that sets the high end or "") as factors on this model's pre-training
    GPU-hours for a dense model of `params_b` billion parameters: the high end interpolated in log-size between
    Meta's Llama 3.1 and 3.2 runs (PUBLISHED_WHOLE_RUNS), never under WHOLE_RUN_RANGE's. Those runs' losses are a
    cluster's (restarts, small per-GPU steps across thousands of GPUs): a run on `gpus` of 64 or fewer keeps
    WHOLE_RUN_RANGE, and the extra spread grows in log-scale to the full factor at 1,024 GPUs."""
    low, high = WHOLE_RUN_RANGE
    if params_b <= 0:
        return low, high, ""
    if gpus is not None:
        small_gpus, large_gpus = WHOLE_RUN_SCALE_GPUS
        scale = min(1.0, max(0.0, math.log(max(gpus, 1) / small_gpus) / math.log(large_gpus / small_gpus)))
        if scale < 1.0:  # part of a cluster's losses: the top is no published run's, so none is named
            _low, full, _run = whole_run_range(params_b)
            return low, max(high, high + (full - high) * scale), ""
    runs = PUBLISHED_WHOLE_RUNS
    if params_b <= runs[0][0]:
        return low, runs[0][1], runs[0][2]
    for (small, small_f, small_run), (large, large_f, large_run) in zip(runs, runs[1:], strict=False):
        if params_b <= large:
            share = math.log(params_b / small) / math.log(large / small)
            return low, small_f + (large_f - small_f) * share, small_run if share < 0.5 else large_run
    # past 70B the factor falls to the 405B's (WHOLE_RUN_RANGE's top end, Llama 3.1 405B 3% high) by ~400B
    large, large_f, large_run = runs[-1]
    share = min(1.0, math.log(params_b / large) / math.log(405.0 / large))
    factor = large_f + (high - large_f) * share
    return low, max(high, factor), large_run if factor > high + 0.01 else ""


# Mixture-of-experts training (expert parallel, grouped expert GEMMs: Megatron-Core, torchtitan), against a dense model
# of the same active size. Token routing, the experts' all-to-all and matmuls over small expert slices cost utilisation.
# The anchor is DeepSeek-V3's own run in FP8 (arXiv 2412.19437 sec. 3.3; 2.664M H800-hours for 14.8T tokens of
# pre-training, ~1,540 tokens/s per GPU, ~35% of the H800's BF16 peak), which the FP8 path below (x MOE_FP8_GAIN on the
# BF16 peak) reproduces within 20%; NVIDIA's Megatron-Bridge DeepSeek-V3 recipe with DeepSeek's blockwise FP8 on 1,024
# H100s ran 1,297 tokens/s per GPU (docs/performance-summary.md, 25.09). What FP8 adds to an MoE was measured on the
# same recipe in BF16 and MXFP8 (Megatron-Bridge 25.11, DeepSeek-V3 on 256 GPUs): 3,139 against 4,018 tokens/s per
# GB200 (1.28x), 3,848 against 4,357 per GB300 (1.13x), less than a dense model's 1.4x (routing, all-to-all and
# attention stay 16-bit). A BF16 run is the FP8 run without that gain: 0.7 x 1.4 / 1.28 = 0.77 of a dense run.
MOE_TRAINING_FACTOR = 0.77
MOE_FP8_GAIN = 1.28
# On GPUs faster than Hopper in 8-GPU nodes the MoE overheads do not shrink with the tensor cores: Megatron-Bridge's
# DeepSeek-V3 in FP8 ran 2,139 tokens/s per HGX B200 (25.11) against 1,297 per H100, 1.65x, where dense Llama 3 runs
# gained 2.1-2.3x (the BF16 peaks' ratio, 2.27x). Scaled as (Hopper's BF16 peak / the GPU's)^0.35: x0.75 on a B200.
# NVL72 racks (GB200, GB300) keep expert parallelism on NVLink across 72 GPUs and are exempt: DeepSeek-V3 ran 3,139
# tokens/s per GB200 in BF16, above Hopper's scaling.
MOE_HOPPER_BF16_TFLOPS = 989.4
MOE_FAST_GPU_EXPONENT = 0.35
MOE_RACK_SCALE_GPUS = ("gb200", "gb300")


def moe_training_factor(gpu: GpuRecord) -> tuple[float, str]:
    """(factor on a dense model's utilisation, why) for training a mixture of experts on `gpu` in BF16; the FP8 path
    multiplies the peak by MOE_FP8_GAIN on top. See MOE_TRAINING_FACTOR for the published runs it is fitted to."""
    factor = MOE_TRAINING_FACTOR
    why = ("x0.77 for a mixture of experts in BF16 (token routing, all-to-all and small expert matmuls): DeepSeek-V3's "
           "own run was FP8 (2.664M H800-hours for 14.8T tokens, ~35% of the BF16 peak), and FP8 adds only ~1.28x to an "
           "MoE (NVIDIA Megatron-Bridge, DeepSeek-V3 on 256 GB200: 3,139 tokens/s per GPU in BF16, 4,018 in MXFP8)")
    peak = gpu.bf16_dense_tflops or 0.0
    if peak > MOE_HOPPER_BF16_TFLOPS and gpu.id not in MOE_RACK_SCALE_GPUS:
        fast = (MOE_HOPPER_BF16_TFLOPS / peak) ** MOE_FAST_GPU_EXPONENT
        factor *= fast
        why += (f"; x{fast:.2f} on a GPU faster than Hopper in 8-GPU nodes: the MoE overheads do not shrink with the "
                "tensor cores (Megatron-Bridge's DeepSeek-V3: 1,297 tokens/s per H100, 2,139 per HGX B200, 1.65x where "
                "dense models gain 2.1-2.3x)")
    return factor, why + "; a stack without expert parallelism (plain PEFT on an MoE) runs lower still"


# Failures grow with the GPU count: Llama 3 405B on 16,384 H100s kept >90% effective training time after 466
# interruptions in 54 days, so about 10% is lost per 16k GPUs (counted from 1,024 GPUs; below it, rare)
GOODPUT_FROM_GPUS = 1024
GOODPUT_LOSS_PER_16K_GPUS = 0.10


def default_mfu(gpu: GpuRecord, mode: str | None, gpus: int, moe: bool = False) -> tuple[float, str]:
    """Model FLOPs utilisation a well-tuned run reaches, by GPU class and scale (calibration.csv)."""
    gpus = max(1, int(gpus or 1))
    if gpu.tier == "datacenter" and link_kind(gpu.scaleup_link) == "fast":
        mfu, why = 0.48, (f"{fast_link_name(gpu.scaleup_link)} datacenter GPU, dense matmuls at 48% of peak and attention at about half that, fitted to "
                          "the calibration runs (PaLM convention, attention FLOPs counted) - Llama 2 "
                          "on A100 43-46%, MosaicML MPT on H100/A100 40-51% at 2k tokens")
    elif gpus == 1:
        # Not fitted to torchtune's README speed table (calibration rows a09-a11: Llama 3.1 8B LoRA 3,083 and QLoRA
        # 2,413 tokens/s "runnable on 1x 4090"): its column names the smallest card the peak memory fits, not where the
        # tokens/s were measured. LoRA with checkpointing is ~6N FLOPs per token, so 3,083 would be ~90% of the 4090's
        # 165 dense BF16 TFLOPS (FP32 accumulate, Ada whitepaper) and the A6000 row ~97% of its 155; both rows are one
        # FLOP rate, ~48% of an A100 (the GPU of its 70B rows), which the datacenter figure above reproduces within 20%
        # (tests/engine/test_torchtune_consumer_speed.py). Their ratio still sets the QLoRA x0.8 below.
        mfu, why = 0.35, "single PCIe/consumer GPU: no communication, but smaller kernels and power/thermal limits"
    else:
        mfu, why = 0.25, "multi-GPU over PCIe (no NVLink): gradient all-reduce competes with compute"
    if gpus > 1024:
        mfu *= 0.9
        why += "; x0.9 beyond 1,024 GPUs (Llama 3 405B: 38-43% on 16k H100s)"
    if gpu.vendor.upper() == "AMD":
        mfu *= AMD_TRAINING_DISCOUNT
        why += ("; x0.7 on AMD (low confidence, no AMD run in calibration.csv): SemiAnalysis's Dec 2024 MI300X/H100/H200 "
                "training benchmarks found the MI300X's paper advantage over the H100 not realised in practice "
                "(semianalysis.com, 'MI300X vs H100 vs H200 Benchmark Part 1: Training'); x0.7 puts it about level with an H100")
    if mode == "qlora":
        mfu *= 0.8
        why += "; x0.8 for NF4 dequantisation in every matmul (torchtune: QLoRA 2413 vs LoRA 3083 tok/s)"
    if moe:
        factor, moe_why = moe_training_factor(gpu)
        mfu *= factor
        why += "; " + moe_why
    return round(mfu, 4), why


def _flop_terms(w: Workload, arch: Architecture) -> tuple[float, float, float]:
    """(factor, model FLOPs per token, of which attention) as plain numbers: what `flops_per_token`
    states as a Figure, for the catalog search that only compares them."""
    n = arch.active_params
    if w.flops_per_token_factor:
        return float(w.flops_per_token_factor), w.flops_per_token_factor * n, 0.0
    factor = 4.0 if w.mode in ("lora", "qlora") else 6.0
    # DPO runs the frozen reference model forward over the same tokens (2N, attention's forward share too): in the
    # training loop, or once before it with precompute_ref_log_probs; the FLOPs are the same
    # (PPO: once per rollout batch, spread over the num_ppo_epochs passes trained on it: engine.rl)
    factor += REFERENCE_FORWARD_FACTOR * per_rollout_share(w) if reference_forward(w) else 0.0
    factor += rl_extra_factor(w)  # PPO's value model, a reward model: more networks over the same tokens (engine.rl)
    # summed over layers, each token attends to the whole sequence (global layers) or its window (local)
    attn = 12 * arch.attended_tokens(int(w.seq_len or 2048)) * arch.heads * arch.head_dim * factor / 6
    return factor, factor * n + attn, attn


def critic_factor(w: Workload) -> float:
    """PPO's value model in FLOPs per token per policy parameter: a forward for the values (2, once per rollout batch)
    and its training, forward and backward (6, or 4 under (Q)LoRA), at its size over the policy's; 0 without a critic."""
    ratio = critic_ratio(w)
    return ratio * (REFERENCE_FORWARD_FACTOR * per_rollout_share(w) + (4.0 if w.mode in ("lora", "qlora") else 6.0)
                    ) if ratio else 0.0


def old_logprob_factor(w: Workload) -> float:
    """PPO's forward of the policy over each rollout for its old log-probs (the ratio's denominator), once per rollout
    batch: 2 x the share of a pass; GRPO trains each rollout once and reuses the current log-probs."""
    return REFERENCE_FORWARD_FACTOR * per_rollout_share(w) if ppo_passes(w) else 0.0


def rl_extra_factor(w: Workload) -> float:
    """Online RL's networks besides the policy and its reference, per trained token: PPO's value model
    (`critic_factor`), a reward model's forward over every completion (2 x its size over the policy's) and PPO's
    old log-probs (`old_logprob_factor`)."""
    return (critic_factor(w) + REFERENCE_FORWARD_FACTOR * reward_ratio(w) * per_rollout_share(w)
            + old_logprob_factor(w))


def reference_forward(w: Workload) -> bool:
    """The frozen reference model runs forward over the trained tokens: DPO, and online RL with beta > 0 (its KL
    term); the base with the adapter disabled under (Q)LoRA."""
    return (w.objective == "dpo" and w.mode in ("full", "lora", "qlora")) or runs_reference(w)


def flops_per_token(w: Workload, arch: Architecture) -> Figure:
    """Model FLOPs per trained token. The user's factor (w.flops_per_token_factor) replaces the whole
    count with factor x N (the back-of-envelope form); otherwise factor x N + attention."""
    n = arch.active_params
    factor, total, attn = _flop_terms(w, arch)
    if w.flops_per_token_factor:
        return figure(total, "FLOP/token", "factor x N_active", {"factor": w.flops_per_token_factor, "N_active": n},
                      ("user-given factor: attention FLOPs not added",), digits=0)
    s = int(w.seq_len or 2048)
    extra = rl_extra_factor(w)
    policy = factor - extra
    share = per_rollout_share(w)
    notes = [f"{policy:.3g} = the policy's forward 2N + backward 4N on each of the {1 / share:g} PPO epochs, + the frozen "
             f"reference's forward 2N once per rollout batch (/ {1 / share:g})" if reference_forward(w) and share < 1 else
             "6 = forward 2N + backward 4N" if policy == 6 else
             "8 = the policy's forward 2N + backward 4N + the frozen reference model's forward 2N (DPO, or RL with "
             "beta > 0)" if policy == 8 else
             "6 for (Q)LoRA DPO or RL with beta > 0: forward 2N + input-gradient backward 2N + the reference forward 2N "
             "(the base with the adapter disabled)" if reference_forward(w) else
             "4 for (Q)LoRA: forward 2N + input-gradient backward 2N, no weight gradients for the frozen base"]
    once = f" / {1 / share:g} PPO epochs" if share < 1 else ""
    if critic_factor(w):
        notes.append(f"+ {critic_factor(w):.3g} for PPO's value model: its forward for the values (2{once}) and its "
                     f"training ({4 if w.mode in ('lora', 'qlora') else 6}) at {critic_ratio(w):.3g}x the policy's "
                     "parameters")
    if reward_ratio(w):
        notes.append(f"+ {REFERENCE_FORWARD_FACTOR * reward_ratio(w) * share:.3g} for the reward model's forward over "
                     f"every completion (2{once} x its {reward_ratio(w):.3g}x the policy's parameters)")
    if old_logprob_factor(w):
        notes.append(f"+ {old_logprob_factor(w):.3g} for the policy's forward for the old log-probs, once per rollout "
                     f"batch (2{once})")
    if w.objective in PREFERENCE_OBJECTIVES:
        notes.append("preference pairs: every pair trains two sequences (prompt + chosen, prompt + rejected), counted "
                     "in the tokens")
    return figure(total, "FLOP/token", "factor x N_active + 12 x layers x heads x head_dim x seq (x factor/6)",
                  {"factor": factor, "N_active": n, "seq_len": s, "attention_flops": attn}, notes, digits=0)


def training_tokens(w: Workload) -> tuple[int | None, str]:
    if w.dataset_tokens:
        return int(w.dataset_tokens), "dataset_tokens as given"
    if w.dataset_gb:
        return int(w.dataset_gb * 1e9 / BYTES_PER_TOKEN_TEXT), f"dataset_gb x 1e9 / {BYTES_PER_TOKEN_TEXT:g} bytes per token (English text, BPE)"
    return None, "no dataset size: GPU-hours not computed"


def _training_terms(w: Workload, arch: Architecture, gpu: GpuRecord, gpus: int
                    ) -> tuple[float, str, float, str, float, float, float, float, float]:
    """(peak TFLOPS, its label, utilisation, why, executed FLOPs/token, model FLOPs/token, time-equivalent
    FLOPs/token, FLOP/s per GPU, tokens/s over all GPUs): the arithmetic of `estimate_training` once."""
    peak, peak_label = peak_tflops(gpu, "bf16" if w.precision in ("nf4", "int4", "int8") else w.precision)
    if w.precision == "fp8" and gpu.fp8_dense_tflops:
        # FP8 training runs the linear layers' matmuls in FP8; attention, norms, the optimizer and communication stay
        # 16/32-bit, so a run gains far less than the spec sheet's 2x (torchao float8 in torchtitan: up to 1.25x at
        # 8B on 8 H100, 1.34-1.43x on 2k H200, up to 1.5x at 405B on 512 GPUs; pytorch/ao float8 README)
        speedup = fp8_training_speedup(arch.active_params / 1e9, w.mode)
        if arch.is_moe:  # routing, all-to-all and attention stay 16-bit: an MoE gains less (MOE_FP8_GAIN)
            speedup = min(speedup, MOE_FP8_GAIN)
        peak, peak_label = peak_tflops(gpu, "bf16")[0] * speedup, f"BF16 dense x{speedup:g} (FP8 training, measured gain)"
    _factor, model_flops, attention = _flop_terms(w, arch)
    if w.mfu:
        util, why, executed = float(w.mfu), "MFU as given", model_flops
    else:
        util, why = default_mfu(gpu, w.mode, gpus, arch.is_moe)
        executed = model_flops
        if w.gradient_checkpointing and not w.flops_per_token_factor:
            executed += 2 * arch.active_params * (1 + critic_ratio(w))  # a PPO critic re-runs its forward too
            util = min(0.9, util * CHECKPOINT_UTILISATION_GAIN)
            why += "; checkpointing re-runs the forward (+2N FLOPs) at higher hardware utilisation (x1.25, MosaicML HFU)"
    rate = peak * 1e12 * util  # FLOP/s per GPU
    # Attention's FLOPs run at about half the utilisation of the dense matmuls (FlashAttention's
    # backward especially), which only matters at long sequences: they are ~7% of the FLOPs at 2k
    # tokens for a 7B model but 70% at 64k (calibration d14: MFU 28.6% at 64k vs 46% at 2k).
    time_flops = executed + attention * (1 / ATTENTION_UTILISATION - 1)
    tps = gpus * rate / time_flops if time_flops > 0 else 0.0
    return peak, peak_label, util, why, executed, model_flops, time_flops, rate, tps


# ZeRO-3 / FSDP full sharding across nodes: every micro-step all-gathers the layers' weights (forward and backward)
# and reduce-scatters the gradients over the inter-node fabric. NCCL rings reach about 80% of the link; when a cluster's
# fabric is not given, 400 Gb/s per GPU (InfiniBand NDR, HGX H100 and newer) or 200 Gb/s (HDR, A100 generation).
ZERO3_LINK_EFFICIENCY = 0.8
INTER_NODE_GB_S_PER_GPU = {True: 50.0, False: 25.0}  # by "Hopper or newer" (SM 9.0+, or AMD MI300-class)


def zero3_gather(w: Workload, arch: Architecture, gpu: GpuRecord, gpus: int, tp: int, pp: int, dp: int,
                 link_gb_s_per_gpu: float | None, ranks_per_node: int = 1) -> tuple[float, float, float]:
    """(GB each GPU moves per micro-step, the GB/s its collective reaches across nodes, that traffic's time over the
    micro-step's compute) for ZeRO-3 sharded over `dp` replicas that span nodes. FSDP prefetch overlaps the two, so a
    ratio above 1 is the factor the step takes longer than its compute.

    NCCL runs one ring per network card: with `ranks_per_node` ranks of the sharding group in each node, the ring's
    inter-node hops share that many cards and its bus bandwidth is their sum (nccl-tests: 4 HDR cards per A100 node
    reach 85-96 of 100 GB/s), where a group of one rank per node (tensor or expert parallel across the node) has one
    card. A 13B full fine-tune sharded over 2 A100 nodes moves ~73 GB per GPU for each 2,048-token sequence: 0.4 s
    over a node's 8 cards against ~1.2 s of compute, 3 s over one."""
    if link_gb_s_per_gpu is None:
        cc = compute_capability(gpu)  # None for AMD gfx names: MI300-class fabrics are 400 Gb/s per GPU
        link_gb_s_per_gpu = INTER_NODE_GB_S_PER_GPU[cc is None or cc >= 9.0]
    bpp = 0.5 if w.mode == "qlora" else 4.0 if w.precision == "fp32" else 2.0
    split = max(1, tp * pp)
    trainable = (lora_trainable_params(arch, w.lora_rank, w.lora_targets) if w.mode in ("lora", "qlora")
                 else arch.total_params)
    share = (dp - 1) / dp if dp > 1 else 0.0
    # gathers forward and backward, grads once; a full DPO run's reference copy is gathered for its forward too
    gathers = 3 if holds_reference(w) else 2
    moved = (gathers * arch.total_params * bpp + 2.0 * trainable) / split * share
    bus_gb_s = link_gb_s_per_gpu * max(1, ranks_per_node)
    comm_s = moved / (bus_gb_s * 1e9 * ZERO3_LINK_EFFICIENCY)
    *_, time_flops, rate, _tps = _training_terms(w, arch, gpu, max(1, gpus))
    tokens = float(w.batch_size or 1) * sequences_per_example(w.objective) * float(w.seq_len or 2048)
    # an MoE's experts split over the node (expert parallel) each see their own sequences: only a dense model's
    # tensor-parallel group shares one sequence's FLOPs
    compute_s = tokens * time_flops / (1 if arch.is_moe else split) / rate if rate > 0 else math.inf
    return moved / 1e9, bus_gb_s, comm_s / compute_s if compute_s > 0 else 0.0


def gathers_counted(estimate: ThroughputEstimate, slowdown: float, network: bool = False) -> ThroughputEstimate:
    """A training estimate whose weight gathers across nodes outrun its compute (`engine.cluster.gather_slowdown`),
    or whose traffic over the network said between nodes does (`network`, engine.network): tokens/s divided,
    GPU-hours and wall clock multiplied, and the MFU it states lowered to what the run reaches, so the time, the cost
    and the ranking read the run as it goes, not its compute alone."""
    why = (f"x {slowdown:.3g}: the traffic between nodes over the network you said takes that many times the compute "
           "(see the plan)" if network else
           f"x {slowdown:.2g}: ZeRO-3's weight gathers across nodes take that many times the compute at the largest "
           "micro-batch that fits (see the plan)")
    update: dict[str, object] = {}
    tps = estimate.training_tokens_per_s
    if tps is not None:
        inputs = dict(tps.inputs)
        if isinstance(inputs.get("mfu"), int | float):
            inputs["mfu"] = float(inputs["mfu"]) / slowdown
        update["training_tokens_per_s"] = tps.model_copy(update={
            "value": round(tps.value / slowdown, 1), "inputs": {**inputs, "gather_slowdown": round(slowdown, 2)},
            "notes": (*tps.notes, why.replace("x ", "/ ", 1))})
    for name, digits in (("gpu_hours", 1), ("wall_clock_hours", 2)):
        fig = getattr(estimate, name)
        if fig is not None:
            update[name] = fig.model_copy(update={"value": round(fig.value * slowdown, digits),
                                                  "inputs": {**fig.inputs, "gather_slowdown": round(slowdown, 2)},
                                                  "notes": (*fig.notes, why)})
    return estimate.model_copy(update=update)


def training_numbers(w: Workload, arch: Architecture, gpu: GpuRecord, gpus: int) -> tuple[float, float | None, float | None]:
    """(tokens/s, GPU-hours per run, wall-clock hours per run) exactly as `estimate_training` states them
    (same rounding), without building its Figures: the catalog search compares these for every node
    shape and builds the estimate only for the options it shows."""
    gpus = max(1, int(gpus or 1))
    *_, time_flops, rate, tps = _training_terms(w, arch, gpu, gpus)
    gh = _run_gpu_hours(w, time_flops, rate, gpus)
    if gh is None:
        return round(finite(tps), 1), None, None
    gh += rollout_gpu_hours(w, arch, gpu, gpus)  # online RL: the generation phases on the same GPUs (engine.rl)
    return round(finite(tps), 1), round(finite(gh), 1), round(finite(gh / gpus), 2)


def _run_gpu_hours(w: Workload, time_flops: float, rate: float, gpus: int) -> float | None:
    """GPU-hours of one run (time-equivalent FLOPs x tokens x epochs at `rate` FLOP/s per GPU, over the
    goodput at this scale); None without a token count. Shared by both forms of the estimate."""
    tokens, _why = training_tokens(w)
    if not tokens:
        return None
    gh = time_flops * tokens * float(w.epochs or 1) / (rate * SECONDS_PER_HOUR) if rate > 0 else 0.0
    return gh / goodput(gpus)


def goodput(gpus: int) -> float:
    """Share of a run's wall clock that trains: from 1,024 GPUs, hardware failures and restarts from
    checkpoint cost time in proportion to the GPU count, 10% at 16,384 GPUs (Llama 3 405B: >90%
    effective training time), at most 30%."""
    if gpus < GOODPUT_FROM_GPUS:
        return 1.0
    return max(0.7, 1 - GOODPUT_LOSS_PER_16K_GPUS * gpus / 16384)


def estimate_training(w: Workload, arch: Architecture, gpu: GpuRecord, gpus: int) -> ThroughputEstimate:
    """Tokens/s over all GPUs, GPU-hours and wall-clock per run."""
    gpus = max(1, int(gpus or 1))
    model_flops = flops_per_token(w, arch)
    peak, peak_label, util, why, executed, _model, time_flops, rate, tps = _training_terms(w, arch, gpu, gpus)
    inputs = {"gpus": gpus, "peak_tflops": peak, "peak": peak_label, "utilisation": util, "flops_per_token": executed,
              "model_flops_per_token": model_flops.value, "attention_utilisation": ATTENTION_UTILISATION,
              "mfu": util * model_flops.value / time_flops if time_flops > 0 else util}
    notes = [why, *model_flops.notes]
    tokens_s = figure(tps, "tokens/s", "gpus x peak x utilisation / FLOPs per token", inputs, notes, digits=1)
    tokens, tok_why = training_tokens(w)
    gh = _run_gpu_hours(w, time_flops, rate, gpus)
    hours = wall = None
    if gh is not None:
        kept = goodput(gpus)
        hin = {**inputs, "tokens": tokens, "epochs": float(w.epochs or 1), "goodput": kept}
        hnotes = (tok_why, why) if kept == 1.0 else (tok_why, why, f"/ {kept:.3g} goodput: failures and restarts from checkpoint "
                                                     "grow with the GPU count (Llama 3 405B: >90% effective training "
                                                     "time on 16k GPUs)")
        formula = "FLOPs per token x tokens x epochs / (peak x utilisation x 3600 x goodput)"
        if is_rl(w):  # online RL: the generation phases run on the same GPUs, one after the other (engine.rl)
            gen = rollouts(w, arch, gpu, gpus)
            gen_gh = rollout_gpu_hours(w, arch, gpu, gpus)
            hin = {**hin, "training_gpu_hours": round(gh, 2), "rollout_gpu_hours": round(finite(gen_gh), 2),
                   "rollout_tokens_per_s": round(gen.tokens_per_s, 1) if gen else None}
            hnotes = (*hnotes, "online RL: + the rollouts' GPU-hours (completions at the GPUs' batched vLLM decode "
                      "throughput, colocated: every GPU generates, then trains)")
            formula += " + rollout GPU-hours"
            gh += gen_gh
        hours = figure(gh, "GPU-hours", formula, hin, hnotes, digits=1)
        wall = figure(gh / gpus, "hours", "GPU-hours / gpus", {"gpus": gpus}, ("excludes data loading, checkpoint stalls, restarts",), digits=2)
    return ThroughputEstimate(training_tokens_per_s=tokens_s, gpu_hours=hours, wall_clock_hours=wall, notes=tuple(notes))


def decode_step_seconds(bytes_read: float, bandwidth_tb_s: float, efficiency: float) -> float:
    """One decode step when bandwidth-bound: bytes streamed / (bandwidth x efficiency)."""
    rate = bandwidth_tb_s * 1e12 * efficiency
    return bytes_read / rate if rate > 0 else math.inf


def weight_bytes_read_per_step(arch: Architecture, precision: str | None, batch: int = 1) -> float:
    """Weights a decode step streams: everything except the input embedding (one row is read), and for
    MoE only the experts the batch's tokens route to (expected distinct experts E(1-(1-k/E)^B))."""
    linear_b, other_b = _weight_bytes(precision)
    linear = float(arch.linear_params)
    if arch.is_moe and arch.experts:
        e, k = arch.experts, arch.active_experts or 1
        routed = arch.routed_params
        touched = e * (1 - (1 - k / e) ** max(1, batch)) / e
        linear -= routed * (1 - touched)
    return linear * linear_b + arch.head_params * other_b + 2 * arch.hidden * arch.layers * other_b


def _weight_bytes(precision: str | None) -> tuple[float, float]:
    """(bytes per linear-layer weight, bytes per other weight): quantised checkpoints keep embeddings/norms 16-bit."""
    q = bytes_per_element(precision)
    const = {"int4": INT4_GROUP_BYTES, "nf4": NF4_DQ_BITS / 8}.get(precision or "", 0.0)
    quantised = precision in ("fp8", "int8", "int4", "nf4")
    return (q + const if quantised else q), (2.0 if quantised else q)


def routed_bytes_read_per_step(arch: Architecture, precision: str | None, batch: int = 1) -> float:
    """The routed experts' share of `weight_bytes_read_per_step`: the expected distinct experts `batch` tokens
    touch. What expert parallelism spreads over all the replica's GPUs (0 for a dense model)."""
    if not arch.is_moe or not arch.experts:
        return 0.0
    e, k = arch.experts, arch.active_experts or 1
    touched = e * (1 - (1 - k / e) ** max(1, batch)) / e
    return arch.routed_params * touched * _weight_bytes(precision)[0]


# Expert parallelism across nodes (DeepEP's low-latency kernels, which SGLang's --moe-a2a-backend deepep and vLLM's
# DeepEP all-to-all backends run in decode): every MoE layer sends each token's hidden state to the GPUs of its top-k
# experts (dispatch, FP8 with one fp32 scale per 128 values for an FP8 model, else BF16) and brings their outputs back
# (combine, BF16). The copies bound for other nodes cross the fabric at the per-GPU NIC's rate, at the efficiency
# NCCL reaches for ZeRO-3's gathers (INTER_NODE_GB_S_PER_GPU x ZERO3_LINK_EFFICIENCY), plus a fixed latency per
# collective. DeepEP's published low-latency figures (docs/legacy.md: H800, one ConnectX-7 400 Gb/s NIC per GPU,
# 128 tokens per GPU, hidden 7168, top-8, FP8 dispatch, BF16 combine): dispatch 118 / 155 us and combine 195 / 273 us
# at EP16 / EP32; this gives 115 / 162 us and 203 / 295 us with 20 us per collective, within 10%. Not overlapped
# with compute here (SGLang's two-batch overlap hides part of it: the figure is the conservative side).
ALL_TO_ALL_LATENCY_S = 20e-6
FP8_DISPATCH_BYTES = 1 + 4 / 128  # an FP8 value and its share of a per-128 fp32 scale


def inter_node_gb_s_per_gpu(gpu: GpuRecord, given: float | None = None) -> float:
    """GB/s each GPU has on the inter-node fabric: the offer's figure when it has one, else 400 Gb/s (InfiniBand NDR,
    one NIC per GPU on HGX H100 and newer, MI300-class) or 200 Gb/s (HDR, the A100 generation)."""
    if given:
        return given
    cc = compute_capability(gpu)  # None for AMD gfx names
    return INTER_NODE_GB_S_PER_GPU[cc is None or cc >= 9.0]


def expert_all_to_all_seconds(arch: Architecture, tokens_per_gpu: float, ep: int, gpus_per_node: int,
                              precision: str | None, link_gb_s_per_gpu: float, per_node: bool = False) -> float:
    """Dispatch + combine time of one forward pass's MoE layers for an expert-parallel group of `ep` GPUs over
    ep / gpus_per_node nodes, each GPU sending `tokens_per_gpu` tokens, plus ALL_TO_ALL_LATENCY_S per collective.
    Decode (DeepEP's low-latency kernels, pure RDMA) sends each of a token's top-k copies to its expert's GPU: the
    copies bound for other nodes cross the fabric. Prefill (`per_node`: DeepEP's normal kernels) sends a token once
    to each other node holding one of its experts and forwards it over NVLink there. 0 inside one node (NVLink's
    all-to-all is an order of magnitude faster and folded into the MoE layers' fixed time) or for a dense model."""
    if not arch.is_moe or ep <= gpus_per_node or gpus_per_node < 1 or link_gb_s_per_gpu <= 0:
        return 0.0
    nodes = math.ceil(ep / gpus_per_node)
    k = arch.active_experts or 1
    copies = (nodes - 1) * (1 - (1 - 1 / nodes) ** k) if per_node else k * (nodes - 1) / nodes
    dispatch = FP8_DISPATCH_BYTES if precision == "fp8" else 2.0
    moved = max(0.0, tokens_per_gpu) * copies * arch.hidden * (dispatch + 2.0)
    return arch.moe_layers * (2 * ALL_TO_ALL_LATENCY_S + moved / (link_gb_s_per_gpu * 1e9 * ZERO3_LINK_EFFICIENCY))


# Tensor-parallel all-reduce: two per layer per forward pass (attention out, MLP out), each a ring of
# 2(tp-1) hops. Per-hop latency fitted on gpt-fast's Llama-2-70B decode at TP2/4/8 on NVLink A100s
# (21.3 / 38.0 / 62.5 tokens/s: about 0, 9 and 22 us per all-reduce beyond the weight reads); PCIe
# hops go through the host bridge at several times that (NCCL over PCIe, low confidence, stated). nccl-tests puts
# a tiny all-reduce over 8 PCIe GPUs at about 40 us (NVIDIA/nccl issue 1530, 8x RTX 4090: 42 us for 8 bytes), under
# the 84 us this gives TP8: the latency side is the conservative one, for vLLM's own per-collective overhead.
ALLREDUCE_HOP_S = {"fast": 1.5e-6, "pcie": 3e-6}
# The bus bandwidth (nccl-tests' busbw, per direction: time = 2(tp-1)/tp x bytes / busbw) an all-reduce reaches
# between x16 cards with no NVLink. On PCIe every flow crosses the host bridge, whose CPU and memory bound it below
# the link's own rate (NCCL's maintainers, NVIDIA/nccl issue 1639: 8 RTX 5090 on Gen5 reach 28 GB/s busbw, 4 of
# them 35, "on PCI systems, the performance you get is usually determined by the bandwidth your CPU and memory can
# deliver"); Gen4 servers reach 20-25 GB/s with P2P on one switch, less across sockets or without P2P (cloud VMs):
# 20 for Gen4, 30 for Gen5, half and double a generation away. vLLM runs its own P2P all-reduce kernel on two PCIe
# GPUs only and NCCL on more ("Custom allreduce is disabled because it's not supported on more than two PCIe-only
# GPUs", vllm/distributed/device_communicators/custom_all_reduce.py: "for 4 or more non NVLink-capable GPUs, custom
# allreduce provides little performance improvement over NCCL").
PCIE_EFFECTIVE_GB_S = {3: 10.0, 4: 20.0, 5: 30.0, 6: 60.0}
PIPELINE_HOP_S = 30e-6  # activations handed to the next stage over the network, per stage boundary
# Each MoE layer of a decode step also routes its tokens (gate, top-k), permutes them to their experts and back,
# and launches grouped expert GEMMs over slices of a few MB: fixed time that weight bandwidth does not see, and
# the reason a 3B-active MoE decodes nowhere near 3B-dense speed at one request. Fitted between two public vLLM
# runs at one request: Qwen3-30B-A3B BF16 on one A100 (TPOT 9.6 ms; tenstorrent/tt-inference-server issue 340)
# and DeepSeek-V3 AWQ on 8 H100s (61.5 tokens/s; the cognitivecomputations/DeepSeek-V3-AWQ model card), which
# need 0.10 and 0.21 ms per MoE layer beyond the weight reads: 0.15 ms puts them at -20% and +30% (+102% and
# +323% without it); the same card's batch-32 run moves from +5% to -18% (docs/accuracy.md, rows m01-m04).
# SGLang v0.5.7 serving DeepSeek-R1 FP8 on 8 H200s (SemiAnalysisAI/InferenceX issue 870, rows m05-m07) runs 29%,
# 13% and 6% faster than it gives at 8, 32 and 64 in flight: at a chat service's batches the fixed time is not what
# slows DeepSeek (64 in flight is met), and it is kept between the AWQ run it is 30% fast on and these.
MOE_LAYER_DECODE_S = 0.15e-3


def onchip_roce(link: str | None) -> bool:
    """Scale-up over RoCE ports on the accelerator itself, wired all-to-all inside the node: Intel Gaudi 3's 24x
    200GbE, 21 of them between the 8 cards of an HLS-3/OAM baseboard (Intel Gaudi 3 white paper). Its collectives
    never cross PCIe or the host, so tensor parallel within the node is planned on it as on NVLink."""
    text = (link or "").lower()
    return "roce" in text and ("on-chip" in text or "within a node" in text)


def link_kind(link: str | None) -> str:
    """"fast" for an all-to-all NVLink/NVSwitch/Infinity Fabric node, or on-chip RoCE scale-up (`onchip_roce`), else
    "pcie" (bridged pairs count as PCIe beyond the pair: the conservative reading)."""
    text = (link or "").lower()
    return "fast" if (("nvlink" in text or "nvswitch" in text or "infinity" in text or onchip_roce(text))
                      and "bridge" not in text and "pcie only" not in text) else "pcie"


def fast_link_name(link: str | None) -> str:
    """What a fast scale-up link is called in an answer: AMD's Infinity Fabric, Gaudi's on-chip RoCE, else NVLink."""
    text = (link or "").lower()
    return "Infinity Fabric" if "infinity" in text else "on-chip RoCE" if onchip_roce(text) else "NVLink"


def tp_link_bytes_s(gpu: GpuRecord, kind: str) -> float:
    """Bytes/s per direction a tensor-parallel all-reduce moves between the GPUs of a group: half the GPU's NVLink or
    Infinity Fabric figure on a fast node, else the bus bandwidth NCCL reaches over PCIe (PCIE_EFFECTIVE_GB_S)."""
    if kind == "fast" and gpu.scaleup_bandwidth_gb_s:
        return gpu.scaleup_bandwidth_gb_s / 2 * 1e9  # per direction
    return PCIE_EFFECTIVE_GB_S.get(int(gpu.pcie_gen or 4), PCIE_EFFECTIVE_GB_S[4]) * 1e9


def allreduce_seconds(arch: Architecture, gpu: GpuRecord, tp: int, batch: int, kind: str) -> float:
    """Time one forward pass of `batch` tokens spends in tensor-parallel all-reduces (not overlapped with compute):
    a decode step's batch, or a prompt's tokens in its prefill."""
    if tp <= 1:
        return 0.0
    bandwidth = tp_link_bytes_s(gpu, kind)
    message = batch * arch.hidden * 2  # bf16 activations of the batch's tokens
    per = 2 * (tp - 1) * ALLREDUCE_HOP_S[kind] + 2 * (tp - 1) / tp * message / bandwidth
    return 2 * arch.layers * per


def vendor_serving_factor(gpu: GpuRecord | None) -> float:
    """How much of the spec-sheet arithmetic a GPU's serving stack reaches, relative to NVIDIA's (see
    AMD_SERVING_EFFICIENCY)."""
    return AMD_SERVING_EFFICIENCY if gpu is not None and gpu.vendor.upper() == "AMD" else 1.0


def weight_kernel_efficiency(precision: str, gpu: GpuRecord | None = None) -> float:
    """Share of the 16-bit kernels' bandwidth that reading weights in `precision` reaches: Marlin for 4-bit on
    NVIDIA SM 8.0+, a dequantising kernel otherwise (QUANT_KERNEL_EFFICIENCY)."""
    if precision == "int4" and gpu is not None and gpu.vendor.upper() == "NVIDIA":
        try:
            if float(gpu.compute_capability or 0) >= MARLIN_MIN_SM:
                return MARLIN_INT4_EFFICIENCY
        except ValueError:
            pass
    return QUANT_KERNEL_EFFICIENCY.get(precision, 1.0)


def decode_efficiency(w: Workload, gpu: GpuRecord | None = None) -> float:
    """Fraction of peak HBM bandwidth reading the weights reaches in a decode step: the user's figure as given,
    else the default for the weights' kernels, on AMD x0.7."""
    if w.bandwidth_efficiency:
        return w.bandwidth_efficiency
    prec = w.precision or "bf16"
    return DEFAULT_BANDWIDTH_EFFICIENCY * weight_kernel_efficiency(prec, gpu) * vendor_serving_factor(gpu)


def kv_read_efficiency(w: Workload, gpu: GpuRecord | None = None) -> float:
    """The same for the KV cache, which is read by the attention kernels as stored (never dequantised by the
    weights' kernels): no weight-format penalty."""
    if w.bandwidth_efficiency:
        return w.bandwidth_efficiency
    return DEFAULT_BANDWIDTH_EFFICIENCY * vendor_serving_factor(gpu)


def compute_efficiency(gpu: GpuRecord | None = None) -> float:
    """Fraction of dense tensor peak that decode and prefill matmuls reach, on AMD x0.7."""
    return DEFAULT_COMPUTE_EFFICIENCY * vendor_serving_factor(gpu)


def request_shape(w: Workload) -> tuple[int, int]:
    """(input, output) tokens per request, the defaults where not given (they matter under load only)."""
    return int(w.input_tokens or DEFAULT_INPUT_TOKENS), int(w.output_tokens or DEFAULT_OUTPUT_TOKENS)


def planned_rate(w: Workload) -> float | None:
    """The requests/s a serving fleet is sized for: the rate said, or a total output throughput ("5,000 tokens/s
    in total") as the requests of the request shape that generate it, the larger where both are said. A total is
    what serving benchmarks report as output token throughput (vLLM benchmark_serving: completed requests' output
    tokens over the run's duration), so it is sized as that load, prefills and all, not as one batch's decode
    rate. None when neither was said. Beside users held at once the total is theirs (`total_in_rate`)."""
    rate = float(w.requests_per_s or 0.0)
    if total_in_rate(w):
        rate = max(rate, float(w.target_tokens_per_s or 0.0) / request_shape(w)[1])
    return rate or None


def total_restates_rate(w: Workload) -> bool:
    """A total tokens/s that says no more than the request rate beside it (the parser derives 4,000 tokens/s from
    "20 requests/s, 200 output tokens"): one target, checked as the rate."""
    return bool(w.target_tokens_per_s and w.requests_per_s
                and w.target_tokens_per_s <= w.requests_per_s * request_shape(w)[1] * (1 + 1e-6))


def total_in_rate(w: Workload) -> bool:
    """A total tokens/s sized as a request rate: said alone (or over a rate said). Beside users at once ("200 users,
    5,000 tokens/s in total") it is those users' output, their count x the speed each gets, and is checked as that
    (engine.serving): a rate of default-length requests would describe another load."""
    return bool(w.target_tokens_per_s and not w.concurrency and not total_restates_rate(w))


def turns_assumed(w: Workload) -> bool:
    """Concurrent users with no request lengths said: each user's turns are sized at the default prompt and
    reply (DEFAULT_INPUT_TOKENS new prompt tokens, earlier turns prefix-cached, DEFAULT_OUTPUT_TOKENS out), so
    the per-user speed counts the prefills that share the GPU, as it does for a request rate."""
    return bool(w.concurrency and w.concurrency > 1 and not planned_rate(w)
                and not (w.input_tokens and w.output_tokens))


def under_load(w: Workload) -> bool:
    """New requests keep arriving while others decode (a request rate or total throughput, a stated request mix,
    or concurrent users' turns): their prefills take a share of each replica's time (`loaded_step`)."""
    return bool(planned_rate(w) or (w.input_tokens and w.output_tokens) or turns_assumed(w))


def prefill_tokens(w: Workload) -> int:
    """The prompt one request prefills: its stated or assumed length under load, else the whole context."""
    return request_shape(w)[0] if (under_load(w) or w.input_tokens) else context_tokens(w)[0]


def context_tokens(w: Workload) -> tuple[int, str]:
    """Mean context a sequence holds while decoding (KV bytes read per step)."""
    if w.input_tokens is not None and w.output_tokens is not None:
        return int(w.input_tokens + w.output_tokens / 2), "prompt + half the output (mean context while decoding)"
    return int(w.seq_len or 2048), "full seq_len for every sequence (worst case)"


def mla_decode_attention_flops(arch: Architecture, context_tokens: int) -> float:
    """FLOPs one sequence's decode step spends in MLA attention with the up-projections absorbed (how DeepSeek's own
    inference code, FlashMLA, SGLang, vLLM and TensorRT-LLM run it): every head's query meets every cached latent (the
    kv_lora_rank latent plus the rope key, 576 values for DeepSeek-V3) and the weighted latents are summed back (512):
    2 x heads x (2 x kv_lora_rank + rope) per cached token per layer, 279k for DeepSeek-V3, 4.25x the 4 x heads x
    head_dim a multi-head layer of its shape would do. 0 for a model without MLA."""
    if not arch.is_mla:
        return 0.0
    lora = int(arch.kv_lora_rank or 0)
    return 2.0 * arch.heads * (2 * lora + int(arch.rope_dim or 0)) * arch.layers * context_tokens


def decode_step_function(w: Workload, arch: Architecture, gpu: GpuRecord, tp: int, pp: int,
                         kind: str, shared: dict[tuple[object, ...], object] | None = None,
                         ep: int = 0, fabric_gb_s: float | None = None,
                         ) -> Callable[[int], tuple[float, float, float, float]]:
    """batch -> (step, memory time, compute time, communication time) of one decode step on a replica
    of tp x pp GPUs, with everything that does not depend on the batch computed once (the serving
    search calls it for many batch sizes).

    Pipeline stages run one after another for a given token, so a user's step is the sum of the
    stages (weights / tp read in all), while pp micro-batches in flight keep every stage busy: the
    replica's aggregate rate is batch / step, as for one tp group holding everything.

    `ep` > tp: an MoE served with expert parallelism over ep GPUs in ep / tp nodes (see `_expert_parallel_step`);
    `fabric_gb_s` is then each GPU's inter-node bandwidth (None: `inter_node_gb_s_per_gpu`'s default)."""
    prec = w.precision or "bf16"
    per_workload = shared.get(("decode_constants",)) if shared is not None else None
    if per_workload is None:  # what no GPU changes: the serving search shares it across GPUs and groups
        ctx, _ = context_tokens(w)
        mla_flops = mla_decode_attention_flops(arch, ctx)
        per_workload = (kv_cache_bytes(arch, ctx, 1, 1.0 if prec == "fp8" else 2.0),
                        2 * arch.active_params + (0 if mla_flops else 4 * arch.layers * arch.heads * arch.head_dim * ctx),
                        None if arch.is_moe else weight_bytes_read_per_step(arch, prec, 1), moe_layer_seconds(arch),
                        mla_flops)
        if shared is not None:
            shared[("decode_constants",)] = per_workload
    kv_per_seq, flops_per_seq, dense_read, moe_s, mla_flops = cast(
        tuple[float, float, float | None, float, float], per_workload)
    kv_split = tp if arch.is_mla else min(tp, arch.kv_heads)
    per_gpu = shared.get(("decode_gpu", gpu.id)) if shared is not None else None
    if per_gpu is None:  # what no group changes, per GPU type
        peak, _label = peak_tflops(gpu, prec if prec in ("fp8", "fp32") else "bf16")
        attn_peak, _label = peak_tflops(gpu, "fp32" if prec == "fp32" else "bf16")
        per_gpu = (gpu.memory_bandwidth_tb_s * 1e12 * decode_efficiency(w, gpu),
                   gpu.memory_bandwidth_tb_s * 1e12 * kv_read_efficiency(w, gpu), peak * 1e12 * compute_efficiency(gpu),
                   attn_peak * 1e12 * compute_efficiency(gpu))
        if shared is not None:
            shared[("decode_gpu", gpu.id)] = per_gpu
    bandwidth, kv_bandwidth, compute_peak, attention_peak = cast(tuple[float, float, float, float], per_gpu)
    if ep > tp and arch.is_moe:
        return _expert_parallel_step(arch, gpu, prec, tp, ep, kind, kv_per_seq, flops_per_seq, moe_s,
                                     (bandwidth, kv_bandwidth, compute_peak, attention_peak),
                                     inter_node_gb_s_per_gpu(gpu, fabric_gb_s), mla_flops)
    compute_rate = compute_peak * tp
    pipeline_s = (pp - 1) * PIPELINE_HOP_S  # moe_s: every stage's MoE layers, one after another for a given token
    # The search evaluates this for hundreds of batches per question: what no batch changes is worked out here, in
    # the same operations and order as `allreduce_seconds` and the roofline below, so every figure is the same float.
    dense_s = dense_read / tp / bandwidth if dense_read is not None and bandwidth > 0 else None
    layers2 = 2 * arch.layers
    hop_s = 2 * (tp - 1) * ALLREDUCE_HOP_S[kind] if tp > 1 else 0.0
    ring = 2 * (tp - 1) / tp
    hidden2 = arch.hidden * 2
    link_bytes_s = tp_link_bytes_s(gpu, kind if tp > 1 else "")

    attention_rate = attention_peak * kv_split

    def step(batch: int) -> tuple[float, float, float, float]:
        if bandwidth > 0:
            w_s = dense_s if dense_s is not None else weight_bytes_read_per_step(arch, prec, batch) / tp / bandwidth
            kv_s = kv_per_seq * batch / kv_split / kv_bandwidth
            mem_s = w_s + kv_s
        else:
            w_s = kv_s = mem_s = math.inf
        comp_s = flops_per_seq * batch / compute_rate
        # allreduce_seconds(arch, gpu, tp, batch, kind), term by term
        comm_s = (layers2 * (hop_s + ring * (batch * hidden2) / link_bytes_s) if tp > 1 else 0.0) + pipeline_s
        if mla_flops:  # MLA: attention (compute-bound) and the linear layers (memory-bound) are separate kernels
            attn_s = mla_flops * batch / attention_rate
            return (max(w_s, comp_s) + max(kv_s, attn_s) + comm_s + moe_s, mem_s, comp_s + attn_s, comm_s)
        return (comp_s if comp_s > mem_s else mem_s) + comm_s + moe_s, mem_s, comp_s, comm_s  # max(mem_s, comp_s)

    return step


def _expert_parallel_step(arch: Architecture, gpu: GpuRecord, prec: str, tp: int, ep: int, kind: str, kv_per_seq: float,
                          flops_per_seq: float, moe_s: float, rates: tuple[float, float, float, float],
                          link_gb_s: float, mla_flops: float = 0.0) -> Callable[[int], tuple[float, float, float, float]]:
    """The decode step of an MoE replica with expert parallelism across ep / tp nodes and data-parallel attention
    (SGLang --tp 16 --enable-dp-attention with DeepEP, vLLM data parallel + --enable-expert-parallel): each GPU reads
    1/ep of the routed experts the batch touches and 1/tp of the rest (attention tensor-parallel inside its node);
    each node's attention group holds and reads the KV cache of its own 1/nodes of the batch; the FLOPs spread over
    all ep GPUs. Communication: the attention all-reduces inside the node (one per layer, one more per dense MLP
    layer: the MoE layers' outputs come back through the combine) and the all-to-all per MoE layer across nodes
    (`expert_all_to_all_seconds`). Each token still passes every layer once, on every GPU at the same time: twice
    the GPUs of a pipeline-parallel pair of nodes read half the bytes each per step."""
    bandwidth, kv_bandwidth, compute_peak, attention_peak = rates
    groups = max(1, ep // tp)
    kv_split = (tp if arch.is_mla else min(tp, arch.kv_heads)) * groups
    reduces = arch.layers + (arch.layers - arch.moe_layers)
    hop_s = 2 * (tp - 1) * ALLREDUCE_HOP_S[kind] if tp > 1 else 0.0
    ring = 2 * (tp - 1) / tp
    link_bytes_s = tp_link_bytes_s(gpu, kind if tp > 1 else "")

    def step(batch: int) -> tuple[float, float, float, float]:
        if bandwidth > 0:
            routed = routed_bytes_read_per_step(arch, prec, batch)
            rest = weight_bytes_read_per_step(arch, prec, batch) - routed
            w_s = (rest / tp + routed / ep) / bandwidth
            kv_s = kv_per_seq * batch / kv_split / kv_bandwidth
            mem_s = w_s + kv_s
        else:
            w_s = kv_s = mem_s = math.inf
        comp_s = flops_per_seq * batch / (compute_peak * ep)
        reduce_s = reduces * (hop_s + ring * (batch / groups * arch.hidden * 2) / link_bytes_s) if tp > 1 else 0.0
        comm_s = reduce_s + expert_all_to_all_seconds(arch, batch / ep, ep, tp, prec, link_gb_s)
        if mla_flops:  # as in `decode_step_function`: MLA attention is its own, compute-bound kernel
            attn_s = mla_flops * batch / (attention_peak * kv_split)
            return max(w_s, comp_s) + max(kv_s, attn_s) + comm_s + moe_s, mem_s, comp_s + attn_s, comm_s
        return max(mem_s, comp_s) + comm_s + moe_s, mem_s, comp_s, comm_s

    return step


def moe_layer_seconds(arch: Architecture) -> float:
    """The fixed routing and expert-kernel time of a decode step's MoE layers (MOE_LAYER_DECODE_S each); 0 for
    a dense model."""
    return arch.moe_layers * MOE_LAYER_DECODE_S


def loaded_step(step_s: float, batch: int, prefill_s: float, output_tokens: int, pause_s: float = 0.0) -> float:
    """A decode step as a user feels it when new requests keep arriving: every request's prefill stalls
    (or, chunked, shares) the batch's decode steps.

    With `batch` requests in flight, each lasting output_tokens loaded steps plus its prefill, and each user
    pausing `pause_s` before the next (engine.think_time: a chat user reads the reply; 0 for requests kept in
    flight), requests arrive at batch / (output x step / (1 - x) + prefill + pause) per second and their prefills
    take a share x = rate x prefill of the replica's time; decode gets the rest, so a token takes step / (1 - x).
    Solving for x gives the smaller root of  (prefill + pause) x^2 - (output x step + prefill + pause + batch x
    prefill) x + batch x prefill = 0 (capped at 90%). This is what serving benchmarks report as inter-token latency
    under load: NVIDIA NIM, Llama 3.3 70B FP8 on 2 H100s, 5k-token prompts: 18.6 ms alone, 38.8 ms with 25
    in flight (no pause); this gives 37.8 ms."""
    if output_tokens <= 0 or prefill_s <= 0 or batch <= 0:
        return step_s
    turn = prefill_s + max(0.0, pause_s)
    b_coef = output_tokens * step_s + turn + batch * prefill_s
    disc = b_coef * b_coef - 4 * turn * batch * prefill_s
    busy = (b_coef - math.sqrt(max(disc, 0.0))) / (2 * turn)
    return step_s / (1 - min(0.9, max(0.0, busy)))


def decode_step_seconds_for(w: Workload, arch: Architecture, gpu: GpuRecord, tp: int, pp: int, batch: int,
                            kind: str, ep: int = 0, fabric_gb_s: float | None = None) -> tuple[float, float, float, float]:
    """(step, memory time, compute time, communication time) of one decode step of `batch` sequences on a
    replica of tp x pp GPUs, or of ep GPUs with expert parallelism across nodes (see `decode_step_function`)."""
    return decode_step_function(w, arch, gpu, tp, pp, kind, ep=ep, fabric_gb_s=fabric_gb_s)(batch)


def prefill_attention_flops(arch: Architecture, prompt_tokens: int, cached_tokens: int = 0) -> float:
    """Causal self-attention FLOPs of one prompt: QK^T and AV, each 2 x L^2 x d per layer halved by the
    causal mask, so 2 x layers x L^2 x heads x head_dim. Negligible at 1k tokens, about a third of the
    linear FLOPs of a 70B model at 32k, and the larger part for a 128k prompt.

    With the first `cached_tokens` of the prompt already in the KV cache (prefix caching), only the new tokens'
    queries are computed, each against everything before it: the full prompt's cost less the cached prefix's."""
    return _causal_attention_flops(arch, prompt_tokens) - _causal_attention_flops(arch, min(cached_tokens, prompt_tokens))


def _causal_attention_flops(arch: Architecture, prompt_tokens: int) -> float:
    length = float(prompt_tokens)
    if length <= 0:
        return 0.0
    window = float(arch.sliding_window or 0)
    local = min(arch.local_layers, arch.layers) if window and window < length else 0
    # a local layer's causal attention over a window w: 2 x (2 L w - w^2) x d instead of 2 x L^2 x d
    local_cost = 2.0 * (2 * length * window - window * window) if local else 0.0
    return arch.heads * arch.head_dim * ((arch.layers - local) * 2.0 * length * length + local * local_cost)


def cached_prompt_tokens(w: Workload, prompt_tokens: int) -> int:
    """The tokens of a prompt already in the KV cache from an earlier call (`w.prefix_cache_hit`): not prefilled again.
    Only a prompt length that was said (or assumed for an agent's call) is a whole call's prompt: with none, a turn is
    sized at DEFAULT_INPUT_TOKENS new tokens, its earlier turns already counted as cached."""
    if w.input_tokens is None:
        return 0
    return int(prompt_tokens * float(w.prefix_cache_hit or 0.0))


def prefill_seconds_for(w: Workload, arch: Architecture, gpu: GpuRecord, tp: int, prompt_tokens: int,
                        shared: dict[tuple[object, ...], object] | None = None, ep: int = 0,
                        fabric_gb_s: float | None = None, kind: str = "") -> float:
    """Compute-bound prefill of one prompt on a tp group: the linear layers at the weights' precision,
    attention in BF16 at about half the matmul utilisation (FlashAttention; FP8 attention is not the
    serving default), plus one read of the weights the prompt's tokens touch (for MoE, a prompt of a few
    hundred tokens routes to nearly every expert: all of them are read, not one token's share).
    `shared` (the serving search's memo, one per workload) keeps what no group size changes, per GPU type.

    With expert parallelism over `ep` GPUs across nodes (ep > tp), the prompt's attention runs on its node's tp
    GPUs while its routed experts' FLOPs and weight reads spread over all ep, and every MoE layer's dispatch and
    combine carry the prompt's tokens across the fabric.

    `kind` (the group's link, `link_kind`): over PCIe, every layer's two all-reduces carry the prompt's new tokens
    between the tp GPUs (`allreduce_seconds` at a batch of that many tokens). Over PCIe this is the larger part of a TP prefill: a
    1,024-token prompt of an 8B model moves 64 x 8 MB, about 27 ms at 20 GB/s against about 22 ms of TP2 FP8 matmuls
    on L40S (ExLlamaV2 users measured 2 RTX 3090s prefilling 3x slower with tensor parallel than split by layers,
    turboderp-org/exllamav2 issue 734, "bound by PCIe bandwidth"). Over NVLink the same bytes take about a twentieth
    of that (5-15% of a TP prefill, within the compute efficiency's own error): not counted, nor with no link given."""
    if ep > tp and arch.is_moe:
        return _expert_parallel_prefill(w, arch, gpu, tp, ep, prompt_tokens, inter_node_gb_s_per_gpu(gpu, fabric_gb_s))
    key = ("prefill_gpu", gpu.id, prompt_tokens)
    terms = shared.get(key) if shared is not None else None
    if terms is None:
        prec = w.precision or "bf16"
        peak, _label = peak_tflops(gpu, prec if prec in ("fp8", "fp32") else "bf16")
        attn_peak, _label = peak_tflops(gpu, "fp32" if prec == "fp32" else "bf16")
        cached = cached_prompt_tokens(w, prompt_tokens)
        new = prompt_tokens - cached  # a cached prefix is neither multiplied through the weights nor attended again
        w_read = weight_bytes_read_per_step(arch, prec, max(1, new))
        eff = compute_efficiency(gpu)
        terms = (2 * arch.active_params * new, peak * 1e12 * eff, prefill_attention_flops(arch, prompt_tokens, cached),
                 attn_peak * 1e12 * eff * ATTENTION_UTILISATION, w_read, gpu.memory_bandwidth_tb_s,
                 decode_efficiency(w, gpu))
        if shared is not None:
            shared[key] = terms
    linear, linear_rate, attention, attention_rate, w_read, bandwidth, efficiency = cast(
        tuple[int, float, float, float, float, float, float], terms)
    reduce_s = allreduce_seconds(arch, gpu, tp, prompt_tokens - cached_prompt_tokens(w, prompt_tokens), kind) \
        if kind == "pcie" and tp > 1 else 0.0
    return (linear / (linear_rate * tp) + attention / (attention_rate * tp)
            + decode_step_seconds(w_read / tp, bandwidth, efficiency)) + reduce_s


def _expert_parallel_prefill(w: Workload, arch: Architecture, gpu: GpuRecord, tp: int, ep: int, prompt_tokens: int,
                             link_gb_s: float) -> float:
    """`prefill_seconds_for` on an expert-parallel replica: the routed experts' share of the linear FLOPs and of the
    weight read over ep GPUs, the rest over the node's tp, plus the all-to-all of the prompt's tokens (tp GPUs each
    dispatching 1/tp of them)."""
    prec = w.precision or "bf16"
    peak, _label = peak_tflops(gpu, prec if prec in ("fp8", "fp32") else "bf16")
    attn_peak, _label = peak_tflops(gpu, "fp32" if prec == "fp32" else "bf16")
    cached = cached_prompt_tokens(w, prompt_tokens)
    new = prompt_tokens - cached
    eff = compute_efficiency(gpu)
    experts = arch.experts or 1
    routed_flops = 2 * arch.routed_params * (arch.active_experts or 1) / experts * new
    linear = 2 * arch.active_params * new
    rate = peak * 1e12 * eff
    attention = prefill_attention_flops(arch, prompt_tokens, cached) / (attn_peak * 1e12 * eff * ATTENTION_UTILISATION * tp)
    routed_read = routed_bytes_read_per_step(arch, prec, max(1, new))
    rest_read = weight_bytes_read_per_step(arch, prec, max(1, new)) - routed_read
    read = decode_step_seconds(rest_read / tp + routed_read / ep, gpu.memory_bandwidth_tb_s, decode_efficiency(w, gpu))
    a2a = expert_all_to_all_seconds(arch, new / tp, ep, tp, prec, link_gb_s, per_node=True)
    return (linear - routed_flops) / (rate * tp) + routed_flops / (rate * ep) + attention + read + a2a


def prefill_load_seconds(w: Workload, arch: Architecture, gpu: GpuRecord, tp: int, prompt_tokens: int,
                         ep: int = 0, fabric_gb_s: float | None = None, kind: str = "") -> float:
    """The replica time one request's prefill takes from everyone's decoding when requests keep arriving (what
    `loaded_step` and a replica's request capacity count), as distinct from `prefill_seconds_for`, one prompt's
    latency on an idle replica (its time to first token).

    On a tensor-parallel group the two are the same: the group's GPUs prefill one prompt at a time. With expert
    parallelism across nodes (ep > tp) every node's attention group (data-parallel attention) prefills its own
    users' prompts while the others prefill theirs, and a layer's experts serve the tokens of all of them at once:
    the prompt's FLOPs spread over all ep GPUs, and the weight read and the all-to-all, which each group pays for
    its own prompt in `prefill_seconds_for`, are shared by the ep / tp prompts in flight together. Charging the
    whole replica one prompt's latency per request, as before, gave an EP72 replica of a GB200 NVL72 one prefill at a
    time for 2,000 users (a 12 ms prefill per 256-token reply took 86% of its time), so the rack's wide expert
    parallelism never paid and GB200 came out 2.3x dearer per token than HGX B200."""
    if not (ep > tp and arch.is_moe):
        return prefill_seconds_for(w, arch, gpu, tp, prompt_tokens, ep=ep, fabric_gb_s=fabric_gb_s, kind=kind)
    prec = w.precision or "bf16"
    peak, _label = peak_tflops(gpu, prec if prec in ("fp8", "fp32") else "bf16")
    attn_peak, _label = peak_tflops(gpu, "fp32" if prec == "fp32" else "bf16")
    cached = cached_prompt_tokens(w, prompt_tokens)
    new = prompt_tokens - cached
    if new <= 0:
        return 0.0
    eff = compute_efficiency(gpu)
    groups = max(1, ep // max(1, tp))
    compute = (2 * arch.active_params * new / (peak * 1e12 * eff)
               + prefill_attention_flops(arch, prompt_tokens, cached) / (attn_peak * 1e12 * eff * ATTENTION_UTILISATION)) / ep
    routed = routed_bytes_read_per_step(arch, prec, max(1, new))
    rest = weight_bytes_read_per_step(arch, prec, max(1, new)) - routed
    read = decode_step_seconds(rest / tp + routed / ep, gpu.memory_bandwidth_tb_s, decode_efficiency(w, gpu))
    a2a = expert_all_to_all_seconds(arch, new / tp, ep, tp, prec, inter_node_gb_s_per_gpu(gpu, fabric_gb_s),
                                    per_node=True)
    return compute + (read + a2a) / groups


def estimate_inference(w: Workload, arch: Architecture, gpu: GpuRecord, plan: ClusterPlan | None = None,
                       link: str | None = None, expert_parallel: int = 0,
                       fabric_gb_s: float | None = None) -> ThroughputEstimate:
    """Decode tokens/s (per sequence and for one replica), bound, prefill time and cost per 1M tokens.

    `w.concurrency` is the batch of one replica; `plan` gives its tensor and pipeline degrees; `expert_parallel`
    > tensor parallel: the routed experts spread over that many GPUs across nodes, `fabric_gb_s` each GPU's
    inter-node bandwidth (None: the generation's default)."""
    tp = plan.tensor_parallel if plan else 1
    pp = plan.pipeline_parallel if plan else 1
    gpus = (plan.gpus_per_replica or plan.gpus) if plan else 1
    b = max(1, int(w.concurrency or 1))
    prec = w.precision or "bf16"
    kind = link_kind(link if link is not None else gpu.scaleup_link)
    ctx, ctx_why = context_tokens(w)
    ep = expert_parallel if expert_parallel > tp and pp == 1 and arch.is_moe else 0
    step, mem_s, comp_s, comm_s = decode_step_seconds_for(w, arch, gpu, tp, pp, b, kind, ep, fabric_gb_s)
    prompt = prefill_tokens(w)
    pre = prefill_seconds_for(w, arch, gpu, tp, prompt, ep=ep, fabric_gb_s=fabric_gb_s, kind=kind)
    loaded = under_load(w)
    if loaded:
        load_s = prefill_load_seconds(w, arch, gpu, tp, prompt, ep=ep, fabric_gb_s=fabric_gb_s, kind=kind)
        step = loaded_step(step, b, load_s, request_shape(w)[1], think_time_s(w))
    peak, peak_label = peak_tflops(gpu, prec if prec in ("fp8", "fp32") else "bf16")
    bound = "bandwidth" if mem_s >= comp_s else "compute"
    ridge = peak * 1e12 / (gpu.memory_bandwidth_tb_s * 1e12)
    eff = decode_efficiency(w, gpu)
    inputs = {"weight_bytes_read": int(weight_bytes_read_per_step(arch, prec, b)),
              "kv_bytes_read": int(kv_cache_bytes(arch, ctx, b, 1.0 if prec == "fp8" else 2.0)), "context_tokens": ctx,
              "sequences": b, "bandwidth_tb_s": gpu.memory_bandwidth_tb_s, "bandwidth_efficiency": eff,
              "tensor_parallel": tp, "pipeline_parallel": pp, "peak_tflops": peak,
              "compute_efficiency": compute_efficiency(gpu), "allreduce_s": round(comm_s, 6),
              "memory_time_s": mem_s, "compute_time_s": comp_s, "ridge_flop_per_byte": round(ridge, 1)}
    notes = [f"{bound}-bound: ridge point {ridge:.0f} FLOP/byte ({peak_label}); context = {ctx_why}",
             "assumes an optimised server (vLLM/TGI/SGLang, CUDA graphs); eager HF generate is ~3x slower"]
    if loaded:
        notes.append("per-token time under load: new requests' prefills take their share of each replica's time")
    if vendor_serving_factor(gpu) != 1.0 and not w.bandwidth_efficiency:
        notes.append(AMD_SERVING_NOTE)
    if ep:
        fabric = inter_node_gb_s_per_gpu(gpu, fabric_gb_s)
        a2a_s = expert_all_to_all_seconds(arch, b / ep, ep, tp, prec, fabric)
        inputs.update({"expert_parallel": ep, "all_to_all_s": round(a2a_s, 6), "fabric_gb_s_per_gpu": fabric})
        notes.append(f"expert parallel x{ep} across {ep // tp} nodes: each GPU holds and reads 1/{ep} of the routed "
                     f"experts and 1/{tp} of the rest (attention tensor-parallel in its node, data-parallel across "
                     f"nodes); the MoE all-to-all (dispatch + combine, {arch.moe_layers} layers) adds {a2a_s * 1e3:.1f} "
                     f"ms per token over {fabric:g} GB/s per GPU between nodes (DeepEP low-latency kernels: "
                     f"{ALL_TO_ALL_LATENCY_S * 1e6:g} us per collective plus the bytes at {ZERO3_LINK_EFFICIENCY:.0%} of the "
                     "link; experts assumed balanced, as DeepSeek's EPLB keeps them with redundant copies)")
    elif tp > 1:
        over = fast_link_name(link or gpu.scaleup_link) if kind == "fast" else "PCIe"
        notes.append(f"tensor parallel x{tp} over {over}: each GPU reads 1/{tp} of the weights; the all-reduces add "
                     f"{comm_s * 1e3:.1f} ms per token")
    if arch.is_mla:
        notes.append("MLA attention counted as its own compute-bound kernel (up-projections absorbed, as FlashMLA runs it: "
                     f"{mla_decode_attention_flops(arch, 1) / 1e6:.0f} MFLOP per cached token, BF16), added to the "
                     "weight-bound linear layers rather than hidden under them")
    moe_s = moe_layer_seconds(arch)
    moe_term = f" + MoE layers x {MOE_LAYER_DECODE_S * 1e3:g} ms" if moe_s else ""
    formula = f"1 / (max(bytes / (bandwidth x eff), FLOPs / (peak x eff)) + all-reduce time{moe_term})"
    if moe_s:
        inputs["moe_layer_s"] = round(moe_s, 6)
        notes.append(f"MoE routing and expert kernels add {moe_s * 1e3:.1f} ms per token ({arch.moe_layers} MoE layers x "
                     f"{MOE_LAYER_DECODE_S * 1e3:.2f} ms, fitted on vLLM runs of Qwen3-30B-A3B and DeepSeek-V3): at a "
                     "few users an MoE decodes well below what its active parameters alone suggest")
    per_seq = figure(1 / step, "tokens/s", formula, inputs, notes, digits=1)
    agg_value = b / step
    agg = figure(agg_value, "tokens/s", "sequences / step time (one replica)", {**inputs, "gpus_per_replica": gpus}, digits=1)
    cached = cached_prompt_tokens(w, prompt)
    prefill = figure(pre, "s", "2 x N_active x prompt tokens / (peak x eff x tp) + 2 x layers x prompt² x heads x head_dim / "
                     "(BF16 peak x eff x attention utilisation x tp) + one weight read"
                     + (" (prompt tokens: those not in the prefix cache; attention: their queries over the whole prompt)"
                        if cached else ""),
                     {"input_tokens": prompt, "attention_flops": prefill_attention_flops(arch, prompt, cached),
                      "attention_utilisation": ATTENTION_UTILISATION,
                      **({"prefix_cached_tokens": cached} if cached else {})}, digits=4,
                     notes=((f"a call whose first {cached:,} tokens are in the prefix cache (the conversation so far); "
                             f"a session's first call prefills all {prompt:,}",) if cached else ()))
    replicas = math.ceil(w.target_tokens_per_s / agg_value) if w.target_tokens_per_s and agg_value > 0 else None
    cost = None
    if w.hourly_rate:
        cost = cloud_cost_per_1m_tokens(w.hourly_rate, gpus, agg_value, w.utilization or 1.0)
    elif gpu.purchase_price_usd:
        cost = cost_per_1m_tokens(gpu.purchase_price_usd * gpus, w.utilization or 0.7, agg_value, tdp_w=gpu.tdp_w or 0, num_gpus=gpus)
    return ThroughputEstimate(decode_tokens_per_s=agg, decode_tokens_per_s_per_sequence=per_seq, prefill_seconds=prefill,
                              ttft_s=prefill, bound=bound, replicas=replicas, cost_per_1m_tokens_usd=cost, notes=tuple(notes))


def cost_per_1m_tokens(hardware_cost_usd: float, utilization: float, tokens_per_s: float, *, lifetime_years: float = 3.0,
                       usd_per_kwh: float = 0.12, tdp_w: float = 400.0, num_gpus: int = 1) -> Figure:
    """Owned hardware: (hardware / lifetime + TDP x $/kWh, per second, around the clock)
    / (tokens/s x utilisation). Excludes networking, storage, cooling overhead and ops labour."""
    lifetime_s = lifetime_years * HOURS_PER_YEAR * SECONDS_PER_HOUR
    hw_s = hardware_cost_usd / lifetime_s if lifetime_s > 0 else 0.0
    power_s = tdp_w * num_gpus / 1000 / SECONDS_PER_HOUR * usd_per_kwh
    eff = tokens_per_s * utilization
    value = (hw_s + power_s) / eff * 1e6 if eff > 0 else 0.0
    return figure(value, "USD/1M tokens", "(hardware / lifetime + TDP x $/kWh) per s / (tokens/s x utilisation) x 1e6",
                  {"hardware_cost_usd": hardware_cost_usd, "utilization": utilization, "tokens_per_s": tokens_per_s,
                   "lifetime_years": lifetime_years, "usd_per_kwh": usd_per_kwh, "tdp_w": tdp_w, "num_gpus": num_gpus},
                  ("power billed at TDP around the clock; excludes networking, cooling and ops labour",), digits=4)


def cloud_cost_per_1m_tokens(usd_per_gpu_hour: float, gpus: int, tokens_per_s: float, utilization: float = 1.0) -> Figure:
    eff = tokens_per_s * utilization * SECONDS_PER_HOUR
    value = usd_per_gpu_hour * gpus / eff * 1e6 if eff > 0 else 0.0
    return figure(value, "USD/1M tokens", "rate x gpus / (tokens/s x utilisation x 3600) x 1e6",
                  {"usd_per_gpu_hour": usd_per_gpu_hour, "gpus": gpus, "tokens_per_s": tokens_per_s, "utilization": utilization}, digits=4)


def buy_vs_rent_break_even(hardware_cost_usd: float, rent_usd_per_hour: float, *, tdp_w: float = 0.0, num_gpus: int = 1,
                           usd_per_kwh: float = 0.12, space_usd_per_hour: float = 0.0) -> Figure:
    """Busy hours after which owning is cheaper: hardware / (rent per hour - power per hour - space per hour).
    `space_usd_per_hour`: the rack space the owned servers rent (colocation), for all of them."""
    power_h = tdp_w * num_gpus / 1000 * usd_per_kwh
    margin = rent_usd_per_hour - power_h - space_usd_per_hour
    hours = hardware_cost_usd / margin if margin > 0 else math.inf
    notes = ("renting never costs more than the power and space: owning never breaks even",) if margin <= 0 else ()
    return figure(hours if math.isfinite(hours) else 0.0, "hours",
                  "hardware / (rent per hour - TDP x $/kWh - colocation per hour)",
                  {"hardware_cost_usd": hardware_cost_usd, "rent_usd_per_hour": rent_usd_per_hour, "power_usd_per_hour": power_h,
                   "space_usd_per_hour": space_usd_per_hour},
                  notes, digits=0)
