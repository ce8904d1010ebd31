"""Time to first token under load: the prefill plus the wait behind other requests' prefills (engine.queueing)."""

from __future__ import annotations

import math
from decimal import Decimal, localcontext

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.models import Workload
from engine.queueing import (
    graded_ttft,
    load_known,
    p95_ttft,
    percentile_quantile,
    prefill_share,
    queued_ttft,
    ttft_at,
    wait_seconds,
)


def _erlang_md1_cdf(rho: float, t: float) -> float:
    """Erlang's exact M/D/1 waiting-time distribution, service time 1: P(W <= t) = (1 - rho) sum_{k=0}^{floor t}
    (rho (k - t))^k / k! exp(-rho (k - t)) (Wikipedia, "M/D/1 queue"; Franx 2001). The terms alternate in sign and
    grow like exp(rho t), so the sum is taken in 120-digit decimals: in floats it is noise past ~20 service times (a
    p99.9 at 90% utilisation is 33)."""
    with localcontext() as ctx:
        ctx.prec = 120
        r, x = Decimal(rho), Decimal(t)
        total, factorial = Decimal(0), Decimal(1)
        for k in range(int(math.floor(t)) + 1):
            factorial *= k or 1
            u = r * (k - x)
            total += (u ** k if k else Decimal(1)) / factorial * (-u).exp()
        return float((1 - r) * total)


def _exact_md1_quantile(rho: float, q: float) -> float:
    """The exact q-quantile of the M/D/1 wait (service time 1), by bisection on Erlang's distribution."""
    if q <= 1 - rho:
        return 0.0
    lo, hi = 0.0, 1.0
    while _erlang_md1_cdf(rho, hi) < q:
        hi *= 2
    for _ in range(30):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _erlang_md1_cdf(rho, mid) < q else (lo, mid)
    return hi


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
    # back to back (no pause between turns; engine.think_time's pause is pinned in tests/engine/test_think_time.py)
    w = Workload(model="llama-3.1-70b", concurrency=50, input_tokens=2000, output_tokens=256, think_time_s=0.0)
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


# ---- the percentile asked: "median TTFT under 300 ms", "p99 TTFT < 1 s", "average TTFT" (engine.queueing) ----


def test_percentiles_as_said_name_their_quantiles() -> None:
    assert percentile_quantile(None) == 0.95  # none said: the p95 assumed
    assert percentile_quantile("p50") == 0.5
    assert percentile_quantile("p99") == 0.99
    assert percentile_quantile("p99.9") == 0.999
    assert percentile_quantile("mean") is None
    assert Workload(ttft_percentile="median").ttft_percentile == "p50"  # a script's spellings, one form
    assert Workload(ttft_percentile=99).ttft_percentile == "p99"
    assert Workload(ttft_percentile="avg").ttft_percentile == "mean"
    with pytest.raises(ValueError):
        Workload(ttft_percentile="p100")


def test_every_percentile_pinned_at_sixty_percent() -> None:
    """60% busy, 0.15 s prefills: the mean wait is Pollaczek-Khinchine's 0.1125 s at every percentile asked as "mean";
    the median is the Cramer-Lundberg tail's (over the exponential's 0.0342 s), p95 and p99 the exponential's."""
    mean, at_mean = wait_seconds(0.6, 0.15, None)
    assert mean == at_mean == pytest.approx(0.1125)
    # Cramer-Lundberg: 0.6 (e^x - 1) = x at x = 0.9474; C = 0.4 / (0.6 e^x - 1) = 0.7307; median S ln(2C) / x
    median = wait_seconds(0.6, 0.15, 0.5)[1]
    assert median == pytest.approx(0.15 * math.log(2 * 0.7307) / 0.9474, rel=2e-3)
    assert median == pytest.approx(0.0600, abs=2e-4)
    assert median > 0.1875 * math.log(1.2)  # the exponential's median, 0.0342 s: 10% under the exact first token
    assert wait_seconds(0.6, 0.15, 0.95)[1] == pytest.approx(0.1875 * math.log(12))  # the p95 as before
    assert wait_seconds(0.6, 0.15, 0.99)[1] == pytest.approx(0.1875 * math.log(60))
    # at most half of the requests wait when at most half of the time is prefilling: no median wait, exactly
    assert wait_seconds(0.5, 0.15, 0.5)[1] == 0.0


@pytest.mark.parametrize(("q", "least"), [(0.5, 0.48), (0.75, 0.73), (0.9, 0.88), (0.95, 0.94), (0.99, 0.99),
                                          (0.999, 0.999)])
def test_every_percentile_against_the_exact_md1_wait(q: float, least: float) -> None:
    """At 10-90% utilisation, the share of requests that wait less than the wait stated at q, by Erlang's exact
    distribution: at least `least` (a point or two short only just above the no-wait atom and at the median), and the
    first token stated (prefill + wait) never more than 4.5% under the exact one."""
    for rho in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9):
        stated = wait_seconds(rho, 1.0, q)[1]
        assert _erlang_md1_cdf(rho, stated) >= least if stated > 0 else 1 - rho >= q
    for rho, q_at in ((0.14, 0.95), (0.23, 0.9), (0.44, 0.75), (0.68, 0.5), (0.6, 0.5), (0.6, 0.99)):
        stated, exact = wait_seconds(rho, 1.0, q_at)[1], _exact_md1_quantile(rho, q_at)
        assert (1 + stated) / (1 + exact) > 1 - 0.045


