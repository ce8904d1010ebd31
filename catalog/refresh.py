"""Prices that refresh: download SkyPilot's hosted catalog, show what changed, keep an overlay.

Why an overlay and not a rewrite of offers.csv: the data files are reviewed text under version
control (every row with a source). A refresh is a fetch at run time, so its rows live in the
catalog database (`offer_overlay`, kept across rebuilds by catalog/build.py) with their own
provenance (the URL and the date fetched) and replace the bundled rows with the same id when
answers are computed (`apply_overlay`, used by `Catalog.data()`).

What a refresh of one provider does:
1. GET `{base_url}/{cloud}/vms.csv` (the public skypilot-org/skypilot-catalog repository,
   refreshed there every few hours; schema v8 and v9 are read by header name);
2. turn its GPU rows into offers with `catalog.skypilot` (same quirks handled as an import),
   keeping the regions the bundled data already prices for that provider (all regions when it
   has none), so a refresh updates prices rather than flooding answers with every region;
3. compare with the bundled rows: price up/down, new rows, rows SkyPilot no longer lists;
4. only when all of that worked, replace that provider's overlay. A download that fails, times
   out or is malformed leaves the previous prices in place, and the result says why.

Reviewed fields SkyPilot does not carry (inter-node fabric, reserved price, cluster size) are
kept from the bundled row when a refreshed row replaces it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # only annotations here: answering reads the overlay with plain sqlite3 (cold start)
    import sqlite_utils

from catalog.overlay import apply_overlay, load_overlay  # noqa: F401 - re-exported (see __all__)
from catalog.records import OfferRecord
from catalog.skypilot import missing_columns, read_skypilot_text

DEFAULT_BASE_URL = "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs/v8"
# Catalog provider id -> SkyPilot's cloud directory. Providers without one (CoreWeave, SageMaker,
# Together, ...) keep their reviewed prices.
SKYPILOT_CLOUDS = {
    "aws": "aws", "gcp": "gcp", "azure": "azure", "lambda": "lambda", "runpod": "runpod", "nebius": "nebius",
    "vast": "vast", "oci": "oci", "fluidstack": "fluidstack", "paperspace": "paperspace", "cudo": "cudo",
    "do": "do", "hyperbolic": "hyperbolic",
}
# Providers SkyPilot has a catalog for that cannot be refreshed from it, and why
NOT_REFRESHABLE = {
    "gcp": "SkyPilot prices GCP GPUs as attachable accelerators in rows of their own, apart from the host VM "
           "(its a2/a3 rows are the host only), so its rows are not whole-node prices; the reviewed GCP prices stay",
}
MAX_BYTES = 64 * 1024 * 1024  # a vms.csv is a few MB; anything this large is not one
_SKYPILOT_SOURCE = "SkyPilot catalog"


def _from_skypilot(source: str) -> bool:
    """A bundled row read from SkyPilot's catalog (cited as the skypilot-catalog repository or by name)."""
    return source.startswith(_SKYPILOT_SOURCE) or "skypilot-org/skypilot-catalog" in source


class RefreshError(Exception):
    """Why one provider's download could not be used; `str()` is the line the user sees."""


@dataclass(frozen=True)
class PriceChange:
    offer_id: str
    price: str  # "on-demand" or "spot"
    old_usd_per_hour: float | None
    new_usd_per_hour: float | None

    def line(self) -> str:
        def show(v: float | None) -> str:
            return "none" if v is None else f"${v:,.4g}/h"

        if self.old_usd_per_hour is not None and self.new_usd_per_hour is not None:
            pct = (self.new_usd_per_hour / self.old_usd_per_hour - 1) * 100 if self.old_usd_per_hour else 0.0
            word = "up" if self.new_usd_per_hour > self.old_usd_per_hour else "down"
            return f"{self.offer_id} {self.price} {word} {show(self.old_usd_per_hour)} → {show(self.new_usd_per_hour)} ({pct:+.1f}%)"
        return f"{self.offer_id} {self.price} {show(self.old_usd_per_hour)} → {show(self.new_usd_per_hour)}"


