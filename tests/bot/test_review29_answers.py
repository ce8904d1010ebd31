"""Answers a senior reviewer would not forward (review 29), each through the real parser, engine and catalog."""

from __future__ import annotations


def test_a_replica_count_said_is_planned_as_said(real_advisor) -> None:
    """"3 replicas for HA" was planned as 2 (HA's floor), $1,469 a month for N+1 where N+2 was asked."""
    response = real_advisor.respond(real_advisor.new_conversation(),
                                    "k8s: serve llama 3.1 8b on a10g nodes with 3 replicas for HA")
    plan = response.advice.cluster
    assert response.advice.effective.min_replicas == 3 and plan.replicas == 3 and plan.nodes == 3, plan
