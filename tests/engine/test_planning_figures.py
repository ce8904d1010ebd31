"""Pinned figures of the planning layer: each expected value is worked out by hand in the test.

Why pinned: a constant no test pins (an all-reduce latency, a billing cap, a tie band) can drift
and move every plan without one test failing.
"""

from __future__ import annotations

import math
import re

import pytest

from catalog.records import OfferRecord
from engine.architecture import generic_architecture
from engine.models import Workload
from engine.offer_plans import lateness, slot_hours
from engine.recommend import SUSPECT_SPOT_FRACTION, TIE_FRACTION, suspect_spot
from engine.serving import (
    DEFAULT_TOKENS_PER_S_PER_USER,
    MAX_BATCH_PER_REPLICA,
    MIN_TOKENS_PER_S_PER_USER,
    _bill,
    user_floor,
)
from engine.tco import monthly_gpu_hours
from engine.throughput import ALLREDUCE_HOP_S, allreduce_seconds, link_kind, loaded_step
from engine.units import HOURS_PER_MONTH
from tests.engine.fixtures_catalog import catalog_data

DATA = catalog_data()


def test_serving_constants() -> None:
    assert MAX_BATCH_PER_REPLICA == 256  # vLLM's default max_num_seqs below 70 GiB, and on A100s
    assert MIN_TOKENS_PER_S_PER_USER == 10.0
    assert ALLREDUCE_HOP_S == {"fast": 1.5e-6, "pcie": 3e-6}  # PCIe: 42 us per tiny TP8 all-reduce (nccl issue 1530)
    assert SUSPECT_SPOT_FRACTION == 0.2 and TIE_FRACTION == 0.03


def test_allreduce_time_by_hand() -> None:
    """Llama-70B shape, TP8 over NVLink at 1 sequence: 2 all-reduces per layer x 80 layers, each 2(8-1)=14 hops
    of 1.5 us plus 2(7/8) x 16,384 bytes over half the GPU's bidirectional NVLink bandwidth."""
    arch = generic_architecture(70)
    gpu = DATA.gpu("h100-sxm")
    assert gpu is not None and gpu.scaleup_bandwidth_gb_s
    message = 1 * arch.hidden * 2
    per = 14 * 1.5e-6 + 2 * 7 / 8 * message / (gpu.scaleup_bandwidth_gb_s / 2 * 1e9)
    assert allreduce_seconds(arch, gpu, 8, 1, "fast") == pytest.approx(2 * arch.layers * per, rel=1e-9)
    assert allreduce_seconds(arch, gpu, 1, 1, "fast") == 0.0
    # PCIe hops are 2x slower per hop (42 us per tiny all-reduce over 8 PCIe GPUs, NVIDIA/nccl issue 1530): at batch 1
    # the PCIe all-reduce costs about 2x the NVLink one
    assert allreduce_seconds(arch, gpu, 8, 1, "pcie") > 1.9 * allreduce_seconds(arch, gpu, 8, 1, "fast")


def test_link_kinds() -> None:
    assert link_kind("NVLink 4 (900 GB/s)") == "fast"
    assert link_kind("NVSwitch") == "fast"
    assert link_kind("Infinity Fabric (896 GB/s)") == "fast"
    assert link_kind("NVLink bridge (600 GB/s)") == "pcie"
    assert link_kind("PCIe Gen5") == "pcie"
    assert link_kind(None) == "pcie"