@dataclass
class ProviderRefresh:
    """One provider's refresh: the offers to keep (when `ok`) and what changed against bundled data."""

    provider: str
    url: str
    fetched_on: str
    ok: bool
    reason: str = ""  # why it failed; empty when ok
    offers: list[OfferRecord] = field(default_factory=list)
    removed: list[OfferRecord] = field(default_factory=list)  # bundled SkyPilot rows no longer listed
    new: list[str] = field(default_factory=list)
    changes: list[PriceChange] = field(default_factory=list)
    skipped_rows: int = 0

    def lines(self) -> list[str]:
        """The report `gpu-advisor catalog refresh` prints for this provider."""
        if not self.ok:
            return [f"{self.provider}: refresh failed, previous prices kept — {self.reason}"]
        out = [f"{self.provider}: {len(self.offers)} offers from {self.url} (fetched {self.fetched_on}); "
               f"{len(self.changes)} price changes, {len(self.new)} new, {len(self.removed)} no longer listed"]
        out += [f"  {c.line()}" for c in self.changes]
        out += [f"  new: {offer_id}" for offer_id in self.new]
        out += [f"  no longer listed (left out of answers): {o.id}" for o in self.removed]
        return out


# --- fetching --------------------------------------------------------------------------------------
def catalog_url(base_url: str, provider: str) -> str:
    cloud = SKYPILOT_CLOUDS.get(provider, provider)
    return f"{base_url.rstrip('/')}/{cloud}/vms.csv"


def fetch_text(url: str, timeout_s: float = 30.0) -> str:
    """The body of `url` as text; `RefreshError` with a readable reason on any failure. urllib is imported
    here: answering a question reads this module (the price overlay) and must not pay for http/ssl/email."""
    import urllib.error
    import urllib.request

    request = urllib.request.Request(url, headers={"User-Agent": "gpu-advisor catalog refresh"})
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:  # noqa: S310 - http(s) URL from config
            body = response.read(MAX_BYTES + 1)
    except urllib.error.HTTPError as exc:
        raise RefreshError(f"{url} answered HTTP {exc.code}") from None
    except TimeoutError:
        raise RefreshError(f"{url} did not answer within {timeout_s:g} s") from None
    except urllib.error.URLError as exc:
        if isinstance(exc.reason, TimeoutError):
            raise RefreshError(f"{url} did not answer within {timeout_s:g} s") from None
        raise RefreshError(f"{url} could not be reached ({exc.reason})") from None
    except (OSError, ValueError) as exc:
        raise RefreshError(f"{url} could not be read ({exc})") from None
    if len(body) > MAX_BYTES:
        raise RefreshError(f"{url} is larger than {MAX_BYTES // 2**20} MB: not a SkyPilot vms.csv")
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        raise RefreshError(f"{url} is not UTF-8 text") from None