def test_the_exponential_alone_errs_short_at_the_median() -> None:
    """Why the larger of the two tails: the exponential's median at 70% utilisation is reached by only 44% of
    requests (its p95 and p99 by more than 95% and 99%)."""
    rho = 0.7
    mean = rho / (2 * (1 - rho))
    assert _erlang_md1_cdf(rho, (mean / rho) * math.log(rho / 0.5)) < 0.45
    assert _erlang_md1_cdf(rho, (mean / rho) * math.log(rho / 0.01)) > 0.99


@given(rho=st.floats(0.0, 0.99), service=st.floats(0.001, 60.0), q1=st.floats(0.01, 0.9999), q2=st.floats(0.01, 0.9999))
def test_the_wait_is_monotone_in_the_percentile(rho: float, service: float, q1: float, q2: float) -> None:
    lo, hi = sorted((q1, q2))
    assert wait_seconds(rho, service, lo)[1] <= wait_seconds(rho, service, hi)[1] + 1e-12
    assert wait_seconds(rho, service, hi)[1] >= 0.0


@given(r1=st.floats(0.0, 0.99), r2=st.floats(0.0, 0.99), q=st.floats(0.01, 0.9999))
def test_the_wait_is_monotone_in_utilisation(r1: float, r2: float, q: float) -> None:
    """What the sizing's bisections rely on (`max_utilisation`, users per replica): more load, no shorter wait."""
    lo, hi = sorted((r1, r2))
    assert wait_seconds(lo, 1.0, q)[1] <= wait_seconds(hi, 1.0, q)[1] + 1e-9


@given(users=st.integers(2, 400), prefill=st.floats(0.01, 5.0),
       percentiles=st.lists(st.sampled_from(["p50", "p75", "p90", "p95", "p99", "p99.9"]), min_size=2, max_size=2))
def test_the_asked_percentile_ttft_is_monotone_in_the_percentile(users: int, prefill: float,
                                                                 percentiles: list[str]) -> None:
    """The first token a plan states at a percentile asked: never shorter at a higher percentile."""
    lo, hi = sorted(percentiles, key=lambda p: float(p[1:]))
    w = Workload(model="llama-3.1-70b", concurrency=users, input_tokens=2000, output_tokens=256)
    at_lo = graded_ttft(w.model_copy(update={"ttft_percentile": lo}), users, 1, 0.05, prefill)
    at_hi = graded_ttft(w.model_copy(update={"ttft_percentile": hi}), users, 1, 0.05, prefill)
    assert prefill <= at_lo <= at_hi + 1e-12


def test_queued_ttft_states_the_percentile_asked() -> None:
    w = Workload(model="llama-3.1-70b", concurrency=50, input_tokens=2000, output_tokens=256, think_time_s=0.0)
    p95 = queued_ttft(w, 50, 1, 1 / 20.7, 0.15)
    median = queued_ttft(w.model_copy(update={"ttft_percentile": "p50"}), 50, 1, 1 / 20.7, 0.15)
    mean = queued_ttft(w.model_copy(update={"ttft_percentile": "mean"}), 50, 1, 1 / 20.7, 0.15)
    assert p95 is not None and median is not None and mean is not None
    assert p95.percentile == "p95" and p95.graded_s == p95.p95_s  # none said: p95, as before
    assert median.percentile == "p50" and 0.15 < median.graded_s < median.mean_s < median.p95_s == p95.p95_s
    assert mean.graded_s == mean.mean_s
    assert ttft_at(w, 50, 1, 1 / 20.7, 0.15, 0.5) == median.graded_s


# The brief's question: "serve llama 3.1 70b for 50 users, median TTFT under 300 ms, 2k token prompts" was graded and
# sized at p95 (2 B200s, 0.28 s at p95); one B200 meets a median of about 0.21 s for half the bill. And "p99 TTFT < 1 s"
# was graded at p95, short of what was asked.
def test_a_median_target_is_sized_at_the_median_and_a_p99_at_the_p99() -> None:
    asked = _ASKED.model_copy(update={"target_ttft_s": 0.3})
    at_p95 = _winner(asked)
    median = _winner(asked.model_copy(update={"ttft_percentile": "p50"}))
    check = next(t for t in median.throughput.targets if t.name == "target_ttft_s")
    assert check.met and check.percentile == "p50" and 0.15 < check.got <= 0.3
    assert median.total_usd < at_p95.total_usd
    p95_check = next(t for t in at_p95.throughput.targets if t.name == "target_ttft_s")
    assert p95_check.percentile == "p95"
    # p99 of a 1 s target: graded at the p99, which is over the same plan's p95
    p99 = _winner(asked.model_copy(update={"target_ttft_s": 1.0, "ttft_percentile": "p99"}))
    check99 = next(t for t in p99.throughput.targets if t.name == "target_ttft_s")
    ttft = p99.throughput.ttft_s
    assert ttft is not None and check99.percentile == "p99" and check99.got == pytest.approx(ttft.value, abs=1e-4)
    assert check99.got > ttft.inputs["p95_ttft_s"] > ttft.inputs["mean_ttft_s"]
