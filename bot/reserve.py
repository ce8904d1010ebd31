"""Reserve or rent on demand, with no model: "is it cheaper to reserve 8xH100 for a year or use on-demand for 6 hrs a
day?" (parser.reserve's `RESERVE_CUE`), answered with engine.reserve_or_on_demand's two monthly bills alone.

Routed here by `bot.service.Advisor.respond` as buy-or-rent is: the headline says the pick at the use said and the
hours a day from which reserving pays, the Cost line the arithmetic of both bills, the rows each provider's, and the
assumptions line the month, the term and where each reserved rate comes from (published for its own term, or
estimated). Its `ask --json` key (`reserve_or_on_demand`) is built here too (docs/json.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.formatting import fmt_usd, fmt_usd_short
from bot.limits import HEADER_TEXT
from bot.summary import AnswerView, ComparisonRow
from catalog.records import CatalogData
from engine.models import Workload
from engine.reserve_or_on_demand import (
    DAYS_PER_MONTH,
    DEFAULT_TERM_YEARS,
    RESERVED_DISCOUNT_ASSUMED,
    RESERVED_DISCOUNT_DEEP,
    ProviderRates,
    ReserveOrOnDemand,
    reserve_or_on_demand,
)
from engine.units import HOURS_PER_MONTH
from parser.reserve import RESERVE_CUE, reserve_settings

SERVER_GPUS = 8  # "reserve 2 nodes of H100": a node is an 8-GPU server
SHOWN = 3  # provider rows shown (plus the cheapest published reserved rate, when none of them is one)
USE_QUESTION = "How many hours a day are the GPUs busy (or what share of the time)?"
SAY = "say e.g. “12 hours a day”, “40% of the time”, “3 year term”"


@dataclass(frozen=True)
class ReserveAsked:
    """A reserve-or-on-demand question with no model: its two bills, and whether the thread said the term (else
    DEFAULT_TERM_YEARS, said as assumed)."""

    result: ReserveOrOnDemand
    term_said: bool = False


def reserve_only(w: Workload, cues: set[str] | frozenset[str]) -> bool:
    """A reserve-or-on-demand question about GPUs with no model or size: the two bills are the whole answer."""
    return RESERVE_CUE in cues and bool(w.gpu) and w.model is None and w.params_b is None


def reserve_said(w: Workload, cues: set[str] | frozenset[str], data: CatalogData) -> ReserveAsked:
    """Both bills for the GPUs the thread names, at the use and term it said (a 1-year term unless said)."""
    said = reserve_settings(cues)
    busy = said.get("busy")
    result = reserve_or_on_demand(str(w.gpu), int(w.gpu_count or (w.nodes or 0) * SERVER_GPUS or 1), data,
                                  hours_per_day=busy * 24 if busy is not None else None,
                                  term_years=said.get("years", DEFAULT_TERM_YEARS))
    return ReserveAsked(result, term_said="years" in said)


def _h(hours: float) -> str:
    """6, 9.6, 16.8: hours a day to a tenth, with no trailing .0."""
    return f"{hours:.1f}".removesuffix(".0")


def _term(years: float) -> str:
    return f"{years:g}-year"


def _source(row: ProviderRates) -> str:
    """"together.ai/pricing (GPU Clusters; …)" -> "together.ai/pricing": where the price is published."""
    return row.source.split(" (")[0].strip() or row.source


def _shown(r: ReserveOrOnDemand) -> list[ProviderRates]:
    rows = list(r.rows[:SHOWN])
    if not any(x.reserved_published for x in rows):
        rows += [x for x in r.rows[SHOWN:] if x.reserved_published][:1]
    return rows


def _reserved_words(row: ProviderRates) -> str:
    return f"${row.reserved_usd_per_gpu_hour:,.2f}/GPU-h" + ("" if row.reserved_published else " est.")


def _rates_basis(r: ReserveOrOnDemand, rows: list[ProviderRates]) -> str:
    """Where the reserved rates come from, and the term each is for."""
    parts = []
    for row in (x for x in rows if x.reserved_published):
        term = f"for reservations of {row.reserved_term}" if row.reserved_term else "with no term stated"
        parts.append(f"{row.provider_name}'s reserved rate is published {term} ({_source(row)}, {row.observed_on}); "
                     f"a {_term(r.term_years)} term is quoted per contract")
    if any(not x.reserved_published for x in rows):
        who = "the others'" if parts else "reserved rates"
        parts.append(f"{who} estimated at on-demand -{RESERVED_DISCOUNT_ASSUMED:.0%} (no published commitment price; "
                     "1-3 year terms at AWS, GCP and Azure run 30-50% below on-demand)")
    return "; ".join(parts)


def reserve_view(asked: ReserveAsked) -> AnswerView:
    """The pick at the use said, the hours a day from which reserving pays, both bills and each provider's rows,
    and what is assumed (the month, the term, the reserved rates' source)."""
    r = asked.result
    gpus = f"{r.gpus}× {r.gpu_name}"
    od, res, even = r.on_demand, r.reserved, r.break_even_hours_per_day
    if od is None or res is None or even is None:
        return AnswerView(headline=_cut(f"🗓️ Reserve or on demand, {gpus}: no provider with an SLA in the catalog rents "
                                        "them, so there is no reserved or on-demand rate to weigh"),
                          verdict="unknown", notes=["marketplace hosts sell no commitments; ask “price of "
                                                    f"{r.gpu_name}” for every listed rate"])
    term = _term(r.term_years)
    reserved_month = fmt_usd(res.reserved_usd_per_month)
    pays = f"reserving pays from {_h(even)} h a day"
    hour_a_day = od.on_demand_usd_per_gpu_hour * od.gpus_billed * DAYS_PER_MONTH
    if r.hours_per_day is None or od.on_demand_usd_per_month is None:
        headline = (f"🗓️ {gpus}, reserve or on demand: {pays} busy; reserved {reserved_month} a month, on demand "
                    f"{fmt_usd(hour_a_day)} a month per hour a day")
        questions = [USE_QUESTION]
        use = "no use said"
    else:
        on_demand_month = fmt_usd(od.on_demand_usd_per_month)
        at = f"at {_h(r.hours_per_day)} h a day"
        if r.pick == "reserve":
            headline = (f"🗓️ {gpus} {at}: reserve, {reserved_month} a month vs {on_demand_month} on demand; {pays}")
        else:
            headline = (f"🗓️ {gpus} {at}: on demand, {on_demand_month} a month vs {reserved_month} reserved (paid 24/7); "
                        f"{pays}")
        questions = []
        use = f"busy {_h(r.hours_per_day)} h a day ({r.hours_per_day / 24:.0%} of the time)"
    cost = (f"on demand at {od.provider_name}: ${od.on_demand_usd_per_gpu_hour:,.2f}/GPU-h × {od.gpus_billed} GPUs × "
            + (f"{_h(r.hours_per_day)} h × {DAYS_PER_MONTH:.1f} days = {fmt_usd(od.on_demand_usd_per_month)} a month"
               if r.hours_per_day is not None and od.on_demand_usd_per_month is not None
               else f"hours a day × {DAYS_PER_MONTH:.1f} days")
            + f" · reserved at {res.provider_name}: {_reserved_words(res)} × {res.gpus_billed} GPUs × "
              f"{HOURS_PER_MONTH:.0f} h = {reserved_month} a month, busy or not")
    rows = _shown(r)
    comparison = [ComparisonRow(
        role=("reserve" if x.on_demand_usd_per_month is not None and x.reserved_usd_per_month < x.on_demand_usd_per_month
              else "on demand" if x.on_demand_usd_per_month is not None else ""),
        name=f"{x.provider_name} ({x.gpus_billed} GPUs)",
        monthly=fmt_usd(x.on_demand_usd_per_month) if x.on_demand_usd_per_month is not None
        else f"${x.on_demand_usd_per_gpu_hour:,.2f}/GPU-h",
        unit_cost=f"{fmt_usd(x.reserved_usd_per_month)} ({_reserved_words(x)})",
        speed=f"{_h(x.break_even_hours_per_day)} h a day", winner=i == 0) for i, x in enumerate(rows)]
    commitment = r.commitment_usd or 0.0
    notes = [f"a {term} reservation at {res.provider_name} commits {fmt_usd_short(commitment)} "
             f"({reserved_month} a month × {12 * r.term_years:g}), paid whether the GPUs are busy or not; on demand "
             "bills only the busy hours if the GPUs are released between them, and is not always free at short notice, "
             "which a reservation guarantees"]
    if not res.reserved_published:
        notes.append(f"the {RESERVED_DISCOUNT_ASSUMED:.0%} discount assumed is the low end: at {RESERVED_DISCOUNT_DEEP:.0%} "
                     f"below on-demand (the deep end, longer terms most often) reserving pays from "
                     f"{_h(r.deep_break_even_hours_per_day)} h a day; a quote decides")
    assumptions = (f"Assumes {use} · {DAYS_PER_MONTH:.1f} days a month ({HOURS_PER_MONTH:.0f} h) · a {term} term"
                   f"{' (as you said)' if asked.term_said else ' (assumed)'}, paid around the clock · {_rates_basis(r, rows)}; {SAY}")
    return AnswerView(headline=_cut(headline), verdict="fits", questions=questions, cost=cost, comparison=comparison,
                      cost_label="on demand a month", unit_cost_label="reserved a month",
                      speed_label="reserving pays from", key_assumptions=assumptions, notes=notes)


def _cut(text: str) -> str:
    return text if len(text) <= HEADER_TEXT else text[:HEADER_TEXT - 1] + "…"


def _row_contract(x: ProviderRates) -> dict[str, Any]:
    def money(value: float | None) -> float | None:
        return None if value is None else round(value, 2)

    return {"provider": x.provider, "offer_id": x.offer_id, "gpus_billed": x.gpus_billed,
            "on_demand_usd_per_gpu_hour": round(x.on_demand_usd_per_gpu_hour, 4),
            "reserved_usd_per_gpu_hour": round(x.reserved_usd_per_gpu_hour, 4),
            "reserved_published": x.reserved_published, "reserved_term": x.reserved_term,
            "on_demand_usd_per_month": money(x.on_demand_usd_per_month),
            "reserved_usd_per_month": money(x.reserved_usd_per_month),
            "break_even_hours_per_day": round(x.break_even_hours_per_day, 2),
            "source": x.source, "observed_on": x.observed_on}


def reserve_contract(asked: ReserveAsked | None) -> dict[str, Any] | None:
    """`reserve_or_on_demand` in `ask --json` (docs/json.md): both bills of a reserve-or-on-demand question."""
    if asked is None:
        return None
    r = asked.result
    od, res, even = r.on_demand, r.reserved, r.break_even_hours_per_day
    return {
        "gpu": r.gpu, "gpus": r.gpus, "hours_per_day": None if r.hours_per_day is None else round(r.hours_per_day, 3),
        "term_years": r.term_years, "term_said": asked.term_said, "days_per_month": round(DAYS_PER_MONTH, 3), "pick": r.pick,
        "break_even_hours_per_day": None if even is None else round(even, 2),
        "on_demand_provider": od.provider if od is not None else None,
        "on_demand_usd_per_month": (round(od.on_demand_usd_per_month, 2)
                                    if od is not None and od.on_demand_usd_per_month is not None else None),
        "reserved_provider": res.provider if res is not None else None,
        "reserved_usd_per_month": round(res.reserved_usd_per_month, 2) if res is not None else None,
        "commitment_usd": None if r.commitment_usd is None else round(r.commitment_usd, 2),
        "providers": [_row_contract(x) for x in r.rows],
    }
