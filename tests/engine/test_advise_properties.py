"""Invariants over random workloads (Hypothesis): costs never negative, more runs never cheaper,
caching never dearer than pulling every run, a bigger model never needs fewer GPUs, never raises."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.advise import advise
from engine.architecture import architecture_for
from engine.cluster import plan_cluster
from engine.models import Workload
from engine.tco import row_usd
from tests.engine.fixtures_catalog import catalog_data

DATA = catalog_data()
FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

modes = st.sampled_from(["full", "lora", "qlora", "inference"])
models = st.sampled_from(["llama-3-70b", "llama-3.1-8b", None])
locations = st.sampled_from(["aws", "gcp", "onprem", None])


@st.composite
def workloads(draw) -> Workload:
    model = draw(models)
    return Workload(
        mode=draw(modes),
        model=model,
        params_b=None if model else draw(st.floats(0.5, 200)),
        dataset_gb=draw(st.floats(0.1, 5_000)),
        runs_per_month=draw(st.floats(0.5, 50)),
        epochs=draw(st.sampled_from([None, 1, 3])),
        data_location=draw(locations),
        pricing=draw(st.sampled_from([None, "on_demand", "spot", "reserved"])),
    )


@FAST
@given(workloads())
def test_costs_never_negative_and_never_raises(w: Workload) -> None:
    advice = advise(w, DATA)
    assert not [p for p in advice.problems if p.code == "internal"]
    for option in advice.options:
        for tco in option.tco:
            assert tco.total_usd >= 0 and all(r.usd >= 0 for r in tco.rows)


@FAST
@given(workloads(), st.floats(1.01, 5))
def test_more_runs_never_cheaper(w: Workload, factor: float) -> None:
    a = advise(w, DATA)
    b = advise(w.model_copy(update={"runs_per_month": (w.runs_per_month or 1) * factor}), DATA)
    before = {o.name: o for o in a.options}
    for option in b.options:
        if option.name in before:
            for t_before, t_after in zip(before[option.name].tco, option.tco, strict=True):
                assert t_after.total_usd >= t_before.total_usd - 1e-6


@FAST
@given(workloads())
def test_caching_never_costs_more(w: Workload) -> None:
    w = w.model_copy(update={"mode": "qlora", "data_location": "aws"})
    for option in advise(w, DATA).options:
        flows = {t.workflow: t for t in option.tco}
        if "cached" in flows and "uncached" in flows:
            assert flows["cached"].total_usd <= flows["uncached"].total_usd + 1e-6
            assert row_usd(flows["cached"], "egress") <= row_usd(flows["uncached"], "egress") + 1e-6


@FAST
@given(st.floats(1, 100), st.floats(1.0, 3.0), st.sampled_from(["full", "lora", "qlora", "inference"]))
def test_bigger_model_never_needs_fewer_gpus(params_b: float, factor: float, mode: str) -> None:
    """The GPUs a workload *needs* (the smallest fitting plan) grow with the model. The recommended
    option may use more than it needs (a rented node's spare GPUs spread the model for speed), so
    the need is read from the plan on a bare GPU, and the recommendation must never use fewer."""
    base = Workload(mode=mode, params_b=params_b, gpu="h100-sxm", dataset_gb=10, provider="seed-baremetal")
    small = advise(base, DATA)
    big = advise(base.model_copy(update={"params_b": params_b * factor}), DATA)
    gpu = DATA.gpu("h100-sxm")
    need = {}
    for name, advice in (("small", small), ("big", big)):
        arch = architecture_for(None, advice.effective.params_b)
        need[name] = plan_cluster(advice.effective, arch, gpu)[0]
        if advice.cluster is not None and advice.cluster.fits and need[name].fits:
            assert advice.cluster.gpus >= need[name].gpus
    if need["small"].fits and need["big"].fits:
        assert need["big"].gpus >= need["small"].gpus
