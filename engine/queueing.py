"""Time to first token under load: a request's prefill, plus the wait behind the prefills ahead of it.

A replica prefills one prompt at a time (vLLM and SGLang schedule waiting prompts first-come, first-served into the
next steps), and the serving search already knows what share of each replica's time prefills take
(`engine.throughput.loaded_step`: 60% for 50 users sending 2k-token prompts to a 70B model on one B200). A request
that arrives while others' prompts are being prefilled waits for them, so the first token comes later than the
prefill alone says, and at a tail percentile several prefills later.

The replica's prefills are modelled as an M/D/1 queue: requests arrive at random (Poisson) and each prefill takes
the same time S (the request shape's prompt), at utilisation rho = arrivals/s x S.
- Mean wait, the Pollaczek-Khinchine formula with deterministic service (Wq = lambda E[S^2] / (2 (1 - rho)),
  E[S^2] = S^2): Wq = rho S / (2 (1 - rho)) (Wikipedia, "M/D/1 queue" and "Pollaczek-Khinchine formula").
- Tail, at any percentile q (p50, p90, p95, p99, p99.9): a request waits at all with probability rho (M/G/1, first
  come first served), so the q-quantile of the wait is zero while rho <= 1 - q, exactly. Past that, the larger of two
  tail laws:
  - the exponential approximation: a wait, when there is one, is taken as exponential with the mean that keeps Wq,
    P(W > t) = rho exp(-rho t / Wq), so the q-quantile is (Wq / rho) ln(rho / (1 - q)). The shape is exact for M/M/1
    and is Kingman's heavy-traffic law (J. F. C. Kingman, "On queues in heavy traffic", J. R. Stat. Soc. B 24, 1962:
    the wait is near exponential as rho -> 1);
  - the Cramer-Lundberg asymptotic of the M/G/1 wait (S. Asmussen, "Applied Probability and Queues", 2nd ed. 2003,
    ch. XIII): P(W > t) ~ C exp(-g t), g > 0 solving lambda (E[exp(g S)] - 1) = g, i.e. rho (e^x - 1) = x with
    x = g S for a fixed prefill, and C = (1 - rho) / (rho e^x - 1); the q-quantile is S ln(C / (1 - q)) / x.
  Against Erlang's exact M/D/1 waiting-time distribution (`tests/engine/test_queueing.py` checks p50-p99.9 at 10-90%
  utilisation): the exponential errs long in the tail (its p95 at 40-90% utilisation is waited past by 3-5% of
  requests, its p99.9 at 20% is 31% over the exact first token) and short in the body (its median at 60-70%
  utilisation is reached by 44-46% of requests, a first token 10% under the exact one); the Cramer-Lundberg law is
  within 0.5% of the exact first token from p90 up at 50-95% utilisation, and errs short just above the no-wait atom.
  The larger of the two keeps p95 and up where the exponential put them from 16% utilisation (erring to more
  replicas) and states every percentile at most 4.5% under the exact first token (2% at the median).
- Mean, asked as such ("average TTFT under 400 ms"): the Pollaczek-Khinchine mean above, exact for M/D/1.
The time to first token is the wait plus S. Users held at once (a closed population: each sends a turn when the
last one ends and they have read it, `engine.think_time`'s pause, 20 s unless said) see the other users' prefills,
not their own: rho x (users - 1) / users, the arrival theorem of closed networks (a request finds the system as it
would be without itself), so one user never waits.

Why not the prefill alone: vLLM's serving benchmark reports TTFT percentiles at a stated request rate, and its p95
sits well above the median once prompts queue (vLLM PR 7062: 7.8 requests/s, median 119 ms, p95 400 ms, p99 533 ms).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from engine.models import Workload
from engine.think_time import think_time_s
from engine.throughput import planned_rate, request_shape, under_load

TTFT_QUANTILE = 0.95  # the percentile a time-to-first-token target is graded at when none is said ("TTFT < 500 ms")
DEFAULT_TTFT_PERCENTILE = "p95"  # the same, as the answer and `ask --json` say it
MEAN = "mean"  # "average TTFT under 400 ms": the Pollaczek-Khinchine mean, no percentile
# a queue at or past 100% grows without bound; the figures are stated at this utilisation at most (the engine's
# loaded step caps the prefill share at 90%; a fixed fleet over its capacity misses its rate target anyway)
MAX_UTILISATION = 0.95


@functools.lru_cache(maxsize=64)
def percentile_quantile(percentile: str | None) -> float | None:
    """The quantile a percentile names: "p99" -> 0.99, "p99.9" -> 0.999, "p50" -> 0.5; None for "mean" (graded at
    the mean wait); TTFT_QUANTILE where none was said."""
    if percentile is None:
        return TTFT_QUANTILE
    if percentile == MEAN:
        return None
    return round(float(percentile.removeprefix("p")) / 100, 6)


def ttft_percentile(w: Workload) -> str:
    """The percentile `w`'s time to first token is graded and stated at: the one said, else DEFAULT_TTFT_PERCENTILE."""
    return w.ttft_percentile or DEFAULT_TTFT_PERCENTILE


