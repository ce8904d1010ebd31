"""The answer to "… vs gpt-4o-mini api": the hosted API's bill beside the self-hosted plan (engine.api_compare).

Why apart from bot.service: the service only decides that a message (or its thread) names an API; this module picks
the price row, asks the engine for the figures, and says them: the `API:` line under the plan's cost, the arithmetic
for `--details`, and the `api_comparison` key of `ask --json` (docs/json.md). A message naming an API and no model
("how much would gpt-4o cost for 1B tokens a month") is priced alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.formatting import fmt_num, fmt_usd, winner_option
from catalog.api_prices import for_model
from catalog.records import ApiPriceRecord, CatalogData
from engine.api_compare import ApiBill, ApiComparison, api_only, compare
from engine.models import Advice, Workload


@dataclass(frozen=True)
class ApiAnswer:
    """An API named: its price row, and either the comparison with the plan or its bill alone (`bill`; None when no
    token count was said, and the answer is its prices)."""

    price: ApiPriceRecord
    comparison: ApiComparison | None = None
    bill: ApiBill | None = None
    model_name: str = ""


def _price(data: CatalogData, api_id: str, model_id: str | None) -> ApiPriceRecord | None:
    rows = tuple(getattr(data, "api_prices", ()) or ())
    named = next((r for r in rows if r.id == api_id), None)
    return for_model(rows, named, model_id) if named is not None else None


def api_answer(api_id: str | None, advice: Advice | None, workload: Workload | None, data: CatalogData,
               names: dict[str, str]) -> ApiAnswer | None:
    """The API answer for this response: compared with the plan when one serves a model, priced alone when no model
    was named; None when no API was named, the row is unknown, or the plan trains (an API is no training plan)."""
    if not api_id:
        return None
    model_id = advice.effective.model if advice is not None else (workload.model if workload is not None else None)
    price = _price(data, api_id, model_id)
    if price is None:
        return None
    if advice is None:
        return ApiAnswer(price=price, bill=api_only(price, workload) if workload is not None else None)
    if (advice.effective.mode or "inference") != "inference":
        return None
    option = winner_option(advice)
    rate = option.throughput.decode_tokens_per_s if option is not None else None
    if option is None or rate is None or rate.value <= 0:
        return None
    model_name = names.get(model_id or "", model_id or "the model")
    comparison = compare(price, advice.effective, usd_per_month=option.total_usd, output_tokens_per_s=rate.value,
                         option=option.name, model_name=model_name)
    return ApiAnswer(price=price, comparison=comparison, model_name=model_name)


def _short(price: ApiPriceRecord) -> str:
    return price.name.split(" (")[0]


def _usd(value: float) -> str:
    """A list price as vendors print it: $0.60, $2.50, $0.075, $15."""
    return f"${value:.2f}" if round(value, 2) == value else f"${value:g}"


def _rates(price: ApiPriceRecord) -> str:
    """'$0.15/$0.60 per 1M in/out, openai.com/api/pricing, 2026-11-25'."""
    return (f"{_usd(price.usd_per_1m_input)}/{_usd(price.usd_per_1m_output)} per 1M in/out, {price.pricing_page}, "
            f"{price.observed_on}" + ("" if price.confidence == "high" else f", {price.confidence} confidence"))


def _share(value: float) -> str:
    return f"{value:.0%}" if value < 10 else "over 10x"


def api_line(answer: ApiAnswer | None) -> str:
    """The `API:` line: the API's bill at this load beside the plan's, and where they cross."""
    if answer is None:
        return ""
    price, c = answer.price, answer.comparison
    if c is None:
        bill = answer.bill
        if bill is None:
            return f"{_short(price)}: {_rates(price)}; say the tokens a month (e.g. “1B tokens a month”) for the bill"
        return (f"{_short(price)} {fmt_usd(bill.usd_per_month.value)} a month for "
                f"{fmt_num(bill.input_tokens_per_month.value)} input + {fmt_num(bill.output_tokens_per_month.value)} "
                f"output tokens ({_rates(price)})")
    where = "at this load" if c.load == "said" else "with the GPUs busy all month"
    even = c.break_even_output_tokens_per_month.value
    crossing = (f"the API is cheaper below {fmt_num(even)} output tokens a month (~{_share(c.break_even_load.value)} "
                "load)" if c.break_even_load.value <= 1 else
                "the API is cheaper at any load these GPUs can serve")
    real = (f"at {c.realistic_load:.0%} load: API {fmt_usd(c.api_usd_per_month_realistic.value)} vs self-hosted "
            f"{fmt_usd(c.self_hosted_usd_per_month)} ({fmt_usd(c.self_hosted_usd_per_1m_output_realistic.value)} per 1M "
            "output)")
    caveat = "; a different model: compare quality first" if any("different models" in x for x in c.caveats) else ""
    return (f"{_short(price)} {fmt_usd(c.bill.usd_per_month.value)} a month {where} ({_rates(price)}); self-hosted "
            f"{fmt_usd(c.self_hosted_usd_per_month)}; {crossing}; {real}{caveat}")


def api_details(answer: ApiAnswer | None) -> list[str]:
    """The arithmetic behind the `API:` line, for `--details`: each figure with its formula and inputs."""
    if answer is None:
        return []
    price, c = answer.price, answer.comparison
    lines = [f"API compared: {price.name} — {price.api_model}; list prices per 1M tokens: input ${price.usd_per_1m_input:g}"
             + (f", cached input ${price.usd_per_1m_cached_input:g} (not applied: no cache hits assumed)"
                if price.usd_per_1m_cached_input is not None else "")
             + f", output ${price.usd_per_1m_output:g}; {price.pricing_page}, read {price.observed_on} "
             f"({price.confidence} confidence; sources: {price.source})"]
    if price.notes:
        lines.append(f"  note: {price.notes}")
    bill = c.bill if c is not None else answer.bill
    figures: list[tuple[str, Any]] = []
    if bill is not None:
        figures += [("input tokens a month", bill.input_tokens_per_month),
                    ("output tokens a month", bill.output_tokens_per_month),
                    ("API bill", bill.usd_per_month), ("API per 1M output (prompts included)",
                                                       bill.usd_per_1m_output_with_prompts)]
    if c is not None:
        figures += [("plan's output, busy all month", c.capacity_output_tokens_per_month),
                    ("load compared (share of that)", c.load_share),
                    ("self-hosted per 1M output, busy all month", c.self_hosted_usd_per_1m_output_full),
                    (f"self-hosted per 1M output at {c.realistic_load:.0%} load", c.self_hosted_usd_per_1m_output_realistic),
                    (f"API bill at {c.realistic_load:.0%} load", c.api_usd_per_month_realistic),
                    ("break-even output tokens a month", c.break_even_output_tokens_per_month),
                    ("break-even load", c.break_even_load)]
    for label, fig in figures:
        inputs = ", ".join(f"{k}={_value(v)}" for k, v in fig.inputs.items())
        lines.append(f"  {label}: {_value(fig.value)} {fig.unit} = {fig.formula}" + (f" ({inputs})" if inputs else ""))
    if c is not None:
        lines.append(f"  self-hosted: {c.self_hosted_option}, {fmt_usd(c.self_hosted_usd_per_month)} a month, always on")
        lines += [f"  caveat: {x}" for x in c.caveats]
    return lines


def _value(v: Any) -> str:
    """A figure's value or input as a reader checks it: token counts in M/B, prices and shares as they are."""
    if not isinstance(v, float | int):
        return str(v)
    return fmt_num(float(v)) if abs(v) >= 1e5 else f"{v:,.4g}"


