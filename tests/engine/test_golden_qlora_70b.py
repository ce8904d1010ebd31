"""The worked QLoRA-70B example, to the dollar, and the same scenario under the product's defaults.

Scenario: QLoRA fine-tune of Llama-3 70B on a 500 GB corpus in S3, bare-metal H100 at $2.80/hr
vs SageMaker (+30%), 20 experiments a month. Both providers are test fixtures
(tests/engine/fixtures_catalog.py), not shipped catalog rows.

"With its assumptions" means the example's own simplifications, each an explicit override:
params 70B (not 70.55B), a fixed 12 GB adapter allowance, 6 FLOPs/param/token at 100% MFU on
989 TFLOPS (the example's rounding of 989.4), flat $0.09/GB egress, $28/month storage, and -
the example's table adds ONE run's compute (354 GPU-hours) to TWENTY pulls of egress - so one
run a month with 20 dataset pulls (`dataset_pulls_per_month`).
"""

from __future__ import annotations

import math

import pytest

from engine.advise import advise
from engine.architecture import architecture_for
from engine.cluster import plan_cluster
from engine.models import Advice, Option, Workload
from engine.tco import row_usd
from tests.engine.fixtures_catalog import catalog_data, worked_example_catalog

BM = "seed-baremetal:h100x1:any"
SM = "sagemaker:ml.p5.48xlarge:us-east-1"
SEED_OFFERS = (BM, SM)

SEED_ASSUMPTIONS = Workload(
    mode="qlora", params_b=70, precision="nf4", dataset_gb=500, dataset_tokens=1_000_000_000, epochs=3,
    runs_per_month=1, dataset_pulls_per_month=20, data_location="aws", gpu="h100-sxm", mfu=1.0,
    flops_per_token_factor=6, adapter_overhead_gb=12, egress_usd_per_gb=0.09, storage_usd_per_month=28, setup_hours_per_run=0,
)


def _seed_data():
    data = worked_example_catalog()
    return data.model_copy(update={"offers": tuple(o for o in data.offers if o.id in SEED_OFFERS)})


def _option(advice: Advice, offer_id: str) -> Option:
    return next(o for o in advice.options if o.offer_id == offer_id)


def _total(option: Option, workflow: str) -> float:
    return next(t.total_usd for t in option.tco if t.workflow == workflow)


@pytest.fixture(scope="module")
def seed() -> Advice:
    return advise(SEED_ASSUMPTIONS, _seed_data())


def test_vram_fit_one_h100(seed: Advice) -> None:
    assert not [p for p in seed.problems if p.code != "unknown_model_generic"]
    assert seed.memory is not None and seed.cluster is not None
    assert seed.memory.per_gpu_gb == pytest.approx(47, abs=1.5)  # 35 GB NF4 base + 12 GB adapter allowance
    assert seed.memory.components["weights_gb"].value == pytest.approx(35, abs=1.0)
    assert seed.cluster.gpus == 1 and seed.cluster.nodes == 1 and seed.cluster.fits
    assert not seed.cluster.needs_infiniband


def test_gpu_hours_354(seed: Advice) -> None:
    assert seed.throughput is not None and seed.throughput.gpu_hours is not None
    hours = seed.throughput.gpu_hours.value
    assert hours == pytest.approx(6 * 70e9 * 1e9 * 3 / 989e12 / 3600, rel=1e-3)
    assert round(hours) == 354


def test_tco_rows_to_the_dollar(seed: Advice) -> None:
    bm, sm = _option(seed, BM), _option(seed, SM)
    bm_cached = next(t for t in bm.tco if t.workflow == "cached")
    bm_uncached = next(t for t in bm.tco if t.workflow == "uncached")
    (sm_only,) = sm.tco
    assert sm_only.workflow == "same_cloud"
    assert round(row_usd(bm_cached, "compute")) == 991
    assert round(row_usd(sm_only, "compute") + row_usd(sm_only, "managed")) == 1288
    assert round(row_usd(bm_cached, "storage")) == 28 and round(row_usd(sm_only, "storage")) == 28
    assert round(row_usd(bm_cached, "egress")) == 45
    assert round(row_usd(bm_uncached, "egress")) == 900
    assert row_usd(sm_only, "egress") == 0
    assert seed.egress is not None and round(seed.egress["per_pull"].value) == 45


