"""Cards without NVLink in the plan line: a model one card holds is served as a replica per card, and a replica that
spans several PCIe cards says why (the fewest that hold the model need no reason; a speed does)."""

from __future__ import annotations

from tests.bot.answers import answered


def test_an_8b_model_on_l40s_is_a_replica_per_card(real_advisor) -> None:
    """It was "1 replica of 2 GPUs (TP 2) · 8.4 GB of 43.2 GB": an 8B model using a fifth of one card, split over PCIe."""
    for question in ("serve Llama 3.1 8B at 10 QPS", "response time under 2 s, Llama 3.1 8B, 100 users"):
        response, _view, text = answered(real_advisor, question)
        plan = next(line for line in text.splitlines() if line.startswith("Plan:"))
        assert response.advice.cluster.tensor_parallel == 1, plan
        if "L40S" in plan:
            assert "replicas of 1 GPU (a replica per card: no tensor parallel over PCIe)" in plan, plan


def test_a_70b_model_on_l40s_says_why_it_spans_four_cards(real_advisor) -> None:
    """It was one TP8 replica over PCIe; FP8 70B fits on two cards, which cannot keep 20 tokens/s per user."""
    response, _view, text = answered(real_advisor, "serve Llama 3.1 70B on L40S for 20 users")
    plan = next(line for line in text.splitlines() if line.startswith("Plan:"))
    assert response.advice.cluster.tensor_parallel == 4, plan
    assert "(TP 4 over PCIe for the 20 tokens/s per user)" in plan, plan