def test_loaded_step_by_hand() -> None:
    """25 requests in flight, 500 output tokens at 18.9 ms, 0.37 s prefill: the prefill share x solves
    0.37 x^2 - (500 x 0.0189 + 0.37 + 25 x 0.37) x + 25 x 0.37 = 0, x = 0.490, so a token takes 0.0189 / 0.510 s
    (NVIDIA NIM measured 38.75 ms for this load against 18.6 ms alone)."""
    b = 500 * 0.0189 + 0.37 + 25 * 0.37
    x = (b - math.sqrt(b * b - 4 * 0.37 * 25 * 0.37)) / (2 * 0.37)
    assert x == pytest.approx(0.4897, abs=0.0005)
    assert loaded_step(0.0189, 25, 0.37, 500) == pytest.approx(0.0189 / (1 - x))
    assert 0.036 < loaded_step(0.0189, 25, 0.37, 500) < 0.040
    assert loaded_step(0.02, 10_000, 5.0, 10) == pytest.approx(0.02 / 0.1)  # capped at 90% busy
    assert loaded_step(0.02, 1, 0.0, 100) == 0.02


@pytest.mark.parametrize(("replicas", "group", "gpn", "nodes", "billed"), [
    (50, 1, 8, 7, 56),   # 8 one-GPU replicas per node: ceil(50 / 8) = 7 nodes
    (25, 2, 8, 7, 56),   # 4 TP2 replicas per node
    (1, 8, 8, 1, 8),
    (2, 16, 8, 4, 32),   # a replica over two nodes (pipeline), twice
    (3, 1, 1, 3, 3),     # single-GPU instances bill exactly what is used
    (1, 6, 8, 1, 8),
])
def test_replicas_pack_into_rented_nodes(replicas: int, group: int, gpn: int, nodes: int, billed: int) -> None:
    assert _bill(replicas, group, gpn) == (nodes, billed)


def test_monthly_bill_never_exceeds_gpus_times_730_hours() -> None:
    # a 2,248-hour run on 2,048 GPUs bills 2,048 x 730 GPU-hours in a month, not the whole job
    assert monthly_gpu_hours(2048 * 2248.0, 1, 2048, 2248.0) == 2048 * 730
    # a run inside the month bills its GPU-hours x runs
    assert monthly_gpu_hours(100.0, 20, 8, 12.5) == 2000.0
    assert HOURS_PER_MONTH == 730


def test_lateness_grades_by_doublings() -> None:
    w = Workload(mode="full", params_b=8)
    assert slot_hours(w) == 730
    assert lateness(w, 730.0) == 0
    assert lateness(w, 800.0) == 1
    assert lateness(w, 1460.0) == 2 and lateness(w, 2920.0) == 3
    assert lateness(Workload(mode="inference", params_b=8), 10_000.0) == 0
    spot = Workload(mode="full", params_b=8, pricing="spot")
    assert slot_hours(spot) == pytest.approx(730 / 1.1)  # the restarts' share kept free
    assert lateness(spot, 730.0) == 0 and lateness(spot, 730 * 1.1) == 1  # the month still bounds it


def test_suspect_spot_price() -> None:
    base = next(o for o in DATA.offers if o.on_demand_usd_per_hour)
    od = float(base.on_demand_usd_per_hour or 0)
    low = base.model_copy(update={"spot_usd_per_hour": od * 0.19})
    fair = base.model_copy(update={"spot_usd_per_hour": od * 0.2})
    assert suspect_spot(low) and not suspect_spot(fair)
    assert not suspect_spot(base.model_copy(update={"spot_usd_per_hour": None}))
    assert not suspect_spot(None)
    assert isinstance(base, OfferRecord) and math.isfinite(od)


