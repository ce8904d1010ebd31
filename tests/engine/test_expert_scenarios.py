"""The plans an ML infrastructure engineer would sign, checked scenario by scenario.

Why a data file: each scenario says, next to its workload, what shape the plan must have and why
an engineer expects it (tests/engine/expert_scenarios.yaml). The workloads name models and GPUs as
users do; they are resolved through the real bundled catalog, so a catalog row that changes a plan
shows up here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from catalog import open_catalog
from catalog.records import CatalogData
from engine.advise import advise
from engine.models import Advice, Option, Workload
from engine.recommend import suspect_spot
from engine.units import HOURS_PER_MONTH

SCENARIOS: list[dict[str, Any]] = yaml.safe_load((Path(__file__).parent / "expert_scenarios.yaml").read_text())


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return open_catalog(tmp_path_factory.mktemp("catalog") / "catalog.db")


def _workload(raw: dict[str, Any], catalog: Any) -> Workload:
    fields = dict(raw)
    if "model" in fields:
        resolved = catalog.resolve_model(fields["model"])
        assert resolved.id is not None, f"the catalog does not know {fields['model']!r}: {resolved.message}"
        fields["model"] = resolved.id
    if "gpu" in fields:
        resolved = catalog.resolve_gpu(fields["gpu"])
        assert resolved.id is not None, f"the catalog does not know {fields['gpu']!r}: {resolved.message}"
        fields["gpu"] = resolved.id
    return Workload(**fields)


def _within(value: float | None, expected: Any) -> bool:
    if value is None:
        return False
    if isinstance(expected, list):
        low, high = expected
        return low <= value <= high
    return value == expected


def _primary(advice: Advice) -> Option | None:
    if not advice.options:
        return None
    name = advice.recommendation.primary if advice.recommendation else None
    return next((o for o in advice.options if o.name == name), advice.options[0])


def _check(advice: Advice, expect: dict[str, Any], data: CatalogData, scenario: dict[str, Any]) -> list[str]:
    """Every expectation that does not hold, as readable lines (empty: the plan is as expected)."""
    wrong: list[str] = []
    cluster, throughput, primary = advice.cluster, advice.throughput, _primary(advice)
    eff = advice.effective

    def need(cond: bool, what: str) -> None:
        if not cond:
            wrong.append(what)

    if "problem" in expect:
        need(any(p.code == expect["problem"] for p in advice.problems), f"problem {expect['problem']} in {advice.problems}")
    if "mode" in expect:
        modes = expect["mode"] if isinstance(expect["mode"], list) else [expect["mode"]]
        mode = primary.mode if primary is not None else eff.mode
        need(mode in modes, f"mode {mode} not in {modes}")
    if "precision" in expect:
        precision = primary.precision if primary is not None else eff.precision
        need(precision == expect["precision"], f"precision {precision} != {expect['precision']}")
    if "not_precision" in expect:
        precision = primary.precision if primary is not None else eff.precision
        need(precision != expect["not_precision"], f"precision {precision} == {expect['not_precision']}")
    if cluster is None and any(k in expect for k in ("fits", "gpus", "nodes", "tp", "pp", "dp")):
        return [*wrong, f"no plan at all: problems {advice.problems}"]
    if cluster is not None:
        for key, attr in (("gpus", "gpus"), ("nodes", "nodes"), ("tp", "tensor_parallel"), ("pp", "pipeline_parallel"),
                          ("dp", "data_parallel"), ("gpus_per_replica", "gpus_per_replica"), ("replicas", "replicas")):
            if key in expect:
                value = getattr(cluster, attr)
                need(_within(value, expect[key]), f"{key} {value} not {expect[key]} ({cluster.parallelism})")
        if "fits" in expect:
            need(cluster.fits == expect["fits"], f"fits {cluster.fits}")
        gpu = data.gpu(cluster.gpu)
        if "vendor" in expect and gpu is not None:
            need(gpu.vendor.upper() == expect["vendor"], f"vendor {gpu.vendor} ({gpu.id})")
        if "gpu_family" in expect:
            need(any(cluster.gpu.startswith(p) for p in expect["gpu_family"]), f"gpu {cluster.gpu}")
        if "not_gpu_family" in expect:
            need(not any(cluster.gpu.startswith(p) for p in expect["not_gpu_family"]), f"gpu {cluster.gpu}")
    if "max_memory_fraction" in expect:
        mem = advice.memory
        share = mem.per_gpu_gb / mem.usable_gb_per_gpu if mem is not None and mem.usable_gb_per_gpu else None
        need(share is not None and share <= expect["max_memory_fraction"], f"memory share {share}")
    if "parallelism_contains" in expect:
        need(cluster is not None and expect["parallelism_contains"] in cluster.parallelism,
             f"parallelism {cluster and cluster.parallelism!r}")
    if "per_user_tokens_s" in expect:
        seq = throughput.decode_tokens_per_s_per_sequence if throughput else None
        need(seq is not None and _within(seq.value, expect["per_user_tokens_s"]), f"per-user tokens/s {seq and seq.value}")
    if "targets" in expect:
        got = {t.name: t.met for t in (throughput.targets if throughput else ())}
        for name, met in expect["targets"].items():
            need(got.get(name) is met, f"target {name}: {got.get(name)} (expected met={met}); targets {got}")
    if primary is not None:
        cheapest = min(primary.tco, key=lambda t: t.total_usd)
        for key, value in (("monthly_usd", cheapest.total_usd), ("job_usd", cheapest.job_usd), ("per_run_usd", cheapest.per_run_usd)):
            if key in expect:
                need(_within(value, expect[key]), f"{key} {value} not in {expect[key]} ({primary.name})")
        if expect.get("job_priced"):
            need(cheapest.job_usd is not None and cheapest.job_usd > cheapest.total_usd, f"whole job not priced: {cheapest}")
        compute = next(r for r in cheapest.rows if r.item == "compute")
        if "billed_le" in expect:
            billed = round(compute.usd / max(1e-9, float(compute.inputs["usd_per_gpu_hour"])) / (primary.hours_per_run or 1))
            need(billed <= expect["billed_le"], f"bills {billed} GPUs ({primary.name})")
        if "rate_note" in expect:
            need(expect["rate_note"] in str(compute.inputs.get("rate")), f"rate source {compute.inputs.get('rate')}")
        if scenario.get("monthly_cap"):
            rate = float(compute.inputs["usd_per_gpu_hour"])
            need(compute.usd <= primary.cluster.gpus * HOURS_PER_MONTH * rate * 1.0001, f"monthly compute {compute.usd}")
    elif any(k in expect for k in ("monthly_usd", "job_usd", "per_run_usd", "billed_le", "job_priced")):
        wrong.append(f"no priced option: problems {advice.problems}")
    if "note" in expect:
        text = " | ".join([*advice.notes, *(cluster.notes if cluster else ())])
        need(expect["note"] in text, f"no note with {expect['note']!r}")
    if expect.get("no_option_multinode"):
        need(all(o.cluster.nodes == 1 for o in advice.options), "a consumer option spans nodes")
    if expect.get("managed_row"):
        need(any(r.item == "managed" and r.usd > 0 for o in advice.options for t in o.tco for r in t.rows), "no managed row")
    if expect.get("no_suspect_spot"):
        offers = {o.id: o for o in data.offers}
        need(not any(suspect_spot(offers.get(o.offer_id or "")) for o in advice.options), "a suspect spot price was ranked")
    return wrong


def test_there_are_enough_scenarios() -> None:
    assert len(SCENARIOS) >= 40
    assert all(s.get("why") and s.get("expect") for s in SCENARIOS)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s["name"][:60] for s in SCENARIOS])
def test_expert_scenario(scenario: dict[str, Any], catalog: Any) -> None:
    data = catalog.data()
    advice = advise(_workload(scenario["workload"], catalog), data)
    assert not [p for p in advice.problems if p.code == "internal"], advice.problems
    wrong = _check(advice, scenario["expect"], data, scenario)
    assert not wrong, f"{scenario['name']} (why: {scenario['why']}):\n  " + "\n  ".join(wrong)


def test_self_managed_h100_against_sagemaker_four_rows_each(catalog: Any) -> None:
    """The comparison the product exists for: QLoRA 70B, 500 GB in S3, 20 runs of 1B tokens. A self-managed
    H100 (data cached after one pull, or pulled every run) against SageMaker's H100 in the data's cloud,
    each with its four TCO rows: compute, storage, egress, managed premium."""
    from engine.contract import to_contract

    w = Workload(mode="qlora", params_b=70, dataset_gb=500, dataset_tokens=1_000_000_000, runs_per_month=20,
                 data_location="aws")
    shown = to_contract(advise(w, catalog.data()))["report"]["tco"]["options"]
    self_managed = [o for o in shown if "H100" in o["name"] and "SageMaker" not in o["name"]]
    sagemaker = [o for o in shown if "SageMaker" in o["name"] and "H100" in o["name"]]
    assert {o["workflow"] for o in self_managed} >= {"cached", "uncached"}, [o["name"] for o in shown]
    assert sagemaker and sagemaker[0]["workflow"] == "same_cloud"
    for option in (*self_managed, *sagemaker):
        assert [r["item"] for r in option["rows"]] == ["compute", "storage", "egress", "managed"]
    managed = next(r["usd"] for r in sagemaker[0]["rows"] if r["item"] == "managed")
    compute = next(r["usd"] for r in sagemaker[0]["rows"] if r["item"] == "compute")
    assert managed == pytest.approx(compute * 0.15, rel=0.02)  # SageMaker lists 1.15x the EC2 price
    uncached = next(o for o in self_managed if o["workflow"] == "uncached")
    assert next(r["usd"] for r in uncached["rows"] if r["item"] == "egress") == pytest.approx(891, abs=1)  # AWS tiers
