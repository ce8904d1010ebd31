"""Cluster planning: GPU/node counts, parallelism choice, fabric requirements, user-fixed counts."""

import math
import re

import pytest

from catalog.records import OfferRecord
from engine.architecture import architecture_for
from engine.cluster import NCCL_CHECKLIST, PROVIDER_QUESTIONS, plan_cluster
from engine.memory import MemoryOptions
from tests.engine.fixtures_physics import (
    A100_40,
    A100_80,
    H100_SXM,
    L40S,
    LLAMA2_7B,
    LLAMA3_8B,
    LLAMA3_70B,
    RTX_4090,
    T4,
    workload,
)

ARTICLE = MemoryOptions(include_activations=False, include_buffers=False, overhead_gb=0)


def test_worked_example_full_finetune_70b_two_nodes_infiniband():
    """The worked example: 18 B/param x 70B = 1,260 GB aggregate -> ceil(1260/80) = 16 GPUs, two 8-GPU nodes,
    InfiniBand required. Run with its assumptions: no activations, no overhead, no headroom."""
    plan, mem = plan_cluster(workload(mode="full", headroom=0.0), architecture_for(None, 70), H100_SXM, options=ARTICLE)
    assert (plan.gpus, plan.nodes, plan.gpus_per_node) == (16, 2, 8)
    assert mem.total_gb == pytest.approx(1260.0)
    assert plan.zero_stage == 3 and plan.needs_infiniband and plan.fits
    assert plan.checklist == NCCL_CHECKLIST and plan.provider_questions == PROVIDER_QUESTIONS


def test_worked_example_full_finetune_70b_product_defaults_needs_more():
    """With activations (checkpointed), buffers, overhead and 10% headroom the same job needs more GPUs
    than the article's 16: the article's figure is a floor."""
    plan, mem = plan_cluster(workload(mode="full", gradient_checkpointing=True), architecture_for(LLAMA3_70B, None), H100_SXM)
    assert plan.fits and plan.nodes >= 2 and plan.gpus >= 16 and plan.gpus % 8 == 0
    assert mem.per_gpu_gb <= 72.0


def test_qlora_70b_fits_one_h100_single_node_no_fabric():
    w = workload(mode="qlora", precision="nf4", optimizer="paged_adamw_8bit", gradient_checkpointing=True)
    plan, mem = plan_cluster(w, architecture_for(LLAMA3_70B, None), H100_SXM)
    assert plan.gpus == 1 and plan.nodes == 1 and not plan.needs_infiniband and not plan.needs_nvlink
    assert 40 < mem.per_gpu_gb < 72 and plan.checklist == ()


def test_inference_70b_bf16_uses_tensor_parallel_in_node():
    plan, _ = plan_cluster(workload(mode="inference", seq_len=4096, concurrency=8), architecture_for(LLAMA3_70B, None), H100_SXM)
    assert plan.nodes == 1 and plan.gpus >= 2 and plan.fits


def test_consumer_pcie_cards_get_no_tensor_parallel():
    w = workload(mode="full", gradient_checkpointing=True)
    plan, _ = plan_cluster(w, architecture_for(LLAMA2_7B, None), RTX_4090)
    assert plan.tensor_parallel == 1 and plan.fits
    assert any("PCIe-only" in n for n in plan.notes)


def test_user_fixed_count_that_does_not_fit_says_what_would():
    """The note names how many of the same GPU fit (checked by planning at that count, and one fewer)."""
    arch = architecture_for(LLAMA3_70B, None)
    plan, mem = plan_cluster(workload(mode="full", gpu_count=2), arch, A100_80)
    assert plan.gpus == 2 and not plan.fits and mem.fits is False
    note = next(n for n in plan.notes if n.startswith("does not fit on the 2 GPU(s) you fixed"))
    found = re.search(r"; or (\d+)x A100 SXM 80GB$", note)
    assert found is not None, note
    need = int(found.group(1))
    assert plan_cluster(workload(mode="full", gpu_count=need), arch, A100_80)[0].fits
    assert not plan_cluster(workload(mode="full", gpu_count=need - 1), arch, A100_80)[0].fits


def test_one_fixed_gpu_too_small_says_what_card_would_hold_it():
    """LoRA of an 8B model on one 24 GB card: besides the fixes and more of the same card, the note names the card
    size that holds it with the same 10% headroom, which a 48 GB card then does. It said only "unconstrained, it
    needs 4 GPUs", as if several consumer cards were the only way out."""
    arch = architecture_for(LLAMA3_8B, None)
    plan, mem = plan_cluster(workload(mode="lora", gpu_count=1), arch, RTX_4090)
    note = next(n for n in plan.notes if n.startswith("does not fit on the 1 GPU(s) you fixed"))
    found = re.search(r"; or one GPU of (\d+) GB or more, or (\d+)x RTX 4090$", note)
    assert found is not None, note
    card_gb, more = int(found.group(1)), int(found.group(2))
    assert card_gb == math.ceil(mem.per_gpu_gb / 0.9 - 1e-9) and 24 < card_gb <= 48, (mem.per_gpu_gb, note)
    assert plan_cluster(workload(mode="lora", gpu_count=1), arch, L40S)[0].fits
    assert plan_cluster(workload(mode="lora", gpu_count=more), arch, RTX_4090)[0].fits