def test_buy_vs_rent_counts_the_server_and_its_cooling_not_only_the_gpus() -> None:
    """8 H100s at $30k are a ~$360k server (+50% for CPUs, NICs, baseboard, chassis) drawing 1.8x the GPUs'
    TDP (DGX H100: 10.2 kW for 8 x 700 W) at PUE 1.3, in 10.1 kW of colocation space at $184.06/kW-month (CBRE's
    H2 2024 North America average asking rate, power billed on top): $1,855 a month, $2.54 an hour. Against
    $1.87/GPU-hour the margin is 8 x 1.87 - 8 x 0.7 kW x 1.8 x 1.3 x $0.12 - 2.54 = $10.85 an hour; the GPUs resell for
    20% of their $240k after 3 years (the same share lost each year: 0.2^(T / 3 years)), so owning breaks even when
    10.85 x T = 360,000 - 240,000 x 0.2^(T / 26,280): T = 29,575 busy hours, ~40 months around the clock: rent (written
    down to $0 it read 33,192 hours, 45 months; without the space 26,891, 37 months)."""
    from engine.advise import _break_even_note
    from tests.engine.fixtures_physics import H100_SXM

    gpu = H100_SXM.model_copy(update={"purchase_price_usd": 30_000.0, "tdp_w": 700.0})
    note = _break_even_note(gpu, 8, 1.87)[0]
    power = 8 * 0.7 * 1.8 * 1.3 * 0.12
    space = 8 * 0.7 * 1.8 * 184.06 / 730
    margin = 8 * 1.87 - power - space
    found = re.search(r"pay for themselves after ([\d,]+) busy hours", note)
    assert found is not None, note
    hours = float(found.group(1).replace(",", ""))
    assert margin * hours == pytest.approx(360_000 - 240_000 * 0.2 ** (hours / 26_280), abs=margin)  # to the hour
    assert "29,575 busy hours" in note and "resold for ~20% of their price after 3 years, ~$48,000" in note
    assert "colocation space for its 10.1 kW at $184/kW-month" in note and "$1,855 a month" in note, note
    assert note.startswith("buy vs rent: rent.") and "~$360,000" in note
    cheap_power = _break_even_note(gpu, 8, 8.0)[0]  # at $8/GPU-hour the server pays off in ~8 months
    assert cheap_power.startswith("buy vs rent: buying can pay off.")


def test_buy_vs_rent_against_a_marketplace_host_takes_the_cheapest_sla_rate() -> None:
    """A purchase is weighed against the rental a team would run on for years: when the pick is one marketplace
    host, the verdict uses the cheapest on-demand rate at a provider with an SLA (managed services excluded), and
    the marketplace break-even follows it. $2.69, the GPUs resold at 20% after 3 years: 8 x 2.69 - power - space =
    $17.41 an hour covers 360,000 - 240,000 x 0.2^(T / 26,280) after T = 15,270 h (21 months); over 3 years owning
    ($420k net of $48k resale) against reserved at $1.88 ($396k) is within the price's spread (this GPU's source
    quotes no range: +-25%, $342k-$498k): a close call."""
    from catalog.records import CatalogData
    from engine.advise import _break_even_note, sla_rate
    from tests.engine.fixtures_physics import H100_SXM

    gpu = H100_SXM.model_copy(update={"purchase_price_usd": 30_000.0, "tdp_w": 700.0})

    def provider(pid: str, kind: str):
        from catalog.records import ProviderRecord
        return ProviderRecord(id=pid, name=pid.title(), kind=kind, egress_tiers=(), storage_usd_per_gb_month=0.02,
                              storage_product="disk", source="test", observed_on="2026-11-01")

    def offer(pid: str, usd_per_node_hour: float):
        return OfferRecord(id=f"{pid}:8x", provider=pid, instance_type="8x", gpu=gpu.id, gpus_per_node=8,
                           intra_node_link="NVLink 4", inter_node_fabric=None, inter_node_gbps=None,
                           on_demand_usd_per_hour=usd_per_node_hour, region="r", source="test", observed_on="2026-11-01")

    data = CatalogData(gpus=(gpu,), models=(), providers=(provider("vast", "marketplace"), provider("runpod", "gpu_cloud"),
                                                          provider("sagemaker", "managed")),
                       offers=(offer("vast", 8 * 1.87), offer("runpod", 8 * 2.69), offer("sagemaker", 8 * 1.0)))
    assert sla_rate(gpu.id, data) == (2.69, "Runpod")  # the managed $1.00 and the marketplace $1.87 are not it
    note = _break_even_note(gpu, 8, 1.87, data, "vast")[0]
    power = 8 * 0.7 * 1.8 * 1.3 * 0.12
    space = 8 * 0.7 * 1.8 * 184.06 / 730  # colocation for the server's 10.1 kW
    found = re.search(r"pay for themselves after ([\d,]+) busy hours", note)
    assert found is not None, note
    hours = float(found.group(1).replace(",", ""))
    margin = 8 * 2.69 - power - space
    assert margin * hours == pytest.approx(360_000 - 240_000 * 0.2 ** (hours / 26_280), abs=margin)
    assert "against $2.69/GPU-hour (Runpod" in note
    assert note.startswith("buy vs rent: close call.") and "against a $1.87 marketplace host: ~41 months" in note
    assert "owning costs $342k-$498k across the GPU's price spread ($22,500-$37,500 each) against $396k rented" in note
    # and against committing to rent for years: on-demand less 30%, $1.883/GPU-hour -> ~40 months with the resale (45 without)
    assert "against 1-3 year reserved capacity (~30% below on-demand, $1.88/GPU-hour): ~40 months" in note
    # a pick at a provider with an SLA keeps its own rate
    assert "marketplace" not in _break_even_note(gpu, 8, 2.69, data, "runpod")[0]


