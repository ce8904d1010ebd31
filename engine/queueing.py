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
- Tail, the exponential approximation: a request waits at all with probability rho (M/G/1, first come first served),
  and a wait, when there is one, is taken as exponential with the mean that keeps Wq: P(W > t) = rho exp(-rho t / Wq),
  so the q-quantile of the wait is (Wq / rho) ln(rho / (1 - q)), zero while rho <= 1 - q. The shape is exact for
  M/M/1 and is Kingman's heavy-traffic law (J. F. C. Kingman, "On queues in heavy traffic", J. R. Stat. Soc. B 24,
  1962: the wait is near exponential as rho -> 1). Against Erlang's exact M/D/1 waiting-time distribution it
  errs long: at 40-90% utilisation 95-97% of requests wait less than the p95 it states (`tests/engine/test_queueing.py`
  checks it), which sizes to the side of more replicas.
The time to first token is the wait plus S. Users held at once (a closed population: each sends a turn when the
last one ends) see the other users' prefills, not their own: rho x (users - 1) / users, the arrival theorem of
closed networks (a request finds the system as it would be without itself), so one user never waits.

Why not the prefill alone: vLLM's serving benchmark reports TTFT percentiles at a stated request rate, and its p95
sits well above the median once prompts queue (vLLM PR 7062: 7.8 requests/s, median 119 ms, p95 400 ms, p99 533 ms).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from engine.models import Workload
from engine.throughput import planned_rate, request_shape, under_load

TTFT_QUANTILE = 0.95  # the percentile a time-to-first-token target is graded at ("p95 TTFT < 500 ms")
# a queue at or past 100% grows without bound; the figures are stated at this utilisation at most (the engine's
# loaded step caps the prefill share at 90%; a fixed fleet over its capacity misses its rate target anyway)
MAX_UTILISATION = 0.95


@dataclass(frozen=True)
class QueuedTtft:
    """The time to first token of one replica at its load, in seconds."""

    utilisation: float  # the share of the replica's time the prefills a request can wait behind take
    prefill_s: float  # the request's own prefill (no queueing)
    mean_s: float  # prefill + mean wait
    p95_s: float  # prefill + the TTFT_QUANTILE wait


def prefill_share(batch: int, step_s: float, prefill_s: float, output_tokens: int) -> float:
    """The share of a replica's time prefills take with `batch` users each sending turn after turn: each turn lasts
    its prefill plus output_tokens steps as a user feels them (`step_s`, prefills' share included), so turns arrive
    at batch / (output x step + prefill) per second (Little's law), each prefilling for prefill_s. The same share
    `engine.throughput.loaded_step` solves for."""
    if batch <= 0 or prefill_s <= 0:
        return 0.0
    return batch * prefill_s / (max(0, output_tokens) * step_s + prefill_s)


def wait_seconds(utilisation: float, service_s: float, quantile: float = TTFT_QUANTILE) -> tuple[float, float]:
    """(mean, `quantile`) wait before service in an M/D/1 queue at `utilisation` with service time `service_s`: the
    Pollaczek-Khinchine mean and the exponential tail (module docstring)."""
    rho = min(max(utilisation, 0.0), MAX_UTILISATION)
    if rho <= 0.0 or service_s <= 0.0:
        return 0.0, 0.0
    mean = rho * service_s / (2 * (1 - rho))
    tail = 1 - quantile
    return mean, (mean / rho) * math.log(rho / tail) if rho > tail else 0.0


@functools.lru_cache(maxsize=1024)
def max_utilisation(service_s: float, target_s: float, quantile: float = TTFT_QUANTILE) -> float:
    """The most prefill utilisation at which service + the `quantile` wait stays within `target_s` (0 when the prefill
    alone does not): the wait grows with utilisation, so a bisection, to a millionth of the range (the replicas it
    sizes are whole)."""
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
    """(load known, the planned rate, output tokens) of the last workload asked about, kept by identity: the serving
    search grades every group it tries against one workload, and reading these walks several of its fields."""

    __slots__ = ("last",)

    def __init__(self) -> None:
        self.last: tuple[Workload, bool, float | None, int] | None = None

    def __call__(self, w: Workload) -> tuple[bool, float | None, int]:
        last = self.last
        if last is not None and last[0] is w:
            return last[1], last[2], last[3]
        found = (load_known(w), planned_rate(w), request_shape(w)[1])
        self.last = (w, *found)
        return found


_terms = _Terms()


def queues(w: Workload) -> bool:
    """`load_known`, read once per workload (the serving search asks for every group it sizes)."""
    return _terms(w)[0]


def queueing_utilisation(w: Workload, batch: int, replicas: int, step_s: float, prefill_s: float) -> float:
    """The prefill utilisation a request queues behind on its replica: a request rate spread over the replicas
    (open arrivals), else the other users' share of the users held at once (`prefill_share` x (batch - 1) / batch)."""
    _known, rate, out_tokens = _terms(w)
    if rate:
        return rate / max(1, replicas) * prefill_s
    if batch <= 1:
        return 0.0
    return prefill_share(batch, step_s, prefill_s, out_tokens) * (batch - 1) / batch


def queued_ttft(w: Workload, batch: int, replicas: int, step_s: float, prefill_s: float) -> QueuedTtft | None:
    """The time to first token at the load planned: prefill plus the M/D/1 wait (mean and p95); None where no load is
    known (one stream alone, an offline job), where the prefill alone is the first token. `step_s`: the per-token
    time a user sees at `batch` (prefills' share included), as the serving search sizes it."""
    if not _terms(w)[0] or prefill_s <= 0:
        return None
    rho = queueing_utilisation(w, batch, replicas, step_s, prefill_s)
    mean, tail = wait_seconds(rho, prefill_s)
    return QueuedTtft(utilisation=min(rho, MAX_UTILISATION), prefill_s=prefill_s, mean_s=prefill_s + mean,
                      p95_s=prefill_s + tail)


def p95_ttft(w: Workload, batch: int, replicas: int, step_s: float, prefill_s: float) -> float:
    """The TTFT_QUANTILE time to first token at the load planned, the prefill alone where no load is known: what a
    time-to-first-token target is graded against."""
    queued = queued_ttft(w, batch, replicas, step_s, prefill_s)
    return queued.p95_s if queued is not None else prefill_s