def test_user_fixed_tensor_parallel_respected():
    w = workload(mode="inference", tensor_parallel=4)
    plan, _ = plan_cluster(w.model_copy(update={"gpu_count": 4}), architecture_for(LLAMA3_70B, None), H100_SXM)
    assert plan.tensor_parallel == 4 and plan.gpus == 4


def test_offer_fabric_unused_on_single_node_is_flagged():
    offer = OfferRecord(id="x:8xh100:r", provider="x", instance_type="8xh100", gpu="h100-sxm", gpus_per_node=8,
                        intra_node_link="NVLink 4 (900 GB/s)", inter_node_fabric="InfiniBand NDR 400 Gb/s x8",
                        inter_node_gbps=3200, on_demand_usd_per_hour=20.0, region="r", source="t", observed_on="2025-01-01")
    plan, _ = plan_cluster(workload(mode="lora"), architecture_for(LLAMA3_8B, None), H100_SXM, offer)
    assert plan.nodes == 1 and any("unused" in n for n in plan.notes)


def _fixes(plan) -> str:
    return next(n for n in plan.notes if n.startswith("does not fit on the"))


def test_serving_fixes_offer_only_what_runs_on_the_gpu_and_fits():
    """An 8B model in BF16 for 4 users on one T4 (16 GB, SM 7.5): vLLM runs no FP8 there, weight-only or not, so FP8 is
    not offered; int8 fits and is offered with its figure. On an A100 40GB (SM 8.0, no FP8 tensor cores) FP8 is
    weight-only and says so; where FP8 fits, integer weights (less quality for the same memory) are not offered."""
    arch = architecture_for(LLAMA3_8B, None)
    w = workload(mode="inference", precision="bf16", concurrency=4, gpu_count=1)
    t4 = _fixes(plan_cluster(w, arch, T4)[0])
    assert "FP8" not in t4 and re.search(r"int8 weights \(AWQ/GPTQ 8-bit, .*: [\d.]+ GB per GPU\)", t4), t4
    many = w.model_copy(update={"concurrency": 100})
    a100 = _fixes(plan_cluster(many, arch, A100_40)[0])
    assert "--kv-cache-dtype fp8, weight-only on this GPU: " in a100 and "int8" not in a100 and "int4" not in a100, a100


def test_moe_training_over_several_gpus_says_what_its_speed_assumes_even_without_tensor_parallel():
    """LoRA of an MoE planned as FSDP across 8 GPUs (no tensor parallel) gave its speed with no word on the stack; it
    then said "assumes expert parallelism" of a plan with none. Sharded with FSDP, the speed assumes fused expert
    kernels (Hugging Face + PEFT loops over the experts)."""
    from engine.cluster import MOE_KERNELS_NOTE, MOE_STACK_NOTE
    from tests.engine.fixtures_physics import MIXTRAL_8X7B

    plan, _ = plan_cluster(workload(mode="lora", gpu_count=8), architecture_for(MIXTRAL_8X7B, None), H100_SXM)
    assert plan.tensor_parallel == 1 and any(n.startswith(MOE_KERNELS_NOTE) for n in plan.notes), plan
    assert not any(n.startswith(MOE_STACK_NOTE) for n in plan.notes)
    one, _ = plan_cluster(workload(mode="lora", gpu_count=1, precision="bf16"), architecture_for(MIXTRAL_8X7B, None), H100_SXM)
    assert not any(n.startswith(MOE_STACK_NOTE) for n in one.notes)


def test_moe_training_on_one_gpu_says_its_speed_assumes_fused_expert_kernels():
    """LoRA of gpt-oss-20b on one H100 gave 15.5k tokens/s with no word on the stack: Hugging Face's MoE layers loop
    over the experts in training, so the figure holds only with grouped-GEMM kernels."""
    from engine.cluster import MOE_KERNELS_NOTE, MOE_STACK_NOTE
    from tests.engine.fixtures_physics import MIXTRAL_8X7B

    one, _ = plan_cluster(workload(mode="lora", gpu_count=1, precision="bf16"), architecture_for(MIXTRAL_8X7B, None), H100_SXM)
    assert any(n.startswith(MOE_KERNELS_NOTE) for n in one.notes), one.notes
    assert not any(n.startswith(MOE_STACK_NOTE) for n in one.notes)
    served, _ = plan_cluster(workload(mode="inference", gpu_count=1), architecture_for(MIXTRAL_8X7B, None), H100_SXM)
    assert not any(n.startswith(MOE_KERNELS_NOTE) for n in served.notes)