def percentile_words(percentile: str) -> str:
    """"p50" -> "p50", "mean" -> "mean": how the answer names it beside a figure ("0.21 s at p50", "0.12 s mean")."""
    return "on average" if percentile == MEAN else f"at {percentile}"


@dataclass(frozen=True)
class QueuedTtft:
    """The time to first token of one replica at its load, in seconds."""

    utilisation: float  # the share of the replica's time the prefills a request can wait behind take
    prefill_s: float  # the request's own prefill (no queueing)
    mean_s: float  # prefill + mean wait
    p95_s: float  # prefill + the TTFT_QUANTILE wait
    graded_s: float  # prefill + the wait at the percentile asked (`ttft_percentile`): what a target is graded against
    percentile: str = DEFAULT_TTFT_PERCENTILE  # the percentile `graded_s` is at ("p50", "p99", "mean")


def prefill_share(batch: int, step_s: float, prefill_s: float, output_tokens: int, pause_s: float = 0.0) -> float:
    """The share of a replica's time prefills take with `batch` users each sending turn after turn: each turn lasts
    its prefill plus output_tokens steps as a user feels them (`step_s`, prefills' share included), then the user
    pauses `pause_s` (engine.think_time: reading the reply; 0 for requests kept in flight), so turns arrive at
    batch / (output x step + prefill + pause) per second (Little's law), each prefilling for prefill_s. The same
    share `engine.throughput.loaded_step` solves for."""
    if batch <= 0 or prefill_s <= 0:
        return 0.0
    return batch * prefill_s / (max(0, output_tokens) * step_s + prefill_s + max(0.0, pause_s))


def _cramer_lundberg(rho: float) -> tuple[float, float]:
    """(x, C) of the M/D/1 wait's Cramer-Lundberg tail P(W > t) ~ C exp(-x t / S) (module docstring): x > 0 solves
    rho (e^x - 1) = x by Newton's method from the right, where the function is convex so each step stays right of the
    root and closes in (a dozen steps to 1e-12); x0 = min(2 (1 - rho) / rho, 2 ln(1 / rho) + 1) is right of it
    (rho (e^x - 1) >= rho (x + x^2 / 2) = x at the first; e / rho - rho - 2 ln(1 / rho) - 1 > 0 at the second)."""
    x = min(2 * (1 - rho) / rho, 2 * math.log(1 / rho) + 1)
    for _ in range(60):
        ex = math.exp(x)
        step = (rho * (ex - 1) - x) / (rho * ex - 1)
        x -= step
        if step < 1e-12:
            break
    return x, (1 - rho) / (rho * math.exp(x) - 1)


def _tail_wait(rho: float, mean: float, service_s: float, quantile: float) -> float:
    """The `quantile` wait at utilisation 0 < rho <= MAX_UTILISATION with Pollaczek-Khinchine mean `mean`: zero while
    rho <= 1 - quantile (that share finds the prefill free), else the larger of the exponential and Cramer-Lundberg
    tails' quantiles (module docstring)."""
    tail = 1 - quantile
    if rho <= tail:
        return 0.0
    exponential = (mean / rho) * math.log(rho / tail)
    x, c = _cramer_lundberg(rho)
    return max(exponential, service_s * math.log(c / tail) / x if c > tail else 0.0)


def wait_seconds(utilisation: float, service_s: float, quantile: float | None = TTFT_QUANTILE) -> tuple[float, float]:
    """(mean, `quantile`) wait before service in an M/D/1 queue at `utilisation` with service time `service_s`: the
    Pollaczek-Khinchine mean and the tail (module docstring); `quantile` None is the mean twice (a target on the
    average)."""
    rho = min(max(utilisation, 0.0), MAX_UTILISATION)
    if rho <= 0.0 or service_s <= 0.0:
        return 0.0, 0.0
    mean = rho * service_s / (2 * (1 - rho))
    return mean, mean if quantile is None else _tail_wait(rho, mean, service_s, quantile)


