"""A training job that does not fit on the GPUs the user fixed: the fixes offered are levers the plan does not
already use, each with the per-GPU peak the memory estimate gives with it on, and the list is never empty."""

from __future__ import annotations

import re

import pytest

from catalog.records import OfferRecord
from engine.advise import advise
from engine.architecture import architecture_for
from engine.cluster import plan_cluster
from engine.memory import MemoryOptions, estimate_memory, resolve_layout
from engine.models import Workload
from tests.engine.fixtures_catalog import catalog_data
from tests.engine.fixtures_physics import H100_SXM, LLAMA2_7B, LLAMA3_70B, RTX_4090, workload

QLORA_70B_ON_TWO_4090 = dict(mode="qlora", precision="nf4", optimizer="paged_adamw_8bit", lora_rank=16,
                             gradient_checkpointing=True, zero_stage=None, gpu_count=2)
TWO_CARD_BOX = OfferRecord(
    id="runpod:2x_RTX4090:CA", provider="runpod", instance_type="2x_RTX4090", gpu="rtx-4090", gpus_per_node=2,
    intra_node_link="PCIe", inter_node_fabric=None, inter_node_gbps=None, on_demand_usd_per_hour=1.38, region="CA",
    source="runpod.io/pricing", observed_on="2026-01-01")


def _fixed_note(plan) -> str:
    return next(n for n in plan.notes if "you fixed" in n)


def test_qlora_70b_on_two_24gb_cards_is_offered_cpu_offload_at_its_measured_peak() -> None:
    """Answer.AI's fsdp_qlora recipe: FSDP with the 4-bit base offloaded to the CPU fits 70B on two 24 GB cards. The
    fix list names it with the figure the estimate gives with offload on, and the levers the plan already uses
    (gradient checkpointing, micro-batch 1, FSDP sharding) are not offered again."""
    arch = architecture_for(LLAMA3_70B, None)
    w = workload(**QLORA_70B_ON_TWO_4090)
    plan, mem = plan_cluster(w, arch, RTX_4090, TWO_CARD_BOX)
    note = _fixed_note(plan)
    assert not plan.fits and plan.zero_stage == 3 and "to keep them: " in note
    offloaded = estimate_memory(w.model_copy(update={"zero_stage": 3}), arch, 2, RTX_4090, zero_stage=3,
                                options=MemoryOptions(state_offload=True))
    assert offloaded.fits and offloaded.per_gpu_gb < mem.per_gpu_gb / 2
    assert f"CPU offload of the 4-bit base and adapters (FSDP cpu_offload): {offloaded.per_gpu_gb:,.1f} GB per GPU" in note
    assert "fsdp_qlora" in note  # the speed cost, with where it was measured
    assert "512-token sequences (from 2,048)" in note and "not enough alone" in note
    for used in ("gradient checkpointing", "micro-batch", "ZeRO-3"):
        assert used not in note, note


def test_a_plan_already_sharded_and_checkpointed_is_not_offered_zero3_or_checkpointing() -> None:
    w = workload(mode="pretrain", gradient_checkpointing=True, seq_len=8192, gpu_count=4)
    plan, _ = plan_cluster(w, architecture_for(LLAMA2_7B, None), RTX_4090)
    note = _fixed_note(plan)
    assert plan.zero_stage == 3 and "data parallel x4 with ZeRO-3" in plan.parallelism
    assert "ZeRO-3 / FSDP sharding" not in note and "gradient checkpointing" not in note
    assert "LoRA" not in note  # pre-training has no adapter to fall back on
    assert "8-bit Adam" in note


