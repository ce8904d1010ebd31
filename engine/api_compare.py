"""Self-hosting against a hosted model API: the API's bill for the same tokens, and where the two cross.

Why its own module: "our cost per 1M tokens serving Llama 3.3 70B at 50 users vs gpt-4o-mini api" is a build-vs-buy
question. An API bills every token, input and output at their own list prices, so its bill is linear in the tokens
a month; a self-hosted plan costs the same each month whether its GPUs are busy or idle. The comparison therefore
turns on the load: the plan's cost per 1M tokens printed "busy 100% of the time" is its floor, and a chat service
averages far less over a month. Every figure carries its formula (`Figure`), so `--details` shows the arithmetic.

Pure: prices come in as `catalog.records.ApiPriceRecord`, the plan's monthly cost and capacity as numbers.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from catalog.records import ApiPriceRecord
from engine.models import Figure, Workload
from engine.throughput import request_shape
from engine.units import HOURS_PER_MONTH, SECONDS_PER_HOUR, figure

SECONDS_PER_MONTH = HOURS_PER_MONTH * SECONDS_PER_HOUR  # an always-on month, as the plans' monthly costs are
# A chat service's GPUs are busy a fraction of the month: users think between turns, and nights and weekends are
# quiet. 30% is a typical average for an interactive service sized for its busy hour (the busy hour runs ~2x the
# day's average, and a day's traffic is concentrated in working hours); said as an assumption, never hidden.
REALISTIC_LOAD = 0.30
MILLION = 1_000_000


class ApiBill(BaseModel):
    """A hosted API's monthly bill for a number of input and output tokens, at its list prices."""

    model_config = ConfigDict(frozen=True)

    api: str  # catalog api_prices id
    name: str
    pricing_page: str
    observed_on: str
    confidence: str
    usd_per_1m_input: float
    usd_per_1m_cached_input: float | None
    usd_per_1m_output: float
    input_tokens_per_month: Figure
    output_tokens_per_month: Figure
    usd_per_month: Figure
    # the bill per 1M output tokens with the prompts that come with them: comparable with a plan's "$ per 1M output"
    usd_per_1m_output_with_prompts: Figure


class ApiComparison(BaseModel):
    """The API's bill against a self-hosted plan's monthly cost, at the workload's load and at a realistic one."""

    model_config = ConfigDict(frozen=True)

    bill: ApiBill  # at the load compared (`load`)
    # "said": the load the question states (requests/s, tokens a month); "full": the plan's GPUs busy all month at
    # the users planned (a number of users says how many at once, not how often they ask)
    load: Literal["said", "full"]
    self_hosted_usd_per_month: float
    self_hosted_option: str
    capacity_output_tokens_per_month: Figure  # the plan's output, its GPUs busy all month
    load_share: Figure  # the load compared, as a share of that capacity
    self_hosted_usd_per_1m_output_full: Figure
    self_hosted_usd_per_1m_output_realistic: Figure
    realistic_load: float
    api_usd_per_month_realistic: Figure  # the API's bill at the realistic load
    break_even_output_tokens_per_month: Figure  # below it the API's bill is the smaller
    break_even_load: Figure  # the same, as a share of the plan's capacity (over 1: the API is cheaper at any load)
    cheaper: Literal["api", "self_hosted"]  # at the load compared
    caveats: tuple[str, ...] = ()  # different models; reasoning tokens billed as output


def count(tokens: float) -> str:
    """3.4B, 800M, 25k: a token count in a sentence."""
    for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if tokens >= scale:
            return f"{tokens / scale:.3g}{suffix}"
    return f"{tokens:,.0f}"


def api_bill(price: ApiPriceRecord, input_tokens: float, output_tokens: float, how: str = "") -> ApiBill:
    """The API's bill for `input_tokens` and `output_tokens` a month: each times its list price per 1M. No cache hits
    assumed (the cached-input price is shown, not applied: hits depend on prompts sharing a prefix)."""
    tokens_in = figure(input_tokens, "tokens/month", how or "input tokens a month", {}, digits=6)
    tokens_out = figure(output_tokens, "tokens/month", how or "output tokens a month", {}, digits=6)
    usd = figure(input_tokens / MILLION * price.usd_per_1m_input + output_tokens / MILLION * price.usd_per_1m_output,
                 "USD/month", "input_tokens / 1M × usd_per_1m_input + output_tokens / 1M × usd_per_1m_output",
                 {"input_tokens": input_tokens, "usd_per_1m_input": price.usd_per_1m_input,
                  "output_tokens": output_tokens, "usd_per_1m_output": price.usd_per_1m_output}, digits=6)
    ratio = input_tokens / output_tokens if output_tokens > 0 else 0.0
    blended = figure(price.usd_per_1m_output + ratio * price.usd_per_1m_input, "USD/1M output tokens",
                     "usd_per_1m_output + (input_tokens / output_tokens) × usd_per_1m_input",
                     {"usd_per_1m_output": price.usd_per_1m_output, "input_per_output": ratio,
                      "usd_per_1m_input": price.usd_per_1m_input}, digits=6)
    return ApiBill(api=price.id, name=price.name, pricing_page=price.pricing_page, observed_on=price.observed_on,
                   confidence=price.confidence, usd_per_1m_input=price.usd_per_1m_input,
                   usd_per_1m_cached_input=price.usd_per_1m_cached_input, usd_per_1m_output=price.usd_per_1m_output,
                   input_tokens_per_month=tokens_in, output_tokens_per_month=tokens_out, usd_per_month=usd,
                   usd_per_1m_output_with_prompts=blended)


