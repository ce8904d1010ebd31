"""Several runs each longer than a month: how many clusters run them side by side."""

from __future__ import annotations


def test_runs_longer_than_a_month_run_side_by_side_one_cluster_each(real_advisor) -> None:
    """20 runs of ~74 days each: 20 clusters for 2.4 months, as the Cost line says, never 49 (20 runs a month kept up)."""
    response = real_advisor.respond(real_advisor.new_conversation(), "QLoRA 70B, 500GB corpus in S3, 20 runs")
    assert response.advice is not None and response.advice.cluster is not None
    notes = [n for n in response.advice.cluster.notes if "side by side" in n]
    assert notes and "run 20 side by side on separate 8-GPU clusters (160 GPUs at once" in notes[0], notes
    assert "done in 2.4 months" in notes[0]
