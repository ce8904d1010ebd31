"""Preference tuning (DPO, ORPO/SimPO): what the plan counted for it, and the ways to drop DPO's reference model.

Why its own note: "DPO on a 70B" planned as a plain fine-tune leaves out the frozen reference model a full-parameter
DPO holds (TRL's DPOTrainer keeps a second copy of the weights in the training dtype) and understates compute ~2.5x
(two sequences per pair, and the reference's forward over both). engine.memory and engine.throughput count them;
this note says so with the plan's own figures, and names the two usual ways around the reference, each sized with
the same formulas:
- `precompute_ref_log_probs=True` (TRL): the reference log-probs are computed once before training, so no copy stays
  resident; the FLOPs are the same (the forward runs, only earlier);
- LoRA-DPO: the reference is the base model with the adapter disabled (TRL with a PEFT model and `ref_model=None`):
  no second copy, and no gradients or optimizer state for the frozen base either.
ORPO and SimPO are reference-free: two sequences per pair, no reference model.
"""

from __future__ import annotations

from engine.architecture import Architecture
from engine.defaults import LORA_TARGETS_ALL
from engine.memory import estimate_memory, reference_bytes_per_param
from engine.models import ClusterPlan, MemoryEstimate, Workload

PREFERENCE_NOTE = "preference tuning: "  # read by the first message (bot/caveats.py)
LORA_DPO_NOTE = "LoRA-DPO on the same layout: "  # the figure the first message quotes


def _lora_on_layout(effective: Workload, arch: Architecture, cluster: ClusterPlan) -> float:
    """Per-GPU GB of the same DPO run as LoRA (BF16 base, rank and targets as planned or the defaults) on the plan's
    own GPUs and split: what LoRA-DPO saves, from the same memory formulas."""
    lora = effective.model_copy(update={
        "mode": "lora", "precision": "bf16", "optimizer": "adamw", "zero_stage": None,
        "lora_rank": effective.lora_rank or 16, "lora_targets": effective.lora_targets or LORA_TARGETS_ALL})
    return estimate_memory(lora, arch, cluster.gpus, tensor_parallel=cluster.tensor_parallel,
                           pipeline_parallel=cluster.pipeline_parallel, zero_stage=cluster.zero_stage).per_gpu_gb


def _tokens_said(given: Workload) -> str:
    """A token count the user gave for preference data is taken as the tokens trained (both sequences counted)."""
    if given.dataset_tokens and not given.dataset_examples:
        return (f"; the {given.dataset_tokens:,} tokens you gave are taken as the tokens trained, both sequences of "
                "each pair counted")
    return ""


def preference_note(given: Workload, effective: Workload, arch: Architecture, memory: MemoryEstimate | None,
                    cluster: ClusterPlan | None) -> list[str]:
    """One note for a preference-tuning plan (`effective.objective` "dpo" or "orpo"): what was counted and, for a
    full-parameter DPO, what precompute_ref_log_probs and LoRA-DPO each save on this plan. Nothing for SFT."""
    mode = effective.mode
    if effective.objective not in ("dpo", "orpo") or mode not in ("full", "lora", "qlora"):
        return []
    pairs = ("each pair trains two sequences (prompt + chosen, prompt + rejected), counted in the tokens and in the "
             "activations of a micro-batch" + _tokens_said(given))
    if effective.objective == "orpo":
        return [f"{PREFERENCE_NOTE}reference-free (ORPO, SimPO): no reference model is held or run; {pairs}"]
    bpe = reference_bytes_per_param(effective)
    whole = arch.total_params * bpe / 1e9
    if mode in ("lora", "qlora"):
        method = "QLoRA" if mode == "qlora" else "LoRA"
        return [f"{PREFERENCE_NOTE}{method}-DPO holds no reference copy: the reference is the base model with the "
                "adapter disabled (TRL with a PEFT model and ref_model=None); its forward over both sequences is "
                f"counted, 6N FLOPs per token instead of 4N (x1.5; precompute_ref_log_probs=True runs it once before "
                f"training, the same FLOPs); {pairs}. A full-parameter DPO would also hold a frozen copy of the "
                f"weights ({whole:,.0f} GB at {bpe:g} bytes per parameter, split over its GPUs)"]
    reference = memory.components.get("reference_gb") if memory is not None else None
    if memory is None or reference is None or cluster is None:
        return [f"{PREFERENCE_NOTE}DPO holds a frozen reference copy of the model beside the policy ({whole:,.0f} GB at "
                f"{bpe:g} bytes per parameter, split and sharded as the policy's weights) and runs it forward over "
                f"both sequences: 8N FLOPs per token instead of 6N (x1.33), counted; {pairs}. Without the copy: "
                "TRL's precompute_ref_log_probs=True (log-probs computed once before training, the same FLOPs), or "
                "LoRA-DPO (the base with the adapter disabled is the reference: reply “LoRA DPO”)"]
    ref, total = reference.value, memory.per_gpu_gb
    lora = _lora_on_layout(effective, arch, cluster)
    return [f"{PREFERENCE_NOTE}DPO holds a frozen reference copy of the model beside the policy ({whole:,.0f} GB at "
            f"{bpe:g} bytes per parameter, split and sharded as the policy's weights): {ref:,.1f} GB per GPU on this "
            f"plan, counted in its {total:,.1f} GB; the reference runs forward over both sequences of each pair, 8N "
            f"FLOPs per token instead of 6N (x1.33), counted; {pairs}. Ways to drop the copy: TRL's "
            f"precompute_ref_log_probs=True computes the reference log-probs once before training (the same FLOPs; "
            f"frees {ref:,.1f} GB per GPU: {total - ref:,.1f} GB), or LoRA-DPO, whose reference is the base with the "
            f"adapter disabled (no copy, and no gradients or Adam state for the base; {LORA_DPO_NOTE}{lora:,.1f} GB "
            "per GPU; reply “LoRA DPO”)"]


__all__ = ["LORA_DPO_NOTE", "PREFERENCE_NOTE", "preference_note"]