def refresh_provider(
    catalog: Any,
    provider: str,
    *,
    base_url: str = DEFAULT_BASE_URL,
    timeout_s: float = 30.0,
    today: str | None = None,
    all_regions: bool = False,
) -> ProviderRefresh:
    """Download and read one provider's SkyPilot catalog and compare it with the bundled rows.

    Reads the catalog only through its methods (`gpus`, `resolve_gpu`, `bundled_offers`), so the
    bot can run this on any thread; nothing is stored (see `store_refreshes`). Never raises.
    """
    fetched_on = today or dt.date.today().isoformat()
    url = catalog_url(base_url, provider)
    failed = ProviderRefresh(provider, url, fetched_on, ok=False)
    if provider in NOT_REFRESHABLE:
        failed.reason = f"not refreshed: {NOT_REFRESHABLE[provider]}"
        return failed
    try:
        text = fetch_text(url, timeout_s)
        header = text.splitlines()[0] if text.strip() else ""
        missing = missing_columns([c.strip() for c in header.split(",")]) if header else ["every column"]
        if missing:
            raise RefreshError(f"{url} is not a SkyPilot vms.csv: no {', '.join(missing)} column")
        skipped: list[str] = []
        offers = read_skypilot_text(text, provider, fetched_on, catalog=catalog,
                                    source_label=f"{url} (fetched {fetched_on})", skipped=skipped)
    except RefreshError as exc:
        failed.reason = str(exc)
        return failed
    except Exception as exc:  # noqa: BLE001 - a malformed file of any kind keeps the previous prices
        failed.reason = f"{url} could not be read as a SkyPilot vms.csv ({type(exc).__name__}: {exc})"
        return failed

    bundled = {o.id: o for o in catalog.bundled_offers() if o.provider == provider}
    regions = {o.region for o in bundled.values()}
    if regions and not all_regions:
        offers = [o for o in offers if o.region in regions]
    if not offers:
        failed.reason = f"{url} has no GPU offers the catalog can use" + (
            f" in {', '.join(sorted(regions))}" if regions and not all_regions else "")
        return failed
    kept = [_keep_reviewed_fields(o, bundled.get(o.id)) for o in offers]
    listed = {o.id for o in kept}
    result = ProviderRefresh(provider, url, fetched_on, ok=True, offers=kept, skipped_rows=len(skipped))
    result.new = sorted(listed - set(bundled))
    result.removed = sorted((o for o in bundled.values() if o.id not in listed and _from_skypilot(o.source)
                             and (all_regions or o.region in regions)), key=lambda o: o.id)
    for offer in kept:
        old = bundled.get(offer.id)
        if old is None:
            continue
        for label, before, after in (("on-demand", old.on_demand_usd_per_hour, offer.on_demand_usd_per_hour),
                                     ("spot", old.spot_usd_per_hour, offer.spot_usd_per_hour)):
            if _differs(before, after):
                result.changes.append(PriceChange(offer.id, label, before, after))
    return result


