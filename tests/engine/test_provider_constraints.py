"""A provider constraint naming several ("only AWS or GCP"): the plans come from those providers only, ranked together
(the winner the cheaper, the runner-up the other); a single provider said later (`provider`) wins over the list. And a
waived latency (`offline` on a service with users) states the batch floor it sizes for instead of the chat floor."""

from __future__ import annotations

from typing import Any

from engine.advise import advise
from engine.diff import provider_of
from engine.models import Workload
from engine.serving import DEFAULT_TOKENS_PER_S_PER_USER, JOB_TOKENS_PER_S_PER_PROMPT

SERVICE = Workload(mode="inference", model="qwen2.5-32b", concurrency=200)


def test_several_providers_keep_the_plans_on_them(data: Any) -> None:
    free = advise(SERVICE, data)
    assert {provider_of(o) for o in free.options} - {"aws", "gcp"}  # unconstrained, others win (Lambda, RunPod)
    both = advise(SERVICE.model_copy(update={"providers": ("aws", "gcp")}), data)
    assert both.options and {provider_of(o) for o in both.options} == {"aws", "gcp"}
    rec = both.recommendation
    assert rec is not None and rec.runner_up is not None
    pick = next(o for o in both.options if o.name == rec.primary)
    runner = next(o for o in both.options if o.name == rec.runner_up)
    assert provider_of(pick) != provider_of(runner) and pick.total_usd <= runner.total_usd


def test_one_provider_said_wins_over_the_list(data: Any) -> None:
    advice = advise(SERVICE.model_copy(update={"providers": ("aws", "gcp"), "provider": "lambda"}), data)
    assert advice.options and {provider_of(o) for o in advice.options} == {"lambda"}


def test_a_waived_latency_states_the_batch_floor(data: Any) -> None:
    chat = advise(Workload(mode="inference", model="llama-3.1-8b", concurrency=100), data)
    batch = advise(Workload(mode="inference", model="llama-3.1-8b", concurrency=100, offline=True), data)
    floor = {a.field: a.value for a in chat.assumptions}["target_tokens_per_s_per_user"]
    assert floor == DEFAULT_TOKENS_PER_S_PER_USER
    said = next(a for a in batch.assumptions if a.field == "target_tokens_per_s_per_user")
    assert said.value == JOB_TOKENS_PER_S_PER_PROMPT and "batch floor" in said.why
    assert batch.options[0].total_usd < chat.options[0].total_usd