def api_contract(answer: ApiAnswer | None) -> dict[str, Any] | None:
    """`api_comparison` in `ask --json` (docs/json.md); None when no API was named."""
    if answer is None:
        return None
    price, c = answer.price, answer.comparison
    bill = c.bill if c is not None else answer.bill

    def num(fig: Any, digits: int = 4) -> float | None:
        return None if fig is None else round(float(fig.value), digits)

    return {
        "api": price.id, "name": price.name, "api_model": price.api_model, "open_model": price.open_model,
        "usd_per_1m_input": price.usd_per_1m_input, "usd_per_1m_cached_input": price.usd_per_1m_cached_input,
        "usd_per_1m_output": price.usd_per_1m_output, "pricing_page": price.pricing_page,
        "observed_on": price.observed_on, "confidence": price.confidence,
        "load": c.load if c is not None else ("said" if bill is not None else None),
        "input_tokens_per_month": num(bill.input_tokens_per_month, 0) if bill else None,
        "output_tokens_per_month": num(bill.output_tokens_per_month, 0) if bill else None,
        "api_usd_per_month": num(bill.usd_per_month, 2) if bill else None,
        "api_usd_per_1m_output_with_prompts": num(bill.usd_per_1m_output_with_prompts) if bill else None,
        "self_hosted_usd_per_month": round(c.self_hosted_usd_per_month, 2) if c else None,
        "self_hosted_usd_per_1m_output_full": num(c.self_hosted_usd_per_1m_output_full) if c else None,
        "self_hosted_usd_per_1m_output_realistic": num(c.self_hosted_usd_per_1m_output_realistic) if c else None,
        "realistic_load": c.realistic_load if c else None,
        "api_usd_per_month_realistic": num(c.api_usd_per_month_realistic, 2) if c else None,
        "load_share": num(c.load_share) if c else None,
        "break_even_output_tokens_per_month": num(c.break_even_output_tokens_per_month, 0) if c else None,
        "break_even_load": num(c.break_even_load) if c else None,
        "cheaper": c.cheaper if c else None,
        "caveats": list(c.caveats) if c else [],
    }


def api_only_view(answer: ApiAnswer, questions: list[str], notes: list[str]) -> Any:
    """The first message for an API named with no model: its bill for the tokens said (or its prices), headlined."""
    from bot.summary import AnswerView

    price, bill = answer.price, answer.bill
    if bill is None:
        headline = f"💳 {_short(price)}: {_usd(price.usd_per_1m_input)} per 1M input, {_usd(price.usd_per_1m_output)} per 1M output tokens"
    else:
        headline = f"💳 {_short(price)}: {fmt_usd(bill.usd_per_month.value)} a month for the tokens said"
    shown = [f"Compare self-hosting: name the open model you would run (e.g. “serve Llama 3.3 70B for 50 users vs "
             f"{_short(price)}”)", *notes][:3]
    return AnswerView(headline=headline, verdict="fits", questions=list(questions), cost=api_line(answer),
                      notes=shown, key_assumptions="No cache hits assumed (cached input is cheaper where a prompt "
                      "prefix repeats) · list prices, before any volume discount")