def _differs(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return (a is None) != (b is None)
    return abs(a - b) > 1e-6 * max(abs(a), abs(b), 1.0)


def _keep_reviewed_fields(new: OfferRecord, old: OfferRecord | None) -> OfferRecord:
    """A refreshed row keeps what only the reviewed row knows (fabric, reserved price, managed premium),
    and a price SkyPilot leaves empty (AWS capacity-block-only shapes) is not erased."""
    if old is None:
        return new
    keep: dict[str, Any] = {}
    if new.on_demand_usd_per_hour is None and old.on_demand_usd_per_hour is not None:
        keep["on_demand_usd_per_hour"] = old.on_demand_usd_per_hour
        keep["notes"] = "; ".join(filter(None, [new.notes.replace(
            "no on-demand price (capacity blocks / reservations only)", "").strip("; "),
            f"on-demand price kept from the reviewed row ({old.source}, {old.observed_on}): SkyPilot lists none"]))
    for name in ("inter_node_fabric", "inter_node_gbps", "max_nodes", "reserved_usd_per_hour",
                 "managed_premium_fraction", "intra_node_link"):
        if getattr(old, name) is not None and (getattr(new, name) is None or name == "intra_node_link"):
            keep[name] = getattr(old, name)
    if old.managed:
        keep["managed"] = True
    return new.model_copy(update=keep) if keep else new


# --- the overlay in the catalog database ------------------------------------------------------------
def ensure_overlay_tables(db: sqlite_utils.Database) -> None:
    if "offer_overlay" not in db.table_names():
        db.table("offer_overlay").create({"id": str, "provider": str, "removed": int, "record": str, "url": str,
                                    "fetched_on": str}, pk="id")
    if "refresh_log" not in db.table_names():
        db.table("refresh_log").create({"provider": str, "url": str, "fetched_on": str, "ok": int, "reason": str,
                                  "offers": int, "last_ok_on": str}, pk="provider")


def store_refreshes(db: sqlite_utils.Database, results: Sequence[ProviderRefresh]) -> None:
    """Write successful refreshes into the overlay (replacing each provider's previous rows) and log
    every attempt. A failed provider's overlay is left as it was."""
    ensure_overlay_tables(db)
    with db.conn:
        for result in results:
            previous = db.table("refresh_log").get(result.provider) if _has_row(db, result.provider) else {}
            last_ok = result.fetched_on if result.ok else (previous.get("last_ok_on") or "")
            db.table("refresh_log").upsert({"provider": result.provider, "url": result.url, "fetched_on": result.fetched_on,
                                      "ok": int(result.ok), "reason": result.reason, "offers": len(result.offers),
                                      "last_ok_on": last_ok}, pk="provider")
            if not result.ok:
                continue
            db.execute("DELETE FROM offer_overlay WHERE provider = ?", [result.provider])
            rows = [{"id": o.id, "provider": o.provider, "removed": 0, "record": o.model_dump_json(), "url": result.url,
                     "fetched_on": result.fetched_on} for o in result.offers]
            rows += [{"id": o.id, "provider": o.provider, "removed": 1, "record": o.model_dump_json(), "url": result.url,
                      "fetched_on": result.fetched_on} for o in result.removed]
            db.table("offer_overlay").insert_all(rows, pk="id", replace=True)


def _has_row(db: sqlite_utils.Database, provider: str) -> bool:
    return bool(db.execute("SELECT 1 FROM refresh_log WHERE provider = ?", [provider]).fetchall())


def refresh_status(db: sqlite_utils.Database) -> list[dict[str, Any]]:
    """The last refresh attempt per provider (url, date, ok, why not, last good date)."""
    if "refresh_log" not in db.table_names():
        return []
    return [dict(r) for r in db["refresh_log"].rows_where(order_by="provider")]


# --- how old are the prices -------------------------------------------------------------------------
@dataclass(frozen=True)
class PriceAge:
    oldest: str  # ISO date
    newest: str

    def days_old(self, today: str | None = None) -> int:
        now = dt.date.fromisoformat(today) if today else dt.date.today()
        return (now - dt.date.fromisoformat(self.oldest)).days

    def describe(self, today: str | None = None) -> str:
        """'Prices observed 2026-11-21 (2 days ago)' / 'Prices observed 2026-09-26 to 2026-11-21 (oldest 58 days ago)'."""
        days = self.days_old(today)
        ago = "today" if days <= 0 else ("1 day ago" if days == 1 else f"{days} days ago")
        if self.oldest == self.newest:
            return f"Prices observed {self.oldest} ({ago})."
        return f"Prices observed {self.oldest} to {self.newest} (oldest {ago})."


def price_age(offers: Iterable[OfferRecord]) -> PriceAge | None:
    """Oldest and newest `observed_on` of the offers an answer used; None when it used none."""
    dates = sorted(o.observed_on for o in offers if o.observed_on)
    return PriceAge(dates[0], dates[-1]) if dates else None


def to_json(results: Sequence[ProviderRefresh]) -> list[dict[str, Any]]:
    """The `--json` form of a refresh report."""
    return [{"provider": r.provider, "url": r.url, "fetched_on": r.fetched_on, "ok": r.ok, "reason": r.reason,
             "offers": len(r.offers), "new": r.new, "removed": [o.id for o in r.removed],
             "changes": [c.__dict__ for c in r.changes], "skipped_rows": r.skipped_rows} for r in results]


__all__ = ["DEFAULT_BASE_URL", "PriceAge", "PriceChange", "ProviderRefresh", "RefreshError", "apply_overlay",
           "catalog_url", "fetch_text", "load_overlay", "price_age", "refresh_provider", "refresh_status",
           "store_refreshes", "to_json"]
