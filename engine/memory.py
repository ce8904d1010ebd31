"""Peak GPU memory for a workload: weights, gradients, optimizer, activations, KV cache, adapters.

Everything is computed in integer-ish bytes on the busiest GPU of a (data x tensor x pipeline)
layout and reported as decimal GB `Figure`s that carry their formula. Sources:
- mixed-precision Adam at 18 bytes/param (bf16 weights, fp32 gradients, master copy and two moments), 16 with 16-bit gradients
  (ZeRO paper), 8 for pure-BF16 AdamW, 8-bit Adam moments at 2 bytes;
- activations per Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large Transformer
  Models"), generalised to GQA widths, SwiGLU FFN widths and fp32 RMSNorm upcasts, no dropout;
- KV cache = 2 x layers x kv_heads x head_dim x tokens x bytes (KV heads, not attention heads, under GQA), MLA latent for DeepSeek;
- QLoRA NF4 at 0.5 byte/param + blocksize-64 absmax constants (Dettmers et al. 2023).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict

from catalog.records import GpuRecord
from engine.architecture import Architecture, lora_trainable_params
from engine.models import Figure, MemoryEstimate, Workload, sequences_per_example
from engine.rl import critic_ratio, reward_ratio, runs_reference
from engine.units import GB, bytes_per_element, figure

Recipe = Literal["amp_fp32_grads", "amp_bf16_grads", "pure_bf16"]
DEFAULT_HEADROOM = 0.10  # PyTorch's caching allocator fragments; jobs OOM at 85-90% of capacity
DEFAULT_OVERHEAD_GB = 1.0  # CUDA context (~0.5 GB) + cuBLAS/NCCL workspaces and allocator slack
NF4_DQ_BITS = 0.127  # QLoRA paper: double-quantised absmax constants, bits per parameter
NF4_BITS = 0.5  # one fp32 absmax per 64-weight block without double quantisation
INT4_GROUP_BYTES = 4 / 128  # GPTQ/AWQ group 128: fp16 scale + fp16 zero per 128 weights


class MemoryOptions(BaseModel):
    """Knobs the Workload does not carry: which mixed-precision recipe, and switches that let a test
    run a source "with its assumptions" (no activations, no overhead)."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    recipe: Recipe = "amp_fp32_grads"  # 18 B/param Adam; "amp_bf16_grads" = 16 (ZeRO paper)
    include_activations: bool = True
    include_buffers: bool = True  # ZeRO-3 all-gather / NF4 dequantisation working buffers
    optimizer_in_backward: bool = False  # step each parameter as its gradient lands: no full gradient buffer
    activation_offload: bool = False  # checkpointed layer inputs kept in host memory (torchtune offloading)
    # weights, gradients and optimizer state kept in host memory, each layer brought to the GPU as it runs (FSDP
    # CPUOffload(offload_params=True), DeepSpeed ZeRO-Offload): how Answer.AI's fsdp_qlora fits a 70B QLoRA on two 24 GB cards
    state_offload: bool = False
    overhead_gb: float | None = None  # None: DEFAULT_OVERHEAD_GB
    double_quant: bool = True  # QLoRA NF4 double quantisation (the QLoRA paper default)
    logits_bytes_per_element: float = 6.0  # bf16 logits + fp32 upcast for the loss
    loss_chunks: int = 1  # chunked cross-entropy (torchtune default 8) divides the logits peak
    prefill_chunk_tokens: int = 2048  # inference: tokens per prefill chunk (vLLM-style chunked prefill)


DEFAULT_OPTIONS = MemoryOptions()


@dataclass(frozen=True)
class Layout:
    """How `gpus` GPUs split the work: data x tensor x pipeline, and the ZeRO stage over data."""

    gpus: int
    dp: int
    tp: int
    pp: int
    zero_stage: int
    # ZeRO-3 sharded within groups of this many data-parallel replicas (one node) and replicated across them: FSDP
    # HYBRID_SHARD, DeepSpeed ZeRO++ hpZ. 0: sharded over all `dp` replicas
    shard: int = 0
    # serving an MoE with expert parallelism across nodes: the routed experts spread over this many GPUs (the whole
    # replica, several nodes), attention tensor-parallel `tp` ways inside each node and data-parallel across them
    # (SGLang --enable-dp-attention with DeepEP, vLLM data parallel + --enable-expert-parallel). 0: none
    ep: int = 0

    @property
    def attention_groups(self) -> int:
        """Data-parallel attention groups of an expert-parallel replica (one per node), each holding the KV cache of
        its own sequences; 1 otherwise."""
        return self.ep // self.tp if self.ep > self.tp else 1

    @property
    def shard_group(self) -> int:
        """The data-parallel replicas ZeRO shards state over: the node's under hybrid sharding, else all of them."""
        return self.shard or self.dp


