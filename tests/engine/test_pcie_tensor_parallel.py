"""Tensor parallel over PCIe (L40S, L4, A10, RTX cards: no NVLink). Every layer's two all-reduces cross PCIe and the
host bridge, in decode and, far larger, in a prompt's prefill; so a model that fits one card is served as one replica
per card behind a load balancer, and a larger group is taken only for the fewest cards that hold the model, a speed
a smaller group misses, or fewer GPUs. The figures are pinned to public measurements:

- NCCL all-reduce bus bandwidth over PCIe: NVIDIA/nccl issue 1639 (8 RTX 5090 on Gen5, two Xeon 8480+: 28 GB/s busbw
  at 8 GPUs, 35 at 4; NCCL's maintainer: "on PCI systems, the performance you get is usually determined by the
  bandwidth your CPU and memory can deliver"); Gen4 servers 20-25 GB/s.
- A tiny all-reduce over 8 PCIe GPUs: about 42 us (NVIDIA/nccl issue 1530, 8 RTX 4090, 8 bytes: 42.14 us).
- vLLM runs NCCL, not its own kernel, on more than two PCIe GPUs ("Custom allreduce is disabled because it's not
  supported on more than two PCIe-only GPUs", vllm/distributed/device_communicators/custom_all_reduce.py).
- vLLM's distributed serving guide: "If your model fits in a single GPU, you probably don't need to use distributed
  inference."
"""

from __future__ import annotations

import pytest

from engine.architecture import from_record
from engine.serving import PCIE_TP_FITS, PCIE_TP_SPEED, choose, pcie_tp_text
from engine.throughput import (
    ALLREDUCE_HOP_S,
    PCIE_EFFECTIVE_GB_S,
    allreduce_seconds,
    prefill_seconds_for,
    tp_link_bytes_s,
)
from tests.engine.fixtures_physics import H100_SXM, L40S, LLAMA2_70B, LLAMA3_8B, workload


def test_pcie_all_reduce_figures_are_the_published_ones() -> None:
    assert PCIE_EFFECTIVE_GB_S[4] == 20.0  # Gen4: the low end of 20-25 GB/s busbw (an 8-GPU ring crosses the host)
    assert PCIE_EFFECTIVE_GB_S[5] == 30.0  # Gen5: nccl issue 1639, 28 GB/s at 8 GPUs and 35 at 4
    assert tp_link_bytes_s(L40S, "pcie") == 20e9  # L40S is a Gen4 card
    assert ALLREDUCE_HOP_S["pcie"] == 3e-6
    # one tiny all-reduce over 8 PCIe GPUs: about the 42 us nccl-tests measures (2 per layer, so / (2 x layers))
    arch = from_record(LLAMA3_8B)
    one = allreduce_seconds(arch, L40S, 8, 1, "pcie") / (2 * arch.layers)
    assert one == pytest.approx(42e-6, rel=0.05)


def test_a_tensor_parallel_prefill_over_pcie_counts_its_all_reduces() -> None:
    """Llama 3 8B, a 1,024-token prompt on 2 L40S: the prompt's activations cross PCIe twice per layer (64 x 8 MB at
    20 GB/s, about 27 ms), about as long as the rest of the prefill; with no link given nothing is added (the figure
    pinned elsewhere), and one GPU has nothing to reduce."""
    arch = from_record(LLAMA3_8B)
    w = workload(mode="inference", precision="fp8")
    bare = prefill_seconds_for(w, arch, L40S, 2, 1024)
    pcie = prefill_seconds_for(w, arch, L40S, 2, 1024, kind="pcie")
    reduce_s = allreduce_seconds(arch, L40S, 2, 1024, "pcie")
    assert pcie == pytest.approx(bare + reduce_s, rel=1e-9)
    assert reduce_s == pytest.approx(2 * arch.layers * (2 * 3e-6 + 1024 * arch.hidden * 2 / 20e9), rel=1e-9)
    assert reduce_s > 0.8 * bare  # about as long as the matmuls and the weight read together
    assert prefill_seconds_for(w, arch, L40S, 1, 1024, kind="pcie") == prefill_seconds_for(w, arch, L40S, 1, 1024)
    # over NVLink the same bytes take about a twentieth of the time: not counted
    assert prefill_seconds_for(w, arch, H100_SXM, 2, 1024, kind="fast") == prefill_seconds_for(w, arch, H100_SXM, 2, 1024)
    assert allreduce_seconds(arch, H100_SXM, 2, 1024, "fast") < reduce_s / 10


@pytest.mark.parametrize(("update", "gpus"), [({"requests_per_s": 10.0, "concurrency": None}, 4),
                                               ({"concurrency": 100, "target_ttft_s": 2.0}, 2)])
def test_a_model_one_card_holds_is_served_as_a_replica_per_card(update: dict[str, object], gpus: int) -> None:
    """Llama 3 8B at 10 requests/s, or for 100 users with a 2 s first token, on 2-GPU L40S instances: a replica per
    card (they were TP2 replicas across PCIe, 8 GB of 43 used per card, ranked faster on paper at the same price)."""
    arch = from_record(LLAMA3_8B)
    w = workload(mode="inference", precision="fp8", seq_len=4096).model_copy(update=update)
    choice = choose(w, arch, L40S, 2, "pcie", False)
    assert choice is not None
    assert (choice.tp, choice.replicas, choice.billed_gpus) == (1, gpus, gpus)
    assert choice.pcie_tp_reason == ""
    tp2 = choose(w.model_copy(update={"tensor_parallel": 2}), arch, L40S, 2, "pcie", False)
    assert tp2 is not None and tp2.billed_gpus >= gpus
    assert tp2.pcie_tp_reason == ""  # a TP the user asked for needs no reason


def test_at_the_same_price_the_smaller_group_wins_on_pcie_only() -> None:
    """One stream of Llama 3 8B on the 2 L40S the user fixed: TP2 reads half the weights per card and is faster on
    paper, but the two cards serve as two replicas. On NVLink (H100) the faster TP2 keeps the tie."""
    arch = from_record(LLAMA3_8B)
    w = workload(mode="inference", precision="fp8", seq_len=4096, gpu_count=2)
    pcie = choose(w, arch, L40S, 2, "pcie", False)
    assert pcie is not None and (pcie.tp, pcie.replicas) == (1, 2)
    fast = choose(w, arch, H100_SXM, 2, "fast", False)
    assert fast is not None and (fast.tp, fast.replicas) == (2, 1)


def test_a_larger_pcie_group_says_why() -> None:
    """Llama 2 70B on 4-GPU L40S instances: in BF16 (138 GB) TP4 is the fewest cards that hold it; in FP8 for 20
    users TP2 holds it but cannot keep 20 tokens/s per user, so TP4 is there for the speed, and says so."""
    arch = from_record(LLAMA2_70B)
    bf16 = workload(mode="inference", precision="bf16", seq_len=4096)
    held = choose(bf16, arch, L40S, 4, "pcie", False)
    assert held is not None and held.tp == 4 and held.pcie_tp_reason == PCIE_TP_FITS
    assert pcie_tp_text(held, bf16) == ""
    fp8 = workload(mode="inference", precision="fp8", concurrency=20, seq_len=4096)
    fast = choose(fp8, arch, L40S, 4, "pcie", False)
    assert fast is not None and fast.tp == 4 and fast.pcie_tp_reason == PCIE_TP_SPEED
    assert pcie_tp_text(fast, fp8) == "for the 20 tokens/s per user"
