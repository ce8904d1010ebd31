"""A service asked to survive a failure ("99.9% uptime", "across 2 regions") keeps at least `min_replicas` replicas,
each on its own machine, the users spread over them; without it one replica on one GPU was the whole plan."""

from __future__ import annotations

import pytest

from catalog import open_catalog
from engine.advise import advise
from engine.models import Workload

REAL = open_catalog().data()
BASE = Workload(mode="inference", model="llama-3.1-8b", concurrency=50)


def test_two_replicas_on_two_machines() -> None:
    one = advise(BASE, REAL)
    two = advise(BASE.model_copy(update={"min_replicas": 2}), REAL)
    assert one.cluster.replicas == 1
    assert two.cluster.replicas == 2 and two.cluster.nodes == 2
    # each replica on its own instance, billed as such: every option's GPUs are whole machines of one replica each
    for option in two.options:
        assert option.cluster.replicas >= 2 and option.cluster.nodes >= 2, option.name
    # the users are spread: each replica batches half of them, so each user is at least as fast as on one replica
    assert two.throughput.decode_tokens_per_s_per_sequence.value >= one.throughput.decode_tokens_per_s_per_sequence.value


def test_a_load_that_needs_more_replicas_keeps_them() -> None:
    many = advise(BASE.model_copy(update={"concurrency": 2000, "min_replicas": 2}), REAL)
    plain = advise(BASE.model_copy(update={"concurrency": 2000}), REAL)
    assert many.cluster.replicas >= max(2, plain.cluster.replicas)


def test_offline_jobs_ignore_it() -> None:
    job = Workload(mode="inference", model="llama-3.1-8b", batch_items=1_000_000, input_tokens=500, output_tokens=200)
    assert advise(job.model_copy(update={"min_replicas": 3}), REAL).cluster.gpus == advise(job, REAL).cluster.gpus


@pytest.mark.parametrize("bad", [0, -1, 65])
def test_out_of_range_is_refused(bad: int) -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        Workload(mode="inference", model="llama-3.1-8b", min_replicas=bad)