def resolve_layout(w: Workload, gpus: int = 1, tensor_parallel: int | None = None,
                   pipeline_parallel: int | None = None, zero_stage: int | None = None, shard: int = 0,
                   expert_parallel: int = 0) -> Layout:
    gpus = max(1, int(gpus or 1))
    inference = w.mode == "inference"
    tp = max(1, int(tensor_parallel or w.tensor_parallel or (gpus if inference else 1)))
    pp = max(1, int(pipeline_parallel or w.pipeline_parallel or 1))
    tp = min(tp, gpus)
    pp = max(1, min(pp, gpus // tp))
    z = zero_stage if zero_stage is not None else (w.zero_stage or 0)
    dp = max(1, gpus // (tp * pp))
    hybrid = shard if not inference and int(z) >= 3 and 1 < shard < dp and dp % shard == 0 else 0
    ep = expert_parallel if inference and pp == 1 and expert_parallel > tp and gpus % expert_parallel == 0 else 0
    return Layout(gpus=gpus, dp=dp, tp=tp, pp=pp, zero_stage=0 if inference else int(z), shard=hybrid, ep=ep)


def kv_cache_bytes(arch: Architecture, seq_len: int, sequences: int, bytes_per_element: float = 2.0) -> int:
    """2 x layers x kv_heads x head_dim x seq_len x sequences x bytes (GQA/MQA via kv_heads);
    MLA caches (kv_lora_rank + rope_dim) per token per layer instead. Local-attention layers (sliding
    window, chunked attention) hold at most their window: vLLM's and SGLang's hybrid KV allocators
    size them so."""
    per_token = arch.kv_values_per_token_per_layer * bytes_per_element
    return int(per_token * arch.attended_tokens(int(seq_len or 0)) * max(0, int(sequences or 0)))


def optimizer_bytes_per_param(mode: str | None, precision: str | None, optimizer: str | None,
                              recipe: Recipe = "amp_fp32_grads") -> dict[str, float]:
    """Bytes per trained parameter for weights, gradients and optimizer state (master copy + moments).

    amp_fp32_grads: 2 + 4 + (4 master + 4 m + 4 v) = 18; amp_bf16_grads: 16 (ZeRO paper);
    pure_bf16: 2 + 2 + 4 = 8; fp32 training: 4 + 4 + 8 = 16. 8-bit Adam keeps m and v at 1 byte each;
    SGD keeps one momentum buffer.
    """
    if precision == "fp32":
        weights, grads, master, state = 4.0, 4.0, 0.0, 4.0
    elif recipe == "pure_bf16":
        weights, grads, master, state = 2.0, 2.0, 0.0, 2.0
    else:
        weights, grads, master, state = 2.0, (2.0 if recipe == "amp_bf16_grads" else 4.0), 4.0, 4.0
    opt = optimizer or "adamw"
    moments = 2 * state if opt == "adamw" else (2.0 if opt in ("adamw_8bit", "paged_adamw_8bit") else state)
    return {"weights": weights, "gradients": grads, "optimizer": master + moments}


def _ffn_width(arch: Architecture, moe: bool) -> int:
    if moe:
        return ((arch.active_experts or arch.experts or 1) + arch.shared_experts) * (arch.moe_ffn or arch.ffn)
    return arch.ffn


def layer_activation_bytes(arch: Architecture, seq_len: int, batch: int, flash: bool, moe_layer: bool = False) -> int:
    """Bytes one layer saves for backward (16-bit activations), Korthikanti et al. 2022 generalised.

    attention: input, Q, K, V, output (GQA narrows K/V): 2sb(h + 2q + 2kv); without flash attention
    also the 5·a·s²·b score/softmax/dropout term. MLP: input 2sbh + 8sbf for SwiGLU (gate, up, act,
    product) or 4sbf for a GELU MLP. Two RMSNorms each keep a bf16 input and an fp32 upcast: 12sbh.
    A GPT with f = 4h, MHA and dropout gives the paper's 34sbh + 5as²b.
    """
    s, b, h = int(seq_len), int(batch), arch.hidden
    q = arch.heads * arch.head_dim
    kv = q if arch.is_mla else arch.kv_heads * arch.head_dim
    f = _ffn_width(arch, moe_layer)
    attn = 2 * s * b * (h + 2 * q + 2 * kv)
    scores = 0 if flash else 5 * arch.heads * s * s * b
    mlp = 2 * s * b * h + (8 if arch.gated_mlp else 4) * s * b * f
    norms = 12 * s * b * h
    return attn + scores + mlp + norms


def activation_bytes(arch: Architecture, seq_len: int, batch: int, flash: bool, checkpointing: bool, tp: int = 1) -> int:
    """Activations held at the backward peak on one GPU. Without recomputation: every layer's saved
    tensors. Full checkpointing: each layer's 2sbh input plus one layer's working set recomputed.
    Tensor parallel (with sequence parallelism) divides by tp; pipeline parallel does not reduce the
    first stage's peak under 1F1B (it holds pp micro-batches of L/pp layers)."""
    dense = layer_activation_bytes(arch, seq_len, batch, flash, False)
    moe = layer_activation_bytes(arch, seq_len, batch, flash, True) if arch.is_moe else dense
    n_moe = arch.moe_layers
    n_dense = arch.layers - n_moe
    if checkpointing:
        total = 2 * seq_len * batch * arch.hidden * arch.layers + max(dense, moe if n_moe else 0)
    else:
        total = dense * n_dense + moe * n_moe
    return int(total / max(1, tp))


def _weights_for_shard(arch: Architecture, layout: Layout) -> float:
    """Parameters on the busiest GPU before ZeRO: the biggest pipeline stage, split tp ways; with expert parallelism
    across nodes, the routed experts split over all `ep` GPUs and the rest (attention, shared experts, dense layers,
    embeddings) tp ways inside each node."""
    if layout.ep > layout.tp:
        routed = arch.routed_params
        return (arch.total_params - routed) / layout.tp + routed / layout.ep
    edge = arch.embedding_params + arch.head_params
    body = arch.total_params - edge
    if layout.pp > 1:
        stage = body * math.ceil(arch.layers / layout.pp) / max(1, arch.layers) + max(arch.embedding_params, arch.head_params)
    else:
        stage = arch.total_params
    return stage / layout.tp


Part = tuple[float, str, dict, tuple[str, ...]]  # bytes, formula, inputs, notes
# what CPU offload moves to host memory: the state, not the working set (activations, logits, gathered layers)
OFFLOADED_PARTS = ("weights_gb", "gradients_gb", "optimizer_gb", "quant_constants_gb", "adapter_gb", "reference_gb",
                   "critic_gb", "reward_model_gb")
# the policy's state a PPO value model repeats at its own size (engine.rl.critic_ratio): a second trained network
CRITIC_STATE_PARTS = ("weights_gb", "gradients_gb", "optimizer_gb", "quant_constants_gb", "adapter_gb")
CRITIC_MEMORY_NOTE = ("PPO trains a value model (critic) beside the policy (OpenRLHF, verl, TRL's PPOTrainer): its own "
                      "weights, gradients and optimizer state, sharded and split as the policy's; it trains after the "
                      "policy in each step, so its activations reuse the policy's")
REWARD_MEMORY_NOTE = ("a reward model scores every completion: its frozen weights are held in BF16 beside the policy, "
                      "sharded as a reference copy is")
REFERENCE_MEMORY_NOTE = ("DPO compares the policy with a frozen reference model (TRL's DPOTrainer keeps a second copy of "
                         "the weights in the training dtype, prepared with the same ZeRO-3/FSDP sharding); LoRA and QLoRA "
                         "need none: the reference is the base with the adapter disabled (TRL with PEFT and ref_model=None)")
PAIR_ACTIVATION_NOTE = ("preference pairs: chosen and rejected are concatenated into one forward (TRL), so a micro-batch "
                        "of pairs holds twice its sequences' activations and logits")


def holds_reference(w: Workload) -> bool:
    """A full-parameter DPO run keeps a frozen reference copy of the weights resident. LoRA/QLoRA DPO disables the
    adapter for the reference pass (no copy); reference-free objectives (ORPO, SimPO) and SFT have none. Online RL
    (GRPO, PPO) holds one when its KL coefficient beta is above 0 (TRL loads no reference at beta 0)."""
    return w.mode == "full" and (w.objective == "dpo" or runs_reference(w))  # RL with beta > 0 too (engine.rl)


def reference_bytes_per_param(w: Workload) -> float:
    """The reference copy's bytes per parameter: the training dtype's weights (BF16 unless FP32 training), no
    gradients or optimizer state (it is never updated)."""
    return 4.0 if w.precision == "fp32" else 2.0


def _training_parts(w: Workload, arch: Architecture, lay: Layout, o: MemoryOptions) -> dict[str, Part]:
    shard = _weights_for_shard(arch, lay)
    d, z = lay.shard_group, lay.zero_stage
    parts: dict[str, Part] = {}
    zin = {"params_on_gpu": int(shard), "data_parallel": d, "zero_stage": z, **({"hybrid_shard_group": d} if lay.shard else {})}
    if w.mode in ("full", "pretrain"):
        bpp = optimizer_bytes_per_param(w.mode, w.precision, w.optimizer, o.recipe)
        for name, key, stage in (("weights_gb", "weights", 3), ("gradients_gb", "gradients", 2), ("optimizer_gb", "optimizer", 1)):
            div = d if z >= stage else 1
            parts[name] = (shard * bpp[key] / div, f"params x {bpp[key]:g} B / {div} (ZeRO-{stage}+ shards {key} over data-parallel GPUs)",
                           {**zin, "bytes_per_param": bpp[key]}, ())
        if o.optimizer_in_backward:
            parts["gradients_gb"] = (0.0, "optimizer step fused into backward: gradients freed as produced", {}, ())
        parts["optimizer_gb"] = (*parts["optimizer_gb"][:3], (
            f"{o.recipe}, {w.optimizer or 'adamw'}: {sum(bpp.values()):g} bytes/param in total "
            "(2 bf16 weights + 4 fp32 grads + 4 master + 4 m + 4 v = 18 by default; the ZeRO paper's 16 uses bf16 grads)",))
        if holds_reference(w):
            rbpe = reference_bytes_per_param(w)
            div = d if z >= 3 else 1
            parts["reference_gb"] = (shard * rbpe / div, f"frozen reference model: params x {rbpe:g} B / {div} (a copy of "
                                     "the weights, split and sharded as the policy's)", {**zin, "bytes_per_param": rbpe},
                                     (REFERENCE_MEMORY_NOTE,))
    else:
        div = d if z >= 3 else 1
        if w.mode == "qlora":
            linear = shard * arch.linear_params / arch.total_params
            base = linear * 0.5 + (shard - linear) * 2
            if w.adapter_overhead_gb is not None:  # a flat "params x 0.5 bytes" allowance, when the user gives one
                linear, base = shard, shard * 0.5
            parts["weights_gb"] = (base / div, "linear params x 0.5 B (NF4) + embeddings/norms x 2 B (kept in bf16)",
                                   {**zin, "linear_params": int(linear)}, ())
        else:
            bpe = bytes_per_element(w.precision if w.precision in ("bf16", "fp16", "fp32", "fp8", "int8") else "bf16")
            parts["weights_gb"] = (shard * bpe / div, f"frozen base params x {bpe:g} B", {**zin, "bytes_per_param": bpe}, ())
        if w.adapter_overhead_gb is not None:
            if o.state_offload:
                parts["weights_gb"] = (0.0, "in host memory (CPU offload)", *parts["weights_gb"][2:])
            parts["adapter_gb"] = (w.adapter_overhead_gb * GB, "fixed allowance given (adapter + optimizer + activations)",
                                   {"adapter_overhead_gb": w.adapter_overhead_gb}, ("article mode: no separate activation/overhead terms",))
            return parts
        if w.mode == "qlora":
            bits = NF4_DQ_BITS if o.double_quant else NF4_BITS
            parts["quant_constants_gb"] = (linear * bits / 8 / div, f"linear params x {bits} bit (blocksize-64 absmax"
                                           + (", double-quantised)" if o.double_quant else ", fp32)"), {"bits_per_param": bits}, ())
        n_adapter = lora_trainable_params(arch, w.lora_rank, w.lora_targets)
        abpp = sum(optimizer_bytes_per_param(w.mode, "bf16", w.optimizer, o.recipe).values())
        parts["adapter_gb"] = (n_adapter * abpp / lay.tp / (d if z >= 1 else 1), f"adapter params x {abpp:g} B (weights + grads + {w.optimizer or 'adamw'} state)",
                               {"adapter_params": n_adapter, "rank": w.lora_rank or 8, "targets": list(w.lora_targets or ("q_proj", "v_proj"))},
                               ("Adam runs on the adapter only; the frozen base has no gradients or optimizer state",))
    ratio = critic_ratio(w)
    if ratio:  # PPO: a value model of its own size, trained the policy's way
        state = sum(parts[name][0] for name in CRITIC_STATE_PARTS if name in parts)
        parts["critic_gb"] = (state * ratio, "the policy's weights, gradients and optimizer state x critic params / "
                              "policy params", {"critic_to_policy": round(ratio, 4)}, (CRITIC_MEMORY_NOTE,))
    rewarded = reward_ratio(w)
    if rewarded:
        div = d if z >= 3 else 1
        parts["reward_model_gb"] = (shard * rewarded * 2.0 / div, f"reward model params x 2 B / {div} (frozen, BF16)",
                                    {**zin, "reward_to_policy": round(rewarded, 4)}, (REWARD_MEMORY_NOTE,))
    if w.mode == "qlora" and o.include_buffers:  # after the critic's parts: the same order as `_training_sizer`'s sum
        buf = 2 * arch.hidden * max(arch.ffn, arch.moe_ffn or 0, arch.heads * arch.head_dim)
        parts["buffers_gb"] = (buf, "largest projection dequantised to bf16 for its matmul", {"hidden": arch.hidden}, ())
    if o.state_offload:
        for name in OFFLOADED_PARTS:
            if name in parts:
                parts[name] = (0.0, "in host memory (CPU offload)", parts[name][2], parts[name][3])
    if (z >= 3 and d > 1 or o.state_offload) and o.include_buffers:
        layer = (arch.total_params - arch.embedding_params - arch.head_params) / max(1, arch.layers) / lay.tp
        gathered_bpp = 0.5 + NF4_DQ_BITS / 8 if w.mode == "qlora" else (4.0 if w.precision == "fp32" else 2.0)
        parts["buffers_gb"] = (parts.get("buffers_gb", (0,))[0] + 2 * gathered_bpp * layer,
                               f"ZeRO-3/FSDP all-gather: 2 layers of params at {gathered_bpp:g} B (current + prefetch)",
                               {"layer_params": int(layer)}, ())
    s, b = int(w.seq_len or 2048), int(w.batch_size or 1) * sequences_per_example(w.objective)
    flash = True if w.flash_attention is None else w.flash_attention
    ckpt = bool(w.gradient_checkpointing)
    if o.include_activations:
        act: float = activation_bytes(arch, s, b, flash, ckpt, lay.tp)
        if ckpt and o.activation_offload:
            act -= 2 * s * b * arch.hidden * arch.layers / lay.tp
        parts["activations_gb"] = (act,
                                   "checkpointed: 2sbh x layers + one layer's working set" if ckpt else
                                   "layers x sb(2h + 4q + 4kv + 2h + 8f + 12h)" + ("" if flash else " + 5as²b"),
                                   {"seq_len": s, "micro_batch": b, "flash_attention": flash, "gradient_checkpointing": ckpt,
                                    "hidden": arch.hidden, "ffn": _ffn_width(arch, arch.is_moe), "layers": arch.layers, "tensor_parallel": lay.tp},
                                   ("Korthikanti et al. 2022 per-layer accounting with the model's real widths; no dropout; fp32 RMSNorm upcasts",
                                    *((PAIR_ACTIVATION_NOTE,) if sequences_per_example(w.objective) > 1 else ())))
        parts["logits_gb"] = (s * b * arch.vocab * o.logits_bytes_per_element / max(1, o.loss_chunks) / lay.tp,
                              f"seq x batch x vocab x {o.logits_bytes_per_element:g} B / {o.loss_chunks} loss chunk(s)",
                              {"vocab": arch.vocab, "loss_chunks": o.loss_chunks}, ("bf16 logits + fp32 copy for cross-entropy",))
    return parts


def _inference_parts(w: Workload, arch: Architecture, lay: Layout, o: MemoryOptions) -> dict[str, Part]:
    shard = _weights_for_shard(arch, lay)
    prec = w.precision or "bf16"
    linear = shard * arch.linear_params / arch.total_params
    parts: dict[str, Part] = {}
    if w.weight_bits and prec in ("int8", "int4"):  # a GGUF file: every tensor quantised, embeddings too
        parts["weights_gb"] = (shard * w.weight_bits / 8, f"params x {w.weight_bits:g} bits / 8 (GGUF, scales included)",
                               {"params_on_gpu": int(shard), "precision": prec, "bits_per_weight": w.weight_bits}, ())
    elif prec in ("fp8", "int8", "int4", "nf4"):  # quantised checkpoints keep embeddings/norms in 16-bit
        q = bytes_per_element(prec)
        parts["weights_gb"] = (linear * q + (shard - linear) * 2, f"linear params x {q:g} B + embeddings/norms x 2 B",
                               {"params_on_gpu": int(shard), "precision": prec}, ())
        const = {"int4": INT4_GROUP_BYTES, "nf4": (NF4_DQ_BITS if o.double_quant else NF4_BITS) / 8}.get(prec, 0.0)
        if const:
            parts["quant_constants_gb"] = (linear * const, f"linear params x {const:.4f} B (group scales/zeros)", {"bytes_per_param": const}, ())
    else:
        bpe = bytes_per_element(prec)
        parts["weights_gb"] = (shard * bpe, f"params x {bpe:g} B", {"params_on_gpu": int(shard), "precision": prec}, ())
    if arch.vision_params and (w.images_per_request or 0) > 0:
        # a VLM served with images: vLLM loads its vision encoder beside the text model, unquantized, sharded as TP
        parts["vision_encoder_gb"] = (arch.vision_params * 2 / lay.tp, "vision encoder params x 2 B (BF16) / tp",
                                      {"vision_params": arch.vision_params, "tp": lay.tp}, ())
    s, n = int(w.seq_len or 2048), int(w.concurrency or 1)
    kv_bpe = 1.0 if prec == "fp8" else 2.0
    # GQA heads split over TP ranks (replicated past kv_heads); an MLA latent has no heads to split, and is
    # served with data-parallel attention (SGLang --enable-dp-attention, vLLM DP+EP): each rank holds the
    # cache of its own sequences, so the group's cache is divided by its size
    split = (lay.tp if arch.is_mla else min(lay.tp, arch.kv_heads)) * lay.attention_groups
    stage = math.ceil(arch.layers / lay.pp) / arch.layers
    parts["kv_cache_gb"] = (kv_cache_bytes(arch, s, n, kv_bpe) * stage / split,
                            "2 x layers x kv_heads x head_dim x seq_len x sequences x bytes" if not arch.is_mla
                            else "layers x (kv_lora_rank + rope_dim) x seq_len x sequences x bytes (MLA)",
                            {"layers": arch.layers, "kv_heads": arch.kv_heads, "head_dim": arch.head_dim, "seq_len": s,
                             "sequences": n, "bytes_per_element": kv_bpe, "split_over_gpus": split}, ())
    chunk = min(s, o.prefill_chunk_tokens)
    f = _ffn_width(arch, arch.is_moe)
    work = 2 * chunk * (3 * arch.hidden + 2 * f) / lay.tp + n * arch.vocab * 4
    parts["activations_gb"] = (work, "prefill chunk x 2 B x (3h + 2f) + logits for each sequence's last token",
                               {"prefill_chunk_tokens": chunk}, ())
    return parts


def _components(w: Workload, arch: Architecture, layout: Layout, o: MemoryOptions) -> dict[str, Part]:
    parts = _inference_parts(w, arch, layout, o) if w.mode == "inference" else _training_parts(w, arch, layout, o)
    if w.mode == "inference" or w.adapter_overhead_gb is None:
        oh = DEFAULT_OVERHEAD_GB if o.overhead_gb is None else o.overhead_gb
        if oh:
            parts["overhead_gb"] = (oh * GB, "CUDA context + framework workspaces (stated constant)", {"overhead_gb": oh},
                                    ("measured allocator peaks (torch.cuda.max_memory_allocated) exclude this",))
    return {k: (max(0.0, float(v[0])), *v[1:]) for k, v in parts.items()}


@functools.lru_cache(maxsize=256)
def _training_sizer(w: Workload, arch: Architecture, o: MemoryOptions) -> Callable[[Layout], float]:
    """`per_gpu_bytes` for training as arithmetic only: the same parts, in the same order, as
    `_training_parts` + `_components`, without their formulas and inputs. The cluster search sizes
    hundreds of layouts per question (a 405B pre-training job tries every node count and pipeline
    depth); tests/engine/test_memory_fast_path.py holds the two equal."""
    full = w.mode in ("full", "pretrain")
    qlora = w.mode == "qlora"
    oh = DEFAULT_OVERHEAD_GB if o.overhead_gb is None else o.overhead_gb
    overhead = max(0.0, float(oh * GB)) if oh and w.adapter_overhead_gb is None else 0.0
    bpp = optimizer_bytes_per_param(w.mode, w.precision, w.optimizer, o.recipe) if full else {}
    flat = w.adapter_overhead_gb is not None
    frozen_bpe = bytes_per_element(w.precision if w.precision in ("bf16", "fp16", "fp32", "fp8", "int8") else "bf16")
    qbits = NF4_DQ_BITS if o.double_quant else NF4_BITS
    adapter = 0.0 if full or flat else (
        lora_trainable_params(arch, w.lora_rank, w.lora_targets)
        * sum(optimizer_bytes_per_param(w.mode, "bf16", w.optimizer, o.recipe).values()))
    dq_buffer = 2 * arch.hidden * max(arch.ffn, arch.moe_ffn or 0, arch.heads * arch.head_dim) if qlora and o.include_buffers else None
    gathered_bpp = 0.5 + NF4_DQ_BITS / 8 if qlora else (4.0 if w.precision == "fp32" else 2.0)
    body_per_layer = (arch.total_params - arch.embedding_params - arch.head_params) / max(1, arch.layers)
    s, b = int(w.seq_len or 2048), int(w.batch_size or 1) * sequences_per_example(w.objective)
    flash = True if w.flash_attention is None else w.flash_attention
    ckpt = bool(w.gradient_checkpointing)
    by_tp: dict[int, tuple[float, float]] = {}
    reference_bpp = reference_bytes_per_param(w) if holds_reference(w) else 0.0
    held = 0.0 if o.state_offload else 1.0  # the state's share on the GPU (OFFLOADED_PARTS)
    critic = critic_ratio(w)  # PPO: the state again at the value model's size
    rewarded = reward_ratio(w)

    def size(lay: Layout) -> float:
        shard = _weights_for_shard(arch, lay)
        d, z = lay.shard_group, lay.zero_stage
        total = 0.0
        buffers: float | None = None
        if full:
            total += max(0.0, float(shard * bpp["weights"] / (d if z >= 3 else 1))) * held
            total += 0.0 if o.optimizer_in_backward else max(0.0, float(shard * bpp["gradients"] / (d if z >= 2 else 1))) * held
            total += max(0.0, float(shard * bpp["optimizer"] / (d if z >= 1 else 1))) * held
            state = total
            if reference_bpp:
                total += max(0.0, float(shard * reference_bpp / (d if z >= 3 else 1))) * held
        else:
            div = d if z >= 3 else 1
            if qlora:
                linear = shard * arch.linear_params / arch.total_params
                base = linear * 0.5 + (shard - linear) * 2
                if flat:
                    linear, base = shard, shard * 0.5
                total += max(0.0, float(base / div)) * held
            else:
                total += max(0.0, float(shard * frozen_bpe / div)) * held
            if flat:
                return total + max(0.0, float(w.adapter_overhead_gb * GB))  # type: ignore[operator]
            if qlora:
                total += max(0.0, float(linear * qbits / 8 / div)) * held
            total += max(0.0, float(adapter / lay.tp / (d if z >= 1 else 1))) * held
            state = total
            buffers = dq_buffer
        if critic:
            total += state * critic
        if rewarded:
            total += max(0.0, float(shard * rewarded * 2.0 / (d if z >= 3 else 1))) * held
        if (z >= 3 and d > 1 or o.state_offload) and o.include_buffers:
            buffers = (buffers or 0) + 2 * gathered_bpp * (body_per_layer / lay.tp)
        if buffers is not None:
            total += max(0.0, float(buffers))
        if o.include_activations:
            acts = by_tp.get(lay.tp)
            if acts is None:
                act: float = activation_bytes(arch, s, b, flash, ckpt, lay.tp)
                if ckpt and o.activation_offload:
                    act -= 2 * s * b * arch.hidden * arch.layers / lay.tp
                logits = s * b * arch.vocab * o.logits_bytes_per_element / max(1, o.loss_chunks) / lay.tp
                acts = by_tp[lay.tp] = (max(0.0, float(act)), max(0.0, float(logits)))
            total += acts[0]
            total += acts[1]
        return total + overhead if overhead else total

    return size


def per_gpu_bytes(w: Workload, arch: Architecture, layout: Layout, options: MemoryOptions | None = None) -> float:
    """Fast path for the cluster search: the busiest GPU's total in bytes, no Figures built."""
    if w.mode != "inference":
        return _training_sizer(w, arch, options or DEFAULT_OPTIONS)(layout)
    return sum(c[0] for c in _components(w, arch, layout, options or DEFAULT_OPTIONS).values())


def usable_gb(gpu: GpuRecord, headroom: float | None) -> float:
    h = DEFAULT_HEADROOM if headroom is None else min(max(headroom, 0.0), 0.9)
    return gpu.memory_gb * (1 - h)


@functools.lru_cache(maxsize=4096)
def _figures(w: Workload, arch: Architecture, layout: Layout, opts: MemoryOptions) -> tuple[dict[str, Figure], float]:
    """The components as Figures and the per-GPU total in GB. They depend on the layout, not on the GPU,
    so the catalog search builds them once for all the GPU types a layout is planned on."""
    parts = _components(w, arch, layout, opts)
    comps = {name: figure(b / GB, "GB", formula, inputs, notes) for name, (b, formula, inputs, notes) in parts.items()}
    return comps, sum(b for b, *_ in parts.values()) / GB


def estimate_memory(w: Workload, arch: Architecture, gpus: int = 1, gpu: GpuRecord | None = None, *,
                    tensor_parallel: int | None = None, pipeline_parallel: int | None = None,
                    zero_stage: int | None = None, options: MemoryOptions | None = None, shard: int = 0,
                    expert_parallel: int = 0) -> MemoryEstimate:
    """Per-GPU peak (busiest GPU) and cluster total, with one Figure per component in decimal GB. `shard`: ZeRO-3
    within groups of that many replicas (hybrid sharding), 0 for all of them. `expert_parallel`: serving with the
    routed experts spread over that many GPUs across nodes (see Layout.ep)."""
    opts = options or DEFAULT_OPTIONS
    layout = resolve_layout(w, gpus, tensor_parallel, pipeline_parallel, zero_stage, shard, expert_parallel)
    cached, per_gpu = _figures(w, arch, layout, opts)
    comps = dict(cached)
    notes = [
        f"layout: {layout.gpus} GPU(s) = data {layout.dp} x tensor {layout.tp} x pipeline {layout.pp}"
        + (f", ZeRO stage {layout.zero_stage}" if w.mode != "inference" else "")
        + (f" sharded within groups of {layout.shard} (hybrid sharding)" if layout.shard else "")
        + (f"; routed experts split {layout.ep} ways (expert parallel), the rest {layout.tp} ways in each node"
           if layout.ep else ""),
        "decimal GB (10^9 bytes); per-GPU figures are the busiest GPU",
        *arch.notes,
    ]
    usable = fits = None
    if gpu is not None:
        usable = round(usable_gb(gpu, w.headroom), 3)
        fits = per_gpu <= usable + 1e-9
        headroom = DEFAULT_HEADROOM if w.headroom is None else w.headroom
        notes.append(f"usable = {gpu.memory_gb:g} GB x (1 - {headroom:.0%} headroom for allocator fragmentation)")
    return MemoryEstimate(per_gpu_gb=round(per_gpu, 3), total_gb=round(per_gpu * layout.gpus, 3), components=comps,
                          gpus=layout.gpus, usable_gb_per_gpu=usable, fits=fits, notes=tuple(notes))


__all__ = [
    "CRITIC_MEMORY_NOTE", "DEFAULT_HEADROOM", "DEFAULT_OVERHEAD_GB", "INT4_GROUP_BYTES", "Layout", "MemoryOptions", "NF4_BITS",
    "NF4_DQ_BITS", "OFFLOADED_PARTS", "REFERENCE_MEMORY_NOTE", "activation_bytes", "bytes_per_element",
    "estimate_memory", "holds_reference", "kv_cache_bytes", "layer_activation_bytes", "lora_trainable_params",
    "optimizer_bytes_per_param", "per_gpu_bytes", "reference_bytes_per_param", "resolve_layout", "usable_gb",
]
