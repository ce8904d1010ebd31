"""Preference tuning is sized as itself, not as a plain fine-tune: a full-parameter DPO holds a frozen reference copy
of the weights (BF16, split and sharded as the policy's), every pair trains two sequences (chosen and rejected), and
the reference runs forward over both (8N FLOPs per token instead of 6N). LoRA-DPO holds no copy (the reference is
the base with the adapter disabled); ORPO and SimPO hold no reference at all."""

from __future__ import annotations

import pytest

from catalog.records import CatalogData
from engine.advise import advise
from engine.architecture import architecture_for
from engine.defaults import apply_defaults
from engine.memory import estimate_memory, per_gpu_bytes, resolve_layout
from engine.models import Workload
from engine.preference import PREFERENCE_NOTE, preference_note
from engine.throughput import estimate_training, flops_per_token
from tests.engine.fixtures_physics import H100_SXM, LLAMA3_70B, workload

ARCH = architecture_for(LLAMA3_70B, None)


def _gb(w: Workload, gpus: int, tp: int, zero: int) -> float:
    return per_gpu_bytes(w, ARCH, resolve_layout(w, gpus, tp, 1, zero)) / 1e9


@pytest.mark.parametrize(("gpus", "tp", "zero", "share"), [
    (16, 4, 3, 2 / 4 / 4),  # ZeRO-3 over 4 data-parallel replicas x tensor 4: params x 2 B / 16
    (16, 4, 2, 2 / 4),  # ZeRO-2 does not shard weights: params x 2 B / tensor 4
    (8, 1, 3, 2 / 8),  # FSDP over 8
])
def test_full_dpo_per_gpu_is_sft_at_twice_the_sequences_plus_the_reference_share(gpus, tp, zero, share) -> None:
    sft = workload(model="llama-3-70b", gradient_checkpointing=True)
    dpo = sft.model_copy(update={"objective": "dpo"})
    pairs_as_sequences = sft.model_copy(update={"batch_size": 2})  # chosen + rejected in one forward
    reference = ARCH.total_params * share / 1e9
    assert _gb(dpo, gpus, tp, zero) == pytest.approx(_gb(pairs_as_sequences, gpus, tp, zero) + reference, rel=1e-9)
    mem = estimate_memory(dpo, ARCH, gpus, tensor_parallel=tp, zero_stage=zero)
    assert mem.components["reference_gb"].value == pytest.approx(reference, abs=1e-3)
    assert "frozen reference model" in mem.components["reference_gb"].formula
    assert mem.per_gpu_gb == pytest.approx(_gb(dpo, gpus, tp, zero), abs=1e-3)  # the search and the figures agree


@pytest.mark.parametrize("mode", ["lora", "qlora"])
def test_adapter_dpo_holds_no_reference_copy(mode) -> None:
    sft = workload(model="llama-3-70b", mode=mode, precision="nf4" if mode == "qlora" else "bf16",
                   gradient_checkpointing=True, lora_rank=16)
    dpo = sft.model_copy(update={"objective": "dpo"})
    assert "reference_gb" not in estimate_memory(dpo, ARCH, 8, zero_stage=3).components
    # only the pair's second sequence: LoRA-DPO at one pair per micro-batch is LoRA SFT at two sequences
    assert _gb(dpo, 8, 1, 3) == _gb(sft.model_copy(update={"batch_size": 2}), 8, 1, 3)


def test_reference_free_preference_tuning_holds_no_reference() -> None:
    orpo = workload(model="llama-3-70b", objective="orpo", gradient_checkpointing=True)
    assert "reference_gb" not in estimate_memory(orpo, ARCH, 16, tensor_parallel=4, zero_stage=3).components
    assert _gb(orpo, 16, 4, 3) == _gb(workload(model="llama-3-70b", gradient_checkpointing=True, batch_size=2), 16, 4, 3)


def test_full_dpo_flops_are_eight_n_per_token_and_lora_dpo_six() -> None:
    full, lora = workload(model="llama-3-70b"), workload(model="llama-3-70b", mode="lora")
    for sft, ratio in ((full, 8 / 6), (lora, 6 / 4)):
        dpo = sft.model_copy(update={"objective": "dpo"})
        assert flops_per_token(dpo, ARCH).value == pytest.approx(flops_per_token(sft, ARCH).value * ratio, rel=1e-6)
    orpo = full.model_copy(update={"objective": "orpo"})  # no reference forward
    assert flops_per_token(orpo, ARCH).value == flops_per_token(full, ARCH).value