def test_a_lever_that_does_not_shrink_the_plan_is_not_offered() -> None:
    """Full fine-tune of a 70B on 8 H100s with checkpointing: tensor parallel x8 already splits every byte eight
    ways, so ZeRO-3 over the same 8 GPUs would need more, not less, and is not a fix."""
    w = workload(mode="full", gradient_checkpointing=True, gpu_count=8)
    plan, mem = plan_cluster(w, architecture_for(LLAMA3_70B, None), H100_SXM)
    note = _fixed_note(plan)
    assert plan.tensor_parallel == 8 and "ZeRO-3 / FSDP sharding" not in note and "gradient checkpointing" not in note
    adam8 = re.search(r"8-bit Adam [^:]*: ([\d,.]+) GB per GPU", note)
    assert adam8 is not None
    lay = resolve_layout(w.model_copy(update={"optimizer": "adamw_8bit"}), 8, 8, 1, 0)
    rerun = estimate_memory(w.model_copy(update={"optimizer": "adamw_8bit"}), architecture_for(LLAMA3_70B, None), 8,
                            H100_SXM, tensor_parallel=lay.tp, zero_stage=0)
    assert float(adam8.group(1).replace(",", "")) == pytest.approx(rerun.per_gpu_gb, abs=0.05)
    assert rerun.per_gpu_gb < mem.per_gpu_gb


def test_when_nothing_fits_the_answer_says_so_plainly() -> None:
    """A 405B pre-training job on one 8-GPU node: no lever the estimate knows gets it there, and offload would need
    more host memory than a server has. The note says so; it never renders an empty list."""
    w = workload(mode="pretrain", gradient_checkpointing=True, gpu_count=8)
    plan, _ = plan_cluster(w, architecture_for(None, 405), H100_SXM)
    note = _fixed_note(plan)
    assert "no one change alone keeps it there: " in note and "nothing known here fits on these 8 GPU(s)" in note
    assert "CPU offload" not in note
    assert not re.search(r":\s*(;|$)", note) and " / ;" not in note


def test_levers_not_already_on_are_offered_and_together_can_fit() -> None:
    """Batch 8 without checkpointing: both are levers (with their compute cost), and when no one lever fits the
    ones that keep the method are measured together."""
    w = workload(mode="full", batch_size=8, gradient_checkpointing=False, gpu_count=1)
    plan, _ = plan_cluster(w, architecture_for(LLAMA2_7B, None), RTX_4090)
    note = _fixed_note(plan)
    assert "gradient checkpointing: " in note and "about a third more compute" in note
    assert "micro-batch 1 with gradient accumulation: " in note
    assert "these together, keeping the method: " in note and "to keep it: " in note


def test_two_4090s_are_reported_as_one_box_when_the_catalog_rents_one() -> None:
    """"QLoRA 70B on 2x RTX 4090" is one machine with two cards: the no-option report is planned on the 2-GPU offer,
    not on two 1-GPU machines joined by a fabric they do not have."""
    data = catalog_data()
    data = data.model_copy(update={"offers": (*data.offers, TWO_CARD_BOX)})
    advice = advise(Workload(mode="qlora", params_b=70, gpu="rtx-4090", gpu_count=2), data)
    assert advice.cluster is not None and not advice.cluster.fits
    assert (advice.cluster.nodes, advice.cluster.gpus_per_node) == (1, 2)
    assert "InfiniBand" not in advice.cluster.interconnect


def test_the_fixes_are_listed_as_an_engineer_tries_them_cpu_offload_last() -> None:
    """A full fine-tune of a 7B model on one 24 GB card: CPU offload gives the smallest peak, but it trades the most
    speed (the optimizer step on the CPU), so the levers that fit without it come first, smallest peak first."""
    w = workload(mode="full", gradient_checkpointing=True, gpu_count=1)
    plan, _ = plan_cluster(w, architecture_for(LLAMA2_7B, None), RTX_4090)
    note = _fixed_note(plan)
    fixes = note.split("to keep it: ", 1)[1].split("; or one GPU of ")[0].split(" / ")
    peaks = [float(re.search(r": ([\d,.]+) GB per GPU", f).group(1).replace(",", "")) for f in fixes]  # type: ignore[union-attr]
    alone = [i for i, f in enumerate(fixes) if "not enough alone" not in f]
    assert alone == list(range(len(alone))), fixes  # what fits alone first
    offload = next(i for i, f in enumerate(fixes) if f.startswith("CPU offload"))
    assert offload == alone[-1] and peaks[offload] < max(peaks[:offload]), fixes
    assert fixes[0].startswith(("LoRA", "QLoRA")), fixes
    assert peaks[:offload] == sorted(peaks[:offload])
