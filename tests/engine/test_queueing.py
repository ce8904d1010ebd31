"""Time to first token under load: the prefill plus the wait behind other requests' prefills (engine.queueing)."""

from __future__ import annotations

import math

import pytest

from engine.models import Workload
from engine.queueing import load_known, p95_ttft, prefill_share, queued_ttft, wait_seconds


def _erlang_md1_cdf(rho: float, t: float) -> float:
    """Erlang's exact M/D/1 waiting-time distribution, service time 1: P(W <= t) = (1 - rho) sum_{k=0}^{floor t}
    (rho (k - t))^k / k! exp(-rho (k - t)) (Wikipedia, "M/D/1 queue"; Franx 2001)."""
    return (1 - rho) * sum((rho * (k - t)) ** k / math.factorial(k) * math.exp(-rho * (k - t))
                           for k in range(int(math.floor(t)) + 1))


def test_pollaczek_khinchine_mean_wait_pinned() -> None:
    # Wq = rho S / (2 (1 - rho)): 60% busy with 0.15 s prefills waits 0.1125 s on average
    mean, p95 = wait_seconds(0.6, 0.15)
    assert mean == pytest.approx(0.1125)
    # p95 = (Wq / rho) ln(rho / 0.05) = 0.1875 x ln 12
    assert p95 == pytest.approx(0.1875 * math.log(12))
    assert p95 == pytest.approx(0.4659, abs=1e-4)


@pytest.mark.parametrize("rho", [0.4, 0.5, 0.6, 0.7, 0.8, 0.9])
def test_exponential_tail_is_a_slight_overstatement_of_the_exact_md1_p95(rho: float) -> None:
    """The tail errs to more replicas, never to a missed SLO: at the p95 it states, Erlang's exact distribution is past
    95% but below 97%."""
    _mean, p95 = wait_seconds(rho, 1.0)
    assert 0.95 <= _erlang_md1_cdf(rho, p95) <= 0.97


def test_no_wait_when_nobody_is_ahead() -> None:
    assert wait_seconds(0.0, 0.2) == (0.0, 0.0)
    # below 5% busy, 95% of requests find the prefill free: no p95 wait
    assert wait_seconds(0.04, 0.2)[1] == 0.0


def test_prefill_share_is_what_loaded_step_solves() -> None:
    """Little's law over turns: 50 users, 256-token replies at 48.3 ms a token as felt, 0.15 s prefills -> 60%."""
    share = prefill_share(50, 1 / 20.7, 0.15, 256)
    assert share == pytest.approx(50 * 0.15 / (256 / 20.7 + 0.15))
    assert 0.58 < share < 0.61


def test_users_held_at_once_queue_behind_the_others_only() -> None:
    w = Workload(model="llama-3.1-70b", concurrency=50, input_tokens=2000, output_tokens=256)
    assert load_known(w)
    queued = queued_ttft(w, 50, 1, 1 / 20.7, 0.15)
    assert queued is not None
    assert queued.utilisation == pytest.approx(prefill_share(50, 1 / 20.7, 0.15, 256) * 49 / 50)
    assert queued.prefill_s == 0.15
    assert queued.mean_s == pytest.approx(0.15 + wait_seconds(queued.utilisation, 0.15)[0])
    # the review's case: 0.15 s alone, about 0.6 s at p95 with the queue
    assert 0.55 < queued.p95_s < 0.65
    # one user never waits on anyone
    assert p95_ttft(w, 1, 50, 1 / 40, 0.15) == 0.15


def test_a_request_rate_spreads_over_the_replicas() -> None:
    w = Workload(model="qwen2.5-32b", requests_per_s=10, input_tokens=4000, output_tokens=500)
    one = queued_ttft(w, 8, 7, 0.025, 0.32)
    assert one is not None and one.utilisation == pytest.approx(10 / 7 * 0.32)
    more = queued_ttft(w, 8, 10, 0.025, 0.32)
    assert more is not None and more.p95_s < one.p95_s


def test_one_stream_or_an_offline_job_has_no_queue() -> None:
    alone = Workload(model="llama-3.1-8b", input_tokens=2000, output_tokens=256)
    assert not load_known(alone) and queued_ttft(alone, 1, 1, 0.02, 0.1) is None
    job = Workload(model="llama-3.1-8b", requests_per_s=5, batch_items=10_000, input_tokens=2000, output_tokens=256)
    assert queued_ttft(job, 8, 1, 0.02, 0.1) is None


# The review's question: "serve llama 3.1 70b with p95 TTFT < 500 ms, 50 users, 2k token prompts". One B200 prefills a
# prompt in 0.15 s but prefills take about 60% of its time: about 0.6 s at p95. Graded and sized at the queued p95.
_ASKED = Workload(mode="inference", model="llama-3.1-70b", concurrency=50, input_tokens=2000, output_tokens=256,
                  target_ttft_s=0.5)


def _winner(w: Workload):  # type: ignore[no-untyped-def]
    from catalog import open_catalog
    from engine.advise import advise

    return advise(w, open_catalog().data()).options[0]