def test_dpo_gpu_hours_for_n_pairs_are_sft_on_2n_sequences_times_eight_sixths(data: CatalogData) -> None:
    pairs = 50_000
    given = Workload(mode="full", model="llama-3.1-70b", dataset_examples=pairs, gradient_checkpointing=False)
    dpo, _, _ = apply_defaults(given.model_copy(update={"objective": "dpo"}), data)
    sft, _, _ = apply_defaults(given.model_copy(update={"dataset_examples": 2 * pairs}), data)
    assert dpo.dataset_tokens == sft.dataset_tokens == 2 * pairs * 1_000  # a pair is two ~1,000-token sequences
    arch = architecture_for(data.model("llama-3.1-70b"), None)
    dpo_hours = estimate_training(dpo, arch, H100_SXM, 16).gpu_hours
    sft_hours = estimate_training(sft, arch, H100_SXM, 16).gpu_hours
    assert dpo_hours is not None and sft_hours is not None
    assert dpo_hours.value == pytest.approx(sft_hours.value * 8 / 6, rel=0.002)  # within the 0.1-hour rounding


def test_checkpointing_recomputes_the_policy_only() -> None:
    """The reference runs under no_grad and keeps no activations: checkpointing re-runs the policy's forward
    (+2N), so full DPO executes 10N per token against SFT's 8N."""
    sft = workload(model="llama-3-70b", gradient_checkpointing=True)
    dpo = sft.model_copy(update={"objective": "dpo"})
    sft_t = estimate_training(sft, ARCH, H100_SXM, 8).training_tokens_per_s
    dpo_t = estimate_training(dpo, ARCH, H100_SXM, 8).training_tokens_per_s
    assert sft_t is not None and dpo_t is not None
    n, s_exec, d_exec = ARCH.active_params, sft_t.inputs["flops_per_token"], dpo_t.inputs["flops_per_token"]
    assert d_exec - s_exec == pytest.approx(2 * n + 12 * ARCH.attended_tokens(2048) * ARCH.heads * ARCH.head_dim * 2 / 6)


def test_the_answer_counts_the_reference_and_names_the_ways_to_drop_it(data: CatalogData) -> None:
    given = Workload(mode="full", model="llama-3.1-70b", dataset_examples=50_000, objective="dpo")
    advice = advise(given, data)
    assert advice.memory is not None and advice.cluster is not None and advice.cluster.fits
    ref = advice.memory.components["reference_gb"].value
    assert advice.memory.per_gpu_gb <= advice.memory.usable_gb_per_gpu  # fits with the reference counted
    [note] = [n for n in advice.notes if n.startswith(PREFERENCE_NOTE)]
    assert f"{ref:,.1f} GB per GPU on this plan" in note
    assert "precompute_ref_log_probs=True" in note and f"frees {ref:,.1f} GB per GPU" in note
    assert "LoRA-DPO" in note and "adapter disabled" in note and "8N FLOPs per token instead of 6N" in note
    assert advice.effective.dataset_tokens == 100_000_000


def test_notes_by_method_and_objective() -> None:
    lora = Workload(mode="lora", objective="dpo")
    [note] = preference_note(lora, lora, ARCH, None, None)
    assert note.startswith(PREFERENCE_NOTE + "LoRA-DPO holds no reference copy") and "6N FLOPs per token instead of 4N" in note
    orpo = Workload(mode="full", objective="orpo")
    [note] = preference_note(orpo, orpo, ARCH, None, None)
    assert "reference-free" in note and "reference copy" not in note
    assert preference_note(Workload(mode="full"), Workload(mode="full"), ARCH, None, None) == []
    assert preference_note(Workload(mode="inference", objective="dpo"), Workload(mode="inference", objective="dpo"),
                           ARCH, None, None) == []
    tokens = Workload(mode="full", objective="dpo", dataset_tokens=40_000_000)
    [note] = preference_note(tokens, tokens, ARCH, None, None)
    assert "40,000,000 tokens you gave are taken as the tokens trained" in note
