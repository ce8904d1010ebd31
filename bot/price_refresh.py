"""Refreshing prices from the bot: the CLI's `catalog refresh`, the schedule in `serve`, and the
price-age line an answer can carry.

Why here: downloading is the network and the schedule is a thread, both the bot's business; the
catalog package holds what a refresh means (catalog/refresh.py). Downloads run on the caller's
thread; only the short write into the catalog database runs where the catalog lives (the
catalog thread in `serve`, see `ThreadConfinedCatalog.run`), so answers are not held up by a
slow download.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
from collections.abc import Sequence
from typing import Any

from catalog.refresh import (
    DEFAULT_BASE_URL,
    NOT_REFRESHABLE,
    SKYPILOT_CLOUDS,
    PriceAge,
    ProviderRefresh,
    price_age,
    refresh_provider,
    refresh_status,
    store_refreshes,
)

log = logging.getLogger(__name__)


def refreshable_providers(catalog: Any) -> list[str]:
    """The catalog's providers whose prices SkyPilot's catalog can refresh."""
    return [p.id for p in catalog.providers() if p.id in SKYPILOT_CLOUDS and p.id not in NOT_REFRESHABLE]


def refresh_catalog_prices(
    catalog: Any,
    *,
    base_url: str | None = None,
    providers: Sequence[str] | None = None,
    timeout_s: float = 30.0,
    all_regions: bool = False,
    today: str | None = None,
) -> list[ProviderRefresh]:
    """Refresh each provider, store the ones that worked, make the catalog use them; never raises."""
    wanted = list(providers) if providers else refreshable_providers(catalog)
    results = [refresh_provider(catalog, p, base_url=base_url or DEFAULT_BASE_URL, timeout_s=timeout_s,
                                today=today, all_regions=all_regions) for p in wanted]

    def store(real: Any) -> None:
        store_refreshes(real.db, results)
        real.reload()

    run = getattr(type(catalog), "run", None)
    if callable(run):  # a ThreadConfinedCatalog: write on the catalog's own thread
        catalog.run(store)
    else:
        store(catalog)
    return results


class RefreshSchedule:
    """`serve` with GPU_ADVISOR_REFRESH_HOURS: refresh every N hours on a daemon thread.

    The first refresh runs at start when the stored prices are older than N hours (or were never
    refreshed), else after N hours. A failed refresh is logged and keeps the previous prices; the
    next one is tried on time.
    """

    def __init__(self, catalog: Any, hours: float, *, base_url: str | None = None) -> None:
        self.catalog = catalog
        self.interval_s = hours * 3600.0
        self.base_url = base_url
        self.runs = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="price-refresh", daemon=True)

    def start(self) -> RefreshSchedule:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _loop(self) -> None:
        wait = 0.0 if self.due() else self.interval_s
        while not self._stop.wait(wait):
            self.refresh_now()
            wait = self.interval_s

    def due(self, today: str | None = None) -> bool:
        """True when no provider was refreshed successfully within the interval (by date)."""
        def last_good(real: Any) -> list[str]:
            return [r["last_ok_on"] for r in refresh_status(real.db) if r.get("last_ok_on")]

        run = getattr(type(self.catalog), "run", None)
        dates = self.catalog.run(last_good) if callable(run) else last_good(self.catalog)
        if not dates:
            return True
        now = dt.date.fromisoformat(today) if today else dt.date.today()
        age_h = (now - dt.date.fromisoformat(max(dates))).days * 24.0
        return age_h >= self.interval_s / 3600.0

    def refresh_now(self) -> list[ProviderRefresh]:
        try:
            results = refresh_catalog_prices(self.catalog, base_url=self.base_url)
        except Exception:  # the schedule must outlive any one failure
            log.exception("scheduled price refresh failed; previous prices kept")
            return []
        self.runs += 1
        for result in results:
            (log.info if result.ok else log.warning)("%s", result.lines()[0])
        return results


def offers_used(advice: Any, data: Any) -> list[Any]:
    """The offer records behind an answer's options (and their TCO rows)."""
    ids: set[str] = set()
    for option in getattr(advice, "options", ()) or ():
        if option.offer_id:
            ids.add(option.offer_id)
        ids.update(t.offer_id for t in option.tco if t.offer_id)
    return [o for o in data.offers if o.id in ids]


def answer_price_age(advice: Any, data: Any) -> PriceAge | None:
    """Oldest / newest `observed_on` of the offers an answer priced; None when it priced none."""
    return price_age(offers_used(advice, data))


def price_age_line(advice: Any, data: Any, today: str | None = None) -> str | None:
    """'Prices observed 2026-11-21 (2 days ago).' for an answer, or None when it has no prices."""
    age = answer_price_age(advice, data)
    return age.describe(today or dt.date.today().isoformat()) if age else None


__all__ = ["RefreshSchedule", "answer_price_age", "offers_used", "price_age_line", "refresh_catalog_prices",
           "refreshable_providers"]
