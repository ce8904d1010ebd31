"""Runs a month asked for are the user's figure, and reserved GPUs are a commitment.

- "fine tune qwen3-8b on 10GB of jsonl, lora, 5 runs/month" planned one run ("$118 a month for 1 run (not 5: the
  token count is a guess)") where "… on 2.5B tokens, 5 runs a month" planned five ($570): only the bytes per token
  are guessed from a size, so the runs multiply as said.
- Reserved training runs that use a reservation part of the month are weighed against its commitment: paid for
  all 730 h, it costs less than on demand only from the busy share equal to the reserved price over the on-demand
  one (70% at the 30% discount estimated)."""

from __future__ import annotations

import pytest

from catalog.records import CatalogData
from engine.advise import advise
from engine.models import Workload
from engine.recommendation import best_tco
from engine.tco import RESERVED_PART_TIME_NOTE, reserved_commitment
from engine.units import HOURS_PER_MONTH

LORA_10GB = Workload(mode="lora", model="qwen3-8b", dataset_gb=10.0, runs_per_month=5)


def test_runs_asked_are_planned_when_the_tokens_come_from_a_size(data: CatalogData) -> None:
    advice = advise(LORA_10GB, data)
    assert advice.effective.runs_per_month == 5
    assert "runs_per_month" not in {a.field for a in advice.assumptions}  # said, so never assumed away
    tco = best_tco(advice.options[0])
    assert tco is not None and tco.per_run_usd is not None
    assert tco.total_usd == pytest.approx(5 * tco.per_run_usd, rel=0.05)  # five runs a month, storage beside them
    said = advise(LORA_10GB.model_copy(update={"dataset_gb": None, "dataset_tokens": 2_500_000_000}), data)
    assert advice.options[0].total_usd == pytest.approx(said.options[0].total_usd, rel=0.01)


def test_reserved_commitment_against_on_demand(data: CatalogData) -> None:
    w = Workload(mode="pretrain", params_b=8, dataset_tokens=500_000_000_000, gpu="b200", gpu_count=64,
                 pricing="reserved")
    advice = advise(w, data)
    pick = advice.options[0]
    commit = reserved_commitment(advice.effective, best_tco(pick), pick.cluster.gpus, pick.hours_per_run)
    assert commit is not None and commit.gpus == 64
    compute = next(r for r in best_tco(pick).rows if r.item == "compute")
    rate, on_demand = compute.inputs["listed_usd_per_gpu_hour"], compute.inputs["on_demand_usd_per_gpu_hour"]
    assert commit.usd_per_month == pytest.approx(rate * 64 * HOURS_PER_MONTH)
    assert commit.break_even == pytest.approx(rate / on_demand) and commit.break_even == pytest.approx(0.7)
    assert commit.busy == pytest.approx(pick.hours_per_run / HOURS_PER_MONTH)
    assert commit.on_demand_usd_per_run == pytest.approx(on_demand * 64 * pick.hours_per_run)
    assert commit.usd_per_run > commit.on_demand_usd_per_run and commit.on_demand_cheaper
    note = next(n for n in advice.notes if n.startswith(RESERVED_PART_TIME_NOTE))
    assert "reserving pays from 70% busy" in note and "rent on demand" in note
    assert f"reserve once {commit.runs_to_break_even} runs a month" in note
    # enough runs to keep it past the break-even: reserving is the cheaper, and said so
    busy = advise(w.model_copy(update={"runs_per_month": commit.runs_to_break_even}), data)
    pick = busy.options[0]
    more = reserved_commitment(busy.effective, best_tco(pick), pick.cluster.gpus, pick.hours_per_run)
    assert more is not None and not more.on_demand_cheaper
    assert more.usd_per_month == pytest.approx(commit.usd_per_month)
    assert more.usd_per_run < more.on_demand_usd_per_run


def test_runs_past_one_reservation_reserve_its_gpus_side_by_side(data: CatalogData) -> None:
    """30 runs of 49 h are 1,474 h: three single-GPU reservations, 67% busy, not one 100% busy (which said nothing)."""
    w = Workload(mode="lora", model="llama-3.1-8b", dataset_tokens=2_000_000_000, gpu="h100-sxm", runs_per_month=30,
                 pricing="reserved")
    advice = advise(w, data)
    pick = advice.options[0]
    commit = reserved_commitment(advice.effective, best_tco(pick), pick.cluster.gpus, pick.hours_per_run)
    assert commit is not None and pick.hours_per_run is not None
    sets = -(-30 * pick.hours_per_run // HOURS_PER_MONTH)
    assert commit.gpus == pick.cluster.gpus * sets > pick.cluster.gpus
    assert commit.busy == pytest.approx(30 * pick.hours_per_run / (sets * HOURS_PER_MONTH))
    assert commit.runs_to_break_even > 0


def test_no_commitment_for_on_demand_or_serving(data: CatalogData) -> None:
    w = Workload(mode="lora", model="llama-3.1-8b", dataset_tokens=200_000_000)
    advice = advise(w, data)
    pick = advice.options[0]
    assert reserved_commitment(advice.effective, best_tco(pick), pick.cluster.gpus, pick.hours_per_run) is None
    assert not any(n.startswith(RESERVED_PART_TIME_NOTE) for n in advice.notes)
    serve = advise(Workload(mode="inference", model="llama-3.1-8b", concurrency=10, pricing="reserved"), data)
    pick = serve.options[0]
    assert reserved_commitment(serve.effective, best_tco(pick), pick.cluster.gpus, pick.hours_per_run) is None
