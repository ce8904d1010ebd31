"""How long ranking the whole catalog takes for one workload (target: well under 50 ms).

Run: `python -m benchmarks.bench_engine`. Prints the median and best of many repetitions
(time.perf_counter) for the real catalog when `catalog.open_catalog` works, and for a synthetic
5,000-offer catalog built from the test fixtures.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable

from catalog.records import CatalogData
from engine.advise import advise
from engine.architecture import architecture_for
from engine.models import Workload
from engine.recommend import rank
from tests.engine.fixtures_catalog import catalog_data

WORKLOADS = {
    "qlora 70B, 500 GB in S3, 20 runs": Workload(
        mode="qlora", model="llama-3-70b", dataset_gb=500, dataset_tokens=1_000_000_000, epochs=3,
        runs_per_month=20, data_location="aws",
    ),
    "serve 8B bf16, 16 concurrent": Workload(mode="inference", model="llama-3.1-8b", concurrency=16, precision="bf16"),
    "serve 8B, 16 concurrent, BF16 vs FP8": Workload(mode="inference", model="llama-3.1-8b", concurrency=16),
    "serve 70B, 100 users, 8k, 20 tok/s, BF16 vs FP8": Workload(mode="inference", model="llama-3.1-70b", concurrency=100, seq_len=8192,
                                                  target_tokens_per_s_per_user=20),
    "pretrain 405B on 15T tokens": Workload(mode="pretrain", model="llama-3.1-405b", dataset_tokens=15 * 10**12),
}


def _cold() -> None:
    """Forget what an earlier question computed (layout bytes per node shape), so each timing is a new question."""
    from engine.cluster import _sized
    from engine.memory import _figures, _training_sizer

    _sized.cache_clear()
    _figures.cache_clear()
    _training_sizer.cache_clear()


def synthetic_catalog(n_offers: int = 5_000) -> CatalogData:
    """The fixture catalog with its offers repeated across regions and prices: n_offers offers."""
    base = catalog_data()
    offers = []
    i = 0
    while len(offers) < n_offers:
        for offer in base.offers:
            if len(offers) >= n_offers:
                break
            price = (offer.on_demand_usd_per_hour or 1.0) * (0.8 + (i % 40) / 100)
            offers.append(offer.model_copy(update={"id": f"{offer.id}:{i}", "region": f"region-{i % 97}", "on_demand_usd_per_hour": price}))
            i += 1
    return base.model_copy(update={"offers": tuple(offers)})


def timeit(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """(median, best) CPU milliseconds of `fn` on a cold planner cache. CPU time (process_time) rather
    than wall time: the figure should not move with whatever else the shared machine runs."""
    fn()  # warm-up (imports, first allocations)
    samples = []
    for _ in range(repeat):
        _cold()
        start = time.process_time()
        fn()
        samples.append(time.process_time() - start)
    return statistics.median(samples) * 1e3, min(samples) * 1e3


def bench(label: str, data: CatalogData, repeat: int) -> None:
    for name, w in WORKLOADS.items():
        effective = advise(w, data).effective
        arch = architecture_for(data.model(w.model or ""), effective.params_b)
        med, best = timeit(lambda: rank(effective, arch, data), repeat)  # noqa: B023
        line = f"{label:<34} {len(data.offers):>6} offers | {name:<34} rank {med:7.2f} ms CPU (best {best:6.2f}) | "
        if any(p.code == "unknown_model" for p in advise(w, data).problems):
            # the named model is not in this catalog: advise stops at the question, which times nothing
            print(line + "advise n/a (model not in this catalog)")
            continue
        med_a, best_a = timeit(lambda: advise(w, data), repeat)  # noqa: B023
        print(line + f"advise {med_a:7.2f} ms (best {best_a:6.2f})")


def main() -> int:
    try:
        from catalog import open_catalog

        real = open_catalog().data()
    except Exception as exc:  # the real catalog may not be built yet
        print(f"real catalog: unavailable ({type(exc).__name__}: {exc})")
    else:
        bench("real catalog", real, repeat=20)
    bench("fixture catalog", catalog_data(), repeat=200)
    bench("synthetic catalog", synthetic_catalog(5_000), repeat=5)
    return 0


if __name__ == "__main__":
    sys.exit(main())