def test_a_ttft_target_is_graded_and_sized_at_the_queued_p95() -> None:
    loose = _winner(_ASKED.model_copy(update={"target_ttft_s": None}))
    first = loose.throughput.ttft_s
    assert first is not None and loose.throughput.prefill_seconds is not None
    # the figure the answer gives is the queued p95, the prefill alone beside it
    assert first.value > 2 * loose.throughput.prefill_seconds.value
    assert first.value > 0.5
    assert first.inputs["mean_ttft_s"] < first.value
    picked = _winner(_ASKED)
    check = next(t for t in picked.throughput.targets if t.name == "target_ttft_s")
    assert check.met and check.got <= 0.5
    assert picked.throughput.ttft_s is not None and check.got == pytest.approx(picked.throughput.ttft_s.value, abs=1e-4)
    # sized for it: more than the one GPU that met the unqueued prefill on paper
    assert picked.total_usd > loose.total_usd


def test_a_rate_is_given_replicas_until_its_p95_meets_the_target() -> None:
    from catalog import open_catalog
    from engine.architecture import architecture_for
    from engine.serving import choose

    data = open_catalog().data()
    gpu = next(g for g in data.gpus if g.id == "h100-sxm")
    w = Workload(mode="inference", model="llama-3.1-8b", precision="bf16", requests_per_s=20, input_tokens=8000,
                 output_tokens=200)
    arch = architecture_for(data.model("llama-3.1-8b"), None)
    plain = choose(w, arch, gpu, 8, "fast", True)
    assert plain is not None
    tight = choose(w.model_copy(update={"target_ttft_s": 1.2 * plain.ttft_s}), arch, gpu, 8, "fast", True)
    assert tight is not None and not tight.misses
    assert tight.replicas > plain.replicas
    assert p95_ttft(w, tight.batch, tight.replicas, tight.step_s, tight.ttft_s) <= 1.2 * plain.ttft_s * 1.001
    assert p95_ttft(w, plain.batch, plain.replicas, plain.step_s, plain.ttft_s) > 1.2 * plain.ttft_s


# A training plan at the edge of memory (review: "full fine-tune llama 3.1 70b on 5B tokens on GCP" led with 8 B200s at
# 161.9 of 162 GB usable per GPU) ranks after a plan with room, which the search now plans beside it.
_FULL_70B = Workload(mode="full", model="llama-3.1-70b", dataset_tokens=5e9)


def test_a_tight_training_plan_gets_a_roomier_counterpart() -> None:
    from catalog import open_catalog
    from engine.architecture import architecture_for
    from engine.defaults import apply_defaults
    from engine.memory import usable_gb
    from engine.offer_plans import roomier_choice, tight_training, training_choice

    data = open_catalog().data()
    w, _, _ = apply_defaults(_FULL_70B, data)
    arch = architecture_for(data.model("llama-3.1-70b"), None)
    gpu = next(g for g in data.gpus if g.id == "b200")
    offer = next(o for o in data.offers if o.gpu == "b200" and o.gpus_per_node == 8 and o.inter_node_fabric)
    tight = training_choice(w, arch, gpu, offer)
    assert tight.gpus == 8 and tight_training(w, gpu, tight.per_gpu_gb)
    roomy = roomier_choice(w, arch, gpu, offer, tight)
    assert roomy is not None and roomy.gpus == 16
    assert roomy.per_gpu_gb <= 0.95 * usable_gb(gpu, w.headroom)
    assert roomy.gpu_hours is not None and tight.gpu_hours is not None and roomy.gpu_hours <= 1.05 * tight.gpu_hours
    # a plan with room has none; nor does a count the user fixed
    assert roomier_choice(w, arch, gpu, offer, roomy) is None
    fixed = w.model_copy(update={"gpu_count": 8})
    assert roomier_choice(fixed, arch, gpu, offer, training_choice(fixed, arch, gpu, offer)) is None


def test_the_plan_with_room_leads_and_the_answer_says_why_not_the_tight_one() -> None:
    from catalog import open_catalog
    from engine.advise import advise
    from engine.recommendation import EDGE_NOTE, at_the_edge

    advice = advise(_FULL_70B.model_copy(update={"provider": "gcp"}), open_catalog().data())
    winner = advice.options[0]
    assert not at_the_edge(winner)
    assert winner.memory.per_gpu_gb <= 0.95 * (winner.memory.usable_gb_per_gpu or 0)
    tight = [o for o in advice.options if at_the_edge(o)]
    assert tight and all(advice.options.index(o) > 0 for o in tight)
    # the tight one is as cheap or cheaper: said why it is not the pick
    note = next(n for n in advice.notes if n.startswith(EDGE_NOTE))
    assert tight[0].name in note and "edge of memory" in note and "ZeRO-Offload" in note


def test_the_most_utilisation_a_target_allows() -> None:
    from engine.queueing import max_utilisation

    rho = max_utilisation(0.15, 0.5)
    assert 0.15 + wait_seconds(rho, 0.15)[1] <= 0.5 < 0.15 + wait_seconds(rho + 1e-3, 0.15)[1]
    assert max_utilisation(0.6, 0.5) == 0.0  # the prefill alone misses it