def test_an_unstated_per_user_speed_is_interactive_20_tokens_per_s() -> None:
    """With no target, batches stop growing at 20 tokens/s per user (interactive chat); 10 is only the floor
    a group falls back to when even one sequence cannot reach the target."""
    from engine.models import Workload

    assert DEFAULT_TOKENS_PER_S_PER_USER == 20.0
    assert user_floor(Workload(mode="inference", concurrency=100)) == 20.0
    assert user_floor(Workload(mode="inference", concurrency=100, target_tokens_per_s_per_user=35)) == 35.0


def test_goodput_falls_with_the_gpu_count_from_1024_gpus() -> None:
    """Failures scale with the GPU count: 10% of the time lost at 16,384 GPUs (Llama 3 405B: >90% effective
    training time), proportionally less below, none counted under 1,024 GPUs, never more than 30%."""
    from engine.throughput import goodput

    assert goodput(1023) == 1.0
    assert goodput(2048) == 1 - 0.1 * 2048 / 16384  # 0.9875
    assert goodput(16384) == 0.9
    assert goodput(100_000) == 0.7


def test_moe_training_in_bf16_is_deepseeks_fp8_run_less_what_fp8_adds_to_an_moe() -> None:
    """DeepSeek-V3's own run was FP8 (arXiv 2412.19437 sec. 3.3): 2.664M H800-hours of pre-training for 14.8T tokens,
    ~35% of the BF16 peak but ~17% of the FP8 peak its matmuls ran at. Read as a BF16 figure it made a BF16 MoE run as
    fast as DeepSeek's FP8 one. The BF16 factor is that run less FP8's measured gain on an MoE (Megatron-Bridge 25.11,
    DeepSeek-V3 on 256 GB200: 3,139 tokens/s per GPU in BF16, 4,018 in MXFP8, 1.28x), not a dense model's 1.4x."""
    from engine.throughput import MOE_FP8_GAIN, MOE_TRAINING_FACTOR, default_mfu
    from tests.engine.fixtures_physics import H100_SXM

    assert pytest.approx(0.35, abs=0.01) == 6 * 37e9 * 14.8e12 / (2.664e6 * 3600) / 989.4e12
    assert pytest.approx(0.17, abs=0.01) == 6 * 37e9 * 14.8e12 / (2.664e6 * 3600) / 1978.9e12
    assert pytest.approx(4018 / 3139, abs=0.01) == MOE_FP8_GAIN
    assert pytest.approx(0.7 * 1.4 / MOE_FP8_GAIN, abs=0.01) == MOE_TRAINING_FACTOR
    dense, _ = default_mfu(H100_SXM, "lora", 8)
    moe, why = default_mfu(H100_SXM, "lora", 8, moe=True)
    assert moe == round(dense * MOE_TRAINING_FACTOR, 4)
    assert "mixture of experts in BF16" in why and "own run was FP8" in why and "4,018 in MXFP8" in why


