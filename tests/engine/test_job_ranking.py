"""An offline inference job over N prompts is bought by the hours it runs: it is ranked by what the job costs on each
fleet (rent x the hours at the fleet's capacity), not by the fleet's always-on monthly bill, and a whole rented node
runs a replica on every GPU it bills. "summarize 10M documents with Llama 3.1 8B … within 3 days, spot, on AWS"
picked 9 L40S at $437 for the job (53 h), cheaper by the month, over one p5 node that does it in under a day for less;
on that node the 8B model was one TP8 replica at 4 GB a GPU."""

from __future__ import annotations

import pytest

from catalog import open_catalog
from engine.advise import advise
from engine.models import Workload
from engine.recommendation import job_figures, work_usd

REAL = open_catalog().data()
JOB = Workload(mode="inference", model="llama-3.1-8b", batch_items=10_000_000, input_tokens=2_000, output_tokens=200,
               deadline_hours=72, pricing="spot", provider="aws")


def test_a_job_is_ranked_by_its_own_cost() -> None:
    advice = advise(JOB, REAL)
    w = advice.effective
    jobs = [job_figures(o, w) for o in advice.options]
    assert all(j is not None for j in jobs)
    costs = [j.usd for j in jobs if j is not None]
    assert work_usd(advice.options[0], w) == pytest.approx(costs[0])
    assert costs[0] == pytest.approx(min(costs[:5]), rel=0.03)  # ties within 3% go to fewer nodes, as for any option
    winner = advice.options[0]
    assert winner.gpu == "h100-sxm" and winner.cluster.gpus == 8 and winner.cluster.nodes == 1
    assert costs[0] == pytest.approx(239, rel=0.02)
    l40s = next(o for o in advice.options if o.gpu == "l40s")
    assert l40s.total_usd < winner.total_usd  # cheaper by the month: the ranking it used to win
    assert job_figures(l40s, w).usd > 1.5 * costs[0]


def test_a_job_fills_the_node_it_rents_with_replicas() -> None:
    winner = advise(JOB, REAL).options[0]
    plan = winner.cluster
    # every billed GPU serves: no TP8 replica of an 8B model holding 4 GB a GPU
    assert (plan.gpus_per_replica or 1) * (plan.replicas or 1) == plan.gpus == 8
    assert (plan.replicas or 1) >= 4


def test_a_service_keeps_its_plan() -> None:
    """A service sized for its users is not filled out: its spare GPUs are reported, not turned into replicas."""
    service = Workload(mode="inference", model="llama-3.1-8b", concurrency=20, provider="aws")
    winner = advise(service, REAL).options[0]
    assert winner.cluster.replicas == 1
