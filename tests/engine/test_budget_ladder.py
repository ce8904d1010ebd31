"""A budget with no model ("$20k a month, what's the biggest model we can serve for 100 users?"): each ladder model
is planned on the load as if named, and the largest within the budget at the per-user speed floor is the answer."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from catalog.records import CatalogData
from engine.advise import advise
from engine.budget_ladder import LADDER, budget_ladder, largest_within
from engine.models import Workload
from engine.serving import DEFAULT_TOKENS_PER_S_PER_USER


def _load(budget: float, users: int = 100) -> Workload:
    return Workload(mode="inference", intent="serve", concurrency=users, budget_usd_per_month=budget)


def test_each_rung_is_the_plan_of_the_model_named(data: CatalogData) -> None:
    rungs = budget_ladder(_load(20_000), data)
    assert [r.model for r in rungs] == [m for m in LADDER if data.model(m) is not None]
    assert [r.params_b for r in rungs] == sorted(r.params_b for r in rungs)  # smallest first
    for rung in rungs[:3]:
        record = data.model(rung.model)
        named = advise(Workload(mode="inference", intent="serve", concurrency=100, budget_usd_per_month=20_000,
                                model=rung.model, params_b=record.total_params_b), data)
        assert named.recommendation.primary == rung.option.name
        assert rung.usd_per_month == next(o.total_usd for o in named.options if o.name == rung.option.name)


def test_within_means_under_budget_and_at_the_speed_floor(data: CatalogData) -> None:
    rungs = budget_ladder(_load(20_000), data)
    for r in rungs:
        meets = (r.usd_per_month is not None and r.usd_per_month <= 20_000
                 and (r.tokens_per_s_per_user or 0) >= DEFAULT_TOKENS_PER_S_PER_USER * 0.999)
        assert r.within == meets, r
    # a rung under budget but under the floor is not an answer (DeepSeek-V3.1 on 8 MI300X at ~16 tokens/s)
    assert any(r.usd_per_month is not None and r.usd_per_month <= 20_000 and not r.within for r in rungs)
    chosen = largest_within(rungs)
    assert chosen is not None and all(not r.within for r in rungs if r.params_b > chosen.params_b)


def test_too_small_a_budget_has_no_rung(data: CatalogData) -> None:
    rungs = budget_ladder(_load(100), data)
    assert largest_within(rungs) is None and rungs[0].usd_per_month > 100


@settings(max_examples=6, deadline=None)
@given(st.sampled_from([2_000, 5_000, 20_000, 60_000]), st.sampled_from([1_000, 4_000, 100_000]))
def test_more_budget_never_gives_a_smaller_model(data: CatalogData, low: float, extra: float) -> None:
    small = largest_within(budget_ladder(_load(low), data))
    large = largest_within(budget_ladder(_load(low + extra), data))
    assert (small.params_b if small else 0) <= (large.params_b if large else 0)


def test_a_vendor_said_keeps_every_rung_on_it(data: CatalogData) -> None:
    """"only NVIDIA": no rung planned on MI300X."""
    rungs = budget_ladder(_load(20_000).model_copy(update={"gpu_vendor": "nvidia"}), data)
    nvidia = {g.id for g in data.gpus if g.vendor.upper() == "NVIDIA"}
    assert all(r.option is None or r.option.cluster.gpu in nvidia for r in rungs)
    free = budget_ladder(_load(20_000), data)
    assert any(r.option is not None and r.option.cluster.gpu not in nvidia for r in free)  # it did matter


def _fine_tune(budget: float, mode: str | None = "qlora", tokens: int = 100_000_000) -> Workload:
    return Workload(mode=mode, intent="train", dataset_tokens=tokens, budget_usd_per_run=budget)


def test_a_fine_tune_rung_is_the_run_of_the_model_named(data: CatalogData) -> None:
    """"What's the biggest model we can fine-tune for $1000 on 100M tokens?": each rung is the plan the user gets by
    naming the model, and its run costs what that answer prints."""
    from engine.recommend import run_cost_usd

    rungs = budget_ladder(_fine_tune(1_000), data)
    assert {r.mode for r in rungs} == {"qlora"} and rungs[0].tokens_per_s_per_user is None
    for rung in rungs[:3]:
        named = advise(_fine_tune(1_000).model_copy(update={"model": rung.model, "params_b": rung.params_b}), data)
        assert named.recommendation.primary == rung.option.name
        option = next(o for o in named.options if o.name == rung.option.name)
        assert rung.usd_per_run == run_cost_usd(option.tco, named.effective) and rung.hours_per_run == option.hours_per_run


def test_a_fine_tune_is_within_when_its_run_is(data: CatalogData) -> None:
    rungs = budget_ladder(_fine_tune(50, "full", 1_000_000_000), data)
    for r in rungs:
        assert r.within == (r.usd_per_run is not None and r.usd_per_run <= 50 * 1.0001), r
    assert largest_within(rungs) is None  # $50 does not fully fine-tune even an 8B model on 1B tokens
    monthly = budget_ladder(Workload(mode="qlora", intent="train", dataset_tokens=500_000_000, runs_per_month=4,
                                     budget_usd_per_month=300), data)
    for r in monthly:  # a monthly budget holds the month's runs, not one run
        assert r.within == (r.usd_per_month is not None and r.usd_per_month <= 300 * 1.0001), r
    assert any(r.usd_per_run is not None and r.usd_per_run <= 300 and not r.within for r in monthly)


def test_a_fine_tune_with_no_method_is_laddered_qlora_and_full(data: CatalogData) -> None:
    rungs = budget_ladder(_fine_tune(1_000, mode=None), data)
    assert [r.mode for r in rungs] == ["qlora"] * (len(rungs) // 2) + ["full"] * (len(rungs) // 2)
    pick = largest_within(rungs)
    assert pick is not None and pick.mode == "qlora"  # the plan shown is the first method's
    qlora = {r.model: r.usd_per_run for r in rungs if r.mode == "qlora"}
    full = {r.model: r.usd_per_run for r in rungs if r.mode == "full"}
    assert qlora["llama-3.1-8b"] < full["llama-3.1-8b"]


def test_a_deadline_missed_is_not_within(data: CatalogData) -> None:
    """A run on time is part of "can we fine-tune it": the engine adds GPUs to meet a deadline (priced in the run), and
    one no plan meets (6 minutes, under the start-up alone) leaves no rung within however large the budget."""
    on_time = budget_ladder(_fine_tune(100_000, "qlora", 1_000_000_000).model_copy(update={"deadline_hours": 2}), data)
    assert all(r.within and r.hours_per_run is not None and r.hours_per_run <= 2 * 1.001 for r in on_time)
    late = budget_ladder(_fine_tune(100_000, "qlora", 1_000_000_000).model_copy(update={"deadline_hours": 0.1}), data)
    assert all(r.usd_per_run is not None and r.usd_per_run <= 100_000 and not r.within for r in late)


@settings(max_examples=6, deadline=None)
@given(st.sampled_from([20, 100, 400]), st.sampled_from([50, 500, 5_000]), st.sampled_from(["qlora", "full"]))
def test_a_bigger_run_budget_never_fine_tunes_a_smaller_model(data: CatalogData, low: float, extra: float,
                                                              mode: str) -> None:
    small = largest_within(budget_ladder(_fine_tune(low, mode, 1_000_000_000), data))
    large = largest_within(budget_ladder(_fine_tune(low + extra, mode, 1_000_000_000), data))
    assert (small.params_b if small else 0) <= (large.params_b if large else 0)