def test_moe_training_on_hgx_blackwell_gains_less_than_the_peak_and_nvl72_is_exempt() -> None:
    """Megatron-Bridge's DeepSeek-V3 in FP8: 1,297 tokens/s per H100 (1,024 GPUs), 2,139 per HGX B200 (256), 1.65x
    where dense Llama 3 runs gained 2.1-2.3x, the BF16 peaks' ratio; GB200 NVL72 keeps expert parallelism on NVLink."""
    from engine.throughput import MOE_TRAINING_FACTOR, default_mfu
    from tests.engine.fixtures_physics import H100_SXM

    gpus = {gid: H100_SXM.model_copy(update={"id": gid, "bf16_dense_tflops": peak, "fp8_dense_tflops": 2 * peak,
                                             "scaleup_link": "NVLink 5"})
            for gid, peak in (("b200", 2250.0), ("gb200", 2500.0))}
    dense_b200, _ = default_mfu(gpus["b200"], "full", 256)
    moe_b200, why = default_mfu(gpus["b200"], "full", 256, moe=True)
    fast = moe_b200 / dense_b200 / MOE_TRAINING_FACTOR
    assert fast == pytest.approx(0.75, abs=0.01) and "faster than Hopper" in why
    # B200 against H100 for an MoE: about what Megatron-Bridge measured, not the 2.27x of the peaks
    per_gpu = (moe_b200 * 2250) / (default_mfu(H100_SXM, "full", 256, moe=True)[0] * 989.4)
    assert 1.55 < per_gpu < 1.85, per_gpu
    assert default_mfu(gpus["gb200"], "full", 256, moe=True)[0] == round(0.48 * MOE_TRAINING_FACTOR, 4)
    assert "faster than Hopper" not in default_mfu(H100_SXM, "full", 256, moe=True)[1]


def test_a_request_rate_is_served_at_80_percent_of_what_the_replicas_sustain() -> None:
    """1,000 requests/s: replicas are added until they sustain 1,250 (each at 80% of its capacity), the
    headroom that keeps bursts from queueing; one replica fewer would run above 80%."""
    from engine.architecture import from_record
    from engine.models import Workload
    from engine.serving import RATE_UTILISATION, choose
    from tests.engine.fixtures_physics import H100_SXM, LLAMA3_8B

    assert RATE_UTILISATION == 0.8
    w = Workload(mode="inference", precision="bf16", requests_per_s=1000, input_tokens=1024, output_tokens=256,
                 seq_len=1280, headroom=0.1)
    c = choose(w, from_record(LLAMA3_8B), H100_SXM, 8, "fast", True)
    assert c is not None and c.capacity_rps
    assert c.replicas * c.capacity_rps * 0.8 >= 1000 > (c.replicas - 1) * c.capacity_rps * 0.8


def test_gpus_they_own_get_no_buy_or_rent_note() -> None:
    """"We have 16 A100 40GB on prem": their GPUs are priced at their power ($0.11/GPU-hour), which the buy-or-rent
    check read as a rental too cheap to beat ("rent"), telling them to rent GPUs they own."""
    from catalog import open_catalog
    from engine.advise import advise
    from engine.models import Workload

    real = open_catalog().data()
    for tokens in (None, 10**9):  # with no token count (the cheapest per token) and with one (the pick)
        advice = advise(Workload(mode="full", params_b=13, gpu="a100-sxm-40gb", gpu_count=16, data_location="onprem",
                                 dataset_tokens=tokens), real)
        assert not any(n.startswith("buy vs rent") for n in advice.notes), advice.notes