def said_tokens_per_month(w: Workload) -> tuple[float, float, str] | None:
    """(input, output) tokens a month the workload states, and how they were counted; None when it states only users
    at once (their rate is not said). A token count a period ("1B tokens a month") is its average over the month,
    split by the request shape (prompt + output together unless said to be output); a request rate is taken as
    sustained all month."""
    prompt, out = request_shape(w)
    if w.load_tokens_per_s:
        per_month = float(w.load_tokens_per_s) * SECONDS_PER_MONTH
        if w.load_output_only:
            return per_month * prompt / out, per_month, (
                f"{count(per_month)} output tokens a month said; prompts at {prompt:,} per {out:,}-token reply")
        share = out / (prompt + out)
        return per_month * (1 - share), per_month * share, (
            f"{count(per_month)} tokens a month said (prompt + output), split {prompt:,}:{out:,} as a request is")
    if w.requests_per_s:
        requests = float(w.requests_per_s) * SECONDS_PER_MONTH
        return requests * prompt, requests * out, (
            f"{float(w.requests_per_s):g} requests/s all month = {count(requests)} requests of {prompt:,} prompt + "
            f"{out:,} output tokens")
    return None


def compare(price: ApiPriceRecord, w: Workload, *, usd_per_month: float, output_tokens_per_s: float, option: str,
            model_name: str, realistic_load: float = REALISTIC_LOAD) -> ApiComparison:
    """The API against a self-hosted plan costing `usd_per_month` that generates `output_tokens_per_s` with its GPUs
    busy (the plan's total decode rate at the users planned).

    - the load compared: the one the workload says, else the plan's GPUs busy all month;
    - the API's bill at that load, and at `realistic_load` of the plan's capacity;
    - the plan's cost per 1M output tokens busy all the time and at `realistic_load`;
    - the break-even: the output tokens a month (and share of the plan's capacity) where both bills are equal.
    """
    prompt, out = request_shape(w)
    ratio = prompt / out
    capacity_out = max(0.0, output_tokens_per_s) * SECONDS_PER_MONTH
    capacity = figure(capacity_out, "tokens/month", "output_tokens_per_s × seconds a month (730 h)",
                      {"output_tokens_per_s": output_tokens_per_s, "seconds_per_month": SECONDS_PER_MONTH}, digits=6)
    said = said_tokens_per_month(w)
    if said is not None:
        tokens_in, tokens_out, how = said
        load: Literal["said", "full"] = "said"
    else:
        tokens_in, tokens_out = capacity_out * ratio, capacity_out
        how = (f"the plan's output busy all month, {count(capacity_out)} tokens, with {prompt:,}-token prompts per "
               f"{out:,}-token reply")
        load = "full"
    bill = api_bill(price, tokens_in, tokens_out, how)
    share = figure(tokens_out / capacity_out if capacity_out else 0.0, "share", "output_tokens / capacity_output_tokens",
                   {"output_tokens": tokens_out, "capacity_output_tokens": capacity_out}, digits=4)
    per_1m_full = figure(usd_per_month / (capacity_out / MILLION) if capacity_out else 0.0, "USD/1M output tokens",
                         "self_hosted_usd_per_month / (capacity_output_tokens / 1M)",
                         {"self_hosted_usd_per_month": usd_per_month, "capacity_output_tokens": capacity_out}, digits=6)
    per_1m_real = figure(per_1m_full.value / realistic_load, "USD/1M output tokens",
                         "self_hosted_usd_per_1m_output_full / load",
                         {"self_hosted_usd_per_1m_output_full": per_1m_full.value, "load": realistic_load}, digits=6)
    blended = bill.usd_per_1m_output_with_prompts.value
    api_real = figure(capacity_out * realistic_load / MILLION * blended, "USD/month",
                      "capacity_output_tokens × load / 1M × api_usd_per_1m_output_with_prompts",
                      {"capacity_output_tokens": capacity_out, "load": realistic_load,
                       "api_usd_per_1m_output_with_prompts": blended}, digits=6)
    even_tokens = usd_per_month / blended * MILLION if blended > 0 else float("inf")
    even = figure(even_tokens, "tokens/month", "self_hosted_usd_per_month / api_usd_per_1m_output_with_prompts × 1M",
                  {"self_hosted_usd_per_month": usd_per_month, "api_usd_per_1m_output_with_prompts": blended}, digits=6)
    even_share = figure(even_tokens / capacity_out if capacity_out else float("inf"), "share",
                        "break_even_output_tokens / capacity_output_tokens",
                        {"break_even_output_tokens": even_tokens, "capacity_output_tokens": capacity_out}, digits=4)
    caveats: list[str] = []
    if price.open_model is None or price.open_model != w.model:
        caveats.append(f"{price.name.split(' (')[0]} and {model_name} are different models: the cheaper one is the "
                       "answer only if it is good enough; compare them on your own prompts")
    if price.reasoning:
        caveats.append(f"{price.name.split(' (')[0]} bills its hidden reasoning tokens as output: its bill is a floor, "
                       "often several times higher on hard prompts")
    return ApiComparison(bill=bill, load=load, self_hosted_usd_per_month=usd_per_month, self_hosted_option=option,
                         capacity_output_tokens_per_month=capacity, load_share=share,
                         self_hosted_usd_per_1m_output_full=per_1m_full, self_hosted_usd_per_1m_output_realistic=per_1m_real,
                         realistic_load=realistic_load, api_usd_per_month_realistic=api_real,
                         break_even_output_tokens_per_month=even, break_even_load=even_share,
                         cheaper="api" if bill.usd_per_month.value < usd_per_month else "self_hosted",
                         caveats=tuple(caveats))


def api_only(price: ApiPriceRecord, w: Workload) -> ApiBill | None:
    """"How much would gpt-4o cost for 1B tokens a month?": the API's bill for the tokens said; None when none are."""
    said = said_tokens_per_month(w)
    return None if said is None else api_bill(price, said[0], said[1], said[2])
