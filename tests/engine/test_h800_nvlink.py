"""The H800 plans as the H100 SXM5 it is, but for its NVLink: 400 GB/s (200 each way) against 900, so the
tensor-parallel all-reduces of a TP8 decode take longer and each user gets fewer tokens/s (arXiv 2505.09343:
"the NVLink bandwidth in H800 SXM nodes is reduced from 900 GB/s to 400 GB/s")."""

from __future__ import annotations

from catalog import open_catalog
from engine.advise import advise
from engine.models import Workload
from engine.throughput import link_kind, tp_link_bytes_s


def test_h800_tensor_parallel_link_is_under_half_the_h100s() -> None:
    data = open_catalog().data()
    h800, h100 = data.gpu("h800"), data.gpu("h100-sxm")
    assert h800 is not None and h100 is not None
    assert link_kind(h800.scaleup_link) == "fast"  # an NVSwitch node, its links fewer: not PCIe
    assert tp_link_bytes_s(h800, "fast") == 200e9 and tp_link_bytes_s(h100, "fast") == 450e9


def test_a_tp8_decode_on_h800_is_slower_than_on_h100_at_the_same_price() -> None:
    """Llama 3.1 405B for 50 users on 8 GPUs, both priced at $2/GPU-hour so the same plan is compared: same memory,
    same compute, only the all-reduces differ."""
    data = open_catalog().data()
    speeds = {}
    for gpu in ("h800", "h100-sxm"):
        advice = advise(Workload(mode="inference", model="llama-3.1-405b", gpu=gpu, gpu_count=8, concurrency=50,
                                 hourly_rate=2.0), data)
        assert advice.cluster is not None and advice.cluster.gpus == 8 and advice.throughput is not None
        speeds[gpu] = advice.throughput.decode_tokens_per_s_per_sequence.value
    assert speeds["h800"] < 0.99 * speeds["h100-sxm"], speeds