@functools.lru_cache(maxsize=1024)
def max_utilisation(service_s: float, target_s: float, quantile: float | None = TTFT_QUANTILE) -> float:
    """The most prefill utilisation at which service + the `quantile` wait (None: the mean) stays within `target_s` (0
    when the prefill alone does not): the wait grows with utilisation, so a bisection, to a millionth of the range
    (the replicas it sizes are whole)."""
    if service_s >= target_s:
        return 0.0
    lo, hi = 0.0, MAX_UTILISATION
    if service_s + wait_seconds(hi, service_s, quantile)[1] <= target_s:
        return hi
    for _ in range(20):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if service_s + wait_seconds(mid, service_s, quantile)[1] <= target_s else (lo, mid)
    return lo


def load_known(w: Workload) -> bool:
    """A service whose requests queue for the prefill: a request rate, or several users sending turns, online (an
    offline job has nobody waiting on a first token)."""
    if w.batch_items or w.offline or not under_load(w):
        return False
    return bool(planned_rate(w)) or (w.concurrency or 1) > 1


class _Terms:
    """(load known, the planned rate, output tokens, users' pause) of the last workload asked about, kept by identity:
    the serving search grades every group it tries against one workload, and reading these walks several of its
    fields."""

    __slots__ = ("last",)

    def __init__(self) -> None:
        self.last: tuple[Workload, bool, float | None, int, float] | None = None

    def __call__(self, w: Workload) -> tuple[bool, float | None, int, float]:
        last = self.last
        if last is not None and last[0] is w:
            return last[1], last[2], last[3], last[4]
        found = (load_known(w), planned_rate(w), request_shape(w)[1], think_time_s(w))
        self.last = (w, *found)
        return found


_terms = _Terms()


def queues(w: Workload) -> bool:
    """`load_known`, read once per workload (the serving search asks for every group it sizes)."""
    return _terms(w)[0]


def queueing_utilisation(w: Workload, batch: int, replicas: int, step_s: float, prefill_s: float) -> float:
    """The prefill utilisation a request queues behind on its replica: a request rate spread over the replicas
    (open arrivals), else the other users' share of the users held at once (`prefill_share` x (batch - 1) / batch),
    each pausing between turns as engine.think_time says."""
    _known, rate, out_tokens, pause = _terms(w)
    if rate:
        return rate / max(1, replicas) * prefill_s
    if batch <= 1:
        return 0.0
    return prefill_share(batch, step_s, prefill_s, out_tokens, pause) * (batch - 1) / batch


def queued_ttft(w: Workload, batch: int, replicas: int, step_s: float, prefill_s: float) -> QueuedTtft | None:
    """The time to first token at the load planned: prefill plus the M/D/1 wait (mean, p95 and at the percentile
    asked); None where no load is known (one stream alone, an offline job), where the prefill alone is the first
    token. `step_s`: the per-token time a user sees at `batch` (prefills' share included), as the serving search sizes
    it."""
    if not _terms(w)[0] or prefill_s <= 0:
        return None
    rho = queueing_utilisation(w, batch, replicas, step_s, prefill_s)
    mean, tail = wait_seconds(rho, prefill_s)
    percentile = ttft_percentile(w)
    quantile = percentile_quantile(percentile)
    graded = tail if quantile == TTFT_QUANTILE else wait_seconds(rho, prefill_s, quantile)[1]
    return QueuedTtft(utilisation=min(rho, MAX_UTILISATION), prefill_s=prefill_s, mean_s=prefill_s + mean,
                      p95_s=prefill_s + tail, graded_s=prefill_s + graded, percentile=percentile)


def ttft_at(w: Workload, batch: int, replicas: int, step_s: float, prefill_s: float,
            quantile: float | None = TTFT_QUANTILE) -> float:
    """The `quantile` time to first token (None: the mean) at the load planned, the prefill alone where no load is
    known."""
    if not _terms(w)[0] or prefill_s <= 0:
        return prefill_s
    return prefill_s + wait_seconds(queueing_utilisation(w, batch, replicas, step_s, prefill_s), prefill_s, quantile)[1]


def p95_ttft(w: Workload, batch: int, replicas: int, step_s: float, prefill_s: float) -> float:
    """The TTFT_QUANTILE time to first token at the load planned, the prefill alone where no load is known."""
    return ttft_at(w, batch, replicas, step_s, prefill_s)


def graded_ttft(w: Workload, batch: int, replicas: int, step_s: float, prefill_s: float) -> float:
    """The time to first token at the percentile asked (`ttft_percentile`: p95 where none was said), the prefill alone
    where no load is known: what a time-to-first-token target is graded and sized against."""
    return ttft_at(w, batch, replicas, step_s, prefill_s, percentile_quantile(ttft_percentile(w)))