def test_totals_and_winners(seed: Advice) -> None:
    bm, sm = _option(seed, BM), _option(seed, SM)
    assert round(_total(bm, "cached")) == 1064
    assert round(_total(bm, "uncached")) == 1919
    assert round(_total(sm, "same_cloud")) == 1316
    assert round(_total(sm, "same_cloud") - _total(bm, "cached")) == 252
    assert round(_total(bm, "uncached") - _total(sm, "same_cloud")) == 603
    changes = " | ".join(seed.recommendation.what_would_change_it)
    assert "wins by $252" in changes and "wins by $603" in changes


def test_full_finetune_needs_two_nodes_and_infiniband() -> None:
    """18 bytes/param x 70B = 1,260 GB aggregate; ceil(1,260 / 80) = 16 GPUs = two 8-GPU nodes."""
    data = worked_example_catalog()
    full = SEED_ASSUMPTIONS.model_copy(update={"mode": "full", "precision": "bf16", "optimizer": "adamw",
                                               "adapter_overhead_gb": None, "zero_stage": 3})
    arch = architecture_for(None, 70)
    offer = next(o for o in data.offers if o.id == "seed-baremetal:h100x8:any")
    plan, memory = plan_cluster(full, arch, data.gpu("h100-sxm"), offer)
    state_gb = sum(memory.components[k].value for k in ("weights_gb", "gradients_gb", "optimizer_gb")) * plan.gpus
    assert state_gb == pytest.approx(1260, rel=0.01)
    assert math.ceil(1260 / 80) == 16
    # the product also counts activations, ZeRO-3 buffers and 10% headroom, so it may need more than 16
    assert plan.gpus >= 16 and plan.nodes >= 2 and plan.needs_infiniband and plan.checklist


def test_bf16_serving_of_merged_model_two_gpus() -> None:
    data = worked_example_catalog()
    serve = Workload(mode="inference", params_b=70, precision="bf16", gpu="h100-sxm", headroom=0.0,
                     seq_len=2048, concurrency=1)
    arch = architecture_for(None, 70)
    offer = next(o for o in data.offers if o.id == "seed-baremetal:h100x8:any")
    plan, memory = plan_cluster(serve, arch, data.gpu("h100-sxm"), offer)
    # 140 GB of bf16 weights split over two GPUs (+ embeddings kept whole on each tensor-parallel rank)
    assert memory.components["weights_gb"].value * plan.gpus == pytest.approx(140, rel=0.02)
    assert plan.gpus == 2


def test_quantization_table() -> None:
    advice = advise(Workload(mode="inference", params_b=70, precision="bf16"), catalog_data())
    table = {row["precision"]: row for row in advice.quantization}
    for precision, gb in (("fp32", 280), ("bf16", 140), ("int8", 70), ("int4", 35)):
        row = table[precision]
        value = row.get("weights_gb_nominal", row.get("weights_gb"))
        assert value == pytest.approx(gb, rel=0.02), precision


# --- the same scenario under the product's own defaults ------------------------------------

PRODUCT = Workload(
    mode="qlora", model="llama-3-70b", dataset_gb=500, dataset_tokens=1_000_000_000, epochs=3,
    runs_per_month=20, data_location="aws", gpu="h100-sxm",
)


@pytest.fixture(scope="module")
def product() -> Advice:
    return advise(PRODUCT, catalog_data().model_copy(
        update={"offers": tuple(o for o in catalog_data().offers if o.id in SEED_OFFERS)}))


def test_product_defaults_differ_and_say_why(product: Advice, seed: Advice) -> None:
    assert not [p for p in product.problems if p.code == "internal"]
    notes = " | ".join(product.notes)
    # AWS's tiered egress, 20 x 500 GB in one month = $891 (a flat $0.09/GB would say $900)
    bm = _option(product, BM)
    uncached = next(t for t in bm.tco if t.workflow == "uncached")
    assert round(row_usd(uncached, "egress")) == 891
    assert "$891" in notes and "a flat $0.09/GB would say $900" in notes
    # realistic MFU, so more GPU-hours than the worked example's 354 at 100% of peak
    util = product.throughput.gpu_hours.inputs["utilisation"]
    assert 0.2 <= util <= 0.7
    assert any(a.field == "mfu" and a.value is not None for a in product.assumptions)
    assert product.throughput.gpu_hours.value > seed.throughput.gpu_hours.value
    assert "never reached in practice" in notes
    # real architecture: 70.55B parameters, not 70
    assert product.effective.params_b == pytest.approx(70.55)
    # 20 full runs a month are billed as 20 runs of compute, and the reply says so
    assert "compute counts all 20 runs a month" in notes
    assert row_usd(uncached, "compute") > 20 * 991
